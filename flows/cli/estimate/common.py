"""What every mode of `gpucost estimate` shares: the usage error, running a query, calling a
cost macro with the options the user gave, the accelerator resolver, and the assumptions and
MFU model an answer cites."""

from __future__ import annotations

import argparse
from typing import Any

from gpucost.catalog.names import name_key

DEFAULT_GPUS = 1024  # stated in the output; only wall-clock days and peak power depend on it

# the options named otherwise than the macro parameter they fill (every other option whose
# dest is a parameter name of the macro is passed under its own name)
MACRO_PARAMETER = {
    "gpus": "n_gpus",
    "layers": "n_layers",
    "causal": "attention_causal",
    "price": "price_per_gpu_hour",
    "electricity": "electricity_usd_per_kwh",
    "kv_heads": "n_kv_heads",
    "context": "context_tokens",
    "batch": "batch_size",
}


class EstimateError(Exception):
    """Bad input for an estimate (unknown accelerator, impossible figure): a usage error."""


def option(name: str) -> str:
    return "--" + name.replace("_", "-")


def rows(con: Any, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or {})
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def macro_parameters(con: Any, macro: str) -> list[str]:
    """The parameter names of a published table macro, as DuckDB knows them."""
    found = rows(con, "select parameters from duckdb_functions() where function_name = $m "
                      "and function_type = 'table_macro' and database_name = current_database()",
                 {"m": macro})
    return list(found[0]["parameters"]) if found else []


def macro_values(con: Any, macro: str, args: argparse.Namespace) -> dict[str, Any]:
    """The macro's parameters filled from the options of the same name (MACRO_PARAMETER
    renames the few that differ); a parameter no option fills is None (the macro default)."""
    given = {MACRO_PARAMETER.get(k, k): v for k, v in vars(args).items()}
    return {p: given.get(p) for p in macro_parameters(con, macro)}


