"""`gpucost report`: one self-contained HTML dashboard of the published warehouse.

The page works offline and makes no network request: the charts are inline SVG drawn here
(no JavaScript, no fonts, no images, no CDN), the styles are inline, and a
Content-Security-Policy meta tag forbids scripts and every external load. Every string that
comes from the data (GPU names, skus, error messages: scraped text) is HTML-escaped.

A price without a date is not a current price: the "rent now" table lists each seller's dated
on-demand offer first, with its age; an offer from a file replayed without any date
(gpu_offers.observed_at_known false) only comes after every dated one, marked "date unknown".

Charts (each an <svg data-chart="...">, each with a caption <p data-basis-for="..."> naming
the price basis it uses; a panel <div data-chart-missing="..."> says why when the data is not
there):

- cost-per-eflop: USD per 10^18 FLOP at the dense peak, accelerator x precision (cost_per_flop,
  price basis on_demand_min when present);
- memory-per-dollar, bandwidth-per-dollar: GB and TB/s per USD/hour (memory_per_dollar,
  bandwidth_per_dollar, same basis);
- price-history: for the accelerator with the most dated history, one step line per seller
  (gpu_offers.seller of the provider's own listings): its cheapest first-hand on-demand USD
  per GPU-hour per day (price_history, which holds dated observations only);
- training-cost: the training_cost mart's scenarios across accelerators;
- measured-inference: MLPerf results priced at the on-demand basis (inference_measured,
  price_basis on_demand_min; else the owned cost, else the analyst's rental survey, marked);
- source-health: data age per source, coloured by health (source_health).

The marts are read by their documented columns (docs/tables.md); a mart without them gives a
'not available' panel (or, for price_history, the dated offers in force), never a crash.
Labels are measured (Helvetica/Arial metrics with a margin for wider fonts) so that names are
never clipped: the label column widens to the longest name.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from html import escape
from pathlib import Path
from typing import Any

import duckdb

from gpucost.flows.cli.sources import age_text
from gpucost.flows.cli.terminal import one_line, safe, safe_lines

PRECISIONS = ("fp64", "fp64_matrix", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
PREFERRED_BASES = ("on_demand_min", "on_demand_median", "spot_min", "community_min")
# what each price basis is, in the words the chart captions use
BASIS_TEXT = {
    "on_demand_min": "the cheapest seller's on-demand price per GPU-hour, a dated offer "
                     "whenever the accelerator has one",
    "on_demand_median": "the median over sellers of their on-demand price per GPU-hour",
    "spot_min": "the cheapest SPOT (interruptible) price per GPU-hour, not an on-demand price",
    "community_min": "the cheapest marketplace / community price per GPU-hour, not an "
                     "on-demand price",
    "owned": "the amortised cost of owning the accelerator (Epoch AI's method), not a rental",
    "rental_3y_survey": "an analyst's surveyed 3-year rental price (SemiAnalysis), not an "
                        "observed offer",
    "given": "the scenario's own stated price",
}
# the measured-tokens chart: the on-demand basis first, then the fallbacks, in this order
MEASURED_BASES = ("on_demand_min", "owned", "rental_3y_survey")
MEASURED_COLOURS = {"on_demand_min": "#4e79a7", "owned": "#9c9c9c",
                    "rental_3y_survey": "#c7b07a"}
MAX_ROWS = 30
HISTORY_SERIES = 8
# the history chart's window: the last HISTORY_DAYS days of price_history (a date filter the
# storage can use: price_history is stored in day order, so older row groups are skipped);
# two years, so that a price cut a year ago (AWS p5, 2025-06) is still drawn
HISTORY_DAYS = 730
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
HEALTH_COLOURS = {"ok": "#59a14f", "curated": "#9c9c9c", "stale": "#edc948",
                  "replayed": "#76b7b2", "failing": "#e15759", "never fetched": "#bab0ac"}


def esc(value: object) -> str:
    """HTML-escaped text, with every control and bidi character (U+202E reverses what follows
    it on the page) shown as its escape, `\\u202e`: safe_lines (flows/cli/terminal.py)."""
    return escape(safe_lines(value), quote=True)


def fmt(value: float | None, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    v = float(value)
    if v == 0:
        text = "0"
    elif abs(v) >= 1e6:
        text = f"{v / 1e6:,.3g}M"
    elif abs(v) >= 100:
        text = f"{v:,.0f}"
    else:
        text = f"{v:#.3g}"
    return f"{unit}{text}" if unit == "$" else f"{text}{(' ' + unit) if unit else ''}"


# ---- data ------------------------------------------------------------------------------
@dataclass
class Panel:
    """One chart's data, or the reason it is missing."""

    rows: list[Any] = field(default_factory=list)
    note: str = ""  # shown under the chart
    missing: str = ""  # when set, a 'not available' panel with this reason
    kind: str = ""  # which table the rows come from, when there are alternatives
    basis: str = ""  # the caption naming the price basis the chart uses


@dataclass
class ReportData:
    published_at: datetime
    generated_at: datetime
    mart_rows: dict[str, int]
    cost: Panel
    memory: Panel
    bandwidth: Panel
    history: Panel
    training: Panel
    health: Panel
    unmapped: Panel
    prices: Panel = field(default_factory=Panel)
    measured: Panel = field(default_factory=Panel)
    interactivity: Panel = field(default_factory=Panel)
    banner: str = ""  # the freshness banner (empty when every source is fresh)


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main'").fetchall()}


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [r[0] for r in con.execute(
        "select column_name from duckdb_columns() where database_name = current_database() "
        "and schema_name = 'main' and table_name = ? order by column_index", [table]).fetchall()]


def basis_caption(basis: str | None, extra: str = "") -> str:
    """The caption line naming a chart's price basis."""
    if basis is None:
        return "Price basis: none (no price is drawn)." + (f" {extra}" if extra else "")
    text = BASIS_TEXT.get(basis)
    return f"Price basis: {basis}" + (f": {text}." if text else ".") + (
        f" {extra}" if extra else "")


# advance widths of Helvetica / Arial / Liberation Sans in em (what Chromium draws
# 'sans-serif' with here); others 0.6 em. WIDTH_MARGIN covers wider fonts (DejaVu Sans).
_WIDE = {**dict.fromkeys("ijlI.,:;'|!", 0.28), **dict.fromkeys("ft/ []", 0.28),
         **dict.fromkeys("r()-\"", 0.34), **dict.fromkeys("ckvxyzsJ", 0.5),
         **dict.fromkeys("mM", 0.84), "w": 0.73, "W": 0.95, "@": 1.02, "%": 0.89,
         **dict.fromkeys("CDHNRUw", 0.73), **dict.fromkeys("GOQ", 0.78),
         **dict.fromkeys("FTZ", 0.62), **dict.fromkeys("ABEKPSVXY&", 0.67),
         **dict.fromkeys("abdeghnopqu0123456789$_L", 0.56)}
WIDTH_MARGIN = 1.15


