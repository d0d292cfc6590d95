"""catalog.http against hostile servers (issue "Hostile input", items 4, 8 and 9; issue 27,
item 8): an overall deadline that a dribbling body or robots.txt cannot outlast, a minimum
transfer rate that cuts a trickling body long before it, redirects followed on the same host
only, and every body (robots.txt included) capped after decoding, streamed."""

from __future__ import annotations

import time
import zlib

import pytest
from loopback import serve

from gpucost.catalog import http
from gpucost.catalog.records import (
    BodyDecodeError,
    DeadlineExceededError,
    OffHostLinkError,
    ResponseTooLargeError,
    TooSlowError,
)


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


@pytest.mark.parametrize("location", [
    "/data\x9b.json",  # a bare non-UTF-8 byte: requests' redirect resolution raised
    "http://[\x1b]0;title\x07]/x",  # brackets in the host: ValueError in requests
])
def test_an_unreadable_redirect_location_is_a_named_error(server, location):
    """Issue 27: a hostile Location once failed the fetch with a traceback (no named error)."""
    server.route = lambda path: (302, {"Location": location}, b"")
    with pytest.raises(OffHostLinkError, match="cannot be read"):
        http.fetch(f"{server.base}/data.json", name="d", ext="json")


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


# ---- minimum transfer rate (issue 27, item 8) -------------------------------------------

def _dribble_every(monkeypatch, seconds: float) -> None:
    """The loopback "dribble" action sends one body byte per `seconds`."""
    import loopback

    monkeypatch.setattr(loopback, "DRIBBLE_S", seconds)


def _short_window(monkeypatch, rate: str = "1000", window: str = "1") -> None:
    monkeypatch.setenv("GPUCOST_FETCH_MIN_RATE_BPS", rate)
    monkeypatch.setenv("GPUCOST_FETCH_MIN_RATE_WINDOW_S", window)


def test_a_trickling_body_is_cut_under_the_minimum_rate(server, monkeypatch):
    """One byte per 0.2 s (5 B/s) against 1000 B/s over a 1 s window: cut after about one
    window, long before the deadline, and not retried."""
    _dribble_every(monkeypatch, 0.2)
    _short_window(monkeypatch)
    server.route = lambda path: "dribble"
    start = time.monotonic()
    with pytest.raises(TooSlowError, match="under the minimum of 1000 bytes/s"):
        http.fetch(f"{server.base}/slow", name="slow", ext="json",
                   deadline=http.deadline_after(60))
    assert time.monotonic() - start < 3.0
    assert len(server.requests) == 1  # a trickle is not retried


def test_a_trickling_robots_txt_counts_as_absent_and_the_page_is_cut(server, monkeypatch):
    _dribble_every(monkeypatch, 0.2)
    _short_window(monkeypatch)
    server.route = lambda path: "dribble"
    start = time.monotonic()
    with pytest.raises(TooSlowError):
        http.fetch(f"{server.base}/page", name="page", ext="html", html=True,
                   deadline=http.deadline_after(60))
    assert time.monotonic() - start < 5.0
    assert [r.path for r in server.requests] == ["/robots.txt", "/page"]


def test_the_minimum_rate_is_a_source_setting(server, monkeypatch):
    """FetchPolicy(min_rate_bps, min_rate_window_s) overrides the environment."""
    from dataclasses import replace

    from gpucost.catalog.sources import vast

    _dribble_every(monkeypatch, 0.2)
    _short_window(monkeypatch, rate="0")  # off globally
    monkeypatch.setenv("GPUCOST_SOURCE_URL_VAST", f"{server.base}/bundles/")
    server.route = lambda path: "dribble"
    source = replace(vast.SOURCE, policy=replace(vast.SOURCE.policy, min_rate_bps=1000.0,
                                                 min_rate_window_s=1.0))
    start = time.monotonic()
    with pytest.raises(TooSlowError):
        source.fetch()
    assert time.monotonic() - start < 3.0


def test_a_slow_body_over_the_minimum_rate_is_not_cut(server, monkeypatch):
    """20 B/s against a minimum of 10 B/s: never cut by the rate (the deadline ends it)."""
    _dribble_every(monkeypatch, 0.05)
    _short_window(monkeypatch, rate="10", window="0.5")
    server.route = lambda path: "dribble"
    with pytest.raises(DeadlineExceededError):
        http.fetch(f"{server.base}/slow", name="slow", ext="json",
                   deadline=http.deadline_after(2.0))


