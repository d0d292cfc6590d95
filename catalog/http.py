"""Polite HTTP for live sources: timeouts, bounded retries on 408/429/5xx, a size cap, a UA.

Retry policy (the only retry layer of a fetch: the Prefect task does not retry it again):
a failure that retrying can fix is retried `retries` times (3 by default) with exponential
backoff (1, 2, 4 s by default, or the Retry-After a 429/503 states, at most 30 s), all within
the fetch's deadline: HTTP 408, 429, 500, 502, 503, 504, a timeout, a connection reset or
dropped, a body cut off mid-way. A failure that retrying cannot fix fails at once: a failed
DNS lookup, a refused connection (nothing listens there), a TLS or certificate error, any other
4xx status, a redirect off the host, a body over the size cap, a body too slow.

Slow bodies: besides the overall deadline (FETCH_DEADLINE_S), a body (robots.txt included)
that arrives slower than MIN_RATE_BPS bytes per second over a whole MIN_RATE_WINDOW_S window
(a sliding window once the body has run that long) is cut with TooSlowError, curl's
--speed-limit / --speed-time: one byte every 2 s holds a refresh for about 30 s, not 600.
GPUCOST_FETCH_MIN_RATE_BPS and GPUCOST_FETCH_MIN_RATE_WINDOW_S override both (a rate of 0
turns the check off), a source's FetchPolicy overrides those. Silence (no byte at all) is the
read timeout's; a body that has ended is never cut, however slowly it came.

Every live endpoint can be overridden with GPUCOST_SOURCE_URL_<NAME> (tests and mirrors
point a source at a local server that way).
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import requests
from urllib3 import exceptions as urllib3_exc
from urllib3.exceptions import NameResolutionError

from gpucost.catalog import secrets
from gpucost.catalog.records import (
    BodyDecodeError,
    DeadlineExceededError,
    HttpStatusError,
    InvalidSourceUrlError,
    OffHostLinkError,
    Payload,
    ResponseTooLargeError,
    RobotsDisallowedError,
    TooSlowError,
    TruncatedResponseError,
    UnreachableError,
)

secrets.install_log_redaction()

USER_AGENT = "gpucost/0.1 (+https://github.com/gpucost/gpucost; open GPU price research)"
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0
# scraped HTML pages: at most one request per host per this many seconds (politeness)
HTML_MIN_INTERVAL_S = 2.0
ROBOTS_TIMEOUT = (5.0, 10.0)
ROBOTS_MAX_BYTES = 512 * 1024  # a larger robots.txt counts as absent (Google reads 500 KiB)
# the whole fetch of one source (every part, robots.txt, retries, waits and body reads)
# must be over within this many seconds (GPUCOST_FETCH_DEADLINE_S overrides it)
FETCH_DEADLINE_S = 600.0
# a body slower than MIN_RATE_BPS bytes per second over a whole MIN_RATE_WINDOW_S seconds is
# cut (TooSlowError); GPUCOST_FETCH_MIN_RATE_BPS / GPUCOST_FETCH_MIN_RATE_WINDOW_S override
MIN_RATE_BPS = 1000.0
MIN_RATE_WINDOW_S = 30.0
MAX_REDIRECTS = 5
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


def _robots(url: str, session: requests.Session, deadline: float | None = None,
            speed: tuple[float, float] | None = None) -> RobotFileParser | None:
    """The host's robots.txt (cached per process); None when it has none or it can't be read.

    Read like any body: streamed, under ROBOTS_MAX_BYTES (decoded, so a gzip bomb stops at the
    cap) and under the fetch's deadline; a robots.txt over the cap counts as absent."""
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    if base in _robots_cache:
        return _robots_cache[base]
    parser: RobotFileParser | None = None
    robots_url = f"{base}/robots.txt"
    try:
        resp = session.get(robots_url, headers={"User-Agent": USER_AGENT},
                           timeout=_clip(ROBOTS_TIMEOUT, deadline, robots_url),
                           stream=True, allow_redirects=False)
        try:
            if resp.status_code == 200:
                body = _read_body(resp, robots_url, ROBOTS_MAX_BYTES, deadline, speed)
                parser = RobotFileParser()
                parser.parse(body.decode("utf-8", "replace").splitlines())
            elif resp.status_code in (401, 403):
                parser = RobotFileParser()
                parser.parse(["User-agent: *", "Disallow: /"])  # the convention for 401/403
        finally:
            resp.close()
    except (requests.RequestException, ResponseTooLargeError, TruncatedResponseError,
            BodyDecodeError, TooSlowError):
        parser = None  # unreachable or unreadable: the page request itself will report it
    _robots_cache[base] = parser
    return parser


