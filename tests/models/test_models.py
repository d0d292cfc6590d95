"""The SQL models: built by the runner from a small raw DB and a fixture curated catalog.

The raw DB holds three sources written by SQL (RAW_ROWS_SQL): skypilot (aws stream: a good
fetch, an 'unchanged' refetch, then a failed fetch; gcp stream: one good fetch), runpod (an
older good fetch superseded by a newer one, then a refused fetch), azure (one fetch with a
fractional-GPU row and a Windows row). The fixture catalog lives in
tests/fixtures/models/catalog/.
"""

from __future__ import annotations

import csv
import shutil
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.catalog import CATALOG_DIR
from gpucost.models import runner
from gpucost.warehouse.curated import CURATED_TABLES, CuratedDataError, load_curated

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_SQL = ROOT / "warehouse" / "schema.sql"
FIXTURE_CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "models" / "catalog"

H100 = "nvidia-h100-sxm5-80gb"
A100_80 = "nvidia-a100-sxm4-80gb"
A100_40 = "nvidia-a100-sxm4-40gb"
A10 = "nvidia-a10"

MARTS = (
    "accelerators",
    "gpu_offers",
    "unmapped_gpu_names",
    "gpu_prices",
    "cost_per_flop",
    "memory_per_dollar",
    "bandwidth_per_dollar",
    "source_health",
    "price_anomalies",
)

RAW_ROWS_SQL = """
insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                     observed_at, status, sha256, rows_loaded, error_type, error) values
-- skypilot/aws: good, then an 'unchanged' refetch of the same payload, then a failure
(1, 'r1', 'skypilot', 'aws', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:05+00',
    '2026-03-01 00:00+00', 'ok', 'sha-aws-1', 7, null, null),
(2, 'r2', 'skypilot', 'aws', 'replay', '2026-03-02 00:00+00', '2026-03-02 00:01+00',
    '2026-03-02 00:00+00', 'unchanged', 'sha-aws-1', 0, null, null),
(3, 'r3', 'skypilot', 'aws', 'live', '2026-03-03 00:00+00', '2026-03-03 00:00:30+00',
    null, 'failed', null, 0, 'HttpStatusError', 'HTTP 503 from https://example.test/aws.csv'),
-- skypilot/gcp: payload A, then B, then A again (recorded 'unchanged'): A is in force
(4, 'r1', 'skypilot', 'gcp', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:05+00',
    '2026-03-01 00:00+00', 'ok', 'sha-gcp-1', 4, null, null),
(10, 'r5', 'skypilot', 'gcp', 'replay', '2026-03-02 06:00+00', '2026-03-02 06:01+00',
    '2026-03-02 06:00+00', 'ok', 'sha-gcp-2', 1, null, null),
(11, 'r6', 'skypilot', 'gcp', 'replay', '2026-03-02 12:00+00', '2026-03-02 12:01+00',
    '2026-03-02 12:00+00', 'unchanged', 'sha-gcp-1', 0, null, null),
-- runpod (no stream): an older good payload, a newer good one, then a refused one
(5, 'r1', 'runpod', null, 'replay', '2026-03-01 00:00+00', '2026-03-01 00:02+00',
    '2026-03-01 00:00+00', 'ok', 'sha-rp-1', 2, null, null),
(6, 'r2', 'runpod', null, 'replay', '2026-03-02 00:00+00', '2026-03-02 00:02+00',
    '2026-03-02 00:00+00', 'ok', 'sha-rp-2', 3, null, null),
(7, 'r3', 'runpod', null, 'live', '2026-03-03 00:00+00', '2026-03-03 00:02+00',
    '2026-03-03 00:00+00', 'failed', 'sha-rp-3', 0, 'RowCountCollapseError',
    '1 row vs 3 in the last good payload'),
-- azure/eastus: one replayed payload
(8, 'r2', 'azure', 'eastus', 'replay', '2026-03-02 00:00+00', '2026-03-02 00:03+00',
    '2026-03-02 00:00+00', 'replayed', 'sha-az-1', 3, null, null),
-- azure/eastus: a backfill replayed later of a payload observed earlier: not in force
(9, 'r4', 'azure', 'eastus', 'replay', '2026-03-04 00:00+00', '2026-03-04 00:01+00',
    '2026-02-01 00:00+00', 'replayed', 'sha-az-0', 1, null, null);

insert into price_observations (fetch_id, source, provider, sku, region, pricing_model, os,
                                currency, price_per_hour, gpu_name_raw, gpu_count,
                                observed_at) values
(1, 'skypilot', 'aws', 'p5.48xlarge', 'us-east-1', 'on_demand', 'linux', 'USD', 98.32,
    'H100', 8, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'p5.48xlarge', 'us-west-2', 'on_demand', 'linux', 'USD', 80.0,
    'H100', 8, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'p5.48xlarge', 'us-east-1', 'spot', 'linux', 'USD', 40.0,
    'H100', 8, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'p4de.24xlarge', 'us-east-1', 'on_demand', 'linux', 'USD', 40.96,
    'A100', 8, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'g4dn.xlarge', 'us-east-1', 'on_demand', 'linux', 'USD', 0.526,
    'T4', 1, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'g4dn.xlarge', 'us-west-2', 'on_demand', 'linux', 'USD', 0.526,
    'T4', 1, '2026-03-01 00:00+00'),
(1, 'skypilot', 'aws', 'g4dn.2xlarge', 'us-east-1', 'on_demand', 'linux', 'USD', 0.0,
    'T4', 1, '2026-03-01 00:00+00'),
(4, 'skypilot', 'gcp', 'a3-highgpu-8g', 'us-central1', 'on_demand', 'linux', 'USD', 88.0,
    'H100', 8, '2026-03-01 00:00+00'),
(4, 'skypilot', 'gcp', 'a3-highgpu-8g', 'us-central1', 'spot', 'linux', 'USD', 96.0,
    'H100', 8, '2026-03-01 00:00+00'),
(4, 'skypilot', 'gcp', 'a2-highgpu-1g', 'us-central1', 'on_demand', 'linux', 'USD', 3.67,
    'A100', 1, '2026-03-01 00:00+00'),
(4, 'skypilot', 'gcp', 'a2-ultragpu-1g', 'us-central1', 'on_demand', 'linux', 'USD', 5.07,
    'A100 80GB', 1, '2026-03-01 00:00+00'),
(10, 'skypilot', 'gcp', 'a3-highgpu-8g', 'us-central1', 'on_demand', 'linux', 'USD', 70.0,
    'H100', 8, '2026-03-02 06:00+00'),
(5, 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 3.50,
    'H100 SXM', 1, '2026-03-01 00:00+00'),
(5, 'runpod', 'runpod', 'MI300X', '', 'on_demand', 'linux', 'USD', 2.49,
    'MI300X', 1, '2026-03-01 00:00+00'),
(6, 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 2.99,
    'H100-SXM', 1, '2026-03-02 00:00+00'),
(6, 'runpod', 'runpod', 'H100 SXM', '', 'community', 'linux', 'USD', 2.0,
    'H100 SXM', 1, '2026-03-02 00:00+00'),
(6, 'runpod', 'runpod', 'A100 SXM', '', 'on_demand', 'linux', 'USD', 1.89,
    'A100', 1, '2026-03-02 00:00+00'),
(8, 'azure', 'azure', 'Standard_NV36ads_A10_v5', 'eastus', 'on_demand', 'linux', 'USD', 3.20,
    'A10', 1, '2026-03-02 00:00+00'),
(8, 'azure', 'azure', 'Standard_NV18ads_A10_v5', 'eastus', 'on_demand', 'linux', 'USD', 1.00,
    'A10', 0.5, '2026-03-02 00:00+00'),
(8, 'azure', 'azure', 'Standard_NV36ads_A10_v5', 'eastus', 'on_demand', 'windows', 'USD', 5.00,
    'A10', 1, '2026-03-02 00:00+00'),
(9, 'azure', 'azure', 'Standard_NV36ads_A10_v5', 'eastus', 'on_demand', 'linux', 'USD', 2.50,
    'A10', 1, '2026-02-01 00:00+00');
"""


