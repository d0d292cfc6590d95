"""The shared raw layer of cluster mode: fetches and price observations as Apache Iceberg tables
that many fetchers append to at once.

The local raw layer (warehouse/store.py) has one writer and a DuckDB sequence for fetch ids.
In cluster mode many fetcher processes on many machines write the same raw layer, so:

- The tables are Iceberg tables (pyiceberg), their catalog a SQL catalog on the cluster's
  PostgreSQL and their data files in the raw bucket on S3. A commit is a compare-and-swap of
  the table's metadata location in Postgres: two writers never overwrite each other, the
  loser gets CommitFailedException and retries on top of the winner's snapshot.
- `fetch_id` is a UUIDv7 made by the writer (48-bit unix milliseconds, then random bits):
  unique without a central sequence, and time-ordered, so sorting by it sorts by creation.
- A fetch is appended in two commits: its price rows first, then its row in `raw.fetches`,
  the marker. Readers see the rows of marked fetches only: rows without a marker belong to a
  writer still in flight or one that died between the two commits, and are invisible.
  Readers read the markers before the rows, so a marker they see always has its rows.
- A commit is never lost and never doubled. Conflicts are retried by pyiceberg (table
  properties commit.retry.*: reload, rebuild the manifest list on the winner's snapshot,
  exponential backoff with jitter); its own retries reuse the data files already written.
  Every append carries its fetch_id and part in the snapshot summary (`gpucost.fetch-id`,
  `gpucost.part`), so when a commit's outcome is unknown (the connection dropped after the
  UPDATE was sent) the table is reloaded and the append is repeated only if no snapshot
  carries that fetch_id and part. The same check makes `append_fetch` with an explicit
  fetch_id idempotent: a caller retrying a whole fetch after an error adds nothing twice.
- Both tables are partitioned by month (observations by observed_at, fetches by
  fetched_at), so reading a month plans only that month's data files.

Every append is its own snapshot and its own (small) data file, and every snapshot stays in
the table metadata: the idempotency check reads the snapshots' summaries, and expiring
snapshots or compacting files (not done here) shortens the window in which a repeated
fetch_id is recognised to the snapshots kept.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import secrets as _random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    BooleanExpression,
    EqualTo,
    GreaterThanOrEqual,
    LessThan,
    Or,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import Table, TableProperties
from pyiceberg.transforms import MonthTransform
from pyiceberg.types import (
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)
from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError

from gpucost.catalog.secrets import redact
from gpucost.cluster.settings import ClusterSettings, remember
from gpucost.warehouse.raw_schema import PRICE_COLUMNS

CATALOG_NAME = "gpucost"
NAMESPACE = "raw"
FETCHES = "fetches"
OBSERVATIONS = "price_observations"
# snapshot summary keys that name what an append carried (the idempotency check)
SUMMARY_FETCH_ID = "gpucost.fetch-id"
SUMMARY_PART = "gpucost.part"
PART_OBSERVATIONS = "observations"
PART_MARKER = "marker"
FETCH_STATUSES = ("ok", "failed")

# pyiceberg retries a conflicting commit itself (reload, rebuild the manifest list on the
# winner's snapshot, exponential backoff from 100 ms with 10% jitter) with these table
# properties. Measured on a loopback cluster (2 cores): a commit alone takes ~45 ms; with 4
# writers appending at once about one commit attempt in three loses its race, the median
# append takes ~90 ms and the unluckiest a few seconds, so 10 retries of at most 1 s each
# are plenty (a shorter first wait made more conflicts, not fewer). Old metadata files are
# deleted after commit: each commit writes a new metadata JSON holding every snapshot, and
# they add up quadratically.
TABLE_PROPERTIES = {
    TableProperties.COMMIT_NUM_RETRIES: "10",
    TableProperties.COMMIT_MIN_RETRY_WAIT_MS: "100",
    TableProperties.COMMIT_MAX_RETRY_WAIT_MS: "1000",
    TableProperties.COMMIT_TOTAL_RETRY_TIME_MS: "30000",
    TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED: "true",
    TableProperties.METADATA_PREVIOUS_VERSIONS_MAX: "50",
}
# our own retries, around pyiceberg's: an unknown outcome or an unreachable server
COMMIT_ATTEMPTS = 10
COMMIT_BUDGET_S = 30.0
BACKOFF_FIRST_S = 0.05
BACKOFF_MAX_S = 2.0
# Every append adds a snapshot to the table metadata, and pyiceberg deep-copies the whole
# metadata many times per commit (~20 copies): at 60 snapshots a commit already spends
# ~150 ms of CPU there, growing linearly. Writers therefore expire the oldest snapshots
# (metadata entries only: with fast appends the current snapshot still lists every data
# file) once a table holds twice KEEP_SNAPSHOTS; only snapshots older than
# EXPIRE_MIN_AGE go, far longer than a commit's retry budget, so a retry after an unknown
# outcome always still finds its own snapshot.
KEEP_SNAPSHOTS = 100
EXPIRE_MIN_AGE = timedelta(minutes=10)

def _schema(columns: Sequence[tuple[str, Any, bool]]) -> Schema:
    """An Iceberg schema of (name, type, required) columns, field ids 1, 2, ..."""
    return Schema(*(NestedField(field_id=i, name=name, field_type=kind, required=required)
                    for i, (name, kind, required) in enumerate(columns, start=1)))


FETCH_SCHEMA = _schema([
    ("fetch_id", StringType(), True),
    ("run_id", StringType(), False),
    ("worker", StringType(), False),  # host:pid of the writer
    ("source", StringType(), True),
    ("stream", StringType(), False),
    ("status", StringType(), True),  # ok | failed
    ("sha256", StringType(), False),
    ("payload_keys", StringType(), False),  # object keys of the saved payload, ';'-joined
    ("payload_bytes", LongType(), False),
    ("observed_at", TimestamptzType(), False),
    ("fetched_at", TimestamptzType(), True),
    ("rows", LongType(), False),
    ("error_type", StringType(), False),
    ("error", StringType(), False),
])
# the columns of warehouse/store.py PRICE_COLUMNS, typed and not-null as in schema.sql
PRICE_SCHEMA = _schema([
    ("fetch_id", StringType(), True),
    ("source", StringType(), True),
    ("provider", StringType(), True),
    ("sku", StringType(), True),
    ("region", StringType(), True),
    ("pricing_model", StringType(), True),
    ("os", StringType(), False),
    ("currency", StringType(), True),
    ("price_per_hour", DoubleType(), False),
    ("gpu_name_raw", StringType(), False),
    ("gpu_count", DoubleType(), False),
    ("gpu_memory_gb", DoubleType(), False),
    ("vcpus", DoubleType(), False),
    ("ram_gb", DoubleType(), False),
    ("observed_at", TimestamptzType(), True),
    ("offer_count", IntegerType(), False),
    ("price_p10_per_hour", DoubleType(), False),
    ("price_p90_per_hour", DoubleType(), False),
])
if [f.name for f in PRICE_SCHEMA.fields] != PRICE_COLUMNS:
    raise ImportError("warehouse/store.py PRICE_COLUMNS changed: update PRICE_SCHEMA")


def _month_spec(schema: Schema, column: str) -> PartitionSpec:
    return PartitionSpec(PartitionField(
        source_id=schema.find_field(column).field_id, field_id=1000,
        transform=MonthTransform(), name=f"{column}_month"))


FETCH_SPEC = _month_spec(FETCH_SCHEMA, "fetched_at")
PRICE_SPEC = _month_spec(PRICE_SCHEMA, "observed_at")
FETCH_ARROW = FETCH_SCHEMA.as_arrow()
PRICE_ARROW = PRICE_SCHEMA.as_arrow()


class SharedRawError(Exception):
    """Base of the shared raw layer's named errors."""