def check_robots(url: str, session: requests.Session, deadline: float | None = None,
                 speed: tuple[float, float] | None = None) -> None:
    """Raise RobotsDisallowedError when the host's robots.txt forbids our User-Agent."""
    parser = _robots(url, session, deadline, speed)
    if parser is not None and not parser.can_fetch(USER_AGENT, url):
        raise RobotsDisallowedError(f"robots.txt of {urlsplit(url).netloc} disallows {url}")


def deadline_after(seconds: float | None = None) -> float:
    """The monotonic time by which a source's whole fetch must be over: `seconds`, else
    GPUCOST_FETCH_DEADLINE_S, else FETCH_DEADLINE_S from now."""
    if seconds is None:
        seconds = _env_float("GPUCOST_FETCH_DEADLINE_S", FETCH_DEADLINE_S)
    return time.monotonic() + max(seconds, 0.0)


def _env_float(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if not math.isnan(value) else default


def speed_limit(rate_bps: float | None = None,
                window_s: float | None = None) -> tuple[float, float] | None:
    """The minimum transfer rate in force, (bytes per second, window seconds): the arguments
    (a source's FetchPolicy), else GPUCOST_FETCH_MIN_RATE_BPS / GPUCOST_FETCH_MIN_RATE_WINDOW_S,
    else MIN_RATE_BPS / MIN_RATE_WINDOW_S; None when a rate or window of 0 turns it off."""
    rate = rate_bps if rate_bps is not None else _env_float("GPUCOST_FETCH_MIN_RATE_BPS",
                                                            MIN_RATE_BPS)
    window = window_s if window_s is not None else _env_float(
        "GPUCOST_FETCH_MIN_RATE_WINDOW_S", MIN_RATE_WINDOW_S)
    if not (rate > 0 and window > 0) or not math.isfinite(window):
        return None
    return rate, window


class _RateMeter:
    """Bytes received over the last `window` seconds of a body (a sliding window, kept as
    about 32 marks): TooSlowError once a whole window stayed under `rate` bytes per second."""

    def __init__(self, rate: float, window: float) -> None:
        self.rate, self.window = rate, window
        self.marks: deque[tuple[float, int]] = deque([(time.monotonic(), 0)])

    def check(self, total: int, url: str) -> None:
        now = time.monotonic()
        cutoff = now - self.window
        if self.marks[0][0] <= cutoff:
            while len(self.marks) > 1 and self.marks[1][0] <= cutoff:
                self.marks.popleft()
            since, base = self.marks[0]
            span = now - since
            if (total - base) < self.rate * span:
                raise TooSlowError(
                    f"body of {url.split('?')[0]} came at {(total - base) / span:.4g} bytes/s "
                    f"over the last {span:.0f} s, under the minimum of {self.rate:.4g} bytes/s"
                    f" (GPUCOST_FETCH_MIN_RATE_BPS, GPUCOST_FETCH_MIN_RATE_WINDOW_S); cut after"
                    f" {total} bytes")
        if now - self.marks[-1][0] >= self.window / 32:
            self.marks.append((now, total))


def _left(deadline: float | None, url: str) -> float:
    """Seconds left before `deadline` (inf without one); DeadlineExceededError once past."""
    if deadline is None:
        return float("inf")
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceededError(
            f"fetch deadline passed before {url.split('?')[0]} was read in full "
            f"(GPUCOST_FETCH_DEADLINE_S, default {FETCH_DEADLINE_S:.0f} s)")
    return left


def _clip(timeout: tuple[float, float], deadline: float | None,
          url: str) -> tuple[float, float]:
    left = _left(deadline, url)
    return min(timeout[0], left), min(timeout[1], left)


def _read_body(resp: requests.Response, url: str, max_bytes: int,
               deadline: float | None, speed: tuple[float, float] | None = None) -> bytes:
    """The decoded body, read one network read at a time (read1): refused once it exceeds
    `max_bytes` (counted after decoding, so a gzip bomb never expands past the cap), once
    the deadline passes (a server sending one byte at a time cannot hold the fetch) or, with
    `speed` (rate, window: speed_limit), once a whole window of it came slower than the rate
    (TooSlowError; bytes counted on the wire; a body that has ended is never cut)."""
    declared = resp.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLargeError(url, max_bytes)
    chunks: list[bytes] = []
    size = 0
    meter = _RateMeter(*speed) if speed else None
    while True:
        _left(deadline, url)
        try:
            chunk = resp.raw.read1(65536, decode_content=True)
        except urllib3_exc.DecodeError as exc:
            raise BodyDecodeError(
                f"body of {url.split('?')[0]} could not be decoded "
                f"({resp.headers.get('Content-Encoding', '')}): {str(exc)[:120]}") from exc
        except (urllib3_exc.ProtocolError, urllib3_exc.ReadTimeoutError, OSError) as exc:
            raise _BodyCut(size, exc) from exc
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise ResponseTooLargeError(url, max_bytes)
        chunks.append(chunk)
        if meter is not None and getattr(resp.raw, "length_remaining", None) != 0:
            meter.check(_wire_bytes(resp, size), url)


def _wire_bytes(resp: requests.Response, decoded: int) -> int:
    """Body bytes read from the network so far (before decoding), else the decoded count."""
    try:
        read = resp.raw.tell()
    except (AttributeError, OSError):
        return decoded
    return read if isinstance(read, int) and read > 0 else decoded


class _BodyCut(Exception):
    """The connection dropped (or stalled past the read timeout) in the middle of a body."""

    def __init__(self, size: int, cause: BaseException) -> None:
        super().__init__(size, cause)
        self.size = size
        self.cause = cause


def same_host(url: str, other: str, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether `other` is on the host of `url` (a leading www. aside) or on the allow-list."""
    def host(u: str) -> str:
        return (urlsplit(u).hostname or "").lower().removeprefix("www.")
    return host(other) == host(url) or host(other) in allowed


def source_url(name: str, default: str) -> str:
    """The endpoint of source `name`: GPUCOST_SOURCE_URL_<NAME> if set, else `default`.
    An override is validated when read (InvalidSourceUrlError: http or https only, a host,
    a port in 1-65535, parseable)."""
    variable = f"GPUCOST_SOURCE_URL_{name.upper()}"
    override = os.environ.get(variable, "").strip()
    if not override:
        return secrets.remember_url_credentials(default)
    secrets.remember_url_credentials(override)
    problem = url_problem(override)
    if problem:
        # credentials masked even where the URL is too broken to parse
        shown = re.sub(r"(?<=://)[^/]*@", "***@", secrets.redact(override))
        raise InvalidSourceUrlError(
            f"{variable}={shown[:200]!r}: {problem}; not fetched, its last good data stays "
            "in force")
    return override


def url_problem(url: str) -> str:
    """Why `url` cannot be fetched ("" when it can): a scheme other than http or https, no
    host, a port outside 1-65535, an unparseable authority (an unclosed IPv6 bracket)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError past 65535 or when not a number
    except ValueError as exc:
        return f"not a URL: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"scheme {parts.scheme or '(none)'!r}, only http and https"
    if not parts.hostname:
        return "no host"
    if port is not None and not 1 <= port <= 65535:
        return f"port {port} out of range"
    return ""


def _describe(exc: BaseException) -> tuple[str, bool]:
    """A one-line reason for a connection failure, and whether retrying can help.

    Not retried: a failed DNS lookup (offline, or an unknown host), a refused connection
    (nothing listens on that port) and a TLS or certificate error: each fails the same way a
    second later. Retried: timeouts, resets and other dropped connections."""
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if isinstance(reason, NameResolutionError):
        return "DNS lookup failed (no network or unknown host)", False
    if isinstance(exc, requests.exceptions.SSLError):
        text = " ".join(str(reason or exc).split())
        return f"TLS error: {text[:200]}", False
    if isinstance(exc, requests.Timeout):
        return f"timed out ({type(exc).__name__})", True
    text = str(reason or exc)
    if "Connection refused" in text:
        return "connection refused", False
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
    deadline: float | None = None,
    allow_hosts: frozenset[str] = frozenset(),
    min_rate_bps: float | None = None,
    min_rate_window_s: float | None = None,
) -> Payload:
    """Fetch one URL into a Payload, or raise a named FetchError.

    Retries (with exponential backoff, honouring Retry-After) only on 408, 429 and 5xx
    statuses and on transient connection errors (timeouts, resets); a failed DNS lookup, a
    refused connection, a TLS error and any other 4xx fail at once (module doc). The body is
    streamed and refused once it exceeds `max_bytes` (after decoding), so a 1 GB response
    never reaches memory.
    Redirects are followed only on the same host (or a host in `allow_hosts`), at most
    MAX_REDIRECTS; `deadline` (a time.monotonic() value, see deadline_after) bounds the
    whole call, robots.txt, retries and waits included. A body slower than `min_rate_bps`
    over a whole `min_rate_window_s` is cut with TooSlowError, not retried (speed_limit gives
    the defaults; a rate of 0 turns it off).

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
    speed = speed_limit(min_rate_bps, min_rate_window_s)
    sess = session or requests.Session()
    if html:
        check_robots(url, sess, deadline, speed)
    hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
    asked = url
    redirects = 0
    attempt = 0

    def wait(seconds: float) -> None:
        sleep(min(seconds, _left(deadline, url)))

    while True:
        attempt += 1
        delay = backoff_s * (2 ** (attempt - 1))
        _wait_for_host(url, spacing, wait)
        try:
            resp = sess.request(
                method, url, params=params, json=json_body, headers=hdrs,
                timeout=_clip(timeout, deadline, url), stream=True, allow_redirects=False,
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            why, transient = _describe(exc)
            if attempt > retries or not transient:
                host = urlsplit(url).netloc
                raise UnreachableError(f"{host} unreachable: {why}") from exc
            wait(delay)
            continue
        except (ValueError, requests.RequestException) as exc:
            # requests works out a redirect's next request even with allow_redirects=False: a
            # Location with a bare non-UTF-8 byte or brackets in its host raises there
            if any(frame.name in ("resolve_redirects", "get_redirect_target")
                   for frame in traceback.extract_tb(exc.__traceback__)):
                raise OffHostLinkError(f"{url.split('?')[0]} redirects to a location that "
                                       "cannot be read; not followed") from None
            raise
        try:
            if resp.is_redirect:
                target = urljoin(resp.url or url, resp.headers.get("Location", ""))
                if not same_host(asked, target, allow_hosts):
                    raise OffHostLinkError(
                        f"{url.split('?')[0]} redirects to another host "
                        f"({urlsplit(target).netloc}); not followed")
                redirects += 1
                if redirects > MAX_REDIRECTS:
                    raise OffHostLinkError(f"{asked.split('?')[0]}: more than "
                                           f"{MAX_REDIRECTS} redirects; not followed")
                if resp.status_code == 303 or (resp.status_code in (301, 302)
                                               and method == "POST"):
                    method, json_body = "GET", None
                url, params, attempt = target, None, 0
                continue
            if resp.status_code in RETRY_STATUSES and attempt <= retries:
                wait(_retry_after(resp, delay))
                continue
            if resp.status_code >= 400:
                raise HttpStatusError(url, resp.status_code)
            try:
                content = _read_body(resp, url, max_bytes, deadline, speed)
            except _BodyCut as cut:
                if attempt > retries:
                    raise TruncatedResponseError(
                        f"body of {url.split('?')[0]} cut off after {cut.size} bytes "
                        f"({type(cut.cause).__name__})"
                    ) from cut.cause
                wait(delay)
                continue
            return Payload(
                name=name,
                content=content,
                url=resp.url or url,
                content_type=resp.headers.get("Content-Type", ""),
                http_status=resp.status_code,
                ext=ext,
            )
        finally:
            resp.close()
