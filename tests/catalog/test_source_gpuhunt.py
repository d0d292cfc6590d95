"""The gpuhunt source: catalog zips / CSVs in gpuhunt's documented v2/v3 columns (our own
fixtures; no catalog was recorded) and gpuhunt's recorded GCP TPU price table."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import gpuhunt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gpuhunt"


def _zip(provider: str) -> Payload:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{provider}.csv", (FIXTURES / f"{provider}.csv").read_bytes())
    return Payload(name=f"{provider}/20260819-1/catalog.zip", content=buffer.getvalue(), ext="zip")


def test_nebius_catalog_zip() -> None:
    result = gpuhunt.parse(_zip("nebius"))
    assert result.stream == "nebius"
    got = {(o.sku, o.region, o.pricing_model): (o.price_per_hour, o.gpu_count, o.gpu_name_raw)
           for o in result.prices}
    assert got == {
        # one platform name for 1- and 8-GPU presets: the count keeps them apart
        ("1x gpu-h100-sxm", "eu-north1", "on_demand"): (2.95, 1.0, "H100"),
        ("8x gpu-h100-sxm", "eu-north1", "on_demand"): (23.6, 8.0, "H100"),
        ("1x gpu-h100-sxm", "eu-north1", "spot"): (1.25, 1.0, "H100"),
        ("gpu-h200-sxm", "eu-north1", "on_demand"): (3.5, 1.0, "H200"),
        ("gpu-l40s-a", "eu-north1", "on_demand"): (1.55, 1.0, "L40S"),
    }
    assert [r.reason for r in result.rejects] == ["zero_or_missing_price"]  # CPU row skipped


def test_runpod_catalog_community_countries_and_gpu_type_ids() -> None:
    result = gpuhunt.parse(_zip("runpod"))
    got = {(o.sku, o.region, o.pricing_model): (o.price_per_hour, o.gpu_name_raw)
           for o in result.prices}
    assert got[("1x NVIDIA H100 80GB HBM3", "EU-RO-1", "on_demand")] == (
        2.99, "NVIDIA H100 80GB HBM3")
    assert got[("1x NVIDIA H100 80GB HBM3", "CA", "community")] == (2.69, "NVIDIA H100 80GB HBM3")
    assert got[("1x NVIDIA H100 80GB HBM3", "EU-RO-1", "spot")][0] == 1.75
    assert got[("NVIDIA GeForce RTX 4090", "SE", "community")][0] == 0.34
    assert got[("NVIDIA A100-SXM4-80GB", "US-TX-3", "on_demand")][0] == 1.39
    assert [r.reason for r in result.rejects] == ["duplicate_offer"]


def test_bare_csv_payload_and_provider_names() -> None:
    content = (FIXTURES / "nebius.csv").read_bytes()
    assert gpuhunt.parse(Payload(name="gpuhunt_nebius_2026-08-19.csv", content=content)).stream \
        == "nebius"
    renamed = content.replace(b"gpu-l40s-a", b"1L40S.8V")
    result = gpuhunt.parse(Payload(name="verda/catalog.csv", content=renamed))
    assert result.stream == "datacrunch" and {o.provider for o in result.prices} == {"datacrunch"}


def test_recorded_tpu_table(shared_data: Path) -> None:
    path = shared_data / "prices" / "gpuhunt_resources" / "gcp_tpu_pricing_table.json"
    result = gpuhunt.parse(Payload(name=path.name, content=path.read_bytes()))
    assert result.stream == "gcp_tpu_table"
    v6e = {(o.region, o.pricing_model): o.price_per_hour for o in result.prices
           if o.sku == "TPU v6e"}
    assert v6e[("us-east1", "on_demand")] == 2.7 and v6e[("us-east1", "spot")] == 1.89
    assert all(o.provider == "gcp" and o.gpu_count == 1.0 for o in result.prices)
    assert len(result.prices) == 42 and result.rejects == []


def test_bad_catalogs() -> None:
    with pytest.raises(ParseError, match="zip"):
        gpuhunt.parse(Payload(name="aws/catalog.zip", content=b"PK\x03\x04broken"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("README.txt", "no csv")
    with pytest.raises(ParseError, match="no CSV"):
        gpuhunt.parse(Payload(name="aws/catalog.zip", content=buffer.getvalue()))
    with pytest.raises(ParseError, match="lacks"):
        gpuhunt.parse(Payload(name="aws.csv", content=b"name,cost\nx,1\n"))
    with pytest.raises(EmptyPayloadError):
        gpuhunt.parse(Payload(name="aws.csv", content=b"instance_name,price,gpu_count\nc5,1,0\n"))
    with pytest.raises(ParseError, match="TPU"):
        gpuhunt.parse(Payload(name="x.json", content=b'{"something": 1}'))