def make_raw_db(path: Path, *, with_rows: bool = True) -> Path:
    con = duckdb.connect(str(path))
    try:
        con.execute(SCHEMA_SQL.read_text(encoding="utf-8"))
        if with_rows:
            con.execute(RAW_ROWS_SQL)
    finally:
        con.close()
    return path


def build(tmp: Path, catalog_dir: Path, *, with_rows: bool = True):
    raw = make_raw_db(tmp / "raw.duckdb", with_rows=with_rows)
    con = duckdb.connect(str(tmp / "next.duckdb"))
    con.execute(f"attach '{raw}' as raw (read_only)")
    load_curated(con, catalog_dir=catalog_dir)
    timings = runner.build(con)
    return con, timings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    con, timings = build(tmp_path_factory.mktemp("models"), FIXTURE_CATALOG)
    yield con, timings
    con.close()


@pytest.fixture(scope="module")
def con(built):
    return built[0]


def one(con, sql: str, params=None):
    rows = con.execute(sql, params or []).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


# ---------------------------------------------------------------- build and checks


def test_build_creates_marts_as_tables_and_checks_pass(con):
    tables = {
        r[0]
        for r in con.execute(
            "select table_name from duckdb_tables() where schema_name = 'main'"
        ).fetchall()
    }
    assert set(MARTS) <= tables
    assert runner.run_checks(con) == {}


def test_accelerators_mart_is_the_typed_curated_table(con):
    row = one(
        con,
        "select launch_date, memory_gb, peak_bf16_dense_tflops, purchase_price_usd, "
        "spec_source, notes from accelerators where accelerator_id = ?",
        [A10],
    )
    assert str(row[0]) == "2021-04-12"
    assert row[1:5] == (24.0, 125.0, None, "curated")
    assert row[5] == 'no fp64 figure, "quoted" note'
    assert one(con, "select count(*) from accelerators")[0] == 5


# ---------------------------------------------------------------- seed 003 and cost per flop


def test_seed_003_a100_purchase_cost_per_tflops(con):
    rows = dict(
        con.execute(
            "select precision, round(any_value(usd_per_tflops_purchase), 2) from cost_per_flop "
            "where accelerator_id = ? and precision in ('bf16', 'int8') group by precision",
            [A100_80],
        ).fetchall()
    )
    assert rows == {"bf16": 48.08, "int8": 24.04}
    # on every row of that accelerator x precision, whatever the price basis
    bases = {
        r[0]
        for r in con.execute(
            "select price_basis from cost_per_flop where accelerator_id = ? and precision = 'bf16' "
            "and round(usd_per_tflops_purchase, 2) = 48.08",
            [A100_80],
        ).fetchall()
    }
    assert {"purchase", "on_demand_min", "on_demand_median"} <= bases


