"""The live code paths of the price sources aws, runpod, vast, gpuhunt, oci and crosscheck,
against a local HTTP server (no internet), as tests/catalog/test_source_live.py does for the others.

Each source is pointed at the server through GPUCOST_SOURCE_URL_<NAME>; retries are made
instant (tests/conftest.py sets catalog.http's backoff and pacing to 0).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import loopback
import pytest

from gpucost.catalog.http import USER_AGENT
from gpucost.catalog.records import FetchError, HttpStatusError, UnreachableError
from gpucost.catalog.sources import aws, crosscheck, gpuhunt, oci, runpod, vast

_fetch = loopback.fetch_each


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODULES = (aws, crosscheck, gpuhunt, oci, runpod, vast)

Reply = tuple[int, dict[str, str], bytes]


LocalServer = loopback.LocalServer

def _files(mapping: dict[str, bytes]) -> Callable[[str, str, bytes], Reply]:
    def route(method: str, path: str, body: bytes) -> Reply:
        if path in mapping:
            return 200, {"Content-Type": "application/octet-stream"}, mapping[path]
        return 404, {}, b"404: Not Found"
    return route


# --- aws: offer index -> EC2 region index -> regional offer file ----------------------------

def _aws_tree() -> dict[str, bytes]:
    index = {"formatVersion": "v1.0", "offers": {"AmazonEC2": {
        "offerCode": "AmazonEC2",
        "currentRegionIndexUrl": "/offers/v1.0/aws/AmazonEC2/current/region_index.json"}}}
    regions = {"formatVersion": "v1.0", "regions": {
        "us-east-1": {"regionCode": "us-east-1",
                      "currentVersionUrl": "/offers/v1.0/aws/AmazonEC2/20250912225308/us-east-1/"
                                           "index.json"},
        "us-west-2": {"regionCode": "us-west-2",
                      "currentVersionUrl": "/offers/v1.0/aws/AmazonEC2/20250912225308/us-west-2/"
                                           "index.json"}}}
    return {
        "/offers/v1.0/aws/index.json": json.dumps(index).encode(),
        "/offers/v1.0/aws/AmazonEC2/current/region_index.json": json.dumps(regions).encode(),
        "/offers/v1.0/aws/AmazonEC2/20250912225308/us-east-1/index.csv":
            (FIXTURES / "aws" / "ec2_offer_file_gpu_slice.csv").read_bytes(),
    }


def test_aws_walks_the_three_index_levels(server: LocalServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AWS", f"{server.base}/offers/v1.0/aws/index.json")
    monkeypatch.setattr(aws, "REGIONS", ("us-east-1", "us-west-2", "eu-north-9"))
    server.route = _files(_aws_tree())
    payloads, failures = _fetch(aws)
    assert [p.name for p in payloads] == ["us-east-1/index.csv"]
    assert [r[1] for r in server.requests][:3] == [
        "/offers/v1.0/aws/index.json",
        "/offers/v1.0/aws/AmazonEC2/current/region_index.json",
        "/offers/v1.0/aws/AmazonEC2/20250912225308/us-east-1/index.csv",
    ]
    assert isinstance(failures["us-west-2"], HttpStatusError)  # the .csv is not served
    assert "not in the region index" in str(failures["eu-north-9"])
    assert all(h.get("User-Agent") == USER_AGENT for _, _, h, _ in server.requests)
    result = aws.parse(payloads[0])
    assert ("p5.48xlarge", "us-east-1", "on_demand", 55.04) in {
        (o.sku, o.region, o.pricing_model, o.price_per_hour) for o in result.prices}
    assert [p.name for p in aws.SOURCE.fetch().payloads] == ["us-east-1/index.csv"]


def test_aws_index_without_ec2_is_a_named_error(server: LocalServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AWS", f"{server.base}/index.json")
    server.route = _files({"/index.json": b'{"offers": {}}'})
    with pytest.raises(FetchError, match="AmazonEC2"):
        aws.SOURCE.fetch()


# --- runpod ----------------------------------------------------------------------------------

def test_runpod_live_page_and_retry(server: LocalServer,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_RUNPOD", f"{server.base}/pricing")
    html = (FIXTURES / "runpod" / "jsonld_min.html").read_bytes()
    replies = iter([(503, {}, b"busy")])
    server.route = lambda method, path, body: next(replies, None) or (
        200, {"Content-Type": "text/html"}, html)
    payloads = runpod.SOURCE.fetch().payloads
    assert [(p.name, p.ext, p.http_status) for p in payloads] == [("pricing.html", "html", 200)]
    assert [r[1] for r in server.requests] == ["/pricing", "/pricing"]
    assert {(o.sku, o.pricing_model) for o in runpod.parse(payloads[0]).prices} >= {
        ("H100 SXM", "on_demand"), ("H100 SXM", "community")}


# --- vast: POST with a JSON filter -----------------------------------------------------------

def test_vast_posts_its_query(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_VAST", f"{server.base}/api/v0/bundles/")
    body = (FIXTURES / "vast" / "bundles_305_offers.json").read_bytes()
    server.route = lambda method, path, sent: (200, {"Content-Type": "application/json"}, body) \
        if method == "POST" else (405, {}, b"")
    payloads = vast.SOURCE.fetch().payloads
    method, path, headers, sent = server.requests[0]
    assert (method, path) == ("POST", "/api/v0/bundles/")
    query = json.loads(sent)
    assert query["rentable"] == {"eq": True} and query["num_gpus"] == {"gte": 1}
    assert query["limit"] == vast.LIMIT
    assert headers.get("User-Agent") == USER_AGENT
    assert payloads[0].name == "bundles.json" and len(vast.parse(payloads[0]).prices) > 10


# --- gpuhunt: version file, then the versioned catalog zip ------------------------------------

def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_gpuhunt_reads_version_then_catalog(server: LocalServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_GPUHUNT", server.base)
    monkeypatch.setattr(gpuhunt, "PROVIDERS", ("nebius", "runpod", "oci"))
    csv_bytes = (FIXTURES / "gpuhunt" / "nebius.csv").read_bytes()
    server.route = _files({
        "/v3/nebius/version": b"20260819-4242\n",
        "/v3/nebius/20260819-4242/catalog.zip": _zip({"nebius.csv": csv_bytes}),
        "/v3/runpod/version": b"<html>not a version</html>",
    })
    payloads, failures = _fetch(gpuhunt)
    assert [p.name for p in payloads] == ["nebius/20260819-4242/catalog.zip"]
    assert set(failures) == {"runpod", "oci"}
    assert "version file" in str(failures["runpod"])
    assert isinstance(failures["oci"], HttpStatusError)
    result = gpuhunt.parse(payloads[0])
    assert result.stream == "nebius" and len(result.prices) == 5


def test_gpuhunt_every_provider_failing_raises(server: LocalServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_GPUHUNT", server.base)
    monkeypatch.setattr(gpuhunt, "PROVIDERS", ("nebius",))
    server.route = lambda method, path, body: (500, {}, b"boom")
    with pytest.raises(FetchError, match="every part failed"):
        gpuhunt.SOURCE.fetch()
    assert len(server.requests) == 4  # one try + 3 retries


# --- oci: two estimator documents in one zip payload -----------------------------------------

def test_oci_fetches_both_documents_into_one_zip(server: LocalServer,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_OCI", f"{server.base}/data")
    docs = {f"/data/{n}": (FIXTURES / "oci" / n).read_bytes() for n in oci.DOCUMENTS}
    server.route = _files(docs)
    first = oci.SOURCE.fetch().payloads
    second = oci.SOURCE.fetch().payloads
    assert [p.name for p in first] == ["cost_estimator.zip"]
    assert first[0].content == second[0].content  # same answers, same bytes, same sha256
    with zipfile.ZipFile(io.BytesIO(first[0].content)) as archive:
        assert archive.read("shapes.json") == docs["/data/shapes.json"]
    assert {o.sku for o in oci.parse(first[0]).prices} == {
        "BM.GPU.H100.8", "VM.GPU.A10.2", "BM.GPU.MI300X.8"}


# --- crosscheck: two tables, one failing -----------------------------------------------------

def test_crosscheck_one_table_failing_keeps_the_other(server: LocalServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK", f"{server.base}/fsdl/cloud-gpus.csv")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS", f"{server.base}/cg.json")
    server.route = _files({
        "/fsdl/cloud-gpus.csv": (FIXTURES / "crosscheck" / "fullstack_min.csv").read_bytes()})
    payloads, failures = _fetch(crosscheck)
    assert [p.name for p in payloads] == ["cloud-gpus.csv"]
    assert set(failures) == {"cloud-gpus"} and failures["cloud-gpus"].status == 404
    assert crosscheck.parse(payloads[0]).stream == "fullstack"


def test_crosscheck_unreachable_host_skips_its_other_table(monkeypatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK", "http://127.0.0.1:9/fsdl.csv")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS", "http://127.0.0.1:9/cg.json")
    payloads, failures = _fetch(crosscheck)
    assert payloads == [] and set(failures) == {"fullstack", "cloud-gpus"}
    assert all(isinstance(e, UnreachableError) for e in failures.values())
    assert str(failures["cloud-gpus"]).startswith("not tried")
    # a table on another host is still tried
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS", "http://localhost:9/cg.json")
    _, failures = _fetch(crosscheck)
    assert not str(failures["cloud-gpus"]).startswith("not tried")