def text_width(text: object, size: float = 11) -> float:
    """Rendered width in px of `text` at font size `size`, on the generous side."""
    return sum(_WIDE.get(c, 0.6) for c in str(text)) * size * WIDTH_MARGIN + 2


def label_room(labels: Iterable[object], size: float = 11) -> int:
    """Room in px for a column of right-aligned labels (the longest one, a gap beside)."""
    return math.ceil(max((text_width(t, size) for t in labels), default=0)) + 10


# names people read ("NVIDIA H100 SXM5 80GB") instead of ids, wherever a mart has the id
_NAME = "coalesce(names.name, accelerator_id)"
_NAMED = "left join (select accelerator_id as name_id, name from accelerators) as names " \
         "on names.name_id = accelerator_id"
PRICE_TABLE_ACCELERATORS = 10
PRICE_TABLE_PROVIDERS = 6
STALE_DAYS = 7.0


def _prices_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    """The lead table: accelerator x seller, each seller's on-demand offer in force (USD per
    GPU-hour), its age and where it was read, from seller_prices (a seller counted once,
    however many providers list it, at the offer the mart says stands for it). Per accelerator
    the sellers behind gpu_prices' statistics come first, cheapest first; a seller known only
    from an undated offer (a file replayed without any date) comes after them, marked "date
    unknown", and only in the rows they leave free. Reference prices (typed from a dated
    public price page) count: offline they are what the cost tables below rest on."""
    if "seller_prices" not in tables or "accelerators" not in tables:
        return Panel(missing="seller_prices is not in this warehouse")
    rows = con.execute(f"""
        with offers as (
            select seller_prices.accelerator_id, accelerators.name, seller_prices.provider,
                seller_prices.seller, seller_prices.listing_kind,
                seller_prices.price_per_gpu_hour, seller_prices.sku, seller_prices.age_days,
                seller_prices.observed_at,
                coalesce(seller_prices.observed_at_known, false) as dated,
                seller_prices.source, seller_prices.source_url
            from seller_prices
            inner join accelerators using (accelerator_id)
            where not seller_prices.is_crosscheck
                and seller_prices.currency = 'USD'
                and seller_prices.pricing_model = 'on_demand'
        ),
        ranked as (
            select accelerator_id, count(*) filter (where dated) as n_dated,
                count(*) as n_sellers
            from offers
            group by accelerator_id
            order by n_dated desc, n_sellers desc, accelerator_id
            limit {PRICE_TABLE_ACCELERATORS}
        )
        select offers.name, offers.provider, offers.seller, offers.listing_kind,
            offers.price_per_gpu_hour, offers.sku, offers.dated, offers.age_days,
            offers.observed_at, offers.source, offers.source_url
        from offers inner join ranked using (accelerator_id)
        qualify row_number() over (partition by offers.accelerator_id
            order by offers.dated desc, offers.price_per_gpu_hour, offers.provider)
            <= {PRICE_TABLE_PROVIDERS}
        order by ranked.n_dated desc, ranked.n_sellers desc, offers.accelerator_id,
            offers.dated desc, offers.price_per_gpu_hour, offers.provider
    """).fetchall()
    if not rows:
        return Panel(missing="no first-hand or reference on-demand USD price in force yet")
    return Panel(rows=rows, basis=(
        "Price basis: on-demand (pricing_model on_demand), each seller's offer in force per "
        "GPU-hour (seller_prices.price_per_gpu_hour), dated offers first"), note=(
        f"the {PRICE_TABLE_ACCELERATORS} accelerators offered by the most sellers with a dated "
        f"price; per accelerator up to {PRICE_TABLE_PROVIDERS} sellers (who runs the machine, "
        "counted once however many providers list it), each at its dated on-demand offer in "
        "force, cheapest first, with the age of that observation. An offer from a file "
        "replayed without any date is not a current price: it comes after every dated one, "
        "marked \"date unknown\". Source 'reference': typed from a dated public price page; "
        "crosscheck tables are left out. `gpucost offers NAME --include-reference` lists "
        "every offer."))


def _banner(con: duckdb.DuckDBPyConnection, tables: set[str]) -> str:
    """One line when sources are failing or their data is old (empty when all is fresh)."""
    if "source_health" not in tables:
        return ""
    from gpucost.flows.cli.sources import source_rows

    rows = source_rows(con)
    failing = [r["source"] for r in rows if r["health"] in ("failing", "stale")]
    old = [(r["source"], r["data_age_days"]) for r in rows
           if r["health"] != "curated" and (r.get("data_age_days") or 0) > STALE_DAYS]
    parts = []
    if failing:
        parts.append(f"{len(failing)} source(s) failing: {', '.join(sorted(failing))}")
    if old:
        oldest = max(old, key=lambda x: x[1])
        parts.append(f"{len(old)} source(s) with data older than {STALE_DAYS:g} days "
                     f"(oldest: {oldest[0]}, {age_text(oldest[1])})")
    return "; ".join(parts)


def _basis(con: duckdb.DuckDBPyConnection, table: str) -> str | None:
    have = {r[0] for r in con.execute(
        f'select distinct price_basis from "{table}" '
        "where price_basis is not null and price_basis <> 'purchase'")
        .fetchall()}
    return next((b for b in PREFERRED_BASES if b in have), min(have) if have else None)


def _cost_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    if "cost_per_flop" not in tables:
        return Panel(missing="the cost_per_flop mart is not in this warehouse")
    basis = _basis(con, "cost_per_flop")
    if basis is None:
        return Panel(missing="no accelerator has an hourly price yet")
    rows = con.execute(
        f"select {_NAME}, precision, usd_per_eflop_peak, provider from cost_per_flop "
        f"{_NAMED} where price_basis = ? and usd_per_eflop_peak > 0", [basis]).fetchall()
    return Panel(rows=rows, basis=basis_caption(basis, "(cost_per_flop)"),
                 note=f"price basis {basis}: USD per 10^18 FLOP (int8: OP) at the "
                 "dense peak; divide by the utilisation (MFU) for the effective cost")


def _per_dollar_panel(con: duckdb.DuckDBPyConnection, tables: set[str], table: str,
                      value_col: str) -> Panel:
    if table not in tables:
        return Panel(missing=f"the {table} mart is not in this warehouse")
    basis = _basis(con, table)
    if basis is None:
        return Panel(missing="no accelerator has an hourly price yet")
    rows = con.execute(
        f'select {_NAME}, {value_col}, price_per_gpu_hour, provider from "{table}" {_NAMED} '
        f"where price_basis = ? and {value_col} > 0 order by {value_col} desc, 1 "
        f"limit {MAX_ROWS}", [basis]).fetchall()
    return Panel(rows=rows, note=f"price basis {basis}; top {MAX_ROWS}",
                 basis=basis_caption(basis, f"({table})"))


HISTORY_COLUMNS = {"day", "accelerator_id", "provider", "pricing_model", "currency",
                   "price_per_gpu_hour", "source_kind"}