def test_usd_per_eflop_by_hand(con):
    peak, effective, util, provider = one(
        con,
        "select usd_per_eflop_peak, usd_per_eflop_effective, utilisation, provider "
        "from cost_per_flop where accelerator_id = ? and precision = 'bf16' "
        "and price_basis = 'community_min'",
        [H100],
    )
    # one EFLOP (1e18 FLOP) at 989.4 TFLOP/s takes 1e18 / 989.4e12 s = 0.2808 h; at 2 USD/h
    # that is 0.5615 USD (= 2.0 / (989.4e12 * 3600) * 1e18)
    expected = 2.0 * (1e18 / 989.4e12) / 3600
    assert round(expected, 4) == 0.5615
    assert peak == pytest.approx(expected)
    assert util == 0.4
    assert effective == pytest.approx(expected / 0.4)
    assert provider == "runpod"


def test_h100_rows_have_bf16_and_fp8_with_both_eflop_columns(con):
    rows = con.execute(
        "select precision, price_basis, usd_per_eflop_peak, usd_per_eflop_effective "
        "from cost_per_flop where accelerator_id like '%h100%'"
    ).fetchall()
    hourly = [r for r in rows if r[1] != "purchase"]
    assert {r[0] for r in hourly} >= {"bf16", "fp8"}
    assert all(r[2] is not None and r[3] is not None for r in hourly)
    purchase = [r for r in rows if r[1] == "purchase"]
    assert purchase and all(r[2] is None and r[3] is None for r in purchase)
    assert {r[1] for r in rows} == {
        "on_demand_min",
        "on_demand_median",
        "spot_min",
        "community_min",
        "reserved_1y_min",
        "purchase",
    }
    # precisions without a dense figure are absent (the H100 has no fp4 figure here)
    assert "fp4" not in {r[0] for r in rows}


def test_accelerator_without_rent_gets_purchase_rows_only(con):
    rows = con.execute(
        "select distinct price_basis from cost_per_flop where accelerator_id = 'nvidia-rtx-4090'"
    ).fetchall()
    assert rows == [("purchase",)]


def test_memory_and_bandwidth_per_dollar(con):
    gb_hour, gb_purchase = one(
        con,
        "select gb_per_usd_hour, gb_per_purchase_usd from memory_per_dollar "
        "where accelerator_id = ? and price_basis = 'on_demand_min'",
        [H100],
    )
    assert gb_hour == pytest.approx(80 / 2.49)
    assert gb_purchase == pytest.approx(80 / 30000)
    tbps_hour, ic_hour, tbps_kusd = one(
        con,
        "select tbps_per_usd_hour, interconnect_gbps_per_usd_hour, tbps_per_purchase_kusd "
        "from bandwidth_per_dollar where accelerator_id = ? and price_basis = 'spot_min'",
        [H100],
    )
    assert tbps_hour == pytest.approx(3.35 / 5.0)
    assert ic_hour == pytest.approx(900 / 5.0)
    assert tbps_kusd == pytest.approx(3.35 / 30)


# ---------------------------------------------------------------- prices


def test_gpu_prices_quantiles_across_providers_by_hand(con):
    row = one(
        con,
        "select n_offers, n_providers, min_price_per_gpu_hour, p25_price_per_gpu_hour, "
        "median_price_per_gpu_hour, cheapest_provider, cheapest_sku, cheapest_region "
        "from gpu_prices where accelerator_id = ? and pricing_model = 'on_demand'",
        [H100],
    )
    # each provider's cheapest per-GPU price: lambda 2.49 (reference), runpod 2.99,
    # aws min(98.32, 80.0) / 8 = 10.0, gcp 88 / 8 = 11.0
    prices = sorted([2.49, 2.99, 10.0, 11.0])
    assert row[0] == 5  # aws has two offers
    assert row[1] == 4
    assert row[2] == pytest.approx(2.49)
    assert row[3] == pytest.approx(prices[0] + 0.75 * (prices[1] - prices[0]))  # 2.865
    assert row[4] == pytest.approx((prices[1] + prices[2]) / 2)  # 6.495
    assert row[5:] == ("lambda", "gpu_1x_h100_sxm5", "")


def test_fractional_gpu_offers_are_flagged_and_excluded_from_prices(con):
    frac, per_gpu = one(
        con,
        "select is_fractional_gpu, price_per_gpu_hour from gpu_offers "
        "where sku = 'Standard_NV18ads_A10_v5'",
    )
    assert frac is True and per_gpu is None
    n_offers, low = one(
        con,
        "select n_offers, min_price_per_gpu_hour from gpu_prices where accelerator_id = ?",
        [A10],
    )
    assert (n_offers, low) == (1, 3.20)


def test_windows_rows_and_zero_prices(con):
    # the Windows row of the same offer key is left out; the Linux price stays
    assert (
        one(con, "select price_per_hour from gpu_offers where sku = 'Standard_NV36ads_A10_v5'")[0]
        == 3.20
    )
    # a zero price is unknown, not free
    assert one(con, "select price_per_hour from gpu_offers where sku = 'g4dn.2xlarge'")[0] is None


