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

GCP rows are assembled differently (VM + GPU rows, TPU slices): catalog/sources/_skypilot_gcp.py.
The reading of one catalog CSV (its rows, GpuInfo, GPU names and counts, a row's prices) is
catalog/sources/_skypilot_csv.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sizes import provider_size_count, retired_size
from gpucost.catalog.sources._skypilot_csv import (
    add_row_prices,
    gpu_name_and_count,
    num,
    per_gpu_memory_gb,
    positive,
    raw_text,
    read_rows,
    size_is_total,
    size_mib,
    zone_of,
)
from gpucost.catalog.sources._skypilot_gcp import parse_gcp
from gpucost.catalog.sources.base import FetchContext, Part, Source
from gpucost.catalog.sources.vast import gpu_label

NAME = "skypilot"
DEFAULT_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"

CLOUDS: tuple[str, ...] = (
    "lambda", "gcp", "azure", "vast", "runpod", "nebius", "fluidstack", "cudo", "paperspace",
    "do", "hyperstack", "shadeform", "primeintellect",
)

PROVIDER_OF_CLOUD = {"do": "digitalocean"}
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
# * ovhcloud: the catalog's fetcher (no SkyPilot data_fetcher; the OVHcloud catalog's own
#   script) scrapes https://www.ovhcloud.com/en/public-cloud/prices/, the international English
#   page, whose prices are in US dollars, and strips the "$" from each price; its figures are the
#   page's USD figures (a100-180 3.07, t1-le-45 0.77: cloud-gpus.com's table of 2025-09-17 in
#   ../shared/data/prices/curated_tables/ lists OVHcloud at $3.07 and $0.77 from that page)
#   -> USD (catalog/providers.csv states it with its source).
# * alicloud: the recorded file comes from a fork (sugarlxn/skypilot-catalog) whose fetcher
#   converts Alibaba's CNY list prices to USD at a fixed rate (0.138): not the provider's
#   prices -> refused (currency_converted).
_CURRENCY = {"scaleway": "EUR", "seeweb": "EUR", "ovhcloud": "USD"}
_REFUSED_CURRENCY = {"alicloud": "currency_converted"}
# clouds whose offers are per region, listed once per zone with the zone's region (IBM: the
# same price in us-south-1/2/3; some rows leave Region empty: jp-tok-2 -> jp-tok)
_REGION_FROM_ZONE = frozenset({"ibm"})

# Vast rows: <n>x-<gpu name, spaces as _>-<vCPUs>-<RAM MiB> (vast_gpu_name)
_VAST_SKU = re.compile(r"^\d+x-(?P<gpu>.+)-\d+-\d+$")

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


def parse(payload: Payload) -> ParseResult:
    cloud = cloud_of(payload)
    _, rows = read_rows(payload)
    result = ParseResult(stream=cloud)
    out = CheapestOffers(result)
    if cloud == "gcp":
        parse_gcp(rows, out)
    else:
        _parse_generic(rows, cloud, out)
    return out.finish(f"skypilot {payload.name}: no accepted GPU price", f"{len(rows)} rows")


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
    mib = size_mib(gpu_info)
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
        price, spot = positive(row.get("Price")), positive(row.get("SpotPrice"))
        count = positive(row.get("AcceleratorCount"))
        if price is None or count is None or spot != price:
            return False
        per_gpu.add(round(price / count, 6))
    return n >= 2 and len(per_gpu) == 1 and next(iter(per_gpu)).is_integer()


def _region(row: dict[str, str], cloud: str) -> str:
    if cloud in _REGION_FROM_ZONE:
        region = (row.get("Region") or "").strip()
        zone = (row.get("AvailabilityZone") or "").strip()
        return region or re.sub(r"-\d+$", "", zone)
    return zone_of(row)


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
            out.reject("missing_instance_type", f"{accel} row without InstanceType", raw_text(row))
            continue
        if retired_size(provider, sku):
            out.reject("retired_promo_size", f"{sku}: a retired promotional size", raw_text(row))
            continue
        stated, why = read_gpu_count(row.get("AcceleratorCount"), fractions=True)
        if why:
            out.reject(GPU_COUNT_INVALID, f"{sku} {accel}: {why}", raw_text(row))
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
            gpu_memory_gb=per_gpu_memory_gb(row.get("GpuInfo") or "", count, cloud, total),
            vcpus=num(row.get("vCPUs")),
            ram_gb=num(row.get("MemoryGiB")),
        )
        what = f"{sku} {template.region} {name} x{count:g}" if count else f"{sku} {name}"
        if placeholder:
            out.reject("placeholder_price",
                       f"{what}: Price {row.get('Price')} = SpotPrice, the same whole number"
                       " per GPU on every GPU row of the catalog", raw_text(row))
            continue
        if cloud in _REFUSED_CURRENCY:
            out.reject(_REFUSED_CURRENCY[cloud],
                       f"{what}: {cloud} prices are not in a known provider currency"
                       f" (Price {row.get('Price')})", raw_text(row))
            continue
        add_row_prices(template, row, out, spot_model=_SPOT_MODEL.get(cloud, "spot"))


SOURCE = Source(
    name=NAME, kind="prices", authority="catalog", default_url=DEFAULT_URL, parse=parse,
    parts=_parts,
    description="SkyPilot's published multi-cloud catalogs (one vms.csv per cloud)",
)
