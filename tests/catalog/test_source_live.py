"""The live code paths of the sources, against a local HTTP server (no internet).

Each source is pointed at the server through GPUCOST_SOURCE_URL_<NAME>; retries are made
instant (tests/conftest.py sets catalog.http's backoff and pacing to 0; Retry-After: 0 on 429).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import loopback
import pytest
from loopback import serve

from gpucost.catalog.http import USER_AGENT
from gpucost.catalog.records import (
    FetchError,
    HttpStatusError,
    OffHostLinkError,
    PagingLoopError,
    PartsFailedError,
)
from gpucost.catalog.sources import azure, lambda_cloud, skypilot

_fetch = loopback.fetch_each


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

Reply = tuple[int, dict[str, str], bytes]


LocalServer = loopback.LocalServer

def _json(doc: object) -> Reply:
    return 200, {"Content-Type": "application/json"}, json.dumps(doc).encode()


def _azure_pages(base: str) -> dict[str, dict]:
    fixture = json.loads((FIXTURES / "azure" / "eastus2_gpu_page_6items.json").read_bytes())
    page1 = dict(copy.deepcopy(fixture), NextPageLink=f"{base}/api/retail/prices?page=2")
    page2 = dict(copy.deepcopy(fixture), NextPageLink=None, Count=3)
    page2["Items"] = page2["Items"][:3]
    for item in page2["Items"]:
        item["armRegionName"] = "westus3"
    return {"1": page1, "2": page2}


# --- azure -----------------------------------------------------------------------------------

def test_azure_follows_next_page_link(server: LocalServer,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/api/retail/prices")
    pages = _azure_pages(server.base)
    server.route = lambda path: _json(pages[parse_qs(urlsplit(path).query).get("page",
                                                                                ["1"])[0]])
    payloads = azure.SOURCE.fetch().payloads
    assert [p.name for p in payloads] == ["page-0001.json", "page-0002.json"]
    assert all(p.ext == "json" and p.http_status == 200 for p in payloads)
    first_query = parse_qs(urlsplit(server.requests[0].path).query)
    assert first_query["api-version"] == ["2023-01-01-preview"]
    assert "contains(armSkuName,'_NC')" in first_query["$filter"][0]
    assert "priceType eq 'Consumption'" in first_query["$filter"][0]
    assert all(headers.get("User-Agent") == USER_AGENT for _, _, headers, _ in server.requests)
    results = [azure.parse(p) for p in payloads]
    assert [r.stream for r in results] == ["eastus2", "westus3"]
    assert [len(r.prices) for r in results] == [2, 2]


def test_azure_a_repeated_link_refuses_the_walk(server: LocalServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    page = _azure_pages(server.base)["1"]
    page["NextPageLink"] = f"{server.base}/prices?page=again"
    pages = iter([page, dict(page, Items=_azure_pages(server.base)["2"]["Items"])])
    server.route = lambda path: _json(next(pages, page))
    with pytest.raises(PagingLoopError, match="repeats a page already fetched"):
        azure.SOURCE.fetch()
    assert len(server.requests) == 2  # the base page, then the looping link once


def test_azure_a_page_repeating_items_refuses_the_walk(server: LocalServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A NextPageLink that changes on every page while the items repeat (was: 200 pages of
    duplicates reported live)."""
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    page = _azure_pages(server.base)["1"]
    counter = iter(range(1000))
    server.route = lambda path: _json(dict(page, NextPageLink=f"{server.base}/p?n={next(counter)}"))
    with pytest.raises(PagingLoopError, match="page 2 repeats only items"):
        azure.SOURCE.fetch()
    assert len(server.requests) == 2