def test_reference_prices_only_fill_uncovered_combinations(con):
    rows = set(
        con.execute(
            "select provider, accelerator_id, pricing_model, price_per_gpu_hour "
            "from gpu_offers where source = 'reference'"
        ).fetchall()
    )
    assert rows == {
        ("lambda", H100, "on_demand", 2.49),
        ("aws", H100, "reserved_1y", 8.0),
        ("lambda", A100_80, "on_demand", 1.29),
    }
    # aws on-demand H100 and runpod on-demand H100 are covered by scraped offers
    assert one(
        con,
        "select price_per_gpu_hour, provider from cost_per_flop "
        "where accelerator_id = ? and precision = 'bf16' "
        "and price_basis = 'reserved_1y_min'",
        [H100],
    ) == (8.0, "aws")


def test_alias_precedence(con):
    got = dict(
        con.execute(
            "select source || '/' || sku, accelerator_id from gpu_offers "
            "where gpu_name_raw like 'A100%'"
        ).fetchall()
    )
    assert got == {
        "skypilot/p4de.24xlarge": A100_80,  # sku alias for aws beats the any-provider name
        "skypilot/a2-ultragpu-1g": A100_80,  # sku alias for any provider
        "skypilot/a2-highgpu-1g": A100_40,  # gpu_name alias for any provider
        "runpod/A100 SXM": A100_80,  # gpu_name alias for runpod beats the any-provider one
    }
    # normalised keys: 'H100-SXM' matches the alias 'H100 SXM'
    assert (
        one(
            con,
            "select accelerator_id from gpu_offers where source = 'runpod' "
            "and sku = 'H100 SXM' and pricing_model = 'on_demand'",
        )[0]
        == H100
    )


def test_unmapped_gpu_names(con):
    rows = con.execute(
        "select source, provider, gpu_name_raw, sample_sku, offer_count from unmapped_gpu_names"
    ).fetchall()
    # MI300X was only in the superseded runpod payload
    assert rows == [("skypilot", "aws", "T4", "g4dn.2xlarge", 3)]


def test_spot_above_on_demand_is_an_anomaly_not_a_failed_check(con):
    rows = con.execute(
        "select provider, sku, spot_price_per_hour, on_demand_price_per_hour from price_anomalies"
    ).fetchall()
    assert rows == [("gcp", "a3-highgpu-8g", 96.0, 88.0)]
    assert runner.run_checks(con) == {}


# ---------------------------------------------------------------- snapshots in force


def test_last_good_snapshot_stays_in_force_after_failed_fetch(con):
    # skypilot/aws: fetch 1 ok, 2 unchanged, 3 failed -> fetch 1 rows, confirmed by fetch 2
    n, confirmed = one(
        con,
        "select count(*), max(confirmed_at) from gpu_offers "
        "where source = 'skypilot' and provider = 'aws'",
    )
    assert n == 7
    assert confirmed == datetime(2026, 3, 2, 0, 1, tzinfo=UTC)


def test_payload_that_comes_back_is_in_force_again(con):
    # skypilot/gcp: A (fetch 4), B (fetch 10), A again ('unchanged', fetch 11)
    rows = con.execute(
        "select sku, pricing_model, price_per_hour, observed_at, confirmed_at from gpu_offers "
        "where source = 'skypilot' and provider = 'gcp' and sku = 'a3-highgpu-8g' "
        "order by pricing_model"
    ).fetchall()
    day1 = datetime(2026, 3, 1, tzinfo=UTC)
    confirmed = datetime(2026, 3, 2, 12, 1, tzinfo=UTC)
    assert rows == [
        ("a3-highgpu-8g", "on_demand", 88.0, day1, confirmed),
        ("a3-highgpu-8g", "spot", 96.0, day1, confirmed),
    ]


def test_newer_good_fetch_supersedes_and_refused_fetch_does_not(con):
    rows = set(
        con.execute(
            "select sku, pricing_model, price_per_hour from gpu_offers where source = 'runpod'"
        ).fetchall()
    )
    assert rows == {
        ("H100 SXM", "on_demand", 2.99),
        ("H100 SXM", "community", 2.0),
        ("A100 SXM", "on_demand", 1.89),
    }


def test_backfilled_older_payload_does_not_displace_newer_one(con):
    # azure fetch 9 was replayed last but observed earlier (a backfill): fetch 8 stays in force
    assert one(
        con,
        "select price_per_hour, observed_at from gpu_offers where sku = 'Standard_NV36ads_A10_v5'",
    ) == (3.20, datetime(2026, 3, 2, tzinfo=UTC))


