"""The raw layer: payloads saved verbatim (content-addressed), then observations appended.

Single writer: only the refresh / ingest process opens raw.duckdb read-write, and it closes it
before the models are built. Loading is idempotent by content hash: a payload whose sha256
this source has already loaded adds no rows (status `unchanged`).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb
import pandas as pd

from catalog.records import (
    ParseResult,
    Payload,
    RowCountCollapseError,
)
from catalog.secrets import redact
from warehouse import WAREHOUSE_DIR

SCHEMA_SQL = (WAREHOUSE_DIR / "schema.sql").read_text(encoding="utf-8")
RAW_ROW_MAX_CHARS = 2000
# a payload that parses to fewer than this share of the last good one of its stream is refused
COLLAPSE_RATIO = 0.5
_SAFE = str.maketrans({c: "_" for c in "/\\:*?\"<>| "})

PRICE_COLUMNS = [
    "fetch_id", "source", "provider", "sku", "region", "pricing_model", "os", "currency",
    "price_per_hour", "gpu_name_raw", "gpu_count", "gpu_memory_gb", "vcpus", "ram_gb",
    "observed_at",
]

SPEC_COLUMNS = [
    "fetch_id", "source", "accelerator_name_raw", "metric", "value", "unit", "observed_at",
]
REJECT_COLUMNS = ["fetch_id", "source", "reason", "detail", "raw_row", "observed_at"]


def _insert_frame(con: duckdb.DuckDBPyConnection, table: str, columns: list[str],
                  rows: list[tuple[object, ...]]) -> None:
    frame = pd.DataFrame(rows, columns=columns)
    con.register("_rows", frame)
    try:
        con.execute(f"insert into {table} ({', '.join(columns)}) "
                    f"select {', '.join(columns)} from _rows")
    finally:
        con.unregister("_rows")


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


class RawStore:
    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.db_path = self.data_dir / "raw.duckdb"
        self.payload_dir = self.data_dir / "raw"

    # -- payload files -------------------------------------------------------------------
    def save_payload(self, source: str, payload: Payload, when: datetime) -> SavedPayload:
        """Write the bytes verbatim to raw/<source>/<yyyy-mm-dd>/<sha256>.<ext> (atomic)."""
        sha = hashlib.sha256(payload.content).hexdigest()
        ext = (payload.ext or "bin").lstrip(".").translate(_SAFE)[:10] or "bin"
        rel = Path("raw") / source.translate(_SAFE) / when.strftime("%Y-%m-%d") / f"{sha}.{ext}"
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
        con = duckdb.connect(str(self.db_path))
        try:
            con.execute(SCHEMA_SQL)
            yield con
            con.execute("checkpoint")
        finally:
            con.close()

    @staticmethod
    def already_loaded(con: duckdb.DuckDBPyConnection, source: str, sha256: str) -> bool:
        row = con.execute(
            "select 1 from fetches where source = ? and sha256 = ? "
            "and status in ('ok', 'replayed') limit 1",
            [source, sha256],
        ).fetchone()
        return row is not None

    @staticmethod
    def last_good_rows(con: duckdb.DuckDBPyConnection, source: str, stream: str) -> int | None:
        row = con.execute(
            "select rows_loaded from fetches where source = ? and stream = ? "
            "and status in ('ok', 'replayed') and rows_loaded > 0 "
            "order by observed_at desc, fetch_id desc limit 1",
            [source, stream],
        ).fetchone()
        return None if row is None else int(row[0])

    @staticmethod
    def _insert_fetch(con: duckdb.DuckDBPyConnection, **cols: object) -> int:
        names = ", ".join(cols)
        marks = ", ".join("?" for _ in cols)
        return int(
            con.execute(
                f"insert into fetches ({names}) values ({marks}) returning fetch_id",
                list(cols.values()),
            ).fetchone()[0]
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
    ) -> LoadOutcome:
        """Append one parsed payload, idempotently, behind the row-count guard."""
        common = dict(
            run_id=run_id, source=source, stream=result.stream, mode=mode,
            url=redact(payload.url), payload_name=payload.name, started_at=started_at,
            finished_at=finished_at, observed_at=observed_at,
            http_status=payload.http_status, bytes=saved.size, sha256=saved.sha256,
            payload_path=saved.relpath,
        )
        if self.already_loaded(con, source, saved.sha256):
            fid = self._insert_fetch(con, status="unchanged", **common)
            return LoadOutcome(fid, source, result.stream, "unchanged")

        n_rows = len(result.prices) + len(result.specs)
        # The collapse guard protects scheduled fetches from a silently broken page or feed;
        # an explicit replay (`gpucost ingest`) is the operator's decision and is not gated
        # (recorded history may hold a smaller page, e.g. one pricing tab). Empty payloads
        # are refused in both modes, by the parsers (EmptyPayloadError).
        previous = self.last_good_rows(con, source, result.stream) if mode == "live" else None
        if previous and n_rows < COLLAPSE_RATIO * previous:
            err = RowCountCollapseError(
                f"{source}/{result.stream}: {n_rows} rows against {previous} in the last good "
                f"payload (< {COLLAPSE_RATIO:.0%}); refused, the last good data stays in force"
            )
            return self.record_failure(
                con, run_id=run_id, source=source, mode=mode, started_at=started_at,
                finished_at=finished_at, error=err, url=payload.url,
                payload_name=payload.name, saved=saved, stream=result.stream,
                observed_at=observed_at, http_status=payload.http_status,
            )

        status = "ok" if mode == "live" else "replayed"
        con.execute("begin transaction")
        try:
            fid = self._insert_fetch(
                con, status=status, rows_loaded=n_rows, rows_rejected=len(result.rejects),
                **common,
            )
            if result.prices:
                frame = pd.DataFrame(
                    [
                        (fid, source, p.provider, p.sku, p.region, p.pricing_model, p.os,
                         p.currency, p.price_per_hour, p.gpu_name_raw, p.gpu_count,
                         p.gpu_memory_gb, p.vcpus, p.ram_gb, observed_at)
                        for p in result.prices
                    ],
                    columns=PRICE_COLUMNS,
                )
                con.register("_prices", frame)
                con.execute(
                    f"insert into price_observations ({', '.join(PRICE_COLUMNS)}) "
                    f"select {', '.join(PRICE_COLUMNS)} from _prices"
                )
                con.unregister("_prices")
            # bulk inserts through a registered frame (executemany is row by row: seconds
            # for a few thousand spec rows)
            if result.specs:
                _insert_frame(con, "spec_observations", SPEC_COLUMNS, [
                    (fid, source, s.accelerator_name_raw, s.metric, s.value, s.unit,
                     observed_at) for s in result.specs])
            if result.rejects:
                _insert_frame(con, "rejects", REJECT_COLUMNS, [
                    (fid, source, r.reason, r.detail[:RAW_ROW_MAX_CHARS],
                     r.raw_row[:RAW_ROW_MAX_CHARS], observed_at) for r in result.rejects])
            con.execute("commit")
        except BaseException:
            con.execute("rollback")
            raise
        return LoadOutcome(fid, source, result.stream, status, n_rows, len(result.rejects))
