"""Azure Retail Prices API: pay-as-you-go prices of the GPU virtual machine sizes.

Live fetch: one OData query for Virtual Machines, priceType Consumption or Reservation, and
the GPU size families (armSkuName containing _NC, _ND, _NV or _NG), following `NextPageLink`
page by page (one Payload per page, `page-0001.json`, ...). The base URL is overridable with
GPUCOST_SOURCE_URL_AZURE; NextPageLinks are followed exactly as the server gives them.

Parse rules (one PriceObservation per GPU size x region x pricing model):

* only GPU sizes are kept (decided from the size name, ``Standard_N[CDVG]...``); other
  items are skipped without a reject (they are not what this source is for);
* Windows and other licensed-OS meters (productName with "Windows", " Win", "Srs Win", RHEL,
  SUSE, SQL) -> Reject("non_linux_os"); Low Priority meters -> Reject("low_priority_retired");
  `type` other than Consumption or Reservation (DevTestConsumption) ->
  Reject("non_consumption"); `unitOfMeasure` other than "1 Hour" -> Reject("unexpected_unit");
  retailPrice 0 or missing -> Reject("zero_or_missing_price") (unknown, never free);
* Consumption items: "Spot" in meterName/skuName -> pricing_model "spot", otherwise
  "on_demand";
* `savingsPlan` (api-version 2023-01-01-preview, on on-demand Consumption items: a list of
  ``{unitPrice, retailPrice, term}``, hourly prices of a 1- or 3-year spend commitment) ->
  one more observation per term: "1 Year" -> savings_plan_1y, "3 Years" -> savings_plan_3y at
  its retailPrice per hour (eastus2 2026-01-31 Standard_NC48ads_A100_v4: 7.346 on demand,
  6.1148104 and 4.5317474); another term -> Reject("reserved_term_unsupported");
* `Reservation` items (reservationTerm "1 Year" / "3 Years") -> reserved_1y / reserved_3y.
  Their `unitPrice` is the price of the WHOLE term although `unitOfMeasure` says "1 Hour":
  the per-hour equivalent is unitPrice / hours in the term, a year counted as 365 x 24 =
  8,760 hours (HOURS_PER_YEAR; Azure prices a month as 730 hours = 8,760 / 12), three years
  as 26,280: a 1-year reservation at 35,040 USD is 4.0 USD per hour. Azure bills a
  reservation up front or monthly at the same total, and the item says neither: payment
  None. Another term -> Reject("reserved_term_unsupported");
* the price is per VM (whole instance); non-USD currencies are kept with their currency;
* GPU model and count come from the size name through the table below (fractional NVads A10
  v5 / NVv4 / NGads V620 slices are kept as float counts). A size not in the table is still
  emitted, with gpu_name_raw = the accelerator token of the name (or the family) and
  gpu_count None; the alias table maps it later;
* the same (sku, region, pricing model) twice in one payload: the lowest price is kept and the
  others are recorded as Reject("duplicate_offer");
* stream = the region of the payload (sorted, comma-joined when a page spans several).

A payload whose items yield no accepted price raises EmptyPayloadError (nothing to load).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from gpucost.catalog import http
from gpucost.catalog.parsing import CheapestOffers
from gpucost.catalog.records import (
    OffHostLinkError,
    PagingLoopError,
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Source

NAME = "azure"
DEFAULT_URL = "https://prices.azure.com/api/retail/prices"

API_VERSION = "2023-01-01-preview"
GPU_FAMILY_TOKENS = ("_NC", "_ND", "_NV", "_NG")
ODATA_FILTER = (
    "serviceName eq 'Virtual Machines' and (priceType eq 'Consumption' or priceType eq "
    "'Reservation') and ("
    + " or ".join(f"contains(armSkuName,'{t}')" for t in GPU_FAMILY_TOKENS)
    + ")"
)
# all pages of one live walk are loaded as one snapshot under this stream (flows/steps.py)
PAGE_CAP = 200  # at most this many pages per fetch (the GPU query needs a handful)

log = logging.getLogger(__name__)

# A reservation's unitPrice is the price of the whole term: hours per year of the per-hour
# equivalent (365 x 24; Azure's pricing pages count a month as 730 hours = 8,760 / 12)
HOURS_PER_YEAR = 8760
_RESERVATION_TERMS = {"1 Year": ("reserved_1y", 1), "3 Years": ("reserved_3y", 3)}
_SAVINGS_PLAN_TERMS = {"1 Year": "savings_plan_1y", "3 Years": "savings_plan_3y"}

_GPU_SIZE = re.compile(r"^Standard_N[CDVG][A-Z]*\d")
_SIZE_PARTS = re.compile(
    r"^Standard_(?P<series>N[A-Z]+)(?P<vcpus>\d+)(?P<feat>[a-z]+(?:_[a-z]+)*)?"
    r"(?P<rest>(?:_[A-Za-z0-9]+)*)$"
)
_NON_LINUX = ("Windows", " Win", "RHEL", "Red Hat", "SUSE", "SLES", "SQL")
_CLOUD_SERVICES = (" Cloud Services", "CloudServices")

# Size (armSkuName without "Standard_" and without a "_Promo" suffix) -> (GPU, GPUs per VM).
# Sources: Azure GPU size documentation (per series); fractions are GPU partitions.
_SIZES: dict[str, tuple[str, float]] = {
    # NC (K80), NCv2 (P100), NCv3 (V100 16GB)
    "NC6": ("K80", 1), "NC12": ("K80", 2), "NC24": ("K80", 4), "NC24r": ("K80", 4),
    "NC6s_v2": ("P100", 1), "NC12s_v2": ("P100", 2), "NC24s_v2": ("P100", 4),
    "NC24rs_v2": ("P100", 4),
    "NC6s_v3": ("V100", 1), "NC12s_v3": ("V100", 2), "NC24s_v3": ("V100", 4),
    "NC24rs_v3": ("V100", 4),
    # NCasT4_v3
    "NC4as_T4_v3": ("T4", 1), "NC8as_T4_v3": ("T4", 1), "NC16as_T4_v3": ("T4", 1),
    "NC64as_T4_v3": ("T4", 4),
    # NC A100 v4 (A100 80GB PCIe)
    "NC24ads_A100_v4": ("A100 80GB", 1), "NC48ads_A100_v4": ("A100 80GB", 2),
    "NC96ads_A100_v4": ("A100 80GB", 4),
    # NCads H100 v5 and confidential NCCads H100 v5 (H100 NVL)
    "NC40ads_H100_v5": ("H100 NVL", 1), "NC80adis_H100_v5": ("H100 NVL", 2),
    "NCC40ads_H100_v5": ("H100 NVL", 1),
    # ND (P40), NDv2 (V100 32GB)
    "ND6s": ("P40", 1), "ND12s": ("P40", 2), "ND24s": ("P40", 4), "ND24rs": ("P40", 4),
    "ND40rs_v2": ("V100 32GB", 8),
    # ND A100 v4 (40GB), NDm A100 v4 (80GB)
    "ND96asr_v4": ("A100", 8),
    "ND96amsr_A100_v4": ("A100 80GB", 8), "ND96ams_A100_v4": ("A100 80GB", 8),
    # ND H100 v5, ND H200 v5, ND MI300X v5
    "ND96isr_H100_v5": ("H100", 8), "ND96isrf_H100_v5": ("H100", 8),
    "ND96isr_H200_v5": ("H200", 8),
    "ND96isr_MI300X_v5": ("MI300X", 8), "ND96is_MI300X_v5": ("MI300X", 8),
    # ND GB200 v6 / GB300 v6 (4 GPUs per VM)
    "ND128isr_NDR_GB200_v6": ("GB200", 4), "ND128isr_GB300_v6": ("GB300", 4),
    # NV (M60), NVv3 (M60)
    "NV6": ("M60", 1), "NV12": ("M60", 2), "NV24": ("M60", 4),
    "NV12s_v3": ("M60", 1), "NV24s_v3": ("M60", 2), "NV48s_v3": ("M60", 4),
    # NVv4 (MI25 partitions)
    "NV4as_v4": ("MI25", 1 / 8), "NV8as_v4": ("MI25", 1 / 4), "NV16as_v4": ("MI25", 1 / 2),
    "NV32as_v4": ("MI25", 1),
    # NVads A10 v5 (A10 partitions)
    "NV6ads_A10_v5": ("A10", 1 / 6), "NV12ads_A10_v5": ("A10", 1 / 3),
    "NV18ads_A10_v5": ("A10", 1 / 2), "NV36ads_A10_v5": ("A10", 1),
    "NV36adms_A10_v5": ("A10", 1), "NV72ads_A10_v5": ("A10", 2),
    # NGads V620 (Radeon PRO V620 partitions)
    "NG8ads_V620_v1": ("V620", 1 / 4), "NG16ads_V620_v1": ("V620", 1 / 2),
    "NG32ads_V620_v1": ("V620", 1), "NG32adms_V620_v1": ("V620", 1),
    "NG32adms_V620": ("V620", 1),
    # NC RTX PRO 6000 BSE v6 (RTX PRO 6000 Blackwell Server Edition, 96 GB; GA sizes below 144
    # vCPUs are GPU partitions). Preview sizes, Microsoft Learn "NC RTX PRO 6000 Blackwell
    # Server Edition v6 sizes series", Accelerators tabs (ms.date 2025-12-05, MicrosoftDocs/
    # azure-compute-docs articles/virtual-machines/sizes/gpu-accelerated/
    # nc-rtxpro6000-bse-v6-series.md @ 02773904): NC128ds/lds 1 GPU (96 GB), NC256ds/lds and
    # NC320ds/lds 2 GPUs (192 GB).
    # https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/nc-rtxpro6000-bse-v6-series
    "NC128ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1),
    "NC256ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
    "NC320ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
    "NC128lds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1),
    "NC256lds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
    "NC320lds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
    # GA sizes: the same page's GA table as transcribed by Microsoft's own
    # microsoft/physical-ai-toolchain docs ("GPU Configuration", 2026-10-08, citing the page
    # above): NC36ds 1/4 GPU (24 GB), NC72ds 1/2 (48 GB), NC144ds 1 (96 GB), NC288ds 2 (192 GB).
    # The lds sizes: Microsoft Learn's "NC RTX PRO 6000 Blackwell v6 sizes series overview"
    # (ms.date 2026-06-03) replaces preview NC128lds (1 GPU) by NC144lds and NC256lds/NC320lds
    # (2 GPUs) by NC288lds; microsoft/aspire AksNodeVmSizes.cs lists NC144lds 1 and NC288lds 2
    # GPU(s). The preview NC64ds, NC264ds and NC324lds that the price list also carries are in
    # no size table with a GPU count: they stay gpu_count_unknown (no per-GPU price).
    "NC36ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1 / 4),
    "NC72ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1 / 2),
    "NC144ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1),
    "NC288ds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
    "NC144lds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 1),
    "NC288lds_xl_RTXPRO6000BSE_v6": ("RTXPRO6000BSE", 2),
}
# GPU token of an ND96 size -> the GPU (ND96asr_A100_v4 is the A100 40GB of ND96asr_v4; the
# 80GB one is spelt "ams": ND96amsr_A100_v4, in the table above)
_ND96_GPUS = {"A100": "A100", "H100": "H100 SXM", "H200": "H200", "MI300X": "MI300X"}
# Sizes whose GPU count Azure does not document per size (the count stays unknown, so no
# per-GPU price; unmapped_gpu_names lists them with reason gpu_count_unknown): the NC A10 v4
# and NV V710 v5 series, whose sizes include GPU partitions, and the undocumented NC RTX PRO
# 6000 BSE v6 sizes (NC64ds, NC264ds, NC324lds ...; the documented ones are in the table).
# Accelerator tokens in size names that are not GPU models (interconnect markers etc.).
_NOT_GPU_TOKENS = frozenset({"NDR", "Promo", "noIB", "flex", "xl"})


def gpu_of_size(arm_sku_name: str) -> tuple[str, float | None]:
    """(gpu_name_raw, gpu_count) of an Azure GPU size; count None when the size is unknown.

    >>> gpu_of_size("Standard_NV12ads_A10_v5")
    ('A10', 0.3333333333333333)
    """
    key = arm_sku_name.removeprefix("Standard_").removesuffix("_Promo")
    if key in _SIZES:
        name, count = _SIZES[key]
        return name, float(count)
    m = _SIZE_PARTS.match(arm_sku_name.removesuffix("_Promo"))
    if not m:
        return arm_sku_name.removeprefix("Standard_"), None
    tokens = [t for t in m.group("rest").split("_") if t]
    accel = [t for t in tokens if not re.fullmatch(r"v\d+", t) and t not in _NOT_GPU_TOKENS]
    if accel:
        name = accel[-1]
        # by rule: every ND96 size is an 8-GPU VM (ND A100 v4, ND H100 v5, ND H200 v5,
        # ND MI300X v5 series: the variants without InfiniBand, "flex" or "asr" sizes included)
        if m.group("series") == "ND" and m.group("vcpus") == "96" and name in _ND96_GPUS:
            return _ND96_GPUS[name], 8.0
        return name, None
    version = next((t for t in tokens if re.fullmatch(r"v\d+", t)), "")
    return m.group("series") + version, None


def is_retired_size(arm_sku_name: str) -> bool:
    """A retired promotional size (`*_Promo`): never a price to compare."""
    return (arm_sku_name or "").endswith("_Promo")


def is_gpu_size(arm_sku_name: str) -> bool:
    return bool(_GPU_SIZE.match(arm_sku_name or ""))


def _walk(ctx: FetchContext) -> list[Payload]:
    """All pages of the GPU VM query, one Payload per page, following NextPageLink.

    A NextPageLink to another host is not followed (OffHostLinkError); a link seen twice, a
    page whose items were all read on earlier pages, or more than PAGE_CAP pages refuse the
    walk as a whole (PagingLoopError): a walk that does not end is not a snapshot."""
    url = ctx.url()
    first = url
    params: dict[str, str] | None = {"api-version": API_VERSION, "$filter": ODATA_FILTER}
    payloads: list[Payload] = []
    seen: set[str] = set()
    items_seen: set[str] = set()
    for page in range(1, PAGE_CAP + 1):
        payload = ctx.get(url, name=f"page-{page:04d}.json", ext="json", params=params)
        payloads.append(payload)
        seen.update({url, payload.url})
        doc = _page(payload.content)
        items = {hashlib.sha256(json.dumps(i, sort_keys=True).encode()).hexdigest()
                 for i in (doc.get("Items") or []) if isinstance(i, dict)}
        if page > 1 and items and items <= items_seen:
            raise PagingLoopError(f"azure: page {page} repeats only items of earlier pages; "
                                  "the walk is refused")
        items_seen |= items
        next_link = doc.get("NextPageLink")
        if not isinstance(next_link, str) or not next_link.strip():
            return payloads
        if not http.same_host(first, next_link, ctx.source.policy.allow_hosts):
            raise OffHostLinkError(f"azure: page {page}'s NextPageLink leads to another host "
                                   f"({urlsplit(next_link).netloc}); not followed")
        if next_link in seen:
            raise PagingLoopError(f"azure: page {page}'s NextPageLink repeats a page already "
                                  "fetched; the walk is refused")
        url, params = next_link, None
    raise PagingLoopError(f"azure: more than {PAGE_CAP} pages (the GPU query needs a handful);"
                          " the walk is refused")


def _page(content: bytes) -> dict:
    """A page's JSON object ({} when it is not one: parse reports that page)."""
    try:
        doc = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _load_items(payload: Payload) -> list[dict[str, Any]]:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"azure {payload.name}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict) or "Items" not in doc:
        raise ParseError(f"azure {payload.name}: JSON envelope without an 'Items' key")
    items = doc["Items"]
    if not isinstance(items, list):
        raise ParseError(f"azure {payload.name}: 'Items' is not a list")
    return [i for i in items if isinstance(i, dict)]


