"""Nebius AI Cloud's public price page (https://nebius.com/prices), scraped with BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/nebius/);
the layout is chosen by what the page holds:

* 2026 highlight table: ``div.pc-highlight-table-block__table`` with a head row (Item,
  vCPUs, "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour") and body rows of
  ``div.pc-highlight-table-block__cell``. Columns are found by their header text, never by
  position (the Preemptible column comes *before* On-demand). Prices are **per GPU-hour**:
  one observation per GPU type and column with gpu_count 1 (the page's vCPUs and RAM are per
  GPU, i.e. the one-GPU instance). "Preemptible" -> pricing_model "spot", "On-demand" ->
  "on_demand". "Contact us" (GB200/GB300 NVL72) -> Reject("no_price_contact_sales"), the
  ``&ndash;&ndash;`` placeholder -> Reject("zero_or_missing_price"). L40S rows say
  "from $0.90" with vCPU/RAM ranges ("16-192"): the "from" price is the smallest
  configuration's and is taken as the one-GPU price, vCPUs and RAM are then left None (a
  range is not one machine). The item "NVIDIA L40S with Intel CPU" is the sku; the GPU name
  (gpu_name_raw) drops the " with ... CPU" suffix ("NVIDIA L40S"). Only tables whose headers
  say "GPU-hour" are read (the page's CPU-only tables share the markup).
* 2024 table: ``div.pc-table`` rows (role="row") under "GPU prices and configurations":
  GPU ("1 × H100 SXM", U+00D7), "vRAM, GB" (total of the instance), "RAM, GB", vCPUS,
  "On demand", "Reserve". Prices are **per instance-hour**; gpu_count is the number before
  "×", gpu_name_raw the rest ("H100 SXM"), sku the cell as written ("8 × H100 SXM"),
  gpu_memory_gb = vRAM / count. The "Reserve" column is a commitment price whose term the
  page does not state ("a commitment period, ranging from 3 months to 3 years"): every priced
  Reserve cell -> Reject("reserved_term_unknown"). The promo cards above the table ("As low as
  $2.00 per hour", a reserve price repeated) are not offers: each -> Reject("promo_card").

provider "nebius", region "" (the page price is not regional), stream "pricing_page".
A page with neither layout -> ParseError("no known Nebius pricing layout"); a layout without
one priced row -> EmptyPayloadError. ParseResult.observed_at comes from the Wayback capture
comment of a recorded page, else None.
"""

from __future__ import annotations

import re

from bs4 import Tag

from gpucost.catalog.pages import (
    first_price,
    node_text,
    plain_number,
    price_or_reject,
    read_page,
)
from gpucost.catalog.parsing import GPU_COUNT_INVALID, finish_cheapest, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "nebius"
DEFAULT_URL = "https://nebius.com/prices"
STREAM = "pricing_page"

_COUNT_NAME = re.compile(r"^(?P<count>\d+)\s*[×x]\s*(?P<name>.+)$", re.I)
_CPU_SUFFIX = re.compile(r"\s+with\s+\S+\s+CPU$", re.I)


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    tables_2026 = [
        t for t in soup.select("div.pc-highlight-table-block__table")
        if "gpu-hour" in node_text(t.select_one(".pc-highlight-table-block__head")).lower()]
    tables_2024 = [t for t in soup.select("div.pc-table") if _header_2024(t)]
    if not tables_2026 and not tables_2024:
        raise ParseError(f"nebius {payload.name}: no known Nebius pricing layout")
    for table in tables_2026:
        _parse_2026(table, result)
    if tables_2024:
        for card in soup.select(".pc-price-card"):
            title = node_text(card.select_one(".pc-price-card__title"))
            result.rejects.append(Reject(
                "promo_card", f"{title}: {node_text(card.select_one('.pc-price-card__price'))} "
                "(an 'as low as' reserve price; the table is read instead)",
                node_text(card)[:500]))
        for table in tables_2024:
            _parse_2024(table, result)
    return finish_cheapest(
        result, f"nebius {payload.name}: Nebius pricing layout found but no priced row")


# -- 2026: highlight table, per GPU-hour ------------------------------------------------------

_MODELS_2026 = (("preemptible", "spot"), ("on-demand", "on_demand"))


