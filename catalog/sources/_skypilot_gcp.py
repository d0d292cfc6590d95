"""SkyPilot's GCP catalog (catalog/sources/skypilot.py): machines with bundled GPUs priced as
VM row + GPU row, attachable GPUs and TPU slices on their own. A helper of the skypilot
source, not a source (no SOURCE).

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

GPU rows of *attachable* GPUs (N1 attachments: T4, V100, P100, P4) cannot be rented alone:
GCP attaches them to an N1 general-purpose VM (https://cloud.google.com/compute/docs/gpus,
"N1 general-purpose machine series": every GPU count allows from 1 vCPU up to a maximum,
_N1_MAX_VCPUS; shared-core f1-micro / g1-small take no GPU). Each is priced together with the
cheapest N1 host VM row (`n1-standard-*`, `n1-highmem-*`, `n1-highcpu-*` within that vCPU
maximum) of the same zone and the same pricing model (spot GPU with spot host): sku
`<host>+<GPU>x<count>` (`n1-standard-1+T4x1`), price = GPU row + host row, vcpus / ram_gb the
host's, price_kind "gpu_with_host". E.g. us-central1-a 2026-05-20: T4x1 0.35 + n1-standard-1
0.0475 = 0.3975 on demand, 0.1654 + 0.01744 = 0.18284 spot. A GPU row without any priced N1
host in its zone and pricing model (or a GPU model not in _N1_MAX_VCPUS, whose host rule is
not known) is emitted on its own as sku `<GPU>x<count>` (`T4x1`), price_kind "gpu_only": the
GPU alone, which nobody can rent as it is (listed, never a minimum or a price basis).
TPU rows (`tpu-v5p-8`, ...) are emitted with sku = gpu_name_raw = the TPU type, gpu_count =
chips in the slice (v2/v3/v4/v5p names count TensorCores, two per chip; v5e/v6e names count
chips). GCP region = the AvailabilityZone when present, so zones stay distinct.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace

from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import PriceObservation
from gpucost.catalog.sources._skypilot_csv import (
    add_row_prices,
    num,
    per_gpu_memory_gb,
    positive,
    raw_text,
    zone_of,
)

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
# N1 GPU attachments: GPU model -> GPU count -> the most vCPUs an N1 host may have (every count
# allows from 1 vCPU; https://cloud.google.com/compute/docs/gpus, N1 general-purpose machine
# series; P100 x4 allows 96 vCPUs in some zones only: 64 is the rule everywhere)
_N1_MAX_VCPUS: dict[str, dict[int, float]] = {
    "T4": {1: 48, 2: 48, 4: 96},
    "P4": {1: 24, 2: 48, 4: 96},
    "V100": {1: 12, 2: 24, 4: 48, 8: 96},
    "P100": {1: 16, 2: 32, 4: 64},
}
_N1_HOST = re.compile(r"^n1-(?:standard|highmem|highcpu)-\d+$")
_GCP_ACCEL_MACHINE = re.compile(r"^a\d+[a-z]*-[a-z]+-\d+g(?:-|$)")
_TPU = re.compile(r"^tpu-(?P<gen>v\d+[a-z]*?)(?:litepod)?-(?P<n>\d+)$")
_TPU_CHIPS_IN_NAME = ("v5lite", "v5e", "v6e")  # names count chips, not TensorCores


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


def parse_gcp(rows: Iterable[dict[str, str]], out: CheapestOffers) -> None:
    gpu_rows: dict[tuple[str, float, str], dict[str, str]] = {}
    n1_hosts: dict[str, list[dict[str, str]]] = defaultdict(list)
    bundled_names = {accel for _, accel, _, _ in _GCP_BUNDLED} | {"L4"}
    for row in rows:
        accel = (row.get("AcceleratorName") or "").strip()
        machine = (row.get("InstanceType") or "").strip()
        if accel and not machine:
            count = num(row.get("AcceleratorCount")) or 0.0
            gpu_rows.setdefault((accel, count, zone_of(row)), row)
        elif _N1_HOST.match(machine) and not accel:
            n1_hosts[zone_of(row)].append(row)

    tpu_placeholders = _tpu_placeholder_prices(rows)
    for row in rows:
        machine = (row.get("InstanceType") or "").strip()
        accel = (row.get("AcceleratorName") or "").strip()
        if machine:
            _gcp_machine(row, machine, gpu_rows, out)
        elif accel.startswith("tpu-"):
            placeholder = {model for model, column in (("on_demand", "Price"),
                                                       ("spot", "SpotPrice"))
                           if num(row.get(column)) in tpu_placeholders.get(
                               (_tpu_family(accel), zone_of(row), column), set())}
            _gcp_standalone(row, accel, out, sku=accel, count=tpu_chips(accel) or 1.0,
                            placeholder=placeholder)
        elif accel and accel not in bundled_names:
            count, why = read_gpu_count(row.get("AcceleratorCount"))
            if why:
                out.reject(GPU_COUNT_INVALID, f"{accel} {zone_of(row)}: {why}", raw_text(row))
                continue
            _gcp_attached(row, accel, count, n1_hosts.get(zone_of(row), []), out)


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
            price = positive(row.get(column))
            if price is not None:
                sizes[(_tpu_family(accel), zone_of(row), column, price)].add(accel)
    found: dict[tuple[str, str, str], set[float]] = defaultdict(set)
    for (family, zone, column, price), names in sizes.items():
        if len(names) >= 3:
            found[(family, zone, column)].add(price)
    return found


def _gcp_standalone(
    row: dict[str, str], accel: str, out: CheapestOffers, *, sku: str, count: float | None,
    placeholder: set[str] | None = None,
) -> None:
    template = PriceObservation(
        provider="gcp", sku=sku, region=zone_of(row), pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=count,
        gpu_memory_gb=None if accel.startswith("tpu-")
        else per_gpu_memory_gb(row.get("GpuInfo") or "", count, "gcp"),
    )
    if placeholder:
        for model, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            if model in placeholder:
                out.reject("placeholder_price",
                           f"{sku} {template.region} {model}: {row.get(column)} is the same"
                           " instance price as 2+ other slice sizes of the family in this zone",
                           raw_text(row))
        row = {k: ("" if (k == "Price" and "on_demand" in placeholder)
                   or (k == "SpotPrice" and "spot" in placeholder) else v)
               for k, v in row.items()}
        if "on_demand" in placeholder and "spot" in placeholder:
            return
        if "on_demand" in placeholder:  # the spot part stands on its own
            spot = positive(row.get("SpotPrice"))
            if spot is not None:
                out.add(replace(template, pricing_model="spot", price_per_hour=spot), raw_text(row))
            return
    add_row_prices(template, row, out, spot_model="spot")


def _cheapest_host(hosts: list[dict[str, str]], column: str, max_vcpus: float
                   ) -> tuple[float, dict[str, str]] | None:
    """(price, row) of the cheapest N1 host row with a positive `column` price and at most
    `max_vcpus` vCPUs (ties: fewer vCPUs, then the name); None when there is none."""
    priced = [(price, num(h.get("vCPUs")) or 0.0, h.get("InstanceType") or "", h)
              for h in hosts
              if (price := positive(h.get(column))) is not None
              and (num(h.get("vCPUs")) or 0.0) <= max_vcpus]
    if not priced:
        return None
    price, _, _, host = min(priced, key=lambda p: p[:3])
    return price, host


def _gcp_attached(
    row: dict[str, str], accel: str, count: float | None, hosts: list[dict[str, str]],
    out: CheapestOffers,
) -> None:
    """An attach-only GPU row: with the cheapest N1 host of its zone per pricing model
    (gpu_with_host), else alone (gpu_only); see the module doc."""
    name = f"{accel}x{count:g}" if count else accel
    alone = PriceObservation(
        provider="gcp", sku=name, region=zone_of(row), pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=count,
        gpu_memory_gb=per_gpu_memory_gb(row.get("GpuInfo") or "", count, "gcp"),
        price_kind="gpu_only",
    )
    price, spot = positive(row.get("Price")), positive(row.get("SpotPrice"))
    if price is None and (spot is None or num(row.get("Price")) is not None):
        out.reject("zero_or_missing_price", f"{name} {alone.region} Price {row.get('Price')!r}",
                   raw_text(row))  # as add_row_prices: a spot-only row is a spot offer
    max_vcpus = _N1_MAX_VCPUS.get(accel, {}).get(int(count)) if count else None
    for model, column, gpu_part in (("on_demand", "Price", price), ("spot", "SpotPrice", spot)):
        if gpu_part is None:
            continue
        host = _cheapest_host(hosts, column, max_vcpus) if max_vcpus else None
        if host is None:
            out.add(replace(alone, pricing_model=model, price_per_hour=gpu_part), raw_text(row))
            continue
        host_price, host_row = host
        out.add(replace(
            alone, sku=f"{(host_row.get('InstanceType') or '').strip()}+{name}",
            pricing_model=model, price_per_hour=round(gpu_part + host_price, 5),
            vcpus=num(host_row.get("vCPUs")), ram_gb=num(host_row.get("MemoryGiB")),
            price_kind="gpu_with_host",
        ), f"{raw_text(row)} + {raw_text(host_row)}")


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
                       raw_text(row))
        return  # a plain VM without GPUs
    accel, count, host_in_gpu = bundle
    zone = zone_of(row)
    gpu = gpu_rows.get((accel, float(count), zone))
    if gpu is None:
        out.reject("gpu_price_missing", f"{machine} {zone}: no {accel}x{count} row",
                   raw_text(row))
        return
    raw = f"{raw_text(row)} + {raw_text(gpu)}"
    template = PriceObservation(
        provider="gcp", sku=machine, region=zone, pricing_model="on_demand",
        price_per_hour=None, gpu_name_raw=accel, gpu_count=float(count),
        gpu_memory_gb=per_gpu_memory_gb(gpu.get("GpuInfo") or "", count, "gcp"),
        vcpus=num(row.get("vCPUs")), ram_gb=num(row.get("MemoryGiB")),
    )
    for model, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        vm_part = num(row.get(column))
        gpu_part = positive(gpu.get(column))
        if vm_part is not None and (vm_part > 0 or (host_in_gpu and vm_part == 0)) \
                and gpu_part is not None:
            total = round(vm_part + gpu_part, 5)
            out.add(replace(template, pricing_model=model, price_per_hour=total), raw)
        elif model == "on_demand":
            out.reject("zero_or_missing_price",
                       f"{machine} {zone}: VM part {row.get(column)!r},"
                       f" {accel}x{count} part {gpu.get(column)!r}", raw_text(row))
