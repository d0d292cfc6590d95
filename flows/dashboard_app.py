"""The Streamlit app `gpucost dashboard` serves (flows/cli/dashboard.py starts it).

Four tabs over the published marts (docs/tables.md), each table with the age of every price
and a caption naming its price basis:

- Rent now: the offers in force (gpu_offers) through the query of `gpucost offers`
  (flows/cli/offers.py `query_offers`: the same filters, order and marks): accelerator, GPU
  count, pricing model and term, maximum age, provider, available only, reference prices;
- Price history: each seller's daily price and the daily price index of one accelerator
  (price_history, price_index; the report's history_panel and index_rows);
- Cost per FLOP / GB / TB/s: cost_per_flop, memory_per_dollar, bandwidth_per_dollar at a
  price basis (default: the report's preferred basis);
- Training and token costs: training_cost per scenario, offer_token_costs per workload.

Reading: the published file (<data dir>/gpucost.duckdb) READ-ONLY with file access off
(warehouse/publish.py open_published), one connection per read, closed at once, one read at
a time in this process: nothing holds the file between reads, so a publish (os.replace of a
new file) is never locked out, and the next read opens the new file (DuckDB shares one
database instance per path among a process's open connections: with none left open, the path
is opened afresh). Results are cached by the file's identity (device, inode, size, mtime):
a publish changes it, so nothing of the old file is shown after it. A fragment checks the
identity every POLL_S seconds and reruns the page when it changed.

Streamlit runs this file as a script (__main__) on every rerun; the script imports this module
as gpucost.flows.dashboard_app and calls its `render`, so the lock and the caches live in one
module, imported once, shared by every session and rerun.
"""

from __future__ import annotations

import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

if __name__ == "__main__":  # Streamlit put this file's folder (flows/) first on sys.path
    _here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != _here]

import streamlit as st  # noqa: E402 (flows/ is off sys.path first)

from gpucost.flows.cli import offers as offers_cli  # noqa: E402
from gpucost.flows.cli.report import panels  # noqa: E402

POLL_S = 5  # how often an open page checks for a new publish
AGE_SQL = "date_diff('second', {col}, $published) / 86400.0"
AGE_HELP = ("days between the observation and the publish of this warehouse (as `gpucost "
            "offers` counts it); 'unknown': a file replayed without a date")
MAX_AGES = (None, 1, 7, 30, 90, 180, 365)

_LOCK = threading.Lock()


class Swapped(Exception):
    """A publish swapped the file in between the page's start and a read: rerun the page."""


# -- the file ------------------------------------------------------------------------------

def published_path() -> Path:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import serving_path

    return serving_path(data_dir())


def identity(path: Path) -> tuple[int, int, int, int] | None:
    """What a publish changes: device, inode, size, mtime (None when there is no file)."""
    try:
        st_ = path.stat()
    except FileNotFoundError:
        return None
    return (st_.st_dev, st_.st_ino, st_.st_size, st_.st_mtime_ns)


def read(ident: tuple, fn: Any, *args: Any) -> Any:
    """fn(con, *args) on a read-only connection to the published file whose identity is
    `ident`; Swapped when the file there is another one by now (a publish)."""
    from gpucost.warehouse.publish import open_published

    path = published_path()
    with _LOCK:  # one connection at a time in this process, closed before the next opens
        if identity(path) != ident:
            raise Swapped
        con = open_published(path)
        try:
            if identity(path) != ident:  # swapped while it was being opened
                raise Swapped
            return fn(con, *args)
        finally:
            con.close()


@st.cache_data(max_entries=512, show_spinner=False)
def cached(ident: tuple, name: str, args: tuple) -> Any:
    """QUERIES[name](con, *args) for the file `ident`: cached until the file changes."""
    return read(ident, QUERIES[name], *args)


# -- queries (each takes the connection first) ---------------------------------------------

def _frame(con: Any, sql: str, params: Any = None) -> pd.DataFrame:
    cur = con.execute(sql, params or {})
    return pd.DataFrame(cur.fetchall(), columns=[d[0] for d in cur.description])


def q_tables(con: Any) -> set[str]:
    return panels.tables(con)


def q_banner(con: Any) -> str:
    return panels.banner(con, panels.tables(con))


def q_offer_accelerators(con: Any) -> pd.DataFrame:
    """Accelerators with a USD per-GPU price in force, those offered by the most providers
    first."""
    return _frame(con, """
        select offers.accelerator_id, accelerators.name,
            count(distinct offers.provider) as n_providers, count(*) as n_offers
        from gpu_offers as offers
        inner join accelerators using (accelerator_id)
        where offers.price_per_gpu_hour is not null and offers.currency = 'USD'
            and offers.source_kind <> 'crosscheck'
        group by all order by n_providers desc, n_offers desc, accelerators.name""")


