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

This module is the SharedRaw object (connect, create the tables, append, read). Its parts:
the tables, their schemas and the rows shaped to fit them (cluster/raw_tables.py), the
commit retries and the checks that an append landed (cluster/raw_commits.py), the named
errors (cluster/raw_errors.py) and the fetch ids (cluster/uuid7.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceAlreadyExistsError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import AlwaysTrue, And, BooleanExpression, EqualTo, GreaterThanOrEqual
from pyiceberg.table import Table
from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError

from gpucost.cluster.raw_commits import (
    BACKOFF_FIRST_S,
    BACKOFF_MAX_S,
    COMMIT_ATTEMPTS,
    COMMIT_BUDGET_S,
    COMMIT_MIN_ROUNDS,
    EXPIRE_MIN_AGE,
    KEEP_SNAPSHOTS,
    PART_MARKER,
    PART_OBSERVATIONS,
    SUMMARY_FETCH_ID,
    SUMMARY_PART,
    TABLE_PROPERTIES,
    CommitStats,
    CountingSqlCatalog,
    landed,
    rows_exist,
    thread_counts,
    with_connect_timeout,
)
from gpucost.cluster.raw_errors import (
    InvalidFetchError,
    SharedRawCommitError,
    SharedRawError,
    SharedRawPermissionError,
    SharedRawUnavailableError,
    is_denied,
    one_line,
    transient,
)
from gpucost.cluster.raw_tables import (
    CATALOG_NAME,
    FETCH_ARROW,
    FETCH_SCHEMA,
    FETCH_SPEC,
    FETCHES,
    NAMESPACE,
    OBSERVATIONS,
    PRICE_ARROW,
    PRICE_SCHEMA,
    PRICE_SPEC,
    aware,
    fetch_row,
    month_filter,
    price_rows,
)
from gpucost.cluster.settings import ClusterSettings, remember

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
            "uri": with_connect_timeout(settings.postgres_url, settings.timeout_s),
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

    def _open_catalog(self, properties: dict[str, str]) -> CountingSqlCatalog:
        # SqlCatalog creates its own two tables in Postgres on first use, with a check-then-
        # create that races when several processes start at once: the loser's CREATE fails
        # (duplicate pg_type row), and trying again finds the tables there.
        for attempt in range(3):
            try:
                return CountingSqlCatalog(CATALOG_NAME, **properties)
            except (IntegrityError, ProgrammingError) as exc:
                if attempt == 2:
                    raise SharedRawError(
                        f"creating the Iceberg catalog's tables in PostgreSQL failed: "
                        f"{one_line(exc)}") from None
                time.sleep(0.1 * (attempt + 1))
            except DBAPIError as exc:  # refused, timed out, wrong password, no database
                raise SharedRawUnavailableError(
                    f"the Iceberg catalog in PostgreSQL is unavailable: {one_line(exc)}"
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
        if is_denied(exc):
            key = "writer" if self.writer else "reader"
            return SharedRawPermissionError(
                f"{what}: S3 refused the {key} key on bucket {self.settings.raw_bucket}: "
                f"{one_line(exc)}")
        if isinstance(exc, DBAPIError):
            return SharedRawUnavailableError(
                f"{what}: the Iceberg catalog in PostgreSQL failed: {one_line(exc)}")
        if isinstance(exc, OSError):
            return SharedRawUnavailableError(
                f"{what}: S3 at {self.settings.s3_endpoint} failed: {one_line(exc)}")
        if isinstance(exc, CommitFailedException):
            return SharedRawCommitError(f"{what}: {one_line(exc)}")
        return SharedRawError(f"{what}: {one_line(exc)}")

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
        row = fetch_row(fetch, prices)
        fetch_id = row["fetch_id"]
        price_table = None if prices is None else price_rows(prices, row)
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

    def _with_new_columns(self, name: str, table: Table, data: pa.Table) -> Table:
        """`table`, first given the columns of its schema in this code that it lacks (a
        table created before a column was added, e.g. price_kind): they are optional, so
        its older rows read as null. A race with another writer doing the same is a failed
        commit, retried by the caller (which then finds the columns there)."""
        have = {f.name for f in table.schema().fields}
        if set(data.schema.names) <= have:
            return table
        with table.update_schema() as update:
            update.union_by_name(PRICE_SCHEMA if name == OBSERVATIONS else FETCH_SCHEMA)
        return self.catalog.load_table((self.namespace, name))

    def _append_once(self, name: str, data: pa.Table, fetch_id: str, part: str, *,
                     look_in_rows: bool = False) -> None:
        """Append `data` to raw.<name> exactly once.

        pyiceberg retries conflicts itself (TABLE_PROPERTIES). Around that: when a commit
        failed in a way that leaves its outcome unknown (Postgres or S3 failed mid-commit)
        or pyiceberg gave up, reload the table and look for a snapshot carrying this
        fetch_id and part before trying again, with exponential backoff and jitter, for at
        most COMMIT_ATTEMPTS rounds or COMMIT_BUDGET_S seconds, but at least COMMIT_MIN_ROUNDS
        rounds (pyiceberg's own retries may use the whole budget in the first).
        `look_in_rows`: before the first attempt, also look for rows of this fetch_id (a
        snapshot summary may have been expired since).
        """
        what = f"append {part} of fetch {fetch_id} to {self.namespace}.{name}"
        properties = {SUMMARY_FETCH_ID: fetch_id, SUMMARY_PART: part}
        began = time.monotonic()
        deadline = began + COMMIT_BUDGET_S
        tried, lost = thread_counts()
        last: BaseException | None = None
        for attempt in range(COMMIT_ATTEMPTS):
            try:
                table = self.catalog.load_table((self.namespace, name))
                if landed(table, fetch_id, part):
                    return
                table = self._with_new_columns(name, table, data)
                if look_in_rows and attempt == 0 and rows_exist(table, fetch_id, data):
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
                if not transient(exc):
                    raise self._named(what, exc) from None
                self.stats.count("unknown_outcomes")
                last = exc
            pause = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** attempt)
            pause = random.uniform(pause / 2, pause)
            if attempt + 1 >= COMMIT_MIN_ROUNDS and time.monotonic() + pause > deadline:
                break
            time.sleep(pause)
        assert last is not None
        attempts, conflicts = (a - b for a, b in zip(thread_counts(), (tried, lost),
                                                     strict=True))
        raise self._named(
            f"{what} (gave up after {attempt + 1} rounds, {attempts} commit attempts of which "
            f"{conflicts} conflicts, in {time.monotonic() - began:.1f} s)", last)

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
            row_filter = GreaterThanOrEqual("fetched_at", aware(since).isoformat())
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
        # a table no writer of this code has appended to yet lacks the newer (optional)
        # columns: they read as null
        for column in PRICE_ARROW:
            if column.name not in rows.column_names:
                rows = rows.append_column(column.name, pa.nulls(rows.num_rows, column.type))
        rows = rows.select(PRICE_ARROW.names)
        # pyiceberg reads strings as large_string: give readers the schema the rows were
        # written with, empty or not
        return rows.filter(pc.is_in(rows["fetch_id"], value_set=ok_ids)).cast(PRICE_ARROW)
