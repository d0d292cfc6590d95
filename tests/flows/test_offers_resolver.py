"""One resolver for accelerator names (issue 24, "One resolver" and "The right part").

`gpucost offers`, `gpucost estimate -a` and `gpucost.offers()` all resolve a name with the SQL
macro resolve_accelerator (models/macros/): exact id, catalog name or alias, or a family match
on whole words, so H200 never matches GH200 and L40 never L40S. The small warehouse here is
built from a SkyPilot-format catalog the test writes itself (one dated, one undated file);
the mapping tests replay the recorded catalogs of ../shared/data (skipped when absent).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_OK, EXIT_USAGE
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish

HEADER = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
          "SpotPrice")
# Hyperstack's own names carry the form factor; the one row whose name maps to nothing
# ("H100" bare, a provider selling several forms) is an unmapped offer a search for H100 must
# count under the listing.
DATED_ROWS = [
    "n3-H200x1,H200,1,24,180,3.50,CANADA-1,,",
    "n3-GH200x1,GH200 96GB,1,64,432,1.90,CANADA-1,,",
    "n3-L40x1,L40,1,28,58,1.00,CANADA-1,,",
    "n3-L40Sx1,L40S,1,28,58,1.10,CANADA-1,,",
    "n3-A100x1,A100-80G-PCIe,1,28,120,1.35,CANADA-1,,",
    "n3-A100-SXM4x8,A100-SXM4-80GB,8,192,960,12.00,CANADA-1,,",
    "n3-H100-SXM5x8,H100-80G-SXM5,8,192,960,19.20,CANADA-1,,",
    "n3-H100x1,H100-80G-PCIe,1,28,180,1.90,CANADA-1,,",
    "n3-H100-mystery,H100,1,28,180,1.50,CANADA-1,,",
]
# Lambda's 1x H100 SXM5 (sku alias), from a catalog replayed without a date
UNDATED_ROWS = ["gpu_1x_h100_sxm5,H100,1,26,225,1.20,us-east-1,,"]


def _catalog(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("resolver")
    data = tmp / "wh"
    dated = _catalog(tmp / "hyperstack_vms_dated.csv", DATED_ROWS)
    ingest_files("skypilot", [dated], observed_at=datetime(2026, 5, 1, tzinfo=UTC),
                 data_dir=data, rebuild=False)
    # another cloud's catalog, replayed without any date: age unknown
    undated = _catalog(tmp / "lambda_vms_undated.csv", UNDATED_ROWS)
    ingest_files("skypilot", [undated], data_dir=data, rebuild=False)
    build_and_publish(data)
    return data


@pytest.fixture
def env(published: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(published))
    return published


def _offers(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    assert main(["offers", *argv, "--format", "json"]) == EXIT_OK
    return json.loads(capsys.readouterr().out)


def _resolve(data: Path, name: str) -> list[tuple]:
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        return con.execute("select accelerator_id, matched_by, resolved "
                           "from resolve_accelerator(?)", [name]).fetchall()


def test_the_macro_says_how_each_candidate_matched(published: Path) -> None:
    assert _resolve(published, "nvidia-h100-pcie-80gb") == [
        ("nvidia-h100-pcie-80gb", "accelerator_id", True)]
    assert _resolve(published, "NVIDIA L40S") == [("nvidia-l40s-48gb", "name", True)]
    assert _resolve(published, "h100-sxm") == [("nvidia-h100-sxm5-80gb", "alias", True)]
    assert _resolve(published, "H100") == [
        ("nvidia-h100-nvl-94gb", "family", False), ("nvidia-h100-pcie-80gb", "family", False),
        ("nvidia-h100-sxm5-80gb", "family", False)]
    # an alias names one accelerator; the family adds the other 80 GB A100 for a listing
    assert _resolve(published, "A100 80GB") == [
        ("nvidia-a100-sxm4-80gb", "alias", True), ("nvidia-a100-pcie-80gb", "family", False)]
    assert {r[0] for r in _resolve(published, "GH200")} == {"nvidia-gh200-96gb",
                                                           "nvidia-gh200-144gb"}
    assert _resolve(published, "H10") == [] and _resolve(published, " -- ") == []


def test_offers_h200_has_no_gh200_and_l40_no_l40s(env: Path, capsys) -> None:
    h200 = _offers(capsys, "H200")
    assert {r["sku"] for r in h200} == {"n3-H200x1"}
    assert not any("gh200" in r["accelerator_id"] for r in h200)
    l40 = _offers(capsys, "L40")
    assert {(r["sku"], r["accelerator_id"]) for r in l40} == {("n3-L40x1", "nvidia-l40-48gb")}
    assert {r["sku"] for r in _offers(capsys, "GH200")} == {"n3-GH200x1"}


def test_offers_a100_80gb_includes_the_pcie_card(env: Path, capsys) -> None:
    rows = _offers(capsys, "A100 80GB")
    assert {(r["sku"], r["accelerator_id"]) for r in rows} == {
        ("n3-A100x1", "nvidia-a100-pcie-80gb"), ("n3-A100-SXM4x8", "nvidia-a100-sxm4-80gb")}


def test_offers_lists_a_family_dated_first_and_counts_the_unmapped(env: Path, capsys) -> None:
    rows = _offers(capsys, "H100")
    assert [r["sku"] for r in rows] == ["n3-H100x1", "n3-H100-SXM5x8", "gpu_1x_h100_sxm5"]
    assert [r["observed_at_known"] for r in rows] == [True, True, False]
    assert rows[-1]["age_days"] is None  # the undated offer: cheapest, but listed last
    assert main(["offers", "H100"]) == EXIT_OK
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "unknown" in next(line for line in lines if "gpu_1x_h100_sxm5" in line)
    assert "then 1 undated" in out
    assert lines[-1] == ('1 offer named H100 could not be mapped to an accelerator: '
                         'gpucost sql "select * from unmapped_gpu_names"')
    # the same bare name may be an H100 SXM too: counted under that search as well
    assert main(["offers", "H100 SXM"]) == EXIT_OK
    assert "1 offer named H100 could not be mapped" in capsys.readouterr().out
    assert main(["offers", "L40"]) == EXIT_OK
    assert "could not be mapped" not in capsys.readouterr().out


def test_dated_only_and_max_age(env: Path, capsys) -> None:
    assert [r["sku"] for r in _offers(capsys, "H100", "--dated-only")] == [
        "n3-H100x1", "n3-H100-SXM5x8"]
    # observed 2026-05-01: older than a day now, so --max-age 1 leaves nothing dated either
    assert main(["offers", "H100", "--max-age", "1"]) != EXIT_OK
    out = capsys.readouterr().out
    assert "no on-demand offer in force matches 'H100'" in out
    assert "1 offer named H100 could not be mapped" in out
    assert [r["sku"] for r in _offers(capsys, "H100", "--max-age", "100000")] == [
        "n3-H100x1", "n3-H100-SXM5x8"]


def test_python_api_takes_the_same_keywords(env: Path) -> None:
    import gpucost

    frame = gpucost.offers("H100", dated_only=True)
    assert list(frame["sku"]) == ["n3-H100x1", "n3-H100-SXM5x8"]
    assert frame.attrs["unmapped_offers"][0]["offer_count"] == 1
    assert list(gpucost.offers("H100", max_age_days=100000)["sku"]) == list(frame["sku"])
    assert list(gpucost.offers("L40")["accelerator_id"]) == ["nvidia-l40-48gb"]


def test_estimate_needs_one_accelerator(env: Path, capsys) -> None:
    code = main(["estimate", "--params", "7e9", "--tokens", "1e12", "-a", "H100"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "ambiguous accelerator 'H100'" in err
    for candidate in ("nvidia-h100-sxm5-80gb", "nvidia-h100-pcie-80gb", "nvidia-h100-nvl-94gb"):
        assert candidate in err
    assert main(["estimate", "--params", "7e9", "--tokens", "1e12", "-a", "H100 SXM"]) == EXIT_OK
    assert "(nvidia-h100-sxm5-80gb)" in capsys.readouterr().out
    assert main(["estimate", "--params", "7e9", "--tokens", "1e12", "-a", "nope"]) == EXIT_USAGE
    assert "unknown accelerator 'nope'" in capsys.readouterr().err
    assert main(["offers", "nope"]) == EXIT_USAGE
    assert "no accelerator matches 'nope'" in capsys.readouterr().err


# --- the right part, on the recorded SkyPilot-format catalogs -----------------------------

RECORDED = ("primeintellect_vms_d9a304e.csv", "do_vms_1fbe733.csv", "vast_vms_2026-04-29.csv")


@pytest.fixture(scope="module")
def recorded(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("resolver-recorded") / "wh"
    for name in RECORDED:
        ingest_files("skypilot", [shared_data / "prices" / "skypilot_format" / name],
                     data_dir=data, rebuild=False)
    build_and_publish(data)
    return data


def _offer_rows(data: Path, where: str) -> list[tuple]:
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        return con.execute("select provider, sku, accelerator_id, gpu_count, gpu_memory_gb "
                           f"from gpu_offers where {where} order by all").fetchall()


def test_hyperstack_a100_nvlink_is_the_pcie_card(recorded: Path) -> None:
    """Prime Intellect's `hyperstack__8xA100_80GB__252__1920__NVLINK` is Hyperstack's
    n3-A100x8-NVLink, which Hyperstack's own catalog names A100-80G-PCIe-NVLink."""
    rows = _offer_rows(recorded, "sku = 'hyperstack__8xA100_80GB__252__1920__NVLINK'")
    assert rows and {(r[2], r[3], r[4]) for r in rows} == {("nvidia-a100-pcie-80gb", 8.0, 80.0)}
    oblivus = _offer_rows(recorded, "sku like 'oblivus__%A100%' and sku not like '%NVLINK%'")
    assert oblivus and {r[2] for r in oblivus} == {"nvidia-a100-pcie-80gb"}