def q_offer_choices(con: Any, accelerator_id: str) -> dict[str, list]:
    """The GPU counts, providers and pricing models the accelerator's offers have, and the
    commitment lengths (term_months) sold."""
    rows = _frame(con, """
        select distinct gpu_count, provider, pricing_model from gpu_offers
        where accelerator_id = $acc and price_per_gpu_hour is not null and currency = 'USD'
            and source_kind <> 'crosscheck'""", {"acc": accelerator_id})
    terms = offers_cli.term_months_of(con)
    return {"gpu_counts": sorted(int(n) for n in rows["gpu_count"].dropna().unique()
                                 if float(n).is_integer()),
            "providers": sorted(rows["provider"].dropna().unique()),
            "pricing_models": sorted(rows["pricing_model"].dropna().unique()),
            "terms": sorted({m for m in terms.values() if m is not None})}


def q_offers(con: Any, gpu: str, filters: tuple) -> tuple[pd.DataFrame, str]:
    """`gpucost offers GPU` with `filters` (query_offers keywords): the frame and its error
    (an OffersError's message, e.g. a pricing model whose term is another)."""
    try:
        frame = offers_cli.query_offers(con, gpu, **dict(filters))
    except offers_cli.OffersError as exc:
        return pd.DataFrame(), str(exc)
    return frame, ""


def q_history_accelerators(con: Any) -> pd.DataFrame:
    return _frame(con, """
        select h.accelerator_id, coalesce(a.name, h.accelerator_id) as name,
            count(distinct h.day) as days, count(distinct h.provider) as providers
        from price_history as h left join accelerators as a using (accelerator_id)
        where h.accelerator_id is not null and h.source_kind = 'first_hand'
            and h.pricing_model = 'on_demand' and h.currency = 'USD'
        group by all order by days > 1 desc, providers desc, days desc, name""")


def q_history(con: Any, accelerator_id: str) -> Any:
    """The report's price-history panel (each seller's daily price, the daily index) for the
    accelerator."""
    return panels.history_panel(con, panels.tables(con), accelerator_id)


def q_index_latest(con: Any, accelerator_id: str, published: datetime) -> pd.DataFrame:
    """The newest published on-demand index of the accelerator per instance size."""
    return _frame(con, f"""
        select min_gpus_per_instance, day, index_price_per_gpu_hour, p25_price_per_gpu_hour,
            p75_price_per_gpu_hour, n_sellers, n_sellers_carried, sellers,
            {AGE_SQL.format(col='day::timestamptz')} as age_days
        from price_index
        where accelerator_id = $acc and pricing_model = 'on_demand' and is_published
        qualify row_number() over (partition by min_gpus_per_instance order by day desc) = 1
        order by min_gpus_per_instance""", {"acc": accelerator_id, "published": published})


def q_bases(con: Any, table: str) -> tuple[list[str], str | None]:
    """The hourly price bases of a cost mart, and the one the report draws (its preferred)."""
    have = [r[0] for r in con.execute(
        f'select distinct price_basis from "{table}" where price_basis is not null '
        "and price_basis <> 'purchase' order by 1").fetchall()]
    return have, panels._basis(con, table)


def q_cost(con: Any, table: str, basis: str, precision: str | None,
           published: datetime) -> pd.DataFrame:
    """A cost mart at one price basis (cost_per_flop at one precision too), named, with the
    age of each price: dated prices first (a price without a date never leads), best
    first."""
    columns = ", ".join(f"t.{c}" for c in {
        "cost_per_flop": ["usd_per_eflop_effective", "usd_per_eflop_peak", "utilisation",
                          "peak_dense_tflops", "usd_per_tflops_purchase"],
        "memory_per_dollar": ["gb_per_usd_hour", "memory_gb", "gb_per_purchase_usd"],
        "bandwidth_per_dollar": ["tbps_per_usd_hour", "memory_bw_tbps",
                                 "interconnect_gbps_per_usd_hour", "interconnect_bw_gbps",
                                 "tbps_per_purchase_kusd"],
    }[table])
    order = {"cost_per_flop": "t.usd_per_eflop_effective", "memory_per_dollar":
             "t.gb_per_usd_hour desc", "bandwidth_per_dollar": "t.tbps_per_usd_hour desc"}[table]
    where = "t.price_basis = $basis and t.price_per_gpu_hour > 0"
    if table == "cost_per_flop":
        where += " and t.precision = $precision"
    return _frame(con, f"""
        select coalesce(a.name, t.accelerator_id) as accelerator, {columns},
            t.price_per_gpu_hour, t.price_basis, t.provider, t.source, t.sku, t.region,
            t.observed_at, {AGE_SQL.format(col='t.observed_at')} as age_days, t.source_url
        from "{table}" as t left join accelerators as a using (accelerator_id)
        where {where} order by t.observed_at is null, {order} nulls last, 1""",
                  {"basis": basis, "published": published,
                   **({"precision": precision} if table == "cost_per_flop" else {})})


