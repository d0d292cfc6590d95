"""The oci source: Oracle's Cost Estimator shapes + products (our own fixtures in the
documented shape; nothing was recorded), fetched into one zip payload."""

from __future__ import annotations

import io
import zipfile
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