def test_source_health(con):
    cols = [
        "source",
        "last_success_at",
        "last_failure_at",
        "last_status",
        "last_error_type",
        "rows_in_force",
        "newest_observed_at",
        "data_age_days",
        "fetches_total",
        "fetches_failed",
        "kind",
        "data_origin",
        "health",
    ]
    rows = {
        r[0]: dict(zip(cols, r, strict=True))
        for r in con.execute(f"select {', '.join(cols)} from source_health").fetchall()
    }
    # every registered source is a row (a never-fetched one too), and the curated prices
    from gpucost.catalog import sources

    assert set(rows) == set(sources.names()) | {"reference"}
    fetched = {name for name, r in rows.items() if r["last_status"] is not None}
    assert fetched == {"skypilot", "runpod", "azure", "reference"}
    never = rows["lambda"]
    assert (never["kind"], never["health"], never["fetches_total"]) == (
        "prices", "never fetched", 0)
    assert (never["rows_in_force"], never["data_age_days"], never["last_success_at"]) == (
        None, None, None)
    # health (at the default maximum age): a failed last fetch is failing whatever is in
    # force; azure's data in force came from replayed files only
    assert {name: (rows[name]["kind"], rows[name]["health"]) for name in fetched} == {
        "skypilot": ("prices", "failing"), "runpod": ("prices", "failing"),
        "azure": ("prices", "replayed"),
        "reference": ("prices", "curated")}
    sky = rows["skypilot"]
    assert sky["last_success_at"] == datetime(2026, 3, 2, 12, 1, tzinfo=UTC)
    assert sky["last_failure_at"] == datetime(2026, 3, 3, 0, 0, 30, tzinfo=UTC)
    assert (sky["last_status"], sky["last_error_type"]) == ("failed", "HttpStatusError")
    assert (sky["rows_in_force"], sky["fetches_total"], sky["fetches_failed"]) == (11, 6, 1)
    # rows observed 2026-03-01, seen again by the 'unchanged' refetch observed 2026-03-02 12:00
    now = datetime.now(UTC)
    assert sky["data_age_days"] == pytest.approx(
        (now - datetime(2026, 3, 2, 12, tzinfo=UTC)).total_seconds() / 86400, abs=0.01
    )
    rp = rows["runpod"]
    assert (rp["last_status"], rp["last_error_type"]) == ("failed", "RowCountCollapseError")
    assert (rp["rows_in_force"], rp["fetches_total"], rp["fetches_failed"]) == (3, 3, 1)
    az = rows["azure"]
    assert (az["last_status"], az["last_error_type"], az["fetches_failed"]) == ("replayed", None, 0)
    assert (az["rows_in_force"], az["fetches_total"]) == (3, 2)
    assert az["last_success_at"] == datetime(2026, 3, 4, 0, 1, tzinfo=UTC)
    ref = rows["reference"]
    assert (ref["last_status"], ref["rows_in_force"], ref["fetches_total"]) == ("curated", 3, 0)
    assert ref["newest_observed_at"] == datetime(2026, 2, 1, tzinfo=UTC)


def test_source_health_label_is_the_one_health_rule(con):
    """The macro behind source_health.health and `gpucost sources --max-age-days N`: the
    first rule that holds wins; stale only ever means live data older than the maximum age
    (or undated), and the default maximum age is the CLI's."""
    from gpucost.flows.cli.sources import DEFAULT_MAX_AGE_DAYS

    def label(status, origin, age, max_age=None):
        extra = ", max_age_days := ?" if max_age is not None else ""
        return con.execute(
            f"select source_health_label(?::varchar, ?::varchar, ?::double{extra})",
            [status, origin, age] + ([max_age] if max_age is not None else [])).fetchone()[0]

    assert label(None, None, None) == "never fetched"
    assert label("curated", "curated", 400.0) == "curated"
    assert label("failed", "live", 0.1) == "failing"
    assert label("ok", "replayed", 0.1) == "replayed"
    assert label("ok", "live", None) == "stale"  # no date: not known to be fresh
    assert label("unchanged", "mixed", 1.9) == "ok"
    assert label("ok", "live", DEFAULT_MAX_AGE_DAYS) == "ok"
    assert label("ok", "live", DEFAULT_MAX_AGE_DAYS + 0.01) == "stale"
    assert label("ok", "live", 2.5, max_age=3.0) == "ok"
    assert label("ok", "live", 2.5, max_age=1.0) == "stale"


# ---------------------------------------------------------------- checks


def _edit_csv(path: Path, edit) -> None:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows = [row for row in rows if edit(row) is not False]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def copy_catalog(dst: Path, *, provenance: bool = True, **edits: dict[str, str]) -> Path:
    """Copy the fixture catalog, editing accelerators.csv rows by id: {id: {column: value}}.

    With `provenance` (the default) the edited cells' provenance records
    (accelerator_spec_sources.csv) take the new value too, as a curator would record it, so
    only the check under test sees the edit."""
    dst.mkdir()
    for name in CURATED_TABLES:
        shutil.copy(FIXTURE_CATALOG / f"{name}.csv", dst / f"{name}.csv")
    _edit_csv(dst / "accelerators.csv",
              lambda row: row.update(edits.get(row["accelerator_id"], {})))
    if provenance:
        def follow(record: dict[str, str]) -> None:
            new = edits.get(record["accelerator_id"], {})
            if record["metric"] in new:
                record["value"] = new[record["metric"]]
        _edit_csv(dst / "accelerator_spec_sources.csv", follow)
    return dst


def test_sparse_figure_entered_as_dense_is_caught(tmp_path):
    catalog = copy_catalog(tmp_path / "catalog", **{H100: {"peak_bf16_dense_tflops": "1979"}})
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        failures = runner.run_checks(con)
        with pytest.raises(runner.CheckFailedError, match="no_sparse_in_dense"):
            runner.check_or_raise(con)
    finally:
        con.close()
    assert set(failures) == {"no_sparse_in_dense"}
    assert {(r[0], r[1]) for r in failures["no_sparse_in_dense"]} == {
        (H100, "bf16_dense_not_half_of_sparse"),
        (H100, "fp16_dense_differs_from_bf16"),
    }


def _failures_of(tmp_path, catalog):
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        return runner.run_checks(con, sample=20)
    finally:
        con.close()


