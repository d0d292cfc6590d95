"""The thin SQL runner: plain SELECT files, dependencies found from the SQL, checks as queries.

- `staging/`: built as TEMP views, `intermediate/` as TEMP tables (computed once however
  many marts read them); both read the attached raw layer, so they live only in the build
  connection. `marts/`: built as tables, the public interface.
- `macros/`: one DuckDB macro per file (`create or replace macro <file name>(...) as ...`),
  executed as written. Macros are kept in the published file, so `gpucost estimate` and
  `gpucost sql` can call them read-only; a formula lives in one macro that marts and the CLI
  both call. A macro may use marts and other macros only (never a TEMP staging/intermediate
  relation, which the published file does not have).
- The file name is the relation name. A model depends on every other model whose name appears
  as an identifier in its SQL (comments and string literals stripped); so a CTE or alias named
  like a model is refused (NameClashError) rather than read as a false dependency. Ties in
  the topological order are broken by name, so runs are deterministic.
- `checks/*.sql` return offending rows; any row fails the build (CheckFailedError).
- One template, `{{ union_all('stg_*__specs') }}`: the models whose names match the pattern,
  sorted, as `select * from a union all by name select * from b ...` (expanded before the
  dependencies are read). A new spec source is then one staging file (and its row in
  catalog/spec_source_precedence.csv), with no edit to the model that unions them.

This module imports nothing of ours but duckdb.
"""

from __future__ import annotations

import fnmatch
import heapq
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

MODELS_DIR = Path(__file__).resolve().parent
LAYERS = ("staging", "intermediate", "macros", "marts")
PERSISTED_LAYERS = ("macros", "marts")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r"'(?:[^']|'')*'")
# an identifier not preceded by "." (so `curated.accelerators` is not the model `accelerators`)
_IDENT = re.compile(r"(?<![.\w])[a-z_][a-z0-9_]*")
# names a model's SQL defines itself: CTEs (`with x as (`, `, x(a, b) as (`) and relation
# aliases (`from t as x`, `join t x`); one named like a model would read as a dependency on
# that model. (Column aliases may carry public column names, e.g. peak_cluster_power_mw.)
_CTE = re.compile(r"(?:\bwith\s+(?:recursive\s+)?|,\s*)([a-z_][a-z0-9_]*)\s*(?:\([^()]*\))?"
                  r"\s+as\s+(?:not\s+)?(?:materialized\s+)?\(")
_ALIAS = re.compile(r"\b(?:from|join)\s+[a-z_][a-z0-9_.]*(?:\s*\([^()]*\))?\s+(?:as\s+)?"
                    r"(?!(?:on|using|where|join|left|right|inner|full|cross|natural|group|order|"
                    r"limit|union|window|qualify|having|lateral|positional|asof|anti|semi)\b)"
                    r"([a-z_][a-z0-9_]*)")
# an intermediate model whose SQL holds the line `-- materialized: view` is a temp view
_AS_VIEW = re.compile(r"^--\s*materialized:\s*view\s*$", re.M)
_UNION_ALL = re.compile(r"\{\{\s*union_all\(\s*'([a-z0-9_*?]+)'\s*\)\s*\}\}")
_MACRO_HEAD = re.compile(r"^\s*create\s+(?:or\s+replace\s+)?macro\s+([a-z_][a-z0-9_]*)\s*\(")


class ModelError(Exception):
    """A model failed to build; names the model."""


class NameClashError(ModelError):
    """A CTE or alias inside a model is named like another model (a false dependency)."""


class CycleError(ModelError):
    """Models depend on each other in a cycle."""


class CheckFailedError(Exception):
    """One or more checks returned rows; the build must not be published."""

    def __init__(self, failures: dict[str, list[tuple]]):
        self.failures = failures
        lines = [f"{name}: {len(rows)} offending row(s), e.g. {rows[0]}" for name, rows in
                 sorted(failures.items())]
        super().__init__("checks failed: " + "; ".join(lines))