HISTORY_BASIS = ("Price basis: on-demand (pricing_model on_demand), each seller's cheapest "
                 "dated first-hand USD per GPU-hour per day (price_history.price_per_gpu_hour)")


def _history_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    if "price_history" in tables:
        cols = _columns(con, "price_history")
        if HISTORY_COLUMNS <= set(cols):
            return _seller_history(con, tables)
        fallback = (f"the price_history mart has no recognisable date/price columns "
                    f"({', '.join(cols)}); showing the dated offers in force instead. ")
    else:
        fallback = ("the price_history mart is not in this warehouse; showing the dated offers "
                    "in force by the date each was observed (not a full history). ")
    if "gpu_offers" not in tables:
        return Panel(missing="neither price_history nor gpu_offers is in this warehouse")
    # an undated offer (observed_at null) has no day: it is not drawn
    sql = ("select accelerator_id, cast(observed_at as date) as day, min(price_per_gpu_hour) "
           "from gpu_offers where pricing_model = 'on_demand' and currency = 'USD' "
           "and price_per_gpu_hour > 0 and accelerator_id is not null "
           "and observed_at_known and observed_at is not null group by all")
    panel = _history_rows(con, sql, fallback + "Cheapest on-demand USD per GPU-hour per day.",
                          "gpu_offers")
    panel.basis = ("Price basis: on-demand (pricing_model on_demand), the cheapest dated offer "
                   "in force per accelerator and day (gpu_offers.price_per_gpu_hour)")
    return panel


def _seller_of_provider(con: duckdb.DuckDBPyConnection, tables: set[str]) -> str:
    """SQL relation (provider, seller, aggregator): who runs the machines a provider of
    price_history lists (gpu_offers.seller of its own and marketplace listings), and whether
    the provider only resells others' machines (an aggregator: listing_kind 'resold')."""
    if "gpu_offers" not in tables:
        return "(select null::varchar as provider, null::varchar as seller, " \
               "false as aggregator where false)"
    return ("(select provider, coalesce(min(seller) filter (where listing_kind <> 'resold'), "
            "provider) as seller, bool_and(listing_kind = 'resold') as aggregator "
            "from gpu_offers group by provider)")