def test_a_filled_cell_without_provenance_blocks_publishing(tmp_path):
    catalog = copy_catalog(tmp_path / "catalog")
    _edit_csv(catalog / "accelerator_spec_sources.csv",
              lambda r: not (r["accelerator_id"] == H100 and r["metric"] == "memory_gb"))
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        with pytest.raises(runner.CheckFailedError, match="accelerator_spec_provenance"):
            runner.check_or_raise(con)
        failures = runner.run_checks(con)
        weak = con.execute(
            "select weakness, value from spec_weak_cells where accelerator_id = ? "
            "and metric = 'memory_gb'", [H100]).fetchall()
    finally:
        con.close()
    assert set(failures) == {"accelerator_spec_provenance"}
    assert [r[:3] for r in failures["accelerator_spec_provenance"]] == [
        (H100, "memory_gb", "no_provenance_row")]
    # the weak-cells mart lists the uncovered cell too
    assert weak == [("no_provenance", 80.0)]


def test_a_cell_edited_without_its_provenance_blocks_publishing(tmp_path):
    # the provenance value is the truth: a cell changed alone no longer matches it
    catalog = copy_catalog(tmp_path / "catalog", provenance=False,
                           **{H100: {"tdp_w": "750"}, A10: {"launch_date": "2021-05-01"}})
    failures = _failures_of(tmp_path, catalog)
    assert set(failures) == {"accelerator_spec_provenance"}
    assert sorted(r[:3] for r in failures["accelerator_spec_provenance"]) == [
        (A10, "launch_date", "value_differs"), (H100, "tdp_w", "value_differs")]


def test_malformed_provenance_records_block_publishing(tmp_path):
    catalog = copy_catalog(tmp_path / "catalog")

    def spoil(record):
        key = (record["accelerator_id"], record["metric"])
        if key == (A100_40, "peak_fp32_dense_tflops"):
            record["verification"] = "datasheet"
        if key == (A100_40, "peak_tf32_dense_tflops"):
            record["verification"], record["note"] = "derived", "half of sparse"
        if key == (A100_40, "peak_fp4_dense_tflops"):
            record["value"] = "9000"  # unpublished with a value, and the cell is empty
        if key == (A100_40, "tdp_w"):
            record["source_url"] = ""

    _edit_csv(catalog / "accelerator_spec_sources.csv", spoil)
    with (catalog / "accelerator_spec_sources.csv").open("a", encoding="utf-8") as fh:
        fh.write("nvidia-b200,memory_gb,180,https://example.test/b200,sheet,vendor,\n")
    failures = _failures_of(tmp_path, catalog)
    assert set(failures) == {"accelerator_spec_provenance"}
    assert sorted(r[:3] for r in failures["accelerator_spec_provenance"]) == [
        (A100_40, "peak_fp32_dense_tflops", "bad_verification"),
        (A100_40, "peak_fp4_dense_tflops", "value_differs"),
        (A100_40, "peak_fp4_dense_tflops", "verification_contradicts_value"),
        (A100_40, "peak_tf32_dense_tflops", "derived_without_rule"),
        (A100_40, "tdp_w", "missing_source_url"),
        ("nvidia-b200", "memory_gb", "unknown_cell"),
    ]


def test_a_derived_dense_cell_must_be_half_the_sparse_figure_it_cites(tmp_path):
    # A100 80GB bf16 is recorded as derived: "dense = sparse 624 / 2"; citing 650 breaks
    # both the rule (312 is not 325) and the vendor's printed bf16 sparse figure (624)
    catalog = copy_catalog(tmp_path / "catalog")

    def recite(record):
        if (record["accelerator_id"], record["metric"]) == (A100_80, "peak_bf16_dense_tflops"):
            record["note"] = "dense = sparse 650 / 2"

    _edit_csv(catalog / "accelerator_spec_sources.csv", recite)
    failures = _failures_of(tmp_path, catalog)
    assert set(failures) == {"no_sparse_in_dense"}
    assert {(r[0], r[1]) for r in failures["no_sparse_in_dense"]} == {
        (A100_80, "derived_dense_not_half_of_cited_sparse:peak_bf16_dense_tflops"),
        (A100_80, "derived_bf16_cites_another_sparse_figure"),
    }


def test_spec_provenance_and_weak_cells_marts(con):
    # every spec cell of the 5 fixture accelerators, filled or empty: 15 numeric + 2 dates
    assert one(con, "select count(*) from spec_provenance")[0] == 5 * 17
    assert one(con, "select verification, note from spec_provenance where accelerator_id = ? "
               "and metric = 'peak_bf16_dense_tflops'", [A100_80]) == (
        "derived", "dense = sparse 624 / 2 (datasheet prints 624* with sparsity)")
    assert one(con, "select verification from spec_provenance where accelerator_id = ? "
               "and metric = 'peak_fp8_dense_tflops'", [A100_80]) == ("unpublished",)
    weak = con.execute(
        "select accelerator_id, metric, weakness, value, verification from spec_weak_cells "
        "where weakness <> 'scraped_disagrees' order by all").fetchall()
    assert weak == [
        (A10, "peak_fp32_dense_tflops", "secondary", 31.2, "secondary"),
        (A100_80, "peak_bf16_dense_tflops", "derived", 312.0, "derived"),
    ]


