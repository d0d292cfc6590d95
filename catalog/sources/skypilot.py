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
  with ``ast.literal_eval`` (never eval); GPU memory MiB / 1024 rounded to 0.1 (per GPU; Vast
  writes the total of all GPUs there, so it is divided by the count; a value below 1024 is
  taken as already in GiB, the Shadeform unit bug);
* `Price` -> an on_demand row (Vast: community, a marketplace price; 0 or empty ->
  Reject("zero_or_missing_price")); `SpotPrice` ->
  a spot row (Vast: interruptible_bid), skipped silently when 0 or empty (Vast writes 0.00
  everywhere, meaning unknown);
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
import re
from collections import Counter
from dataclasses import replace
from typing import Any

from catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from catalog.sources.base import FetchContext, Part, Source

NAME = "skypilot"
DEFAULT_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"

CLOUDS: tuple[str, ...] = (
    "lambda", "gcp", "azure", "vast", "runpod", "nebius", "fluidstack", "cudo", "paperspace",
    "do", "hyperstack", "shadeform", "primeintellect",
)

PROVIDER_OF_CLOUD = {"do": "digitalocean"}
_MEMORY_IS_TOTAL = frozenset({"vast"})  # GpuInfo SizeInMiB holds all GPUs of the row
_SPOT_MODEL = {"vast": "interruptible_bid"}
# a marketplace has no list price: Vast's Price is community capacity (as in the vast source)
_PRICE_MODEL = {"vast": "community"}


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


def _gpu_memory_gb(gpu_info: str, count: float | None, cloud: str) -> float | None:
    if not gpu_info.strip():
        return None
    try:
        info: Any = ast.literal_eval(gpu_info)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None  # e.g. Azure writes a bare name ("V100") there
    if not isinstance(info, dict):
        return None
    try:
        mib = float(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if mib <= 0:
        return None
    if cloud in _MEMORY_IS_TOTAL and count and count > 0:
        mib /= count
    gb = mib if mib < 1024 else mib / 1024
    return round(gb, 1)


def _read_rows(payload: Payload) -> tuple[list[str], list[dict[str, str]]]:
    try:
        text = payload.content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"skypilot {payload.name}: not UTF-8 text ({exc})") from exc
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        reader.fieldnames = header
        rows = [r for r in reader if any((v or "").strip() for v in r.values() if v)]
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
    if not rows:
        raise EmptyPayloadError(f"skypilot {payload.name}: header only, no rows")
    return header, rows


def _raw(row: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items() if v)[:2000]


