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

The same source also reads Lambda's instance-types API answer, chosen by the payload's shape
(a JSON object, not a page): ``GET https://cloud.lambda.ai/api/v1/instance-types`` (an API
key is required, so the live fetch stays the public page; a saved answer is replayed with
``gpucost ingest lambda FILE.json``). The answer is ``{"data": {"<name>": {"instance_type":
{"name", "description", "gpu_description", "price_cents_per_hour", "specs": {"vcpus",
"memory_gib", "storage_gib", "gpus"}}, "regions_with_capacity_available": [{"name",
"description"}, ...]}}}``; no recording exists, tests/fixtures/lambda/instance_types.json is
one in that shape.

* one observation per GPU instance type (``specs.gpus`` >= 1; CPU-only types are skipped):
  sku = ``name`` (``gpu_8x_h100_sxm5``, as SkyPilot's Lambda catalog names it),
  gpu_name_raw = ``gpu_description`` ("H100 (80 GB SXM5)"), gpu_count = ``specs.gpus``,
  price_per_hour = ``price_cents_per_hour`` / 100 (the whole instance, USD), vcpus, ram_gb =
  ``memory_gib``, pricing_model "on_demand", stream "instance_types_api".
* region "" as on the page: Lambda's price is the same in every region, and the answer lists
  only the regions that have capacity now, never the whole region list, so no row per region
  could say "no capacity here".
* stock (PriceObservation.available): ``regions_with_capacity_available`` non-empty -> True
  (it can be launched now, in at least one region), an empty list -> False (no capacity in
  any region), the field missing or not a list -> None (not stated).
* a missing or non-positive price -> Reject("zero_or_missing_price"); a GPU count that is no
  count -> Reject("gpu_count_invalid"); JSON without a ``data`` object -> ParseError; no
  accepted type -> EmptyPayloadError.
"""

from __future__ import annotations

import json
import re
from typing import Any

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
    if payload.content.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return parse_instance_types(payload)
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


# -- the instance-types API: {"data": {"<name>": {"instance_type": {...}, ...}}} --------------

API_STREAM = "instance_types_api"


def capacity_available(entry: dict[str, Any]) -> bool | None:
    """True when the answer lists a region with capacity, False for an empty list, None when
    the field is absent (not stated)."""
    regions = entry.get("regions_with_capacity_available")
    if not isinstance(regions, list):
        return None
    return len(regions) > 0


def parse_instance_types(payload: Payload) -> ParseResult:
    """Lambda's instance-types API answer (see the module docstring)."""
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"lambda {payload.name}: not valid JSON ({exc})") from exc
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        raise ParseError(f"lambda {payload.name}: JSON without a 'data' object of instance "
                         "types")
    result = ParseResult(stream=API_STREAM)
    for key, entry in sorted(data.items()):
        if not isinstance(entry, dict) or not isinstance(entry.get("instance_type"), dict):
            continue
        kind = entry["instance_type"]
        raw = json.dumps(entry, sort_keys=True)[:2000]
        name = clean_text(str(kind.get("name") or key))
        specs = kind.get("specs") if isinstance(kind.get("specs"), dict) else {}
        if not specs.get("gpus"):  # a CPU-only instance type
            continue
        count, why = read_gpu_count(specs.get("gpus"))
        if count is None:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{name}: {why}", raw))
            continue
        cents = kind.get("price_cents_per_hour")
        if isinstance(cents, bool) or not isinstance(cents, int | float) or not cents > 0:
            result.rejects.append(Reject(
                "zero_or_missing_price", f"{name}: price_cents_per_hour {cents!r}", raw))
            continue
        gpu_name = clean_text(str(kind.get("gpu_description") or kind.get("description")
                                  or name))
        result.prices.append(PriceObservation(
            provider="lambda", sku=name, region="", pricing_model="on_demand",
            price_per_hour=round(cents / 100, 6), gpu_name_raw=gpu_name, gpu_count=count,
            vcpus=plain_number(str(specs.get("vcpus") or "")),
            ram_gb=plain_number(str(specs.get("memory_gib") or "")),
            available=capacity_available(entry),
        ))
    return finish_cheapest(
        result, f"lambda {payload.name}: instance-types answer without a priced GPU type",
        f"{len(data)} instance types")


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Lambda's public pricing page (scraped HTML)",
)
