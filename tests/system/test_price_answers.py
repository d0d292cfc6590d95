"""Price answers a user can trust (issue "Price answers"): Azure sizes of a region the recorded
data does not cover map by rule, and the offers command answers from first-hand prices."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.ingest import ingest_files

SIZES = {  # armSkuName -> (hourly price, expected accelerator, GPU count, per-GPU price)
    "Standard_ND96is_noIB_H100_v5": (98.32, "nvidia-h100-sxm5-80gb", 8.0, 12.29),
    "Standard_ND96asr_A100_v4": (27.197, "nvidia-a100-sxm4-40gb", 8.0, 3.399625),
    # NC128lds: 1 GPU (Microsoft Learn size table, azure.py); NC264ds is in no size table
    "Standard_NC128lds_xl_RTXPRO6000BSE_v6": (6.38, "nvidia-rtx-pro-6000-blackwell-96gb",
                                              1.0, 6.38),
    "Standard_NC264ds_xl_RTXPRO6000BSE_v6": (12.76, "nvidia-rtx-pro-6000-blackwell-96gb",
                                             None, None),
    "Standard_NC8ads_A10_v4": (0.6, "nvidia-a10-24gb", None, None),
    "Standard_NV12ads_V710_v5": (0.9, None, None, None),
}


def _item(sku: str, price: float, region: str = "swedencentral") -> dict:
    name = sku.removeprefix("Standard_").replace("_", " ")
    return {"currencyCode": "USD", "retailPrice": price, "unitPrice": price,
            "armRegionName": region, "location": "Sweden Central", "meterName": name,
            "productName": "Virtual Machines Test Series", "skuName": name,
            "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour",
            "type": "Consumption", "armSkuName": sku, "isPrimaryMeterRegion": True}


@pytest.fixture(scope="module")
def azure_region(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("azure-region")
    items = [_item(sku, price) for sku, (price, *_rest) in SIZES.items()]
    items.append(_item("Standard_ND96isr_H100_v5_Promo", 50.0))  # a retired promotional size
    page = tmp / "swedencentral_gpu_2026-10-01.json"
    page.write_text(json.dumps({"BillingCurrency": "USD", "Items": items,
                                "NextPageLink": None, "Count": len(items)}))
    [outcome], _ = ingest_files("azure", [page], data_dir=tmp / "wh")
    assert outcome.status == "replayed"
    return tmp / "wh"


def test_azure_sizes_of_another_region_map_by_rule(azure_region: Path) -> None:
    with duckdb.connect(str(azure_region / "gpucost.duckdb"), read_only=True) as con:
        offers = {r[0]: r[1:] for r in con.execute(
            "select sku, accelerator_id, gpu_count, price_per_gpu_hour from gpu_offers "
            "where source = 'azure'").fetchall()}
        unmapped = {r[0]: r[1] for r in con.execute(
            "select sample_sku, reason from unmapped_gpu_names where source = 'azure'"
        ).fetchall()}
    for sku, (_price, acc, count, per_gpu) in SIZES.items():
        got_acc, got_count, got_per_gpu = offers[sku]
        assert (got_acc, got_count) == (acc, count), sku
        assert got_per_gpu == (pytest.approx(per_gpu) if per_gpu else None), sku
    assert not any("Promo" in sku for sku in offers)  # kept out of every price statistic
    assert unmapped == {"Standard_NC264ds_xl_RTXPRO6000BSE_v6": "gpu_count_unknown",
                        "Standard_NC8ads_A10_v4": "gpu_count_unknown",
                        "Standard_NV12ads_V710_v5": "no_alias"}
    with duckdb.connect(str(azure_region / "raw.duckdb"), read_only=True) as con:
        [(reason,)] = con.execute("select reason from rejects").fetchall()
    assert reason == "retired_promo_size"


def test_a_file_replayed_without_any_date_has_an_unknown_age(tmp_path) -> None:
    """A catalog named by a commit hash states no date: it is stamped with the ingest time,
    which must not pass for fresh (age null, observed_at_known false) nor supersede a dated
    observation of another source; a dated one supersedes it (Lambda's 8x H100 of the reference
    catalog, 2026-05-07, 3.99 per GPU, takes the place of the undated SkyPilot row). The
    null dates of an undated offer in force: tests/system/test_ingest_everything.py."""
    sky = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot" / "lambda_vms_tiny.csv"
    undated = tmp_path / "lambda_vms_0082b04.csv"
    undated.write_bytes(sky.read_bytes())
    [outcome], _ = ingest_files("skypilot", [undated], data_dir=tmp_path / "wh")
    assert outcome.status == "replayed"
    with duckdb.connect(str(tmp_path / "wh" / "raw.duckdb"), read_only=True) as con:
        [(basis,)] = con.execute("select observed_at_basis from fetches").fetchall()
    with duckdb.connect(str(tmp_path / "wh" / "gpucost.duckdb"), read_only=True) as con:
        rows = con.execute("select sku from gpu_offers where source = 'skypilot'").fetchall()
        superseded = con.execute("select source, observed_at_known, price_per_gpu_hour "
                                 "from gpu_offers where sku = 'gpu_8x_h100_sxm5'").fetchall()
        ages = con.execute("select source, age_days from gpu_prices where accelerator_id = "
                           "'nvidia-h100-sxm5-80gb' and pricing_model = 'on_demand'"
                           ).fetchall()
    assert basis == "ingest_time"
    # every offer of the undated catalog has a dated reference price (H100 8x, GH200, A10)
    assert rows == []
    assert superseded == [("reference", True, 3.99)]
    # the cheapest on-demand H100 SXM is the curated reference price (dated) or this one
    assert all(age is None for source, age in ages if source == "skypilot")


def test_the_newest_observation_of_an_offer_is_in_force(shared_data: Path, tmp_path) -> None:
    """Lambda's own page of 2026-01-09 lists 8x H100 SXM at 2.99 USD/GPU-h; the reference
    catalog holds Lambda's price from its SkyPilot catalog of 2026-05-07: gpu_8x_h100_sxm5,
    31.92 USD/h = 3.99 per GPU. What it costs now is the May price, whichever of the two was
    fetched and which was typed in. A reference row observed the same day as a fetched page
    (B200, 39.92 / 8 = 4.99 on 2026-01-09) gives way to the page: one offer, not two."""
    pages = sorted((shared_data / "prices" / "pricing_pages_html" / "lambda").glob("*.html"))
    outcomes, published = ingest_files("lambda", pages, data_dir=tmp_path / "wh", force=True)
    assert published is not None and all(o.status == "replayed" for o in outcomes)
    with duckdb.connect(str(tmp_path / "wh" / "gpucost.duckdb"), read_only=True) as con:
        h100 = con.execute(
            "select sku, source, price_per_gpu_hour, observed_at::date::varchar from gpu_offers "
            "where provider = 'lambda' and accelerator_id = 'nvidia-h100-sxm5-80gb' "
            "and gpu_count = 8 and pricing_model = 'on_demand'").fetchall()
        b200 = con.execute(
            "select sku, source, price_per_gpu_hour from gpu_offers where provider = 'lambda' "
            "and accelerator_id = 'nvidia-b200-sxm-180gb'").fetchall()
        cheapest = con.execute(
            "select min_price_per_gpu_hour, cheapest_provider from gpu_prices "
            "where accelerator_id = 'nvidia-h100-sxm5-80gb' and pricing_model = 'on_demand'"
        ).fetchone()
    assert h100 == [("gpu_8x_h100_sxm5", "reference", pytest.approx(3.99), "2026-05-07")]
    assert b200 == [("8x NVIDIA B200 SXM6 180GB", "lambda", pytest.approx(4.99))]
    # RunPod's on-demand 2.99 (reference, 2026-08-10) is now the cheapest H100 SXM
    assert cheapest == (pytest.approx(2.99), "runpod")


def test_reference_rows_superseded_by_a_page_are_not_a_lost_raw_layer(
        shared_data: Path, tmp_path, monkeypatch, capsys) -> None:
    """The documented `gpucost ingest runpod ...` on a published warehouse: RunPod's own pages
    supersede the reference rows typed from them (24 -> 8 in force before issue 24 refused
    the publish as "a lost or replaced raw.duckdb?"). Superseded reference rows are not lost
    data: the publish goes through, each file has its line; a lost raw layer is still refused
    (tests/warehouse/test_publish.py)."""
    from gpucost.flows.cli import main as cli
    from gpucost.flows.steps import build_and_publish

    data, prices = tmp_path / "wh", shared_data / "prices"
    # the documented order of old: the price lists and catalogs first, published
    for source, pattern, force in (
            ("azure", "azure_retail_api/*.json", False),
            ("skypilot", "skypilot_format/*.csv", False),
            ("lambda", "pricing_pages_html/lambda/*.html", True)):
        ingest_files(source, sorted(prices.glob(pattern)), data_dir=data, rebuild=False,
                     force=force)
    build_and_publish(data)
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        [(before,)] = con.execute("select rows_in_force from source_health "
                                  "where source = 'reference'").fetchall()
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    pages = sorted((shared_data / "prices" / "pricing_pages_html" / "runpod").glob("*.html"))
    assert cli.main(["ingest", "runpod", *map(str, pages)]) == 0
    out = capsys.readouterr().out
    assert all(f"{p.name}: " in out for p in pages) and "published" in out
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        [(after,)] = con.execute("select rows_in_force from source_health "
                                 "where source = 'reference'").fetchall()
    assert after < before / 2  # what the guard used to take for a lost raw layer
