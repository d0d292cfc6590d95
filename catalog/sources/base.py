"""The one contract every source module fulfils, and the helpers they share.

A source module defines its parser (a pure function of the payload bytes) and one `SOURCE`
object that says everything the pipeline needs to know about it:

    SOURCE = Source(
        name="lambda", kind="prices", default_url="https://lambda.ai/pricing",
        parse=parse,                        # Payload -> ParseResult (raises SourceError)
        parts=None,                         # default: one document at the source's URL
        policy=FetchPolicy(html=True),      # timeouts, retries, backoff, politeness
    )

The pipeline only ever calls `SOURCE.fetch()` and `SOURCE.parse(payload)`; everything about
the network (timeouts, retries on 408/429/5xx, backoff, robots.txt, per-host spacing, the size
cap) is `catalog.http.fetch`, driven by the source's `FetchPolicy`.

A feed of several documents lists them as `Part`s from its `parts(ctx)` function (a
generator may fetch navigation documents first with `ctx.get`). Parts are fetched one after
the other; a part that fails is recorded under its key and the others still come, except
that once a host is unreachable its remaining parts are not tried. A walk whose next request
depends on the previous body (Azure's NextPageLink) or that combines documents (OCI's zip)
gives `walk(ctx)` instead.

`GPUCOST_SOURCE_URL_<NAME>` overrides the endpoint; `GPUCOST_SOURCE_PARTS_<NAME>` (comma
separated keys, e.g. `lambda,gcp` for SkyPilot) limits a multi-part feed to some parts.

The parse helpers below are shared by the parsers: zip members read under a cap, the cheapest
of an offer listed twice, the refusal of a payload without an accepted row, a row's GPU
count (read_gpu_count: a bad count refuses its row, never the payload), and for the
scraped pricing pages the page's tree and capture time and the reading of its text (cleaned
node text, the first dollar price, numbers, why a cell has no price, reservation terms). A
parser whose page needs another reading keeps a local variant and says why.
"""

from __future__ import annotations

import logging
import math
import os
import re
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import requests
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from gpucost.catalog import http
from gpucost.catalog.records import (
    DeadlineExceededError,
    EmptyPayloadError,
    FetchError,
    ParseResult,
    PartsFailedError,
    Payload,
    PayloadTooLargeError,
    PriceObservation,
    Reject,
    UnreachableError,
)

log = logging.getLogger("gpucost.catalog.sources")

KINDS = ("prices", "specs", "throughput")


@dataclass(frozen=True)
class FetchPolicy:
    """How politely and how persistently a source is fetched (None: catalog.http's default)."""

    timeout: tuple[float, float] | None = None  # (connect, read) seconds
    retries: int = 3  # extra attempts on 408/429/5xx, timeouts and resets (catalog.http)
    backoff_s: float | None = None  # first retry delay, doubled each time
    max_bytes: int | None = None  # size cap of one response body
    html: bool = False  # a scraped page: honour robots.txt, space requests per host
    min_interval_s: float | None = None  # spacing between requests to one host
    headers: Mapping[str, str] = field(default_factory=dict)
    # the whole fetch (every part, robots.txt, retries) ends within this many seconds
    # (None: catalog.http.FETCH_DEADLINE_S, or GPUCOST_FETCH_DEADLINE_S when set)
    deadline_s: float | None = None
    # a body slower than min_rate_bps bytes per second over a whole min_rate_window_s is cut
    # with TooSlowError (None: catalog.http.MIN_RATE_BPS / MIN_RATE_WINDOW_S, or
    # GPUCOST_FETCH_MIN_RATE_BPS / GPUCOST_FETCH_MIN_RATE_WINDOW_S when set; a rate of 0
    # turns the check off)
    min_rate_bps: float | None = None
    min_rate_window_s: float | None = None
    # hosts a redirect or a paging link may lead to besides the one asked (same host only
    # by default; a leading www. aside)
    allow_hosts: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Part:
    """One document of a feed: `key` names it in errors and, for a multi-part feed, is the
    stream a failure is recorded under."""

    key: str
    url: str
    name: str  # the payload's name (file name or part of the feed)
    ext: str  # extension when saved raw: json, csv, html, zip...
    method: str = "GET"
    params: Mapping[str, str] | None = None
    json_body: Any = None
    max_bytes: int | None = None
    headers: Mapping[str, str] | None = None


