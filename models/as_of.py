"""The offers in force as of a past day: the same SQL models, run again with an instant.

`gpucost offers GPU --as-of DAY` (and `gpucost.offers(..., as_of=DAY)`) answers with the
models that build today's `gpu_offers`: no second implementation. The few SQL models whose
answer depends on when it is asked read the DuckDB session variable `gpucost_as_of` (a build
leaves it unset, so the published tables are exactly what they were):

- int_fetches_in_force: only fetches whose prices were observed by that instant (a dated fetch
  by its observed_at; a month-dated one by the end of its month, or its load when earlier; a
  file replayed without any date by the time it was loaded);
- int_price_snapshots_current: never a row observed after it;
- int_offers_mapped: no curated reference price typed from a later page; age_days counted
  from that instant (so is_stale, the dispute rule and the seller ranking downstream see only
  what was known by then).

`connect_as_of` opens an in-memory connection on which the published file is the default
catalog (read-only: accelerators, the curated tables, the macros, the history-sized
intermediate relations) and the raw layer is attached read-only for the build, then builds
as TEMP relations the staging and intermediate models behind TARGETS, and the TARGETS marts
themselves, which shadow the published ones for every unqualified query on that connection.
The history-sized relations (FROM_PUBLISHED: every GPU name ever seen, by month) are read
from the published file: they name things, they price nothing.

This module imports nothing of ours but the model runner (and duckdb).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from pathlib import Path

import duckdb

from gpucost.models.runner import MODELS_DIR, Model, ModelError, build_order, discover

AS_OF_VARIABLE = "gpucost_as_of"
# the marts an as-of answer reads that depend on what was in force
TARGETS = ("gpu_offers", "unmapped_gpu_names")
# intermediate relations that grow with the whole history and name things (GPU names seen
# per day / month): read from the published file's schema `intermediate`, never rebuilt
FROM_PUBLISHED = frozenset({"int_price_daily_names", "int_price_name_months"})
PUBLISHED = "published"


def as_of_instant(day: date, now: datetime | None = None) -> datetime:
    """The end of `day` in UTC (its last microsecond), or now when that is earlier (today):
    the instant the answer is in force at, and the one ages are counted from."""
    now = now or datetime.now(UTC)
    end = datetime.combine(day, time.max, tzinfo=UTC)
    return min(end, now)


def models_to_build(models: dict[str, Model], targets: tuple[str, ...] = TARGETS) -> list[Model]:
    """The targets and every staging / intermediate model behind them, in build order;
    published marts and macros, and FROM_PUBLISHED, end the walk (read as they are)."""
    needed: set[str] = set()
    stack = list(targets)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        model = models[name]
        if name in FROM_PUBLISHED or (model.layer in ("marts", "macros")
                                      and name not in targets):
            continue
        stack.extend(model.depends_on)
    return [m for m in build_order(models) if m.name in needed
            and (m.layer in ("staging", "intermediate") or m.name in targets)]


def connect_as_of(published: Path, raw: Path, instant: datetime,
                  models_dir: Path = MODELS_DIR,
                  memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """A connection answering as of `instant` (see the module doc). The raw layer is detached
    once the build is done, and file access is then switched off."""
    con = duckdb.connect(config={"memory_limit": memory_limit} if memory_limit else {})
    try:
        con.execute("set enable_progress_bar = false")
        con.execute(f"attach ? as {PUBLISHED} (read_only)", [str(published)])
        con.execute("attach ? as raw (read_only)", [str(raw)])
        con.execute(f"use {PUBLISHED}")
        con.execute(f"set variable {AS_OF_VARIABLE} = ?::timestamptz", [instant])
        for model in models_to_build(discover(models_dir)):
            body = model.sql.strip().rstrip(";").strip()
            if model.name in FROM_PUBLISHED:
                stmt = (f"create or replace temp view {model.name} as "
                        f"select * from {PUBLISHED}.intermediate.{model.name}")
            else:
                kind = "temp table" if model.layer == "marts" else model.materialized
                stmt = f"create or replace {kind} {model.name} as\n{body}"
            try:
                con.execute(stmt)
            except duckdb.Error as exc:
                raise ModelError(f"model {model.name} ({model.path.name}) failed as of "
                                 f"{instant:%Y-%m-%d %H:%M} UTC: {exc}") from exc
        # what the answer reads is built: the raw layer is let go at once (a writer waits)
        con.execute("detach raw")
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def earliest_price_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The first UTC day any price was observed (a fetch's rows or a curated reference price),
    on a connection from connect_as_of (the published fetch log, the curated catalog)."""
    found = con.execute(
        f"""
        select min(day) from (
            select cast(timezone('UTC', min(coalesce(fetches.observed_at, fetches.finished_at)))
                as date) as day
            from {PUBLISHED}.intermediate.fetches as fetches
            where fetches.status in ('ok', 'replayed') and fetches.rows_loaded > 0
                and fetches.source in (select sources.source from {PUBLISHED}.curated.sources
                                       as sources where sources.kind = 'prices')
            union all
            select cast(min(reference.observed_at) as date)
            from stg_curated__reference_prices as reference
        )
        """).fetchall()
    return found[0][0] if found else None
