"""Polite HTTP for live sources: timeouts, bounded retries on 429/5xx, a size cap, a UA.

Every live endpoint can be overridden with GPUCOST_SOURCE_URL_<NAME> (tests and mirrors
point a source at a local server that way).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import requests
from gpucost.catalog import secrets
from gpucost.catalog.records import (
    HttpStatusError,
    Payload,
    ResponseTooLargeError,
    RobotsDisallowedError,
    TruncatedResponseError,
    UnreachableError,
)
from urllib3.exceptions import NameResolutionError

secrets.install_log_redaction()

USER_AGENT = "gpucost/0.1 (+https://github.com/gpucost/gpucost; open GPU price research)"
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0
# scraped HTML pages: at most one request per host per this many seconds (politeness)
HTML_MIN_INTERVAL_S = 2.0
ROBOTS_TIMEOUT = (5.0, 10.0)
# first retry delay (doubled per attempt) when a source's policy does not set one
DEFAULT_BACKOFF_S = 1.0
# multiplies every per-host spacing (scraped pages, paced APIs); tests set it to 0
PACING = 1.0

_host_lock = threading.Lock()
_host_next_slot: dict[str, float] = {}
_robots_cache: dict[str, RobotFileParser | None] = {}


def _wait_for_host(url: str, min_interval_s: float, sleep: Callable[[float], None]) -> None:
    """Space requests to one host at least `min_interval_s` apart (thread-safe)."""
    if min_interval_s <= 0:
        return
    host = urlsplit(url).netloc
    with _host_lock:
        now = time.monotonic()
        slot = max(now, _host_next_slot.get(host, 0.0))
        _host_next_slot[host] = slot + min_interval_s
    if slot > now:
        sleep(slot - now)


def _robots(url: str, session: requests.Session) -> RobotFileParser | None:
    """The host's robots.txt (cached per process); None when it has none or it can't be read."""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    if base in _robots_cache:
        return _robots_cache[base]
    parser: RobotFileParser | None = None
    try:
        resp = session.get(f"{base}/robots.txt", headers={"User-Agent": USER_AGENT},
                           timeout=ROBOTS_TIMEOUT)
        if resp.status_code == 200 and len(resp.content) < 512 * 1024:
            parser = RobotFileParser()
            parser.parse(resp.content.decode("utf-8", "replace").splitlines())
        elif resp.status_code in (401, 403):
            parser = RobotFileParser()
            parser.parse(["User-agent: *", "Disallow: /"])  # the convention for 401/403
    except requests.RequestException:
        parser = None  # unreachable: the page request itself will report it
    _robots_cache[base] = parser
    return parser


def check_robots(url: str, session: requests.Session) -> None:
    """Raise RobotsDisallowedError when the host's robots.txt forbids our User-Agent."""
    parser = _robots(url, session)
    if parser is not None and not parser.can_fetch(USER_AGENT, url):
        raise RobotsDisallowedError(f"robots.txt of {urlsplit(url).netloc} disallows {url}")


def source_url(name: str, default: str) -> str:
    """The endpoint of source `name`: GPUCOST_SOURCE_URL_<NAME> if set, else `default`."""
    override = os.environ.get(f"GPUCOST_SOURCE_URL_{name.upper()}", "").strip()
    return secrets.remember_url_credentials(override or default)


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
    timeout: tuple[float, float] | None = None,
    max_bytes: int | None = None,
    retries: int = 3,
    backoff_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    html: bool = False,
    min_interval_s: float | None = None,
) -> Payload:
    """Fetch one URL into a Payload, or raise a named FetchError.

    Retries (with exponential backoff, honouring Retry-After) only on 429 and 5xx statuses
    and on transient connection errors (timeouts, resets, refusals); a failed DNS lookup and
    any other 4xx fail at once. The body is streamed and refused
    once it exceeds `max_bytes`, so a 1 GB response never reaches memory.

    `html=True` marks a scraped page: the host's robots.txt is honoured and requests to one
    host are spaced HTML_MIN_INTERVAL_S apart (or `min_interval_s`, which also paces
    non-HTML requests when given), times PACING. Defaults (timeout, size cap, backoff) are
    read at call time from the module constants.
    """
    spacing = PACING * (min_interval_s if min_interval_s is not None else (
        HTML_MIN_INTERVAL_S if html else 0.0))
    backoff_s = DEFAULT_BACKOFF_S if backoff_s is None else backoff_s
    timeout = timeout or DEFAULT_TIMEOUT
    max_bytes = max_bytes or DEFAULT_MAX_BYTES
    sess = session or requests.Session()
    if html:
        check_robots(url, sess)
    hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
    attempt = 0
    while True:
        attempt += 1
        delay = backoff_s * (2 ** (attempt - 1))
        _wait_for_host(url, spacing, sleep)
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
                    raise TruncatedResponseError(
                        f"body of {url.split('?')[0]} cut off after {size} bytes "
                        f"({type(exc).__name__})"
                    ) from exc
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
