"""Crusoe Cloud's public pricing page (https://www.crusoe.ai/cloud/pricing), scraped with
BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/crusoe/):

* 2025-05 Tailwind ``<table>``: a header row (On-Demand, Current Spot, 6-month reserved,
  1-year reserved, 3-year reserved) and one ``<tr>`` per GPU whose first cell holds the name
  and two tags ("NVIDIA H100" / "80GB" / "SXM"); each price is split into ``$``, the number
  and ``/hr`` in separate elements.
* 2025-12 Webflow list: ``div.prixing-item`` items with ``<h4 class="pricing-item-heading">``
  and ``.pricing-tag`` tags ("80GB", "HGX"), then one ``.pricing-rich`` cell per column of
  the ``.pricing-table-heading`` row (On-demand, Current spot), text like ``$4.29/GPU-hr``.

Prices are USD per GPU-hour and the page states no instance size: one observation per GPU
and column with gpu_count 1 (the price of one GPU-hour). Columns -> pricing_model: On-demand
-> on_demand, (Current) spot -> spot, 6-month / 1-year / 3-year reserved -> reserved_6m /
reserved_1y / reserved_3y (the page prints the per-GPU-hour equivalent of the commitment and
no payment terms: payment None). A term with no pricing model in the vocabulary (not 1, 6, 12
or 36 months) -> Reject("reserved_term_unsupported"); an unknown column ->
Reject("unknown_tier"). "Contact
Sales" -> Reject("no_price_contact_sales"); "n/a" -> Reject("price_not_available"); any
other cell without a number -> Reject("zero_or_missing_price"). A row cut after its name
(both recorded pages end on a GPU label: A40, A100) -> Reject("truncated_row").

gpu_name_raw = sku = the name followed by its tags as the page prints them ("NVIDIA A100
80GB PCIe": the tags tell the three A100 rows apart); gpu_memory_gb is the tag's GB figure
(per GPU). Region "" (not regional), provider "crusoe", stream "pricing_page".
ParseResult.observed_at is the Wayback capture time of a recorded page, else None. A page
with neither layout -> ParseError("no known Crusoe pricing layout"); a layout without a
priced row -> EmptyPayloadError.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import (
    node_text,
    price_or_reject,
    read_page,
    reserved_model,
    says_on_demand,
)
from gpucost.catalog.parsing import CheapestOffers
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "crusoe"
DEFAULT_URL = "https://www.crusoe.ai/cloud/pricing"

STREAM = "pricing_page"
_MEMORY = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*GB$", re.I)
_TERM = re.compile(r"(?P<n>\d+)[\s-]*(?P<unit>month|year)", re.I)


def _pricing_model(column: str) -> tuple[str | None, str]:
    """(pricing_model, "") for a price column's label, or (None, reject reason). Unlike
    FluidStack's, a term counts only in a "reserve" column and "spot" is a column."""
    label = column.lower()
    if "reserved" in label or "reserve" in label:
        model = reserved_model(_TERM.search(label))
        return (model, "") if model else (None, "reserved_term_unsupported")
    if "spot" in label:
        return "spot", ""
    if says_on_demand(label):
        return "on_demand", ""
    return None, "unknown_tier"


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    offers = CheapestOffers(result)
    table = _table_layout(soup)
    items = soup.find_all(class_="prixing-item") or [
        h.find_parent("div", role="listitem") or h
        for h in soup.find_all("h4", class_="pricing-item-heading")]
    if table is None and not items:
        raise ParseError(f"crusoe {payload.name}: no known Crusoe pricing layout")
    if table is not None:
        columns, rows = table
        for row in rows:
            cells = row.find_all("td", recursive=False)
            _parse_row(_name_parts(cells[0]) if cells else [],
                       [node_text(c) for c in cells[1:]], columns,
                       " | ".join(node_text(c) for c in cells), offers)
    if items:
        heading = soup.find(class_="pricing-table-heading")
        labels = [node_text(h) for h in heading.find_all(class_="pricing-heading")] if isinstance(
            heading, Tag) else []
        columns = labels[1:] if labels else ["On-demand", "Current spot"]
        for item in items:
            title = item.find(class_="pricing-item-heading")
            tags = [node_text(t) for t in item.find_all(class_="pricing-tag")]
            cells = [node_text(c) for c in item.find_all(class_="pricing-rich")]
            _parse_row([node_text(title), *tags] if title else [], cells, columns,
                       " | ".join([node_text(title), *tags, *cells]), offers)
    return offers.finish(f"crusoe {payload.name}: Crusoe pricing layout found but no priced row")


def _table_layout(soup: BeautifulSoup) -> tuple[list[str], list[Tag]] | None:
    """(price column labels, body rows) of the 2025-05 table, or None."""
    for table in soup.find_all("table"):
        header = table.find("tr")
        if header is None:
            continue
        labels = [node_text(th) for th in header.find_all("th")]
        if not any(_pricing_model(x)[0] == "on_demand" for x in labels[1:]):
            continue
        rows = [tr for tr in table.find_all("tr") if tr is not header and tr.find("td")]
        return labels[1:], rows
    return None


def _name_parts(cell: Tag) -> list[str]:
    """The name and the tags of a 2025-05 name cell: the texts of its leaf elements."""
    parts = [node_text(d) for d in cell.find_all(["div", "span"])
             if d.find(["div", "span"]) is None]
    return [p for p in parts if p] or ([node_text(cell)] if node_text(cell) else [])


def _parse_row(name_parts: list[str], cells: list[str], columns: list[str], raw: str,
               offers: CheapestOffers) -> None:
    name = " ".join(name_parts)
    if not name:
        offers.reject("gpu_name_missing", "a pricing row without a GPU name", raw)
        return
    if not cells:
        offers.reject("truncated_row", f"{name}: no price cells (the page is cut)", raw)
        return
    memory = next((float(m.group("n")) for p in name_parts[1:] if (m := _MEMORY.match(p))),
                  None)
    for column, cell in zip(columns, cells, strict=False):
        model, reason = _pricing_model(column)
        if model is None:
            offers.reject(reason, f"{name}: column {column!r} ({cell!r})", raw)
            continue
        price = price_or_reject(cell, offers.result.rejects, f"{name} {model}: {cell!r}", raw)
        if price is None:
            continue
        offers.add(PriceObservation(
            provider="crusoe", sku=name, region="", pricing_model=model, price_per_hour=price,
            gpu_name_raw=name, gpu_count=1.0, gpu_memory_gb=memory,
        ), raw)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Crusoe Cloud's pricing page (scraped HTML, USD per GPU-hour)",
)
