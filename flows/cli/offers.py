"""`gpucost offers H100[:8]`: what an accelerator costs to rent right now, and where.

The everyday price question, in the spirit of `sky show-gpus` and `gpuhunt.query`: offers in
force (gpu_offers) for the accelerators a name matches, first-hand prices by default (the
curated reference prices with `--include-reference`, the crosscheck tables with
`--include-crosscheck`, both marked), one row per provider x sku x pricing model at its cheapest
region (`--all-regions` lists every region), with the per-GPU and instance price, GPU count
and memory, the observation's age, the source and the URL the price was read from. Resold
offers (an aggregator such as Shadeform or Prime Intellect listing another provider's machine,
listing_kind 'resold') are real offers a buyer can rent: listed, marked "resells SELLER", and
counted in the footer; `--no-resold` leaves them out and says how many it left out. An offer
whose date is only approximate (observed_at_precision 'month') shows its age as ~YYYY-MM.

Which accelerators a name means is decided by one SQL macro, resolve_accelerator
(models/macros/), which `gpucost estimate -a` calls too: exact id, catalog name or alias, and
every accelerator whose name holds each word of the query as a whole word (`H100` lists every
H100 variant; `H200` never GH200, `L40` never L40S). Offers someone can rent now come first:
fresh ones, then stale ones (more than price_max_age_days behind the part's newest price,
marked), then
disputed ones (the provider's own page states another price; price_disputes), each marked and
counted in the footer; an offer that is no whole instance says what it buys in its source cell
(GPU + cheapest host, shape sold whole, GPU only). Dated offers come first, undated ones
(files replayed without a date: age "unknown") after them; `--dated-only` and `--max-age DAYS`
leave the undated out. Offers a name search would have matched but whose GPU name maps to no
accelerator are counted under the listing (`unmapped_gpu_names`).

As of a past day (`--as-of YYYY-MM-DD`, `gpucost.offers(..., as_of="2026-04-15")`): the offers
in force at the end of that UTC day, built by the same SQL models from the raw layer with the
session variable gpucost_as_of (models/as_of.py): the same columns, order, marks and footer,
ages and staleness counted from that day, disputes judged with what was observed by then, and
never a price observed after it (a file replayed without a date counts from when it was
loaded). A day before the first observation, in the future or malformed is a usage error
(exit 2). docs/offers.md.

How it is sold: on-demand by default; `--pricing-model MODEL` any value of the pricing-model
vocabulary (catalog/records.py PRICING_MODELS: spot, reserved_6m, savings_plan_1y, queued,
capacity_block, ...) or `all`; `--term MONTHS` the commitments of that length (the SQL macro
term_months: 1, 6, 12 or 36; `--term 12` lists reserved_1y and savings_plan_1y offers). A
listing of more than one pricing model shows the pricing model of each row; every row carries
term_months. An unknown model or term, or a model whose term is another, is a usage error.

The same query from Python: `gpucost.offers("H100:8", max_price=3.5)` returns a DataFrame.

Stock (`--available`, `gpucost.offers(..., available=True)`): gpu_offers.available is the
payload's own flag (RunPod stockStatus, Vast rentable / rented, Lambda's regions with
capacity; null where the payload does not say). `--available` keeps only offers that can be
launched now: flagged true AND dated AND not stale; an undated or stale offer flagged true
was in stock when observed, which says nothing about now. Without the option nothing is
hidden: the column `available` (csv / json) and a mark in the age cell (in stock, was in
stock, no stock; nothing when not stated) show it. docs/offers.md.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from datetime import UTC, date, datetime
from typing import Any

from gpucost.catalog.records import PRICING_MODELS
from gpucost.flows.cli.options import non_negative, positive, positive_int
from gpucost.flows.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    add_format_option,
    write_frame,
    write_table,
)
from gpucost.flows.cli.terminal import one_line, safe

SORTS = {"price": "price_per_gpu_hour", "price_per_tflop": "usd_per_bf16_pflop_hour",
         "age": "age_days"}
COLUMNS = ["accelerator_id", "accelerator_name", "provider", "seller", "listing_kind", "sku",
           "region", "pricing_model", "price_per_gpu_hour", "price_per_hour", "gpu_count",
           "gpu_memory_gb", "usd_per_bf16_pflop_hour", "n_regions", "observed_at",
           "observed_at_known", "observed_at_precision", "age_days", "is_stale", "is_disputed",
           "price_kind", "term_months", "source", "source_kind",
           "fetch_id", "source_url", "available", "price_listed", "currency_listed",
           "fx_rate_date", "fx_basis"]
# with --workload: the measured result behind each offer's cost per million tokens
WORKLOAD_COLUMNS = ["workload", "round", "submitter", "software_family",
                    "result_accelerator_count", "match", "match_note",
                    "tokens_per_second_per_gpu", "tokens_per_second_per_user",
                    "interactivity_basis", "result_observed_at",
                    "usd_per_million_output_tokens_all_in", "output_tokens_per_query",
                    "output_tokens_basis", "input_tokens_per_query", "input_tokens_basis",
                    "output_to_input_cost_ratio", "token_split_method", "blend_input_per_output",
                    "usd_per_million_input_tokens", "usd_per_million_output_tokens",
                    "usd_per_million_tokens_blended"]
SCENARIOS = ("offline", "server", "interactive")
DEFAULT_SCENARIO = "server"
RESOLVE_SQL = "select * from resolve_accelerator($name)"
# --pricing-model: the vocabulary (catalog/records.py), or every model
PRICING_MODEL_CHOICES = (*sorted(PRICING_MODELS), "all")
# the commitment length of every pricing model, from the one macro that says it
TERMS_SQL = ("select pricing_model, term_months(pricing_model) as months "
             "from unnest($models) as models(pricing_model)")
UNMAPPED_SQL = "gpucost sql \"select * from unmapped_gpu_names\""


# what a price buys when it is not a whole instance (gpu_offers.price_kind)
PRICE_KIND_MARKS = {"gpu_with_host": "GPU + cheapest host", "shape_per_gpu": "shape sold whole",
                    "gpu_component": "GPU only: CPU, RAM on top", "gpu_only": "GPU only"}


class OffersError(Exception):
    """The question cannot be answered as asked (no such accelerator, a bad GPU count)."""


class AsOfError(OffersError):
    """--as-of cannot be answered: not a day (YYYY-MM-DD), a day in the future, a day before
    the first price observed, or no raw layer to read the history from."""


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_as_of(value: Any, today: date | None = None) -> date:
    """'2026-04-15' (or a datetime.date) -> the day, in UTC; AsOfError for anything else, or
    for a day after today (UTC): prices are known up to now."""
    today = today or datetime.now(UTC).date()
    if isinstance(value, datetime):
        raise AsOfError(f"--as-of {value!r}: give a day (YYYY-MM-DD, UTC), not an instant")
    if isinstance(value, date):
        day = value
    else:
        text = str(value).strip()
        try:
            if not _DAY.fullmatch(text):
                raise ValueError
            day = date.fromisoformat(text)
        except ValueError:
            raise AsOfError(f"--as-of {one_line(value)!r}: give a day as YYYY-MM-DD (UTC), "
                            "e.g. 2026-04-15") from None
    if day > today:
        raise AsOfError(f"--as-of {day}: that day is in the future (today is {today} UTC); "
                        "prices are known up to now")
    return day


def connect_as_of(data_dir: Any, day: date) -> Any:
    """A connection on which gpu_offers and unmapped_gpu_names are as of the end of `day`
    (models/as_of.py): the published warehouse read-only, the raw layer read under the writer
    lock for the moment the build takes (a refresh or ingest writing it: WarehouseBusyError).
    AsOfError when there is no raw layer, or when no price had been observed by that day."""
    from pathlib import Path

    import duckdb

    from gpucost.models import as_of
    from gpucost.warehouse import memory_limit
    from gpucost.warehouse.publish import (
        DataDirNotWritableError,
        NoWarehouseError,
        WarehouseBusyError,
        serving_path,
        writer_lock,
    )

    data_dir = Path(data_dir)
    published, raw = serving_path(data_dir), data_dir / "raw.duckdb"
    if not published.exists():
        raise NoWarehouseError(f"no published warehouse at {published}: run `gpucost refresh` "
                               "first")
    if not raw.exists():
        raise AsOfError(f"--as-of {day}: no raw layer at {raw}; an answer as of a past day is "
                        "built from the observations kept there (the published warehouse holds "
                        "only what is in force now)")
    instant = as_of.as_of_instant(day)

    def build() -> Any:
        try:
            return as_of.connect_as_of(published, raw, instant, memory_limit=memory_limit())
        except duckdb.Error as exc:  # raw.duckdb held read-write by a writer outside the lock
            if "lock" in str(exc).lower():
                raise WarehouseBusyError(f"{raw} is being written; ask again when the refresh "
                                         "or ingest is done") from None
            raise

    try:
        with writer_lock(data_dir):
            con = build()
    except DataDirNotWritableError:  # nobody can write there either: no lock needed
        con = build()
    if not con.execute("select count(*) from int_offers_mapped").fetchall()[0][0]:
        earliest = as_of.earliest_price_day(con)
        con.close()
        raise AsOfError(f"--as-of {day}: no price had been observed by the end of that day "
                        + (f"(the first observation in the warehouse is of {earliest} UTC)"
                           if earliest else "(the warehouse holds no price observation)"))
    return con


def parse_gpu(text: str) -> tuple[str, int | None]:
    """"H100:8" -> ("H100", 8); "H100" -> ("H100", None)."""
    name, _, count = text.partition(":")
    if not name.strip():
        raise OffersError(f"{text!r}: give an accelerator name, e.g. H100 or H100:8")
    if not any(c.isascii() and c.isalnum() for c in name):  # "%", "_", "*": no wildcards
        raise OffersError(f"{text!r}: an accelerator name needs letters or digits (names are "
                          "literal, no wildcards; e.g. H100 or H100:8)")
    if not count:
        return name.strip(), None
    try:
        n = int(count)
    except ValueError:
        raise OffersError(f"{text!r}: the GPU count after ':' must be a whole number") from None
    if n < 1:
        raise OffersError(f"{text!r}: the GPU count must be at least 1")
    return name.strip(), n


def resolve(con: Any, name: str) -> list[dict[str, Any]]:
    """The accelerators `name` may mean, as the macro resolve_accelerator gives them
    (accelerator_id, name, matched_by, matched_spelling, match_rank, resolved)."""
    cur = con.execute(RESOLVE_SQL, {"name": name})
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def matched_ids(con: Any, name: str) -> list[str]:
    """Every accelerator a listing of `name` shows (all candidates: a family match lists every
    member), or OffersError when the name matches none."""
    ids = sorted(r["accelerator_id"] for r in resolve(con, name))
    if not ids:
        raise OffersError(f"no accelerator matches {name!r} (`gpucost sql \"select "
                          "accelerator_id, name from accelerators\"` lists them)")
    return ids


def unmapped_offers(con: Any, gpu: str, *, provider: str | None = None) -> list[dict[str, Any]]:
    """Offers in force that a search for `gpu` would have matched but that have no per-GPU
    price: their GPU name maps to no accelerator (reason no_alias) or the size's GPU count is
    unknown (gpu_count_unknown), from the mart unmapped_gpu_names. A GPU name counts when
    resolve_accelerator gives it a candidate the search has (bare "H100" -> every H100, so it
    counts for "H100" and for "H100 SXM"), or when it holds every word of the search."""
    name, _count = parse_gpu(gpu)
    ids = matched_ids(con, name)
    cur = con.execute(
        """
        select
            unmapped.gpu_name_raw,
            unmapped.reason,
            sum(unmapped.offer_count)::bigint as offer_count,
            string_agg(distinct unmapped.provider, ', ' order by unmapped.provider)
                as providers
        from unmapped_gpu_names as unmapped
        where unmapped.offer_count > 0
            and unmapped.gpu_name_raw is not null
            and ($provider is null or lower(unmapped.provider) = lower($provider))
            and (
                exists (
                    select 1 from resolve_accelerator(unmapped.gpu_name_raw) as candidates
                    where list_contains($ids, candidates.accelerator_id)
                )
                or list_has_all(
                    regexp_split_to_array(lower(unmapped.gpu_name_raw), '[^a-z0-9]+'),
                    list_filter(regexp_split_to_array(lower($name), '[^a-z0-9]+'),
                                lambda token: token <> ''))
            )
        group by unmapped.gpu_name_raw, unmapped.reason
        order by offer_count desc, unmapped.gpu_name_raw
        """, {"ids": ids, "provider": provider, "name": name})
    cols = [d[0] for d in cur.description or []]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def unmapped_line(rows: list[dict[str, Any]]) -> str:
    """"3 offers named H100 could not be mapped: gpucost sql ..." (empty without such rows)."""
    if not rows:
        return ""
    parts = []
    for reason, what in (("no_alias", "could not be mapped to an accelerator"),
                         ("gpu_count_unknown", "have no known GPU count (no per-GPU price)")):
        found = [r for r in rows if r["reason"] == reason]
        if not found:
            continue
        n = sum(r["offer_count"] for r in found)
        names = ", ".join(safe(r["gpu_name_raw"]) for r in found[:5]) \
            + (", ..." if len(found) > 5 else "")
        parts.append(f"{n} offer{'s' if n != 1 else ''} named {names} {what}")
    return "; ".join(parts) + f": {UNMAPPED_SQL}"


def term_months_of(con: Any) -> dict[str, int | None]:
    """Every pricing model of the vocabulary -> the months of its commitment (the SQL macro
    term_months; None for a price with no commitment)."""
    found = con.execute(TERMS_SQL, {"models": sorted(PRICING_MODELS)}).fetchall()
    return {model: (int(months) if months is not None else None) for model, months in found}


def pricing_models(terms: dict[str, int | None], pricing_model: str | None,
                   term: Any = None) -> tuple[list[str], str]:
    """The pricing models a listing holds, and how the listing names them: `pricing_model`
    alone (default on_demand; 'all' every model), or with `term` (months) the commitments of
    that length (all of them, or the one model named, which must be of that length).
    OffersError for a model outside the vocabulary, a term no model sells, or a model whose
    term is another."""
    if pricing_model is not None and pricing_model != "all" \
            and pricing_model not in terms:
        raise OffersError(f"--pricing-model {one_line(pricing_model)!r}: one of "
                          f"{', '.join(PRICING_MODEL_CHOICES)}")
    if term is None:
        model = pricing_model or "on_demand"
        return (sorted(terms) if model == "all" else [model]), model.replace("_", "-")
    lengths = sorted({m for m in terms.values() if m is not None})
    months = term if isinstance(term, int) and not isinstance(term, bool) else None
    if isinstance(term, float) and term.is_integer():
        months = int(term)
    if months not in lengths:
        raise OffersError(f"--term {one_line(term)}: commitments are sold for "
                          + ", ".join(str(m) for m in lengths[:-1]) + f" or {lengths[-1]} "
                          "months (term_months)")
    sold = sorted(m for m, n in terms.items() if n == months)
    if pricing_model is None or pricing_model == "all":
        return sold, f"{months}-month commitment ({', '.join(sold)})"
    if pricing_model not in sold:
        has = terms[pricing_model]
        raise OffersError(f"--pricing-model {pricing_model} with --term {months}: "
                          + (f"{pricing_model} is a {has}-month commitment" if has
                             else f"{pricing_model} is no commitment")
                          + f"; the {months}-month ones are {', '.join(sold)}")
    return [pricing_model], f"{months}-month commitment ({pricing_model})"


def _usd(value: Any) -> str:
    """A cost per million tokens, or '-' when there is none (null or NaN)."""
    return f"{value:.3g}" if value is not None and value == value else "-"


def _split_footer(frame: Any) -> str:
    """How --workload splits a query's GPU time between its input and output tokens, with the
    lengths and the blend ratio the rows read (offer_token_costs)."""
    split = frame.dropna(subset=["usd_per_million_input_tokens"])
    if split.empty:
        return ("USD/M in, out, 3:1: no split (the roofline lacks this model or accelerator); "
                "the all-in figure stands")
    r = split.iloc[0]
    return (f"USD/M in / out: a query's cost (all-in x {r.output_tokens_per_query:.4g} output "
            f"tokens, {r.output_tokens_basis}: tokens/s / samples/s) split between its "
            f"{r.input_tokens_per_query:.4g} input tokens ({safe(r.input_tokens_basis)}) and its "
            f"output tokens, an output token costing {r.output_to_input_cost_ratio:.3g}x an "
            f"input token ({safe(r.token_split_method)}); USD/M 3:1 blends "
            f"{r.blend_input_per_output:g} input tokens per output token (docs/cost-models.md)")


def parse_workload(con: Any, text: str) -> tuple[str, str]:
    """'llama2-70b' or 'gpt-oss-120b:interactive' -> (benchmark, scenario); the benchmark must
    be one measured in the warehouse (offer_token_costs)."""
    benchmark, _, scenario = text.strip().lower().partition(":")
    scenario = scenario.strip() or DEFAULT_SCENARIO
    if scenario not in SCENARIOS:
        raise OffersError(f"--workload {text!r}: the scenario must be one of "
                          f"{', '.join(SCENARIOS)} (benchmark:scenario)")
    known = [r[0] for r in con.execute(
        "select distinct benchmark from offer_token_costs order by 1").fetchall()]
    if benchmark.strip() not in known:
        raise OffersError(f"--workload {text!r}: no measured benchmark of that name; measured: "
                          f"{', '.join(known) or 'none (load MLPerf Inference results)'}")
    return benchmark.strip(), scenario


def query_offers(con: Any, gpu: str, *, min_memory_gb: float | None = None,
                 max_price: float | None = None, provider: str | None = None,
                 region: str | None = None, pricing_model: str | None = None,
                 term: int | None = None, sort: str = "price", all_regions: bool = False,
                 include_crosscheck: bool = False, include_reference: bool = False,
                 dated_only: bool = False, max_age_days: float | None = None,
                 workload: str | None = None, include_resold: bool = True,
                 available: bool = False) -> Any:
    """The offers as a pandas DataFrame (columns COLUMNS): dated offers first, then undated
    ones (observed_at_known false: age unknown), each group cheapest first by `sort`.
    Resold offers (listing_kind 'resold': an aggregator lists another provider's machine,
    `seller` runs it) are in it unless include_resold is false; frame.attrs["resold_left_out"]
    counts the rows that left out.
    dated_only leaves the undated out; max_age_days keeps offers observed at most that many
    days ago (an undated offer's age is unknown, so it is left out too). workload
    ('llama2-70b', 'gpt-oss-120b:interactive'; the scenario defaults to server) adds
    WORKLOAD_COLUMNS from the mart offer_token_costs: the closest comparable measured result
    and the offer's USD per million output tokens at it. pricing_model (default on_demand; a
    value of catalog/records.py PRICING_MODELS, or 'all') and term (months: the commitments
    of that length, term_months) choose how the offers are sold (pricing_models);
    frame.attrs["pricing_models"] and ["listing"] say which. available keeps only offers that
    can be launched now: the payload flags them available, and they are dated and not stale."""
    name, count = parse_gpu(gpu)
    terms = term_months_of(con)
    models, listing = pricing_models(terms, pricing_model, term)
    benchmark, scenario = parse_workload(con, workload) if workload else (None, None)
    if sort not in SORTS:
        raise OffersError(f"--sort must be one of {', '.join(SORTS)}")
    for option, value, what in (("--min-memory", min_memory_gb, "GB, 0 or more"),
                                ("--max-price", max_price, "USD, more than 0"),
                                ("--max-age", max_age_days, "days, 0 or more")):
        if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)
                                      and (value > 0 or (value == 0 and "0 or" in what))):
            raise OffersError(f"{option} must be a finite number of {what}, not {value!r}")
    ids = matched_ids(con, name)
    kinds = (["first_hand"] + (["reference"] if include_reference else [])
             + (["crosscheck"] if include_crosscheck else []))
    partition = "offers.provider, offers.sku, offers.pricing_model, offers.region" \
        if all_regions else "offers.provider, offers.sku, offers.pricing_model"
    sql = f"""
        with offers as (
            select
                gpu_offers.*,
                accelerators.name as accelerator_name,
                gpu_offers.price_per_gpu_hour / accelerators.peak_bf16_dense_tflops * 1000
                    as usd_per_bf16_pflop_hour
            from gpu_offers
            inner join accelerators
                on accelerators.accelerator_id = gpu_offers.accelerator_id
            where list_contains($ids, gpu_offers.accelerator_id)
                and list_contains($kinds, gpu_offers.source_kind)
                and gpu_offers.price_per_gpu_hour is not null
                and gpu_offers.currency = 'USD'
                and list_contains($models, gpu_offers.pricing_model)
                and ($count is null or gpu_offers.gpu_count = $count)
                and ($max_price is null or gpu_offers.price_per_gpu_hour <= $max_price)
                and ($min_memory is null or coalesce(gpu_offers.gpu_memory_gb,
                                                     accelerators.memory_gb) >= $min_memory)
                and ($provider is null or lower(gpu_offers.provider) = lower($provider))
                and ($region is null
                     or contains(lower(gpu_offers.region), lower($region)))
                and (not $dated_only or gpu_offers.observed_at_known)
                and ($max_age is null or (gpu_offers.observed_at_known
                                          and gpu_offers.age_days <= $max_age))
                -- launchable now: flagged by its payload, and a dated, current observation
                and (not $available or (coalesce(gpu_offers.available, false)
                                        and gpu_offers.observed_at_known
                                        and not gpu_offers.is_stale))
        )
        select
            offers.*,
            count(*) over (partition by offers.provider, offers.sku, offers.pricing_model)
                as n_regions,
            coalesce(offers.gpu_memory_gb, accelerators.memory_gb) as memory_gb,
            {', '.join(f'tokens.{c}' for c in WORKLOAD_COLUMNS)}
        from offers
        inner join accelerators on accelerators.accelerator_id = offers.accelerator_id
        left join offer_token_costs as tokens
            on tokens.accelerator_id = offers.accelerator_id
            and tokens.provider = offers.provider
            and tokens.sku = offers.sku
            and tokens.region is not distinct from offers.region
            and tokens.pricing_model = offers.pricing_model
            and tokens.source = offers.source
            and tokens.price_per_gpu_hour = offers.price_per_gpu_hour
            and tokens.benchmark = $benchmark
            and lower(tokens.scenario) = $scenario
        qualify row_number() over (
            partition by {partition}
            order by offers.observed_at_known desc, offers.is_disputed, offers.is_stale,
                offers.price_per_gpu_hour, offers.observed_at desc, offers.source,
                offers.region
        ) = 1
    """
    import pandas as pd

    cur = con.execute(sql, {
        "ids": ids, "kinds": kinds, "models": models, "count": count, "max_price": max_price,
        "min_memory": min_memory_gb, "provider": provider, "region": region,
        "dated_only": dated_only, "max_age": max_age_days,
        "benchmark": benchmark, "scenario": scenario, "available": bool(available),
    })
    frame = pd.DataFrame(cur.fetchall(), columns=[d[0] for d in cur.description])
    frame["gpu_memory_gb"] = frame["memory_gb"]
    frame["term_months"] = frame["pricing_model"].map(terms).astype("Int64")
    # a resold offer is its aggregator's own provider x sku: leaving it out after the query
    # drops whole rows, never changes another row's cheapest region
    resold = frame["listing_kind"].eq("resold")
    left_out = 0 if include_resold else int(resold.sum())
    if left_out:
        frame = frame[~resold].copy()
    frame["observed_at_known"] = frame["observed_at_known"].fillna(False).astype(bool)
    # the payload's stock flag as True / False / None (not stated), never NaN
    frame["available"] = pd.Series([None if v is None or v != v else bool(v)
                                    for v in frame["available"]], index=frame.index,
                                   dtype=object)
    frame["_undated"] = ~frame["observed_at_known"]
    # a price someone can pay now first: fresh, then stale (far behind the part's newest
    # price), then disputed (the provider's own page states another price)
    frame["_standing"] = frame["is_disputed"].fillna(False).astype(int) * 2 \
        + frame["is_stale"].fillna(False).astype(int)
    frame = frame.sort_values(["_undated", "_standing", SORTS[sort], "price_per_gpu_hour",
                               "provider", "sku"], na_position="last", kind="stable")
    frame = frame[COLUMNS + (WORKLOAD_COLUMNS if workload else [])].reset_index(drop=True)
    frame.attrs["resold_left_out"] = left_out
    frame.attrs["price_max_age_days"] = price_max_age_days(con)
    frame.attrs["available_only"] = bool(available)
    frame.attrs["pricing_models"] = models
    frame.attrs["listing"] = listing
    return frame


def price_max_age_days(con: Any) -> float | None:
    """The assumption behind is_stale (catalog/assumptions.csv), as the warehouse holds it."""
    found = con.execute("select value from cost_assumptions "
                        "where assumption_key = 'price_max_age_days'").fetchall()
    return found[0][0] if found else None


def offers(gpu: str, *, data_dir: Any = None, as_of: Any = None, **filters: Any) -> Any:
    """`gpucost offers` from Python: a DataFrame of the offers in force for `gpu` ("H100",
    "H100:8"), read from the published warehouse; with as_of (a day: "2026-04-15" or a
    datetime.date, UTC) the offers in force at the end of that day, built from the raw layer
    by the same models (connect_as_of; frame.attrs["as_of"] names the day; AsOfError for a
    malformed or future day, or one before the first observation; workload is not asked as
    of a day). Keyword filters as in query_offers:
    min_memory_gb, max_price, provider, region, pricing_model ("on_demand", "spot",
    "reserved_6m", ... of catalog/records.py PRICING_MODELS, or "all"), term (months: 1, 6, 12
    or 36, the commitments of that length), sort ("price", "price_per_tflop", "age"),
    all_regions, include_crosscheck, include_reference, dated_only, max_age_days,
    include_resold (default True: resold offers are listed, listing_kind 'resold'; False
    leaves them out and counts them in frame.attrs["resold_left_out"]), available (only offers
    that can be launched now: flagged available by their payload, dated and not stale). The
    name is resolved by the SQL macro resolve_accelerator, as `gpucost offers` and
    `gpucost estimate -a` do."""
    from gpucost.warehouse import data_dir as default_data_dir
    from gpucost.warehouse.publish import connect_readonly

    parse_gpu(gpu)  # a bad name or count is said before the warehouse is opened
    day = None
    if as_of is not None:
        day = parse_as_of(as_of)
        if filters.get("workload"):
            raise AsOfError("--workload is not answered as of a day (the measured results are "
                            "today's); ask without --as-of")
        con = connect_as_of(data_dir or default_data_dir(), day)
    else:
        con = connect_readonly(data_dir or default_data_dir())
    try:
        frame = query_offers(con, gpu, **filters)
        # offers the search would have matched but that have no per-GPU price (unmapped)
        frame.attrs["unmapped_offers"] = unmapped_offers(con, gpu,
                                                         provider=filters.get("provider"))
        frame.attrs["as_of"] = day.isoformat() if day else None
        return frame
    finally:
        con.close()


def _age(days: float | None, observed_at: Any = None, precision: Any = None) -> str:
    """The age cell: '12 d', '5 h', 'unknown' (no date), or '~2026-10' for an approximate
    date (only the month is known: an age in days would claim more than that)."""
    if days is None or days != days:  # None or NaN: the observation date is unknown
        return "unknown"
    if precision == "month" and observed_at is not None and observed_at == observed_at:
        return f"~{observed_at:%Y-%m}"
    return f"{days:.0f} d" if days >= 1 else f"{days * 24:.0f} h"


def fx_mark(basis: Any, listed: Any, currency: Any, rate_date: Any) -> str:
    """The source cell's note for a price converted to USD (gpu_offers.fx_basis): the listed
    price and currency, and the ECB day whose rate converted it ("newest rate" for an undated
    price); '' for a price listed in USD."""
    if basis not in ("observation_day", "newest_rate"):
        return ""
    day = str(rate_date)[:10] if rate_date is not None and rate_date == rate_date else "?"
    how = "ECB rate of" if basis == "observation_day" else "undated: ECB newest rate,"
    return f" (listed {listed:.4g} {currency}; {how} {day})"


def stock_mark(available: Any, observed_at_known: Any, is_stale: Any) -> str:
    """The stock mark of the age cell: ', in stock' (flagged available, dated, not stale:
    launchable now), ', was in stock' (flagged available but undated or stale: it says
    nothing about now), ', no stock' (flagged not available), '' (not stated)."""
    def flag(value: Any) -> bool | None:  # numpy and pandas booleans, NaN / None unknown
        return None if value is None or value != value else bool(value)

    if flag(available) is True:
        return ", in stock" if flag(observed_at_known) and not flag(is_stale) \
            else ", was in stock"
    return ", no stock" if flag(available) is False else ""


def _provider_cell(provider: str, listing_kind: Any, seller: Any) -> str:
    """The provider, and for a resold offer whose machine it is: 'shadeform (resells lambda)'."""
    if listing_kind == "resold":
        return f"{provider} (resells {seller or '?'})"
    return provider


def _kinds_shown(args: argparse.Namespace, n_resold: int = 0, left_out: int = 0) -> str:
    """What the listing holds, truly: first-hand prices (with the resold ones among them
    counted), and the reference and crosscheck prices when asked for."""
    extra = [kind for kind, shown in (("reference", args.include_reference),
                                      ("crosscheck", args.include_crosscheck)) if shown]
    kinds = ["first-hand"] + (["resold"] if n_resold else []) + extra
    label = (f"{kinds[0]} prices only" if len(kinds) == 1
             else ", ".join(kinds[:-1]) + f" and {kinds[-1]} prices")
    if n_resold:
        label += (f" ({n_resold} resold: an aggregator lists another provider's machine, "
                  "marked 'resells'; --no-resold leaves them out)")
    if left_out:
        label += (f"; {left_out} resold offer(s) left out (--no-resold: an aggregator lists "
                  "another provider's machine; without the option they are listed, marked)")
    return label


def _hidden_offers(args: argparse.Namespace, model: str | None) -> str:
    """What the options left out, when nothing first-hand matches: offline, the reference
    prices are often all there is, and the user should hear of them, with the option."""
    if args.include_reference and args.include_crosscheck:
        return ""
    every = offers(args.gpu, min_memory_gb=args.min_memory, max_price=args.max_price,
                   provider=args.provider, region=args.region, pricing_model=model,
                   term=args.term, sort=args.sort, all_regions=args.all_regions,
                   include_crosscheck=True,
                   include_reference=True, dated_only=args.dated_only,
                   max_age_days=args.max_age, include_resold=not args.no_resold,
                   as_of=args.as_of, available=args.available)
    kinds = every["source_kind"].value_counts()
    hints = [f"{kinds[kind]} {label} (--include-{kind} lists them)"
             for kind, label, shown in (
                 ("reference", "curated reference price(s)", args.include_reference),
                 ("crosscheck", "crosscheck table row(s)", args.include_crosscheck))
             if not shown and kinds.get(kind, 0)]
    if not hints:
        return " (first-hand prices; no reference or crosscheck price matches either)"
    return " among first-hand prices; " + " and ".join(hints) + " match"


def _unavailable_hint(args: argparse.Namespace, model: str) -> str:
    """With --available and nothing left: how many offers match without it."""
    every = offers(args.gpu, min_memory_gb=args.min_memory, max_price=args.max_price,
                   provider=args.provider, region=args.region, pricing_model=model,
                   term=args.term, sort=args.sort, all_regions=args.all_regions,
                   include_crosscheck=args.include_crosscheck,
                   include_reference=args.include_reference, dated_only=args.dated_only,
                   max_age_days=args.max_age, include_resold=not args.no_resold,
                   as_of=args.as_of)
    return (f"; --available keeps only offers whose payload states they can be launched now "
            f"(flagged available, dated, not stale): {len(every)} offer(s) match without it, "
            "of unstated stock, no stock, or undated or stale")


def _stock_footer(frame: Any, available_only: bool) -> str:
    """What the listing says about stock: with --available, that every row is launchable now
    by its payload; otherwise how many rows state stock at all (nothing when none does)."""
    if available_only:
        return ("; only offers whose payload states they can be launched now (--available: "
                "flagged available, dated, not stale; as of each offer's age)")
    stated = frame["available"].map(lambda v: v is not None and v == v)
    if not stated.any():
        return ""
    now = sum(stock_mark(r.available, r.observed_at_known, r.is_stale) == ", in stock"
              for r in frame.itertuples())
    unstated = len(frame) - int(stated.sum())
    return (f"; stock stated for {int(stated.sum())} ({now} in stock now; --available keeps "
            "only those)" + (f", not stated for {unstated}" if unstated else ""))


def cmd_offers(args: argparse.Namespace) -> int:
    model = "spot" if args.spot else args.pricing_model
    try:
        frame = offers(args.gpu, min_memory_gb=args.min_memory, max_price=args.max_price,
                       provider=args.provider, region=args.region, pricing_model=model,
                       term=args.term, sort=args.sort, all_regions=args.all_regions,
                       include_crosscheck=args.include_crosscheck,
                       include_reference=args.include_reference,
                       dated_only=args.dated_only, max_age_days=args.max_age,
                       workload=args.workload, include_resold=not args.no_resold,
                       as_of=args.as_of, available=args.available)
    except OffersError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    unmapped = unmapped_line(frame.attrs.get("unmapped_offers") or [])
    if args.format in ("csv", "json"):
        write_frame(frame, args.format)
        return EXIT_OK
    left_out = int(frame.attrs.get("resold_left_out") or 0)
    as_of = frame.attrs.get("as_of")
    when = f" at the end of {as_of} UTC" if as_of else ""
    listing = frame.attrs.get("listing") or "on-demand"
    several = len(frame.attrs.get("pricing_models") or []) > 1
    if frame.empty:
        print(f"no {listing} offer in force{when} matches "
              f"{safe(repr(args.gpu))}"
              + _hidden_offers(args, model)
              + (f"; {left_out} resold offer(s) match, left out by --no-resold"
                 if left_out else "")
              + (_unavailable_hint(args, model) if args.available else ""))
        if unmapped:
            print(unmapped)
        return EXIT_FAILED
    rows = []
    for r in frame.itertuples():
        mark = f" ({r.source_kind})" if r.source_kind != "first_hand" \
            and r.source != r.source_kind else ""
        if r.is_disputed is True:
            mark += " (disputed: price_disputes)"
        if r.price_kind in PRICE_KIND_MARKS:
            mark += f" ({PRICE_KIND_MARKS[r.price_kind]})"
        mark += fx_mark(r.fx_basis, r.price_listed, r.currency_listed, r.fx_rate_date)
        region = r.region or "-"
        if not args.all_regions and r.n_regions > 1:
            region += f" (+{r.n_regions - 1})"
        memory = f"{r.gpu_memory_gb:g}" if r.gpu_memory_gb == r.gpu_memory_gb else "-"
        tokens = []
        if args.workload:
            measured = r.tokens_per_second_per_gpu == r.tokens_per_second_per_gpu \
                and r.tokens_per_second_per_gpu is not None
            tokens = [_usd(r.usd_per_million_input_tokens), _usd(r.usd_per_million_output_tokens),
                      _usd(r.usd_per_million_tokens_blended),
                      _usd(r.usd_per_million_output_tokens_all_in),
                      f"{r.tokens_per_second_per_gpu:,.0f}" if measured else "-",
                      (f"{r.round} {r.submitter} {r.software_family or '?'} "
                       f"({r.match}, {r.result_accelerator_count:g} GPUs)") if measured
                      else f"no {args.workload} result on this accelerator"]
        rows.append([r.accelerator_name, _provider_cell(r.provider, r.listing_kind, r.seller),
                     r.sku, region, *([r.pricing_model] if several else []),
                     f"{r.price_per_gpu_hour:.4g}", f"{r.price_per_hour:.4g}",
                     f"{r.gpu_count:g}", memory,
                     _age(r.age_days, r.observed_at, r.observed_at_precision)
                     + (", stale" if r.is_stale is True else "")
                     + stock_mark(r.available, r.observed_at_known, r.is_stale), *tokens,
                     f"{r.source}{mark}", r.source_url or "-"])
    header = ["accelerator", "provider", "sku",
              "region" if args.all_regions else "region (cheapest)",
              *(["pricing model"] if several else []), "USD/GPU-h",
              "USD/h", "GPUs", "GB/GPU", "age"] + (
                  ["USD/M in", "USD/M out", "USD/M 3:1", "USD/M out all-in", "tok/s/GPU",
                   "measured (round, submitter, software, match)"]
                  if args.workload else []) + ["source", "source URL"]
    write_table(header, rows)  # every cell escaped: remote text
    undated = int((~frame["observed_at_known"]).sum())
    stale = int(frame["is_stale"].eq(True).sum())
    disputed = int(frame["is_disputed"].eq(True).sum())
    approximate = int(frame["observed_at_precision"].eq("month").sum())
    print(f"{len(rows)} offer(s), {listing}, "
          + ("every region" if args.all_regions else "cheapest region of each provider x sku")
          + "; " + _kinds_shown(args, int(frame["listing_kind"].eq("resold").sum()), left_out)
          + (f"; {approximate} dated only approximately (age ~YYYY-MM: the month its data "
             "README gives, counted from its first day)" if approximate else "")
          + (f"; {stale} stale (more than {frame.attrs['price_max_age_days']:g} days behind "
             "the part's newest price: listed, in no statistic)" if stale else "")
          + (f"; {disputed} disputed (the provider's own page states another price: "
             "price_disputes; in no statistic)" if disputed else "")
          + (f"; dated first, then {undated} undated (age unknown: a file replayed without a"
             " date; --dated-only leaves them out)" if undated else "")
          + (f"; as of the end of {as_of} UTC (what was in force then: ages, staleness and "
             "disputes counted from that day, no price observed after it)" if as_of else "")
          + _stock_footer(frame, args.available))
    if args.workload:
        workload = frame["workload"].dropna()
        print(f"USD/M out all-in: USD per million generated tokens = USD/GPU-h / (tok/s/GPU x "
              f"3600) x 10^6 (the whole GPU-hour charged to output), at the closest measured "
              f"MLPerf Inference result of "
              f"{safe(workload.iloc[0] if len(workload) else args.workload)} "
              "(offer_token_costs): "
              "same size first, else whole copies of a smaller system; a larger system is "
              "not comparable")
        print(_split_footer(frame))
    if unmapped:
        print(unmapped)
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    o = sub.add_parser("offers", help="what an accelerator costs to rent now, and where "
                                      "(e.g. `gpucost offers H100:8`)")
    o.add_argument("gpu", help="accelerator name, optionally with a GPU count: H100, H100:8")
    o.add_argument("--min-memory", type=non_negative, metavar="GB",
                   help="at least this GB per GPU")
    o.add_argument("--max-price", type=positive, metavar="USD",
                   help="at most this USD per GPU-hour")
    o.add_argument("--provider", help="only this provider (aws, gcp, lambda, runpod...)")
    o.add_argument("--region", help="only regions containing this text (literal, any case)")
    models = o.add_mutually_exclusive_group()
    models.add_argument("--spot", action="store_true", help="spot prices (= --pricing-model spot)")
    models.add_argument("--pricing-model", choices=PRICING_MODEL_CHOICES, metavar="MODEL",
                        help="how the offers are sold: " + ", ".join(PRICING_MODEL_CHOICES)
                             + " (default on_demand; with --term, every model of that term)")
    o.add_argument("--term", type=positive_int, metavar="MONTHS",
                   help="commitments of this length only: 1, 6, 12 or 36 months (12: "
                        "reserved_1y and savings_plan_1y)")
    o.add_argument("--sort", choices=tuple(SORTS), default="price",
                   help="price (per GPU-hour), price_per_tflop (per bf16 dense PFLOP-hour), age")
    o.add_argument("--all-regions", action="store_true",
                   help="every region, not only each provider x sku's cheapest")
    o.add_argument("--include-crosscheck", action="store_true",
                   help="add the curated public price tables (marked, never first-hand)")
    o.add_argument("--include-reference", action="store_true",
                   help="add the curated reference prices (typed from providers' pages, marked)")
    o.add_argument("--no-resold", action="store_true",
                   help="leave out resold offers (an aggregator such as Shadeform or Prime "
                        "Intellect listing another provider's machine); they are listed, "
                        "marked 'resells SELLER', otherwise")
    o.add_argument("--dated-only", action="store_true",
                   help="leave out offers whose observation date is unknown (files replayed "
                        "without a date); they are listed after the dated ones otherwise")
    o.add_argument("--max-age", type=non_negative, metavar="DAYS",
                   help="only offers observed at most DAYS ago (undated offers are left out)")
    o.add_argument("--available", action="store_true",
                   help="only offers whose payload states they can be launched now (RunPod "
                        "stock, Vast rentable, Lambda capacity), dated and not stale; offers "
                        "of unstated stock are listed, unmarked, otherwise")
    o.add_argument("--workload", metavar="BENCHMARK[:SCENARIO]",
                   help="add USD per million generated tokens at the closest measured MLPerf "
                        "Inference result, e.g. llama2-70b, gpt-oss-120b:interactive "
                        f"(scenario offline, server or interactive; default {DEFAULT_SCENARIO})")
    o.add_argument("--as-of", metavar="YYYY-MM-DD",
                   help="the offers in force at the end of that day (UTC), from the raw layer "
                        "and its history: same columns and rules, ages counted from that day")
    add_format_option(o)
    o.set_defaults(func=cmd_offers)
