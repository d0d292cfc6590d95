"""The raw layer: payloads saved verbatim (content-addressed), then observations appended.

Single writer: only the refresh / ingest process opens raw.duckdb read-write, and it closes it
before the models are built. Loading is idempotent by content hash: a payload whose sha256
this source has already loaded adds no rows (status `unchanged`).

Before rows are written, the plausibility gates of warehouse/gates.py refuse single rows
(price outside the accelerator's sane band, a jump of more than 5x against the previous
observation of the same offer) into raw.rejects. Every load also upserts its rows into the
daily rollup `price_daily` (one row per day and offer key), which the history marts read
instead of rescanning all observations; an 'unchanged' refetch of a snapshot confirms its
prices for the day of the refetch.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd

from gpucost.catalog.records import (
    AllRowsRefusedError,
    ObservationDateError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
    RowCountCollapseError,
    SourceError,
    TooManyRowsError,
)
from gpucost.catalog.secrets import redact
from gpucost.warehouse import WAREHOUSE_DIR, memory_limit, rebuild_memory_limit
from gpucost.warehouse.gates import Gates, jump_rejects

SCHEMA_SQL = (WAREHOUSE_DIR / "schema.sql").read_text(encoding="utf-8")
RAW_ROW_MAX_CHARS = 2000
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
# prices go to DuckDB in frames of this many rows (a frame of 1,000,000 Python tuples is
# about 600 MB on top of the parsed payload)
INSERT_CHUNK_ROWS = 50_000
_SAFE = str.maketrans({c: "_" for c in "/\\:*?\"<>| "})

PRICE_COLUMNS = [
    "fetch_id", "source", "provider", "sku", "region", "pricing_model", "os", "currency",
    "price_per_hour", "gpu_name_raw", "gpu_count", "gpu_memory_gb", "vcpus", "ram_gb",
    "observed_at", "offer_count", "price_p10_per_hour", "price_p90_per_hour",
]
REJECT_COLUMNS = ["fetch_id", "source", "reason", "detail", "raw_row", "observed_at"]
_OFFER_KEY = ("source", "provider", "sku", "region", "pricing_model", "os")

# the daily rollup of a batch of observations (a relation with PRICE_COLUMNS), upserted
_DAILY_UPSERT = """
insert into price_daily
select
    cast(timezone('UTC', batch.observed_at) as date) as day,
    batch.source, lower(trim(batch.provider)), batch.sku, batch.region,
    batch.pricing_model, lower(coalesce(batch.os, 'linux')),
    arg_max(batch.currency, batch.observed_at),
    arg_max(batch.price_per_hour, batch.observed_at),
    min(batch.price_per_hour),
    max(batch.price_per_hour),
    arg_max(batch.gpu_name_raw, batch.observed_at),
    arg_max(batch.gpu_count, batch.observed_at),
    count(*),
    min(batch.observed_at),
    max(batch.observed_at),
    max(batch.fetch_id)
from {relation} as batch
where batch.price_per_hour > 0
group by all
on conflict (day, source, provider, sku, region, pricing_model, os) do update set
    currency = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.currency else price_daily.currency end,
    price_per_hour = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.price_per_hour else price_daily.price_per_hour end,
    gpu_name_raw = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.gpu_name_raw else price_daily.gpu_name_raw end,
    gpu_count = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.gpu_count else price_daily.gpu_count end,
    last_fetch_id = case when excluded.last_observed_at >= price_daily.last_observed_at
        then excluded.last_fetch_id else price_daily.last_fetch_id end,
    min_price_per_hour = least(price_daily.min_price_per_hour, excluded.min_price_per_hour),
    max_price_per_hour = greatest(price_daily.max_price_per_hour, excluded.max_price_per_hour),
    n_observations = price_daily.n_observations + excluded.n_observations,
    first_observed_at = least(price_daily.first_observed_at, excluded.first_observed_at),
    last_observed_at = greatest(price_daily.last_observed_at, excluded.last_observed_at)
