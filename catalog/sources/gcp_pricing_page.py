"""Google Cloud's GPU pricing page (https://cloud.google.com/compute/gpus-pricing): the
accelerator-optimised machine-type tables, scraped with BeautifulSoup.

Registered as ``gcp_pricing_page`` (provider "gcp"): the SkyPilot and gpuhunt sources also
carry GCP prices, under their own source names. One layout is known (recorded in
../shared/data/prices/pricing_pages_html/gcp/, an undated fixture of about autumn 2026):
``<table>`` elements whose header row names "Machine type", "GPU", "Components" and price
columns, one row per machine type with ``$… / 1 hour`` cells. A page without such a table
-> ParseError("no known GCP GPU pricing table"); tables without one priced cell ->
EmptyPayloadError.

Columns are found by their header text, never by position (the G4/G2 table puts the two
"Compute Flexible CUD" columns *before* the DWS columns):

* "Price (USD)" -> pricing_model "on_demand"; "Current Spot pricing" -> "spot";
  "Compute Resource CUDs - 1 Year" / "- 3 Year" -> "reserved_1y" / "reserved_3y".
* Dynamic Workload Scheduler (DWS): "DWS Flex-start" -> "queued" (capacity granted from a
  queue when free, no start time promised) and "DWS Calendar Mode" -> "capacity_block"
  (a block of dates booked ahead), each at the cell's per-instance-hour price, never
  on_demand (a3-highgpu-8g: 38.32 and 41.60 beside 88.49 on demand). Another DWS column is
  not read.
* "Compute Flexible CUD" (spend-based commitments, a second 1y/3y price beside the resource
  CUDs) is not read: one Reject("column_not_read") per table and column says how many priced
  cells it held. A header the parser does not know is rejected the same way
  ("unknown_price_column"). The page states no payment terms: payment None.

Prices are USD **per instance-hour** (vCPUs, memory and, for A2 Ultra/A3/A4, local SSD
included): price_per_hour is the cell's value, gpu_count is "GPUs: N" of the Components cell
(fractional for G4's "1/8", "1/4", "1/2" of an RTX PRO 6000; "GPUs: 0", "3/2" or "1/0" ->
Reject("gpu_count_invalid"), that row alone), vcpus and ram_gb from "vCPUs:"
and "Memory:" (the figure as printed, GB or GiB; missing spaces such as "GPUs:4" tolerated).
sku = the machine type, gpu_name_raw = the GPU cell as written ("Nvidia H100", "NVIDIA L4").
gpu_memory_gb only where the page's naming fixes it: the A100 in ``a2-highgpu-*`` and
``a2-megagpu-*`` is the 40 GB part, in ``a2-ultragpu-*`` the 80 GB part (both labelled
"Nvidia A100"); otherwise None. region "us-central1": the page does not say, but
``a2-highgpu-1g`` 3.673385 equals the us-central1 sum of GPU and VM in SkyPilot's GCP catalog
(see the recorded data's README). Family header rows ("A3 High" with empty cells) are skipped.

Text traps handled: "$2 .0000/ 1 hour" (a space inside the number), "$42.4000/ 1 hour",
nine-decimal prices. "N/A", "-" or an empty cell in a read column ->
Reject("zero_or_missing_price") (unknown, never free); a cell that is not a price (the
"g2-standard-24-spot" text in a Spot cell) -> Reject("price_unparseable").

stream "pricing_page". The page states no date: ParseResult.observed_at is None (a Wayback
capture comment, if a recorded page has one, is used).
"""

from __future__ import annotations

import re

from bs4 import Tag

from gpucost.catalog.pages import node_text, read_page
from gpucost.catalog.parsing import GPU_COUNT_INVALID, finish_cheapest, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "gcp_pricing_page"
DEFAULT_URL = "https://cloud.google.com/compute/gpus-pricing"
STREAM = "pricing_page"
REGION = "us-central1"

# "$88.490000119 / 1 hour", "$2 .0000/ 1 hour", "$4.500 / 1 hour"; the whole cell, a space
# allowed before the decimals (pages.DOLLAR_PRICE would read "$2 .5000" as $2, and a dollar
# amount inside other text as a price)
_PRICE = re.compile(r"^\$\s*(?P<int>\d[\d,]*)\s*(?P<frac>\.\d+)?\s*/\s*1\s*hour$", re.I)
_MISSING = {"", "n/a", "na", "-", "–", "—", "--"}
_GPUS = re.compile(r"GPUs:\s*(?P<num>\d+)(?:\s*/\s*(?P<den>\d+))?", re.I)
_VCPUS = re.compile(r"vCPUs:\s*(?P<n>\d[\d,]*)", re.I)
_MEMORY = re.compile(r"Memory:\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:GiB|GB)", re.I)
# A100 memory by machine family (both are labelled "Nvidia A100" on the page)
_A100_MEMORY = (("a2-highgpu-", 40.0), ("a2-megagpu-", 40.0), ("a2-ultragpu-", 80.0))


def _header(th: Tag) -> str:
    """A header cell's label: its first paragraph (the tooltip after it is not the label)."""
    first = th.find("p")
    label = (node_text(first) if isinstance(first, Tag) else node_text(th)).lower()
    cut = label.find("(usd)")
    return label[:cut + len("(usd)")] if cut >= 0 else label


