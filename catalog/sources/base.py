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

The helpers the parsers share live beside the contract, one module a job: catalog/parsing.py
(zip members read under a cap, the cheapest of an offer listed twice, the refusal of a
payload without an accepted row, a row's GPU count) and catalog/pages.py (a scraped pricing
page's tree, capture time and cell text).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests

from gpucost.catalog import http
from gpucost.catalog.records import (
    DeadlineExceededError,
    EmptyPayloadError,
    FetchError,
    ParseResult,
    PartsFailedError,
    Payload,
    UnreachableError,
)

log = logging.getLogger("gpucost.catalog.sources")

KINDS = ("prices", "specs", "throughput")
AUTHORITIES = ("own", "catalog", "curated")


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
    # An API that needs a key (GPUCOST_<NAME>_API_KEY) is opt-in: a refresh of every source
    # fetches it only when its key is set (steps.names_to_fetch); `--source NAME` without the
    # key fails by name
    needs_key: bool = False
    # Files identified by their path (a results repository): `gpucost ingest SOURCE DIR`
    # takes a directory and loads the files under it that match these globs.
    tree_files: tuple[str, ...] = ()
    # Whose word a price row is (source precedence within one provider, issue 37): "own" (the
    # provider's own page or API), "catalog" (a catalog built from providers' own APIs by a
    # third party: SkyPilot, gpuhunt), "curated" (public tables typed in by people). An
    # aggregator's resale is told by the row (listing_kind 'resold'), not the source.
    authority: str = "own"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"source {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.authority not in AUTHORITIES:
            raise ValueError(f"source {self.name}: authority {self.authority!r} is not one of "
                             f"{AUTHORITIES}")
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