def call(macro: str, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """`select * from macro(name := $name, ...)` with only the arguments given."""
    given = {k: v for k, v in values.items() if v is not None}
    inner = ", ".join(f"{name} := ${name}" for name in given)
    return f"select * from {macro}({inner})", given


def resolve_accelerator(con: Any, name: str) -> dict[str, Any]:
    """The one accelerator a spelling names, by the SQL macro resolve_accelerator (the same
    resolver as `gpucost offers`): an exact id, catalog name or alias, else a unique family
    match. Several family candidates (e.g. "H100": SXM5, PCIe, NVL) -> EstimateError listing
    them; no candidate -> EstimateError with close spellings."""
    found = rows(con, "select * from resolve_accelerator($name)", {"name": name})
    chosen = [r for r in found if r["resolved"]]
    if chosen:
        return {"accelerator_id": chosen[0]["accelerator_id"], "name": chosen[0]["name"]}
    if found:
        listed = "; ".join(f"{r['accelerator_id']} ({r['name']})" for r in found)
        raise EstimateError(f"ambiguous accelerator {name!r}: it matches {len(found)} "
                            f"accelerators: {listed}; give one of them (its id or name)")
    near = rows(con, "select distinct accelerator_id from accelerator_aliases "
                     "where alias_key like '%' || $key || '%' order by 1 limit 8",
                {"key": name_key(name)})
    hint = f"; did you mean one of: {', '.join(r['accelerator_id'] for r in near)}" if near else ""
    raise EstimateError(f"unknown accelerator {name!r}{hint}")


def assumptions(con: Any, keys: list[str]) -> list[dict[str, Any]]:
    """The cited assumptions behind `keys` (in that order, each once)."""
    wanted = list(dict.fromkeys(k for k in keys if k))
    if not wanted:
        return []
    found = rows(con, "select assumption_key, value, unit, description, source_url "
                      "from cost_assumptions where list_contains($keys, assumption_key)",
                 {"keys": wanted})
    order = {k: i for i, k in enumerate(wanted)}
    return sorted(found, key=lambda r: order[r["assumption_key"]])


def keys_read(found: list[dict[str, Any]]) -> list[str]:
    """The assumption keys the macro says each row read (its assumption_keys), in row order."""
    return [k for r in found for k in (r.get("assumption_keys") or [])]


def mfu_model(con: Any, found: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fitted MFU model and the family factors behind the rows' MFU, when they use it."""
    if not any("mfu_model" in (r.get("mfu_source") or "") for r in found):
        return None
    model = rows(con, "select * from mfu_model")
    if not model:
        return None
    sources = {r.get("mfu_source") or "" for r in found}
    factors = [f for f in rows(con, "select * from mfu_family_factors where mfu_basis <> "
                                    "'mfu_model' order by family")
               if any(src.startswith(f["mfu_source"]) for src in sources)]
    generations = [g for g in rows(con, "select * from mfu_generation_factors where "
                                        "applied_factor is not null order by accelerator_id")
                   if g["mfu_source"] in sources]
    return dict(model[0], family_factors=factors, generation_factors=generations)


def cheapest(found: list[dict[str, Any]], column: str,
             keep: Any = lambda r: True) -> dict[str, dict[str, Any]]:
    """Per accelerator, the row with the lowest `column` among those `keep` accepts."""
    best: dict[str, dict[str, Any]] = {}
    for r in found:
        if not keep(r) or r[column] is None:
            continue
        cur = best.get(r["accelerator_id"])
        # on a tie, the row that names its provider (on_demand_min over the median of one)
        if cur is None or (r[column], r.get("provider") is None) < (
                cur[column], cur.get("provider") is None):
            best[r["accelerator_id"]] = r
    return best


def cheapest_rental(found: list[dict[str, Any]], column: str) -> dict[str, dict[str, Any]]:
    """Per accelerator, the cheapest rental of the best basis_rank (price_bases: observed
    prices before estimates; null for a basis that is no rental offer); an estimated one is
    marked "est." where it is used."""
    best: dict[str, dict[str, Any]] = {}
    for r in found:
        if r.get("basis_rank") is None or r[column] is None:
            continue
        cur = best.get(r["accelerator_id"])
        if cur is None or (r["basis_rank"], r[column], r.get("provider") is None) < (
                cur["basis_rank"], cur[column], cur.get("provider") is None):
            best[r["accelerator_id"]] = r
    return {k: v if v["basis_kind"] == "observed" else dict(
        v, price_basis=f"{v['price_basis']} (est.)") for k, v in best.items()}


def fits(r: dict[str, Any]) -> bool:
    """The row's price is of an instance that holds the GPUs one node of the run needs (or is
    no rental offer: owned, analyst, given); a smaller box never prices a multi-node plan."""
    return r.get("basis_fits_node") is not False


def undated(r: dict[str, Any]) -> bool:
    """A rental basis whose price carries no date (a file replayed without one): not a
    current price, so it never ranks ahead of a dated one."""
    return r.get("basis_rank") is not None and r.get("observed_at") is None


def dated_first(pick: Any, found: list[dict[str, Any]], column: str,
                *args: Any) -> dict[str, dict[str, Any]]:
    """`pick` (cheapest or cheapest_rental) per accelerator among the dated rows, else among
    every row: a platform is priced at an undated offer only when it has no dated one."""
    return pick(found, column, *args) | pick([r for r in found if not undated(r)], column, *args)


def rank_platforms(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranking of a multi-accelerator training estimate, one entry per accelerator:
    ranked (rank 1, 2, ...) by the given price, else the cheapest dated on-demand rental whose
    instance holds a whole node of the run (gpus_per_node), else the cheapest other dated
    rental that fits; then the platforms whose fitting rentals are all undated (not a current
    price), in the same order; a feasible platform with no fitting rental is listed after them,
    unranked, with the reason ("no 8-GPU offer seen; the cheapest is a 1-GPU box at ...");
    infeasible platforms last. Each row of a ranked platform whose basis fits gets `rank` (the
    others None), so no ranked row is priced by a smaller box (issue 38)."""
    given = cheapest(found, "cost_usd", lambda r: r["price_basis"] == "given")
    on_demand = dated_first(cheapest, found, "cost_usd",
                            lambda r: r["price_basis"] == "on_demand_min" and fits(r))
    rented = dated_first(cheapest_rental, [r for r in found if fits(r)], "cost_usd")
    smaller = cheapest_rental([r for r in found if not fits(r)], "price_per_gpu_hour")
    by_acc = {r["accelerator_id"]: r for r in found}
    entries = []
    for acc, r in by_acc.items():
        # dated on-demand, dated other rental, then the same undated
        rentals = [b for b in (on_demand.get(acc), rented.get(acc)) if b]
        basis = given.get(acc) or next(
            (b for b in rentals if not undated(b)), rentals[0] if rentals else None)
        reason = None
        if r["feasible"] is False:
            reason = r.get("infeasible_reason") or "cannot train this model"
        elif basis is None:
            node = int(r.get("gpus_per_node") or 8)
            box = smaller.get(acc)
            reason = f"no {node}-GPU offer seen" + (
                f"; the cheapest is a {box['basis_gpu_count']:g}-GPU box at "
                f"{box['price_per_gpu_hour']:.4g} USD/GPU-h ({box['provider'] or '-'}, "
                f"{box['price_basis']})" if box else "; no rental offer at all")
        entries.append({"accelerator_id": acc, "basis": basis, "reason": reason,
                        "key": (r["feasible"] is False, basis is None,
                                basis is not None and undated(basis),
                                basis is None or basis["price_basis"] not in (
                                    "given", "on_demand_min"),
                                (basis or {}).get("cost_usd") or float("inf"), acc)})
    entries.sort(key=lambda e: e["key"])
    n = 0
    for e in entries:
        e["rank"] = None if e["reason"] else (n := n + 1)
        del e["key"]
    ranks = {e["accelerator_id"]: e["rank"] for e in entries}
    for r in found:
        r["rank"] = ranks[r["accelerator_id"]] if fits(r) else None
    return entries