def _raw(item: dict[str, Any]) -> str:
    return json.dumps(item, sort_keys=True)[:2000]


def _price(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        price = float(value)
    except (TypeError, ValueError):
        return None
    return price if price > 0 else None


def _reject_reason(item: dict[str, Any]) -> tuple[str, str] | None:
    product = str(item.get("productName") or "")
    meter = f"{item.get('meterName') or ''} {item.get('skuName') or ''}"
    kind = str(item.get("type") or "")
    if kind not in ("Consumption", "Reservation"):
        return "non_consumption", f"type {kind!r}"
    if any(t in product for t in _NON_LINUX):
        return "non_linux_os", product
    if any(t in product for t in _CLOUD_SERVICES):
        return "cloud_services_meter", product
    if "Low Priority" in meter:
        return "low_priority_retired", meter.strip()
    if is_retired_size(str(item.get("armSkuName") or "")) or "Promo" in meter:
        return "retired_promo_size", f"{item.get('armSkuName')}: a retired promotional size"
    if item.get("unitOfMeasure") != "1 Hour":
        return "unexpected_unit", f"unitOfMeasure {item.get('unitOfMeasure')!r}"
    if kind == "Reservation" and item.get("reservationTerm") not in _RESERVATION_TERMS:
        return "reserved_term_unsupported", f"reservationTerm {item.get('reservationTerm')!r}"
    if _price(item.get("retailPrice")) is None:
        return "zero_or_missing_price", f"retailPrice {item.get('retailPrice')!r}"
    return None


def _reservation_hourly(item: dict[str, Any]) -> tuple[str, float | None]:
    """(pricing model, per-hour equivalent) of a Reservation item: unitPrice is the price of
    the whole term, divided by the hours of the term (HOURS_PER_YEAR a year)."""
    model, years = _RESERVATION_TERMS[str(item.get("reservationTerm"))]
    total = _price(item.get("unitPrice")) or _price(item.get("retailPrice"))
    return model, (round(total / (HOURS_PER_YEAR * years), 6) if total else None)


def parse(payload: Payload) -> ParseResult:
    items = _load_items(payload)
    regions = sorted({str(i.get("armRegionName") or "") for i in items} - {""})
    result = ParseResult(stream=",".join(regions) or "global")
    offers = CheapestOffers(result)
    skipped = 0
    for item in items:
        sku = str(item.get("armSkuName") or "")
        if not is_gpu_size(sku):
            skipped += 1
            continue
        refused = _reject_reason(item)
        if refused:
            result.rejects.append(Reject(refused[0], f"{sku}: {refused[1]}", _raw(item)))
            continue
        meter = f"{item.get('meterName') or ''} {item.get('skuName') or ''}"
        gpu_name, gpu_count = gpu_of_size(sku)
        if item.get("type") == "Reservation":
            model, price = _reservation_hourly(item)
        else:
            model = "spot" if "Spot" in meter else "on_demand"
            price = _price(item.get("retailPrice"))
        obs = PriceObservation(
            provider="azure",
            sku=sku,
            region=str(item.get("armRegionName") or ""),
            pricing_model=model,
            price_per_hour=price,
            gpu_name_raw=gpu_name,
            gpu_count=gpu_count,
            currency=str(item.get("currencyCode") or "USD"),
            os="linux",
        )
        offers.add(obs, _raw(item))
        if model == "on_demand":
            _savings_plans(item, obs, offers, result)
    return offers.finish(f"azure {payload.name}: no accepted GPU VM price",
                         f"{len(items)} items, {skipped} non-GPU")


def _savings_plans(item: dict[str, Any], on_demand: PriceObservation,
                   offers: CheapestOffers, result: ParseResult) -> None:
    """The savings-plan prices of an on-demand item (hourly, per term), as observations of
    their own beside it."""
    plans = item.get("savingsPlan")
    for plan in plans if isinstance(plans, list) else []:
        if not isinstance(plan, dict):
            continue
        term = str(plan.get("term") or "")
        model = _SAVINGS_PLAN_TERMS.get(term)
        if model is None:
            result.rejects.append(Reject("reserved_term_unsupported",
                                         f"{on_demand.sku}: savings plan term {term!r}",
                                         _raw(item)))
            continue
        price = _price(plan.get("retailPrice")) or _price(plan.get("unitPrice"))
        if price is None:
            result.rejects.append(Reject("zero_or_missing_price",
                                         f"{on_demand.sku}: savings plan {term} {plan!r}",
                                         _raw(item)))
            continue
        offers.add(replace(on_demand, pricing_model=model, price_per_hour=price), _raw(item))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, walk=_walk,
    live_stream="retail_api",  # the pages of one walk are one snapshot
    description="Azure Retail Prices API: GPU virtual machine meters (all regions)",
)
