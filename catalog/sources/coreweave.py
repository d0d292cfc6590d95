"""CoreWeave's public pricing page (https://www.coreweave.com/pricing), scraped with
BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/coreweave/):

* 2023 à-la-carte grid (``coreweave.com/gpu-cloud-pricing``): Webflow ``w-row`` rows,
  ``<a data-product="hgx-h100">NVIDIA HGX H100</a>`` then cells for VRAM (GB per GPU), max
  vCPUs, max RAM and the "GPU Component Cost Per Hour" (``<strong>$4.76</strong>``). That
  price is USD per GPU-hour **for the GPU component only**: vCPUs and RAM are billed on top
  (CoreWeave's à-la-carte model), so it is not an instance price. It is kept as an
  ``on_demand`` observation of one GPU (gpu_count 1) whose sku names the component,
  ``gpu-component:<data-product>`` (``gpu-component:hgx-h100``), so it never shares an
  offer key with a whole-instance price, and price_kind "gpu_component" (never a minimum or
  a price basis). vcpus / ram_gb stay empty: the page's figures are
  the maxima one may add, not what the price includes.
* ≈2026 instance tables (``coreweave.com/pricing``): ``div.table-row-v2`` rows, one per
  instance, each with a summary grid (name, GPU count, VRAM, vCPUs, RAM, storage, prices)
  and a detail block holding ``On-Demand Price:`` / ``Spot Price:`` spans and labelled
  ``table-meta-value`` figures. Prices are USD **per instance-hour** (8 GPUs for HGX, 1 for
  GH200, 4 for a GB200/GB300 NVL72 tray: the count is printed ``4^1``, a footnote marker
  glued to the number). Every price appears twice per row (summary cells and detail block):
  the parser reads the detail block, one price per row and pricing model. The "Inference
  Single CPU Price" field is mislabelled (its value is the on-demand price divided by the GPU
  count, a per-GPU figure) and is not read. A ``REGION: EUROPE`` heading starts a second
  table: region comes from the nearest ``REGION:`` heading before a row ("europe"; "NORTH
  AMERICA" -> "us"); rows before the first heading of a page that has region headings
  belong to the page's first table, which on the live page is headed ``REGION: NORTH
  AMERICA`` (-> "us"; the recorded excerpt starts after that heading). On a page without
  any region heading, region is "".

The recorded ≈2026 file is a slice of a longer page: it starts in the middle of a tag and
ends in the middle of a row. A row fragment outside any ``table-row-v2`` (the nameless tail
of the row cut at the start) and a row without its detail block are
Reject("truncated_row"); a row cut after its prices still loads (figures missing from the
detail block are read from the summary cells by position).

An empty on-demand price with a "Contact sales" link -> Reject("no_price_contact_sales");
"N/A" -> Reject("price_not_available"); anything else without a number ->
Reject("zero_or_missing_price"). Never 0, never dropped.

gpu_name_raw and sku are the name as the page spells it ("NVIDIA RTX PRO 6000 Blackwell
Server Edition (High Memory)"); gpu_memory_gb is per GPU; provider "coreweave", stream
"pricing_page". ParseResult.observed_at is the Wayback capture time of a recorded page (from
its first comment), else None: the ≈2026 excerpt carries no date. A page with neither layout
-> ParseError("no known CoreWeave pricing layout"); a layout without a priced row ->
EmptyPayloadError.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import (
    classes,
    leading_gpu_count,
    leading_number,
    node_text,
    price_or_reject,
    read_page,
)
from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "coreweave"
DEFAULT_URL = "https://www.coreweave.com/pricing"

STREAM = "pricing_page"
COMPONENT_PREFIX = "gpu-component:"
_REGION = re.compile(r"^\s*REGION\s*:\s*(?P<name>\S.*?)\s*$", re.I)
REGIONS = {"north america": "us", "us": "us", "united states": "us", "europe": "europe"}
FIRST_TABLE_REGION = "us"  # the live page's first table is "REGION: NORTH AMERICA"
# the detail block's price spans -> pricing model (None: read but not a price we keep)
TIERS = {"instance-price": "on_demand", "spot-price": "spot", "inference-price": None}
# labelled figures of the detail block, and their position among the summary cells
FIGURES = {"gpu count": 0, "vram": 1, "vcpus": 2, "system ram": 3}


def _has_class(tag: Tag, name: str) -> bool:
    return name in classes(tag)


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    offers = CheapestOffers(result)
    rows_2026 = soup.find_all("div", class_="table-row-v2")
    rows_2023 = [r for r in soup.find_all("div", class_="table-body-row")
                 if r.find(attrs={"data-product": True})]
    if not rows_2026 and not rows_2023:
        raise ParseError(f"coreweave {payload.name}: no known CoreWeave pricing layout")
    if rows_2026:
        _reject_fragments(soup, offers)
        has_regions = soup.find(string=_REGION) is not None
        for row in rows_2026:
            _parse_2026_row(row, has_regions, offers)
    for row in rows_2023:
        _parse_2023_row(row, offers)
    return offers.finish(
        f"coreweave {payload.name}: CoreWeave pricing layout found but no priced row")


# -- 2023: à-la-carte GPU component grid -------------------------------------------------------

def _parse_2023_row(row: Tag, offers: CheapestOffers) -> None:
    link = row.find(attrs={"data-product": True})
    assert isinstance(link, Tag)
    name = node_text(link)
    product = str(link.get("data-product") or "").strip()
    cols = [c for c in row.find_all("div", recursive=False) if _has_class(c, "w-col")]
    cells = [node_text(c) for c in cols[1:]]
    raw = " | ".join([name, *cells])
    if not cells:
        offers.reject("truncated_row", f"{name}: no cells after the name (the page is cut)", raw)
        return
    price_text = cells[-1]
    price = price_or_reject(price_text, offers.result.rejects,
                            f"{name}: GPU component {price_text!r}", raw)
    if price is None:
        return
    vram = leading_number(cells[0]) if len(cells) >= 2 else None
    offers.add(PriceObservation(
        provider="coreweave", sku=COMPONENT_PREFIX + (product or name), region="",
        pricing_model="on_demand", price_per_hour=price, gpu_name_raw=name, gpu_count=1.0,
        gpu_memory_gb=vram, price_kind="gpu_component",
    ), raw)


# -- ≈2026: per-instance rows with a detail block ----------------------------------------------

def _reject_fragments(soup: BeautifulSoup, offers: CheapestOffers) -> None:
    """Labelled figures outside any row: the tail of a row cut off at the payload's start."""
    stray = [m for m in soup.find_all("div", class_="table-meta-text-right")
             if m.find_parent("div", class_="table-row-v2") is None]
    if stray:
        raw = " | ".join(node_text(m) for m in stray)
        offers.reject("truncated_row", "figures of a row without its name or prices (the "
                      "payload starts in the middle of a row)", raw)