def test_curated_checks_catch_broken_references(tmp_path):
    catalog = copy_catalog(tmp_path / "catalog")
    with (catalog / "aliases.csv").open("a", encoding="utf-8") as fh:
        fh.write(
            "B200,nvidia-b200,gpu_name,,no such accelerator\n"
            "H100,nvidia-a100-sxm4-80gb,gpu_name,,conflicts with H100 -> h100\n"
        )
    with (catalog / "reference_prices.csv").open("a", encoding="utf-8") as fh:
        fh.write("lambda,gpu_1x_b200,nvidia-b200,1,,on_demand,4.99,USD,2026-02-01,,\n")
    with (catalog / "accelerators.csv").open("a", encoding="utf-8") as fh:
        fh.write("nvidia-a10,NVIDIA,Ampere,A10 again" + "," * 26 + "\n")
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        failures = runner.run_checks(con)
    finally:
        con.close()
    assert set(failures) == {
        "aliases_resolve",
        "aliases_unambiguous",
        "reference_prices_resolve",
        "accelerator_ids_unique",
        # the reference price of the unknown accelerator becomes an offer without a spec row
        "offers_have_spec_row",
    }
    assert failures["offers_have_spec_row"][0][0] == "nvidia-b200"


def test_a_reference_price_never_comes_from_a_cross_check_table(tmp_path):
    """DESIGN invariant 9: cross-check rows are shown for comparison, never used as a price; a
    reference price typed from the Full Stack Deep Learning table (or cloud-gpus.com), or one
    without a source, stops the publish."""
    catalog = copy_catalog(tmp_path / "catalog")
    fsdl = ("https://github.com/the-full-stack/the-full-stack-website/blob/b646e30/docs/"
            "cloud-gpus/cloud-gpus.csv")
    with (catalog / "reference_prices.csv").open("a", encoding="utf-8") as fh:
        fh.write(f"aws,g5.xlarge,nvidia-a10,1,,on_demand,1.01,USD,2025-03-07,{fsdl},FSDL table\n")
        fh.write("aws,g4dn.xlarge,nvidia-a10,1,,on_demand,0.53,USD,2025-03-07,,no source\n")
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        failures = runner.run_checks(con)
    finally:
        con.close()
    assert set(failures) == {"reference_prices_resolve"}
    assert sorted(r[1] for r in failures["reference_prices_resolve"]) == [
        "g4dn.xlarge", "g5.xlarge"]


def test_analyst_costs_need_a_source_and_a_catalogued_accelerator(tmp_path):
    catalog = copy_catalog(tmp_path / "catalog")
    with (catalog / "analyst_gpu_costs.csv").open("a", encoding="utf-8") as fh:
        fh.write("nvidia-b200,tco_neocloud,owned,2.07,2026-07-31,https://example.test/tco,,x,\n")
        fh.write("nvidia-h100-sxm5-80gb,rental_3y_survey,estimated,1.78,2026-07-31,,,x,\n")
    con, _ = build(tmp_path, catalog, with_rows=False)
    try:
        failures = runner.run_checks(con)
    finally:
        con.close()
    assert set(failures) == {"cost_catalog_sourced"}
    assert {r[1] for r in failures["cost_catalog_sourced"]} == {
        "nvidia-b200 tco_neocloud", "nvidia-h100-sxm5-80gb rental_3y_survey"}


def test_real_catalog_builds_with_empty_raw_db(tmp_path):
    try:
        con, _ = build(tmp_path, CATALOG_DIR, with_rows=False)
    except CuratedDataError as exc:
        pytest.skip(f"real catalog not ready: {exc}")
    try:
        tables = {
            r[0]
            for r in con.execute(
                "select table_name from duckdb_tables() where schema_name = 'main'"
            ).fetchall()
        }
        assert set(MARTS) <= tables
        assert runner.run_checks(con) == {}
        assert one(con, "select count(*) from accelerators")[0] > 0
    finally:
        con.close()


# ---------------------------------------------------------------- the runner


def test_build_order_is_deterministic_and_respects_dependencies(built):
    _, timings = built
    order = [m.name for m in runner.build_order(runner.discover())]
    assert order == [m.name for m in runner.build_order(runner.discover())]
    assert list(timings) == order
    position = {name: i for i, name in enumerate(order)}
    for model in runner.discover().values():
        assert all(position[dep] < position[model.name] for dep in model.depends_on)
    # the mart `accelerators` must not be mistaken for the curated table it shares a name with
    assert "accelerators" not in runner.discover()["stg_curated__accelerators"].depends_on


def write_models(root: Path, files: dict[str, str]) -> Path:
    for rel, sql in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql, encoding="utf-8")
    for layer in (*runner.LAYERS, "checks"):
        (root / layer).mkdir(exist_ok=True)
    return root


def test_cyclic_models_raise(tmp_path):
    models_dir = write_models(
        tmp_path / "models",
        {
            "staging/stg_a.sql": "select * from stg_b",
            "staging/stg_b.sql": "select * from stg_a",
            "marts/ok.sql": "select 1 as x",
        },
    )
    with pytest.raises(runner.CycleError, match="stg_a, stg_b"):
        runner.build(duckdb.connect(), models_dir)


def test_duplicate_model_name_raises(tmp_path):
    models_dir = write_models(
        tmp_path / "models",
        {
            "staging/same.sql": "select 1 as x",
            "marts/same.sql": "select 2 as x",
        },
    )
    with pytest.raises(runner.ModelError, match="defined twice"):
        runner.discover(models_dir)


