"""catalog.http against hostile servers (issue "Hostile input", items 4, 8 and 9): an overall
deadline that a dribbling body or robots.txt cannot outlast, redirects followed on the same
host only, and every body (robots.txt included) capped after decoding, streamed."""

from __future__ import annotations

import time
import zlib

import pytest
from gpucost.catalog import http
from gpucost.catalog.records import (
    BodyDecodeError,
    DeadlineExceededError,
    OffHostLinkError,
    ResponseTooLargeError,
)
from loopback import serve


def gzip_bomb(megabytes: int) -> bytes:
    """`megabytes` MiB of zeros, gzip-compressed (about 1 KiB per MiB), built in a stream."""
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    return b"".join(co.compress(block) for _ in range(megabytes)) + co.flush()


def test_a_dribbling_body_is_cut_at_the_deadline(server):
    """One byte per 50 ms: each read is well within the read timeout, the whole is not."""
    server.route = lambda path: "dribble"
    start = time.monotonic()
    with pytest.raises(DeadlineExceededError, match="deadline passed"):
        http.fetch(f"{server.base}/slow", name="slow", ext="json",
                   deadline=http.deadline_after(0.5))
    assert time.monotonic() - start < 2.0


def test_a_dribbling_robots_txt_is_cut_at_the_deadline(server):
    server.route = lambda path: "dribble" if path == "/robots.txt" else (200, {}, b"<html/>")
    start = time.monotonic()
    with pytest.raises(DeadlineExceededError):
        http.fetch(f"{server.base}/page", name="page", ext="html", html=True,
                   deadline=http.deadline_after(0.5))
    assert time.monotonic() - start < 2.0
    assert [r.path for r in server.requests] == ["/robots.txt"]


def test_the_deadline_is_a_source_setting(server, monkeypatch):
    """GPUCOST_FETCH_DEADLINE_S bounds a source's whole fetch through its contract."""
    from gpucost.catalog.sources import lambda_cloud

    monkeypatch.setenv("GPUCOST_FETCH_DEADLINE_S", "0.5")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/pricing")
    server.route = lambda path: (404, {}, b"") if path == "/robots.txt" else "dribble"
    start = time.monotonic()
    with pytest.raises(DeadlineExceededError):
        lambda_cloud.SOURCE.fetch()
    assert time.monotonic() - start < 2.0


def test_a_redirect_to_another_host_is_not_followed(server):
    other: list[str] = []
    with serve(lambda method, path, body, headers: other.append(path) or (200, {}, b"{}"),
               host="127.0.0.2") as elsewhere:
        server.route = lambda path: (302, {"Location": f"{elsewhere}/data.json"}, b"")
        with pytest.raises(OffHostLinkError, match="redirects to another host"):
            http.fetch(f"{server.base}/data.json", name="d", ext="json")
    assert other == []


def test_a_redirect_on_the_same_host_is_followed_and_bounded(server):
    server.route = lambda path: ((301, {"Location": "/new.json"}, b"") if path == "/old.json"
                                 else (200, {"Content-Type": "application/json"}, b"[1]"))
    payload = http.fetch(f"{server.base}/old.json", name="d", ext="json")
    assert payload.content == b"[1]" and payload.url.endswith("/new.json")
    server.route = lambda path: (302, {"Location": path + "x"}, b"")
    with pytest.raises(OffHostLinkError, match="more than 5 redirects"):
        http.fetch(f"{server.base}/loop", name="d", ext="json")


def test_an_allow_listed_host_may_be_redirected_to(server):
    with serve(lambda method, path, body, headers: (200, {}, b"ok"),
               host="127.0.0.2") as elsewhere:
        server.route = lambda path: (302, {"Location": f"{elsewhere}/data"}, b"")
        payload = http.fetch(f"{server.base}/data", name="d", ext="csv",
                             allow_hosts=frozenset({"127.0.0.2"}))
    assert payload.content == b"ok"


def test_a_gzip_bomb_stops_at_the_size_cap_after_decoding(server):
    bomb = gzip_bomb(64)  # 64 MiB of zeros in about 64 KiB
    server.route = lambda path: (200, {"Content-Encoding": "gzip"}, bomb)
    with pytest.raises(ResponseTooLargeError):
        http.fetch(f"{server.base}/bomb.json", name="b", ext="json", max_bytes=1 << 20)


def test_a_gzip_bomb_robots_txt_counts_as_absent(server):
    bomb = gzip_bomb(16)
    server.route = lambda path: ((200, {"Content-Encoding": "gzip"}, bomb)
                                 if path == "/robots.txt" else (200, {}, b"<html></html>"))
    payload = http.fetch(f"{server.base}/page", name="p", ext="html", html=True)
    assert payload.content == b"<html></html>"
    assert http._robots_cache[server.base] is None


def test_a_body_that_is_not_the_gzip_it_claims_is_named(server):
    server.route = lambda path: (200, {"Content-Encoding": "gzip"}, b"not gzip at all")
    with pytest.raises(BodyDecodeError, match="could not be decoded"):
        http.fetch(f"{server.base}/x.json", name="x", ext="json")
