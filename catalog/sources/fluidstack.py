"""FluidStack's public pricing page (https://www.fluidstack.io/pricing), scraped with
BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/fluidstack/);
in both the columns are found by their header text:

* 2023 div grid: ``.pricing__top-headline`` headers (GPU Model, VRAM (GB), Max vCPUs per GPU
  ($0.01/hr), Max RAM (GB) per GPU ($0.005/hr), GPU On-Demand Cost (/hr), GPU 6 Month Cost
  (/hr)) and ``div.pricing-row`` rows of ``.pricing__col`` cells.
* 2025 ``<table class="pricing_table">``: Model, VRAM (GB), Max vCPUs per GPU, Max RAM (GB)
  per GPU, On-Demand Price (/hr), 1 Year price (/hr); the name is an ``<h2>`` in the row's
  ``<th>``.

Prices are USD per GPU-hour; the page states no instance size, so one observation per GPU
and column with gpu_count 1 (the price of one GPU-hour). When the headers price vCPUs and
RAM separately (2023: "($0.01/hr)", "($0.005/hr)"), the GPU price is the **GPU component
only** (vCPUs and RAM are billed on top, as in CoreWeave's 2023 à-la-carte page, whose
H100 / A100 80GB prices it repeats): the observation is still a per-GPU-hour on_demand price
of the GPU, with sku ``gpu-component:<name slug>`` (``gpu-component:nvidia-hgx-h100``) so it
never shares an offer key with an all-in price, and price_kind "gpu_component" (never a
minimum or a price basis). Otherwise (2025) sku = the model name.
vcpus / ram_gb stay empty: the page's figures are maxima per GPU, not what the price holds.

Columns -> pricing_model: On-Demand -> on_demand; "1 Year" / "12 Month" -> reserved_1y,
"3 Year" / "36 Month" -> reserved_3y, "6 Month" (the 2023 column) -> reserved_6m, "1 Month"
-> reserved_1m; any other term -> Reject("reserved_term_unsupported"); another price column
-> Reject("unknown_tier"). "n/a"
(the 2025 H200 on-demand) -> Reject("price_not_available"), "Contact sales" ->
Reject("no_price_contact_sales"), anything else without a number ->
Reject("zero_or_missing_price"). A row cut after its name (the 2023 cut ends on the A6000
label) -> Reject("truncated_row").

gpu_name_raw = the model as printed ("NVIDIA HGX H100", "Nvidia A100 80GB PCIe");
gpu_memory_gb = the VRAM column (per GPU). Region "" (not stated), provider "fluidstack",
stream "pricing_page". ParseResult.observed_at is the Wayback capture time of a recorded
page, else None. A page with neither layout -> ParseError("no known FluidStack pricing
layout"); a layout without a priced row -> EmptyPayloadError.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from gpucost.catalog.pages import (
    DOLLAR_PRICE,
    classes,
    leading_number,
    node_text,
    price_or_reject,
    read_page,
    reserved_model,
    says_on_demand,
)
from gpucost.catalog.parsing import CheapestOffers
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "fluidstack"
DEFAULT_URL = "https://www.fluidstack.io/pricing"

STREAM = "pricing_page"
COMPONENT_PREFIX = "gpu-component:"
# a VRAM cell is one number, nothing else (not only a leading number)
_NUMBER = re.compile(r"^\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*$")
_TERM = re.compile(r"(?P<n>\d+)\s*-?\s*(?P<unit>months?|years?)", re.I)
_PRICE_COLUMN = re.compile(r"(?:cost|price)", re.I)


def _pricing_model(column: str) -> tuple[str | None, str]:
    """(pricing_model, "") for a price column's label, or (None, reject reason). Unlike
    Crusoe's, any column stating a term is a reservation ("GPU 6 Month Cost") and the page
    has no spot column."""
    label = column.lower()
    if says_on_demand(label):
        return "on_demand", ""
    m = _TERM.search(label)
    if m:
        model = reserved_model(m)
        return (model, "") if model else (None, "reserved_term_unsupported")
    return None, "unknown_tier"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    offers = CheapestOffers(result)
    layout = _table_layout(soup) or _grid_layout(soup)
    if layout is None:
        raise ParseError(f"fluidstack {payload.name}: no known FluidStack pricing layout")
    headers, rows = layout
    # vCPUs and RAM priced in the headers: the GPU price is the GPU component only
    component = any(DOLLAR_PRICE.search(h) and re.search(r"vcpu|ram", h, re.I) for h in headers)
    for name, cells, raw in rows:
        _parse_row(name, cells, headers[1:], component, raw, offers)
    return offers.finish(
        f"fluidstack {payload.name}: FluidStack pricing layout found but no priced row")


Rows = list[tuple[str, list[str], str]]  # (name, cells after the name, raw row)


def _table_layout(soup: BeautifulSoup) -> tuple[list[str], Rows] | None:
    for table in soup.find_all("table"):
        header = table.find("tr")
        if header is None:
            continue
        headers = [node_text(th) for th in header.find_all(["th", "td"])]
        if not any(_pricing_model(h)[0] == "on_demand" for h in headers):
            continue
        rows: Rows = []
        for tr in table.find_all("tr"):
            if tr is header:
                continue
            cells = [node_text(c) for c in tr.find_all(["th", "td"], recursive=False)]
            if cells:
                rows.append((cells[0], cells[1:], " | ".join(cells)))
        return headers, rows
    return None


def _grid_layout(soup: BeautifulSoup) -> tuple[list[str], Rows] | None:
    headers = [node_text(h) for h in soup.find_all(class_="pricing__top-headline")]
    if not any(_pricing_model(h)[0] == "on_demand" for h in headers):
        return None
    rows: Rows = []
    for row in soup.find_all("div", class_="pricing-row"):
        cols = [c for c in row.find_all("div", recursive=False)
                if "pricing__col" in classes(c)]
        cells = [node_text(c) for c in cols]
        if cells:
            rows.append((cells[0], cells[1:], " | ".join(cells)))
    return headers, rows


def _parse_row(name: str, cells: list[str], columns: list[str], component: bool, raw: str,
               offers: CheapestOffers) -> None:
    if not name:
        offers.reject("gpu_name_missing", "a pricing row without a GPU model", raw)
        return
    if not cells:
        offers.reject("truncated_row", f"{name}: no cells after the name (the page is cut)",
                      raw)
        return
    vram = next((leading_number(c, _NUMBER) for col, c in zip(columns, cells, strict=False)
                 if col.lower().startswith("vram")), None)
    sku = COMPONENT_PREFIX + _slug(name) if component else name
    for column, cell in zip(columns, cells, strict=False):
        if not _PRICE_COLUMN.search(column):
            continue
        model, reason = _pricing_model(column)
        if model is None:
            offers.reject(reason, f"{name}: column {column!r} ({cell!r})", raw)
            continue
        price = price_or_reject(cell, offers.result.rejects, f"{name} {model}: {cell!r}", raw)
        if price is None:
            continue
        offers.add(PriceObservation(
            provider="fluidstack", sku=sku, region="", pricing_model=model,
            price_per_hour=price, gpu_name_raw=name, gpu_count=1.0, gpu_memory_gb=vram,
            price_kind="gpu_component" if component else "instance",
        ), raw)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="FluidStack's pricing page (scraped HTML, USD per GPU-hour)",
)