def test_small_and_finished_bodies_are_never_cut(server, monkeypatch):
    """A 200-byte robots.txt and page arrive in one read: done before any window. A body whose
    last bytes come after a pause longer than the window has ended: not cut either."""
    _short_window(monkeypatch, rate="1e9", window="0.3")
    server.route = lambda path: (200, {"Content-Type": "text/plain"},
                                 b"User-agent: *\nAllow: /\n" + b"#" * 177)
    payload = http.fetch(f"{server.base}/page", name="page", ext="html", html=True,
                         deadline=http.deadline_after(10))
    assert len(payload.content) == 200
    assert [r.path for r in server.requests] == ["/robots.txt", "/page"]

    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Pause(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"a")
            self.wfile.flush()
            time.sleep(0.6)  # two windows without a byte, within the read timeout
            self.wfile.write(b"bc")

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Pause)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                     daemon=True).start()
    try:
        payload = http.fetch(f"http://127.0.0.1:{httpd.server_address[1]}/x", name="x",
                             ext="bin", deadline=http.deadline_after(10))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert payload.content == b"abc"


def test_the_speed_limit_settings():
    assert http.speed_limit() == (http.MIN_RATE_BPS, http.MIN_RATE_WINDOW_S) == (1000.0, 30.0)
    assert http.speed_limit(0, None) is None and http.speed_limit(None, 0) is None
    assert http.speed_limit(50.0, 2.0) == (50.0, 2.0)


def test_the_speed_limit_settings_from_the_environment(monkeypatch):
    _short_window(monkeypatch, rate="500", window="10")
    assert http.speed_limit() == (500.0, 10.0)
    assert http.speed_limit(2000.0, None) == (2000.0, 10.0)  # a source's policy wins
    _short_window(monkeypatch, rate="not a number", window="nan")
    assert http.speed_limit() == (1000.0, 30.0)
    _short_window(monkeypatch, rate="0")
    assert http.speed_limit() is None


def test_one_byte_every_2_s_is_cut_within_120_s_at_the_production_defaults(server,
                                                                           monkeypatch):
    """The acceptance case at the shipped defaults (1000 B/s over 30 s, 600 s deadline): one
    byte every 2 s is cut after about 30 s (this test takes about 31 s)."""
    _dribble_every(monkeypatch, 2.0)
    monkeypatch.delenv("GPUCOST_FETCH_MIN_RATE_BPS", raising=False)
    monkeypatch.delenv("GPUCOST_FETCH_MIN_RATE_WINDOW_S", raising=False)
    monkeypatch.delenv("GPUCOST_FETCH_DEADLINE_S", raising=False)
    server.route = lambda path: "dribble"
    start = time.monotonic()
    with pytest.raises(TooSlowError):
        http.fetch(f"{server.base}/slow", name="slow", ext="json",
                   deadline=http.deadline_after())
    took = time.monotonic() - start
    assert http.MIN_RATE_WINDOW_S <= took < 120.0


def test_a_refresh_publishes_the_good_source_while_another_trickles(server, tmp_path,
                                                                     monkeypatch):
    """Vast dribbles one byte per 0.2 s; Lambda answers. Vast is cut (TooSlowError) within
    the short window, Lambda goes live and the warehouse publishes."""
    from pathlib import Path

    from gpucost.flows.steps import refresh_plain

    page = (Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
            / "lambda_2026_tabs_min.html").read_bytes()
    _dribble_every(monkeypatch, 0.2)
    _short_window(monkeypatch)
    server.route = lambda path: ((404, {}, b"") if path == "/robots.txt" else
                                 (200, {"Content-Type": "text/html"}, page)
                                 if path.startswith("/lambda") else "dribble")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_VAST", f"{server.base}/vast/bundles/")
    start = time.monotonic()
    summary = refresh_plain(["lambda", "vast"], data_dir=tmp_path)
    status = {s.source: (s.status, s.error_type) for s in summary.sources}
    assert status["lambda"] == ("live", None)
    assert status["vast"] == ("failed", "TooSlowError")
    assert summary.published
    assert time.monotonic() - start < 60.0