def _region(row: Tag, has_regions: bool) -> str:
    heading = row.find_previous(string=_REGION)
    if heading is None:
        return FIRST_TABLE_REGION if has_regions else ""
    m = _REGION.match(str(heading))
    assert m is not None
    name = " ".join(m.group("name").lower().split())
    return REGIONS.get(name, re.sub(r"[^a-z0-9]+", "-", name).strip("-"))


def _figures(row: Tag) -> dict[str, str]:
    """GPU count, VRAM, vCPUs and RAM of a row: labelled detail figures, else the summary
    cells by position (a row cut before the end of its detail block)."""
    figures: dict[str, str] = {}
    for meta in row.find_all("div", class_="table-meta-text-right"):
        value = meta.find("div", class_="table-meta-value")
        label = node_text(meta).removeprefix(node_text(value)).strip().lower()
        if value is not None and label in FIGURES:
            figures[label] = node_text(value)
    grid = row.find("div", class_="table-grid")
    summary = [node_text(c) for c in (grid.find_all("div", recursive=False) if grid else [])
               if _has_class(c, "table-v2-cell") and not _has_class(c, "table-v2-cell--name")]
    for label, position in FIGURES.items():
        if label not in figures and position < len(summary):
            figures[label] = summary[position]
    return figures


def _parse_2026_row(row: Tag, has_regions: bool, offers: CheapestOffers) -> None:
    name = node_text(row.find(class_="table-model-name"))
    raw = " | ".join(node_text(c) for c in row.find_all("div", class_="table-v2-cell"))
    if not name:
        offers.reject("truncated_row", "a pricing row without a GPU model name", raw)
        return
    region = _region(row, has_regions)
    what = f"{name} {region}".strip()
    detail = row.find("div", class_="table-cell-column-left")
    spans = [s for s in (detail.find_all("span") if detail else [])
             if any(_has_class(s, c) for c in TIERS)]
    if not spans:
        offers.reject("truncated_row", f"{what}: no On-Demand / Spot price block", raw)
        return
    figures = _figures(row)
    count, why = leading_gpu_count(figures.get("gpu count", ""))
    if why:
        offers.reject(GPU_COUNT_INVALID, f"{what}: {why}", raw)
        return
    if count is None:
        offers.reject("gpu_count_unknown", f"{what}: GPU count {figures.get('gpu count')!r}",
                      raw)
        return
    contact = "contact" in node_text(row).lower()
    for span in spans:
        tier = next(c for c in TIERS if _has_class(span, c))
        model = TIERS[tier]
        if model is None:
            continue  # "Inference Single CPU Price": a per-GPU figure, mislabelled
        value_text = node_text(span.find("span", class_="item-value"))
        context = "contact sales" if contact and model == "on_demand" else ""
        price = price_or_reject(value_text, offers.result.rejects,
                                f"{what} {model}: {value_text!r}", raw, context=context)
        if price is None:
            continue
        offers.add(PriceObservation(
            provider="coreweave", sku=name, region=region, pricing_model=model,
            price_per_hour=price, gpu_name_raw=name, gpu_count=count,
            gpu_memory_gb=leading_number(figures.get("vram", "")),
            vcpus=leading_number(figures.get("vcpus", "")),
            ram_gb=leading_number(figures.get("system ram", "")),
        ), raw)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="CoreWeave's pricing page (scraped HTML: instance tables, or the 2023 GPU "
                "component grid)",
)