def _seller_history(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    """One step line per seller for the accelerator with the most dated first-hand on-demand
    history (price_history holds dated observations only; no crosscheck): each seller's
    cheapest per-GPU price per day. A provider counts as the seller who runs its machines
    (gpu_offers.seller: a renamed provider joins its seller's line); an aggregator's resale
    is left out (its sellers' own prices are drawn)."""
    [(last,)] = con.execute("select max(day) from price_history").fetchall()
    if last is None:
        return Panel(missing="no dated first-hand on-demand USD price observed yet")
    start = last - timedelta(days=HISTORY_DAYS)
    sellers = _seller_of_provider(con, tables)
    base = (f"select coalesce(s.seller, h.provider) as seller, h.accelerator_id, "
            "cast(h.day as date) as day, min(h.price_per_gpu_hour) as price "
            f"from price_history as h left join {sellers} as s using (provider) "
            "where h.day > ? and h.pricing_model = 'on_demand' and h.currency = 'USD' "
            "and h.price_per_gpu_hour > 0 and h.accelerator_id is not null "
            "and h.source_kind = 'first_hand' and not coalesce(s.aggregator, false) "
            "group by all")
    top = con.execute(
        f"with h as ({base}) select accelerator_id from h group by 1 "
        "order by count(distinct day) > 1 desc, count(distinct seller) desc, count(*) desc, "
        "1 limit 1", [start]).fetchall()
    if not top:
        return Panel(missing="no dated first-hand on-demand USD price observed yet")
    acc = top[0][0]
    [(name,)] = con.execute("select coalesce(max(name), ?) from accelerators "
                            "where accelerator_id = ?", [acc, acc]).fetchall()
    # the sellers whose price moved first (a history), then the cheapest
    rows = con.execute(
        f"with h as ({base}), picked as (select seller from h where accelerator_id = ? "
        "group by seller order by count(distinct price) > 1 desc, min(price), seller "
        f"limit {HISTORY_SERIES}) "
        "select h.seller, h.day, h.price from h inner join picked using (seller) "
        "where h.accelerator_id = ? order by 1, 2", [start, acc, acc]).fetchall()
    if not rows:
        return Panel(missing="no history yet")
    first, newest = min(r[1] for r in rows), max(r[1] for r in rows)
    return Panel(rows=rows, kind="seller_history", basis=HISTORY_BASIS, note=(
        f"{name}: each seller's cheapest dated first-hand on-demand USD per GPU-hour per day, "
        f"{first} to {newest} (price_history, at most the {HISTORY_DAYS} days to its newest "
        f"day {last}; up to {HISTORY_SERIES} "
        "sellers, those whose price changed first, then the cheapest; a seller counted once "
        "however many providers list it, aggregators' resales left out; a dot marks a new "
        "price; a dashed tail: a seller's last observed price carried forward to the newest "
        "day of the chart; undated prices and crosscheck tables are not drawn)"))


def _history_rows(con: duckdb.DuckDBPyConnection, sql: str, note: str, kind: str) -> Panel:
    rows = con.execute(
        f"with h as ({sql}), ranked as (select accelerator_id, count(*) as n, "
        "max(day) as last_day from h group by accelerator_id "
        "order by n desc, last_day desc, accelerator_id "
        f"limit {HISTORY_SERIES}) select h.* from h inner join ranked using (accelerator_id) "
        "order by h.accelerator_id, 2").fetchall()
    if not rows:
        return Panel(missing="no dated on-demand USD price observed yet")
    return Panel(rows=rows, note=note, kind=kind)


TRAINING_COLUMNS = ("scenario_id", "accelerator_id", "price_basis", "provider", "cost_usd",
                    "feasible")


def _training_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    if "training_cost" not in tables:
        return Panel(missing="not available: this warehouse has no training_cost mart yet "
                     "(the cost models build it); run a refresh once they are installed")
    cols = _columns(con, "training_cost")
    if not set(TRAINING_COLUMNS) <= set(cols):
        return Panel(missing="not available: training_cost has no recognisable scenario / "
                     f"cost columns (it has: {', '.join(cols)}; the report reads "
                     f"{', '.join(TRAINING_COLUMNS)})")
    # platforms that cannot train the model (memory, scale-up domain) are not ranked
    where, params = ["cost_usd > 0", "feasible is not false"], []
    note = "cost_usd per scenario, cheapest 10 accelerators each that can train the model"
    basis = _basis(con, "training_cost")
    if basis:
        # a scenario that names its own price is priced at it only ('given')
        where.append("(price_basis = ? or price_basis = 'given')")
        params.append(basis)
        note += f", price basis {basis} (or the scenario's own price)"
    rows = con.execute(
        "with t as (select scenario_id as scenario, "
        "accelerator_id || coalesce(' @ ' || provider, '') as platform, min(cost_usd) as cost "
        f"from training_cost where {' and '.join(where)} group by all) "
        "select scenario, platform, cost from t "
        "qualify row_number() over (partition by scenario order by cost, platform) <= 10 "
        "order by scenario, cost, platform", params).fetchall()
    if not rows:
        return Panel(missing="not available: training_cost has no priced rows yet")
    return Panel(rows=rows, note=note, basis=basis_caption(
        basis, "A scenario that states its own price is drawn at it (price_basis 'given')."))


def _measured_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    """Per benchmark and accelerator: the lowest measured USD per million output tokens
    (inference_measured, comparable Offline results) at the on-demand basis (on_demand_min:
    never spot, community or reserved), else, for an accelerator without an on-demand price,
    at the owned cost (GB300 NVL72), else at the analyst's 3-year rental survey price (no
    rental observed and no cited purchase price: MI325X); each bar says which."""
    if "inference_measured" not in tables:
        return Panel(missing="the inference_measured mart is not in this warehouse")
    order = " ".join(f"when '{b}' then {i}" for i, b in enumerate(MEASURED_BASES))
    listed = ", ".join(f"'{b}'" for b in MEASURED_BASES)
    rows = con.execute(f"""
        select benchmark, coalesce(accelerator_name, accelerator_id) as accelerator,
            usd_per_million_output_tokens, round, submitter, software_family, price_basis,
            provider, basis_kind, tokens_per_second_per_accelerator
        from inference_measured
        where comparable and scenario = 'Offline' and usd_per_million_output_tokens > 0
            and price_basis in ({listed})
        qualify row_number() over (
            partition by benchmark, accelerator_id
            order by case price_basis {order} end, usd_per_million_output_tokens) = 1
        order by benchmark, usd_per_million_output_tokens
        """).fetchall()
    if not rows:
        return Panel(missing="no measured result is priced yet: `gpucost ingest mlperf_results "
                     "DIR` loads MLPerf Inference results (README)")
    return Panel(rows=rows, basis=basis_caption("on_demand_min", (
        "An accelerator without an on-demand price is drawn at owned (grey bar: "
        f"{BASIS_TEXT['owned']}), else at rental_3y_survey (sand bar: "
        f"{BASIS_TEXT['rental_3y_survey']}); each bar names its basis.")),
        note="MLPerf Inference, closed division, Offline (throughput) results: each "
        "accelerator's lowest cost per million generated tokens at the on-demand basis "
        "(on_demand_min), the system's GPU-hours priced per GPU; log scale")


def _interactivity_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    """Per model: every measured throughput-vs-interactivity point (inference_interactivity)
    priced at the cheapest dated on-demand offer of the system's size (on_demand_min): USD per
    million output tokens against the tokens/s each user gets, one line per system."""
    if "inference_interactivity" not in tables:
        return Panel(missing="the inference_interactivity mart is not in this warehouse")
    rows = con.execute("""
        select model, curve_id, accelerator_id, measured_by, point,
            tokens_per_second_per_user, interactivity_basis, tokens_per_second_per_gpu,
            usd_per_million_output_tokens, provider, price_per_gpu_hour, on_frontier
        from inference_interactivity
        where price_basis = 'on_demand_min' and usd_per_million_output_tokens > 0
        order by model, accelerator_id, curve_id, tokens_per_second_per_user
        """).fetchall()
    if not rows:
        return Panel(missing="no measured Server, Interactive or sweep point is priced on-demand"
                     " yet: load MLPerf Inference results and InferenceX sweeps (README)")
    return Panel(rows=rows, basis=basis_caption("on_demand_min", (
        "Pricing model on-demand: each system at the cheapest dated on-demand offer of its "
        "node's size.")),
        note="USD per million generated tokens (log) against the tokens/s each user gets "
        "(log): the batch-efficiency curve. MLPerf Server and Interactive results (hollow "
        "points where only the TPOT limit's floor is known) and InferenceX sweeps (one point "
        "per concurrency); a line joins the frontier points of one system (grey: a point "
        "another point of the same system beats on both axes)")


def _health_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    if "source_health" not in tables:
        return Panel(missing="the source_health mart is not in this warehouse")
    from gpucost.flows.cli.sources import source_rows

    rows = source_rows(con)
    return Panel(rows=rows, note="age of the newest data in force when the warehouse was built "
                 "(log scale); colour = health",
                 basis="Price basis: none (data age per source, not a price)")


def _unmapped_panel(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Panel:
    if "unmapped_gpu_names" not in tables:
        return Panel(missing="the unmapped_gpu_names mart is not in this warehouse")
    rows = con.execute(
        "select source, provider, gpu_name_raw, sample_sku, offer_count "
        "from unmapped_gpu_names order by offer_count desc, source, provider, gpu_name_raw "
        "limit 20").fetchall()
    return Panel(rows=rows, note="GPU names that map to no accelerator (add them to "
                 "catalog/aliases.csv)")


def collect(con: duckdb.DuckDBPyConnection, published_at: datetime) -> ReportData:
    tables = _tables(con)
    from gpucost.flows.cli.docs import mart_names

    marts = [m for m in mart_names() if m in tables] + sorted(
        t for t in tables if t in ("price_history", "training_cost") and t not in mart_names())
    counts = {m: con.execute(f'select count(*) from "{m}"').fetchone()[0] for m in marts}
    return ReportData(
        published_at=published_at, generated_at=datetime.now(UTC), mart_rows=counts,
        cost=_cost_panel(con, tables),
        memory=_per_dollar_panel(con, tables, "memory_per_dollar", "gb_per_usd_hour"),
        bandwidth=_per_dollar_panel(con, tables, "bandwidth_per_dollar", "tbps_per_usd_hour"),
        history=_history_panel(con, tables),
        training=_training_panel(con, tables),
        health=_health_panel(con, tables),
        unmapped=_unmapped_panel(con, tables),
        prices=_prices_panel(con, tables),
        measured=_measured_panel(con, tables),
        interactivity=_interactivity_panel(con, tables),
        banner=_banner(con, tables),
    )


# ---- SVG -------------------------------------------------------------------------------
class Svg:
    def __init__(self, width: int, height: int, chart: str, label: str):
        self.width, self.height, self.chart, self.label = width, height, chart, label
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, title: str = "",
             cls: str = "") -> None:
        t = f"<title>{esc(title)}</title>" if title else ""
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f'<rect{c} x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" '
                          f'height="{max(h, 0):.1f}" fill="{fill}">{t}</rect>')

    def text(self, x: float, y: float, s: object, anchor: str = "start", size: int = 11,
             fill: str = "#333", weight: str = "normal") -> None:
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
                          f'font-size="{size}" fill="{fill}" font-weight="{weight}">'
                          f"{esc(s)}</text>")

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#ccc",
             width: float = 1) -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                          f'stroke="{stroke}" stroke-width="{width}"/>')

    def path(self, points: list[tuple[float, float]], stroke: str, title: str = "",
             cls: str = "series", dash: bool = False) -> None:
        d = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in
                     enumerate(points))
        t = f"<title>{esc(title)}</title>" if title else ""
        dashes = ' stroke-dasharray="4 3" stroke-opacity="0.7"' if dash else ""
        self.parts.append(f'<path class="{cls}" d="{d}" fill="none" stroke="{stroke}" '
                          f'stroke-width="2"{dashes}>{t}</path>')

    def circle(self, x: float, y: float, r: float, fill: str, title: str = "") -> None:
        t = f"<title>{esc(title)}</title>" if title else ""
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}">{t}'
                          "</circle>")

    def render(self) -> str:
        return (f'<svg data-chart="{esc(self.chart)}" '
                f'role="img" aria-label="{esc(self.label)}" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
                f'font-family="sans-serif">' + "".join(self.parts) + "</svg>")