class SharedRawUnavailableError(SharedRawError):
    """PostgreSQL (the Iceberg catalog) or S3 (the data files) did not answer, or failed,
    within the settings' timeout, and kept failing for the commit budget."""


class SharedRawPermissionError(SharedRawError):
    """S3 refused the key: a reader key cannot write to the raw bucket, and a wrong key
    cannot read it. Not retried: waiting does not change a key's rights."""


class SharedRawCommitError(SharedRawError):
    """A commit kept conflicting with other writers for the whole commit budget. Nothing of
    the failed part is visible (a price append without its marker is invisible), so the
    caller may repeat `append_fetch` with the same fetch_id."""


class InvalidFetchError(SharedRawError, ValueError):
    """A fetch row or a price row that the tables cannot hold (an unknown column, a missing
    required value, an unknown status)."""


# ---------------------------------------------------------------------------------- UUIDv7

_uuid_lock = threading.Lock()
_uuid_state = {"ms": -1, "counter": 0, "pid": -1}
# RFC 9562 section 6.2 method 1: rand_a (12 bits) and the top 30 bits of rand_b form a
# 42-bit counter, seeded at random in each new millisecond with its top bit clear (room to
# count up), so ids made within one millisecond by one process stay ordered; the low 32 bits
# stay random, so two processes (or machines) in the same millisecond still differ.
_COUNTER_BITS = 42