@dataclass
class Fetched:
    """What a live fetch of one source returned: payloads, and the parts that failed."""

    payloads: list[Payload]
    errors: dict[str, FetchError] = field(default_factory=dict)  # part key -> error


class FetchContext:
    """What a source's `parts` or `walk` function fetches with: the session, the policy, and
    the failures seen so far (a host found unreachable is not asked again in this fetch)."""

    def __init__(self, source: Source, session: requests.Session) -> None:
        self.source = source
        self.session = session
        self.errors: dict[str, FetchError] = {}
        self.unreachable: dict[str, UnreachableError] = {}  # host -> why
        self.deadline = http.deadline_after(source.policy.deadline_s)

    def url(self, suffix: str = "", default: str | None = None) -> str:
        """The endpoint (`GPUCOST_SOURCE_URL_<NAME>[_<SUFFIX>]`, else `default` or the
        source's default URL)."""
        name = self.source.name + (f"_{suffix}" if suffix else "")
        return http.source_url(name, default if default is not None
                               else self.source.default_url)

    def selected(self, key: str) -> bool:
        return self.source.selected(key)

    def is_unreachable(self, url: str) -> bool:
        return urlsplit(url).netloc in self.unreachable

    def get(self, url: str, *, name: str, ext: str, method: str = "GET",
            params: Mapping[str, str] | None = None, json_body: Any = None,
            max_bytes: int | None = None, headers: Mapping[str, str] | None = None) -> Payload:
        """One request under the source's policy (a named FetchError when it fails). A host
        that was unreachable earlier in this fetch is not asked again."""
        host = urlsplit(url).netloc
        if host in self.unreachable:
            raise UnreachableError(f"not tried: {self.unreachable[host]}")
        if self.deadline <= time.monotonic():
            raise DeadlineExceededError("not tried: the fetch deadline had passed")
        p = self.source.policy
        try:
            return http.fetch(
                url, name=name, ext=ext, session=self.session, method=method, params=params,
                json_body=json_body, headers={**p.headers, **(headers or {})},
                timeout=p.timeout, max_bytes=max_bytes or p.max_bytes, retries=p.retries,
                backoff_s=p.backoff_s, html=p.html, min_interval_s=p.min_interval_s,
                deadline=self.deadline, allow_hosts=p.allow_hosts,
                min_rate_bps=p.min_rate_bps, min_rate_window_s=p.min_rate_window_s,
            )
        except UnreachableError as exc:
            self.unreachable[host] = exc
            raise

    def fetch_part(self, part: Part) -> Payload:
        return self.get(part.url, name=part.name, ext=part.ext, method=part.method,
                        params=part.params, json_body=part.json_body, max_bytes=part.max_bytes,
                        headers=part.headers)

    def fail(self, key: str, error: FetchError) -> None:
        """Record part `key` as failed (it is loaded as a failed fetch of that stream)."""
        if not str(error).startswith("not tried:"):
            log.warning("%s: %s not fetched: %s", self.source.name, key, error)
        self.errors[key] = error


PartsFn = Callable[[FetchContext], Iterable[Part]]
WalkFn = Callable[[FetchContext], list[Payload]]