def _log_scale(lo: float, hi: float, x0: float, x1: float):  # type: ignore[no-untyped-def]
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1

    def scale(v: float) -> float:
        return x0 + (math.log10(v) - a) / (b - a) * (x1 - x0)

    return scale, [10.0 ** e for e in range(a, b + 1)]


def _tick(v: float, unit: str = "") -> str:
    a = abs(v)
    if a >= 1e9:
        text = f"{v / 1e9:g}B"
    elif a >= 1e6:
        text = f"{v / 1e6:g}M"
    elif a >= 1e4:
        text = f"{v / 1e3:g}k"
    else:
        text = f"{v:,.0f}" if a >= 1000 else f"{v:g}"
    return f"{unit}{text}" if unit == "$" else text


def _nice_ticks(hi: float, n: int = 4) -> list[float]:
    """0, step, 2 step, ... covering hi, with step 1, 2, 2.5 or 5 x 10^k."""
    if hi <= 0:
        return [0.0, 1.0]
    raw = hi / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [k * step for k in range(math.ceil(hi / step - 1e-9) + 1)]


def _lerp_colour(t: float) -> str:
    """Sequential palette (cheap = green/teal, expensive = dark purple), t in [0, 1]."""
    stops = [(0.0, (0x1a, 0x98, 0x50)), (0.35, (0x91, 0xcf, 0x60)), (0.6, (0xfe, 0xe0, 0x8b)),
             (0.8, (0xf4, 0x6d, 0x43)), (1.0, (0x7b, 0x32, 0x94))]
    t = min(1.0, max(0.0, t))
    for (t0, c0), (t1, c1) in zip(stops, stops[1:], strict=False):
        if t <= t1:
            f = (t - t0) / (t1 - t0) if t1 > t0 else 0
            rgb = [round(c0[i] + (c1[i] - c0[i]) * f) for i in range(3)]
            return "#" + "".join(f"{c:02x}" for c in rgb)
    return "#7b3294"


def heatmap_cost(panel: Panel) -> str:
    values: dict[str, dict[str, tuple[float, str | None]]] = {}
    for acc, prec, usd, provider in panel.rows:
        values.setdefault(acc, {})[prec] = (usd, provider)
    precisions = [p for p in PRECISIONS if any(p in v for v in values.values())]

    def order(acc: str) -> tuple[float, str]:
        v = values[acc]
        key = v.get("bf16") or v.get("fp16") or v.get("fp32") or min(v.values())
        return (key[0], acc)

    accs = sorted(values, key=order)[:MAX_ROWS * 2]
    all_v = [u for v in values.values() for u, _ in v.values()]
    lo, hi = math.log10(min(all_v)), math.log10(max(all_v))
    dearer = f"dearer (log scale, {fmt(10 ** lo, '$')} to {fmt(10 ** hi, '$')})"
    cell_w, cell_h, top = 74, 20, 30
    left = max(80, math.ceil(max(text_width(a) for a in accs)) + 12)
    width = max(left + cell_w * len(precisions), left + 20 * 12 + 6 + text_width(dearer, 10))
    svg = Svg(math.ceil(width) + 10, top + cell_h * len(accs) + 44,
              "cost-per-eflop", "USD per 10^18 FLOP by accelerator and precision")
    ly = top + cell_h * len(accs) + 16  # legend: the colour scale, cheap to dear (log)
    svg.text(left - 6, ly + 11, "cheaper", "end", 10, "#666")
    for k in range(20):
        svg.rect(left + k * 12, ly, 12, 14, _lerp_colour(k / 19))
    svg.text(left + 20 * 12 + 6, ly + 11, dearer, "start", 10, "#666")
    for j, prec in enumerate(precisions):
        svg.text(left + j * cell_w + cell_w / 2, top - 10, prec, "middle", 11, weight="bold")
    for i, acc in enumerate(accs):
        y = top + i * cell_h
        svg.text(left - 6, y + cell_h / 2 + 4, acc, "end", 11)
        for j, prec in enumerate(precisions):
            if prec not in values[acc]:
                continue
            usd, provider = values[acc][prec]
            t = (math.log10(usd) - lo) / (hi - lo) if hi > lo else 0.5
            colour = _lerp_colour(t)
            svg.rect(left + j * cell_w + 1, y + 1, cell_w - 2, cell_h - 2, colour,
                     f"{acc} {prec}: ${usd:.4g} per 10^18 FLOP"
                     + (f" ({provider})" if provider else ""), "cell")
            dark = t > 0.75 or t < 0.15
            svg.text(left + j * cell_w + cell_w / 2, y + cell_h / 2 + 4, fmt(usd, "$"),
                     "middle", 10, "#fff" if dark else "#222")
    return svg.render()


def bars(chart: str, label: str, rows: list[tuple[str, float, str, str]], unit: str,
         log: bool = False, plot: int = 300,
         value_text: Callable[[float], str] | None = None,
         texts: list[str] | None = None, left: int = 0) -> str:
    """Horizontal bars: rows of (label, value, colour, tooltip); each bar is labelled with
    `texts[i]` when given, else `value_text(value)` (default: the value in `unit`). The
    label column is as wide as the longest label and the right margin as the longest bar
    label (at least `left`, to align charts drawn one under another), so that no name is
    clipped; `plot` is the width of the bars' area."""
    bar_h, top = 16, 10
    labels = [texts[i] if texts else (value_text(v) if value_text else fmt(v, unit))
              if v and v > 0 else "no data" for i, (_, v, _, _) in enumerate(rows)]
    left = max(60, left, label_room(n for n, _, _, _ in rows))
    right = max(40, math.ceil(max((text_width(t, 10) for t in labels), default=0)) + 10)
    width = left + plot + right
    svg = Svg(width, top + len(rows) * (bar_h + 4) + 26, chart, label)
    x0, x1 = left, left + plot
    vals = [v for _, v, _, _ in rows if v and v > 0]
    if log and vals:
        scale, ticks = _log_scale(min(vals), max(vals), x0, x1)
        for tv in ticks:
            svg.line(scale(tv), top - 4, scale(tv), svg.height - 20)
            svg.text(scale(tv), svg.height - 6, _tick(tv), "middle", 10, "#666")
        base = x0
    else:
        ticks = _nice_ticks(max(vals) if vals else 1.0)
        hi = ticks[-1]

        def scale(v: float) -> float:
            return x0 + v / hi * (x1 - x0)

        base = x0
        for tv in ticks:
            svg.line(scale(tv), top - 4, scale(tv), svg.height - 20)
            svg.text(scale(tv), svg.height - 6, _tick(tv), "middle", 10, "#666")
    for i, (name, value, colour, tip) in enumerate(rows):
        y = top + i * (bar_h + 4)
        svg.text(left - 6, y + bar_h - 4, name, "end", 11)
        if value and value > 0:
            end = scale(value)
            svg.rect(base, y, max(end - base, 1.5), bar_h, colour, tip, "bar")
            svg.text(end + 4, y + bar_h - 4, labels[i], "start", 10, "#333")
        else:
            svg.text(base + 4, y + bar_h - 4, labels[i], "start", 10, "#999")
    return svg.render()