def uuid7() -> str:
    """A time-ordered UUID version 7 (RFC 9562) as text: 48-bit unix milliseconds, version
    7, a 42-bit per-millisecond counter seeded at random, variant 10, 32 random bits.

    Within a process every id sorts after the previous one, also when the clock steps back or
    more ids than the counter holds are made in one millisecond (the millisecond is then
    borrowed from the future, as RFC 9562 allows). Across processes ids are unique by their
    74 random bits and ordered to the millisecond."""
    with _uuid_lock:
        now_ms = time.time_ns() // 1_000_000
        state = _uuid_state
        if state["pid"] != os.getpid():  # a forked child must not continue its parent's run
            state.update(ms=-1, counter=0, pid=os.getpid())
        if now_ms > state["ms"]:
            state["ms"] = now_ms
            state["counter"] = _random.randbits(_COUNTER_BITS - 1)
        else:
            state["counter"] += 1
            if state["counter"] >> _COUNTER_BITS:
                state["ms"] += 1
                state["counter"] = _random.randbits(_COUNTER_BITS - 1)
        ms, counter = state["ms"], state["counter"]
    rand_a = counter >> 30
    rand_b = ((counter & ((1 << 30) - 1)) << 32) | _random.randbits(32)
    value = ((ms & ((1 << 48) - 1)) << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def uuid7_time(value: str) -> datetime:
    """When a UUIDv7 was made (its millisecond), e.g. to see how old an unmarked fetch is."""
    return datetime.fromtimestamp((uuid.UUID(value).int >> 80) / 1000, tz=UTC)


# ---------------------------------------------------------------------------------- months


def month_bounds(month: str) -> tuple[datetime, datetime]:
    """[start, end) of a 'YYYY-MM' month in UTC."""
    try:
        start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        raise ValueError(f"month must be 'YYYY-MM', not {month!r}") from None
    end = start.replace(year=start.year + (start.month == 12), month=start.month % 12 + 1)
    return start, end


def month_filter(column: str, months: Iterable[str] | None) -> BooleanExpression:
    """A row filter for `column` inside any of `months`: a plain range per month, which
    pyiceberg projects onto the month partitions and uses to skip manifests and data files
    of other months (the partition transform itself cannot be named in a row filter)."""
    if months is None:
        return AlwaysTrue()
    ranges: list[BooleanExpression] = []
    for month in sorted(set(months)):
        start, end = month_bounds(month)
        ranges.append(And(GreaterThanOrEqual(column, start.isoformat()),
                          LessThan(column, end.isoformat())))
    if not ranges:
        raise ValueError("months is empty: pass None for all months")
    return ranges[0] if len(ranges) == 1 else Or(*ranges)


# ------------------------------------------------------------------------------ the catalog


@dataclass
class CommitStats:
    """What this process's commits cost: catalog commit attempts (one per CAS in Postgres),
    how many of them lost a race, how many had an unknown outcome, and the seconds of each
    successful append (writing the data file, manifests, metadata and the CAS)."""

    attempts: int = 0
    conflicts: int = 0
    unknown_outcomes: int = 0
    append_seconds: list[float] = field(default_factory=list)
    # one SharedRaw may serve several threads (a fetcher appends sources in parallel)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def count(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"attempts": self.attempts, "conflicts": self.conflicts,
                    "unknown_outcomes": self.unknown_outcomes,
                    "append_seconds": list(self.append_seconds)}


