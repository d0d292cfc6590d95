"""Azure Retail Prices API parser: real recorded pages and small fixtures of our own."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import azure

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "azure"
RECORDED = "prices/azure_retail_api"

# file -> (stream, accepted rows, rejects by reason); accepted rows count the savings-plan
# terms of the on-demand items (3 + 3, 7 + 7 and 10 + 10 of them)
EXPECTED = {
    "eastus2_virtual_machines_consumption_page1_2026-01-31.json":
        ("eastus2", 14, {"non_linux_os": 13, "low_priority_retired": 7, "retired_promo_size": 2}),
    "eastus2_virtual_machines_consumption_page1_2026-07-14.json":
        ("eastus2", 30, {"non_linux_os": 21, "low_priority_retired": 6, "retired_promo_size": 1}),
    "mexicocentral_virtual_machines_all_pages_2026-08-14.json":
        ("mexicocentral", 42, {"non_linux_os": 32, "low_priority_retired": 10}),
}


def _payload(path: Path) -> Payload:
    return Payload(name=path.name, content=path.read_bytes(), ext="json")


@cache
def _parse_file(path: Path) -> ParseResult:
    return azure.parse(_payload(path))


def _page(items: list[dict], next_link: str | None = None) -> Payload:
    doc = {"BillingCurrency": "USD", "Items": items, "NextPageLink": next_link,
           "Count": len(items)}
    return Payload(name="page-0001.json", content=json.dumps(doc).encode(), ext="json")


def _item(sku: str, price: float | None, **extra: object) -> dict:
    item = {
        "currencyCode": "USD", "retailPrice": price, "unitPrice": price,
        "armRegionName": "eastus2", "meterName": sku.removeprefix("Standard_"),
        "productName": "Virtual Machines Test Series", "skuName": sku.removeprefix("Standard_"),
        "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption",
        "armSkuName": sku,
    }
    item.update(extra)
    return item


def _find(result: ParseResult, sku: str, model: str = "on_demand", region: str | None = None):
    rows = [o for o in result.prices if o.sku == sku and o.pricing_model == model
            and (region is None or o.region == region)]
    assert len(rows) == 1, rows
    return rows[0]


# --- real recorded pages ---------------------------------------------------------------------

def test_every_recorded_azure_file_is_covered(shared_data: Path) -> None:
    assert {p.name for p in (shared_data / RECORDED).glob("*.json")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_page_counts(shared_data: Path, name: str) -> None:
    stream, accepted, rejects = EXPECTED[name]
    result = _parse_file(shared_data / RECORDED / name)
    assert result.stream == stream
    assert len(result.prices) == accepted
    assert dict(Counter(r.reason for r in result.rejects)) == rejects
    assert all(o.provider == "azure" and o.os == "linux" and o.currency == "USD"
               for o in result.prices)
    assert all(o.price_per_hour and o.price_per_hour > 0 for o in result.prices)
    assert all(o.sku.startswith(("Standard_NC", "Standard_ND", "Standard_NV", "Standard_NG"))
               for o in result.prices)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_page_accepts_no_windows_meter(shared_data: Path, name: str) -> None:
    path = shared_data / RECORDED / name
    items = json.loads(path.read_bytes())["Items"]
    result = _parse_file(path)
    assert Counter(r.reason for r in result.rejects)["non_linux_os"] > 0
    for obs in result.prices:
        spot = obs.pricing_model == "spot"
        plan = {"savings_plan_1y": "1 Year", "savings_plan_3y": "3 Years"}.get(obs.pricing_model)
        sources = [
            i for i in items
            if i["armSkuName"] == obs.sku and i["armRegionName"] == obs.region
            and (i["retailPrice"] == obs.price_per_hour if plan is None else any(
                p["term"] == plan and p["retailPrice"] == obs.price_per_hour
                for p in i.get("savingsPlan") or []))
            and ("Spot" in i["meterName"]) == spot
            and "Low Priority" not in i["meterName"]
        ]
        assert sources, obs
        assert all(" Win" not in i["productName"] for i in sources), (obs, sources)
    for rej in result.rejects:
        if rej.reason == "non_linux_os":
            assert "Win" in json.loads(rej.raw_row)["productName"]


def test_recorded_eastus2_values(shared_data: Path) -> None:
    for name in sorted(EXPECTED)[:2]:
        result = _parse_file(shared_data / RECORDED / name)
        a100 = _find(result, "Standard_NC48ads_A100_v4", region="eastus2")
        assert a100.price_per_hour == 7.346  # Linux; the Windows meter is 9.554
        assert (a100.gpu_name_raw, a100.gpu_count) == ("A100 80GB", 2.0)
        h100 = _find(result, "Standard_ND96isrf_H100_v5")
        assert (h100.price_per_hour, h100.gpu_name_raw, h100.gpu_count) == (98.32, "H100", 8.0)
        mi300x = _find(result, "Standard_ND96is_MI300X_v5", "spot")
        assert (mi300x.price_per_hour, mi300x.gpu_name_raw) == (8.8704, "MI300X")
    july = _parse_file(shared_data / RECORDED / sorted(EXPECTED)[1])
    rtx = _find(july, "Standard_NC320ds_xl_RTXPRO6000BSE_v6")
    assert (rtx.price_per_hour, rtx.gpu_name_raw, rtx.gpu_count) == (16.588, "RTXPRO6000BSE",
                                                                     2.0)


def test_recorded_rtx_pro_6000_bse_per_gpu_prices(shared_data: Path) -> None:
    """Issue 37 item 4: the NC RTX PRO 6000 BSE v6 sizes with a documented GPU count (Microsoft
    Learn, see azure.py) have a per-GPU price; worked by hand from the 2026-07-14 eastus2 page:
    NC256lds (2 GPUs) on demand 11.0 / 2 = 5.50 USD per GPU-hour, the same as NC144lds (1 GPU)
    5.5 / 1; NC320ds (2 GPUs) 16.588 / 2 = 8.294; NC72ds (1/2 GPU) spot 0.566 / 0.5 = 1.132;
    NC256lds spot 2.2 / 2 = 1.10; NC320lds spot 2.86 / 2 = 1.43. The preview NC264ds,
    NC324lds and NC64ds are in no size table: no count, so no per-GPU price."""
    july = _parse_file(shared_data / RECORDED / sorted(EXPECTED)[1])
    per_gpu = {}
    for sku, model, price, count in [
        ("Standard_NC256lds_xl_RTXPRO6000BSE_v6", "on_demand", 11.0, 2.0),
        ("Standard_NC144lds_xl_RTXPRO6000BSE_v6", "on_demand", 5.5, 1.0),
        ("Standard_NC320ds_xl_RTXPRO6000BSE_v6", "on_demand", 16.588, 2.0),
        ("Standard_NC72ds_xl_RTXPRO6000BSE_v6", "spot", 0.566, 0.5),
        ("Standard_NC256lds_xl_RTXPRO6000BSE_v6", "spot", 2.2, 2.0),
        ("Standard_NC320lds_xl_RTXPRO6000BSE_v6", "spot", 2.86, 2.0),
    ]:
        row = _find(july, sku, model)
        assert (row.gpu_name_raw, row.price_per_hour, row.gpu_count) == (
            "RTXPRO6000BSE", price, count)
        per_gpu[(sku, model)] = row.price_per_hour / row.gpu_count
    assert per_gpu[("Standard_NC256lds_xl_RTXPRO6000BSE_v6", "on_demand")] == pytest.approx(5.50)
    assert per_gpu[("Standard_NC144lds_xl_RTXPRO6000BSE_v6", "on_demand")] == pytest.approx(5.50)
    assert per_gpu[("Standard_NC320ds_xl_RTXPRO6000BSE_v6", "on_demand")] == pytest.approx(8.294)
    assert per_gpu[("Standard_NC72ds_xl_RTXPRO6000BSE_v6", "spot")] == pytest.approx(1.132)
    for sku, model in [("Standard_NC264ds_xl_RTXPRO6000BSE_v6", "on_demand"),
                       ("Standard_NC324lds_xl_RTXPRO6000BSE_v6", "on_demand"),
                       ("Standard_NC64ds_xl_RTXPRO6000BSE_v6", "spot")]:
        assert _find(july, sku, model).gpu_count is None


def test_recorded_mexicocentral_values(shared_data: Path) -> None:
    result = _parse_file(shared_data / RECORDED / sorted(EXPECTED)[2])
    h200 = _find(result, "Standard_ND96isr_H200_v5")
    assert h200.price_per_hour == 93.28  # Linux; Windows is 97.696
    assert (h200.gpu_name_raw, h200.gpu_count) == ("H200", 8.0)
    nv6 = _find(result, "Standard_NV6ads_A10_v5")
    assert nv6.price_per_hour == 0.501
    assert nv6.gpu_count == pytest.approx(1 / 6)
    assert _find(result, "Standard_NV6ads_A10_v5", "spot").price_per_hour == 0.092585
    assert _find(result, "Standard_NV72ads_A10_v5").gpu_count == 2.0


# --- own fixtures ----------------------------------------------------------------------------

def test_fixture_page_filters() -> None:
    result = azure.parse(_payload(FIXTURES / "eastus2_gpu_page_6items.json"))
    assert result.stream == "eastus2"
    got = {(o.sku, o.pricing_model, o.price_per_hour) for o in result.prices}
    assert got == {
        ("Standard_NC24ads_A100_v4", "on_demand", 3.673),
        ("Standard_NV36ads_A10_v5", "spot", 0.652714),
    }
    reasons = Counter(r.reason for r in result.rejects)
    assert reasons == {"non_linux_os": 1, "low_priority_retired": 1, "zero_or_missing_price": 1}
    srs_win = next(r for r in result.rejects if r.reason == "non_linux_os")
    assert "Srs Win" in srs_win.detail
    # the non-GPU D2s_v5 item is skipped, not rejected
    assert not any("D2s" in r.detail for r in result.rejects)


def test_truncated_json_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="not valid JSON"):
        azure.parse(_payload(FIXTURES / "truncated_page.json"))


def test_missing_items_key_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="Items"):
        azure.parse(_payload(FIXTURES / "no_items_key.json"))


def test_empty_items_is_an_empty_payload() -> None:
    with pytest.raises(EmptyPayloadError):
        azure.parse(_page([]))
    with pytest.raises(EmptyPayloadError, match="1 non-GPU"):
        azure.parse(_page([_item("Standard_D2s_v5", 0.096)]))


def test_duplicate_offer_keeps_the_lowest_price() -> None:
    result = azure.parse(_page([
        _item("Standard_NC24ads_A100_v4", 3.9),
        _item("Standard_NC24ads_A100_v4", 3.673),
        _item("Standard_NC24ads_A100_v4", 3.8),
    ]))
    assert [o.price_per_hour for o in result.prices] == [3.673]
    assert [r.reason for r in result.rejects] == ["duplicate_offer", "duplicate_offer"]


def test_other_rejects_and_currency() -> None:
    result = azure.parse(_page([
        _item("Standard_NC4as_T4_v3", 0.49, currencyCode="EUR"),
        _item("Standard_NC8as_T4_v3", 0.7, type="DevTestConsumption"),
        _item("Standard_NC16as_T4_v3", 1.1, unitOfMeasure="1/Month"),
        _item("Standard_NC64as_T4_v3", None),
        _item("Standard_NC64as_T4_v3", 5.0, productName="Virtual Machines NCasT4 v3 Windows"),
    ]))
    assert [(o.sku, o.currency, o.gpu_name_raw, o.gpu_count) for o in result.prices] == [
        ("Standard_NC4as_T4_v3", "EUR", "T4", 1.0)]
    assert [r.reason for r in result.rejects] == [
        "non_consumption", "unexpected_unit", "zero_or_missing_price", "non_linux_os"]


def test_stream_joins_several_regions() -> None:
    result = azure.parse(_page([
        _item("Standard_NC4as_T4_v3", 0.5, armRegionName="westus"),
        _item("Standard_NC4as_T4_v3", 0.526),
    ]))
    assert result.stream == "eastus2,westus"
    assert len(result.prices) == 2


@pytest.mark.parametrize(("sku", "gpu", "count"), [
    ("Standard_ND96isr_H100_v5", "H100", 8),
    ("Standard_NC24ads_A100_v4", "A100 80GB", 1),
    ("Standard_NV36ads_A10_v5", "A10", 1),
    ("Standard_NC4as_T4_v3", "T4", 1),
    ("Standard_NC64as_T4_v3", "T4", 4),
    ("Standard_ND96amsr_A100_v4", "A100 80GB", 8),
    ("Standard_ND96asr_v4", "A100", 8),
    ("Standard_NC6s_v3", "V100", 1),
    ("Standard_NC24s_v3", "V100", 4),
    ("Standard_ND96isr_MI300X_v5", "MI300X", 8),
    ("Standard_NC40ads_H100_v5", "H100 NVL", 1),
    ("Standard_NV6ads_A10_v5", "A10", 1 / 6),
    ("Standard_NV12ads_A10_v5", "A10", 1 / 3),
    ("Standard_NV18ads_A10_v5", "A10", 1 / 2),
    ("Standard_NV72ads_A10_v5", "A10", 2),
    ("Standard_NV12_Promo", "M60", 2),
    ("Standard_NC128lds_xl_RTXPRO6000BSE_v6", "RTXPRO6000BSE", 1),
    ("Standard_NC320lds_xl_RTXPRO6000BSE_v6", "RTXPRO6000BSE", 2),
    ("Standard_NC36ds_xl_RTXPRO6000BSE_v6", "RTXPRO6000BSE", 1 / 4),
    ("Standard_NC144lds_xl_RTXPRO6000BSE_v6", "RTXPRO6000BSE", 1),
])
def test_gpu_of_known_sizes(sku: str, gpu: str, count: float) -> None:
    name, got = azure.gpu_of_size(sku)
    assert name == gpu
    assert got == pytest.approx(count)


@pytest.mark.parametrize(("sku", "token"), [
    ("Standard_NC324lds_xl_RTXPRO6000BSE_v6", "RTXPRO6000BSE"),
    ("Standard_ND256isr_GB400_v7", "GB400"),
    ("Standard_NC12_v9", "NCv9"),
])
def test_gpu_of_unknown_sizes_keeps_the_token(sku: str, token: str) -> None:
    assert azure.gpu_of_size(sku) == (token, None)


def test_gpu_size_detection() -> None:
    assert azure.is_gpu_size("Standard_NG32ads_V620_v1")
    assert azure.is_gpu_size("Standard_NCC40ads_H100_v5")
    assert not azure.is_gpu_size("Standard_D2s_v5")
    assert not azure.is_gpu_size("Standard_NP10s")  # FPGA, not GPU
    assert not azure.is_gpu_size("")


# --- commitments: savings plans (recorded) and reservations (our fixture) --------------------

def test_recorded_savings_plans(shared_data: Path) -> None:
    """Read by hand from the 2026-01-31 eastus2 page: Standard_NC48ads_A100_v4 (Linux) retails
    at 7.346 per hour; its savingsPlan lists "1 Year" 6.1148104 and "3 Years" 4.5317474 (hourly
    prices of a spend commitment)."""
    result = _parse_file(shared_data / RECORDED / sorted(EXPECTED)[0])
    assert _find(result, "Standard_NC48ads_A100_v4").price_per_hour == 7.346
    one = _find(result, "Standard_NC48ads_A100_v4", "savings_plan_1y")
    three = _find(result, "Standard_NC48ads_A100_v4", "savings_plan_3y")
    assert (one.price_per_hour, three.price_per_hour) == (6.1148104, 4.5317474)
    assert (one.gpu_name_raw, one.gpu_count, one.payment) == ("A100 80GB", 2.0, None)
    # savings plans are read from on-demand Linux items only (never Windows or Spot meters)
    assert Counter(o.pricing_model for o in result.prices) == {
        "on_demand": 4, "spot": 4, "savings_plan_1y": 3, "savings_plan_3y": 3}


def test_fixture_reservations_and_savings_plans() -> None:
    """Our page in the documented shape (Retail Prices API, api-version 2023-01-01-preview):
    a Reservation item's unitPrice is the price of the whole term although unitOfMeasure says
    "1 Hour". Worked by hand, a year = 365 x 24 = 8,760 hours: ND96isr H100 v5 1 Year
    525,600 / 8,760 = 60.0 per hour, 3 Years 1,182,600 / 26,280 = 45.0; NC24ads A100 v4
    1 Year 20,148 / 8,760 = 2.3. Savings plans are hourly as listed (78.656, 60.9584)."""
    result = azure.parse(_payload(FIXTURES / "eastus2_gpu_reservations_savings_plans.json"))
    assert {(o.sku, o.pricing_model): o.price_per_hour for o in result.prices} == {
        ("Standard_ND96isr_H100_v5", "on_demand"): 98.32,
        ("Standard_ND96isr_H100_v5", "savings_plan_1y"): 78.656,
        ("Standard_ND96isr_H100_v5", "savings_plan_3y"): 60.9584,
        ("Standard_ND96isr_H100_v5", "reserved_1y"): 60.0,
        ("Standard_ND96isr_H100_v5", "reserved_3y"): 45.0,
        ("Standard_NC24ads_A100_v4", "reserved_1y"): 2.3,
        ("Standard_NC24ads_A100_v4", "spot"): 0.9,  # a Spot meter's savingsPlan is not read
        ("Standard_NC24ads_A100_v4", "on_demand"): 3.673,
    }
    assert azure.HOURS_PER_YEAR == 8760
    assert {o.payment for o in result.prices} == {None}  # the API states no payment option
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("reserved_term_unsupported", "Standard_NC24ads_A100_v4: reservationTerm '5 Years'"),
        ("non_consumption", "Standard_NC24ads_A100_v4: type 'DevTestConsumption'"),
        ("reserved_term_unsupported", "Standard_NC24ads_A100_v4: savings plan term '2 Years'"),
    ]