def history_chart(panel: Panel) -> str:
    """One step line per seller from the price_history mart (a price holds until the next
    observation; a dot where it changes; a dashed tail carries the last price forward to the
    newest day of the chart); points only for the fallback (the offers in force are not a
    time series: their dates differ per source)."""
    connect = panel.kind == "seller_history"
    series: dict[str, list[tuple[date, float]]] = {}
    for name, day, price in panel.rows:
        series.setdefault(str(name), []).append((day, float(price)))
    days = sorted({d for pts in series.values() for d, _ in pts})
    prices = [p for pts in series.values() for _, p in pts]
    legend_w = max(text_width(n) for n in series)
    width, height, left, top, bottom = 1000, 320, 60, 14, 40
    right = max(120, math.ceil(legend_w) + 48)
    svg = Svg(width, height, "price-history",
              "cheapest dated on-demand USD per GPU-hour over time, per seller")
    x0, x1, y0, y1 = left, width - right, height - bottom, top
    d0, d1 = days[0].toordinal(), days[-1].toordinal()
    yticks = _nice_ticks(max(prices))
    hi = yticks[-1]

    def sx(d: date) -> float:
        return (x0 + x1) / 2 if d1 == d0 else x0 + (d.toordinal() - d0) / (d1 - d0) * (x1 - x0)

    def sy(p: float) -> float:
        return y0 - p / hi * (y0 - y1)

    for v in yticks:
        svg.line(x0, sy(v), x1, sy(v))
        svg.text(x0 - 6, sy(v) + 4, _tick(v, "$"), "end", 10, "#666")
    if d1 == d0:
        ticks = [days[0]]
    else:
        n = min(6, d1 - d0)
        ticks = [date.fromordinal(round(d0 + i * (d1 - d0) / n)) for i in range(n + 1)]
    for d in ticks:
        svg.line(sx(d), y0, sx(d), y0 + 4, "#999")
        svg.text(sx(d), y0 + 18, d.isoformat(), "middle", 10, "#666")
    for k, (name, pts) in enumerate(sorted(series.items())):
        colour = PALETTE[k % len(PALETTE)]
        pts.sort()
        xy = [(sx(d), sy(p)) for d, p in pts]
        if connect:
            stepped = [xy[0]]  # a step line: a price holds until the next observation
            for x, y in xy[1:]:
                stepped += [(x, stepped[-1][1]), (x, y)]
            if len(stepped) == 1:  # one observation: a short tick, so the line is seen
                stepped.append((stepped[0][0] + 2, stepped[0][1]))
            svg.path(stepped, colour, name)
            if pts[-1][0] < days[-1]:  # the last price carried forward (dashed)
                svg.path([xy[-1], (sx(days[-1]), xy[-1][1])], colour,
                         f"{name}: last observed {pts[-1][0].isoformat()} at "
                         f"${pts[-1][1]:.3f}, carried forward", "carry", dash=True)
            # a dot where the seller's price is first seen and wherever it changes
            marks = [i for i in range(len(pts)) if i == 0 or pts[i][1] != pts[i - 1][1]]
        else:
            marks = list(range(len(pts)))
        for i in marks:
            (d, p), (x, y) = pts[i], xy[i]
            svg.circle(x, y, 3.5, colour, f"{name} {d.isoformat()}: ${p:.3f}/GPU-hour")
        ly = top + 10 + k * 18
        svg.rect(x1 + 16, ly - 9, 12, 12, colour)
        svg.text(x1 + 32, ly + 1, name, "start", 11)
    return svg.render()


def training_chart(panel: Panel) -> str:
    by_scenario: dict[str, list[tuple[str, float]]] = {}
    for scenario, platform, cost in panel.rows:
        by_scenario.setdefault(str(scenario), []).append((str(platform), float(cost)))
    out = []
    left = label_room(p for rows in by_scenario.values() for p, _ in rows)
    for k, (scenario, rows) in enumerate(sorted(by_scenario.items())):
        colour = PALETTE[k % len(PALETTE)]
        out.append(f'<h3>{esc(scenario)}</h3>' + bars(
            "training-cost", f"training cost of {scenario} by platform",
            [(p, c, colour, f"{scenario} on {p}: ${c:,.0f}") for p, c in rows], "$", log=True,
            left=left))
    return "".join(out)


MEASURED_SHORT = {"on_demand_min": "on-demand", "owned": "owned cost",
                  "rental_3y_survey": "3-year rental survey"}


def measured_chart(panel: Panel) -> str:
    by_benchmark: dict[str, list[tuple[str, float, str, str]]] = {}
    texts: dict[str, list[str]] = {}
    for (bench, acc, usd, rnd, submitter, software, basis, provider, _kind,
         tps) in panel.rows:
        tip = (f"{acc} on {bench}: {usd:.3g} USD per million output tokens at {basis}"
               + (f" ({provider})" if provider else "")
               + f"; {tps:,.0f} tokens/s per GPU, "
               f"MLPerf {rnd} {submitter}, {software or 'software not named'}")
        colour = MEASURED_COLOURS.get(basis, "#9c9c9c")
        by_benchmark.setdefault(str(bench), []).append((str(acc), float(usd), colour, tip))
        texts.setdefault(str(bench), []).append(
            f"${usd:.3g} ({MEASURED_SHORT.get(basis, basis)})")
    left = label_room(r[0] for rows in by_benchmark.values() for r in rows)
    return "".join(
        f"<h3>{esc(bench)}</h3>" + bars(
            "measured-inference", f"measured USD per million output tokens, {bench}", rows,
            "$", log=True, plot=420, texts=texts[bench], left=left)
        for bench, rows in sorted(by_benchmark.items()))