def test_azure_page_cap_refuses_the_walk(server: LocalServer,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    monkeypatch.setattr(azure, "PAGE_CAP", 3)
    page = _azure_pages(server.base)["1"]
    counter = iter(range(100))

    def route(path: str):  # type: ignore[no-untyped-def]
        n = next(counter)
        items = [dict(item, meterId=f"m{n}") for item in page["Items"]]
        return _json(dict(page, Items=items, NextPageLink=f"{server.base}/p?n={n}"))

    server.route = route
    with pytest.raises(PagingLoopError, match="more than 3 pages"):
        azure.SOURCE.fetch()
    assert len(server.requests) == 3


def test_azure_next_page_link_to_another_host_is_not_followed(
        server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    other: list[str] = []
    with serve(lambda method, path, body, headers: other.append(path) or (200, {}, b"{}"),
               host="127.0.0.2") as elsewhere:
        page = dict(_azure_pages(server.base)["1"], NextPageLink=f"{elsewhere}/prices?p=2")
        server.route = lambda path: _json(page)
        with pytest.raises(OffHostLinkError, match="another host"):
            azure.SOURCE.fetch()
    assert other == [] and len(server.requests) == 1


def test_azure_500_raises_after_bounded_retries(server: LocalServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    server.route = lambda path: (500, {}, b"boom")
    with pytest.raises(HttpStatusError) as info:
        azure.SOURCE.fetch()
    assert isinstance(info.value, FetchError)
    assert info.value.status == 500
    assert len(server.requests) == 4  # one try + 3 retries


def test_azure_429_then_200_succeeds(server: LocalServer,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server.base}/prices")
    page = _azure_pages(server.base)["2"]
    replies = iter([(429, {"Retry-After": "0"}, b"slow down")])
    server.route = lambda path: next(replies, None) or _json(page)
    payloads = azure.SOURCE.fetch().payloads
    assert len(payloads) == 1
    assert len(server.requests) == 2
    assert len(azure.parse(payloads[0]).prices) == 2


# --- lambda ----------------------------------------------------------------------------------

def test_lambda_live_page(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/pricing")
    html = (FIXTURES / "lambda" / "lambda_2026_tabs_min.html").read_bytes()
    server.route = lambda path: (200, {"Content-Type": "text/html"}, html)
    payloads = lambda_cloud.SOURCE.fetch().payloads
    assert [(p.name, p.ext) for p in payloads] == [("pricing.html", "html")]
    # a scraped page: robots.txt is read first, then the page, both with our User-Agent
    assert [r.path for r in server.requests] == ["/robots.txt", "/pricing"]
    assert all(r.headers["User-Agent"] == USER_AGENT for r in server.requests)
    assert len(lambda_cloud.parse(payloads[0]).prices) == 3


def test_lambda_500_raises(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/pricing")
    server.route = lambda path: (503, {}, b"down")
    with pytest.raises(HttpStatusError):
        lambda_cloud.SOURCE.fetch()
    assert [r.path for r in server.requests].count("/pricing") == 4


# --- skypilot --------------------------------------------------------------------------------

def test_skypilot_one_cloud_missing_keeps_the_others(server: LocalServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SKYPILOT", f"{server.base}/catalogs/v8/")
    monkeypatch.setattr(skypilot, "CLOUDS", ("lambda", "vast", "gcp"))
    files = {
        "/catalogs/v8/lambda/vms.csv": FIXTURES / "skypilot" / "lambda_vms_tiny.csv",
        "/catalogs/v8/gcp/vms.csv": FIXTURES / "skypilot" / "gcp_vms_tiny.csv",
    }
    server.route = lambda path: (200, {"Content-Type": "text/csv"}, files[path].read_bytes()) \
        if path in files else (404, {}, b"404: Not Found")
    payloads, failures = _fetch(skypilot)
    assert [p.name for p in payloads] == ["lambda/vms.csv", "gcp/vms.csv"]
    assert set(failures) == {"vast"}
    assert isinstance(failures["vast"], HttpStatusError) and failures["vast"].status == 404
    assert [skypilot.parse(p).stream for p in payloads] == ["lambda", "gcp"]
    assert [p.name for p in skypilot.SOURCE.fetch().payloads] == ["lambda/vms.csv", "gcp/vms.csv"]
    assert all(h.get("User-Agent") == USER_AGENT for _, _, h, _ in server.requests)


def test_skypilot_all_clouds_failing_raises(server: LocalServer,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SKYPILOT", server.base)
    monkeypatch.setattr(skypilot, "CLOUDS", ("lambda", "gcp"))
    server.route = lambda path: (500, {}, b"boom")
    with pytest.raises(PartsFailedError, match="every part failed") as err:
        skypilot.SOURCE.fetch()
    assert sorted(err.value.errors) == ["gcp", "lambda"]
    assert all(isinstance(e, HttpStatusError) for e in err.value.errors.values())
    assert len(server.requests) == 8  # 2 clouds x (1 try + 3 retries)
