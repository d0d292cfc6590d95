"""Polite HTTP for live sources: timeouts, bounded retries on 429/5xx, a size cap, a UA.

Every live endpoint can be overridden with GPUCOST_SOURCE_URL_<NAME> (tests and mirrors
point a source at a local server that way).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import requests
from urllib3.exceptions import NameResolutionError

from catalog.records import HttpStatusError, Payload, ResponseTooLargeError, UnreachableError

USER_AGENT = "gpucost/0.1 (+https://github.com/gpucost/gpucost; open GPU price research)"
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0


def source_url(name: str, default: str) -> str:
    """The endpoint of source `name`: GPUCOST_SOURCE_URL_<NAME> if set, else `default`."""
    override = os.environ.get(f"GPUCOST_SOURCE_URL_{name.upper()}", "").strip()
    return override or default


def _describe(exc: BaseException) -> tuple[str, bool]:
    """A one-line reason for a connection failure, and whether retrying can help."""
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if isinstance(reason, NameResolutionError):
        return "DNS lookup failed (no network or unknown host)", False
    if isinstance(exc, requests.Timeout):
        return f"timed out ({type(exc).__name__})", True
    text = str(reason or exc)
    if "Connection refused" in text:
        return "connection refused", True
    if "reset" in text.lower():
        return "connection reset", True
    return f"{type(exc).__name__}: {text[:200]}", True


def _retry_after(resp: requests.Response, fallback: float) -> float:
    value = resp.headers.get("Retry-After", "")
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER_S)
    except ValueError:
        return fallback


def fetch(
    url: str,
    *,
    name: str,
    ext: str,
    session: requests.Session | None = None,
    method: str = "GET",
    params: Mapping[str, Any] | None = None,
    json_body: Any = None,
    headers: Mapping[str, str] | None = None,
    timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    retries: int = 3,
    backoff_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Payload:
    """Fetch one URL into a Payload, or raise a named FetchError.

    Retries (with exponential backoff, honouring Retry-After) only on 429 and 5xx statuses
    and on transient connection errors (timeouts, resets, refusals); a failed DNS lookup and
    any other 4xx fail at once. The body is streamed and refused
    once it exceeds `max_bytes`, so a 1 GB response never reaches memory.
    """
    sess = session or requests.Session()
    hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
    attempt = 0
    while True:
        attempt += 1
        delay = backoff_s * (2 ** (attempt - 1))
        try:
            resp = sess.request(
                method, url, params=params, json=json_body, headers=hdrs,
                timeout=timeout, stream=True,
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            why, transient = _describe(exc)
            if attempt > retries or not transient:
                host = urlsplit(url).netloc
                raise UnreachableError(f"{host} unreachable: {why}") from exc
            sleep(delay)
            continue
        try:
            if resp.status_code in RETRY_STATUSES and attempt <= retries:
                sleep(_retry_after(resp, delay))
                continue
            if resp.status_code >= 400:
                raise HttpStatusError(url, resp.status_code)
            declared = resp.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise ResponseTooLargeError(url, max_bytes)
            chunks: list[bytes] = []
            size = 0
            try:
                for chunk in resp.iter_content(chunk_size=65536):
                    size += len(chunk)
                    if size > max_bytes:
                        raise ResponseTooLargeError(url, max_bytes)
                    chunks.append(chunk)
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                if attempt > retries:
                    raise UnreachableError(f"body of {url} cut off: {exc}") from exc
                sleep(delay)
                continue
            return Payload(
                name=name,
                content=b"".join(chunks),
                url=resp.url or url,
                content_type=resp.headers.get("Content-Type", ""),
                http_status=resp.status_code,
                ext=ext,
            )
        finally:
            resp.close()