def interactivity_chart(panel: Panel) -> str:
    """Per model, a log-log chart: x tokens/s per user, y USD per million output tokens, one
    colour per accelerator, a line per system (curve)."""
    by_model: dict[str, list[tuple]] = {}
    for row in panel.rows:
        by_model.setdefault(str(row[0]), []).append(row)
    out = []
    for model, rows in sorted(by_model.items()):
        accs = sorted({str(r[2]) for r in rows})
        colour = {a: PALETTE[k % len(PALETTE)] for k, a in enumerate(accs)}
        width, height, left, top, bottom = 900, 300, 64, 14, 40
        right = max(140, math.ceil(max(text_width(a) for a in accs)) + 48)
        svg = Svg(width, height, "interactivity",
                  f"USD per million output tokens against tokens/s per user, {model}")
        x0, x1, y0, y1 = left, width - right, height - bottom, top
        xs = [float(r[5]) for r in rows]
        ys = [float(r[8]) for r in rows]
        sx, xticks = _log_scale(min(xs), max(xs), x0, x1)
        sy_up, yticks = _log_scale(min(ys), max(ys), 0, y0 - y1)

        def sy(v: float, up=sy_up, base=y0) -> float:
            return base - up(v)

        for v in xticks:
            svg.line(sx(v), y0, sx(v), y1)
            svg.text(sx(v), y0 + 16, _tick(v), "middle", 10, "#666")
        for v in yticks:
            svg.line(x0, sy(v), x1, sy(v))
            svg.text(x0 - 6, sy(v) + 4, f"${v:g}", "end", 10, "#666")
        svg.text((x0 + x1) / 2, height - 6, "tokens/s per user", "middle", 10, "#666")
        svg.text(x0 + 4, y1 + 12, "USD per million output tokens", "start", 10, "#666")
        curves: dict[str, list[tuple]] = {}
        for r in rows:
            curves.setdefault(str(r[1]), []).append(r)
        for curve, pts in curves.items():
            c = colour[str(pts[0][2])]
            xy = [(sx(float(p[5])), sy(float(p[8]))) for p in pts]
            line = [q for q, p in zip(xy, pts, strict=True) if p[11]]
            if len(line) > 1:
                svg.path(line, c, curve)
            for (x, y), p in zip(xy, pts, strict=True):
                dot = c if p[11] else "#bbbbbb"
                svg.circle(x, y, 3.5 if p[6] != "tpot_bound" else 2.5,
                           dot if p[6] != "tpot_bound" else "#ffffff",
                           f"{p[2]} ({p[3]}, {p[4]}): {float(p[5]):.3g} tokens/s per user"
                           + (" (TPOT limit's floor)" if p[6] == "tpot_bound" else "")
                           + f", {float(p[7]):,.0f} tokens/s per GPU, "
                           f"${float(p[8]):.3g} per million at ${float(p[10]):.3g}/GPU-hour "
                           f"on-demand ({p[9]}); {curve}"
                           + ("" if p[11] else "; off the frontier: another point of this "
                              "system beats it on both axes"))
                if p[6] == "tpot_bound":
                    svg.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="none" '
                                     f'stroke="{c}" stroke-width="1.5"/>')
        for k, a in enumerate(accs):
            ly = top + 10 + k * 18
            svg.rect(x1 + 16, ly - 9, 12, 12, colour[a])
            svg.text(x1 + 32, ly + 1, a, "start", 11)
        out.append(f"<h3>{esc(model)}</h3>" + svg.render())
    return "".join(out)


def health_chart(panel: Panel) -> str:
    rows = []
    for r in panel.rows:
        age = r.get("data_age_days")
        rows.append((f"{r['source']} ({r['health']})", age if age and age > 0 else None,
                     HEALTH_COLOURS.get(r["health"], "#999"),
                     f"{r['source']}: {r['health']}, data age {age_text(age)}"))
    return bars("source-health", "data age per source (days)", rows, "d", log=True,
                plot=360, value_text=age_text)


def _table(head: list[str], rows: list[list[object]], cls: str = "") -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


