"""`gpucost offers --available` on Shadeform's instance-types answer
(tests/fixtures/shadeform/instance_types.json, our own in the documented shape, loaded dated a
day ago). Read by hand from the fixture: lambdalabs H100_sxm5x8 at hourly_price 2390 cents ->
23.90 USD/h, 23.90 / 8 = 2.9875 per GPU, listed in us-east-1 (available true) and us-west-1
(available false); --available keeps the us-east-1 row only."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_OK
from gpucost.flows.ingest import ingest_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def shadeform_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("shadeform_stock")
    outcomes, published = ingest_files(
        "shadeform", [FIXTURES / "shadeform" / "instance_types.json"], data_dir=data_dir,
        observed_at=datetime.now(UTC) - timedelta(days=1))
    assert [o.status for o in outcomes] == ["replayed"] and published is not None
    return data_dir


def test_available_keeps_the_available_shadeform_region_only(
        shadeform_warehouse: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(shadeform_warehouse))
    assert main(["offers", "H100:8", "--all-regions", "--format", "json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    assert sorted((r["region"], r["available"]) for r in rows) == [
        ("us-east-1", True), ("us-west-1", False)]
    assert main(["offers", "H100:8", "--available", "--all-regions", "--format", "json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    assert [(r["provider"], r["region"]) for r in rows] == [("shadeform", "us-east-1")]
    assert rows[0]["price_per_gpu_hour"] == pytest.approx(2.9875)
    # the existing resale logic maps the sku's cloud prefix: lambdalabs -> lambda
    assert (rows[0]["listing_kind"], rows[0]["seller"]) == ("resold", "lambda")
    assert rows[0]["accelerator_id"] == "nvidia-h100-sxm5-80gb"