class _CountingSqlCatalog(SqlCatalog):
    """SqlCatalog that counts commit attempts and conflicts: pyiceberg retries conflicts
    inside Transaction.commit_transaction, out of sight, and every attempt passes here."""

    stats: CommitStats

    def commit_table(self, table: Any, requirements: Any, updates: Any) -> Any:
        self.stats.count("attempts")
        try:
            return super().commit_table(table, requirements, updates)
        except CommitFailedException:
            self.stats.count("conflicts")
            raise


def _with_connect_timeout(url: str, timeout_s: float) -> str:
    """`url` with libpq's connect_timeout (whole seconds, at least 2: libpq's minimum), so an
    unreachable Postgres fails in the settings' timeout, not the OS's two minutes."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("connect_timeout", str(max(2, math.ceil(timeout_s))))
    return urlunsplit(parts._replace(query="&".join(f"{k}={v}" for k, v in query.items())))


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return redact(f"{type(exc).__name__}: {text[:300]}")


_DENIED = ("ACCESS_DENIED", "Access Denied", "AccessDenied", "InvalidAccessKeyId",
           "SignatureDoesNotMatch", "Forbidden", "HTTP status 403")


def _is_denied(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and any(mark in str(exc) for mark in _DENIED)


def _transient(exc: BaseException) -> bool:
    """Whether waiting may help: the database or S3 unreachable or failing (not a refused
    key, not a programming error)."""
    if _is_denied(exc):
        return False
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or not isinstance(exc, ProgrammingError | IntegrityError)
    return isinstance(exc, OSError)


T = TypeVar("T")


class SharedRaw:
    """The shared raw layer of one cluster, as one process sees it.

    `writer=False` opens the tables with the S3 reader key: reads work, appends are refused
    by S3 (SharedRawPermissionError), which is the point of giving readers that key. Both
    need the Postgres URL: the catalog lives there.
    """

    def __init__(self, settings: ClusterSettings, *, writer: bool = True,
                 namespace: str = NAMESPACE):
        settings.require("s3_endpoint", "postgres_url", "raw_bucket")
        remember(settings)
        self.settings = settings
        self.writer = writer
        # another namespace holds another, separate pair of tables (the tests use fresh ones)
        self.namespace = namespace
        self.stats = CommitStats()
        self._tables_ensured = False
        timeout = str(settings.timeout_s)
        properties = {
            "uri": _with_connect_timeout(settings.postgres_url, settings.timeout_s),
            "warehouse": f"s3://{settings.raw_bucket}/iceberg",
            **settings.s3_storage_options(writer=writer),
            # pyarrow's S3 client: give up on a hanging server after the settings' timeout
            "s3.connect-timeout": timeout,
            "s3.request-timeout": timeout,
            # path-style requests (http://host:port/bucket/key): SeaweedFS and MinIO on an IP
            "s3.force-virtual-addressing": "false",
            # the catalog's connection pool checks a connection before lending it out, so a
            # restarted Postgres costs one reconnect, not one failed commit
            "pool_pre_ping": "true",
        }
        self.catalog = self._open_catalog(properties)
        self.catalog.stats = self.stats

    def _open_catalog(self, properties: dict[str, str]) -> _CountingSqlCatalog:
        # SqlCatalog creates its own two tables in Postgres on first use, with a check-then-
        # create that races when several processes start at once: the loser's CREATE fails
        # (duplicate pg_type row), and trying again finds the tables there.
        for attempt in range(3):
            try:
                return _CountingSqlCatalog(CATALOG_NAME, **properties)
            except (IntegrityError, ProgrammingError) as exc:
                if attempt == 2:
                    raise SharedRawError(
                        f"creating the Iceberg catalog's tables in PostgreSQL failed: "
                        f"{_one_line(exc)}") from None
                time.sleep(0.1 * (attempt + 1))
            except DBAPIError as exc:  # refused, timed out, wrong password, no database
                raise SharedRawUnavailableError(
                    f"the Iceberg catalog in PostgreSQL is unavailable: {_one_line(exc)}"
                ) from None
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close the catalog's database connections."""
        self.catalog.engine.dispose()

    def __enter__(self) -> SharedRaw:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------------------- plumbing

    def _call(self, what: str, func: Callable[[], T]) -> T:
        """Run a catalog / S3 operation, turning failures into the named errors."""
        try:
            return func()
        except SharedRawError:
            raise
        except Exception as exc:
            raise self._named(what, exc) from None

    def _named(self, what: str, exc: BaseException) -> SharedRawError:
        if _is_denied(exc):
            key = "writer" if self.writer else "reader"
            return SharedRawPermissionError(
                f"{what}: S3 refused the {key} key on bucket {self.settings.raw_bucket}: "
                f"{_one_line(exc)}")
        if isinstance(exc, DBAPIError):
            return SharedRawUnavailableError(
                f"{what}: the Iceberg catalog in PostgreSQL failed: {_one_line(exc)}")
        if isinstance(exc, OSError):
            return SharedRawUnavailableError(
                f"{what}: S3 at {self.settings.s3_endpoint} failed: {_one_line(exc)}")
        if isinstance(exc, CommitFailedException):
            return SharedRawCommitError(f"{what}: {_one_line(exc)}")
        return SharedRawError(f"{what}: {_one_line(exc)}")

    def table(self, name: str) -> Table:
        """The current version of <namespace>.<name> (SharedRawError when not created yet):
        for looking at snapshots and planned files."""
        return self._call(f"load {self.namespace}.{name}",
                          lambda: self.catalog.load_table((self.namespace, name)))

    def _table_or_none(self, name: str) -> Table | None:
        """<namespace>.<name>, or None before the first writer created it (readers then
        see no rows rather than an error)."""
        def load() -> Table | None:
            try:
                return self.catalog.load_table((self.namespace, name))
            except (NoSuchTableError, NoSuchNamespaceError):
                return None

        return self._call(f"load {self.namespace}.{name}", load)

    # ---------------------------------------------------------------------------- tables

    def ensure_tables(self) -> None:
        """Create the namespace (`raw`) and its two tables when missing. Safe to call from
        many processes at once: whoever loses a creation race finds the winner's table.
        append_fetch calls it once per SharedRaw (a writer needs no setup step).

        Existing tables are looked up, not re-created: pyiceberg's create_table writes the
        new table's metadata file to S3 before it finds the name taken, which would leave
        an orphan file per call and fail with a reader key. A reader creates nothing (it
        reads missing tables as empty)."""
        if self._tables_ensured:
            return
        tables = ((OBSERVATIONS, PRICE_SCHEMA, PRICE_SPEC), (FETCHES, FETCH_SCHEMA, FETCH_SPEC))

        def create() -> None:
            missing = [t for t in tables if not self.catalog.table_exists((self.namespace, t[0]))]
            if not missing or not self.writer:
                return
            try:
                self.catalog.create_namespace(self.namespace)
            except (NamespaceAlreadyExistsError, IntegrityError):
                # IntegrityError: the namespace row was inserted between pyiceberg's
                # existence check and its insert
                pass
            for name, schema, spec in missing:
                try:
                    self.catalog.create_table((self.namespace, name), schema=schema,
                                              partition_spec=spec,
                                              properties=TABLE_PROPERTIES)
                except TableAlreadyExistsError:
                    pass

        self._call("create the shared raw tables", create)
        self._tables_ensured = True

    # ---------------------------------------------------------------------------- writes

    def append_fetch(self, fetch: dict[str, Any],
                     prices: pa.Table | Sequence[dict[str, Any]] | Sequence[Any] | None = None,
                     ) -> str:
        """Append one fetch: its price rows (if any) in one commit, then its row in
        raw.fetches, the marker that makes the rows visible, in a second one. Returns the
        fetch_id (made here as a UUIDv7 unless `fetch` has one).

        `fetch` holds columns of raw.fetches; `source` is required, `status` defaults to
        'ok', `fetched_at` to now, `worker` to host:pid, `rows` to the number of prices.
        `prices` are dicts with PRICE_COLUMNS, PriceObservation records or an Arrow table;
        `fetch_id` and `source` come from the fetch, a missing `observed_at` from the
        fetch's observed_at. A failed fetch carries no prices.

        Idempotent by fetch_id: a part whose snapshot is already in the table (a previous
        call that raised after its commit landed) is not appended again.
        """
        row = self._fetch_row(fetch, prices)
        fetch_id = row["fetch_id"]
        price_table = None if prices is None else _price_table(prices, row)
        if price_table is not None and price_table.num_rows and row["status"] != "ok":
            raise InvalidFetchError(f"fetch {fetch_id} has status {row['status']!r} and "
                                    f"{price_table.num_rows} price rows: only 'ok' has rows")
        if self.writer:
            self.ensure_tables()
        # a caller's own fetch_id may be a repeat from long ago, its snapshots expired: then
        # the rows themselves are looked for too
        repeat = bool(fetch.get("fetch_id"))
        if price_table is not None and price_table.num_rows:
            self._append_once(OBSERVATIONS, price_table, fetch_id, PART_OBSERVATIONS,
                              look_in_rows=repeat)
        self._commit_marker(pa.Table.from_pylist([row], schema=FETCH_ARROW), fetch_id,
                            look_in_rows=repeat)
        return fetch_id

    def _commit_marker(self, marker: pa.Table, fetch_id: str, *, look_in_rows: bool) -> None:
        """The second commit (a seam: the tests kill a writer here)."""
        self._append_once(FETCHES, marker, fetch_id, PART_MARKER, look_in_rows=look_in_rows)

    def _fetch_row(self, fetch: dict[str, Any], prices: Any) -> dict[str, Any]:
        unknown = set(fetch) - set(FETCH_ARROW.names)
        if unknown:
            raise InvalidFetchError(f"unknown fetch columns: {', '.join(sorted(unknown))}")
        row = {name: fetch.get(name) for name in FETCH_ARROW.names}
        row["fetch_id"] = str(row["fetch_id"] or uuid7())
        row["status"] = row["status"] or "ok"
        if row["status"] not in FETCH_STATUSES:
            raise InvalidFetchError(f"fetch status must be one of {FETCH_STATUSES}, "
                                    f"not {row['status']!r}")
        if not row["source"]:
            raise InvalidFetchError("a fetch needs its source")
        row["fetched_at"] = _aware(row["fetched_at"] or datetime.now(UTC))
        if row["observed_at"] is not None:
            row["observed_at"] = _aware(row["observed_at"])
        row["worker"] = row["worker"] or f"{socket.gethostname()}:{os.getpid()}"
        if row["rows"] is None:
            row["rows"] = 0 if prices is None else len(prices)
        if isinstance(row["payload_keys"], list | tuple):
            row["payload_keys"] = ";".join(row["payload_keys"])
        for name in ("error", "error_type"):
            if row[name]:
                row[name] = redact(str(row[name]))
        return row

    def _append_once(self, name: str, data: pa.Table, fetch_id: str, part: str, *,
                     look_in_rows: bool = False) -> None:
        """Append `data` to raw.<name> exactly once.

        pyiceberg retries conflicts itself (TABLE_PROPERTIES). Around that: when a commit
        failed in a way that leaves its outcome unknown (Postgres or S3 failed mid-commit)
        or pyiceberg gave up, reload the table and look for a snapshot carrying this
        fetch_id and part before trying again, with exponential backoff and jitter, for at
        most COMMIT_ATTEMPTS attempts or COMMIT_BUDGET_S seconds. `look_in_rows`: before
        the first attempt, also look for rows of this fetch_id (a snapshot summary may
        have been expired since).
        """
        what = f"append {part} of fetch {fetch_id} to {self.namespace}.{name}"
        properties = {SUMMARY_FETCH_ID: fetch_id, SUMMARY_PART: part}
        deadline = time.monotonic() + COMMIT_BUDGET_S
        last: BaseException | None = None
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                table = self.catalog.load_table((self.namespace, name))
                if _landed(table, fetch_id, part):
                    return
                if look_in_rows and attempt == 0 and _rows_exist(table, fetch_id, data):
                    return
                started = time.monotonic()
                table.append(data, snapshot_properties=properties)
                self.stats.append_seconds.append(time.monotonic() - started)
                if len(table.metadata.snapshots) >= 2 * KEEP_SNAPSHOTS:
                    self._expire(name, KEEP_SNAPSHOTS, EXPIRE_MIN_AGE)
                return
            except CommitFailedException as exc:
                last = exc  # pyiceberg's retries ran out: the commit did not land
            except Exception as exc:
                if not _transient(exc):
                    raise self._named(what, exc) from None
                self.stats.count("unknown_outcomes")
                last = exc
            pause = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** attempt)
            pause = random.uniform(pause / 2, pause)
            if time.monotonic() + pause > deadline:
                break
            time.sleep(pause)
        assert last is not None
        raise self._named(f"{what} (gave up after {attempt + 1} attempts)", last)

    # ------------------------------------------------------------------------ maintenance

    def expire_snapshots(self, keep: int = KEEP_SNAPSHOTS,
                         min_age: timedelta = EXPIRE_MIN_AGE) -> int:
        """Drop all but the newest `keep` snapshots of both tables, of those older than
        `min_age`, from the table metadata; returns how many went. Rows stay (the current
        snapshot lists every data file), the data files too (nothing is deleted); time travel
        to an expired snapshot and the snapshot-summary check for a repeated fetch_id end
        (append_fetch then looks in the rows). Best effort: losing a race to another writer
        expires nothing this time. Writers call it themselves (KEEP_SNAPSHOTS)."""
        return sum(self._expire(name, keep, min_age) for name in (OBSERVATIONS, FETCHES))

    def _expire(self, name: str, keep: int, min_age: timedelta) -> int:
        try:
            table = self._table_or_none(name)
            if table is None:
                return 0
            cutoff = (datetime.now(UTC) - min_age).timestamp() * 1000
            snapshots = sorted(table.metadata.snapshots,
                               key=lambda s: (s.sequence_number or 0, s.timestamp_ms))
            current = table.metadata.current_snapshot_id
            old = [s.snapshot_id for s in snapshots[:max(0, len(snapshots) - keep)]
                   if s.timestamp_ms < cutoff and s.snapshot_id != current]
            if not old:
                return 0
            table.maintenance.expire_snapshots().by_ids(old).commit()
            return len(old)
        except (CommitFailedException, ValueError, SharedRawError, DBAPIError, OSError):
            # ValueError: another writer expired some of them first
            return 0

    # ----------------------------------------------------------------------------- reads

    def already_loaded(self, source: str, sha256: str) -> bool:
        """Whether an 'ok' fetch of `source` with these payload bytes has its marker (a
        fetcher skips loading a payload another worker loaded already)."""
        table = self._table_or_none(FETCHES)
        if table is None:
            return False
        scan = table.scan(
            row_filter=And(EqualTo("source", source), EqualTo("sha256", sha256),
                           EqualTo("status", "ok")),
            selected_fields=("fetch_id",), limit=1)
        return self._call("read raw.fetches", lambda: scan.to_arrow().num_rows > 0)

    def markers(self, since: datetime | None = None, *, source: str | None = None,
                ) -> list[dict[str, Any]]:
        """The fetch rows (fetched at or after `since`), ordered by fetched_at, fetch_id."""
        table = self._marker_table(since, source, ("*",))
        return table.sort_by([("fetched_at", "ascending"),
                              ("fetch_id", "ascending")]).to_pylist()

    def _marker_table(self, since: datetime | None, source: str | None,
                      columns: tuple[str, ...]) -> pa.Table:
        table = self._table_or_none(FETCHES)
        if table is None:
            return FETCH_ARROW.empty_table()
        row_filter: BooleanExpression = AlwaysTrue()
        if since is not None:
            row_filter = GreaterThanOrEqual("fetched_at", _aware(since).isoformat())
        if source is not None:
            row_filter = And(row_filter, EqualTo("source", source))
        scan = table.scan(row_filter=row_filter, selected_fields=columns)
        return self._call("read raw.fetches", scan.to_arrow)

    def observations(self, months: list[str] | None = None, source: str | None = None,
                     ) -> pa.Table:
        """Price rows of fetches with an 'ok' marker, observed in `months` ('YYYY-MM', UTC;
        None: all), of `source` (None: all). Only the data files of those months are read.

        The markers are read first, the rows second: a marker is committed after its rows,
        so every marker read has its rows in the later snapshot of the rows."""
        ok = self._marker_table(None, source, ("fetch_id", "status"))
        ok_ids = pc.filter(ok["fetch_id"], pc.equal(ok["status"], "ok"))
        table = self._table_or_none(OBSERVATIONS)
        if table is None:
            return PRICE_ARROW.empty_table()
        row_filter = month_filter("observed_at", months)
        if source is not None:
            row_filter = And(row_filter, EqualTo("source", source))
        scan = table.scan(row_filter=row_filter)
        rows = self._call("read raw.price_observations", scan.to_arrow)
        ok_ids = ok_ids.combine_chunks() if ok_ids.num_chunks else pa.array([], pa.string())
        # pyiceberg reads strings as large_string: give readers the schema the rows were
        # written with, empty or not
        return rows.filter(pc.is_in(rows["fetch_id"], value_set=ok_ids)).cast(PRICE_ARROW)


