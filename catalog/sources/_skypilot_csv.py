"""Reading one SkyPilot catalog CSV (catalog/sources/skypilot.py): its rows (read anew on
every pass), its cells, GpuInfo in whichever dialect a fetcher wrote it, the per-GPU memory,
a GPU name with a fraction or a total memory glued on, and a row's on-demand and spot
prices. A helper of the skypilot source, not a source (no SOURCE).
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from gpucost.catalog.memory import capacity_gb
from gpucost.catalog.parsing import CheapestOffers
from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload, PriceObservation

MAX_GPU_MEMORY_GB = 300.0  # no GPU has more per device (B300: 288 GB)
_MEMORY_IS_TOTAL = frozenset({"vast"})  # GpuInfo SizeInMiB holds all GPUs of the row

# A100-80GB-160GB (verda 538675a): the total memory glued to a GPU name -> A100-80GB
_TOTAL_MEMORY_SUFFIX = re.compile(r"^(?P<name>.+-\d+GB)-\d+GB$", re.IGNORECASE)
# fractional (vGPU) products named A10*1/12, T4/8 with AcceleratorCount 1 (alicloud)
_FRACTION = re.compile(r"^(?P<name>.+?)\s*(?:\*\s*(?P<num>\d+))?\s*/\s*(?P<den>\d+)$")


def num(text: str | None) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value else None  # NaN -> None


def positive(text: str | None) -> float | None:
    value = num(text)
    return value if value is not None and value > 0 else None


def _gpu_info(text: str) -> dict[str, Any] | None:
    """GpuInfo as a dict with lower-cased keys, whichever dialect it is in (a Python literal,
    JSON, a Python literal with JSON's `null`, lower-cased keys); None for a plain string
    ("V100", "T4 16GB") or anything unreadable. Never raises."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    info: Any = None
    for attempt in (
        lambda: ast.literal_eval(text),
        lambda: json.loads(text),
        # hyperstack: a Python literal with JSON's null ('Manufacturer': null)
        lambda: ast.literal_eval(re.sub(r"\bnull\b", "None", text)),
    ):
        try:
            info = attempt()
            break
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return _lower_keys(info) if isinstance(info, dict) else None


def _lower_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k).lower(): _lower_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lower_keys(v) for v in value]
    return value


