"""`gpucost offers --available` on a small warehouse of our own stock fixtures:
Lambda's instance-types answer (tests/fixtures/lambda/instance_types.json, loaded dated a day
ago) and RunPod's gpuTypes answer with stock blocks (tests/fixtures/runpod/graphql_stock.json,
loaded undated). Read by hand from the fixtures: gpu_8x_h100_sxm5 23.92 USD/h / 8 = 2.99 per
GPU with two regions of capacity (available, dated: launchable now); gpu_1x_h100_sxm5 3.29
with an empty region list (no stock); gpu_1x_a10 0.75 with no region field (not stated);
RunPod H100 NVL secure 3.19 with stockStatus null (no stock) and community 2.59 with Medium
(flagged available, but undated: it was in stock when observed, which says nothing about now).
RunPod's other rows yield to the dated reference prices of RunPod (catalog/reference_prices.csv),
as an undated offer does."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.offers import stock_mark
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK
from gpucost.flows.ingest import ingest_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def stock_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("stock")
    ingest_files("runpod", [FIXTURES / "runpod" / "graphql_stock.json"], data_dir=data_dir,
                 rebuild=False)
    outcomes, published = ingest_files(
        "lambda", [FIXTURES / "lambda" / "instance_types.json"], data_dir=data_dir,
        observed_at=datetime.now(UTC) - timedelta(days=1))
    assert [o.status for o in outcomes] == ["replayed"] and published is not None
    return data_dir


@pytest.fixture
def published(stock_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(stock_warehouse))
    return stock_warehouse


def _rows(capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], dict]:
    return {(r["provider"], r["sku"]): r for r in json.loads(capsys.readouterr().out)}


def test_without_the_option_every_offer_is_listed_with_its_flag(published, capsys) -> None:
    assert main(["offers", "H100", "--format", "json"]) == EXIT_OK
    rows = _rows(capsys)
    assert {key: r["available"] for key, r in rows.items()} == {
        ("lambda", "gpu_8x_h100_sxm5"): True, ("lambda", "gpu_1x_h100_sxm5"): False,
        ("runpod", "H100 NVL"): False}
    assert rows[("runpod", "H100 NVL")]["observed_at_known"] is False
    assert main(["offers", "A10", "--format", "json"]) == EXIT_OK
    assert [r["available"] for r in _rows(capsys).values()] == [None]  # not stated: listed


def test_available_keeps_only_dated_offers_flagged_available(published, capsys) -> None:
    assert main(["offers", "H100", "--available", "--format", "json"]) == EXIT_OK
    rows = _rows(capsys)
    assert list(rows) == [("lambda", "gpu_8x_h100_sxm5")]
    assert rows[("lambda", "gpu_8x_h100_sxm5")]["price_per_gpu_hour"] == pytest.approx(2.99)
    # not stated (A10): nothing launchable now, and the answer says how many match without it
    assert main(["offers", "A10", "--available"]) == EXIT_FAILED
    assert "1 offer(s) match without it" in capsys.readouterr().out
    # flagged available but undated (RunPod H100 NVL community): not launchable now
    assert main(["offers", "H100", "--pricing-model", "community", "--format", "json"]) \
        == EXIT_OK
    assert [(r["sku"], r["available"]) for r in _rows(capsys).values()] == [("H100 NVL", True)]
    assert main(["offers", "H100", "--pricing-model", "community", "--available"]) \
        == EXIT_FAILED


def test_table_marks_stock(published, capsys) -> None:
    assert main(["offers", "H100"]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    eight = next(line for line in lines if "gpu_8x_h100_sxm5" in line)
    one = next(line for line in lines if "gpu_1x_h100_sxm5" in line)
    nvl = next(line for line in lines if "H100 NVL" in line)
    assert ", in stock" in eight and "no stock" in one and "no stock" in nvl
    assert "stock stated for 3 (1 in stock now; --available keeps only those)" in lines[-1]
    assert main(["offers", "H100", "--pricing-model", "community"]) == EXIT_OK
    assert "was in stock" in capsys.readouterr().out
    assert main(["offers", "H100", "--available"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "gpu_1x_h100_sxm5" not in out and "only offers whose payload states" in out


def test_python_api(published) -> None:
    import gpucost

    frame = gpucost.offers("H100", available=True, data_dir=published)
    assert list(frame["sku"]) == ["gpu_8x_h100_sxm5"] and frame.attrs["available_only"]


def test_stock_mark() -> None:
    assert stock_mark(True, True, False) == ", in stock"
    assert stock_mark(True, True, True) == ", was in stock"     # stale
    assert stock_mark(True, False, False) == ", was in stock"   # undated
    assert stock_mark(False, True, False) == ", no stock"
    assert stock_mark(None, True, False) == "" and stock_mark(float("nan"), True, False) == ""
