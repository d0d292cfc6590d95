"""Committing to the shared raw layer (cluster/shared_raw.py) exactly once: pyiceberg's own
retries of a conflicting commit (TABLE_PROPERTIES) and ours around them (an unknown outcome
or an unreachable server), the snapshot summary that names what an append carried and the
checks that find it again, the snapshots a writer keeps, and the catalog that counts its
commit attempts and conflicts (CommitStats).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.expressions import And, BooleanExpression, EqualTo
from pyiceberg.table import Table, TableProperties

from gpucost.cluster.raw_tables import month_filter

# snapshot summary keys that name what an append carried (the idempotency check)
SUMMARY_FETCH_ID = "gpucost.fetch-id"
SUMMARY_PART = "gpucost.part"
PART_OBSERVATIONS = "observations"
PART_MARKER = "marker"

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
# our own retries, around pyiceberg's: an unknown outcome, an unreachable server, or a
# conflict pyiceberg's retries did not get past. pyiceberg's retries stop after
# COMMIT_TOTAL_RETRY_TIME_MS, the same 30 s as our budget, and our budget counts from before
# them: under load (many writers on few cores) its first round could use the whole budget and
# the append gave up "after 1 attempts" with a conflict. So at least COMMIT_MIN_ROUNDS rounds
# are made whatever the budget says (each a fresh load of the table and a new data file).
COMMIT_ATTEMPTS = 10
COMMIT_MIN_ROUNDS = 3
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


_THREAD = threading.local()  # this thread's commit attempts and conflicts (thread_counts)


def thread_counts() -> tuple[int, int]:
    """(commit attempts, conflicts) of the calling thread so far, pyiceberg's retries
    included (what one append cost, as a difference of two calls)."""
    return getattr(_THREAD, "attempts", 0), getattr(_THREAD, "conflicts", 0)


class CountingSqlCatalog(SqlCatalog):
    """SqlCatalog that counts commit attempts and conflicts: pyiceberg retries conflicts
    inside Transaction.commit_transaction, out of sight, and every attempt passes here."""

    stats: CommitStats

    def commit_table(self, table: Any, requirements: Any, updates: Any) -> Any:
        self.stats.count("attempts")
        _THREAD.attempts = getattr(_THREAD, "attempts", 0) + 1
        try:
            return super().commit_table(table, requirements, updates)
        except CommitFailedException:
            self.stats.count("conflicts")
            _THREAD.conflicts = getattr(_THREAD, "conflicts", 0) + 1
            raise


def with_connect_timeout(url: str, timeout_s: float) -> str:
    """`url` with libpq's connect_timeout (whole seconds, at least 2: libpq's minimum), so an
    unreachable Postgres fails in the settings' timeout, not the OS's two minutes."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("connect_timeout", str(max(2, math.ceil(timeout_s))))
    return urlunsplit(parts._replace(query="&".join(f"{k}={v}" for k, v in query.items())))


def rows_exist(table: Table, fetch_id: str, data: pa.Table) -> bool:
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


def landed(table: Table, fetch_id: str, part: str) -> bool:
    """Whether a snapshot of `table` carries this fetch_id and part in its summary."""
    for snapshot in table.metadata.snapshots:
        summary = snapshot.summary
        if (summary is not None and summary[SUMMARY_FETCH_ID] == fetch_id
                and summary[SUMMARY_PART] == part):
            return True
    return False
