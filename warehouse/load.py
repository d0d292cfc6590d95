"""Load rules: what a payload or a recorded file may load as (no orchestration here).

- when it was observed (`observation_time`: the --observed-at option, the date the payload
  states, a date in a replayed file's name, else the fetch or ingest time), and how precisely
  (`parse_observed_at`: a date or instant, or only a month: `ObservedAt`);
- which error a payload that failed to load is recorded with (`source_error`: a named
  SourceError, or UnexpectedPayloadError; an error of the machine is raised again);
- how large a file `ingest` reads (`ingest_max_bytes`, `too_large`) and what it loads as
  (`file_payload`);
- how the pages of one live walk load as one snapshot (`merge_results`, `combined`).

The steps that apply them (flows/steps.py) save, parse and load through warehouse/store.py.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import duckdb

from gpucost.catalog.records import (
    ParseResult,
    Payload,
    PayloadTooLargeError,
    SourceError,
    UnexpectedPayloadError,
)
from gpucost.warehouse.store import SavedPayload

_DATE_IN_NAME = re.compile(
    r"(20\d\d)[-_]?([01]\d)[-_]?([0-3]\d)(?:[T_]?([0-2]\d)([0-5]\d)([0-5]\d))?"
)

INGEST_MAX_BYTES = 64 * 1024 * 1024  # the default size cap of a live response, too

# how precisely an observation date is known: 'day' (a date or an instant) or 'month' (a
# replayed file whose README gives only an approximate period: the first instant of the month
# stands for it, so the observation is never fresher than it may be)
PRECISIONS = ("day", "month")
_MONTH = re.compile(r"(\d{4})-(\d{2})")


class ObservedAt(NamedTuple):
    """An observation date given for replayed files (`--observed-at`): the instant stored and
    how precisely it is known (PRECISIONS)."""

    at: datetime
    precision: str = "day"


def parse_observed_at(text: str) -> ObservedAt:
    """`--observed-at`'s value: an ISO date or timestamp (precision 'day'; UTC when it names
    no zone), or a month 'YYYY-MM' (precision 'month', stored as its first instant, UTC).
    ValueError names what is wrong (a month 13, a day 31 of a 30-day month, a non-date)."""
    text = text.strip()
    month = _MONTH.fullmatch(text)
    if month:
        year, mo = int(month[1]), int(month[2])
        if not 1 <= mo <= 12:
            raise ValueError(f"{text!r}: no month {mo} (a month is YYYY-MM, 01 to 12)")
        return ObservedAt(datetime(year, mo, 1, tzinfo=UTC), "month")
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        why = "" if str(exc).startswith("Invalid isoformat") else f" ({exc})"
        raise ValueError(f"not an ISO date or datetime, nor a month YYYY-MM: {text!r}{why}"
                         ) from None
    return ObservedAt(value if value.tzinfo else value.replace(tzinfo=UTC), "day")


def as_observed(value: datetime | ObservedAt | None) -> ObservedAt | None:
    """An --observed-at given as a datetime (precision 'day') or an ObservedAt, or None."""
    if value is None or isinstance(value, ObservedAt):
        return value
    return ObservedAt(value, "day")


def date_from_name(name: str) -> datetime | None:
    """The observation time a recorded file's name carries (2026-01-31, 20260109103934)."""
    m = _DATE_IN_NAME.search(Path(name).name)
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    try:
        return datetime(y, mo, d, h, mi, s, tzinfo=UTC)
    except ValueError:
        return None


def observation_time(option: datetime | None, stated: datetime | None, file_name: str | None,
                     now_: datetime, mode: str) -> tuple[datetime, str]:
    """(observed_at, its basis): the --observed-at option, else the date the payload states,
    else a date in a replayed file's name, else the fetch time (live) or, for a replayed file
    that states no date, the ingest time with basis 'ingest_time' (the date is unknown)."""
    if option is not None:
        return option, "option"
    if stated is not None:
        return stated, "payload"
    from_name = date_from_name(file_name) if file_name else None
    if from_name is not None:
        return from_name, "file_name"
    return now_, "fetch_time" if mode == "live" else "ingest_time"


def source_error(exc: Exception) -> SourceError:
    """`exc` as a named error of the source whose payload caused it: a SourceError as it is,
    anything else (a parser or loader bug meeting hostile bytes) as UnexpectedPayloadError.
    An error of the machine (disk full, I/O error, read-only file system: OSError or DuckDB's
    IOException) is nobody's payload: it is raised again and stops the run."""
    if isinstance(exc, SourceError):
        return exc
    if (isinstance(exc, OSError) and exc.errno is not None) or isinstance(
            exc, duckdb.IOException):
        raise exc
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:200].rsplit(" ", 1)[0] + " ..."
    return UnexpectedPayloadError(f"{type(exc).__name__}: {text}" if text
                                  else type(exc).__name__)


def ingest_max_bytes() -> int:
    """The largest file `ingest` reads: GPUCOST_INGEST_MAX_BYTES, else INGEST_MAX_BYTES."""
    try:
        return int(os.environ.get("GPUCOST_INGEST_MAX_BYTES", "") or INGEST_MAX_BYTES)
    except ValueError:
        return INGEST_MAX_BYTES


def too_large(path: Path, cap: int) -> PayloadTooLargeError | None:
    """The error of a file above the ingest cap (it is never read: a 200 MB CSV once took
    8 GB and 114 s), None when it may be read."""
    size = Path(path).stat().st_size
    if size <= cap:
        return None
    return PayloadTooLargeError(f"{path.name} is {size} bytes, above the ingest cap of {cap} "
                                "(GPUCOST_INGEST_MAX_BYTES raises it); not read")


def file_payload(path: Path) -> Payload:
    """A recorded file as the payload it replays: its name, bytes, path and extension."""
    return Payload(name=path.name, content=Path(path).read_bytes(), url=str(path),
                   ext=path.suffix.lstrip(".") or "bin")


def merge_results(results: list[ParseResult], stream: str) -> ParseResult:
    """The parse results of a walk's pages as one result of `stream`."""
    merged = ParseResult(stream=stream)
    for r in results:
        merged.prices += r.prices
        merged.specs += r.specs
        merged.throughput += r.throughput
        merged.systems += r.systems
        merged.training_runs += r.training_runs
        merged.training_scaling += r.training_scaling
        merged.serving_points += r.serving_points
        merged.rejects += r.rejects
    return merged


def combined(saved: list[SavedPayload]) -> SavedPayload:
    """The pages of one walk as one snapshot: its sha256 is the hash of the page hashes, so
    the row-count guard and 'last good data' apply to the whole walk."""
    return SavedPayload(
        sha256=hashlib.sha256("".join(s.sha256 for s in saved).encode()).hexdigest(),
        relpath=";".join(s.relpath for s in saved),
        size=sum(s.size for s in saved),
    )