@dataclass(frozen=True)
class Model:
    name: str
    layer: str
    path: Path
    sql: str
    depends_on: frozenset[str] = field(default_factory=frozenset)

    @property
    def materialized(self) -> str:
        if self.layer == "intermediate" and _AS_VIEW.search(self.sql):
            return "temp view"
        return {"staging": "temp view", "intermediate": "temp table", "macros": "macro"}.get(
            self.layer, "table"
        )


def _identifiers(sql: str) -> set[str]:
    text = _STRING.sub("''", _COMMENT.sub(" ", sql.lower()))
    return set(_IDENT.findall(text))


def local_names(sql: str) -> set[str]:
    """The CTE and alias names a model's SQL defines (comments and strings stripped)."""
    text = _STRING.sub("''", _COMMENT.sub(" ", sql.lower()))
    return set(_CTE.findall(text)) | set(_ALIAS.findall(text))


def expand_union_all(sql: str, names: set[str], where: Path | str = "") -> str:
    """`{{ union_all('pattern') }}` -> the union of the models matching it (see above)."""
    def union(match: re.Match[str]) -> str:
        matched = sorted(n for n in names if fnmatch.fnmatchcase(n, match.group(1)))
        if not matched:
            raise ModelError(f"{where}: union_all('{match.group(1)}') matches no model")
        return "\n    union all by name\n    ".join(f"select * from {n}" for n in matched)

    return _UNION_ALL.sub(union, sql)


def layer_files(models_dir: Path, layer: str) -> list[Path]:
    """A layer's model files, its folders included (`marts/` is grouped by domain: prices,
    specs, costs, inference, quality); a model's name is its file name, unique across them."""
    return sorted((models_dir / layer).rglob("*.sql"))


def discover(models_dir: Path = MODELS_DIR) -> dict[str, Model]:
    """Read every model file and find its dependencies from its SQL."""
    found: dict[str, tuple[str, Path, str]] = {}
    for layer in LAYERS:
        for path in layer_files(models_dir, layer):
            name = path.stem
            if name in found:
                raise ModelError(f"model name {name!r} defined twice: {found[name][1]} and {path}")
            found[name] = (layer, path, path.read_text(encoding="utf-8"))
    for name, (layer, path, sql) in found.items():
        if "{{" in sql:
            found[name] = (layer, path, expand_union_all(sql, set(found) - {name}, path))
    models = {}
    for name, (layer, path, sql) in found.items():
        clash = sorted((local_names(sql) & found.keys()) - {name})
        if clash:
            raise NameClashError(
                f"{path}: the CTE or alias {', '.join(clash)} is named like a model; dependencies"
                " are found by name, so rename it (e.g. with a `_cte` suffix)")
        deps = frozenset((_identifiers(sql) & found.keys()) - {name})
        models[name] = Model(name, layer, path, sql, deps)
    for model in models.values():
        if model.layer != "macros":
            continue
        head = _MACRO_HEAD.match(_COMMENT.sub(" ", model.sql).lower())
        if not head or head.group(1) != model.name:
            raise ModelError(
                f"{model.path}: a macro file must hold `create or replace macro {model.name}(...)`"
            )
        temp = sorted(d for d in model.depends_on if models[d].layer not in PERSISTED_LAYERS)
        if temp:
            raise ModelError(
                f"macro {model.name} uses {', '.join(temp)}: a macro is published and may use"
                " marts and macros only"
            )
    return models


