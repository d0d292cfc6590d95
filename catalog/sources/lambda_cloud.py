"""Lambda's public pricing page (https://lambda.ai/pricing), scraped with BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/lambda/):

* 2024 table: a row per offer, title in ``<strong>On-demand 8x NVIDIA H100 SXM</strong>``,
  cells for VRAM/GPU ("80 GB"), vCPUs, RAM ("1800 GiB"), storage and the price
  ("$2.99 / GPU / hr"). "Reserved ... CONTACT SALES" rows carry no price ->
  Reject("no_price_contact_sales").
* 2026 React tabs: ``<tr data-plan="NVIDIA H100 SXM">`` rows with ``<td data-label="...">``
  cells inside tab panels 8x/4x/2x/1x; the GPU count comes from the panel's tab.

Prices on the page are PER GPU: price_per_hour = per-GPU price x gpu_count (the instance).
The VRAM is always part of gpu_name_raw ("NVIDIA A100 SXM 80GB") and of the sku
("8x NVIDIA A100 SXM 80GB"): two offers share a plan name and differ only by VRAM, and
including it everywhere keeps the natural key stable when one of them disappears.
gpu_memory_gb is per GPU; ram_gb is the page's GiB figure. region "" (the page price is not
regional), provider "lambda", stream "pricing_page". Zero-width characters are stripped.

A page with neither layout -> ParseError("no known Lambda pricing layout"); a layout with
zero priced rows -> EmptyPayloadError. ParseResult.observed_at is set from the Wayback capture
comment at the top of a recorded page (``/web/20241103180910id_/``), else left None.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import (
    clean_text,
    first_price,
    node_text,
    plain_number,
    price_or_reject,
    read_page,
)
from gpucost.catalog.parsing import GPU_COUNT_INVALID, finish_cheapest, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "lambda"
DEFAULT_URL = "https://lambda.ai/pricing"

STREAM = "pricing_page"
_TITLE_2024 = re.compile(r"^(?P<tier>On-demand|Reserved)\s+(?P<count>\d+)\s*x\s+(?P<plan>.+)$",
                         re.I)
_MEMORY = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>GB|GiB|TB|TiB)$", re.I)
_PER_GPU = re.compile(r"/\s*GPU\b", re.I)
_COUNT = re.compile(r"^(?P<n>\d+)\s*x$", re.I)


# a cell's per-GPU price: the first dollar amount ("$1e308" is none; the tests read it here)
_price = first_price


def _memory_gb(text: str) -> float | None:
    m = _MEMORY.match(text.strip())
    if not m:
        return None
    value = float(m.group("n"))
    return value * 1024 if m.group("unit").upper().startswith("T") else value


def _vram_label(gb: float | None) -> str:
    return f" {gb:g}GB" if gb else ""


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    rows_2026 = soup.select("tr[data-plan]")
    rows_2024 = [s for s in soup.find_all("strong") if _TITLE_2024.match(node_text(s))]
    if not rows_2026 and not rows_2024:
        raise ParseError(f"lambda {payload.name}: no known Lambda pricing layout")
    for row in rows_2026:
        _parse_2026_row(row, soup, result)
    for title in rows_2024:
        _parse_2024_row(title, result)
    return finish_cheapest(
        result, f"lambda {payload.name}: Lambda pricing layout found but no priced row")


def _observation(
    *, plan: str, count: float, per_gpu: float, vram_gb: float | None, vcpus: float | None,
    ram_gb: float | None,
) -> PriceObservation:
    gpu_name = f"{plan}{_vram_label(vram_gb)}"
    return PriceObservation(
        provider="lambda",
        sku=f"{count:g}x {gpu_name}",
        region="",
        pricing_model="on_demand",
        price_per_hour=round(per_gpu * count, 6),
        gpu_name_raw=gpu_name,
        gpu_count=count,
        gpu_memory_gb=vram_gb,
        vcpus=vcpus,
        ram_gb=ram_gb,
    )


def _parse_2024_row(title: Tag, result: ParseResult) -> None:
    m = _TITLE_2024.match(node_text(title))
    if m is None:
        return
    row = title.find_parent("tr")
    cells = [node_text(td) for td in row.find_all("td")] if row else []
    raw = " | ".join([node_text(title), *cells[1:]])
    if m.group("tier").lower() == "reserved":
        if any("contact sales" in c.lower() for c in cells):
            result.rejects.append(Reject("no_price_contact_sales", node_text(title), raw))
        else:
            result.rejects.append(Reject("reserved_term_unknown", node_text(title), raw))
        return
    count, why = read_gpu_count(m.group("count"))
    if count is None:  # "On-demand 0x H100"
        result.rejects.append(Reject(GPU_COUNT_INVALID, f"{node_text(title)}: {why}", raw))
        return
    price = next((p for c in cells if _PER_GPU.search(c) and (p := _price(c))), None)
    if price is None:
        reason = ("no_price_contact_sales" if any("contact sales" in c.lower() for c in cells)
                  else "zero_or_missing_price")
        result.rejects.append(Reject(reason, node_text(title), raw))
        return
    vram = next((g for c in cells[1:] if c.upper().endswith(" GB") and (g := _memory_gb(c))),
                None)
    ram = next((g for c in cells[1:] if c.endswith("GiB") and "SSD" not in c
                and (g := _memory_gb(c))), None)
    vcpus = next((n for c in cells[1:] if c.isdigit() and (n := plain_number(c))), None)
    result.prices.append(_observation(
        plan=m.group("plan").strip(), count=count, per_gpu=price,
        vram_gb=vram, vcpus=vcpus, ram_gb=ram,
    ))


def _panel_count(row: Tag, soup: BeautifulSoup) -> float | None:
    """GPUs per instance of a 2026 row: from the tab ("8x") that labels its tab panel."""
    panel = row.find_parent(attrs={"role": "tabpanel"})
    if panel is None:
        return None
    tab: Tag | None = None
    tab_id = panel.get("aria-labelledby")
    if isinstance(tab_id, str) and tab_id:
        found = soup.find(id=tab_id)
        tab = found if isinstance(found, Tag) else None
    panel_id = panel.get("id")
    if tab is None and isinstance(panel_id, str) and panel_id:
        found = soup.find(attrs={"aria-controls": panel_id})
        tab = found if isinstance(found, Tag) else None
    m = _COUNT.match(node_text(tab))
    return float(m.group("n")) if m else None  # "0x": read_gpu_count refuses it


def _cell(row: Tag, *labels: str) -> str:
    for td in row.find_all(["td", "th"]):
        label = str(td.get("data-label") or "").strip().upper()
        if any(label.startswith(want) for want in labels):
            return node_text(td)
    return ""


def _parse_2026_row(row: Tag, soup: BeautifulSoup, result: ParseResult) -> None:
    plan = clean_text(str(row.get("data-plan") or ""))
    raw = " | ".join(node_text(c) for c in row.find_all(["th", "td"]))
    price_text = _cell(row, "PRICE")
    count, why = read_gpu_count(_panel_count(row, soup))
    if why:
        result.rejects.append(Reject(GPU_COUNT_INVALID, f"{plan}: {why}", raw))
        return
    if count is None:
        result.rejects.append(Reject("gpu_count_unknown", f"{plan}: no NxGPU tab", raw))
        return
    price = price_or_reject(price_text, result.rejects, f"{count:g}x {plan}: {price_text!r}",
                            raw, not_available=False)
    if price is None:
        return
    result.prices.append(_observation(
        plan=plan, count=count, per_gpu=price,
        vram_gb=_memory_gb(_cell(row, "VRAM")), vcpus=plain_number(_cell(row, "VCPU")),
        ram_gb=_memory_gb(_cell(row, "RAM")),
    ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Lambda's public pricing page (scraped HTML)",
)
