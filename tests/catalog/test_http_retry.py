"""catalog.http's retry policy (docs/operations.md, Retries): a failure that retrying can fix
(408, 429, 5xx, a timeout, a reset) is retried with exponential backoff; one that it cannot
fix (DNS, a refused connection, TLS, any other 4xx) fails at once, without waiting."""

from __future__ import annotations

import socket

import pytest
import requests

from gpucost.catalog import http
from gpucost.catalog.records import HttpStatusError, UnreachableError


def _fetch(url: str, **kwargs):  # type: ignore[no-untyped-def]
    waits: list[float] = []
    try:
        return http.fetch(url, name="doc", ext="json", sleep=waits.append, **kwargs), waits
    except Exception as exc:
        exc.waits = waits  # type: ignore[attr-defined]
        raise


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_a_retryable_status_is_retried_with_exponential_backoff(server, status):
    server.route = lambda path: (status, {}, b"")
    with pytest.raises(HttpStatusError) as info:
        _fetch(f"{server.base}/doc", retries=3, backoff_s=1.0)
    assert len(server.requests) == 4  # one try and 3 retries
    assert info.value.waits == [1.0, 2.0, 4.0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 451])
def test_another_4xx_fails_at_once(server, status):
    server.route = lambda path: (status, {}, b"")
    with pytest.raises(HttpStatusError) as info:
        _fetch(f"{server.base}/doc", retries=3, backoff_s=1.0)
    assert len(server.requests) == 1
    assert info.value.waits == []  # type: ignore[attr-defined]


def test_retry_after_is_honoured_and_capped(server):
    replies = iter([(503, {"Retry-After": "7"}, b""), (429, {"Retry-After": "3600"}, b"")])
    server.route = lambda path: next(replies, None) or (200, {}, b"{}")
    payload, waits = _fetch(f"{server.base}/doc", retries=3, backoff_s=1.0)
    assert payload.content == b"{}"
    assert waits == [7.0, http.MAX_RETRY_AFTER_S]


def test_a_reset_connection_is_retried(server):
    replies = iter(["connection_reset"])
    server.route = lambda path: next(replies, None) or (200, {}, b"{}")
    payload, waits = _fetch(f"{server.base}/doc", retries=3, backoff_s=0.5)
    assert payload.content == b"{}" and waits == [0.5]


def test_a_refused_connection_fails_at_once():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UnreachableError, match="connection refused") as info:
        _fetch(f"http://127.0.0.1:{port}/doc", retries=3, backoff_s=1.0)
    assert info.value.waits == []  # type: ignore[attr-defined]


class _Failing(requests.Session):
    def __init__(self, exc: Exception) -> None:
        super().__init__()
        self.exc, self.calls = exc, 0

    def request(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        self.calls += 1
        raise self.exc


def test_a_dns_failure_fails_at_once():
    from urllib3.exceptions import MaxRetryError, NameResolutionError

    cause = MaxRetryError(None, "/", NameResolutionError("nowhere.invalid", None, "no"))
    session = _Failing(requests.ConnectionError(cause))
    with pytest.raises(UnreachableError, match="DNS lookup failed") as info:
        _fetch("https://nowhere.invalid/doc", session=session, retries=3)
    assert session.calls == 1 and info.value.waits == []  # type: ignore[attr-defined]


def test_a_tls_error_fails_at_once():
    session = _Failing(requests.exceptions.SSLError("certificate verify failed"))
    with pytest.raises(UnreachableError, match="TLS error: certificate verify failed") as info:
        _fetch("https://example.invalid/doc", session=session, retries=3)
    assert session.calls == 1 and info.value.waits == []  # type: ignore[attr-defined]


def test_a_timeout_is_retried():
    session = _Failing(requests.exceptions.ConnectTimeout("slow"))
    with pytest.raises(UnreachableError, match="timed out") as info:
        _fetch("https://example.invalid/doc", session=session, retries=2, backoff_s=0.25)
    assert session.calls == 3
    assert info.value.waits == [0.25, 0.5]  # type: ignore[attr-defined]
