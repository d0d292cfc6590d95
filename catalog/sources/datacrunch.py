"""DataCrunch's (now Verda's) public products page (https://datacrunch.io/products), scraped
with BeautifulSoup.

One layout is known (recorded in ../shared/data/prices/pricing_pages_html/datacrunch/): a
styled-components ``<table>`` with hashed class names, so the columns are found by their
header text, never by class: Instance name, GPU model, GPU (count), CPU (vCPUs), RAM (GB),
VRAM (GB, the whole instance), P2P, On demand price, Dynamic price, Spot price. The recorded
cut starts at the first ``<th>`` (the header row's ``<tr>`` is cut off), so the header
cells are read as the ``<th>`` siblings of "Instance name" and the rows from the ``<tbody>``
that follows.

Prices are USD **per instance-hour** (``$29.10/h`` for ``8B200.240V``), so price_per_hour
is the cell as printed and gpu_count the GPU column. On demand -> ``on_demand``, Spot ->
``spot``. The "Dynamic price" is an on-demand price that DataCrunch resets daily (fixed once
deployed): it is neither spot nor a reservation, so it has no pricing model in the
vocabulary -> Reject("pricing_model_unsupported") (one per row; never merged into on-demand,
where the cheapest-offer rule would silently replace the list price). Another price column
-> Reject("unknown_tier"); "Contact sales" / "n/a" / empty -> Reject
("no_price_contact_sales" / "price_not_available" / "zero_or_missing_price").

sku = the instance name ("1B200.30V"), gpu_name_raw = the GPU model as printed ("B200 SXM6
180GB"), gpu_memory_gb = VRAM / GPU count (per GPU), vcpus, ram_gb from their columns.
Region "" (not stated), provider "datacrunch" (the id gpuhunt's "verda" and the reference
prices use), stream "pricing_page". ParseResult.observed_at is the Wayback capture time of a
recorded page, else None. A page without the table -> ParseError("no known DataCrunch
pricing layout"); a table without a priced row -> EmptyPayloadError.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import (
    leading_gpu_count,
    leading_number,
    node_text,
    price_or_reject,
    read_page,
)
from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "datacrunch"
DEFAULT_URL = "https://datacrunch.io/products"

STREAM = "pricing_page"
# a figure cell is the whole number, optionally "GB" (not only a leading number)
_NUMBER = re.compile(r"^\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:GB)?\s*$", re.I)
_MEMORY_IN_NAME = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*GB\b", re.I)
# header text (lowercase, without "price") -> the field it holds
FIELDS = {"instance name": "sku", "gpu model": "gpu", "gpu": "count", "cpu": "vcpus",
          "ram": "ram", "vram": "vram", "p2p": "p2p"}
TIERS = {"on demand": "on_demand", "on-demand": "on_demand", "spot": "spot"}
UNSUPPORTED_TIERS = {"dynamic": "a daily-reset on-demand price (fixed once deployed): no "
                                "pricing_model for it in the vocabulary"}


def _header(soup: BeautifulSoup) -> Tag | None:
    for th in soup.find_all("th"):
        if node_text(th).lower() == "instance name":
            return th
    return None


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    offers = CheapestOffers(result)
    first = _header(soup)
    columns = ([node_text(first), *(node_text(th) for th in first.find_next_siblings("th"))]
               if first else [])
    if first is None or not any("price" in c.lower() for c in columns):
        raise ParseError(f"datacrunch {payload.name}: no known DataCrunch pricing layout")
    body = first.find_next("tbody")
    rows = (body.find_all("tr") if isinstance(body, Tag) else first.find_all_next("tr"))
    for row in rows:
        cells = [node_text(td) for td in row.find_all("td")]
        if cells:
            _parse_row(columns, cells, offers)
    return offers.finish(
        f"datacrunch {payload.name}: DataCrunch pricing layout found but no priced row")


def _parse_row(columns: list[str], cells: list[str], offers: CheapestOffers) -> None:
    raw = " | ".join(cells)
    if len(cells) != len(columns):
        offers.reject("ragged_row", f"{len(cells)} cells under {len(columns)} headers", raw)
        return
    fields: dict[str, str] = {}
    prices: list[tuple[str, str]] = []  # (column label, cell)
    for column, cell in zip(columns, cells, strict=True):
        label = column.lower().strip()
        if "price" in label:
            prices.append((column, cell))
        elif label in FIELDS:
            fields[FIELDS[label]] = cell
    sku, gpu = fields.get("sku", ""), fields.get("gpu", "")
    if not sku or not gpu:
        offers.reject("gpu_name_missing", "a row without an instance name or GPU model", raw)
        return
    count, why = leading_gpu_count(fields.get("count", ""), _NUMBER)
    if why:
        offers.reject(GPU_COUNT_INVALID, f"{sku}: {why}", raw)
        return
    if count is None:
        offers.reject("gpu_count_unknown", f"{sku}: GPU {fields.get('count')!r}", raw)
        return
    vram = leading_number(fields.get("vram", ""), _NUMBER)
    in_name = _MEMORY_IN_NAME.search(gpu)
    per_gpu_memory = (round(vram / count, 3) if vram else
                      float(in_name.group("n")) if in_name else None)
    for column, cell in prices:
        label = column.lower().replace("price", "").strip()
        if label in UNSUPPORTED_TIERS:
            offers.reject("pricing_model_unsupported",
                          f"{sku}: {column} {cell!r} is {UNSUPPORTED_TIERS[label]}", raw)
            continue
        model = TIERS.get(label)
        if model is None:
            offers.reject("unknown_tier", f"{sku}: column {column!r} ({cell!r})", raw)
            continue
        price = price_or_reject(cell, offers.result.rejects, f"{sku} {model}: {cell!r}", raw)
        if price is None:
            continue
        offers.add(PriceObservation(
            provider="datacrunch", sku=sku, region="", pricing_model=model,
            price_per_hour=price, gpu_name_raw=gpu, gpu_count=count,
            gpu_memory_gb=per_gpu_memory, vcpus=leading_number(fields.get("vcpus", ""), _NUMBER),
            ram_gb=leading_number(fields.get("ram", ""), _NUMBER),
        ), raw)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="products.html", ext="html", policy=FetchPolicy(html=True),
    description="DataCrunch (Verda) products page (scraped HTML, USD per instance-hour)",
)
