"""`gpucost ingest`'s steps: replay recorded files of a source through the load step, then
build, check and publish (flows/steps.py); and what happened to each file, in words.

A file above the ingest cap is never read (warehouse/load.py `too_large`); each other file
is saved verbatim, parsed and loaded on its own (`steps.load_payloads`: one bad file fails
alone). `outcome_text` and `outcomes_summary` say what happened to each file, for `gpucost
ingest` (flows/cli/refresh.py) and the recorded-data loader (flows/recorded.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from gpucost.catalog import sources
from gpucost.flows import steps
from gpucost.flows.cli.terminal import one_line, safe
from gpucost.warehouse import data_dir as default_data_dir
from gpucost.warehouse.load import (
    ObservedAt,
    as_observed,
    file_payload,
    ingest_max_bytes,
    too_large,
)
from gpucost.warehouse.publish import writer_lock
from gpucost.warehouse.store import LoadOutcome, RawStore


def ingest_files(
    source: str, files: list[Path], *, observed_at: datetime | ObservedAt | None = None,
    data_dir: Path | None = None, rebuild: bool = True, force: bool = False,
    allow_shrink: bool = False, file_dates: Mapping[str, ObservedAt] | None = None,
) -> tuple[list[LoadOutcome], steps.PublishResult | None]:
    """Replay recorded payloads for a source, then rebuild (the `gpucost ingest` command;
    `rebuild=False`: into the raw layer only).
    `observed_at`: the --observed-at of every file (a datetime, or an ObservedAt that may be
    approximate: a month); `file_dates`: that of some files by name (the recorded data's
    documented dates, flows/recorded.py), before `observed_at`.
    `force` loads a payload the row-count guard would refuse (a deliberately smaller one)
    and publishes what it leaves in force (as `allow_shrink`)."""
    data_dir = Path(data_dir or default_data_dir())
    sources.get(source)  # fail early on an unknown source
    store = RawStore(data_dir)
    run_id = steps.new_run_id()
    cap = ingest_max_bytes()
    with writer_lock(data_dir):
        store.check_readable()  # a corrupted raw.duckdb: named with its table, nothing loaded
        with store.connect() as con:
            outcomes: list[LoadOutcome] = []
            for path in files:
                refused = too_large(path, cap)
                if refused is not None:
                    outcomes.append(store.record_failure(
                        con, run_id=run_id, source=source, mode="replay",
                        started_at=steps.now(), finished_at=steps.now(), url=str(path),
                        payload_name=path.name, error=refused))
                    continue
                outcomes += steps.load_payloads(
                    store, con, run_id=run_id, source=source, payloads=[file_payload(path)],
                    mode="replay", started_at=steps.now(),
                    observed_at=(file_dates or {}).get(path.name) or as_observed(observed_at),
                    force=force,
                )
        try:
            published = (steps.build_and_publish(data_dir, allow_shrink=allow_shrink or force)
                         if rebuild else None)
        except Exception as exc:  # the files were loaded: the caller still reports each one
            exc.ingest_outcomes = outcomes  # type: ignore[attr-defined]
            raise
    return outcomes, published


def outcome_text(o: Any, refused_note: str = "") -> str:
    """What happened to one loaded file, after its name: rows loaded, unchanged, or refused
    (with `refused_note` after the error type)."""
    if o.status == "failed":
        return f"REFUSED {safe(o.error_type)}{refused_note}: {one_line(o.error)}"
    if o.status == "unchanged":
        return "unchanged (already loaded; nothing added)"
    return f"{o.rows_loaded} rows loaded, {o.rows_rejected} rejected (stream {o.stream})"


def outcomes_summary(outcomes: list) -> str:
    """One line for many files: loaded (rows, rejected), unchanged, refused."""
    loaded = [o for o in outcomes if o.status not in ("failed", "unchanged")]
    return (f"{len(outcomes)} files: {len(loaded)} loaded "
            f"({sum(o.rows_loaded for o in loaded)} rows, "
            f"{sum(o.rows_rejected for o in loaded)} rejected), "
            f"{sum(o.status == 'unchanged' for o in outcomes)} unchanged, "
            f"{sum(o.status == 'failed' for o in outcomes)} refused")