def test_digitalocean_h100x8_is_an_8_gpu_h100_sxm(recorded: Path) -> None:
    rows = _offer_rows(recorded, "provider = 'digitalocean'")
    assert {(r[1], r[2], r[3]) for r in rows} == {
        ("gpu-h100x8-640gb", "nvidia-h100-sxm5-80gb", 8.0),
        ("gpu-h100x1-80gb", "nvidia-h100-sxm5-80gb", 1.0)}


def test_vast_names_its_form_factor_in_the_sku(recorded: Path) -> None:
    rows = _offer_rows(recorded, "provider = 'vast' and sku like '%H100%'")
    assert {(r[1].split("-")[1], r[2]) for r in rows} == {
        ("H100_SXM", "nvidia-h100-sxm5-80gb"), ("H100_NVL", "nvidia-h100-nvl-94gb")}
    assert ("vast", "8x-H100_SXM-32-65536", "nvidia-h100-sxm5-80gb", 8.0, 79.6) in rows


def test_no_offer_holds_more_memory_per_gpu_than_its_card(recorded: Path) -> None:
    with duckdb.connect(str(recorded / "gpucost.duckdb"), read_only=True) as con:
        over = con.execute(
            "select offers.sku, offers.gpu_memory_gb, specs.memory_gb from gpu_offers as offers"
            " join accelerators as specs using (accelerator_id)"
            " where offers.gpu_memory_gb > 1.3 * specs.memory_gb").fetchall()
    assert over == []


def test_every_offer_states_its_cards_memory_within_5_percent(recorded: Path) -> None:
    """Issue 37 item 5: per-GPU memory in the catalog's unit. Vast's L40S row writes the
    host's usable 46,068 MiB (GpuInfo SizeInMiB, 1x-L40S-32-65536): 46,068 / 1024 = 44.99 GiB,
    15/16 of 47.99 (ECC keeps 1/16 of a GDDR6 card), so the card's 48 GB, not 45; H100 SXM
    81,559 MiB / 1024 = 79.6 stays as read (HBM, no ECC reservation)."""
    with duckdb.connect(str(recorded / "gpucost.duckdb"), read_only=True) as con:
        off = con.execute(
            "select offers.sku, offers.gpu_memory_gb, specs.memory_gb from gpu_offers as offers"
            " join accelerators as specs using (accelerator_id)"
            " where abs(offers.gpu_memory_gb - specs.memory_gb) > 0.05 * specs.memory_gb"
        ).fetchall()
    assert off == []
    assert ("vast", "1x-L40S-32-65536", "nvidia-l40s-48gb", 1.0, 48.0) in _offer_rows(
        recorded, "provider = 'vast' and sku like '%L40S%'")
