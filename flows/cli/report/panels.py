"""The report's panels: one query of the published marts per panel, and `collect`.

Each panel selects the documented columns of its marts by name (docs/tables.md: the marts are
this project's interface) and returns a `Panel`: its rows, a note, the caption naming the
price basis, or why it is missing (a mart an older warehouse does not have). What the marts
already compute (a seller counted once, dated before undated, the statistics of gpu_prices)
is read from them, never worked out again here. Nothing here draws: svg.py draws the rows,
page.py lays out the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb

from gpucost.flows.cli.output import age_text

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
MAX_ROWS = 30
HISTORY_SERIES = 8
# the history chart's window: the last HISTORY_DAYS days of price_history (a date filter the
# storage can use: price_history is stored in day order, so older row groups are skipped);
# two years, so that a price cut a year ago (AWS p5, 2025-06) is still drawn
HISTORY_DAYS = 730
PRICE_TABLE_ACCELERATORS = 10
PRICE_TABLE_PROVIDERS = 6
# the banner names the sources whose data in force is older than this (curated ones aside)
OLD_DATA_DAYS = 7.0

# names people read ("NVIDIA H100 SXM5 80GB") instead of ids, wherever a mart has the id
_NAME = "coalesce(names.name, accelerator_id)"
_NAMED = "left join (select accelerator_id as name_id, name from accelerators) as names " \
         "on names.name_id = accelerator_id"
# a basis whose price carries no date (a file replayed without one) is not a current price:
# its label says so, and it comes after the dated ones
_UNDATED = "observed_at is null"
_NAME_DATED = f"{_NAME} || case when {_UNDATED} then ' (undated)' else '' end"


@dataclass
class Panel:
    """One chart's data, or the reason it is missing."""

    rows: list[Any] = field(default_factory=list)
    note: str = ""  # shown under the chart
    missing: str = ""  # when set, a 'not available' panel with this reason
    basis: str = ""  # the caption naming the price basis the chart uses
    # the history chart's daily index (price_index): (day, index, p25, p75, n_sellers) rows
    index: list[Any] = field(default_factory=list)


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


def tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The tables of the connection's main schema (the published marts)."""
    return {r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main'").fetchall()}


def _absent(have: set[str], *marts: str) -> Panel | None:
    """A 'not available' panel when a mart the panel reads is not in this warehouse (one
    built before that mart existed), else None."""
    gone = [m for m in marts if m not in have]
    return Panel(missing=f"the {gone[0]} mart is not in this warehouse") if gone else None


def basis_caption(basis: str | None, extra: str = "") -> str:
    """The caption line naming a chart's price basis."""
    if basis is None:
        return "Price basis: none (no price is drawn)." + (f" {extra}" if extra else "")
    text = BASIS_TEXT.get(basis)
    return f"Price basis: {basis}" + (f": {text}." if text else ".") + (
        f" {extra}" if extra else "")


def prices_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    """The lead table: accelerator x seller, each seller's on-demand offer in force (USD per
    GPU-hour), its age and where it was read, from seller_prices (a seller counted once,
    however many providers list it, at the offer the mart says stands for it). The
    accelerators with the most dated sellers come first (gpu_prices: n_providers when its
    statistics are dated, n_providers_undated beside them). Per accelerator the dated sellers
    come first, cheapest first; a seller known only from an undated offer (a file replayed
    without any date) comes after them, marked "date unknown", and only in the rows they leave
    free. Reference prices (typed from a dated public price page) count: offline they are what
    the cost tables below rest on."""
    if absent := _absent(have, "seller_prices", "gpu_prices", "accelerators"):
        return absent
    rows = con.execute(f"""
        with ranked as (
            select accelerator_id,
                case when observed_at_known then n_providers else 0 end as n_dated,
                n_providers + n_providers_undated as n_sellers
            from gpu_prices
            inner join accelerators using (accelerator_id)
            where pricing_model = 'on_demand' and n_providers + n_providers_undated > 0
            order by n_dated desc, n_sellers desc, accelerator_id
            limit {PRICE_TABLE_ACCELERATORS}
        )
        select accelerators.name, offers.provider, offers.seller, offers.listing_kind,
            offers.price_per_gpu_hour, offers.sku, offers.observed_at_known, offers.age_days,
            offers.observed_at, offers.source, offers.source_url, offers.is_stale
        from seller_prices as offers
        inner join ranked using (accelerator_id)
        inner join accelerators using (accelerator_id)
        where not offers.is_crosscheck and offers.pricing_model = 'on_demand'
        qualify row_number() over (partition by offers.accelerator_id
            order by offers.observed_at_known desc, offers.is_stale,
                offers.price_per_gpu_hour, offers.provider)
            <= {PRICE_TABLE_PROVIDERS}
        order by ranked.n_dated desc, ranked.n_sellers desc, offers.accelerator_id,
            offers.observed_at_known desc, offers.is_stale, offers.price_per_gpu_hour,
            offers.provider
    """).fetchall()
    if not rows:
        return Panel(missing="no first-hand or reference on-demand USD price in force yet")
    return Panel(rows=rows, basis=(
        "Price basis: on-demand (pricing_model on_demand), each seller's offer in force per "
        "GPU-hour (seller_prices.price_per_gpu_hour), dated offers first"), note=(
        f"the {PRICE_TABLE_ACCELERATORS} accelerators offered by the most sellers with a dated "
        f"price; per accelerator up to {PRICE_TABLE_PROVIDERS} sellers (who runs the machine, "
        "counted once however many providers list it), each at its dated on-demand offer in "
        "force, cheapest first, with the age of that observation; a seller whose every "
        "price is more than price_max_age_days behind the part's newest comes after them, "
        "marked stale (not in the statistics). An offer from a file "
        "replayed without any date is not a current price: it comes after every dated one, "
        "marked \"date unknown\". Source 'reference': typed from a dated public price page; "
        "crosscheck tables are left out. `gpucost offers NAME --include-reference` lists "
        "every offer."))


def banner(con: duckdb.DuckDBPyConnection, have: set[str]) -> str:
    """One line when sources are failing (source health `failing`: the last fetch failed) or
    the data in force is old (older than OLD_DATA_DAYS, curated prices aside); empty when all
    is well. A `stale` source (live data older than `gpucost sources --max-age-days`) is old,
    not failing: it is counted only when its data is older than OLD_DATA_DAYS."""
    if "source_health" not in have:
        return ""
    from gpucost.flows.cli.sources import source_rows

    rows = source_rows(con)
    failing = [r["source"] for r in rows if r["health"] == "failing"]
    old = [(r["source"], r["data_age_days"]) for r in rows
           if r["health"] != "curated" and (r.get("data_age_days") or 0) > OLD_DATA_DAYS]
    parts = []
    if failing:
        parts.append(f"{len(failing)} source(s) failing: {', '.join(sorted(failing))}")
    if old:
        oldest = max(old, key=lambda x: x[1])
        parts.append(f"{len(old)} source(s) with data older than {OLD_DATA_DAYS:g} days "
                     f"(oldest: {oldest[0]}, {age_text(oldest[1])})")
    return "; ".join(parts)


def _basis(con: duckdb.DuckDBPyConnection, table: str) -> str | None:
    """The price basis a chart of `table` draws: the first of PREFERRED_BASES it has."""
    have = {r[0] for r in con.execute(
        f'select distinct price_basis from "{table}" '
        "where price_basis is not null and price_basis <> 'purchase'")
        .fetchall()}
    return next((b for b in PREFERRED_BASES if b in have), min(have) if have else None)


def cost_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    if absent := _absent(have, "cost_per_flop", "accelerators"):
        return absent
    basis = _basis(con, "cost_per_flop")
    if basis is None:
        return Panel(missing="no accelerator has an hourly price yet")
    rows = con.execute(
        f"select {_NAME_DATED}, precision, usd_per_eflop_peak, provider from cost_per_flop "
        f"{_NAMED} where price_basis = ? and usd_per_eflop_peak > 0", [basis]).fetchall()
    return Panel(rows=rows, basis=basis_caption(basis, "(cost_per_flop)"),
                 note=f"price basis {basis}: USD per 10^18 FLOP (int8: OP) at the "
                 "dense peak; divide by the utilisation (MFU) for the effective cost")


def per_dollar_panel(con: duckdb.DuckDBPyConnection, have: set[str], table: str,
                     value_col: str) -> Panel:
    if absent := _absent(have, table, "accelerators"):
        return absent
    basis = _basis(con, table)
    if basis is None:
        return Panel(missing="no accelerator has an hourly price yet")
    rows = con.execute(
        f'select {_NAME_DATED}, {value_col}, price_per_gpu_hour, provider from "{table}" '
        f"{_NAMED} where price_basis = ? and {value_col} > 0 "
        f"order by {_UNDATED}, {value_col} desc, 1 limit {MAX_ROWS}", [basis]).fetchall()
    return Panel(rows=rows, note=f"price basis {basis}; top {MAX_ROWS}, dated prices first "
                 "(an undated one is marked)",
                 basis=basis_caption(basis, f"({table})"))


HISTORY_BASIS = ("Price basis: on-demand (pricing_model on_demand), each seller's cheapest "
                 "dated first-hand USD per GPU-hour per day (price_history.price_per_gpu_hour)")
# who runs the machines a provider of price_history lists (gpu_offers.seller of its own and
# marketplace listings), and whether the provider only resells others' machines (an
# aggregator: listing_kind 'resold')
_SELLER_OF_PROVIDER = (
    "(select provider, coalesce(min(seller) filter (where listing_kind <> 'resold'), "
    "provider) as seller, bool_and(listing_kind = 'resold') as aggregator "
    "from gpu_offers group by provider)")


def history_panel(con: duckdb.DuckDBPyConnection, have: set[str],
                  accelerator_id: str | None = None) -> Panel:
    """One step line per seller for the accelerator with the most dated first-hand on-demand
    history (price_history holds dated observations only; no crosscheck), or for
    `accelerator_id` (`gpucost dashboard` lets the user pick it): each seller's
    cheapest per-GPU price per day. A provider counts as the seller who runs its machines
    (gpu_offers.seller: a renamed provider joins its seller's line); an aggregator's resale
    is left out (its sellers' own prices are drawn)."""
    if absent := _absent(have, "price_history", "gpu_offers", "accelerators"):
        return absent
    [(last,)] = con.execute("select max(day) from price_history").fetchall()
    if last is None:
        return Panel(missing="no dated first-hand on-demand USD price observed yet")
    start = last - timedelta(days=HISTORY_DAYS)
    base = ("select coalesce(s.seller, h.provider) as seller, h.accelerator_id, "
            "cast(h.day as date) as day, min(h.price_per_gpu_hour) as price "
            f"from price_history as h left join {_SELLER_OF_PROVIDER} as s using (provider) "
            "where h.day > ? and h.pricing_model = 'on_demand' and h.currency = 'USD' "
            "and h.price_per_gpu_hour > 0 and h.accelerator_id is not null "
            "and h.source_kind = 'first_hand' and not coalesce(s.aggregator, false) "
            "group by all")
    top = con.execute(
        f"with h as ({base}) select accelerator_id from h "
        "where ?::varchar is null or accelerator_id = ? group by 1 "
        "order by count(distinct day) > 1 desc, count(distinct seller) desc, count(*) desc, "
        "1 limit 1", [start, accelerator_id, accelerator_id]).fetchall()
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
    index = index_rows(con, have, acc, start)
    first, newest = min(r[1] for r in rows), max(r[1] for r in rows)
    index_note = (
        f"; the black line is the daily price index (price_index: the median of the sellers' "
        f"prices in force, any instance size, published on {len(index)} days of the window), "
        "the grey band its interquartile range (docs/price-index.md)") if index else (
        "; no daily price index is published for it in the window (fewer sellers than the "
        "minimum, docs/price-index.md)" if "price_index" in have else "")
    return Panel(rows=rows, basis=HISTORY_BASIS, index=index, note=(
        f"{name}: each seller's cheapest dated first-hand on-demand USD per GPU-hour per day, "
        f"{first} to {newest} (price_history, at most the {HISTORY_DAYS} days to its newest "
        f"day {last}; up to {HISTORY_SERIES} "
        "sellers, those whose price changed first, then the cheapest; a seller counted once "
        "however many providers list it, aggregators' resales left out; a dot marks a new "
        "price; a dashed tail: a seller's last observed price carried forward to the newest "
        f"day of the chart; undated prices and crosscheck tables are not drawn){index_note}"))


def index_rows(con: duckdb.DuckDBPyConnection, have: set[str], accelerator_id: str,
               start: Any) -> list[Any]:
    """The published days of the on-demand daily price index of `accelerator_id` over offers
    of any size (price_index, min_gpus_per_instance 1) after `start`: (day, index, p25, p75,
    n_sellers), oldest first; [] when the warehouse has no price_index."""
    if "price_index" not in have:
        return []
    return con.execute(
        "select cast(day as date), index_price_per_gpu_hour, p25_price_per_gpu_hour, "
        "p75_price_per_gpu_hour, n_sellers from price_index "
        "where accelerator_id = ? and pricing_model = 'on_demand' "
        "and min_gpus_per_instance = 1 and is_published and day > ? order by day",
        [accelerator_id, start]).fetchall()


def training_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    """Per scenario, the 10 cheapest platforms (accelerator @ provider) that can train the
    model (training_cost.feasible), at the preferred price basis or the scenario's own price
    (price_basis 'given'), as `gpucost estimate` ranks them: a price of an instance smaller
    than the node the run needs is left out (basis_fits_node), and a platform priced by an
    undated offer (not a current price) never comes before a dated one; it is marked."""
    if absent := _absent(have, "training_cost"):
        return absent
    # platforms that cannot train the model (memory, scale-up domain) are not ranked
    where = ["cost_usd > 0", "feasible is not false", "basis_fits_node is not false"]
    params: list[str] = []
    undated = f"{_UNDATED} and price_basis <> 'given'"  # a scenario's own price is no offer
    note = "cost_usd per scenario, cheapest 10 accelerators each that can train the model"
    basis = _basis(con, "training_cost")
    if basis:
        # a scenario that names its own price is priced at it only ('given')
        where.append("(price_basis = ? or price_basis = 'given')")
        params.append(basis)
        note += f", price basis {basis} (or the scenario's own price)"
    rows = con.execute(
        "with t as (select scenario_id as scenario, "
        "accelerator_id || coalesce(' @ ' || provider, '') "
        f"|| case when {undated} then ' (undated)' else '' end as platform, "
        f"{undated} as undated, min(cost_usd) as cost "
        f"from training_cost where {' and '.join(where)} group by all) "
        "select scenario, platform, cost from t "
        "qualify row_number() over (partition by scenario order by undated, cost, platform) "
        "<= 10 order by scenario, undated, cost, platform", params).fetchall()
    if not rows:
        return Panel(missing="not available: training_cost has no priced rows yet")
    return Panel(rows=rows, note=note, basis=basis_caption(
        basis, "A scenario that states its own price is drawn at it (price_basis 'given')."))


def measured_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    """Per benchmark and accelerator: the lowest measured USD per million output tokens
    (inference_measured, comparable Offline results) at the on-demand basis (on_demand_min:
    never spot, community or reserved), else, for an accelerator without an on-demand price,
    at the owned cost (GB300 NVL72), else at the analyst's 3-year rental survey price (no
    rental observed and no cited purchase price: MI325X); each bar says which."""
    if absent := _absent(have, "inference_measured"):
        return absent
    order = " ".join(f"when '{b}' then {i}" for i, b in enumerate(MEASURED_BASES))
    listed = ", ".join(f"'{b}'" for b in MEASURED_BASES)
    rows = con.execute(f"""
        select benchmark, coalesce(accelerator_name, accelerator_id)
            || case when price_observed_at is null and basis_kind = 'observed'
                then ' (undated price)' else '' end as accelerator,
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


def interactivity_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    """Per model: every measured throughput-vs-interactivity point (inference_interactivity)
    priced at the cheapest dated on-demand offer of the system's size (on_demand_min): USD per
    million output tokens against the tokens/s each user gets, one line per system."""
    if absent := _absent(have, "inference_interactivity"):
        return absent
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


def health_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    """Every source's health and data age (`gpucost sources`: source_rows)."""
    if absent := _absent(have, "source_health"):
        return absent
    from gpucost.flows.cli.sources import source_rows

    return Panel(rows=source_rows(con), note="age of the newest data in force when the "
                 "warehouse was built (log scale); colour = health",
                 basis="Price basis: none (data age per source, not a price)")


def unmapped_panel(con: duckdb.DuckDBPyConnection, have: set[str]) -> Panel:
    if absent := _absent(have, "unmapped_gpu_names"):
        return absent
    rows = con.execute(
        "select source, provider, gpu_name_raw, sample_sku, offer_count "
        "from unmapped_gpu_names order by offer_count desc, source, provider, gpu_name_raw "
        "limit 20").fetchall()
    return Panel(rows=rows, note="GPU names that map to no accelerator (add them to "
                 "catalog/aliases.csv)")


def collect(con: duckdb.DuckDBPyConnection, published_at: datetime) -> ReportData:
    """Every panel of the report, and the row count of each published mart."""
    from gpucost.models.docs import mart_names

    have = tables(con)
    counts = {m: con.execute(f'select count(*) from "{m}"').fetchone()[0]
              for m in mart_names() if m in have}
    return ReportData(
        published_at=published_at, generated_at=datetime.now(UTC), mart_rows=counts,
        cost=cost_panel(con, have),
        memory=per_dollar_panel(con, have, "memory_per_dollar", "gb_per_usd_hour"),
        bandwidth=per_dollar_panel(con, have, "bandwidth_per_dollar", "tbps_per_usd_hour"),
        history=history_panel(con, have),
        training=training_panel(con, have),
        health=health_panel(con, have),
        unmapped=unmapped_panel(con, have),
        prices=prices_panel(con, have),
        measured=measured_panel(con, have),
        interactivity=interactivity_panel(con, have),
        banner=banner(con, have),
    )