# ---- page ------------------------------------------------------------------------------
CSS = """
body{font-family:sans-serif;margin:24px;color:#222;background:#fafafa;max-width:1180px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:0 0 6px}
h3{font-size:13px;margin:10px 0 2px}
.meta{color:#555;font-size:13px;margin-bottom:18px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:14px 16px;margin:0 0 18px}
.note{color:#555;font-size:12px;margin:6px 0 0}
.pair{display:flex;flex-wrap:wrap;gap:16px}
.na{border:1px dashed #bbb;background:#f4f4f4;color:#555;padding:18px;border-radius:4px;
font-size:13px}
table{border-collapse:collapse;font-size:12px;margin-top:8px}
th,td{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.err{max-width:520px;word-break:break-word}
nav a{margin-right:12px;font-size:13px}
.banner{background:#fff4d6;border:1px solid #edc948;padding:8px 12px;margin:8px 0;font-size:14px}
table.prices td.num{text-align:right;font-variant-numeric:tabular-nums}
table.prices tr.undated td{color:#777;background:#f7f7f7}
table.prices tr.undated td.age{font-style:italic}
.basis{font-size:12px;color:#333;margin:2px 0 6px;font-weight:bold}
.pair>div{min-width:0}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; " \
      "form-action 'none'"


def _basis_line(chart: str, panel: Panel) -> str:
    """The caption naming the price basis of a chart (empty when the panel has none)."""
    if not panel.basis or panel.missing:
        return ""
    return f'<p class="basis" data-basis-for="{esc(chart)}">{esc(panel.basis)}</p>'


def _price_row(name: str, provider: str, seller: str | None, listing_kind: str | None,
               price: float, sku: str, dated: bool, age: float | None,
               observed_at: datetime | None, source: str, url: str | None) -> str:
    """One row of the "rent now" table: a dated offer with its age, or an undated one
    marked "date unknown" (class undated, data-dated false)."""
    who = provider
    if seller and seller != provider:
        who = f"{provider} (resells {seller})" if listing_kind == "resold" else \
            f"{provider} (seller {seller})"
    if dated:
        when = observed_at.strftime("%Y-%m-%d") if observed_at else ""
        age_cell = (f'<td class="age" title="observed {esc(when)}">'
                    f"{esc(age_text(age) if age is not None else when)}</td>")
        head = '<tr data-dated="true">'
    else:
        age_cell = ('<td class="age" title="from a file replayed without any date: not a '
                    'current price">date unknown</td>')
        head = '<tr class="undated" data-dated="false">'
    link = f'<td><a href="{esc(url)}">{esc(source)}</a></td>' if url else \
        f"<td>{esc(source)}</td>"
    return (f"{head}<td>{esc(name)}</td><td>{esc(who)}</td>"
            f'<td class="num">{price:.3f}</td><td>{esc(sku)}</td>{age_cell}{link}</tr>')


def _section(anchor: str, title: str, chart: str, body: str, panel: Panel) -> str:
    if panel.missing:
        body = f'<div class="na" data-chart-missing="{esc(chart)}">{esc(panel.missing)}</div>'
    else:
        body = _basis_line(chart, panel) + body
    note = f'<p class="note">{esc(panel.note)}</p>' if panel.note and not panel.missing else ""
    return f'<section id="{anchor}"><h2>{esc(title)}</h2>{body}{note}</section>'


def render(data: ReportData) -> str:
    """The whole page as one string (no external resource of any kind)."""
    cost = heatmap_cost(data.cost) if not data.cost.missing else ""
    mem = bars("memory-per-dollar", "GB of accelerator memory per USD/hour",
               [(a, v, "#4e79a7", f"{a}: {v:.3g} GB per USD/hour at ${p:.3g}/GPU-hour"
                 + (f" ({prov})" if prov else "")) for a, v, p, prov in data.memory.rows],
               "GB") if not data.memory.missing else ""
    bw = bars("bandwidth-per-dollar", "TB/s of memory bandwidth per USD/hour",
              [(a, v, "#f28e2b", f"{a}: {v:.3g} TB/s per USD/hour at ${p:.3g}/GPU-hour"
                + (f" ({prov})" if prov else "")) for a, v, p, prov in data.bandwidth.rows],
              "TB/s") if not data.bandwidth.missing else ""
    per_dollar = (
        '<div class="pair"><div><h3>GB per USD/hour</h3>'
        + (_basis_line("memory-per-dollar", data.memory) + mem
           or f'<div class="na" data-chart-missing="memory-per-dollar">'
           f'{esc(data.memory.missing)}</div>')
        + '</div><div><h3>TB/s per USD/hour</h3>'
        + (_basis_line("bandwidth-per-dollar", data.bandwidth) + bw
           or f'<div class="na" data-chart-missing="bandwidth-per-dollar">'
           f'{esc(data.bandwidth.missing)}</div>')
        + "</div></div>")
    per_dollar_panel = Panel(note=data.memory.note or data.bandwidth.note)
    history = history_chart(data.history) if not data.history.missing else ""
    training = training_chart(data.training) if not data.training.missing else ""
    measured = measured_chart(data.measured) if not data.measured.missing else ""
    interactivity = interactivity_chart(data.interactivity) \
        if not data.interactivity.missing else ""
    health = ""
    if not data.health.missing:
        health = health_chart(data.health) + _table(
            ["source", "kind", "health", "last status", "rows in force", "data age",
             "last success (UTC)", "last error"],
            [[r["source"], r.get("kind"), r["health"], r.get("last_status"),
              r.get("rows_in_force"), age_text(r.get("data_age_days")),
              r["last_success_at"].strftime("%Y-%m-%d %H:%M") if r.get("last_success_at")
              else "",
              (f"{r['last_error_type']}: {r.get('last_error') or ''}"
               if r.get("last_error_type") else "")] for r in data.health.rows], "health")
    unmapped = _table(["source", "provider", "GPU name (as scraped)", "sample sku", "offers"],
                      [list(r) for r in data.unmapped.rows], "unmapped") \
        if data.unmapped.rows else "<p class=\"note\">every GPU name maps to an accelerator</p>"
    counts = ", ".join(f"{esc(k)} {v}" for k, v in sorted(data.mart_rows.items()))
    prices = ""
    if data.prices.rows:
        body = "".join(_price_row(*r) for r in data.prices.rows)
        prices = ('<table class="prices" data-table="prices"><thead><tr><th>accelerator</th>'
                  "<th>provider</th><th>USD / GPU-hour</th><th>sku</th><th>age</th>"
                  f"<th>source</th></tr></thead><tbody>{body}</tbody></table>")
    sections = [
        _section("prices", "What an accelerator costs to rent now (on-demand, per GPU-hour)",
                 "price-table", prices, data.prices),
        _section("cost", "Cost per 10^18 FLOP by accelerator and precision", "cost-per-eflop",
                 cost, data.cost),
        _section("per-dollar", "Memory and bandwidth per dollar", "memory-per-dollar",
                 per_dollar, per_dollar_panel),
        _section("history", "Price history", "price-history", history, data.history),
        _section("training", "Training cost of the seed scenarios across platforms",
                 "training-cost", training, data.training),
        _section("measured", "What a million tokens cost, measured (MLPerf Inference)",
                 "measured-inference", measured, data.measured),
        _section("interactivity", "Cost per million tokens against the speed each user gets",
                 "interactivity", interactivity, data.interactivity),
        _section("health", "Source health and data age", "source-health", health, data.health),
        _section("unmapped", "Unmapped GPU names", "unmapped-gpu-names", unmapped,
                 data.unmapped),
    ]
    nav = "".join(f'<a href="#{a}">{esc(t)}</a>' for a, t in (
        ("prices", "prices now"), ("cost", "cost per FLOP"), ("per-dollar", "per dollar"),
        ("history", "price history"),
        ("training", "training cost"), ("measured", "tokens, measured"),
        ("interactivity", "tokens per user"),
        ("health", "sources"), ("unmapped", "unmapped names")))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>gpucost report</title>"
        f"<style>{CSS}</style></head><body>"
        "<h1>gpucost: the cost of AI compute</h1>"
        f'<div class="meta">warehouse published {esc(data.published_at.strftime("%Y-%m-%d %H:%M"))}'
        f' UTC; report generated {esc(data.generated_at.strftime("%Y-%m-%d %H:%M"))} UTC. '
        f"Rows: {counts}.</div>"
        + (f'<div class="banner" data-banner="freshness">Data freshness: '
           f"{esc(data.banner)}. `gpucost sources` says more.</div>" if data.banner else "")
        + f"<nav>{nav}</nav><br>"
        + "".join(sections) + "</body></html>\n"
    )


def write_report(data_dir: Path, out: Path) -> Path:
    """Render the published warehouse of `data_dir` into `out` (written atomically)."""
    from gpucost.warehouse.publish import connect_readonly, serving_path

    con = connect_readonly(data_dir)  # NoWarehouseError when nothing is published yet
    published_at = datetime.fromtimestamp(serving_path(data_dir).stat().st_mtime, UTC)
    try:
        html = render(collect(con, published_at))
    finally:
        con.close()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-report-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(html)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a report is for sharing
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def cmd_report(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import NoWarehouseError

    out = Path(args.output) if args.output else data_dir() / "report.html"
    problem = _unwritable(out)
    if problem:
        print(f"error: -o {safe(out)}: {problem}", file=sys.stderr)
        return 2
    try:
        path = write_report(data_dir(), out)
    except NoWarehouseError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:  # the folder is read-only, the disk full...
        print(f"error: -o {safe(out)}: cannot write the report there: "
              f"{one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2
    print(f"wrote {safe(path)}")
    return 0


def _unwritable(out: Path) -> str:
    """Why the report cannot be written at `out` ("" when it looks writable): a directory, a
    parent that is a file, a folder without write permission."""
    if out.is_dir() or str(out).endswith(os.sep):
        return "a directory; give the file to write, e.g. report.html"
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{safe(parent)} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {safe(parent)} (permission denied)"
    return ""


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("report", help="write the self-contained HTML dashboard",
                       description=__doc__)
    r.add_argument("-o", "--output", help="where to write it (default "
                   "<data dir>/report.html, i.e. warehouse/data/report.html)")
    r.set_defaults(func=cmd_report)