def q_precisions(con: Any) -> list[str]:
    return [r[0] for r in con.execute(
        "select precision from cost_per_flop group by 1 order by count(*) desc, 1").fetchall()]


def q_scenarios(con: Any) -> pd.DataFrame:
    """The scenarios, those evaluated on every priced accelerator first, smallest run
    first."""
    return _frame(con, """
        select scenario_id, any_value(question) as question from training_cost
        group by 1 order by count(*) desc, min(flops), 1""")


def q_training(con: Any, scenario: str, basis: str | None,
               published: datetime) -> pd.DataFrame:
    """A scenario's platforms that can train the model (feasible; a basis taken on an offer
    smaller than the node the run needs is left out, as rankings do), at `basis` or the
    scenario's own price ('given'): those on a dated observed price first (an undated price
    never leads), cheapest first."""
    return _frame(con, f"""
        select coalesce(accelerator_name, accelerator_id) as accelerator, provider,
            price_basis, basis_kind, price_per_gpu_hour, observed_at,
            {AGE_SQL.format(col='observed_at')} as age_days, cost_usd,
            usd_per_million_tokens, gpu_hours, n_gpus, wall_clock_days, energy_mwh, mfu,
            feasible, sku, source, basis_note, source_url
        from training_cost
        where scenario_id = $scenario and cost_usd > 0 and feasible is not false
            and basis_fits_node is not false
            and ($basis::varchar is null or price_basis = $basis or price_basis = 'given')
        order by observed_at is null and basis_kind = 'observed', cost_usd, accelerator""",
                  {"scenario": scenario, "basis": basis, "published": published})


def q_training_bases(con: Any) -> tuple[list[str], str | None]:
    return q_bases(con, "training_cost")


def q_workloads(con: Any) -> list[str]:
    return [r[0] for r in con.execute(
        "select workload from offer_token_costs where usd_per_million_output_tokens > 0 "
        "group by 1 order by count(*) desc, 1").fetchall()]


def q_tokens(con: Any, workload: str, pricing_model: str,
             published: datetime) -> pd.DataFrame:
    """Per accelerator, the cheapest offer's cost per million tokens on the workload at the
    measured throughput of the closest comparable result: dated prices first (an undated
    one never leads), the pricing model asked. Every USD-per-million-tokens column the mart
    has is shown (output; input and blended where the warehouse carries them)."""
    cols = [r[0] for r in con.execute(
        "select column_name from duckdb_columns() where table_name = 'offer_token_costs' "
        "and schema_name = 'main' and column_name like 'usd_per_million%' "
        "order by column_index").fetchall()]
    return _frame(con, f"""
        select coalesce(a.name, t.accelerator_id) as accelerator, {', '.join(cols)},
            t.provider, t.sku, t.gpu_count, t.pricing_model, t.price_per_gpu_hour,
            t.price_observed_at, {AGE_SQL.format(col='t.price_observed_at')} as age_days,
            t.source, t.source_kind, t.match, t.tokens_per_second_per_gpu,
            t.tokens_per_second_per_user, t.round, t.submitter, t.system, t.software_family
        from offer_token_costs as t left join accelerators as a using (accelerator_id)
        where t.workload = $workload and t.pricing_model = $model
            and t.usd_per_million_output_tokens > 0 and t.source_kind <> 'crosscheck'
        qualify row_number() over (partition by t.accelerator_id
            order by t.price_observed_at_known desc, t.usd_per_million_output_tokens,
                t.provider, t.sku) = 1
        order by t.price_observed_at_known desc, t.usd_per_million_output_tokens""",
                  {"workload": workload, "model": pricing_model, "published": published})


def q_token_models(con: Any, workload: str) -> list[str]:
    return [r[0] for r in con.execute(
        "select pricing_model from offer_token_costs where workload = ? "
        "and usd_per_million_output_tokens > 0 group by 1 "
        "order by pricing_model <> 'on_demand', 1", [workload]).fetchall()]


QUERIES = {name[2:]: fn for name, fn in dict(globals()).items()
           if name.startswith("q_") and callable(fn)}


# -- formatting ----------------------------------------------------------------------------

def usd(value: Any) -> str:
    if value is None or value != value:
        return ""
    return f"{value:,.2f}" if abs(value) >= 0.995 else f"{value:.4g}"


