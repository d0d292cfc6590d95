"""SkyPilot's published catalogs (`catalogs/v8/<cloud>/vms.csv`): a free multi-cloud feed.

Live fetch: `<base>/<cloud>/vms.csv` for every cloud in CLOUDS, one Payload per cloud named
`<cloud>/vms.csv`. One cloud failing (404, 500 after retries, size cap) does not lose the
others (catalog.sources.base: each failed part is recorded under its cloud); only when every
cloud fails is the fetch a failure (PartsFailedError). AWS is not fetched by default (a
large file, and AWS has its own source); add it to CLOUDS to include it.

Parse (one CSV = one cloud = one stream):

* the cloud comes from the payload name (`gcp/vms.csv`, `lambda_vms_2026-04-02.csv`,
  `vast_vms_2026-04-29.csv`, ...) or else from its URL; provider = cloud (`do` ->
  `digitalocean`); stream = cloud;
* columns are read by header name (they differ per cloud); `GpuInfo` is a Python literal read
  with ``ast.literal_eval`` (never eval); GPU memory MiB / 1024 rounded to 0.1, per GPU:
  Vast, Prime Intellect and one Verda version write the total of all the row's GPUs into
  the per-GPU `SizeInMiB`, told per catalog by size_is_total (the size grows with the GPU
  count), so it is divided by the count; a value below 1024 is taken as already in GiB, the
  Shadeform unit bug;
* Vast: gpu_name_raw is Vast's own GPU name read from the sku (vast_gpu_name: `H100 SXM`,
  `H100 NVL`, `A100 SXM4 80GB`), which AcceleratorName folds into `H100` / `A100`;
* `Price` -> an on_demand row (Vast: community, a marketplace price; 0 or empty ->
  Reject("zero_or_missing_price")); `SpotPrice` ->
  a spot row (Vast: interruptible_bid), skipped silently when 0 or empty (Vast writes 0.00
  everywhere, meaning unknown);
* an `AcceleratorCount` that is no count (`inf`, 0, -1, 1.5, text; a slice below one GPU
  is one: Azure's 0.333) -> Reject("gpu_count_invalid"), that row alone;
* rows without an accelerator (CPU-only VMs) are skipped; a header-only CSV raises
  EmptyPayloadError; a CSV without InstanceType/Price columns raises ParseError;
* the same (sku, region, pricing model) twice keeps the lowest price, the others become
  Reject("duplicate_offer").

GCP specifics. GCP rows come in two kinds: VM rows (InstanceType set, no accelerator) carry the
vCPU+RAM price only; GPU rows (no InstanceType, AcceleratorName set) carry only the price of
AcceleratorCount GPUs in one zone. For the accelerator-optimised families whose GPUs are
bundled (a2-highgpu/megagpu = A100 40GB, a2-ultragpu = A100 80GB, a3-highgpu/edgegpu = H100,
a3-megagpu = H100-MEGA, a3-ultragpu = H200, a4-highgpu = B200, g2-standard = L4) the machine's
price is VM row + the matching GPU row of the same AvailabilityZone (spot with spot), e.g.
us-central1-a 2026-05-20 `a2-highgpu-1g` 0.73948 + A100x1 2.93391 = 3.67339. A bundled
machine without its GPU row in that zone -> Reject("gpu_price_missing"). The a4 (B200) GPU
rows are "1 gpu slice" SKUs that already include the host, so their VM row is 0 by design and
only the GPU part must be positive. An accelerator machine type (a*-...-Ng) not in the table
-> Reject("unknown_accelerator_machine").

GPU rows of *attachable* GPUs (N1 attachments: T4, V100, P100, P4; and any other GPU row whose
model is not one of the bundled ones) are emitted on their own as sku `<GPU>x<count>` (e.g.
`T4x1`): the price is the GPU(s) only and EXCLUDES the host VM (which the user picks freely).
TPU rows (`tpu-v5p-8`, ...) are emitted with sku = gpu_name_raw = the TPU type, gpu_count =
chips in the slice (v2/v3/v4/v5p names count TensorCores, two per chip; v5e/v6e names count
chips). GCP region = the AvailabilityZone when present, so zones stay distinct.
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

from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
)
from gpucost.catalog.sizes import provider_size_count, retired_size
from gpucost.catalog.sources.base import FetchContext, Part, Source
from gpucost.catalog.sources.vast import gpu_label

NAME = "skypilot"
DEFAULT_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"

CLOUDS: tuple[str, ...] = (
    "lambda", "gcp", "azure", "vast", "runpod", "nebius", "fluidstack", "cudo", "paperspace",
    "do", "hyperstack", "shadeform", "primeintellect",
)

PROVIDER_OF_CLOUD = {"do": "digitalocean"}
MAX_GPU_MEMORY_GB = 300.0  # no GPU has more per device (B300: 288 GB)
_MEMORY_IS_TOTAL = frozenset({"vast"})  # GpuInfo SizeInMiB holds all GPUs of the row
_SPOT_MODEL = {"vast": "interruptible_bid"}
# a marketplace has no list price: Vast's Price is community capacity (as in the vast source)
_PRICE_MODEL = {"vast": "community"}

# Currency. SkyPilot's catalogs are USD by convention, but a fetcher writes whatever its
# provider's API returns, unconverted:
# * scaleway: sky/catalog/data_fetchers/fetch_scaleway.py (skypilot-org/skypilot) writes
#   `server_type.hourly_price` of Scaleway's Instance API (`list_servers_types`) as Price,
#   with no conversion; Scaleway's API and price list are in EUR (H100-1-80G 2.52 is
#   Scaleway's EUR list price) -> EUR.
# * seeweb: sky/catalog/data_fetchers/fetch_seeweb.py (skypilot-org/skypilot) writes the
#   plan's `hourly_price` from Seeweb's ecsapi `fetch_plans()`, unconverted; Seeweb (Italy)
#   prices in EUR -> EUR.
# * ovhcloud: no SkyPilot fetcher for OVHcloud was found (sky/catalog/data_fetchers has none)
#   and the file does not say; OVHcloud publishes both EUR and USD lists, so the currency is
#   unknown: its rows are refused (currency_unknown), never passed as USD.
# * alicloud: the recorded file comes from a fork (sugarlxn/skypilot-catalog) whose fetcher
#   converts Alibaba's CNY list prices to USD at a fixed rate (0.138): not the provider's
#   prices -> refused (currency_converted).
_CURRENCY = {"scaleway": "EUR", "seeweb": "EUR"}
_REFUSED_CURRENCY = {"ovhcloud": "currency_unknown", "alicloud": "currency_converted"}
# clouds whose offers are per region, listed once per zone with the zone's region (IBM: the
# same price in us-south-1/2/3; some rows leave Region empty: jp-tok-2 -> jp-tok)
_REGION_FROM_ZONE = frozenset({"ibm"})

# A100-80GB-160GB (verda 538675a): the total memory glued to a GPU name -> A100-80GB
_TOTAL_MEMORY_SUFFIX = re.compile(r"^(?P<name>.+-\d+GB)-\d+GB$", re.IGNORECASE)
# Vast rows: <n>x-<gpu name, spaces as _>-<vCPUs>-<RAM MiB> (vast_gpu_name)
_VAST_SKU = re.compile(r"^\d+x-(?P<gpu>.+)-\d+-\d+$")
# fractional (vGPU) products named A10*1/12, T4/8 with AcceleratorCount 1 (alicloud)
_FRACTION = re.compile(r"^(?P<name>.+?)\s*(?:\*\s*(?P<num>\d+))?\s*/\s*(?P<den>\d+)$")


# GCP machine-type pattern -> (accelerator name of the GPU rows, GPUs per machine or None to
# read the "-<N>g" suffix, host price included in the GPU row).
_GCP_BUNDLED: tuple[tuple[re.Pattern[str], str, int | None, bool], ...] = (
    (re.compile(r"^a2-highgpu-(\d+)g$"), "A100", None, False),
    (re.compile(r"^a2-megagpu-(\d+)g$"), "A100", None, False),
    (re.compile(r"^a2-ultragpu-(\d+)g$"), "A100-80GB", None, False),
    (re.compile(r"^a3-highgpu-(\d+)g$"), "H100", None, False),
    (re.compile(r"^a3-edgegpu-(\d+)g(?:-nolssd)?$"), "H100", None, False),
    (re.compile(r"^a3-megagpu-(\d+)g$"), "H100-MEGA", None, False),
    (re.compile(r"^a3-ultragpu-(\d+)g(?:-nolssd)?$"), "H200", None, False),
    (re.compile(r"^a4-highgpu-(\d+)g$"), "B200", None, True),
)
_G2_L4 = {4: 1, 8: 1, 12: 1, 16: 1, 32: 1, 24: 2, 48: 4, 96: 8}  # g2-standard-<vCPUs> -> L4s
_GCP_ACCEL_MACHINE = re.compile(r"^a\d+[a-z]*-[a-z]+-\d+g(?:-|$)")
_TPU = re.compile(r"^tpu-(?P<gen>v\d+[a-z]*?)(?:litepod)?-(?P<n>\d+)$")
_TPU_CHIPS_IN_NAME = ("v5lite", "v5e", "v6e")  # names count chips, not TensorCores

_NAME_CLOUD = re.compile(r"(?:^|/)(?P<cloud>[a-z0-9]+)(?:/vms\.csv$|_vms(?:[_.-]|$))")


def _parts(ctx: FetchContext) -> list[Part]:
    """One CSV per cloud in CLOUDS (a failing cloud is recorded alone)."""
    base = ctx.url().rstrip("/")
    return [Part(cloud, f"{base}/{cloud}/vms.csv", f"{cloud}/vms.csv", "csv") for cloud in CLOUDS]


def cloud_of(payload: Payload) -> str:
    for text in (payload.name, payload.url):
        m = _NAME_CLOUD.search(text or "")
        if m:
            return m.group("cloud")
    raise ParseError(f"skypilot: cannot tell the cloud from payload name {payload.name!r}")


def _num(text: str | None) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value else None  # NaN -> None


def _positive(text: str | None) -> float | None:
    value = _num(text)
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


def _size_mib(gpu_info: str) -> float | None:
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
                                         _positive(row.get("AcceleratorCount")))
        mib = _size_mib(row.get("GpuInfo") or "")
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


def _gpu_memory_gb(gpu_info: str, count: float | None, cloud: str,
                   total: bool = False) -> float | None:
    """Per-GPU memory in GB from GpuInfo's first `Gpus` entry, or None when GpuInfo is not a
    dict or the figure is not plausible (> MAX_GPU_MEMORY_GB per GPU). `total`: the catalog
    writes the memory of all the row's GPUs there (size_is_total), so it is divided by the
    count, as for Vast always."""
    mib = _size_mib(gpu_info)
    if mib is None:
        return None
    if (total or cloud in _MEMORY_IS_TOTAL) and count and count > 0:
        mib /= count
    gb = mib if mib < 1024 else mib / 1024  # below 1024: already GB (shadeform's unit bug)
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


def _read_rows(payload: Payload) -> tuple[list[str], _Rows]:
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


def _raw(row: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items() if v)[:2000]


def parse(payload: Payload) -> ParseResult:
    cloud = cloud_of(payload)
    _, rows = _read_rows(payload)
    result = ParseResult(stream=cloud)
    out = CheapestOffers(result)
    if cloud == "gcp":
        _parse_gcp(rows, out)
    else:
        _parse_generic(rows, cloud, out)
    return out.finish(f"skypilot {payload.name}: no accepted GPU price", f"{len(rows)} rows")


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


def vast_gpu_name(sku: str, gpu_info: str, count: float | None) -> str | None:
    """Vast's own GPU name, read from the sku: SkyPilot's Vast fetcher names a row
    `<n>x-<Vast gpu_name, spaces as _>-<vCPUs>-<RAM MiB>` but folds variants in
    AcceleratorName (`8x-H100_SXM-32-65536` and `1x-H100_NVL-...` are both `H100`,
    `RTX_3060_Ti` is `RTX3060`). The name is the one the vast source reads from Vast's API
    (vast.gpu_label: `H100 SXM`, `A100 SXM4 80GB` with the per-GPU VRAM appended where Vast
    sells one model in several sizes), so the same aliases map both. None when the sku has
    another shape."""
    m = _VAST_SKU.match(sku.strip())
    if not m:
        return None
    mib = _size_mib(gpu_info)
    per_gpu = mib / count if mib and count and count > 0 else None  # Vast: the row's total
    return gpu_label(m.group("gpu").replace("_", " "), per_gpu)


def is_placeholder_catalog(rows: Iterable[dict[str, str]]) -> bool:
    """Whether a catalog's prices are placeholders: every GPU row (two or more) has the same
    per-GPU price, a whole number, and a SpotPrice equal to its Price (Mithril: 1.00 per GPU,
    spot = on-demand, on every row). Real price lists never look like that."""
    per_gpu: set[float] = set()
    n = 0
    for row in rows:
        if not (row.get("AcceleratorName") or "").strip():
            continue
        n += 1
        price, spot = _positive(row.get("Price")), _positive(row.get("SpotPrice"))
        count = _positive(row.get("AcceleratorCount"))
        if price is None or count is None or spot != price:
            return False
        per_gpu.add(round(price / count, 6))
    return n >= 2 and len(per_gpu) == 1 and next(iter(per_gpu)).is_integer()


def _region(row: dict[str, str], cloud: str) -> str:
    if cloud in _REGION_FROM_ZONE:
        region = (row.get("Region") or "").strip()
        zone = (row.get("AvailabilityZone") or "").strip()
        return region or re.sub(r"-\d+$", "", zone)
    return _zone(row)


def _parse_generic(rows: Iterable[dict[str, str]], cloud: str, out: CheapestOffers) -> None:
    provider = PROVIDER_OF_CLOUD.get(cloud, cloud)
    placeholder = is_placeholder_catalog(rows)
    total = size_is_total(rows)
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        if not accel:
            continue  # CPU-only VM
        sku = (row.get("InstanceType") or "").strip()
        if not sku:
            out.reject("missing_instance_type", f"{accel} row without InstanceType", _raw(row))
            continue
        if retired_size(provider, sku):
            out.reject("retired_promo_size", f"{sku}: a retired promotional size", _raw(row))
            continue
        stated, why = read_gpu_count(row.get("AcceleratorCount"), fractions=True)
        if why:
            out.reject(GPU_COUNT_INVALID, f"{sku} {accel}: {why}", _raw(row))
            continue
        name, count = gpu_name_and_count(accel, stated)
        if cloud == "vast":
            name = vast_gpu_name(sku, row.get("GpuInfo") or "", count) or name
        known = provider_size_count(provider, sku)
        if known is not None and known > 0:
            count = known
        template = PriceObservation(
            provider=provider,
            sku=sku,
            region=_region(row, cloud),
            pricing_model=_PRICE_MODEL.get(cloud, "on_demand"),
            price_per_hour=None,
            gpu_name_raw=name,
            gpu_count=count,
            currency=_CURRENCY.get(cloud, "USD"),
            gpu_memory_gb=_gpu_memory_gb(row.get("GpuInfo") or "", count, cloud, total),
            vcpus=_num(row.get("vCPUs")),
            ram_gb=_num(row.get("MemoryGiB")),
        )
        what = f"{sku} {template.region} {name} x{count:g}" if count else f"{sku} {name}"
        if placeholder:
            out.reject("placeholder_price",
                       f"{what}: Price {row.get('Price')} = SpotPrice, the same whole number"
                       " per GPU on every GPU row of the catalog", _raw(row))
            continue
        if cloud in _REFUSED_CURRENCY:
            out.reject(_REFUSED_CURRENCY[cloud],
                       f"{what}: {cloud} prices are not in a known provider currency"
                       f" (Price {row.get('Price')})", _raw(row))
            continue
        _add_row_prices(template, row, out, spot_model=_SPOT_MODEL.get(cloud, "spot"))


def _add_row_prices(
    template: PriceObservation, row: dict[str, str], out: CheapestOffers, *, spot_model: str
) -> None:
    """The on_demand row from Price and the spot row from SpotPrice (if any). A row with
    neither is a zero_or_missing_price reject; a spot-only row (empty Price, SpotPrice set:
    Prime Intellect's __SPOT rows, Verda) is a spot offer, not a reject."""
    price = _positive(row.get("Price"))
    spot = _positive(row.get("SpotPrice"))
    if price is not None:
        out.add(replace(template, price_per_hour=price), _raw(row))
    elif spot is None or _num(row.get("Price")) is not None:
        out.reject("zero_or_missing_price",
                   f"{template.sku} {template.region} Price {row.get('Price')!r}", _raw(row))
    if spot is not None:
        out.add(replace(template, pricing_model=spot_model, price_per_hour=spot), _raw(row))


def gcp_bundled_gpu(machine_type: str) -> tuple[str, int, bool] | None:
    """(accelerator name, GPUs, host included in GPU price) of a GCP machine with bundled GPUs.

    >>> gcp_bundled_gpu("a3-highgpu-8g")
    ('H100', 8, False)
    """
    for pattern, accel, fixed, host_in_gpu in _GCP_BUNDLED:
        m = pattern.match(machine_type)
        if m:
            return accel, fixed or int(m.group(1)), host_in_gpu
    m = re.match(r"^g2-standard-(\d+)$", machine_type)
    if m and int(m.group(1)) in _G2_L4:
        return "L4", _G2_L4[int(m.group(1))], False
    return None


def tpu_chips(name: str) -> float | None:
    """Chips in a TPU slice type: tpu-v5p-8 -> 4 (TensorCores / 2), tpu-v6e-8 -> 8."""
    m = _TPU.match(name)
    if not m:
        return None
    n = int(m.group("n"))
    if any(name.startswith(f"tpu-{g}") for g in _TPU_CHIPS_IN_NAME):
        return float(n)
    return max(n / 2, 1.0)


def _parse_gcp(rows: Iterable[dict[str, str]], out: CheapestOffers) -> None:
    gpu_rows: dict[tuple[str, float, str], dict[str, str]] = {}
    bundled_names = {accel for _, accel, _, _ in _GCP_BUNDLED} | {"L4"}
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        if accel and not (row.get("InstanceType") or "").strip():
            count = _num(row.get("AcceleratorCount")) or 0.0
            gpu_rows.setdefault((accel, count, _zone(row)), row)

    tpu_placeholders = _tpu_placeholder_prices(rows)
    for row in rows:
        machine = (row.get("InstanceType") or "").strip()
        accel = (row.get("AcceleratorName") or "").strip()
        if machine:
            _gcp_machine(row, machine, gpu_rows, out)
        elif accel.startswith("tpu-"):
            placeholder = {model for model, column in (("on_demand", "Price"),
                                                       ("spot", "SpotPrice"))
                           if _num(row.get(column)) in tpu_placeholders.get(
                               (_tpu_family(accel), _zone(row), column), set())}
            _gcp_standalone(row, accel, out, sku=accel, count=tpu_chips(accel) or 1.0,
                            placeholder=placeholder)
        elif accel and accel not in bundled_names:
            count, why = read_gpu_count(row.get("AcceleratorCount"))
            if why:
                out.reject(GPU_COUNT_INVALID, f"{accel} {_zone(row)}: {why}", _raw(row))
                continue
            sku = f"{accel}x{count:g}" if count else accel
            _gcp_standalone(row, accel, out, sku=sku, count=count)


def _tpu_family(name: str) -> str:
    return re.sub(r"-\d+$", "", name)  # tpu-v6e-256 -> tpu-v6e


def _tpu_placeholder_prices(
    rows: Iterable[dict[str, str]],
) -> dict[tuple[str, str, str], set[float]]:
    """(TPU family, zone, price column) -> the prices that are placeholders: one instance price
    shared by 3+ different slice sizes of one TPU family in one zone (the recorded catalogs
    give tpu-v6e-1 ... tpu-v6e-256 all 700.0 in some zones; a real price grows with the
    slice)."""
    sizes: dict[tuple[str, str, str, float], set[str]] = defaultdict(set)
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        if (row.get("InstanceType") or "").strip() or not accel.startswith("tpu-"):
            continue
        for column in ("Price", "SpotPrice"):
            price = _positive(row.get(column))
            if price is not None:
                sizes[(_tpu_family(accel), _zone(row), column, price)].add(accel)
    found: dict[tuple[str, str, str], set[float]] = defaultdict(set)
    for (family, zone, column, price), names in sizes.items():
        if len(names) >= 3:
            found[(family, zone, column)].add(price)
    return found


def _zone(row: dict[str, str]) -> str:
    return (row.get("AvailabilityZone") or "").strip() or (row.get("Region") or "").strip()


def _gcp_standalone(
    row: dict[str, str], accel: str, out: CheapestOffers, *, sku: str, count: float | None,
    placeholder: set[str] | None = None,
) -> None:
    template = PriceObservation(
        provider="gcp", sku=sku, region=_zone(row), pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=count,
        gpu_memory_gb=None if accel.startswith("tpu-")
        else _gpu_memory_gb(row.get("GpuInfo") or "", count, "gcp"),
    )
    if placeholder:
        for model, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            if model in placeholder:
                out.reject("placeholder_price",
                           f"{sku} {template.region} {model}: {row.get(column)} is the same"
                           " instance price as 2+ other slice sizes of the family in this zone",
                           _raw(row))
        row = {k: ("" if (k == "Price" and "on_demand" in placeholder)
                   or (k == "SpotPrice" and "spot" in placeholder) else v)
               for k, v in row.items()}
        if "on_demand" in placeholder and "spot" in placeholder:
            return
        if "on_demand" in placeholder:  # the spot part stands on its own
            spot = _positive(row.get("SpotPrice"))
            if spot is not None:
                out.add(replace(template, pricing_model="spot", price_per_hour=spot), _raw(row))
            return
    _add_row_prices(template, row, out, spot_model="spot")


def _gcp_machine(
    row: dict[str, str],
    machine: str,
    gpu_rows: dict[tuple[str, float, str], dict[str, str]],
    out: CheapestOffers,
) -> None:
    bundle = gcp_bundled_gpu(machine)
    if bundle is None:
        if _GCP_ACCEL_MACHINE.match(machine):
            out.reject("unknown_accelerator_machine", f"{machine}: GPU model/count unknown",
                       _raw(row))
        return  # a plain VM without GPUs
    accel, count, host_in_gpu = bundle
    zone = _zone(row)
    gpu = gpu_rows.get((accel, float(count), zone))
    if gpu is None:
        out.reject("gpu_price_missing", f"{machine} {zone}: no {accel}x{count} row",
                   _raw(row))
        return
    raw = f"{_raw(row)} + {_raw(gpu)}"
    template = PriceObservation(
        provider="gcp", sku=machine, region=zone, pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=float(count),
        gpu_memory_gb=_gpu_memory_gb(gpu.get("GpuInfo") or "", count, "gcp"),
        vcpus=_num(row.get("vCPUs")), ram_gb=_num(row.get("MemoryGiB")),
    )
    for model, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        vm_part = _num(row.get(column))
        gpu_part = _positive(gpu.get(column))
        if vm_part is not None and (vm_part > 0 or (host_in_gpu and vm_part == 0)) \
                and gpu_part is not None:
            total = round(vm_part + gpu_part, 5)
            out.add(replace(template, pricing_model=model, price_per_hour=total), raw)
        elif model == "on_demand":
            out.reject("zero_or_missing_price",
                       f"{machine} {zone}: VM part {row.get(column)!r},"
                       f" {accel}x{count} part {gpu.get(column)!r}", _raw(row))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    description="SkyPilot's published multi-cloud catalogs (one vms.csv per cloud)",
)
