"""Incremental build of the history-sized models: refresh cost proportional to new data.

The models below grow with the whole price history (the daily rollup raw.price_daily). A
full build reads every daily row. An incremental build starts from a copy of the previous
published file (warehouse/publish.py copies it into the new build file: a file copy costs a
fraction of copying its tables row by row) and rebuilds only what the new loads touched:

* a load records, on every rollup row it writes, the fetch that last wrote it
  (price_daily.last_fetch_id, and every column the history models read moves with it), so
  the rows the previous build has not seen are those whose last_fetch_id is a fetch its
  fetch log (intermediate.fetches, in the copied file) does not hold;
* each model declares the relation it reads history from (`input`) and which of its rows
  to rebuild from (`scope`); the model's own SQL runs on that scope, so its formula is
  written once (models/marts/price_changes.sql is the price change, whichever way it is
  built). A mart's rows the scope covers are deleted in place (`drop`) and the rebuilt ones
  inserted (`emit`); a small state table (intermediate) is rebuilt as the previous rows it
  keeps (`keep`) plus the rebuilt ones.

A model is rebuilt in full, with the reason recorded, when there is no previous build, the
models' SQL changed since (a fingerprint of models/: then the build does not start from the
previous file at all), the raw layer lost fetches the previous build had, or, for the models
that carry an accelerator id, a name now maps to another accelerator than it did (an alias
change moves whole series). tests/models/test_incremental.py builds both ways on the same
data and asserts equal tables.

This module imports nothing of ours but duckdb.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb

MODELS_DIR = Path(__file__).resolve().parent
STATE_TABLE = "intermediate.history_state"
OFFER_KEY = ("source", "provider", "sku", "region", "pricing_model")


@dataclass(frozen=True)
class Spec:
    input: str  # the relation the model reads the history from
    scope: str  # SQL: the rows of `input` the rebuilt part is computed from
    keep: str = ""  # state tables: SQL predicate on the previous rows (alias p) that stay
    # updated in place: `delete from <schema>.<name> [using <using>] where` this
    drop: str = ""
    using: str = ""
    emit: str = ""  # SQL predicate on the rebuilt rows (alias r) that are added ('' = all)
    mapped: bool = True  # carries an accelerator id: a changed name map rebuilds it in full
    distinct: bool = False  # state merged as a set (names), else keep + emit
    schema: str = "main"  # where the previous build published it (main = a mart)

    @property
    def in_place(self) -> bool:
        return bool(self.drop)


def _on(left: str, right: str, cols: tuple[str, ...] = OFFER_KEY) -> str:
    return " and ".join(f"{left}.{c} is not distinct from {right}.{c}" for c in cols)


# the rows of int_price_daily_mapped a changed offer's series is recomputed from: the tail the
# previous build kept (the last two observed days before the change) and every row from the
# first touched day on; a key whose first touched day is before its last observed day (an
# older payload replayed) is recomputed from its whole history ({backfill}).
_OFFER_WINDOW = f"""
select t.* from intermediate.int_price_offer_tail as t
join hist_offers as o on {_on('o', 't')}
where not o.backfill and t.day < o.from_day
union all by name
select d.* from int_price_daily_mapped as d
join hist_offers as o on {_on('o', 'd')}
where not o.backfill and d.day >= {{min_from_day}} and d.day >= o.from_day
{{backfill}}
"""
_OFFER_BACKFILL = f"""
union all by name
select d.* from int_price_daily_mapped as d
join hist_offers as o on {_on('o', 'd')}
where o.backfill
"""

SPECS: dict[str, Spec] = {
    "int_price_daily_names": Spec(
        input="stg_raw__price_daily", scope="select * from hist_new_raw",
        mapped=False, distinct=True, schema="intermediate"),
    "int_price_name_months": Spec(
        input="int_price_daily_mapped",
        scope="select * from int_price_daily_mapped where day >= {min_month} "
              "and date_trunc('month', day)::date in (select month from hist_months)",
        drop="month in (select month from hist_months)", mapped=False,
        schema="intermediate"),
    "int_price_offer_tail": Spec(
        input="int_price_daily_mapped", scope=_OFFER_WINDOW, schema="intermediate",
        keep=f"not exists (select 1 from hist_offers as o where {_on('o', 'p')})"),
    "price_changes": Spec(
        input="int_price_daily_mapped", scope=_OFFER_WINDOW, using="hist_offers as o",
        drop=f"price_changes.changed_on >= {{min_any_from_day}} "
             f"and {_on('o', 'price_changes')} "
             "and (o.backfill or price_changes.changed_on >= o.from_day)",
        emit=f"exists (select 1 from hist_offers as o where {_on('o', 'r')} "
             "and (o.backfill or r.changed_on >= o.from_day))"),
    "price_history": Spec(
        input="int_price_daily_mapped", using="hist_groups as g",
        scope="select d.* from int_price_daily_mapped as d where d.day >= {min_group_day} "
              "and exists (select 1 from hist_groups as g where g.day = d.day "
              "and g.provider = d.provider and g.pricing_model = d.pricing_model)",
        drop="price_history.day >= {min_group_day} and g.day = price_history.day "
             "and g.provider = price_history.provider "
             "and g.pricing_model = price_history.pricing_model"),
    # the daily index (docs/price-index.md): its rows from {index_from_day} on (the first day a
    # load touched, or the day after the previous build's last: the carried prices reach it),
    # from the observations of the carry window before that day on
    "price_index": Spec(
        input="int_price_daily_mapped",
        scope="select * from int_price_daily_mapped where day >= {index_from_day} - ("
              "select cast(value as integer) from stg_curated__assumptions "
              "where assumption_key = 'price_index_carry_days')",
        drop="price_index.day >= {index_from_day}", emit="r.day >= {index_from_day}"),
}


def fingerprint(models_dir: Path = MODELS_DIR) -> str:
    """A hash of every model's SQL and of this module: a change rebuilds history in full."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    for path in sorted(models_dir.rglob("*.sql")):  # marts/<domain>/ included
        h.update(path.relative_to(models_dir).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _ident(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![.\w]){re.escape(name)}(?!\w)")


def _date(value: object) -> str:
    return f"date '{value}'" if value is not None else "date '9999-12-31'"


def base_reason(path: Path | None, models_dir: Path = MODELS_DIR) -> str:
    """'' when the published file at `path` can be the base of the next build (it records the
    state of a build by the same models), else why it cannot ("full: ...")."""
    if path is None or not Path(path).exists():
        return "full: no previous build"
    from gpucost.warehouse.publish import open_published

    try:
        con = open_published(Path(path))  # file access off: a planted view cannot read files
    except duckdb.Error:
        return "full: the previous build cannot be read"
    try:
        rows = con.execute(
            "select fingerprint from intermediate.history_state").fetchall()
    except duckdb.Error:
        return "full: the previous build records no history state"
    finally:
        con.close()
    if not rows or rows[0][0] != fingerprint(models_dir):
        return "full: the models changed since the previous build"
    return ""


# A full build of the history models over at most this many daily rows keeps the build's own
# memory limit (512 MB): 2,000,000 rows (1,000,000 offers on two days) build in 24 s at a peak
# of 685 MB RSS (benchmarks/RESULTS.md, offers in force); above it the window functions over
# every daily row get DuckDB's default (80% of RAM) unless GPUCOST_REBUILD_MEMORY_LIMIT says
FULL_BUILD_ROWS_UNDER_LIMIT = 3_000_000


@dataclass
class Incremental:
    """Decides, model by model, whether to build from the previous published build (copied
    into the build file unless `full_reason` says why not: base_reason); see the module
    docstring. `modes` records what was done ({model: "incremental" | "full: why"})."""

    full_reason: str = ""  # why the build is not based on the previous file (or was asked full)
    models_dir: Path = MODELS_DIR
    # DuckDB memory for a full build of the history models (window functions over every daily
    # row need more than an incremental build): None = DuckDB's default (80% of RAM)
    full_memory_limit: str | None = None
    modes: dict[str, str] = field(default_factory=dict)
    # intermediate relations updated in place in schema intermediate (not to be copied there)
    published_in_place: set[str] = field(default_factory=set)
    _lifted: bool = False
    _base: str | None = None  # None = not planned yet; "" = incremental possible; else why not
    _mapped: str | None = None
    _params: dict[str, str] = field(default_factory=dict)
    _since: dict[str, date] = field(default_factory=dict)

    @staticmethod
    def _large_history(con: duckdb.DuckDBPyConnection) -> bool:
        """Whether the daily rollup is too large for a full build under the build's own memory
        limit (then DuckDB's default applies unless GPUCOST_REBUILD_MEMORY_LIMIT says)."""
        try:
            rows = con.execute("select count(*) from raw.price_daily").fetchone()[0]
        except duckdb.Error:
            return True
        return rows > FULL_BUILD_ROWS_UNDER_LIMIT

    # ---- lifecycle -------------------------------------------------------------------------
    def restore_memory_limit(self, con: duckdb.DuckDBPyConnection, limit: str) -> None:
        """Back to the build's own memory limit when a full build lifted it."""
        if self._lifted:
            con.execute(f"set memory_limit = '{limit}'")
            self._lifted = False

    def write_state(self, con: duckdb.DuckDBPyConnection) -> None:
        """Record, in the build being published, what the next build compares itself with."""
        con.execute("create schema if not exists intermediate")
        con.execute(f"create or replace table {STATE_TABLE} as select ? as fingerprint, "
                    "? as built_at, ? as modes",
                    [fingerprint(self.models_dir), datetime.now(UTC).isoformat(),
                     json.dumps(self.modes, sort_keys=True)])

    def fetches_append(self) -> str | None:
        """The statement that brings intermediate.fetches (the fetch log, append-only in the
        raw layer) up to date in place, or None: copy it whole."""
        if self._base != "":
            return None
        return ("insert into intermediate.fetches select * from stg_raw__fetches "
                "where fetch_id in (select fetch_id from hist_new_fetches)")

    def changed_since(self) -> dict[str, date | None]:
        """{history mart: the earliest date whose rows this build may have changed}, None when
        it was built in full (exports rewrite the months from there: warehouse/exports.py)."""
        return {name: (self._since.get(name) if self.modes.get(name) == "incremental" else None)
                for name in ("price_changes", "price_history", "price_index")}

    @property
    def summary(self) -> str:
        """One line: 'incremental' when every history model was, else the first reason."""
        full = sorted({m for m in self.modes.values() if m != "incremental"})
        return "incremental" if self.modes and not full else (full[0] if full else "")

    # ---- the runner's hook -----------------------------------------------------------------
    def statements_for(self, con: duckdb.DuckDBPyConnection, name: str,
                       body: str) -> list[str] | None:
        """The statements that build model `name` incrementally, or None: build it as written
        (a model this module does not know, or one it must build in full)."""
        spec = SPECS.get(name)
        if spec is None:
            return None
        why = self._plan_base(con)
        if not why and spec.mapped:
            why = self._plan_mapped(con)
        if why:
            self.modes[name] = why
            if not self._lifted and (self.full_memory_limit or self._large_history(con)):
                con.execute(f"set memory_limit = '{self.full_memory_limit}'"
                            if self.full_memory_limit else "reset memory_limit")
            self._lifted = True
            return None
        self.modes[name] = "incremental"
        scope_view = f"hist_scope__{name}"
        con.execute(f"create or replace temp view {scope_view} as "
                    f"{spec.scope.format(**self._params)}")
        rebuilt = _ident(spec.input).sub(scope_view, body)
        emit = f"where {spec.emit.format(**self._params)}" if spec.emit else ""
        if spec.in_place:
            target = f"{spec.schema}.{name}"
            using = f"using {spec.using} " if spec.using else ""
            stmts = [f"delete from {target} {using}where {spec.drop.format(**self._params)}",
                     f"insert into {target} by name select * from (\n{rebuilt}\n) as r {emit}"]
            if spec.schema != "main":  # the models downstream read it by its name
                self.published_in_place.add(name)
                stmts.append(f"create or replace temp view {name} as select * from {target}")
            return stmts
        prior = f"intermediate.{name}"
        if spec.distinct:
            return [f"create or replace temp table {name} as select * from {prior}\n"
                    f"union\nselect * from (\n{rebuilt}\n)"]
        return [f"create or replace temp table {name} as "
                f"select * from {prior} as p where {spec.keep.format(**self._params)}\n"
                f"union all by name\n"
                f"select * from (\n{rebuilt}\n) as r {emit}"]

    # ---- planning --------------------------------------------------------------------------
    def _has(self, con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
        return bool(con.execute(
            "select count(*) from duckdb_tables() where database_name = current_database() "
            "and schema_name = ? and table_name = ?", [schema, name]).fetchall()[0][0])

    def _plan_base(self, con: duckdb.DuckDBPyConnection) -> str:
        if self._base is None:
            self._base = self._why_not_base(con)
        return self._base

    def _why_not_base(self, con: duckdb.DuckDBPyConnection) -> str:
        if self.full_reason:
            return self.full_reason
        missing = [f"{schema}.{n}" for n, schema in
                   [*((n, s.schema) for n, s in SPECS.items()),
                    ("fetches", "intermediate"), ("int_gpu_name_map", "intermediate")]
                   if not self._has(con, schema, n)]
        if missing:
            return f"full: the previous build has no {', '.join(missing)}"
        (lost,), = con.execute(
            "select count(*) from intermediate.fetches as p "
            "anti join raw.fetches as f on f.fetch_id = p.fetch_id").fetchall()
        if lost:
            return f"full: the raw layer lacks {lost} fetches the previous build had"
        con.execute(
            "create or replace temp table hist_new_fetches as select f.fetch_id "
            "from raw.fetches as f anti join intermediate.fetches as p "
            "on p.fetch_id = f.fetch_id")
        (low,), = con.execute("select min(fetch_id) from hist_new_fetches").fetchall()
        # fetch ids come from a sequence: the touched rollup rows sit at the end of the file,
        # and the literal lower bound lets the scan skip every older row group
        low_sql = "null" if low is None else str(int(low))
        con.execute(
            "create or replace temp table hist_new_raw as select d.* "
            f"from stg_raw__price_daily as d where d.last_fetch_id >= {low_sql} "
            "and d.last_fetch_id in (select fetch_id from hist_new_fetches)")
        con.execute(
            "create or replace temp table hist_months as "
            "select distinct date_trunc('month', day)::date as month from hist_new_raw")
        (min_month,), = con.execute("select min(month) from hist_months").fetchall()
        self._params.update(min_month=_date(min_month), low_fetch_id=low_sql)
        return ""

    def _plan_mapped(self, con: duckdb.DuckDBPyConnection) -> str:
        if self._mapped is not None:
            return self._mapped
        (moved,), = con.execute(
            "select count(*) from int_gpu_name_map as c "
            "join intermediate.int_gpu_name_map as p on p.provider = c.provider "
            "and p.sku = c.sku and p.gpu_name_raw is not distinct from c.gpu_name_raw "
            "where p.accelerator_id is distinct from c.accelerator_id").fetchall()
        if moved:
            self._mapped = f"full: {moved} GPU names map to another accelerator than before"
            return self._mapped
        low = self._params["low_fetch_id"]
        con.execute(
            "create or replace temp table hist_new_rows as select d.* "
            f"from int_price_daily_mapped as d where d.last_fetch_id >= {low} "
            "and d.last_fetch_id in (select fetch_id from hist_new_fetches)")
        con.execute(
            "create or replace temp table hist_groups as "
            "select distinct day, provider, pricing_model from hist_new_rows")
        keys = ", ".join(OFFER_KEY)
        con.execute(
            "create or replace temp table hist_offers as "
            f"with touched as (select {keys}, min(day) as from_day from hist_new_rows "
            "group by all), "
            f"tail as (select {keys}, max(day) as last_day "
            "from intermediate.int_price_offer_tail group by all) "
            "select touched.*, coalesce(touched.from_day < tail.last_day, false) as backfill "
            f"from touched left join tail on {_on('tail', 'touched')}")
        (min_from, any_backfill, min_any), = con.execute(
            "select min(from_day) filter (where not backfill), bool_or(backfill), min(from_day) "
            "from hist_offers").fetchall()
        (min_group_day,), = con.execute("select min(day) from hist_groups").fetchall()
        (index_last,), = con.execute("select max(day) from main.price_index").fetchall()
        index_from = min(d for d in (min_group_day, index_last and index_last + timedelta(1),
                                     date.max) if d is not None)
        self._since = {"price_changes": min_any or date.max,
                       "price_history": min_group_day or date.max,
                       "price_index": index_from}
        self._params.update(
            min_from_day=_date(min_from), min_any_from_day=_date(min_any),
            min_group_day=_date(min_group_day), index_from_day=_date(index_from),
            backfill=_OFFER_BACKFILL if any_backfill else "")
        self._mapped = ""
        return ""
