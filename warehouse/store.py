"""The raw layer: payloads saved verbatim (content-addressed), then observations appended.

Single writer: only the refresh / ingest process opens raw.duckdb read-write, and it closes it
before the models are built. Loading is idempotent by content hash: a payload whose sha256
this source has already loaded adds no rows (status `unchanged`).

Before rows are written, a payload may be refused as a whole and single rows refused into
raw.rejects (warehouse/refusals.py: the observation date, the payload row cap, the collapse
guard, and the plausibility gates of warehouse/gates.py: price outside the accelerator's
sane band, a jump of more than 5x against the previous observation of the same offer).
Every load also upserts its rows into the daily rollup `price_daily` (warehouse/daily.py),
which the history marts read instead of rescanning all observations; an 'unchanged'
refetch of a snapshot confirms its prices for the day of the refetch. The tables and the
columns written to them are warehouse/raw_schema.py.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import duckdb
import pandas as pd

from gpucost.catalog.records import AllRowsRefusedError, ParseResult, Payload
from gpucost.catalog.secrets import redact
from gpucost.warehouse import memory_limit
from gpucost.warehouse.daily import DAILY_UPSERT, backfill_daily, confirm_snapshot
from gpucost.warehouse.gates import Gates
from gpucost.warehouse.raw_schema import (
    FX_COLUMNS,
    PRICE_COLUMNS,
    RAW_ROW_MAX_CHARS,
    REJECT_COLUMNS,
    SCHEMA_SQL,
    SERVING_POINT_COLUMNS,
    SPEC_COLUMNS,
    SYSTEM_COLUMNS,
    THROUGHPUT_COLUMNS,
    TRAINING_RUN_COLUMNS,
    TRAINING_SCALING_COLUMNS,
)
from gpucost.warehouse.refusals import gate, payload_refusal, plausible

# prices go to DuckDB in frames of this many rows (a frame of 1,000,000 Python tuples is
# about 600 MB on top of the parsed payload)
INSERT_CHUNK_ROWS = 50_000
_SAFE = str.maketrans({c: "_" for c in "/\\:*?\"<>| "})


def _insert_frame(con: duckdb.DuckDBPyConnection, table: str, columns: list[str],
                  rows: list[tuple[object, ...]]) -> None:
    frame = pd.DataFrame(rows, columns=columns)
    con.register("_rows", frame)
    try:
        con.execute(f"insert into {table} ({', '.join(columns)}) "
                    f"select {', '.join(columns)} from _rows")
    finally:
        con.unregister("_rows")


def _insert_new_rates(con: duckdb.DuckDBPyConnection, fetch_id: int, source: str,
                      result: ParseResult, observed_at: datetime) -> int:
    """Append the exchange rates this source's stream has not stored yet (the same currency,
    day and rate): the ECB's history file restates every day since 1999, so a refetch writes
    its new days alone (a revised rate is a new row; int_fx_rates takes the newest fetch's).
    Returns the rates written (the fetch's rows_loaded counts every rate the payload states,
    which the row-count guard compares)."""
    frame = pd.DataFrame([(fetch_id, source, r.currency, r.rate_per_eur, r.rate_date,
                           observed_at) for r in result.fx_rates], columns=FX_COLUMNS)
    con.register("_rates", frame)
    try:
        before = con.execute("select count(*) from fx_observations").fetchall()[0][0]
        con.execute(
            f"insert into fx_observations ({', '.join(FX_COLUMNS)}) "
            f"select {', '.join('_rates.' + c for c in FX_COLUMNS)} from _rates "
            "anti join (select stored.currency, stored.rate_date, stored.rate_per_eur "
            "           from fx_observations as stored "
            "           inner join fetches on fetches.fetch_id = stored.fetch_id "
            "           where fetches.source = ? and fetches.stream = ?) as known "
            "    on known.currency = _rates.currency and known.rate_date = _rates.rate_date "
            "    and known.rate_per_eur = _rates.rate_per_eur",
            [source, result.stream])
        after = con.execute("select count(*) from fx_observations").fetchall()[0][0]
    finally:
        con.unregister("_rates")
    return int(after - before)


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


class RawStoreCorruptError(RawStoreUnreadableError):
    """A block of raw.duckdb fails DuckDB's checksum: named with its table."""


RAW_RECOVERY = ("The published warehouse stays as it is. Restore raw.duckdb from a backup, "
                "or move it aside and re-ingest the verbatim payloads kept under raw/ "
                "(docs/operations.md, \"Recovering the raw layer\")")


# raw.duckdb up to this size is read whole before a refresh or an ingest uses it; a larger one
# (the 100M-row benchmark's is 3.2 GB: seconds to read) has the tail of each table read, the
# row groups a load appends to and its checkpoint rewrites (DuckDB: 122,880 rows a group)
RAW_FULL_CHECK_MAX_BYTES = 256 << 20
TAIL_ROWS = 2 * 122_880


def corrupt_tables(con: duckdb.DuckDBPyConnection, whole: bool = True) -> list[str]:
    """The tables of the connection's database with a block that fails DuckDB's checksum:
    every column of every row is read (bit_xor(hash(row))), so every data block of the table
    is loaded and its checksum verified (raw.duckdb fully loaded with the recorded data,
    9.7 MB: about 12 ms). `whole=False`: only the last TAIL_ROWS rows of each table (a rowid
    filter prunes the other row groups). DuckDB's checksum catches any single flipped bit; the
    published file is checked by its sha256 instead (warehouse/publish.py, base_problem)."""
    from gpucost.warehouse.publish import is_corruption

    bad = []
    for schema, table in con.execute(
            "select schema_name, table_name from duckdb_tables() "
            "where database_name = current_database() order by all").fetchall():
        name = f'"{schema}"."{table}"'
        try:
            where = ""
            if not whole:
                rows = con.execute(f"select count(*) from {name}").fetchone()[0]
                where = f" where rowid >= {max(0, rows - TAIL_ROWS)}"
            con.execute(f"select bit_xor(hash(t)) from {name} as t{where}").fetchall()
        except duckdb.Error as exc:
            if not is_corruption(exc):
                raise
            bad.append(table)
    return bad


def _raw_corrupt(path: Path, tables: list[str], exc: BaseException | None = None,
                 before: bool = False) -> RawStoreCorruptError:
    what = (f"table{'s' if len(tables) > 1 else ''} {', '.join(tables)}" if tables
            else "a block")
    detail = f" ({' '.join(str(exc).split())[:120]})" if exc is not None and not tables else ""
    return RawStoreCorruptError(
        f"{path} is corrupted: {what} fail{'s' if len(tables) <= 1 else ''} DuckDB's block "
        f"checksum{detail}. {'Nothing was fetched or changed. ' if before else ''}"
        f"{RAW_RECOVERY}")


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
            backfill_daily(con)
            yield con
            con.execute("checkpoint")
        except duckdb.Error as exc:
            # a corrupted block met while loading or checkpointing (DuckDB: "FATAL Error:
            # Failed to create checkpoint ... Corrupt database file"): named, with the way out
            from gpucost.warehouse.publish import is_corruption

            if not is_corruption(exc):
                raise
            try:  # DuckDB invalidated this instance: closed before the tables are read again
                con.close()
            except duckdb.Error:
                pass
            raise self._corrupt_error(exc) from None
        finally:
            try:
                con.close()
            except duckdb.Error:
                pass

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
        raw.duckdb exists but cannot be opened, RawStoreCorruptError when a block of one of
        its tables fails DuckDB's checksum (corrupt_tables: every block read, ~12 ms, up to
        RAW_FULL_CHECK_MAX_BYTES; the tail of each table past it)."""
        if not self.db_path.exists():
            return
        whole = self.db_path.stat().st_size <= RAW_FULL_CHECK_MAX_BYTES
        con = self._open()
        try:
            bad = corrupt_tables(con, whole=whole)
        finally:
            con.close()
        if bad:
            raise _raw_corrupt(self.db_path, bad, before=True)

    def _corrupt_error(self, exc: BaseException) -> RawStoreCorruptError:
        """The named error of a corruption met during a load or its checkpoint: its tables
        found by a read-only scan in a fresh instance when DuckDB allows one."""
        tables: list[str] = []
        try:
            with duckdb.connect(str(self.db_path), read_only=True) as ro:
                tables = corrupt_tables(ro)
        except duckdb.Error:
            pass
        return _raw_corrupt(self.db_path, tables, exc)

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
        observed_at_precision: str | None = None,
    ) -> LoadOutcome:
        """Append one parsed payload, idempotently, behind the date check, the row-count
        guard and the plausibility gates (see the module docstring). observed_at_precision:
        'month' for an approximate date (observed_at its month's first instant), else 'day'
        for a dated payload and null for one replayed without any date (basis ingest_time)."""
        if observed_at_precision is None and observed_at_basis != "ingest_time":
            observed_at_precision = "day"
        common = dict(
            run_id=run_id, source=source, stream=result.stream, mode=mode,
            url=redact(payload.url), payload_name=payload.name, started_at=started_at,
            finished_at=finished_at, observed_at=observed_at,
            http_status=payload.http_status, bytes=saved.size, sha256=saved.sha256,
            payload_path=saved.relpath, observed_at_basis=observed_at_basis,
            observed_at_precision=observed_at_precision,
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
                confirm_snapshot(con, source, saved.sha256, fid, observed_at)
            return LoadOutcome(fid, source, result.stream, "unchanged")

        refusal = payload_refusal(con, source, result, observed_at, mode, force)
        if refusal is not None:
            return self.record_failure(
                con, run_id=run_id, source=source, mode=mode, started_at=started_at,
                finished_at=finished_at, error=refusal, url=payload.url,
                payload_name=payload.name, saved=saved, stream=result.stream,
                observed_at=observed_at if plausible(observed_at) else None,
                http_status=payload.http_status,
            )

        prices, gated = gate(con, self.gates, source, result.prices, observed_at)
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
                         p.offer_count, p.price_p10_per_hour, p.price_p90_per_hour,
                         p.price_kind, p.payment, p.available)
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
                    con.execute(DAILY_UPSERT.format(relation="_prices"))
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
            if result.fx_rates:
                _insert_new_rates(con, fid, source, result, observed_at)
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