def age(days: Any, observed_at: Any = None, precision: Any = None) -> str:
    """The age cell of `gpucost offers`: '12 d', '5 h', 'unknown', '~2026-10'."""
    try:
        return offers_cli._age(None if days is None or days != days else float(days),
                               observed_at, precision)
    except (TypeError, ValueError):
        return "unknown"


def when(value: Any) -> str:
    if value is None or value != value or value is pd.NaT:
        return "undated"
    return f"{pd.Timestamp(value).tz_convert('UTC'):%Y-%m-%d %H:%M} UTC" \
        if pd.Timestamp(value).tzinfo else f"{pd.Timestamp(value):%Y-%m-%d}"


def observed(value: Any, precision: Any = None) -> str:
    """When an offer was observed: '2026-05-20 00:00 UTC', or '~2026-10' when only the month
    is known (observed_at_precision 'month')."""
    if precision == "month" and value is not None and value == value:
        return f"~{pd.Timestamp(value):%Y-%m}"
    return when(value)


def ago(moment: datetime) -> str:
    seconds = max(0.0, time.time() - moment.timestamp())
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def _ages(frame: pd.DataFrame, col: str = "age_days") -> pd.Series:
    return pd.Series([age(d) for d in frame[col]], index=frame.index, dtype=object) \
        if len(frame) else pd.Series([], dtype=object)