@dataclass(frozen=True)
class Source:
    """A registered source: what it is, where it lives, how to fetch it and how to parse it."""

    name: str  # registry key, e.g. "azure"; also the <NAME> of GPUCOST_SOURCE_URL_<NAME>
    kind: str  # "prices" or "specs"
    default_url: str  # the live endpoint (or base URL of its parts)
    parse: Callable[[Payload], ParseResult]
    parts: PartsFn | None = None  # the documents of the feed; None: one at the URL
    walk: WalkFn | None = None  # instead of parts: a walk that needs the previous body
    payload_name: str = ""  # the single document's name (default parts)
    ext: str = ""  # the single document's extension (default parts)
    policy: FetchPolicy = field(default_factory=FetchPolicy)
    # The pages of one live fetch form one snapshot (Azure's NextPageLink walk): they are
    # loaded together under this stream, so the row-count guard sees the whole walk.
    live_stream: str | None = None
    description: str = ""  # one line: what the source is
    # Files identified by their path (a results repository): `gpucost ingest SOURCE DIR`
    # takes a directory and loads the files under it that match these globs.
    tree_files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"source {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.parts is not None and self.walk is not None:
            raise ValueError(f"source {self.name}: give parts or walk, not both")
        if self.parts is None and self.walk is None and not (self.payload_name and self.ext):
            raise ValueError(f"source {self.name}: a single document needs payload_name and ext")

    @property
    def url(self) -> str:
        """The live endpoint in force (GPUCOST_SOURCE_URL_<NAME> or the default)."""
        return http.source_url(self.name, self.default_url)

    def selected(self, key: str) -> bool:
        """Whether part `key` is fetched (GPUCOST_SOURCE_PARTS_<NAME> limits the parts)."""
        keys = os.environ.get(f"GPUCOST_SOURCE_PARTS_{self.name.upper()}", "").strip()
        return not keys or key in {k.strip() for k in keys.split(",")}

    def default_parts(self, ctx: FetchContext) -> Iterator[Part]:
        yield Part(self.name, self.url, self.payload_name, self.ext)

    def fetch(self, session: requests.Session | None = None) -> Fetched:
        """Fetch every part: the payloads that came and the named error of each part that did
        not. Raises when nothing came: the error itself for a single document (or a failed
        index), else PartsFailedError; EmptyPayloadError when the feed listed nothing."""
        sess = session or requests.Session()
        try:
            ctx = FetchContext(self, sess)
            if self.walk is not None:
                fetched = Fetched(list(self.walk(ctx)), dict(ctx.errors))
            else:
                fetched = fetch_parts(ctx, (self.parts or self.default_parts)(ctx))
        finally:
            if session is None:
                sess.close()
        if not fetched.payloads:
            if len(fetched.errors) == 1 and set(fetched.errors) & {self.name, "index"}:
                raise next(iter(fetched.errors.values()))  # the one document, or the index
            if fetched.errors:
                raise PartsFailedError(self.name, dict(fetched.errors))
            raise EmptyPayloadError(f"{self.name}: the live fetch found nothing to fetch")
        return fetched


def fetch_parts(ctx: FetchContext, parts: Iterable[Part]) -> Fetched:
    """Fetch parts in order; a failed part is recorded alone (an unreachable host's other
    parts fail at once as "not tried"). A navigation failure inside a `parts` generator ends
    the walk and is recorded under the key "index"."""
    payloads: list[Payload] = []
    iterator = iter(parts)
    while True:
        try:
            part = next(iterator)
        except StopIteration:
            break
        except FetchError as exc:
            ctx.fail("index", exc)
            break
        if not ctx.selected(part.key):
            continue
        try:
            payloads.append(ctx.fetch_part(part))
        except FetchError as exc:
            ctx.fail(part.key, exc)
    return Fetched(payloads, dict(ctx.errors))


# ---- parse helpers ----------------------------------------------------------------------

# the largest document a zip member may expand to (a 1 MB zip once expanded to 2.2 GB)
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024


def read_zip_member(archive: zipfile.ZipFile, name: str | zipfile.ZipInfo, what: str,
                    cap: int | None = None) -> bytes:
    """One member of a zip, never expanded past `cap` (default MAX_UNZIPPED_BYTES): refused
    by its declared size first, then read through a stream that stops one byte past the cap
    (a member that lies about its size is cut there). PayloadTooLargeError when over."""
    cap = cap or MAX_UNZIPPED_BYTES
    info = name if isinstance(name, zipfile.ZipInfo) else archive.getinfo(name)
    if info.file_size > cap:
        raise PayloadTooLargeError(f"{what}: {info.filename} expands to {info.file_size} "
                                   f"bytes, above the cap of {cap}")
    with archive.open(info) as member:
        data = member.read(cap + 1)
    if len(data) > cap:
        raise PayloadTooLargeError(f"{what}: {info.filename} expands past the cap of {cap}")
    return data


