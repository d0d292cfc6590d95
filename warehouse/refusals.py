"""Why a payload or a row is refused at load time (warehouse/store.py RawStore.load): a
payload as a whole for its observation date, its rows above the payload row cap, or far
fewer rows than the last good payload of its stream (the collapse guard); a row for its
date, or by the plausibility gates of warehouse/gates.py (price band, jump against the
offer's previous price). A refused payload is recorded as a failed fetch with its named
error; a refused row becomes a raw.rejects row.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import duckdb

from gpucost.catalog.records import (
    ObservationDateError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
    RowCountCollapseError,
    SourceError,
    TooManyRowsError,
)
from gpucost.warehouse.daily import prior_prices
from gpucost.warehouse.gates import Gates, jump_rejects

# a payload that parses to fewer than this share of the last good one of its stream is refused
COLLAPSE_RATIO = 0.5
# observation dates outside [FIRST_PLAUSIBLE, now + CLOCK_SKEW] are refused: no GPU was
# rented by the hour before EC2's first GPU instances (2010), and a date in the future would
# hold its stream in force against every later fetch
FIRST_PLAUSIBLE = datetime(2010, 1, 1, tzinfo=UTC)
CLOCK_SKEW = timedelta(days=1)
# A payload that parses to more rows than this is refused by name (TooManyRowsError): the
# largest real one (Wikipedia's spec tables) has 5,822, a cloud's whole price list a few
# thousand; 45 MB of one-line offers under the size cap would be 1,000,000.
# GPUCOST_PAYLOAD_MAX_ROWS overrides it.
PAYLOAD_MAX_ROWS = 500_000


def payload_max_rows() -> int:
    """The payload row cap: GPUCOST_PAYLOAD_MAX_ROWS, else PAYLOAD_MAX_ROWS."""
    try:
        cap = int(os.environ.get("GPUCOST_PAYLOAD_MAX_ROWS", "") or PAYLOAD_MAX_ROWS)
    except ValueError:
        return PAYLOAD_MAX_ROWS
    return cap if cap > 0 else PAYLOAD_MAX_ROWS


def check_row_cap(payload: Payload) -> None:
    """Refuse a line-oriented payload (CSV) with more lines than the payload row cap before it
    is parsed (TooManyRowsError): parsing 1,000,000 CSV rows into records takes 1.3 GB. Other
    formats are counted after parsing (RawStore.load)."""
    if payload.ext.lower() not in ("csv", "tsv"):
        return
    cap = payload_max_rows()
    lines = payload.content.count(b"\n")
    if lines - 1 > cap:  # the header line
        raise TooManyRowsError(
            f"{payload.name}: {lines - 1} lines, above the payload row cap of {cap} "
            "(GPUCOST_PAYLOAD_MAX_ROWS raises it); refused before parsing, the last good "
            "data stays in force")


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _iso(when: datetime) -> str:
    return _aware(when).isoformat(timespec="seconds")


def plausible(when: datetime) -> bool:
    """Whether an observation date lies between FIRST_PLAUSIBLE and now + CLOCK_SKEW."""
    return FIRST_PLAUSIBLE <= _aware(when) <= _now() + CLOCK_SKEW


def last_good(con: duckdb.DuckDBPyConnection, source: str,
              stream: str) -> tuple[int, datetime | None] | None:
    """(rows loaded, observed_at) of the good payload of a stream in force (the newest dated
    one, else the newest undated one), or None.

    observed_at is None when that payload was replayed from a file that states no date
    (observed_at_basis 'ingest_time'): its time is the load's, not when its prices were
    true, so a dated payload is never "older" than it (the models put any dated payload in
    force before an undated one: int_fetches_in_force)."""
    rows = con.execute(
        "select rows_loaded, observed_at, observed_at_basis is not distinct from "
        "'ingest_time' from fetches where source = ? and stream = ? "
        "and status in ('ok', 'replayed') and rows_loaded > 0 and error_type is null "
        # the payload in force: the newest dated one, else the newest undated one
        "order by observed_at_basis is not distinct from 'ingest_time', observed_at desc, "
        "fetch_id desc limit 1",
        [source, stream],
    ).fetchall()
    if not rows:
        return None
    return int(rows[0][0]), None if rows[0][2] else rows[0][1]


def payload_refusal(con: duckdb.DuckDBPyConnection, source: str, result: ParseResult,
                    observed_at: datetime, mode: str, force: bool) -> SourceError | None:
    """Why a parsed payload is refused as a whole, or None.

    * Its observation date is in the future (beyond CLOCK_SKEW) or before FIRST_PLAUSIBLE:
      such a payload would hold its stream in force against every later fetch.
    * More rows than the payload row cap (payload_max_rows), even with `force`.
    * The collapse guard: far fewer rows than the latest good payload of the stream. A
      live fetch is always guarded; a replay (`gpucost ingest`) only when it would become
      the newest payload of its stream (an older file is history and displaces nothing;
      nothing is older than a payload replayed without a date, which any dated one
      displaces), and not with `force` (the operator's explicit decision, `ingest --force`).
    """
    cap = payload_max_rows()
    if result.n_rows + len(result.rejects) > cap:
        return TooManyRowsError(
            f"{source}/{result.stream}: {result.n_rows + len(result.rejects)} rows, above "
            f"the payload row cap of {cap} (GPUCOST_PAYLOAD_MAX_ROWS raises it); refused, "
            "the last good data stays in force")
    if not plausible(observed_at):
        return ObservationDateError(
            f"{source}/{result.stream}: observation date {_iso(observed_at)} is "
            + ("in the future" if _aware(observed_at) > _now() else
               f"before {FIRST_PLAUSIBLE.date()}")
            + "; refused (give the right date with --observed-at)")
    if force:
        return None
    last = last_good(con, source, result.stream)
    if last is None:
        return None
    previous, last_at = last
    if mode != "live" and last_at is not None and _aware(observed_at) < _aware(last_at):
        return None
    n_rows = result.n_rows
    if n_rows < COLLAPSE_RATIO * previous:
        return RowCountCollapseError(
            f"{source}/{result.stream}: {n_rows} rows against {previous} in the last good "
            f"payload (< {COLLAPSE_RATIO:.0%}); refused, the last good data stays in force"
            + ("" if mode == "live" else " (`ingest --force` loads it anyway)"))
    return None


def gate(
    con: duckdb.DuckDBPyConnection, gates: Gates, source: str,
    prices: list[PriceObservation], observed_at: datetime,
) -> tuple[list[PriceObservation], list]:
    """(rows kept, Reject rows) after the band and the jump gates."""
    if not prices:
        return prices, []
    dated: list[PriceObservation] = []
    band_refused: list = []
    for obs in prices:
        if obs.observed_at is None or plausible(obs.observed_at):
            dated.append(obs)
        else:
            band_refused.append(Reject(
                "implausible_observed_at",
                f"{obs.provider} {obs.sku} {obs.region}: observed at "
                f"{_iso(obs.observed_at)}", f"observed_at={_iso(obs.observed_at)}"))
    kept, out_of_band = gates.band_rejects(dated)
    band_refused += out_of_band
    if not kept:  # every row out of band: nothing to compare with its previous price
        return kept, band_refused
    priors = prior_prices(con, source, kept, observed_at)
    kept, jump_refused = jump_rejects(source, kept, observed_at, priors)
    return kept, band_refused + jump_refused