def size_mib(gpu_info: str) -> float | None:
    """GpuInfo's first `Gpus` entry's MemoryInfo.SizeInMiB (whatever it holds), or None."""
    info = _gpu_info(gpu_info)
    if info is None:
        return None  # e.g. Azure, IBM, Paperspace write a bare name ("V100") there
    try:
        mib = float(info["gpus"][0]["memoryinfo"]["sizeinmib"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return mib if mib > 0 else None


def size_is_total(rows: Iterable[dict[str, str]]) -> bool:
    """Whether a catalog's GpuInfo `SizeInMiB` ("per GPU") holds the memory of all the row's
    GPUs, told from the catalog itself: a GPU name listed at two or more GPU counts votes
    "total" when its size grows in proportion to the count (primeintellect d9a304e: A100-80GB
    x1 81920, x8 655360; verda 538675a: B300 x2 537600, x4 1075200; Vast) and "per GPU" when
    the size stays put (verda 000c1d0: B300 x2 and x4 268800; lambda, nebius, lium...). The
    majority decides; a catalog with no such name (or a tie) is read as per GPU."""
    sizes: dict[str, dict[float, float]] = defaultdict(dict)
    for row in rows:
        name, count = gpu_name_and_count(row.get("AcceleratorName") or "",
                                         positive(row.get("AcceleratorCount")))
        mib = size_mib(row.get("GpuInfo") or "")
        if name and count and mib:
            sizes[name].setdefault(count, mib)
    votes = {"total": 0, "per_gpu": 0}
    for by_count in sizes.values():
        if len(by_count) < 2:
            continue
        (n_low, s_low), (n_high, s_high) = min(by_count.items()), max(by_count.items())
        if abs(s_high / s_low - n_high / n_low) <= 0.02 * (n_high / n_low):
            votes["total"] += 1
        elif abs(s_high / s_low - 1) <= 0.02:
            votes["per_gpu"] += 1
    return votes["total"] > votes["per_gpu"]


def per_gpu_memory_gb(gpu_info: str, count: float | None, cloud: str,
                   total: bool = False) -> float | None:
    """Per-GPU memory in GB from GpuInfo's first `Gpus` entry, or None when GpuInfo is not a
    dict or the figure is not plausible (> MAX_GPU_MEMORY_GB per GPU). `total`: the catalog
    writes the memory of all the row's GPUs there (size_is_total), so it is divided by the
    count, as for Vast always.

    Units, decided from the recorded catalogs: SizeInMiB is MiB (49,152 for an L40S at
    cudo, 81,920 for an H100 at lium), read by catalog.memory.capacity_gb as the vendor's GB
    (MiB / 1024: the vendors' memory "GB" are binary); Vast and Lium write the host's usable
    memory (nvidia-smi), on an ECC-on GDDR card 15/16 of it (L40S 46,068 and 46,080 MiB),
    which capacity_gb reads as the card's 48 GB. A figure below 1024 is already GB
    (shadeform writes `'SizeInMiB': 48` for an L40S)."""
    mib = size_mib(gpu_info)
    if mib is None:
        return None
    if (total or cloud in _MEMORY_IS_TOTAL) and count and count > 0:
        mib /= count
    gb = mib if mib < 1024 else capacity_gb(mib)
    return round(gb, 1) if gb <= MAX_GPU_MEMORY_GB else None


class _Rows:
    """The non-empty rows of a CSV, read anew on every pass (the parsers make two or three)
    rather than held as a list of dicts: 250,000 rows as dicts took about 280 MB."""

    def __init__(self, text: str, header: list[str]) -> None:
        self.text, self.header = text, header
        self._count: int | None = None

    def __iter__(self) -> Iterator[dict[str, str]]:
        reader = csv.DictReader(io.StringIO(self.text, newline=""))
        _ = reader.fieldnames  # reads the header line
        reader.fieldnames = self.header  # the names stripped
        count = 0
        for row in reader:
            if any((v or "").strip() for v in row.values() if v):
                count += 1
                yield row
        self._count = count

    def __len__(self) -> int:
        if self._count is None:
            for _ in self:
                pass
        return self._count or 0


def read_rows(payload: Payload) -> tuple[list[str], _Rows]:
    try:
        text = payload.content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"skypilot {payload.name}: not UTF-8 text ({exc})") from exc
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        rows = _Rows(text, header)
        n = len(rows)  # one whole pass: a malformed CSV raises here
    except csv.Error as exc:
        raise ParseError(f"skypilot {payload.name}: malformed CSV ({exc})") from exc
    if not header:
        raise EmptyPayloadError(f"skypilot {payload.name}: empty file, not even a header")
    missing = {"InstanceType", "Price"} - set(header)
    if missing:
        raise ParseError(
            f"skypilot {payload.name}: CSV lacks the column(s) {sorted(missing)}"
            f" (header: {','.join(header)[:200]})"
        )
    if not n:
        raise EmptyPayloadError(f"skypilot {payload.name}: header only, no rows")
    return header, rows


def raw_text(row: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items() if v)[:2000]


def gpu_name_and_count(name: str, count: float | None) -> tuple[str, float | None]:
    """The bare GPU name and the GPUs of a row: a fraction in the name is the count
    (`A10*1/12` x1 -> A10, 0.083; `T4/8` -> T4, 0.125); total memory glued to the name is
    dropped (`A100-80GB-160GB` -> A100-80GB).

    >>> gpu_name_and_count("A10*1/3", 1.0)
    ('A10', 0.333)
    """
    name = name.strip()
    m = _FRACTION.match(name)
    if m and int(m.group("den")) > 0:
        share = int(m.group("num") or 1) / int(m.group("den"))
        return m.group("name").strip(), round((count if count else 1.0) * share, 3)
    m = _TOTAL_MEMORY_SUFFIX.match(name)
    if m:
        return m.group("name"), count
    return name, count


def add_row_prices(
    template: PriceObservation, row: dict[str, str], out: CheapestOffers, *, spot_model: str
) -> None:
    """The on_demand row from Price and the spot row from SpotPrice (if any). A row with
    neither is a zero_or_missing_price reject; a spot-only row (empty Price, SpotPrice set:
    Prime Intellect's __SPOT rows, Verda) is a spot offer, not a reject."""
    price = positive(row.get("Price"))
    spot = positive(row.get("SpotPrice"))
    if price is not None:
        out.add(replace(template, price_per_hour=price), raw_text(row))
    elif spot is None or num(row.get("Price")) is not None:
        out.reject("zero_or_missing_price",
                   f"{template.sku} {template.region} Price {row.get('Price')!r}", raw_text(row))
    if spot is not None:
        out.add(replace(template, pricing_model=spot_model, price_per_hour=spot), raw_text(row))


def zone_of(row: dict[str, str]) -> str:
    return (row.get("AvailabilityZone") or "").strip() or (row.get("Region") or "").strip()
