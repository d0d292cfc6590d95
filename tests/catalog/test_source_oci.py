"""The oci source: Oracle's Cost Estimator shapes + products (our own fixtures in the
documented shape; nothing was recorded), fetched into one zip payload."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import oci

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "oci"


def _payload(**replace: bytes) -> Payload:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in oci.DOCUMENTS:
            archive.writestr(name, replace.get(name.split(".")[0], (FIXTURES / name).read_bytes()))
    return Payload(name="cost_estimator.zip", content=buffer.getvalue(), ext="zip")


def test_gpu_shapes_priced_from_their_parts() -> None:
    result = oci.parse(_payload())
    got = {o.sku: o for o in result.prices}
    assert set(got) == {"BM.GPU.H100.8", "VM.GPU.A10.2", "BM.GPU.MI300X.8"}
    h100 = got["BM.GPU.H100.8"]
    # the "ocpu" part of a GPU shape is priced per GPU: 10.0 USD x 8 GPUs
    assert (h100.price_per_hour, h100.gpu_count, h100.gpu_memory_gb) == (80.0, 8.0, 80.0)
    assert (h100.provider, h100.region, h100.pricing_model, h100.currency) == (
        "oracle", "", "on_demand", "USD")
    assert got["VM.GPU.A10.2"].price_per_hour == 4.0  # 2 x 2.0 + 480 GB x 0.0
    assert got["BM.GPU.MI300X.8"].gpu_name_raw == "MI300X"
    # a monthly-priced part is not an hourly price; hidden / CPU shapes are not offers
    assert [(r.reason, r.detail.split(":")[0]) for r in result.rejects] == [
        ("unexpected_price_data", "BM.GPU4.8")]
    assert result.stream == "cost_estimator"


def test_gpu_names_of_shapes() -> None:
    assert oci.gpu_name_of_shape("BM.GPU.H100.8") == "H100"
    assert oci.gpu_name_of_shape("BM.GPU4.8") == "A100 40GB"
    assert oci.gpu_name_of_shape("VM.GPU3.1") == "V100"
    assert oci.gpu_name_of_shape("BM.GPU.A100-v2.8") == "A100 80GB"
    assert oci.gpu_name_of_shape("VM.Standard.E5.Flex") is None


def test_bad_payloads() -> None:
    with pytest.raises(ParseError, match="zip of"):
        oci.parse(Payload(name="shapes.json", content=(FIXTURES / "shapes.json").read_bytes()))
    with pytest.raises(ParseError, match="items"):
        oci.parse(_payload(products=b'{"products": []}'))
    with pytest.raises(EmptyPayloadError):
        oci.parse(_payload(shapes=b'{"items": []}'))


# --- the price list API (cetools): recorded in ../shared/data, read in place ----------------

PRICE_LIST = "prices/provider_api/oci/oci_cetools_products_gpu_subset_2026-10-01.json"


def _price_list(shared_data: Path) -> Payload:
    path = shared_data / PRICE_LIST
    return Payload(name=path.name, content=path.read_bytes(), url=str(path), ext="json")


def test_price_list_per_gpu_hour_prices(shared_data: Path) -> None:
    result = oci.parse(_price_list(shared_data))
    got = {o.sku: o for o in result.prices}
    # provider_api/README.md (oci/): USD list prices per GPU per hour. A part Oracle rents only
    # as a whole shape is that shape at GPUs x the per-GPU price (oci.WHOLE_SHAPES): B111758
    # MI355X 8.60 -> BM.GPU.MI355X.8 = 8 x 8.60 = 68.80; B110979 GB200 16.00 -> BM.GPU.GB200.4
    # = 4 x 16.00 = 64.00; B109479 L40S 3.50 -> BM.GPU.L40S.4 = 14.00
    assert {sku: (o.gpu_name_raw, o.gpu_count, o.price_per_hour, o.price_kind)
            for sku, o in got.items()} == {
        "BM.GPU.H100.8": ("H100", 8.0, 80.0, "shape_per_gpu"),
        "BM.GPU.H200.8": ("H200", 8.0, 80.0, "shape_per_gpu"),
        "BM.GPU.B200.8": ("B200", 8.0, 112.0, "shape_per_gpu"),
        "BM.GPU.B300.8": ("B300", 8.0, 120.0, "shape_per_gpu"),
        "BM.GPU.GB200.4": ("GB200", 4.0, 64.0, "shape_per_gpu"),
        "BM.GPU.GB300.4": ("GB300", 4.0, 72.0, "shape_per_gpu"),
        "BM.GPU.MI300X.8": ("MI300X", 8.0, 48.0, "shape_per_gpu"),
        "BM.GPU.MI355X.8": ("MI355X", 8.0, 68.8, "shape_per_gpu"),
        "BM.GPU.L40S.4": ("L40S", 4.0, 14.0, "shape_per_gpu"),
        "BM.GPU.A100-v2.8": ("A100 v2", 8.0, 32.0, "shape_per_gpu"),
        # also rented as a 1-GPU VM (VM.GPU.A10.1): the part's own 1-GPU row
        "B95909": ("A10", 1.0, 2.0, "instance"),
        # no shape in Oracle's documentation: left as the part's 1-GPU row
        "B112613": ("RTX PRO 6000", 1.0, 4.5, "instance"),
    }
    h100 = got["BM.GPU.H100.8"]
    assert (h100.provider, h100.region, h100.pricing_model, h100.currency) == (
        "oracle", "", "on_demand", "USD")
    assert result.stream == "price_list"
    # the payload's lastUpdated dates the rows (the loader takes ParseResult.observed_at)
    assert result.observed_at == datetime(2026, 10, 1, 14, 18, 5, 193000, tzinfo=UTC)


def test_price_list_rejects_what_is_not_a_public_per_gpu_price(shared_data: Path) -> None:
    result = oci.parse(_price_list(shared_data))
    rejects = {r.detail.split(" ")[0]: r.reason for r in result.rejects}
    # every item of the 26 is either priced or refused with a reason, never dropped
    assert len(result.prices) + len(result.rejects) == 26
    # generation names: the payload does not say which GPU they are
    generations = ("B88517", "B88518", "B89734", "B92740", "B93544")  # X7, X7, V2, E3, E4
    assert {rejects[p] for p in generations} == {"generation_only_name"}
    assert "X7" in next(r.detail for r in result.rejects if r.detail.startswith("B88517"))
    # Cloud@Customer (the L40S at 3.5 and 2.9, the resource commit, the per-day infrastructure),
    # VMware node commitments and the Roving Edge device are not public-cloud prices
    not_public = ("B110965", "B111454", "B111455", "B111463", "B108806", "B108807", "B108808",
                  "B109493")
    assert {rejects[p] for p in not_public} == {"not_public_cloud"}
    assert rejects["B109480"] == "other_gpu_product"  # H100T: another product than H100
    assert "B109480" not in {o.sku for o in result.prices}


def test_price_list_names_and_traps() -> None:
    name = oci.gpu_name_of_product
    assert name("OCI- Compute - GPU - MI355X") == "MI355X"
    assert name("Compute  - GPU - A10") == "A10"
    assert name("Compute - GPU - A100 - v2") == "A100 v2"
    assert name("OCI - Compute - GPU - RTX PRO 6000") == "RTX PRO 6000"
    assert name("Compute - Bare Metal GPU Standard - X7") == "X7"  # refused by the parser
    assert name("Compute - Standard - E5 - OCPU") is None

    def item(part: str, display: str, value: object, metric: str = "GPU Per Hour",
             currency: str = "USD") -> dict:
        return {"partNumber": part, "displayName": display, "metricName": metric,
                "serviceCategory": "Compute - GPU", "currencyCodeLocalizations": [
                    {"currencyCode": currency, "prices": [{"model": "PAY_AS_YOU_GO",
                                                           "value": value}]}]}

    doc = {"items": [
        item("P1", "Compute - GPU - H100", 10), item("P2", "Compute - GPU - H200", 0),
        item("P3", "Compute - GPU - B200", 14, currency="EUR"),
        item("P4", "Compute - GPU - L40S", 3, metric="GPU Per Month"),
        {"partNumber": "C1", "displayName": "Compute - Standard - E5 - OCPU",
         "serviceCategory": "Compute - Virtual Machine"},  # not a GPU item: not an offer
    ]}
    result = oci.parse(Payload(name="p.json", content=json.dumps(doc).encode()))
    assert [o.sku for o in result.prices] == ["BM.GPU.H100.8"] and result.observed_at is None
    assert [(r.reason, r.detail.split(" ")[0]) for r in result.rejects] == [
        ("zero_or_missing_price", "P2"), ("unexpected_price_data", "P3"),
        ("not_per_gpu_hour", "P4")]
    with pytest.raises(EmptyPayloadError):
        oci.parse(Payload(name="p.json", content=json.dumps({"items": doc["items"][1:]}).encode()))
    with pytest.raises(ParseError, match="zip of"):
        oci.parse(Payload(name="x.json", content=b'{"items": [{"name": "BM.GPU.H100.8"}]}'))


def test_the_zip_still_goes_to_the_estimator_parser(shared_data: Path) -> None:
    assert oci.parse(_payload()).stream == "cost_estimator"
    assert oci.parse(_price_list(shared_data)).stream == "price_list"
