"""The summary of one refresh: each source's status, the publish, and the verdict.

A source fetched in this run is `live` (new data loaded), `unchanged` (the same payload as
before), `failed` (nothing in force) or `fallback` (the fetch failed now; its older data stays
in force). A source not fetched in this run whose data is in force is `curated` (the reference
prices of the catalog) or `not run`. The run's RunSummary fills rows in force, age and origin
from the published source_health mart (`attach_health`); `RunSummary.verdict()` says what
happened in one line; `RunSummary.table()` is the Prefect artifact's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from gpucost.warehouse.publish import serving_path
from gpucost.warehouse.store import LoadOutcome

FETCHED = ("live", "unchanged", "failed", "fallback")  # statuses of a source fetched in this run
REFRESHED = ("live", "unchanged")
FAILED = ("failed", "fallback")


@dataclass
class SourceSummary:
    source: str
    # live | unchanged | failed | fallback (failed now, older data still in force)
    # | curated (reference prices from the catalog) | not run (data in force, not fetched now)
    status: str
    rows_loaded: int = 0
    rows_rejected: int = 0
    payloads: int = 0
    error_type: str | None = None
    error: str | None = None
    rows_in_force: int | None = None
    data_age_days: float | None = None
    # live | replayed | mixed | curated: where the data in force came from (source_health)
    data_origin: str | None = None
    kind: str = ""  # prices | specs (the source's kind)


class RefreshFailedError(Exception):
    """The refresh flow ended Failed: nothing live was refreshed, or nothing was published.

    `summary` is the run's RunSummary (the curated and last good data may still have been
    published: `summary.published`)."""

    def __init__(self, verdict: str, summary: RunSummary) -> None:
        super().__init__(verdict, summary)
        self.verdict = verdict
        self.summary = summary

    def __str__(self) -> str:
        return self.verdict


def _days(age: float | None) -> str:
    return f"{age:.1f} days old" if age is not None else "of unknown age"


@dataclass
class RunSummary:
    run_id: str
    started_at: datetime
    sources: list[SourceSummary] = field(default_factory=list)
    published: bool = False
    publish_error: str | None = None
    export_error: str | None = None  # published, but the exports stay at the previous publish
    mart_rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    publish_seconds: float = 0.0
    history_mode: str = ""  # how the price history was built (PublishResult.history_mode)
    alerts: list[str] = field(default_factory=list)  # PublishResult.alerts (flows/alerts.py)
    flow_run: str | None = None  # the Prefect flow run's name (None without Prefect)
    prefect_api: str | None = None  # the Prefect API the CLI ran it on (flows/prefect_server)

    @property
    def failed_sources(self) -> list[str]:
        return [s.source for s in self.sources if s.status in FAILED]

    @property
    def fetched(self) -> list[SourceSummary]:
        """The sources fetched live in this run."""
        return [s for s in self.sources if s.status in FETCHED]

    @property
    def refreshed(self) -> list[SourceSummary]:
        """The sources whose live fetch succeeded in this run (new or unchanged data)."""
        return [s for s in self.sources if s.status in REFRESHED]

    @property
    def succeeded(self) -> bool:
        """Published, and at least one live source refreshed (when any was fetched): the
        flow run ends Completed; otherwise Failed."""
        return self.published and (bool(self.refreshed) or not self.fetched)

    def verdict(self) -> str:
        """One line that says what happened, e.g. "3 of 14 live sources refreshed; 11
        unreachable; serving reference prices (the newest 102.4 days old)"."""
        fetched, ok = self.fetched, self.refreshed
        failed = [s for s in fetched if s.status in FAILED]
        unreachable = [s for s in failed if s.error_type == "UnreachableError"]
        other = [s for s in failed if s.error_type != "UnreachableError"]
        n = len(fetched)
        parts = [f"{len(ok)} of {n} live source{'s' if n != 1 else ''} refreshed"]
        partial = [s for s in ok if s.error_type]
        if partial:
            parts[0] += f" ({len(partial)} with failed parts)"
        if unreachable:
            parts.append(f"{len(unreachable)} unreachable"
                         + (" (offline?)" if not ok and not other else ""))
        if other:
            types = sorted({s.error_type or "error" for s in other})
            parts.append(f"{len(other)} failed ({', '.join(types)})")
        fallback = [s for s in failed if s.status == "fallback"]
        if fallback:
            ages = [s.data_age_days for s in fallback if s.data_age_days is not None]
            parts.append(f"{len(fallback)} serving their last good data"
                         + (f" (up to {max(ages):.1f} days old)" if ages else ""))
        reference = next((s for s in self.sources if s.status == "curated"), None)
        prices = [s for s in fetched if s.kind == "prices"]
        if reference and prices and not any(s.status in REFRESHED for s in prices):
            parts.append(f"serving reference prices (the newest {_days(reference.data_age_days)})")
        if not self.published:
            parts.append("NOT published (the previous warehouse stays)")
        return "; ".join(parts)

    def table(self) -> list[dict[str, Any]]:
        return [
            {
                "source": s.source, "status": s.status, "rows_loaded": s.rows_loaded,
                "rows_rejected": s.rows_rejected, "rows_in_force": s.rows_in_force,
                "data_age_days": None if s.data_age_days is None else round(s.data_age_days, 1),
                "data_origin": s.data_origin,
                "error": f"{s.error_type}: {s.error}" if s.error_type else "",
            }
            for s in self.sources
        ]


def _kind(source: str) -> str:
    from gpucost.catalog import sources

    try:
        return sources.get(source).kind
    except KeyError:
        return "prices" if source == "reference" else ""


def summarise(source: str, outcomes: list[LoadOutcome]) -> SourceSummary:
    """One source's line of the run from its load outcomes (before `attach_health`)."""
    failed = [o for o in outcomes if o.status == "failed"]
    loaded = [o for o in outcomes if o.status in ("ok", "replayed")]
    status = "failed" if failed and not loaded else ("live" if loaded else "unchanged")
    first = failed[0] if failed else None
    return SourceSummary(
        source=source, status=status, payloads=len(outcomes),
        rows_loaded=sum(o.rows_loaded for o in outcomes),
        rows_rejected=sum(o.rows_rejected for o in outcomes),
        error_type=first.error_type if first else None,
        error=first.error if first else None,
        kind=_kind(source),
    )


def attach_health(summary: RunSummary, data_dir: Path) -> None:
    """Fill rows in force / age / origin from the published source_health mart; a failed
    source whose older data stays in force becomes `fallback`."""
    import duckdb

    from gpucost.warehouse.publish import open_published

    path = serving_path(data_dir)
    if not path.exists():
        return
    try:
        con = open_published(path)  # file access off, whatever a client wrote into the file
    except duckdb.Error:
        return
    try:
        health = {
            row[0]: row[1:]
            for row in con.execute(
                "select source, rows_in_force, data_age_days, data_origin from source_health"
            ).fetchall()
        }
    except duckdb.Error:
        return
    finally:
        con.close()
    for s in summary.sources:
        if s.source in health:
            s.rows_in_force, s.data_age_days, s.data_origin = health[s.source]
            if s.status == "failed" and (s.rows_in_force or 0) > 0:
                s.status = "fallback"
    # sources not fetched in this run whose data is in force (the curated reference prices)
    ran = {s.source for s in summary.sources}
    for source, (rows, age, origin) in sorted(health.items()):
        if source not in ran and rows:
            summary.sources.append(SourceSummary(
                source=source, status="curated" if source == "reference" else "not run",
                rows_in_force=rows, data_age_days=age, data_origin=origin,
                kind=_kind(source)))