def _column(label: str) -> str:
    """What a header column is: a field, a pricing model, or a column not read."""
    if label.startswith("machine type"):
        return "sku"
    if label == "gpu" or label == "gpus":
        return "gpu"
    if label.startswith("components"):
        return "components"
    if label.startswith("price"):
        return "on_demand"
    if "dws" in label and "flex" in label:
        return "queued"
    if "dws" in label and "calendar" in label:
        return "capacity_block"
    if "dws" in label:
        return "skip:dws"
    if "spot" in label:
        return "spot"
    if "flexible cud" in label:
        return "skip:flexible_cud"
    if "resource cud" in label and "1 year" in label:
        return "reserved_1y"
    if "resource cud" in label and "3 year" in label:
        return "reserved_3y"
    return "skip:unknown"


def _price(text: str) -> float | None:
    """The price of a whole "$… / 1 hour" cell, None unless above 0 (not pages.first_price:
    see _PRICE)."""
    m = _PRICE.match(text)
    if not m:
        return None
    value = float(m.group("int").replace(",", "") + (m.group("frac") or ""))
    return value if value > 0 else None


def _tables(soup: Tag) -> list[tuple[Tag, list[str]]]:
    found = []
    for table in soup.find_all("table"):
        first = table.find("tr")
        if not isinstance(first, Tag):
            continue
        kinds = [_column(_header(th)) for th in first.find_all("th")]
        if {"sku", "gpu", "components", "on_demand"} <= set(kinds):
            found.append((table, kinds))
    return found


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    tables = _tables(soup)
    if not tables:
        raise ParseError(f"gcp_pricing_page {payload.name}: no known GCP GPU pricing table")
    for number, (table, kinds) in enumerate(tables, start=1):
        _parse_table(number, table, kinds, result)
    return finish_cheapest(result, f"gcp_pricing_page {payload.name}: GCP pricing table found "
                           "but no priced machine type")


def _gpu_count(text: str) -> tuple[float | None, str]:
    """read_gpu_count of "GPUs: N" or of a slice "GPUs: 1/8" (a G4 share of one RTX PRO
    6000); (None, "") without a "GPUs:" figure."""
    gpus = _GPUS.search(text)
    if not gpus:
        return None, ""
    num, den = float(gpus.group("num")), float(gpus.group("den") or 1)
    if den == 0:
        return None, f"GPU count {gpus.group(0)!r} divides by zero"
    return read_gpu_count(num / den, fractions=True)


def _components(text: str) -> tuple[float | None, float | None, float | None]:
    vcpus = _VCPUS.search(text)
    memory = _MEMORY.search(text)
    return (_gpu_count(text)[0],
            float(vcpus.group("n").replace(",", "")) if vcpus else None,
            float(memory.group("n").replace(",", "")) if memory else None)


def _parse_table(number: int, table: Tag, kinds: list[str], result: ParseResult) -> None:
    labels = [_header(th) for th in table.find("tr").find_all("th")]  # type: ignore[union-attr]
    skipped = {i: 0 for i, k in enumerate(kinds) if k.startswith("skip:")}
    for tr in table.find_all("tr")[1:]:
        cells = [node_text(td) for td in tr.find_all(["td", "th"])]
        if len(cells) != len(kinds):
            result.rejects.append(Reject("unexpected_row_shape", " | ".join(cells)[:300],
                                         " | ".join(cells)))
            continue
        row = dict(zip(kinds, cells, strict=True))
        sku, gpu = row["sku"], row["gpu"]
        if not gpu and not row["components"]:
            continue  # a family header row ("A3 High")
        raw = " | ".join(cells)
        count, vcpus, ram = _components(row["components"])
        why = _gpu_count(row["components"])[1]
        if sku and why:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{sku}: {why}", raw))
            continue
        if not sku or count is None:
            result.rejects.append(Reject("gpu_count_unknown", f"{sku}: {row['components']!r}",
                                         raw))
            continue
        memory = next((gb for prefix, gb in _A100_MEMORY if sku.startswith(prefix)), None)
        for i, kind in enumerate(kinds):
            text = cells[i]
            if kind.startswith("skip:"):
                skipped[i] += _price(text) is not None
                continue
            if kind in ("sku", "gpu", "components"):
                continue
            price = _price(text)
            if price is None:
                reason = ("zero_or_missing_price" if text.lower() in _MISSING
                          or re.fullmatch(r"\$?\s*0+(?:\.0+)?\b.*", text)
                          else "price_unparseable")
                result.rejects.append(Reject(reason, f"{sku} {kind}: {text!r}", raw))
                continue
            result.prices.append(PriceObservation(
                provider="gcp", sku=sku, region=REGION, pricing_model=kind,
                price_per_hour=price, gpu_name_raw=gpu, gpu_count=count,
                gpu_memory_gb=memory, vcpus=vcpus, ram_gb=ram,
            ))
    for i, n in skipped.items():
        reason = "unknown_price_column" if kinds[i] == "skip:unknown" else "column_not_read"
        what = {"skip:dws": "a Dynamic Workload Scheduler column other than flex-start and "
                            "calendar mode",
                "skip:flexible_cud": "spend-based flexible CUDs: the resource CUD columns are "
                                     "read as reserved_1y / reserved_3y",
                "skip:unknown": "a column this parser does not know"}[kinds[i]]
        result.rejects.append(Reject(
            reason, f"table {number} column {labels[i]!r}: {n} priced cells not read ({what})"))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="gpus-pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Google Cloud's GPU pricing page (accelerator-optimised machine-type tables)",
)