class CheapestOffers:
    """Accepted price observations keyed by (provider, sku, region, pricing model): when a
    payload lists
    the same offer twice, the lowest price is kept and the other becomes a duplicate_offer
    reject (never dropped silently)."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.best: dict[tuple[str, str, str, str], tuple[PriceObservation, str]] = {}

    def add(self, obs: PriceObservation, raw: str = "") -> None:
        key = (obs.provider, obs.sku, obs.region, obs.pricing_model)
        held = self.best.get(key)
        if held is None:
            self.best[key] = (obs, raw)
            return
        keep, drop = held, (obs, raw)
        if (obs.price_per_hour or 0) < (held[0].price_per_hour or 0):
            keep, drop = (obs, raw), held
        self.best[key] = keep
        self.result.rejects.append(Reject(
            "duplicate_offer",
            " ".join(x for x in (obs.provider, obs.sku, obs.region, obs.pricing_model) if x)
            + f": {drop[0].price_per_hour} dropped, {keep[0].price_per_hour} kept",
            drop[1],
        ))

    def reject(self, reason: str, detail: str, raw: str = "") -> None:
        self.result.rejects.append(Reject(reason, detail, raw))

    def finish(self, what: str, seen: str = "") -> ParseResult:
        """Put the kept offers into the result; EmptyPayloadError when there is none."""
        self.result.prices = [obs for obs, _ in self.best.values()]
        if not self.result.prices:
            raise_empty(self.result, what, seen)
        return self.result


def keep_cheapest(result: ParseResult) -> None:
    """Keep the lowest price of each offer listed twice in `result` (CheapestOffers)."""
    offers = CheapestOffers(result)
    for obs in result.prices:
        offers.add(obs)
    result.prices = [obs for obs, _ in offers.best.values()]


def finish_cheapest(result: ParseResult, what: str, seen: str = "") -> ParseResult:
    """keep_cheapest, then raise_empty(`what`, `seen`) when no price is left; the result."""
    keep_cheapest(result)
    if not result.prices:
        raise_empty(result, what, seen)
    return result


def raise_empty(result: ParseResult, what: str, seen: str = "") -> None:
    """Refuse a payload that parsed to no accepted row: `what` says so ("azure p1: no accepted
    GPU VM price"), `seen` what was read; the reject reasons are counted."""
    reasons = dict(Counter(r.reason for r in result.rejects))
    detail = ", ".join(x for x in (seen, f"rejects {reasons}" if reasons else "") if x)
    raise EmptyPayloadError(what + (f" ({detail})" if detail else ""))


_WAYBACK_CAPTURE = re.compile(r"web\.archive\.org/web/(?P<ts>\d{14})(?:[a-z]{2}_)?/")


def read_html(payload: Payload) -> BeautifulSoup:
    """A scraped page's tree (UTF-8, else Latin-1: a page never fails on its encoding)."""
    try:
        text = payload.content.decode("utf-8")
    except UnicodeDecodeError:
        text = payload.content.decode("latin-1")
    return BeautifulSoup(text, "html.parser")


def wayback_capture_time(soup: BeautifulSoup) -> datetime | None:
    """When a recorded page was captured, from the Wayback Machine's comment
    (``/web/20241103180910id_/``); None for a live page."""
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        m = _WAYBACK_CAPTURE.search(str(comment))
        if m:
            try:
                return datetime.strptime(m.group("ts"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            except ValueError:
                return None
    return None


def read_page(payload: Payload, stream: str) -> tuple[BeautifulSoup, ParseResult]:
    """A scraped page's tree (read_html) and an empty result of `stream` whose observed_at is
    the page's Wayback capture time (None for a live page)."""
    soup = read_html(payload)
    return soup, ParseResult(stream=stream, observed_at=wayback_capture_time(soup))


# ---- pricing-page text ------------------------------------------------------------------

# zero-width characters and the soft hyphen, which pages put inside names and prices
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
# a dollar amount anywhere in the text ("$2.99 / GPU / hr", "from $0.90", "$1,234.5"); a whole
# number only: "$1e308" or "$2.5x" is not read as $1 or $2.5 (no match: no price)
DOLLAR_PRICE = re.compile(r"\$\s*(?P<price>\d[\d,]*(?:\.\d+)?)(?!\w|\.\d)")
# a number at the start of a cell: "80 GB" -> 80, "4^1" -> 4 (a footnote marker glued on)
LEADING_NUMBER = re.compile(r"^\s*(?P<n>\d[\d,]*(?:\.\d+)?)")
# a commitment's length in months -> its pricing model (any other term has none)
RESERVED_TERMS = {12: "reserved_1y", 36: "reserved_3y"}


def clean_text(text: str) -> str:
    """`text` without zero-width characters, each run of whitespace one space, stripped."""
    return " ".join(text.translate(ZERO_WIDTH).split())


def node_text(node: Tag | NavigableString | None) -> str:
    """The text of a node (a tag's strings joined by spaces), cleaned; "" for None."""
    if node is None:
        return ""
    return clean_text(node.get_text(" ", strip=True) if isinstance(node, Tag) else str(node))


def classes(node: Tag) -> list[str]:
    """The class names of a tag (a list, whether the parser split the attribute or not)."""
    value = node.get("class")
    return list(value) if isinstance(value, list) else str(value or "").split()


def first_price(text: str, pattern: re.Pattern[str] = DOLLAR_PRICE) -> float | None:
    """The first price `pattern` finds in `text` (its `price` group, commas dropped); None
    when there is none or it is not above 0 (a zero is never a free offer)."""
    m = pattern.search(text)
    if not m:
        return None
    value = float(m.group("price").replace(",", ""))
    return value if value > 0 else None


def leading_number(text: str, pattern: re.Pattern[str] = LEADING_NUMBER) -> float | None:
    """The number `pattern` matches at the start of `text` (its `n` group, commas dropped);
    None when there is none or it is not above 0."""
    m = pattern.match(text)
    if not m:
        return None
    value = float(m.group("n").replace(",", ""))
    return value if value > 0 else None


# ---- GPU counts -------------------------------------------------------------------------

# the reject reason of a row whose GPU count is stated but is no count of GPUs: not a number,
# Infinity or NaN, zero or negative, or a fraction where the source has no fractional GPUs
GPU_COUNT_INVALID = "gpu_count_invalid"


def read_gpu_count(value: Any, *, fractions: bool = False) -> tuple[float | None, str]:
    """A row's GPU count as the source states it (a JSON number, a CSV cell, the text of a
    page's number): ``(count, "")`` when it is a count, ``(None, why)`` when it is not one
    (the row is then Reject(GPU_COUNT_INVALID, why)), ``(None, "")`` when none is stated (None
    or blank: the parser decides, a CPU row or gpu_count_unknown).

    A count is finite, above zero and whole; with `fractions` (a source whose rows can be a
    slice of one GPU: Azure NVads A10 v5 1/6, AWS g6f, GCP G4 1/8, RunPod MIG 1/4, SkyPilot's
    ``A10*1/3``, Vast's half cards) also a slice below one GPU. A fraction above one (1.5)
    means nothing in any source. Never raises: ``inf``, ``1e400``, ``NaN`` or ``true`` refuse
    the row, not the payload."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, ""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None, f"GPU count {value!r} is not a number"
    try:
        count = float(value.strip().replace(",", "") if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return None, f"GPU count {str(value)[:40]!r} is not a number"
    if not math.isfinite(count):
        shown = repr(value[:40]) if isinstance(value, str) else str(value)[:40]
        return None, f"GPU count {shown} is not finite"
    if count <= 0:
        return None, f"GPU count {count:g} is not above zero"
    if not count.is_integer() and not (fractions and count < 1):
        return None, (f"GPU count {count:g} is not a whole number of GPUs"
                      + (" nor a slice of one" if fractions else ""))
    return count, ""


def leading_gpu_count(text: str, pattern: re.Pattern[str] | None = None, *,
                      fractions: bool = False) -> tuple[float | None, str]:
    """read_gpu_count of the number at the start of a page's cell ("8", "4^1", "8 GPUs"; the
    `n` group of `pattern`, default LEADING_NUMBER); ``(None, "")`` when the cell starts with
    no number."""
    m = (pattern or LEADING_NUMBER).match(text)
    return read_gpu_count(m.group("n") if m else None, fractions=fractions)


def plain_number(text: str) -> float | None:
    """A cell that is one number, as float() reads it once commas are dropped ("1,800" ->
    1800.0; zero and negatives included); None otherwise."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def no_price_reason(text: str, context: str = "", *, not_available: bool = True) -> str:
    """Why a price cell holds no price, as a reject reason: "no_price_contact_sales" when the
    cell or its `context` says contact, "price_not_available" for "N/A" (a page whose parser
    does not tell it apart passes not_available=False), else "zero_or_missing_price"."""
    if "contact" in f"{text} {context}".lower():
        return "no_price_contact_sales"
    if not_available and text.strip().lower().replace(" ", "") in {"n/a", "na"}:
        return "price_not_available"
    return "zero_or_missing_price"


def says_on_demand(label: str) -> bool:
    """Whether a column or price label names the on-demand price ("On-Demand", "on demand")."""
    label = label.lower()
    return "on-demand" in label or "on demand" in label


def reserved_model(term: re.Match[str] | None) -> str | None:
    """The pricing model of a commitment term matched with groups `n` and `unit` (month...,
    year...): reserved_1y for 12 months, reserved_3y for 36; None for another or no term."""
    if term is None:
        return None
    years = term.group("unit").lower().startswith("y")
    return RESERVED_TERMS.get(int(term.group("n")) * (12 if years else 1))