def _parse_2026(table: Tag, result: ParseResult) -> None:
    head = table.select_one(".pc-highlight-table-block__head")
    headers = [node_text(c).lower() for c in head.select(".pc-highlight-table-block__cell")] \
        if head else []
    item_col = next((i for i, h in enumerate(headers) if h.startswith("item")), 0)
    vcpu_col = next((i for i, h in enumerate(headers) if "vcpu" in h), None)
    ram_col = next((i for i, h in enumerate(headers) if h.startswith("ram")), None)
    price_cols = [(i, model) for i, h in enumerate(headers) for word, model in _MODELS_2026
                  if h.startswith(word) and "gpu-hour" in h]
    for i, h in enumerate(headers):
        if "hour" in h and i not in {c for c, _ in price_cols}:
            result.rejects.append(Reject("unknown_price_column", f"column {h!r} not read"))
    body = table.select_one(".pc-highlight-table-block__body") or table
    for row in body.select(".pc-highlight-table-block__row"):
        cells = [node_text(c) for c in row.select(".pc-highlight-table-block__cell")]
        if len(cells) != len(headers) or not cells[item_col]:
            result.rejects.append(Reject("unexpected_row_shape", " | ".join(cells)))
            continue
        raw = " | ".join(cells)
        item = cells[item_col]
        vcpus = plain_number(cells[vcpu_col]) if vcpu_col is not None else None
        ram = plain_number(cells[ram_col]) if ram_col is not None else None
        for col, model in price_cols:
            text = cells[col]
            price = price_or_reject(text, result.rejects, f"{item} {model}: {text!r}", raw,
                                    not_available=False)
            if price is None:
                continue
            result.prices.append(PriceObservation(
                provider="nebius", sku=item, region="", pricing_model=model,
                price_per_hour=price, gpu_name_raw=_CPU_SUFFIX.sub("", item), gpu_count=1.0,
                vcpus=vcpus, ram_gb=ram,
            ))


# -- 2024: pc-table, per instance-hour --------------------------------------------------------

def _rows_2024(table: Tag) -> list[list[str]]:
    return [[node_text(c) for c in row.find_all(attrs={"role": "cell"})]
            for row in table.find_all(attrs={"role": "row"})]


def _header_2024(table: Tag) -> list[str] | None:
    rows = _rows_2024(table)
    if not rows:
        return None
    header = [h.lower() for h in rows[0]]
    if header and header[0] == "gpu" and any(h.startswith("on demand") for h in header):
        return header
    return None


def _parse_2024(table: Tag, result: ParseResult) -> None:
    header = _header_2024(table) or []
    col = {h: i for i, h in enumerate(header)}
    vram_col = next((i for h, i in col.items() if h.startswith("vram")), None)
    ram_col = next((i for h, i in col.items() if h.startswith("ram")), None)
    vcpu_col = next((i for h, i in col.items() if h.startswith("vcpu")), None)
    od_col = next(i for h, i in col.items() if h.startswith("on demand"))
    reserve_col = next((i for h, i in col.items() if h.startswith("reserve")), None)
    for cells in _rows_2024(table)[1:]:
        raw = " | ".join(cells)
        if len(cells) != len(header):
            result.rejects.append(Reject("unexpected_row_shape", raw, raw))
            continue
        m = _COUNT_NAME.match(cells[0])
        if m is None:
            result.rejects.append(Reject("gpu_count_unknown", cells[0], raw))
            continue
        count, why = read_gpu_count(m.group("count"))
        if count is None:  # "0x H100"
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{cells[0]}: {why}", raw))
            continue
        name = m.group("name").strip()
        if reserve_col is not None and first_price(cells[reserve_col]) is not None:
            result.rejects.append(Reject(
                "reserved_term_unknown",
                f"{cells[0]} Reserve {cells[reserve_col]}: commitment term not stated "
                "(3 months to 3 years)", raw))
        price = price_or_reject(cells[od_col], result.rejects,
                                f"{cells[0]} on demand: {cells[od_col]!r}", raw,
                                not_available=False)
        if price is None:
            continue
        vram = plain_number(cells[vram_col]) if vram_col is not None else None
        result.prices.append(PriceObservation(
            provider="nebius", sku=cells[0], region="", pricing_model="on_demand",
            price_per_hour=price, gpu_name_raw=name, gpu_count=count,
            gpu_memory_gb=round(vram / count, 3) if vram else None,
            vcpus=plain_number(cells[vcpu_col]) if vcpu_col is not None else None,
            ram_gb=plain_number(cells[ram_col]) if ram_col is not None else None,
        ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="prices.html", ext="html", policy=FetchPolicy(html=True),
    description="Nebius AI Cloud's price page (scraped HTML: GPU-hour table or instance table)",
)