"""

SPEC_COLUMNS = [
    "fetch_id", "source", "accelerator_name_raw", "metric", "value", "unit", "observed_at",
]
THROUGHPUT_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark",
    "accuracy_target", "scenario", "metric", "value", "valid", "ttft_limit_ms",
    "tpot_limit_ms", "ttft_mean_ms", "tpot_mean_ms", "observed_at",
]
TRAINING_RUN_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark", "run",
    "run_start", "run_stop", "status", "samples", "tokens", "tokens_basis",
    "global_batch_size", "seq_len", "observed_at",
]
TRAINING_SCALING_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark",
    "scaling_factor", "observed_at",
]
SERVING_POINT_COLUMNS = [
    "fetch_id", "source", "sweep", "model", "hardware_raw", "gpus", "framework", "precision",
    "input_len", "output_len", "concurrency", "output_tokens_per_second",
    "total_tokens_per_second", "output_tokens_per_second_per_gpu_stated",
    "tokens_per_second_per_user", "interactivity_basis", "mean_ttft_ms", "median_ttft_ms",
    "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms", "requests_completed",
    "observed_at",
]
SYSTEM_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "system_name",
    "accelerator_name_raw", "accelerators_per_node", "number_of_nodes", "availability",
    "framework", "observed_at",
]


def _insert_frame(con: duckdb.DuckDBPyConnection, table: str, columns: list[str],
                  rows: list[tuple[object, ...]]) -> None:
    frame = pd.DataFrame(rows, columns=columns)
    con.register("_rows", frame)
    try:
        con.execute(f"insert into {table} ({', '.join(columns)}) "
                    f"select {', '.join(columns)} from _rows")
    finally:
        con.unregister("_rows")


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


def payload_relpath(source: str, day: date, sha256: str, ext: str | None) -> str:
    """`raw/<source>/<yyyy-mm-dd>/<sha256>.<ext>`: where a payload's bytes are kept, under the
    data dir and, in cluster mode, as an object key (cluster/objects.py)."""
    ext = (ext or "bin").lstrip(".").lower().translate(_SAFE)[:10] or "bin"
    return f"raw/{source.translate(_SAFE)}/{day.strftime('%Y-%m-%d')}/{sha256}.{ext}"


@dataclass(frozen=True)
class SavedPayload:
    sha256: str
    relpath: str  # relative to the data dir
    size: int


@dataclass
class LoadOutcome:
    """What happened to one payload: the row written to raw.fetches."""

    fetch_id: int
    source: str
    stream: str | None
    status: str  # ok | replayed | unchanged | failed
    rows_loaded: int = 0
    rows_rejected: int = 0
    error_type: str | None = None
    error: str | None = None


class RawStoreUnreadableError(Exception):
    """raw.duckdb exists but is not a readable DuckDB file (zero bytes, corrupt, truncated)."""


class RawStore:
    def __init__(self, data_dir: Path, gates: Gates | None = None):
        self.data_dir = Path(data_dir)
        self.db_path = self.data_dir / "raw.duckdb"
        self.payload_dir = self.data_dir / "raw"
        self._gates = gates

    @property
    def gates(self) -> Gates:
        """The plausibility gates (read from the curated catalog on first use)."""
        if self._gates is None:
            self._gates = Gates.from_catalog()
        return self._gates

    # -- payload files -------------------------------------------------------------------
    def save_payload(self, source: str, payload: Payload, when: datetime) -> SavedPayload:
        """Write the bytes verbatim to raw/<source>/<yyyy-mm-dd>/<sha256>.<ext> (atomic)."""
        sha = hashlib.sha256(payload.content).hexdigest()
        rel = Path(payload_relpath(source, when, sha, payload.ext))
        path = self.data_dir / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(payload.content)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return SavedPayload(sha, rel.as_posix(), len(payload.content))

    # -- database ------------------------------------------------------------------------
    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        con = self._open()
        con.execute("set enable_progress_bar = false")
        try:
            con.execute(SCHEMA_SQL)
            self._backfill_daily(con)
            yield con
            con.execute("checkpoint")
        finally:
            con.close()

    def _open(self) -> duckdb.DuckDBPyConnection:
        """raw.duckdb read-write, or RawStoreUnreadableError saying how to recover."""
        try:
            return duckdb.connect(str(self.db_path), config={"memory_limit": memory_limit()})
        except duckdb.Error as exc:
            if "lock" in str(exc).lower():
                raise
            size = self.db_path.stat().st_size if self.db_path.exists() else 0
            raise RawStoreUnreadableError(
                f"{self.db_path} ({size} bytes) cannot be opened: "
                f"{' '.join(str(exc).split())[:160]}. Nothing was changed and the published "
                "warehouse stays as it is. Restore raw.duckdb from a backup, or move it aside "
                "and re-ingest the verbatim payloads kept under raw/ (docs/operations.md, "
                "\"Recovering the raw layer\")") from None

    def check_readable(self) -> None:
        """Raise RawStoreUnreadableError now (before a refresh fetches anything) when
        raw.duckdb exists but cannot be opened."""
        if self.db_path.exists():
            self._open().close()

    @staticmethod
    def _backfill_daily(con: duckdb.DuckDBPyConnection) -> None:
        """One-time migration: a raw layer written before price_daily existed gets its rollup."""
        if con.execute("select count(*) from price_daily").fetchall()[0][0]:
            return
        if not con.execute("select count(*) from price_observations").fetchall()[0][0]:
            return
        # a rollup of every observation at once: like a full rebuild, it gets the rebuild's
        # memory (an upsert into a keyed table does not spill), then the load's cap again
        limit = rebuild_memory_limit()
        con.execute(f"set memory_limit = '{limit}'" if limit else "reset memory_limit")
        try:
            con.execute(_DAILY_UPSERT.format(relation="price_observations"))
        finally:
            con.execute(f"set memory_limit = '{memory_limit()}'")

    @staticmethod
    def already_loaded(con: duckdb.DuckDBPyConnection, source: str, sha256: str,
                       stream: str | None = None) -> bool:
        """Whether this source already loaded these bytes (in `stream`, when given)."""
        rows = con.execute(  # fetchall: a half-read result blocks register() in DuckDB 2
            "select 1 from fetches where source = ? and sha256 = ? "
            "and status in ('ok', 'replayed') and (? is null or stream = ?) limit 1",
            [source, sha256, stream, stream],
        ).fetchall()
        return bool(rows)

    @staticmethod
    def last_good(con: duckdb.DuckDBPyConnection, source: str,
                  stream: str) -> tuple[int, datetime] | None:
        """(rows loaded, observed_at) of the latest good payload of a stream, or None."""
        rows = con.execute(
            "select rows_loaded, observed_at from fetches where source = ? and stream = ? "
            "and status in ('ok', 'replayed') and rows_loaded > 0 and error_type is null "
            "order by observed_at desc, fetch_id desc limit 1",
            [source, stream],
        ).fetchall()
        return (int(rows[0][0]), rows[0][1]) if rows else None

    @staticmethod
    def _insert_fetch(con: duckdb.DuckDBPyConnection, **cols: object) -> int:
        names = ", ".join(cols)
        marks = ", ".join("?" for _ in cols)
        return int(
            con.execute(
                f"insert into fetches ({names}) values ({marks}) returning fetch_id",
                list(cols.values()),
            ).fetchall()[0][0]
        )

    def record_failure(
        self,
        con: duckdb.DuckDBPyConnection,
        *,
        run_id: str,
        source: str,
        mode: str,
        started_at: datetime,
        finished_at: datetime,
        error: BaseException,
        url: str = "",
        payload_name: str | None = None,
        saved: SavedPayload | None = None,
        stream: str | None = None,
        observed_at: datetime | None = None,
        http_status: int | None = None,
    ) -> LoadOutcome:
        """A fetch or parse that failed: recorded with its named error, no rows loaded."""
        message = redact(str(error))[:RAW_ROW_MAX_CHARS]
        fetch_id = self._insert_fetch(
            con, run_id=run_id, source=source, stream=stream, mode=mode, url=redact(url),
            payload_name=payload_name, started_at=started_at, finished_at=finished_at,
            observed_at=observed_at, status="failed", http_status=http_status,
            bytes=saved.size if saved else None, sha256=saved.sha256 if saved else None,
            payload_path=saved.relpath if saved else None,
            error_type=type(error).__name__, error=message,
        )
        return LoadOutcome(fetch_id, source, stream, "failed", error_type=type(error).__name__,
                           error=message)

    def load(
        self,
        con: duckdb.DuckDBPyConnection,
        *,
        run_id: str,
        source: str,
        mode: str,
        payload: Payload,
        saved: SavedPayload,
        result: ParseResult,
        started_at: datetime,
        finished_at: datetime,
        observed_at: datetime,
        force: bool = False,
        observed_at_basis: str | None = None,
    ) -> LoadOutcome:
        """Append one parsed payload, idempotently, behind the date check, the row-count
        guard and the plausibility gates (see the module docstring)."""
        common = dict(
            run_id=run_id, source=source, stream=result.stream, mode=mode,
            url=redact(payload.url), payload_name=payload.name, started_at=started_at,
            finished_at=finished_at, observed_at=observed_at,
            http_status=payload.http_status, bytes=saved.size, sha256=saved.sha256,
            payload_path=saved.relpath, observed_at_basis=observed_at_basis,
        )
        # A benchmark result's identity is its path (round, submitter, system, benchmark,
        # scenario), not its bytes: NVIDIA submits one run for both accuracy targets (-99 and
        # -99.9), and identical bytes at two paths are two observations.
        by_stream = result.stream if (result.throughput or result.systems
                                      or result.training_runs or result.training_scaling
                                      or result.serving_points) else None
        if self.already_loaded(con, source, saved.sha256, by_stream):
            fid = self._insert_fetch(con, status="unchanged", **common)
            if observed_at_basis != "ingest_time":  # an undated replay confirms no day
                self._confirm_snapshot(con, source, saved.sha256, fid, observed_at)
            return LoadOutcome(fid, source, result.stream, "unchanged")

        refusal = self._refusal(con, source, result, observed_at, mode, force)
        if refusal is not None:
            return self.record_failure(
                con, run_id=run_id, source=source, mode=mode, started_at=started_at,
                finished_at=finished_at, error=refusal, url=payload.url,
                payload_name=payload.name, saved=saved, stream=result.stream,
                observed_at=observed_at if plausible(observed_at) else None,
                http_status=payload.http_status,
            )

        prices, gated = self.gate(con, source, result.prices, observed_at)
        rejects = result.rejects + gated
        n_rows = len(prices) + result.n_rows - len(result.prices)
        status = "ok" if mode == "live" else "replayed"
        error_type = error = None
        if n_rows == 0 and gated:  # every row refused by the gates: a failed payload
            status, error_type = "failed", AllRowsRefusedError.__name__
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(
                Counter(r.reason for r in gated).items()))
            error = (f"{source}/{result.stream}: every row was refused ({reasons}); see "
                     "raw.rejects. The last good data stays in force")
        con.execute("begin transaction")
        try:
            fid = self._insert_fetch(
                con, status=status, rows_loaded=n_rows, rows_rejected=len(rejects),
                error_type=error_type, error=error, **common,
            )
            for start in range(0, len(prices), INSERT_CHUNK_ROWS):
                frame = pd.DataFrame(
                    [
                        (fid, source, p.provider, p.sku, p.region, p.pricing_model, p.os,
                         p.currency, p.price_per_hour, p.gpu_name_raw, p.gpu_count,
                         p.gpu_memory_gb, p.vcpus, p.ram_gb, p.observed_at or observed_at,
                         p.offer_count, p.price_p10_per_hour, p.price_p90_per_hour)
                        for p in prices[start:start + INSERT_CHUNK_ROWS]
                    ],
                    columns=PRICE_COLUMNS,
                ).astype({"offer_count": "Int64"})
                con.register("_prices", frame)
                con.execute(
                    f"insert into price_observations ({', '.join(PRICE_COLUMNS)}) "
                    f"select {', '.join(PRICE_COLUMNS)} from _prices"
                )
                # a price without a date is no day's price: a file replayed without any
                # date (basis ingest_time) stays out of the daily rollup (price_history)
                if observed_at_basis != "ingest_time":
                    con.execute(_DAILY_UPSERT.format(relation="_prices"))
                con.unregister("_prices")
                del frame
            # bulk inserts through a registered frame (executemany is row by row: seconds
            # for a few thousand spec rows)
            if result.specs:
                _insert_frame(con, "spec_observations", SPEC_COLUMNS, [
                    (fid, source, s.accelerator_name_raw, s.metric, s.value, s.unit,
                     observed_at) for s in result.specs])
            if result.throughput:
                _insert_frame(con, "throughput_observations", THROUGHPUT_COLUMNS, [
                    (fid, source, t.round, t.division, t.submitter, t.system, t.benchmark,
                     t.accuracy_target, t.scenario, t.metric, t.value, t.valid,
                     t.ttft_limit_ms, t.tpot_limit_ms, t.ttft_mean_ms, t.tpot_mean_ms,
                     observed_at)
                    for t in result.throughput])
            if result.systems:
                _insert_frame(con, "system_descriptions", SYSTEM_COLUMNS, [
                    (fid, source, d.round, d.division, d.submitter, d.system, d.system_name,
                     d.accelerator_name_raw, d.accelerators_per_node, d.number_of_nodes,
                     d.availability, d.framework, observed_at) for d in result.systems])
            if result.training_runs:
                _insert_frame(con, "training_runs", TRAINING_RUN_COLUMNS, [
                    (fid, source, t.round, t.division, t.submitter, t.system, t.benchmark,
                     t.run, t.run_start, t.run_stop, t.status, t.samples, t.tokens,
                     t.tokens_basis, t.global_batch_size, t.seq_len, observed_at)
                    for t in result.training_runs])
            if result.training_scaling:
                _insert_frame(con, "training_scaling_factors", TRAINING_SCALING_COLUMNS, [
                    (fid, source, t.round, t.division, t.submitter, t.system, t.benchmark,
                     t.scaling_factor, observed_at) for t in result.training_scaling])
            if result.serving_points:
                _insert_frame(con, "serving_sweep_points", SERVING_POINT_COLUMNS, [
                    (fid, source, p.sweep, p.model, p.hardware_raw, p.gpus, p.framework,
                     p.precision, p.input_len, p.output_len, p.concurrency,
                     p.output_tokens_per_second, p.total_tokens_per_second,
                     p.output_tokens_per_second_per_gpu_stated, p.tokens_per_second_per_user,
                     p.interactivity_basis, p.mean_ttft_ms, p.median_ttft_ms, p.p99_ttft_ms,
                     p.mean_tpot_ms, p.median_tpot_ms, p.p99_tpot_ms, p.requests_completed,
                     observed_at) for p in result.serving_points])
            if rejects:  # load-time gates add their own rejects
                _insert_frame(con, "rejects", REJECT_COLUMNS, [
                    (fid, source, r.reason, r.detail[:RAW_ROW_MAX_CHARS],
                     r.raw_row[:RAW_ROW_MAX_CHARS], observed_at) for r in rejects])
            con.execute("commit")
        except BaseException as exc:
            try:
                con.execute("rollback")
            except duckdb.Error as rollback_error:  # e.g. disk full: keep the real error
                exc.add_note(f"(the rollback failed too: {rollback_error})")
            raise
        return LoadOutcome(fid, source, result.stream, status, n_rows, len(rejects),
                           error_type=error_type, error=error)

    def _refusal(self, con: duckdb.DuckDBPyConnection, source: str, result: ParseResult,
                 observed_at: datetime, mode: str, force: bool) -> SourceError | None:
        """Why a parsed payload is refused as a whole, or None.

        * Its observation date is in the future (beyond CLOCK_SKEW) or before FIRST_PLAUSIBLE:
          such a payload would hold its stream in force against every later fetch.
        * More rows than the payload row cap (payload_max_rows), even with `force`.
        * The collapse guard: far fewer rows than the latest good payload of the stream. A
          live fetch is always guarded; a replay (`gpucost ingest`) only when it would become
          the newest payload of its stream (an older file is history and displaces nothing),
          and not with `force` (the operator's explicit decision, `ingest --force`).
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
        last = self.last_good(con, source, result.stream)
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

    # -- plausibility gates and the daily rollup -----------------------------------------
    def gate(
        self, con: duckdb.DuckDBPyConnection, source: str, prices: list[PriceObservation],
        observed_at: datetime,
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
        kept, out_of_band = self.gates.band_rejects(dated)
        band_refused += out_of_band
        if not kept:  # every row out of band: nothing to compare with its previous price
            return kept, band_refused
        priors = self._prior_prices(con, source, kept, observed_at)
        kept, jump_refused = jump_rejects(source, kept, observed_at, priors)
        return kept, band_refused + jump_refused

    @staticmethod
    def _prior_prices(
        con: duckdb.DuckDBPyConnection, source: str, prices: list[PriceObservation],
        observed_at: datetime,
    ) -> dict[int, tuple[datetime, float]]:
        """{row index: (observed_at, price)} of the previous stored observation of each row,
        of any age (a x100 price after a long silence is still a jump).

        An ASOF join against the daily rollup of this source (one row per offer and day, not
        per observation).
        """
        frame = pd.DataFrame(
            [(i, source, p.provider.strip().lower(), p.sku, p.region, p.pricing_model,
              (p.os or "linux").lower(), p.observed_at or observed_at)
             for i, p in enumerate(prices)],
            columns=["idx", *_OFFER_KEY, "observed_at"],
        )
        same_key = " and ".join(f"batch.{c} = prior.{c}" for c in _OFFER_KEY)
        con.register("_batch_keys", frame)
        try:
            # only the batch's providers' days, and only the columns compared: the ASOF join
            # sorts what it is given (a whole SkyPilot history: every cloud's offers)
            rows = con.execute(
                "select batch.idx, prior.last_observed_at, prior.price_per_hour "
                "from _batch_keys as batch asof inner join "
                f"(select {', '.join(_OFFER_KEY)}, last_observed_at, price_per_hour "
                "from price_daily where price_daily.source = ? and price_daily.provider in "
                "(select distinct provider from _batch_keys)) as prior "
                f"on {same_key} and batch.observed_at > prior.last_observed_at",
                [source],
            ).fetchall()
        finally:
            con.unregister("_batch_keys")
        return {int(idx): (when, float(price)) for idx, when, price in rows}

    @staticmethod
    def _confirm_snapshot(
        con: duckdb.DuckDBPyConnection, source: str, sha256: str, fetch_id: int,
        observed_at: datetime,
    ) -> None:
        """An identical refetch of a snapshot: its prices were seen again at `observed_at`.

        The rows of the fetch that loaded these bytes are rolled into the day of the refetch.
        Payloads whose rows carry their own dates (a price history file) confirm nothing.
        """
        rows = con.execute(
            "select fetch_id, observed_at from fetches where source = ? and sha256 = ? "
            "and status in ('ok', 'replayed') and rows_loaded > 0 "
            "order by fetch_id desc limit 1",
            [source, sha256],
        ).fetchall()
        if not rows:
            return
        loaded_id, loaded_at = rows[0]
        relation = (
            f"(select * replace (cast({int(fetch_id)} as bigint) as fetch_id,"
            f" cast(? as timestamptz) as observed_at)"
            f" from price_observations where fetch_id = {int(loaded_id)}"
            f" and not exists (select 1 from price_observations as dated"
            f"  where dated.fetch_id = {int(loaded_id)} and dated.observed_at <> ?))"
        )
        con.execute(_DAILY_UPSERT.format(relation=relation), [observed_at, loaded_at])
