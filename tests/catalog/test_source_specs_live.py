"""The live code paths of the spec sources, against a local HTTP server (no internet).

Each source is pointed at the server through GPUCOST_SOURCE_URL_<NAME>; retries and the
politeness delay are made instant (tests/conftest.py: catalog.http backoff and pacing 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import loopback
import pytest

from gpucost.catalog.http import USER_AGENT
from gpucost.catalog.records import HttpStatusError, PartsFailedError, UnreachableError
from gpucost.catalog.sources import epoch, mlperf, rocm, techpowerup, wikipedia

_fetch = loopback.fetch_each


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
Reply = tuple[int, dict[str, str], bytes]


LocalServer = loopback.LocalServer

def _ok(body: bytes, content_type: str = "text/plain") -> Reply:
    return 200, {"Content-Type": content_type}, body


def test_epoch_fetches_the_csv(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_EPOCH", f"{server.base}/data/ml_hardware.csv")
    csv_body = (b"Hardware name,Memory size per board (Byte),Memory bandwidth (byte/s),"
                b"Tensor-FP16/BF16 performance (FLOP/s)\nChip,8e10,3.35e12,9.894e14\n")
    server.route = lambda path: _ok(csv_body, "text/csv")
    [payload] = epoch.SOURCE.fetch().payloads
    assert (payload.name, payload.ext, payload.http_status) == ("ml_hardware.csv", "csv", 200)
    assert server.requests[0].headers.get("User-Agent") == USER_AGENT
    assert len(epoch.parse(payload).specs) == 4


def test_epoch_404_is_a_named_error(server: LocalServer,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_EPOCH", f"{server.base}/gone.csv")
    with pytest.raises(HttpStatusError, match="HTTP 404"):
        epoch.SOURCE.fetch()


def test_techpowerup_pages_one_failing(server: LocalServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_TECHPOWERUP", f"{server.base}/gpu-specs")
    monkeypatch.setattr(techpowerup, "PAGES", ("h100-sxm5-80-gb.c3900", "missing.c1",
                                               "geforce-rtx-4090.c3889"))
    pages = {f"/gpu-specs/{p.stem}": p.read_bytes()
             for p in (FIXTURES / "techpowerup").glob("*.c*.html")}
    server.route = lambda path: _ok(pages[path], "text/html") if path in pages else (
        404, {}, b"")
    payloads, failures = _fetch(techpowerup)
    assert [p.name for p in payloads] == ["h100-sxm5-80-gb.c3900.html",
                                          "geforce-rtx-4090.c3889.html"]
    assert list(failures) == ["missing.c1"]
    assert isinstance(failures["missing.c1"], HttpStatusError)
    streams = [techpowerup.parse(p).stream for p in payloads]
    assert streams == ["h100-sxm5-80-gb.c3900", "geforce-rtx-4090.c3889"]


def test_techpowerup_honours_429_then_succeeds(server: LocalServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_TECHPOWERUP", f"{server.base}/gpu-specs/")
    monkeypatch.setattr(techpowerup, "PAGES", ("h100-sxm5-80-gb.c3900",))
    body = (FIXTURES / "techpowerup" / "h100-sxm5-80-gb.c3900.html").read_bytes()
    calls = iter([(429, {"Retry-After": "0"}, b"slow down"), _ok(body, "text/html")])
    server.route = lambda path: next(calls)
    [payload] = techpowerup.SOURCE.fetch().payloads
    assert len(server.requests) == 2
    assert techpowerup.parse(payload).specs


def test_techpowerup_unreachable_host_skips_the_other_pages(monkeypatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_TECHPOWERUP", "http://127.0.0.1:9/gpu-specs/")
    monkeypatch.setattr(techpowerup, "PAGES", ("a.c1", "b.c2", "c.c3"))
    payloads, failures = _fetch(techpowerup)
    assert payloads == [] and list(failures) == ["a.c1", "b.c2", "c.c3"]
    assert all(isinstance(e, UnreachableError) for e in failures.values())
    assert str(failures["c.c3"]).startswith("not tried")
    with pytest.raises(PartsFailedError, match="every part failed"):
        techpowerup.SOURCE.fetch()


def test_wikipedia_and_rocm_fetch(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_WIKIPEDIA", f"{server.base}/gpu.json")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_ROCM", f"{server.base}/rocm/docs")
    doc = {"NVIDIA_nan_64": {"Model": "H100 GPU accelerator (SXM card)", "Vendor": "NVIDIA",
                             "TDP (W)": "700"}}
    md = (b"```{list-table} Peak-performance capabilities of the MI300X\n:header-rows: 1\n\n"
          b"*\n  - Computation and Data Type\n  - Peak TFLOPS\n*\n  - Matrix BF16\n"
          b"  - 1307.4\n```\n")

    def route(path: str) -> Reply:
        if path == "/gpu.json":
            return _ok(json.dumps(doc).encode(), "application/json")
        if path == "/rocm/docs/conceptual/gpu-arch/mi300.md":
            return _ok(md)
        return 500, {}, b"boom"

    server.route = route
    [wiki] = wikipedia.SOURCE.fetch().payloads
    assert wikipedia.parse(wiki).specs[0].value == 700
    payloads, failures = _fetch(rocm)
    assert [p.name for p in payloads] == ["mi300.md"]
    assert sorted(failures) == ["gpu-arch-specs", "mi250"]
    assert rocm.parse(payloads[0]).stream == "mi300"


def test_mlperf_walks_the_contents_api(server: LocalServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    base = f"{server.base}/repos/mlcommons/inference_results_v4.1/contents/closed"
    monkeypatch.setenv("GPUCOST_SOURCE_URL_MLPERF", base)
    system = {"submitter": "NVIDIA", "accelerator_model_name": "NVIDIA H100-SXM-80GB",
              "accelerators_per_node": 8, "accelerator_memory_capacity": "80 GB"}
    prefix = "/repos/mlcommons/inference_results_v4.1/contents/closed"
    replies: dict[str, object] = {
        prefix: [{"name": "NVIDIA", "type": "dir"}, {"name": "Other", "type": "dir"},
                 {"name": "README.md", "type": "file"}],
        f"{prefix}/NVIDIA/systems": [
            {"name": "DGX-H100.json", "download_url": f"{server.base}/raw/DGX-H100.json"},
            {"name": "notes.txt", "download_url": f"{server.base}/raw/notes.txt"},
        ],
        "/raw/DGX-H100.json": system,
    }

    def route(path: str) -> Reply:
        if path in replies:
            return _ok(json.dumps(replies[path]).encode(), "application/json")
        return 404, {}, b""

    server.route = route
    payloads, failures = _fetch(mlperf)
    assert failures == {}  # a submitter without systems/ (404) is normal
    assert [p.name for p in payloads] == ["NVIDIA/systems/DGX-H100.json"]
    result = mlperf.parse(payloads[0])
    assert result.stream == "NVIDIA/DGX-H100"
    assert {s.metric for s in result.specs} == {"memory_gb", "accelerators_per_system"}


def test_mlperf_empty_listing_is_a_named_error(server: LocalServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A contents listing without a system file fails loudly (not a silent 'unchanged')."""
    from gpucost.catalog.records import EmptyPayloadError
    from gpucost.flows.steps import fetch_source

    monkeypatch.setenv("GPUCOST_SOURCE_URL_MLPERF", f"{server.base}/closed")
    server.route = lambda path: _ok(b"[]", "application/json")
    with pytest.raises(EmptyPayloadError, match="found nothing to fetch"):
        fetch_source("mlperf")