class _Collector:
    """Accepted observations keyed by (sku, region, pricing model); keeps the lowest price."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.best: dict[tuple[str, str, str], tuple[PriceObservation, str]] = {}

    def add(self, obs: PriceObservation, raw: str) -> None:
        key = (obs.sku, obs.region, obs.pricing_model)
        held = self.best.get(key)
        if held is None:
            self.best[key] = (obs, raw)
            return
        keep, drop = held, (obs, raw)
        if (obs.price_per_hour or 0) < (held[0].price_per_hour or 0):
            keep, drop = (obs, raw), held
        self.best[key] = keep
        self.result.rejects.append(Reject(
            "duplicate_offer",
            f"{obs.sku} {obs.region} {obs.pricing_model}: {drop[0].price_per_hour} dropped,"
            f" {keep[0].price_per_hour} kept",
            drop[1],
        ))

    def reject(self, reason: str, detail: str, row: dict[str, str]) -> None:
        self.result.rejects.append(Reject(reason, detail, _raw(row)))


def parse(payload: Payload) -> ParseResult:
    cloud = cloud_of(payload)
    _, rows = _read_rows(payload)
    result = ParseResult(stream=cloud)
    out = _Collector(result)
    if cloud == "gcp":
        _parse_gcp(rows, out)
    else:
        _parse_generic(rows, cloud, out)
    result.prices = [obs for obs, _ in out.best.values()]
    if not result.prices:
        reasons = Counter(r.reason for r in result.rejects)
        raise EmptyPayloadError(
            f"skypilot {payload.name}: no accepted GPU price among {len(rows)} rows"
            f" (rejects {dict(reasons)})"
        )
    return result


def _parse_generic(rows: list[dict[str, str]], cloud: str, out: _Collector) -> None:
    provider = PROVIDER_OF_CLOUD.get(cloud, cloud)
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        if not accel:
            continue  # CPU-only VM
        sku = (row.get("InstanceType") or "").strip()
        if not sku:
            out.reject("missing_instance_type", f"{accel} row without InstanceType", row)
            continue
        count = _num(row.get("AcceleratorCount"))
        template = PriceObservation(
            provider=provider,
            sku=sku,
            region=_zone(row),
            pricing_model=_PRICE_MODEL.get(cloud, "on_demand"),
            price_per_hour=None,
            gpu_name_raw=accel,
            gpu_count=count,
            gpu_memory_gb=_gpu_memory_gb(row.get("GpuInfo") or "", count, cloud),
            vcpus=_num(row.get("vCPUs")),
            ram_gb=_num(row.get("MemoryGiB")),
        )
        _add_row_prices(template, row, out, spot_model=_SPOT_MODEL.get(cloud, "spot"))


def _add_row_prices(
    template: PriceObservation, row: dict[str, str], out: _Collector, *, spot_model: str
) -> None:
    """The on_demand row from Price (or a reject) and the spot row from SpotPrice (if any)."""
    price = _positive(row.get("Price"))
    if price is None:
        out.reject("zero_or_missing_price",
                   f"{template.sku} {template.region} Price {row.get('Price')!r}", row)
    else:
        out.add(replace(template, price_per_hour=price), _raw(row))
    spot = _positive(row.get("SpotPrice"))
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


def _parse_gcp(rows: list[dict[str, str]], out: _Collector) -> None:
    gpu_rows: dict[tuple[str, float, str], dict[str, str]] = {}
    bundled_names = {accel for _, accel, _, _ in _GCP_BUNDLED} | {"L4"}
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        if accel and not (row.get("InstanceType") or "").strip():
            count = _num(row.get("AcceleratorCount")) or 0.0
            gpu_rows.setdefault((accel, count, _zone(row)), row)

    for row in rows:
        machine = (row.get("InstanceType") or "").strip()
        accel = (row.get("AcceleratorName") or "").strip()
        if machine:
            _gcp_machine(row, machine, gpu_rows, out)
        elif accel.startswith("tpu-"):
            _gcp_standalone(row, accel, out, sku=accel, count=tpu_chips(accel) or 1.0)
        elif accel and accel not in bundled_names:
            count = _num(row.get("AcceleratorCount"))
            sku = f"{accel}x{count:g}" if count else accel
            _gcp_standalone(row, accel, out, sku=sku, count=count)


def _zone(row: dict[str, str]) -> str:
    return (row.get("AvailabilityZone") or "").strip() or (row.get("Region") or "").strip()


def _gcp_standalone(
    row: dict[str, str], accel: str, out: _Collector, *, sku: str, count: float | None
) -> None:
    template = PriceObservation(
        provider="gcp", sku=sku, region=_zone(row), pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=count,
        gpu_memory_gb=None if accel.startswith("tpu-")
        else _gpu_memory_gb(row.get("GpuInfo") or "", count, "gcp"),
    )
    _add_row_prices(template, row, out, spot_model="spot")


def _gcp_machine(
    row: dict[str, str],
    machine: str,
    gpu_rows: dict[tuple[str, float, str], dict[str, str]],
    out: _Collector,
) -> None:
    bundle = gcp_bundled_gpu(machine)
    if bundle is None:
        if _GCP_ACCEL_MACHINE.match(machine):
            out.reject("unknown_accelerator_machine", f"{machine}: GPU model/count unknown", row)
        return  # a plain VM without GPUs
    accel, count, host_in_gpu = bundle
    zone = _zone(row)
    gpu = gpu_rows.get((accel, float(count), zone))
    if gpu is None:
        out.reject("gpu_price_missing", f"{machine} {zone}: no {accel}x{count} row", row)
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
                       f" {accel}x{count} part {gpu.get(column)!r}", row)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    description="SkyPilot's published multi-cloud catalogs (one vms.csv per cloud)",
)