def build_order(models: dict[str, Model]) -> list[Model]:
    """Topological order (Kahn), ties broken by model name."""
    indegree = {name: len(m.depends_on) for name, m in models.items()}
    dependents: dict[str, list[str]] = {name: [] for name in models}
    for name, m in models.items():
        for dep in m.depends_on:
            dependents[dep].append(name)
    ready = [name for name, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order: list[Model] = []
    while ready:
        name = heapq.heappop(ready)
        order.append(models[name])
        for nxt in dependents[name]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    if len(order) != len(models):
        stuck = sorted(set(models) - {m.name for m in order})
        raise CycleError(f"dependency cycle among models: {', '.join(stuck)}")
    return order


def _body(sql: str) -> str:
    return sql.strip().rstrip(";").strip()


def build(
    con: duckdb.DuckDBPyConnection, models_dir: Path = MODELS_DIR,
    layers: tuple[str, ...] = LAYERS, incremental: Any = None,
) -> dict[str, float]:
    """Build every model (of `layers`) in dependency order; returns seconds per model.

    `incremental` (models.incremental.Incremental): builds the history-sized models it knows
    from the previous published build plus what the new loads touched, when it can; every
    other model (and every model when it is None) is built from its SQL as written."""
    timings: dict[str, float] = {}
    for model in build_order(discover(models_dir)):
        if model.layer not in layers:
            continue
        start = time.perf_counter()
        body = _body(model.sql)
        if model.layer == "macros":
            stmts = [body]
        else:
            stmts = [f"create or replace {model.materialized} {model.name} as\n{body}"]
        try:
            if incremental is not None:
                stmts = incremental.statements_for(con, model.name, body) or stmts
            for stmt in stmts:
                con.execute(stmt)
        except duckdb.Error as exc:
            raise ModelError(f"model {model.name} ({model.path.name}) failed: {exc}") from exc
        timings[model.name] = time.perf_counter() - start
    return timings


# intermediate relations that grow with the whole price history stay out of the published file
NOT_PUBLISHED = frozenset({"int_price_daily_mapped"})
INTERMEDIATE_SCHEMA = "intermediate"


def publish_intermediate(con: duckdb.DuckDBPyConnection,
                         models_dir: Path = MODELS_DIR, incremental: Any = None) -> list[str]:
    """Copy the intermediate relations of the build (temp tables) into schema `intermediate`
    of the published file, with the raw fetch log as `intermediate.fetches`, so a number can
    be traced there (`gpucost sql "select * from intermediate.int_offers_mapped"`). The
    history-sized ones (NOT_PUBLISHED) are left out; those `incremental` updated in place
    there already are not copied, and the fetch log is appended to when it can be."""
    con.execute(f"create schema if not exists {INTERMEDIATE_SCHEMA}")
    names = sorted(m.name for m in discover(models_dir).values()
                   if m.layer == "intermediate" and m.name not in NOT_PUBLISHED)
    in_place = incremental.published_in_place if incremental is not None else set()
    for name in names:
        if name not in in_place:
            con.execute(f"create or replace table {INTERMEDIATE_SCHEMA}.{name} as "
                        f"select * from temp.main.{name}")
    append = incremental.fetches_append() if incremental is not None else None
    con.execute(append or f"create or replace table {INTERMEDIATE_SCHEMA}.fetches as "
                "select * from stg_raw__fetches")
    return [*names, "fetches"]


def run_checks(
    con: duckdb.DuckDBPyConnection, models_dir: Path = MODELS_DIR, *, sample: int = 5
) -> dict[str, list[tuple]]:
    """Run every check; returns {check name: sample of offending rows} for failing checks."""
    failures: dict[str, list[tuple]] = {}
    for path in sorted((models_dir / "checks").glob("*.sql")):
        try:
            rows = con.execute(
                f"select * from ({_body(path.read_text(encoding='utf-8'))}) limit {sample}"
            ).fetchall()
        except duckdb.Error as exc:
            failures[path.stem] = [(f"check query failed: {exc}",)]
            continue
        if rows:
            failures[path.stem] = rows
    return failures


def check_or_raise(con: duckdb.DuckDBPyConnection, models_dir: Path = MODELS_DIR) -> None:
    failures = run_checks(con, models_dir)
    if failures:
        raise CheckFailedError(failures)