def _rows_exist(table: Table, fetch_id: str, data: pa.Table) -> bool:
    """Whether `table` has a row of `fetch_id` (in the months of `data`'s rows, when they
    are observations: partition pruning keeps this to a few files)."""
    row_filter: BooleanExpression = EqualTo("fetch_id", fetch_id)
    if "observed_at" in data.column_names and "fetched_at" not in data.column_names:
        months = {f"{t.year:04d}-{t.month:02d}"
                  for t in pc.unique(data["observed_at"]).to_pylist() if t is not None}
        if months:
            row_filter = And(row_filter, month_filter("observed_at", months))
    return table.scan(row_filter=row_filter, selected_fields=("fetch_id",),
                      limit=1).to_arrow().num_rows > 0


def _landed(table: Table, fetch_id: str, part: str) -> bool:
    """Whether a snapshot of `table` carries this fetch_id and part in its summary."""
    for snapshot in table.metadata.snapshots:
        summary = snapshot.summary
        if (summary is not None and summary[SUMMARY_FETCH_ID] == fetch_id
                and summary[SUMMARY_PART] == part):
            return True
    return False


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _price_table(prices: Any, fetch: dict[str, Any]) -> pa.Table:
    """The price rows as an Arrow table of PRICE_ARROW's schema, with the fetch's fetch_id
    and source and, where a row has none, its observed_at."""
    if isinstance(prices, pa.Table):
        extra = set(prices.column_names) - set(PRICE_COLUMNS)
        if extra:
            raise InvalidFetchError(f"unknown price columns: {', '.join(sorted(extra))}")
        n = prices.num_rows
        columns = {name: prices[name] if name in prices.column_names
                   else pa.nulls(n, PRICE_ARROW.field(name).type) for name in PRICE_COLUMNS}
    else:
        records = [dataclasses.asdict(p) if dataclasses.is_dataclass(p) else dict(p)
                   for p in prices]
        extra = {k for r in records for k in r} - set(PRICE_COLUMNS)
        if extra:
            raise InvalidFetchError(f"unknown price columns: {', '.join(sorted(extra))}")
        n = len(records)
        for r in records:
            if isinstance(r.get("observed_at"), datetime):
                r["observed_at"] = _aware(r["observed_at"])
        plain = pa.schema([f.with_nullable(True) for f in PRICE_ARROW])
        try:
            loose = pa.Table.from_pylist(records, schema=plain)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InvalidFetchError(f"price rows do not fit the table: {exc}") from None
        columns = {name: loose[name] for name in PRICE_COLUMNS}
    columns["fetch_id"] = pa.array([fetch["fetch_id"]] * n, pa.string())
    columns["source"] = pa.array([fetch["source"]] * n, pa.string())
    arrays = []
    for target in PRICE_ARROW:
        column = columns[target.name]
        try:
            column = column.cast(target.type, safe=target.type != pa.timestamp("us", "UTC"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InvalidFetchError(f"price column {target.name}: {exc}") from None
        if target.name == "observed_at" and fetch.get("observed_at") is not None:
            column = pc.fill_null(column, pa.scalar(fetch["observed_at"], target.type))
        if not target.nullable and column.null_count:
            raise InvalidFetchError(f"price column {target.name} is required: "
                                    f"{column.null_count} of {n} rows have none")
        arrays.append(column.combine_chunks() if isinstance(column, pa.ChunkedArray)
                      else column)
    return pa.Table.from_arrays(arrays, schema=PRICE_ARROW)
