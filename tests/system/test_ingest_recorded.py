"""`gpucost ingest` on every recorded azure, skypilot and lambda file, then the marts.

One module-scoped warehouse is built from the real recorded files in ../shared/data/prices
(read in place) through the CLI entry point; the tests then query the published marts.
"""

import datetime
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli import main as cli
from gpucost.flows.cli import output

PRICES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "prices"


def _run(*argv: str) -> int:
    return cli.main(list(argv))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, request):
    if not PRICES.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    data = tmp_path_factory.mktemp("wh")
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUCOST_DATA_DIR", str(data))
    sky = PRICES / "skypilot_format"
    good_lambda = [sky / "lambda_vms_2026-04-02.csv", sky / "lambda_vms_2026-05-07.csv"]
    codes = {
        "azure": _run("ingest", "azure", *map(str, sorted((PRICES / "azure_retail_api")
                                                          .glob("*.json")))),
        "lambda_page": _run("ingest", "lambda", "--force", *map(str, sorted(
            (PRICES / "pricing_pages_html" / "lambda").glob("*.html")))),
        "sky": _run("ingest", "skypilot", *map(str, good_lambda),
                    *map(str, sorted(sky.glob("gcp_*.csv"))), str(sky / "azure_vms_2026-05-20.csv"),
                    str(sky / "vast_vms_2026-04-29.csv")),
        "header_only": _run("ingest", "skypilot",
                            str(sky / "lambda_vms_2026-05-07_failed_run_header_only.csv")),
    }
    yield data, codes, mp
    mp.undo()
    shutil.rmtree(data, ignore_errors=True)


def _q(data: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_every_recorded_file_ingests(warehouse):
    _, codes, _ = warehouse
    assert codes["azure"] == 0 and codes["lambda_page"] == 0 and codes["sky"] == 0


def test_lambda_2026_h100_sxm_price_per_gpu_hour(warehouse):
    """The Lambda page of 2026-01-09 reads 2.99 per GPU for 8x H100 SXM (in raw); in force is
    the newer first-hand observation of the same offer, SkyPilot's Lambda catalog of
    2026-05-07 at 3.99 (31.92 / 8), whatever the sku is called."""
    data, _, _ = warehouse
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    try:
        [(page_price,)] = con.execute(
            "select price_per_hour / gpu_count from price_observations where source = "
            "'lambda' and sku = '8x NVIDIA H100 SXM 80GB' "
            "and cast(observed_at as date) = '2026-01-09'").fetchall()
    finally:
        con.close()
    assert page_price == pytest.approx(2.99)
    assert _q(data, "select count(*) from gpu_offers where source = 'lambda' "
                    "and sku ilike '%H100 SXM%'") == [(0,)]
    rows = set(_q(data, "select source, price_per_gpu_hour, gpu_count, accelerator_id, "
                        "cast(observed_at as date) from gpu_offers where provider = 'lambda' "
                        "and accelerator_id = 'nvidia-h100-sxm5-80gb' and gpu_count = 8 "
                        "and pricing_model = 'on_demand'"))
    assert rows == {("skypilot", 3.99, 8.0, "nvidia-h100-sxm5-80gb",
                     datetime.date(2026, 5, 7))}


def test_gcp_a2_highgpu_1g_has_full_instance_price(warehouse):
    data, _, _ = warehouse
    rows = _q(data, "select price_per_hour, accelerator_id from gpu_offers "
                    "where provider = 'gcp' and sku = 'a2-highgpu-1g' and region = 'us-central1-a'"
                    " and pricing_model = 'on_demand'")
    assert rows == [(pytest.approx(3.67339), rows[0][1])]
    assert rows[0][1].startswith("nvidia-a100")


def test_no_azure_windows_price_among_linux_prices(warehouse):
    data, _, _ = warehouse
    rows = _q(data, "select count(*) from gpu_offers where provider = 'azure' and os <> 'linux'")
    assert rows == [(0,)]
    # the raw layer kept the refused Windows rows with their reason
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    n = con.execute("select count(*) from rejects where source = 'azure' "
                    "and reason = 'non_linux_os'").fetchone()[0]
    con.close()
    assert n > 0


def test_header_only_catalog_refused_and_earlier_lambda_data_stays(warehouse):
    data, codes, _ = warehouse
    assert codes["header_only"] == output.EXIT_SOURCE_FAILED
    rows = _q(data, "select count(*) from gpu_offers where source = 'skypilot' "
                    "and provider = 'lambda'")
    assert rows[0][0] > 0
    err = _q(data, "select last_error_type from source_health where source = 'skypilot'")
    assert err == [("EmptyPayloadError",)]


def test_ingesting_the_same_file_twice_adds_no_rows(warehouse):
    data, _, _ = warehouse
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    before = con.execute("select count(*) from price_observations").fetchone()[0]
    con.close()
    page = PRICES / "pricing_pages_html" / "lambda" / "lambda_pricing_20260109103934.html"
    assert _run("ingest", "lambda", str(page)) == 0
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    after = con.execute("select count(*) from price_observations").fetchone()[0]
    last = con.execute("select status from fetches order by fetch_id desc limit 1").fetchone()
    con.close()
    assert after == before
    assert last == ("unchanged",)


def test_cost_per_flop_for_h100_bf16_and_fp8(warehouse, capsys):
    capsys.readouterr()
    assert _run("sql", "select * from cost_per_flop where accelerator_id like '%h100%'",
                "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    precisions = {r["precision"] for r in rows if r["usd_per_eflop_peak"] is not None}
    assert {"bf16", "fp8"} <= precisions
    for r in rows:
        if r["usd_per_eflop_peak"] is not None:
            assert r["usd_per_eflop_effective"] > r["usd_per_eflop_peak"] > 0


def test_seed_table_a100_cost_per_tflops(warehouse):
    data, _, _ = warehouse
    rows = dict(_q(data, "select distinct precision, round(usd_per_tflops_purchase, 2) "
                         "from cost_per_flop where accelerator_id = 'nvidia-a100-sxm4-80gb' "
                         "and precision in ('bf16', 'int8')"))
    assert rows == {"bf16": 48.08, "int8": 24.04}