def _age_beside(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The frame with its age_days as an 'age' text column ('59 d', 'undated') right after
    `column` (the price it is the age of)."""
    ages = ["undated" if d is None or d != d else age(d) for d in frame["age_days"]]
    out = frame.drop(columns=["age_days"])
    out.insert(list(out.columns).index(column) + 1, "age", ages)
    return out


def price_age(text: str) -> str:
    """'price age 59 d', 'an undated price', 'price age n/a (owned)'."""
    return "an undated price" if text == "undated" else f"price age {text}"


LINK = st.column_config.LinkColumn("source URL", display_text="open", width="small")


def _money(label: str, help: str = "") -> Any:
    return st.column_config.NumberColumn(label, format="%.4g", help=help or None)


# -- the page ------------------------------------------------------------------------------

def render() -> None:
    st.set_page_config(page_title="gpucost dashboard", layout="wide",
                       initial_sidebar_state="collapsed")
    path = published_path()
    ident = identity(path)
    if ident is None:
        st.error(f"No published warehouse at {path}: run `gpucost refresh` first. This page "
                 f"checks again every {POLL_S} s.")
        _watch(ident)
        return
    published = datetime.fromtimestamp(ident[3] / 1e9, UTC)
    try:
        _page(ident, path, published)
    except Swapped:  # a publish landed while the page was being drawn: draw the new one
        st.rerun()
    _watch(ident)


@st.fragment(run_every=POLL_S)
def _watch(ident: Any) -> None:
    """Reruns the page when the published file is another one (a publish swapped it in)."""
    if identity(published_path()) != ident:
        st.rerun(scope="app")


def _q(ident: tuple, name: str, *args: Any) -> Any:
    return cached(ident, name, args)


def _page(ident: tuple, path: Path, published: datetime) -> None:
    started = time.monotonic()
    st.title("gpucost dashboard")
    st.caption(f"The published warehouse {path}, published {published:%Y-%m-%d %H:%M:%S} UTC "
               f"({ago(published)} ago), read read-only. Ages are counted at that publish. "
               f"A new publish shows here within {POLL_S} s. Every price is USD unless said.")
    have = _q(ident, "tables")
    banner = _q(ident, "banner")
    if banner:
        st.warning(banner)
    rent, history, per_unit, runs = st.tabs(
        ["Rent now", "Price history", "Cost per FLOP / GB / TB/s",
         "Training and token costs"])
    with rent:
        _rent_now(ident, have)
    with history:
        _price_history(ident, have, published)
    with per_unit:
        _per_unit(ident, have, published)
    with runs:
        _training_and_tokens(ident, have, published)
    st.caption(f"drawn in {time.monotonic() - started:.2f} s")


def _missing(have: set[str], *marts: str) -> bool:
    gone = [m for m in marts if m not in have]
    if gone:
        st.info(f"Not available: the {gone[0]} mart is not in this warehouse (built by an "
                "older gpucost).")
    return bool(gone)


def _rent_now(ident: tuple, have: set[str]) -> None:
    if _missing(have, "gpu_offers", "accelerators", "cost_assumptions"):
        return
    accs = _q(ident, "offer_accelerators")
    if accs.empty:
        st.info("No USD offer in force yet.")
        return
    names = dict(zip(accs["accelerator_id"], accs["name"], strict=True))
    counts = {a: f"{p} providers, {n} offers" for a, p, n in zip(
        accs["accelerator_id"], accs["n_providers"], accs["n_offers"], strict=True)}
    c1, c2, c3, c4 = st.columns([3, 1, 2, 1])
    acc = c1.selectbox("Accelerator", list(names), key="accelerator", bind="query-params",
                       format_func=lambda a: f"{names[a]} ({counts[a]})")
    choices = _q(ident, "offer_choices", acc)
    gpus = c2.selectbox("GPUs per instance", [None, *choices["gpu_counts"]], key="gpus",
                        bind="query-params", format_func=lambda n: "any" if n is None else str(n))
    models = ["on_demand", *[m for m in choices["pricing_models"] if m != "on_demand"], "all"]
    model = c3.selectbox("Pricing model", models, key="pricing_model", bind="query-params",
                         format_func=lambda m: m.replace("_", " "))
    term = c4.selectbox("Term (months)", [None, *choices["terms"]], key="term",
                        bind="query-params",
                        format_func=lambda m: "any" if m is None else f"{m}",
                        help="a commitment of that length (term_months); with a pricing "
                        "model, that model must be of that length")
    c5, c6, c7, c8 = st.columns([1, 2, 1, 1])
    max_age = c5.selectbox("Maximum age (days)", MAX_AGES, key="max_age", bind="query-params",
                           format_func=lambda d: "any" if d is None else str(d),
                           help="only offers observed at most that many days before the "
                           "publish (an undated offer's age is unknown: left out)")
    provider = c6.selectbox("Provider", [None, *choices["providers"]], key="provider",
                            bind="query-params", format_func=lambda p: "any" if p is None else p)
    available = c7.checkbox("Available only", key="available", bind="query-params",
                            help="flagged available by its payload, dated and not stale: "
                            "launchable now (as `gpucost offers --available`)")
    reference = c8.checkbox("Reference prices", key="reference", bind="query-params",
                            help="include the curated reference prices (typed from a dated "
                            "public price page), marked")
    gpu = acc if gpus is None else f"{acc}:{gpus}"
    filters = (("pricing_model", None if term is not None and model == "on_demand"
                else model), ("term", term), ("max_age_days", max_age),
               ("provider", provider), ("available", available),
               ("include_reference", reference))
    frame, error = _q(ident, "offers", gpu, filters)
    if error:
        st.error(error)
        return
    if frame.empty:
        st.info(f"No offer of {names[acc]} matches these filters.")
        return
    best = frame.iloc[0]
    marks = offers_cli.stock_mark(best["available"], best["observed_at_known"],
                                  best["is_stale"])
    dated = bool(best["observed_at_known"])
    month = best["observed_at_precision"] == "month"
    seen = observed(best["observed_at"], best["observed_at_precision"]) if dated \
        else "at an unknown date"
    how_old = "only the month is known" if dated and month else "age " + age(
        best["age_days"], best["observed_at"], best["observed_at_precision"])
    st.markdown(
        f"**Cheapest: {usd(best['price_per_gpu_hour'])} USD per GPU-hour** at "
        f"{offers_cli._provider_cell(best['provider'], best['listing_kind'], best['seller'])},"
        f" `{best['sku']}` ({best['gpu_count']:g} GPU{'' if best['gpu_count'] == 1 else 's'},"
        f" {usd(best['price_per_hour'])} USD per instance-hour), "
        f"{str(best['pricing_model']).replace('_', ' ')}; observed "
        f"{seen} ({how_old}{marks}); price basis: the offer's own listed price "
        f"({best['source_kind']}, source "
        f"{best['source']}{'; stale' if best['is_stale'] else ''}"
        f"{'; disputed' if best['is_disputed'] else ''}).")
    st.caption(
        "Price basis: each offer's own price per GPU-hour (gpu_offers.price_per_gpu_hour: the "
        "instance price / its GPUs), each provider x sku x pricing model at its cheapest region."
        " Offers someone can rent now first (dated, then stale, then disputed), cheapest first;"
        " undated offers (a file replayed without a date: age unknown) last. "
        f"{len(frame)} offers, as `gpucost offers {gpu}` lists them.")
    view = pd.DataFrame({
        "USD/GPU-h": frame["price_per_gpu_hour"],
        "age": [age(d, o, p) + offers_cli.stock_mark(a, k, s) for d, o, p, a, k, s in zip(
            frame["age_days"], frame["observed_at"], frame["observed_at_precision"],
            frame["available"], frame["observed_at_known"], frame["is_stale"], strict=True)],
        "provider": [offers_cli._provider_cell(p, k, s) for p, k, s in zip(
            frame["provider"], frame["listing_kind"], frame["seller"], strict=True)],
        "sku": frame["sku"],
        "GPUs": frame["gpu_count"],
        "USD/instance-h": frame["price_per_hour"],
        "pricing model": frame["pricing_model"],
        "term (months)": ["none" if pd.isna(m) else f"{int(m)}" for m in frame["term_months"]],
        "region": [f"{r} (+{n - 1})" if n > 1 else r for r, n in zip(
            frame["region"], frame["n_regions"], strict=True)],
        "basis": [_basis_cell(row) for row in frame.itertuples()],
        "observed": [observed(o, p) if k else "undated" for o, p, k in zip(
            frame["observed_at"], frame["observed_at_precision"], frame["observed_at_known"],
            strict=True)],
        "source URL": frame["source_url"],
    })
    st.dataframe(view, hide_index=True, column_config={
        "USD/GPU-h": st.column_config.NumberColumn("USD/GPU-h", format="%.3f",
                                                   help="price_per_gpu_hour"),
        "USD/instance-h": st.column_config.NumberColumn(
            "USD/instance-h", format="%.2f", help="price_per_hour: the whole instance"),
        "age": st.column_config.TextColumn("age", help=AGE_HELP),
        "GPUs": st.column_config.NumberColumn("GPUs", format="%g"),
        "source URL": LINK})


def _basis_cell(row: Any) -> str:
    """What the price is and where it was read: the source and its kind, what a price that
    is no whole instance buys, a currency conversion, stale / disputed marks."""
    parts = [f"{row.source} ({row.source_kind})"]
    if row.price_kind in offers_cli.PRICE_KIND_MARKS:
        parts.append(offers_cli.PRICE_KIND_MARKS[row.price_kind])
    fx = offers_cli.fx_mark(row.fx_basis, row.price_listed, row.currency_listed,
                            row.fx_rate_date).strip(" ()")
    if fx:
        parts.append(fx)
    if row.is_stale:
        parts.append("stale")
    if row.is_disputed:
        parts.append("disputed")
    return "; ".join(parts)


def _price_history(ident: tuple, have: set[str], published: datetime) -> None:
    if _missing(have, "price_history", "gpu_offers", "accelerators"):
        return
    accs = _q(ident, "history_accelerators")
    if accs.empty:
        st.info("No dated first-hand on-demand USD price observed yet.")
        return
    names = dict(zip(accs["accelerator_id"], accs["name"], strict=True))
    days = dict(zip(accs["accelerator_id"], accs["days"], strict=True))
    acc = st.selectbox("Accelerator", list(names), key="history_accelerator",
                       bind="query-params",
                       format_func=lambda a: f"{names[a]} ({days[a]} days observed)")
    panel = _q(ident, "history", acc)
    if panel.missing:
        st.info(panel.missing)
        return
    import altair as alt

    lines = pd.DataFrame(panel.rows, columns=["seller", "day", "USD per GPU-hour"])
    lines["day"] = pd.to_datetime(lines["day"])
    y_title = "USD per GPU-hour (on-demand)"
    price = "USD per GPU-hour:Q"
    x = alt.X("day:T", title=None, axis=alt.Axis(format="%b %Y"))
    lines = lines.sort_values(["seller", "day"])
    # a dot where a seller's price is new (its first day, or a change)
    changed = lines[lines.groupby("seller")["USD per GPU-hour"].diff().fillna(1) != 0]
    # a dashed tail: each seller's last price carried forward to the newest day drawn
    newest = lines["day"].max()
    last = lines.groupby("seller").tail(1)
    tails = pd.concat([last, last.assign(day=newest)])
    tails = tails[tails.groupby("seller")["day"].transform("min") < newest]
    layers = [
        alt.Chart(lines).mark_line(interpolate="step-after").encode(
            x=x, y=alt.Y(price, title=y_title), color=alt.Color("seller:N"),
            tooltip=["seller", "day:T", price]),
        alt.Chart(changed).mark_point(filled=True, size=30).encode(
            x=x, y=alt.Y(price, title=y_title), color="seller:N",
            tooltip=["seller", "day:T", price]),
        alt.Chart(tails).mark_line(strokeDash=[4, 3]).encode(
            x=x, y=alt.Y(price, title=y_title), color="seller:N", detail="seller:N")]
    if panel.index:
        index = pd.DataFrame(panel.index, columns=["day", "index", "p25", "p75", "sellers"])
        index["day"] = pd.to_datetime(index["day"])
        layers.append(alt.Chart(index).mark_area(opacity=0.25, color="grey",
                                                 interpolate="step-after").encode(
            x="day:T", y=alt.Y("p25:Q", title=y_title), y2="p75:Q"))
        layers.append(alt.Chart(index).mark_line(color="black", strokeWidth=2,
                                                 interpolate="step-after").encode(
            x="day:T", y=alt.Y("index:Q", title=y_title),
            tooltip=["day:T", "index:Q", "sellers:Q"]))
    st.altair_chart(alt.layer(*layers).properties(height=380), width="stretch")
    st.caption(panel.basis + ". " + panel.note)
    if "price_index" in have:
        latest = _q(ident, "index_latest", acc, published)
        if latest.empty:
            st.info("No daily price index is published for it (fewer sellers than the "
                    "minimum, docs/price-index.md).")
        else:
            st.markdown("**The newest daily price index** (price_index, on-demand: the median "
                        "of the sellers' prices in force that day; docs/price-index.md)")
            st.dataframe(pd.DataFrame({
                "instance holds at least (GPUs)": latest["min_gpus_per_instance"],
                "index USD/GPU-h": latest["index_price_per_gpu_hour"],
                "p25": latest["p25_price_per_gpu_hour"],
                "p75": latest["p75_price_per_gpu_hour"],
                "day": latest["day"].astype(str), "age": _ages(latest),
                "sellers": latest["n_sellers"], "of them carried": latest["n_sellers_carried"],
                "sellers' prices": latest["sellers"]}), hide_index=True, column_config={
                    "index USD/GPU-h": _money("index USD/GPU-h"), "p25": _money("p25"),
                    "p75": _money("p75"), "age": st.column_config.TextColumn(
                        "age", help="days between the index day and the publish")})


def _per_unit(ident: tuple, have: set[str], published: datetime) -> None:
    if _missing(have, "cost_per_flop", "memory_per_dollar", "bandwidth_per_dollar",
                "accelerators"):
        return
    bases, preferred = _q(ident, "bases", "cost_per_flop")
    if not bases:
        st.info("No accelerator has an hourly price yet.")
        return
    c1, c2 = st.columns(2)
    basis = c1.selectbox("Price basis", bases, key="basis", bind="query-params",
                         index=bases.index(preferred) if preferred in bases else 0,
                         help="how the price per GPU-hour behind every figure is chosen")
    precisions = _q(ident, "precisions")
    precision = c2.selectbox("Precision (cost per FLOP)", precisions, key="precision",
                             bind="query-params",
                             index=precisions.index("bf16") if "bf16" in precisions else 0)
    caption = panels.basis_caption(basis)
    ages = st.column_config.TextColumn("age", help="days between the price's observation "
                                       "and the publish")
    named = {c: st.column_config.Column(label) for c, label in (
        ("peak_dense_tflops", "dense peak TFLOP/s"), ("utilisation", "utilisation (MFU)"),
        ("memory_gb", "memory GB"), ("memory_bw_tbps", "memory TB/s"),
        ("interconnect_bw_gbps", "interconnect GB/s"), ("price_basis", "price basis"))}
    common = named | {
        "price_per_gpu_hour": _money("USD/GPU-h"), "age": ages, "source_url": LINK,
        "observed_at": st.column_config.DatetimeColumn("observed", format="YYYY-MM-DD")}
    for title, table, config in (
            ("Cost per 10^18 FLOP", "cost_per_flop", {
                "usd_per_eflop_effective": _money("USD/EFLOP effective",
                                                  "at the assumed utilisation (MFU)"),
                "usd_per_eflop_peak": _money("USD/EFLOP at peak"),
                "usd_per_tflops_purchase": _money("purchase USD per TFLOP/s")}),
            ("Memory per dollar", "memory_per_dollar", {
                "gb_per_usd_hour": _money("GB per USD/h"),
                "gb_per_purchase_usd": _money("GB per purchase USD")}),
            ("Bandwidth per dollar", "bandwidth_per_dollar", {
                "tbps_per_usd_hour": _money("TB/s per USD/h"),
                "interconnect_gbps_per_usd_hour": _money("interconnect GB/s per USD/h"),
                "tbps_per_purchase_kusd": _money("TB/s per 1000 purchase USD")})):
        st.subheader(title)
        frame = _q(ident, "cost", table, basis, precision if table == "cost_per_flop" else None,
                   published)
        if frame.empty:
            st.info(f"No row of {table} at price basis {basis}.")
            continue
        frame = _age_beside(frame, "price_per_gpu_hour")
        first = frame.iloc[0]
        if table == "cost_per_flop":
            lead = (f"{usd(first['usd_per_eflop_effective'])} USD per 10^18 {precision} FLOP "
                    "at the assumed utilisation")
        elif table == "memory_per_dollar":
            lead = f"{first['gb_per_usd_hour']:.4g} GB per USD/hour"
        else:
            lead = f"{first['tbps_per_usd_hour']:.4g} TB/s per USD/hour"
        st.markdown(f"Best: **{first['accelerator']}**, {lead} ({usd(first['price_per_gpu_hour'])}"
                    f" USD/GPU-h at {first['provider'] or 'the median of sellers'}, "
                    f"{price_age(first['age'])}).")
        st.dataframe(frame, hide_index=True, column_config=common | config)
        st.caption(f"{caption} ({table})")


def _training_and_tokens(ident: tuple, have: set[str], published: datetime) -> None:
    st.subheader("Training runs")
    if not _missing(have, "training_cost"):
        scenarios = _q(ident, "scenarios")
        questions = dict(zip(scenarios["scenario_id"], scenarios["question"], strict=True))
        bases, preferred = _q(ident, "training_bases")
        c1, c2 = st.columns([3, 1])
        scenario = c1.selectbox("Scenario", list(questions), key="scenario",
                                bind="query-params",
                                format_func=lambda s: f"{s}: {questions[s]}")
        basis = c2.selectbox("Price basis", bases, key="training_basis", bind="query-params",
                             index=bases.index(preferred) if preferred in bases else 0)
        frame = _q(ident, "training", scenario, basis, published)
        if frame.empty:
            st.info("No priced platform can train this model at that basis.")
        else:
            frame = _age_beside(frame, "price_per_gpu_hour")
            # an owned cost or the scenario's own price has no observation to be dated
            frame["age"] = [f"n/a ({k})" if k in ("owned", "given") else a
                            for a, k in zip(frame["age"], frame["basis_kind"], strict=True)]
            first = frame.iloc[0]
            st.markdown(f"Cheapest: **{usd(first['cost_usd'])} USD** on {first['accelerator']}"
                        f" ({first['price_basis']}, {usd(first['price_per_gpu_hour'])} "
                        f"USD/GPU-h{' at ' + first['provider'] if first['provider'] else ''}"
                        f", {price_age(first['age'])}).")
            st.dataframe(frame, hide_index=True, column_config={
                "cost_usd": st.column_config.NumberColumn("cost USD", format="%,.0f"),
                "usd_per_million_tokens": _money("USD per million tokens"),
                "price_per_gpu_hour": _money("USD/GPU-h"),
                "age": st.column_config.TextColumn("age", help="price age at the publish"),
                "observed_at": st.column_config.DatetimeColumn("observed",
                                                               format="YYYY-MM-DD"),
                "gpu_hours": st.column_config.NumberColumn("GPU-hours", format="%,.0f"),
                "source_url": LINK})
            st.caption(panels.basis_caption(basis, "A scenario that states its own price is "
                       "priced at it (price_basis 'given'). Platforms that cannot train the "
                       "model (memory, scale-up domain) or whose basis offer is smaller than "
                       "the node the run needs are left out (training_cost)."))
    st.subheader("Token costs")
    if _missing(have, "offer_token_costs"):
        return
    workloads = _q(ident, "workloads")
    if not workloads:
        st.info("No measured result is priced yet (load MLPerf Inference results).")
        return
    c1, c2 = st.columns(2)
    workload = c1.selectbox("Workload (benchmark:scenario)", workloads, key="workload",
                            bind="query-params")
    models = _q(ident, "token_models", workload)
    model = c2.selectbox("Pricing model", models, key="token_pricing_model",
                         bind="query-params")
    frame = _q(ident, "tokens", workload, model, published)
    if frame.empty:
        st.info("No offer of this pricing model has a comparable measured result.")
        return
    frame = _age_beside(frame, "price_per_gpu_hour")
    first = frame.iloc[0]
    st.markdown(f"Cheapest: **{usd(first['usd_per_million_output_tokens'])} USD per million "
                f"output tokens** on {first['accelerator']} at {first['provider']} "
                f"(`{first['sku']}`, {usd(first['price_per_gpu_hour'])} USD/GPU-h, "
                f"{price_age(first['age'])}; measured "
                f"{first['tokens_per_second_per_gpu']:,.0f} tokens/s per GPU, MLPerf "
                f"{first['round']}, {first['submitter']}).")
    st.dataframe(frame, hide_index=True, column_config={
        **{c: _money(c.replace("usd_per_million_", "USD/M ").replace("_", " "))
           for c in frame.columns if c.startswith("usd_per_million")},
        "price_per_gpu_hour": _money("USD/GPU-h"),
        "price_observed_at": st.column_config.DatetimeColumn("price observed",
                                                             format="YYYY-MM-DD"),
        "age": st.column_config.TextColumn("age", help="price age at the publish")})
    st.caption(f"Price basis: each accelerator's cheapest {model.replace('_', ' ')} offer "
               "(gpu_offers.price_per_gpu_hour, dated prices first) priced at the measured "
               "throughput of the closest comparable MLPerf Inference result (offer_token_costs:"
               " price_per_gpu_hour / (tokens_per_second_per_gpu x 3600) x 10^6).")


if __name__ == "__main__":  # the script Streamlit runs: the page of the imported module
    from gpucost.flows.dashboard_app import render as render_page

    render_page()