@pytest.mark.parametrize("sql", [
    "with prices as (select 1 as x) select x from prices",                 # a CTE
    "with a as (select 1 as x), prices(x) as (select 2) select * from a",  # a later CTE
    "select p.x from stg_a as prices join stg_a p using (x)",              # a relation alias
    "select p.x from stg_a prices",                                         # alias without as
])
def test_a_cte_or_alias_named_like_a_model_is_refused(tmp_path, sql):
    """Dependencies are found by name: a local name equal to a model's would be a false edge
    (int_cost_bases once named a CTE `price_bases`, like the mart)."""
    models_dir = write_models(tmp_path / "models", {
        "staging/stg_a.sql": "select 1 as x",
        "marts/prices.sql": "select x from stg_a",
        "marts/report.sql": sql,
    })
    with pytest.raises(runner.NameClashError, match=r"report\.sql.*prices"):
        runner.discover(models_dir)


def test_column_aliases_and_other_local_names_are_fine(tmp_path):
    models_dir = write_models(tmp_path / "models", {
        "staging/stg_a.sql": "select 1 as x",
        "marts/prices.sql": "select x from stg_a",
        "marts/report.sql": "with base as (select x from stg_a as s) "
                            "select x as prices_seen from base b",
    })
    models = runner.discover(models_dir)
    assert models["report"].depends_on == {"stg_a"}
    assert runner.local_names(models["report"].sql) == {"base", "b", "s"}


def test_union_all_template_unions_every_matching_model(tmp_path):
    """A new spec source is one staging file: the model that unions them names a pattern."""
    models_dir = write_models(
        tmp_path / "models",
        {
            "staging/stg_a__specs.sql": "select 1 as v",
            "staging/stg_b__specs.sql": "select 2 as v",
            "staging/stg_c__prices.sql": "select 3 as v",
            "marts/all_specs.sql": "select * from (\n    {{ union_all('stg_*__specs') }}\n)",
        },
    )
    model = runner.discover(models_dir)["all_specs"]
    assert model.depends_on == {"stg_a__specs", "stg_b__specs"}
    con = duckdb.connect()
    runner.build(con, models_dir)
    assert con.execute("select v from all_specs order by v").fetchall() == [(1,), (2,)]
    (models_dir / "staging" / "stg_d__specs.sql").write_text("select 4 as v", encoding="utf-8")
    runner.build(con, models_dir)
    assert con.execute("select v from all_specs order by v").fetchall() == [(1,), (2,), (4,)]


def test_union_all_matching_nothing_is_named(tmp_path):
    models_dir = write_models(
        tmp_path / "models", {"marts/none.sql": "{{ union_all('stg_*__nothing') }}"})
    with pytest.raises(runner.ModelError, match="matches no model"):
        runner.discover(models_dir)


def test_every_spec_staging_model_has_a_precedence_row():
    """catalog/spec_source_precedence.csv ranks every spec source (stg_<source>__specs.sql)
    and the curated catalog, once each, ranks 1..n; a source without a row would rank last
    and fill nothing."""
    with (CATALOG_DIR / "spec_source_precedence.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    staged = {p.stem.removeprefix("stg_").removesuffix("__specs")
              for p in (runner.MODELS_DIR / "staging").glob("stg_*__specs.sql")}
    assert {r["source"] for r in rows} == staged | {"curated"}
    assert sorted(int(r["source_rank"]) for r in rows) == list(range(1, len(rows) + 1))
    assert {r["fills"] for r in rows} <= {"all", "descriptive"}
    assert all(r["why"] for r in rows)


def test_name_key_sql_and_python_agree():
    """models/macros/name_key.sql and gpucost.catalog.names.name_key give the same key for
    every curated spelling (aliases, accelerator ids and names) and for hostile ones."""
    from gpucost.catalog.names import name_key

    spellings = ["NVIDIA H100-SXM5 80GB", "  a100 (40 GB) ", "Tesla® V100", "MI300X/MI325X",
                 "", "Ｈ１００", "Ünïcødé 4090", "H100\tNVL\n", "İstanbul-K"]
    for name in ("aliases", "accelerators"):
        with (CATALOG_DIR / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                spellings += [row.get("alias") or "", row.get("accelerator_id") or "",
                              row.get("name") or ""]
    con = duckdb.connect()
    con.execute((runner.MODELS_DIR / "macros" / "name_key.sql").read_text(encoding="utf-8"))
    got = dict(con.execute("select s, name_key(s) from unnest(?) as t(s)",
                           [sorted(set(spellings))]).fetchall())
    assert len(got) > 300
    assert {s: name_key(s) for s in got} == got
    assert name_key("NVIDIA H100-SXM5 80GB") == "nvidiah100sxm580gb"


def test_curated_tables_are_typed_and_a_malformed_figure_fails_the_load(tmp_path):
    con = duckdb.connect()
    load_curated(con, catalog_dir=FIXTURE_CATALOG)
    types = dict(con.execute(
        "select column_name, data_type from duckdb_columns() where schema_name = 'curated' "
        "and table_name = 'accelerators'").fetchall())
    assert (types["memory_gb"], types["launch_date"], types["vendor"]) == (
        "DOUBLE", "DATE", "VARCHAR")
    # trimmed, and an empty cell is null
    assert con.execute("select count(*) from curated.accelerators "
                       "where vendor <> trim(vendor) or vendor = ''").fetchone() == (0,)
    catalog = copy_catalog(tmp_path / "catalog", **{H100: {"memory_gb": "80 GB"}})
    with pytest.raises(CuratedDataError, match="accelerators.csv"):
        load_curated(duckdb.connect(), catalog_dir=catalog)
