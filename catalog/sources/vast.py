"""Vast.ai's public marketplace search, aggregated per GPU model and GPU count.

Live fetch: ``POST https://console.vast.ai/api/v0/bundles/`` with an operator filter
(rentable, not rented offers with at least one GPU, up to LIMIT offers), one Payload
``bundles.json``.
The endpoint is overridable with GPUCOST_SOURCE_URL_VAST. The answer is
``{"offers": [{...}, ...]}``; the fields read are ``gpu_name``, ``num_gpus``, ``gpu_ram``
(MiB per GPU, host-reported), ``dph_base`` (USD/h for GPUs + CPU share, without storage,
which Vast bills per GB-month), ``min_bid`` (the interruptible bid floor), ``rentable``.

Vast is a marketplace, not a price list: thousands of host offers, each with its own price.
They are aggregated into buckets of (GPU name, GPUs per offer):

* ``price_per_hour`` = the median offer of the bucket (whole instance, USD), with
  ``offer_count`` and ``price_p10_per_hour`` / ``price_p90_per_hour`` (10th and 90th
  percentile offers). Quantiles interpolate linearly between order statistics (the
  "linear" / type-7 definition: position p x (n - 1) in the sorted prices).
* pricing_model "community" for ``dph_base`` (hosts of the community marketplace, the same
  meaning as RunPod Community Cloud) and "interruptible_bid" for ``min_bid`` (a bid floor,
  not a price you are guaranteed to get); never "on_demand" or "spot".
* sku = ``<n>x <gpu name>``, gpu_name_raw = the Vast name, with the per-GPU VRAM appended
  for models sold in several memory sizes (``A100 SXM4 80GB``, ``Tesla V100 32GB``), the
  host-reported MiB rounded to whole GB; gpu_memory_gb = the bucket's median VRAM in the
  vendor's GB. ``gpu_ram`` is the host's usable memory in MiB (nvidia-smi: H100 81,559,
  A100 40,960), read by catalog.memory.capacity_gb: MiB / 1024 (a GPU's "GB" are binary),
  and on an ECC-on GDDR card, where the driver keeps 1/16 (L40S 46,068 MiB = 45 GiB), the
  card's capacity (48 GB) rather than 45.
* region "" (one global marketplace), provider "vast", stream "marketplace".
* fractional offers (``num_gpus`` below 1: a slice of one card) are kept apart in their own
  buckets and flagged by their fractional gpu_count (the marts keep them out of per-GPU
  statistics); a ``num_gpus`` that is no count (``Infinity``, 0, -1, 1.5, text) ->
  Reject("gpu_count_invalid"), that offer alone (parsing.read_gpu_count); offers without a
  GPU name or count -> Reject("gpu_unknown"); a missing or non-positive
  ``dph_base`` -> Reject("zero_or_missing_price") (unknown, never free); ``rentable`` false
  -> Reject("not_rentable").

A body that is not JSON or has no ``offers`` list -> ParseError; no accepted offer ->
EmptyPayloadError.

Stock (PriceObservation.available): an offer can be launched now when ``rentable`` is true
and ``rented`` is not true (``rented`` false, or not stated: ``rentable`` is Vast's own
"can be rented" flag); ``rented`` true -> not now (another tenant holds the machine); neither
field stated -> unknown. A bucket is available (True) when any of its offers can be launched
now, False when its offers state they cannot (all rented), None when no offer states either;
both rows of a bucket (community and interruptible_bid) carry the bucket's flag. The live
query asks for rentable, not rented offers, so a live bucket is normally True; the projected
recording (below) has neither field: None.

A second shape is read too, chosen by the payload (a JSON *list* instead of the object): the
projected offers recorded in ../shared/data/prices/provider_api/vastai/ (undated), a list of
offers that kept only ``gpu_name``, ``gpu_ram``, ``num_gpus`` and ``dph_total``:

* ``dph_total`` is the offer's total hourly cost, GPUs plus the **storage** charge for the
  disk size of the search (hence 6.252083333333333), so it sits a little above ``dph_base``;
  it is read as "community" like ``dph_base`` (the projection has no other price; no
  ``min_bid``, so no "interruptible_bid" rows), in its own stream "marketplace_projected"
  so that it never stands in the row-count history of the live ``dph_base`` answers.
* The same buckets, medians and percentiles as above. Without ``id`` an exact duplicate line
  (19 in the recorded file: one machine listed twice, or two identical machines) cannot be
  told apart, so each line counts as one offer in ``offer_count`` and the percentiles.
* An item that is not an object, or a list whose objects carry no ``dph_total`` at all ->
  ParseError; a missing or non-positive ``dph_total`` -> Reject("zero_or_missing_price").

The VRAM appended to ambiguous names is the host-reported MiB / 1024, rounded and snapped to
the marketed size when within 6 % of it (A100 39 936 MiB -> "A100 SXM4 40GB").
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from gpucost.catalog.memory import capacity_gb
from gpucost.catalog.parsing import GPU_COUNT_INVALID, raise_empty, read_gpu_count
from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "vast"
DEFAULT_URL = "https://console.vast.ai/api/v0/bundles/"
LIMIT = 10_000
STREAM = "marketplace"
QUERY: dict[str, Any] = {
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "num_gpus": {"gte": 1},
    "order": [["score", "desc"]],
    "limit": LIMIT,
}
# GPU models Vast lists under one name in several memory sizes: the VRAM joins the name.
_VRAM_IN_NAME = re.compile(r"^(?:Tesla\s+)?(?:A100|A800|V100|A30)\b", re.I)


def quantile(values: Sequence[float], p: float) -> float:
    """Linear interpolation between order statistics (type 7, numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("quantile of no values")
    pos = p * (len(ordered) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


PROJECTED_STREAM = "marketplace_projected"
# marketed VRAM sizes (GB) of the models that carry it in their label
_MARKETED_GB = (16, 24, 32, 40, 48, 80, 96, 141)


def _offers(payload: Payload) -> tuple[list[Any], str]:
    """The offers and the price field they are read by (dph_base live, dph_total projected)."""
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"vast {payload.name}: not valid JSON ({exc})") from exc
    if isinstance(doc, list):
        if not all(isinstance(o, dict) for o in doc):
            raise ParseError(f"vast {payload.name}: JSON list whose items are not all offers")
        if doc and not any("dph_total" in o for o in doc):
            raise ParseError(f"vast {payload.name}: JSON list of offers without 'dph_total'")
        return doc, "dph_total"
    offers = doc.get("offers") if isinstance(doc, dict) else None
    if not isinstance(offers, list):
        raise ParseError(f"vast {payload.name}: JSON without an 'offers' list")
    return offers, "dph_base"


def gpu_label(name: str, gpu_ram_mib: float | None) -> str:
    """The Vast GPU name, with the VRAM appended where the name alone is ambiguous."""
    name = " ".join(name.split())
    if gpu_ram_mib and gpu_ram_mib > 0 and _VRAM_IN_NAME.match(name):
        gb = round(gpu_ram_mib / 1024)
        gb = next((m for m in _MARKETED_GB if abs(gb - m) <= 0.06 * m), gb)
        return f"{name} {gb}GB"
    return name


def offer_available(offer: dict[str, Any]) -> bool | None:
    """Whether one Vast offer can be launched now (module docstring): True, False or None
    (neither ``rentable`` nor ``rented`` stated)."""
    rentable, rented = offer.get("rentable"), offer.get("rented")
    if rented is True or rentable is False:
        return False
    return True if rentable is True else None


def bucket_available(states: Sequence[bool | None]) -> bool | None:
    """A bucket: True when any offer can be launched now, False when offers say they cannot
    and none can, None when no offer states it."""
    if any(s is True for s in states):
        return True
    return False if any(s is False for s in states) else None


def parse(payload: Payload) -> ParseResult:
    offers, price_field = _offers(payload)
    result = ParseResult(stream=STREAM if price_field == "dph_base" else PROJECTED_STREAM)
    buckets: dict[tuple[str, float], dict[str, list[float]]] = defaultdict(
        lambda: {"base": [], "bid": [], "vram": []})
    stock: dict[tuple[str, float], list[bool | None]] = defaultdict(list)
    for offer in offers:
        if not isinstance(offer, dict):
            continue
        raw = json.dumps(offer, sort_keys=True)[:2000]
        name = str(offer.get("gpu_name") or "").strip()
        count, why = read_gpu_count(offer.get("num_gpus"), fractions=True)
        if why:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"offer {offer.get('id')}: {why}",
                                         raw))
            continue
        if not name or count is None:
            result.rejects.append(Reject("gpu_unknown", f"offer {offer.get('id')}", raw))
            continue
        if offer.get("rentable") is False:
            result.rejects.append(Reject("not_rentable", f"offer {offer.get('id')}", raw))
            continue
        base = _number(offer.get(price_field))
        if base is None or base <= 0:
            result.rejects.append(Reject(
                "zero_or_missing_price",
                f"offer {offer.get('id')} {name}: {price_field} {offer.get(price_field)!r}",
                raw))
            continue
        ram = _number(offer.get("gpu_ram"))
        bucket = buckets[(gpu_label(name, ram), count)]
        bucket["base"].append(base)
        stock[(gpu_label(name, ram), count)].append(offer_available(offer))
        bid = _number(offer.get("min_bid"))
        if bid is not None and bid > 0:
            bucket["bid"].append(bid)
        if ram and ram > 0:
            bucket["vram"].append(capacity_gb(ram))
    for (label, count), values in sorted(buckets.items()):
        vram = round(quantile(values["vram"], 0.5), 1) if values["vram"] else None
        for model, prices in (("community", values["base"]),
                              ("interruptible_bid", values["bid"])):
            if not prices:
                continue
            result.prices.append(PriceObservation(
                provider="vast", sku=f"{count:g}x {label}", region="", pricing_model=model,
                price_per_hour=round(quantile(prices, 0.5), 6), gpu_name_raw=label,
                gpu_count=count, gpu_memory_gb=vram, offer_count=len(prices),
                price_p10_per_hour=round(quantile(prices, 0.1), 6),
                price_p90_per_hour=round(quantile(prices, 0.9), 6),
                available=bucket_available(stock[(label, count)]),
            ))
    if not result.prices:
        raise_empty(result, f"vast {payload.name}: no priced offer", f"{len(offers)} offers")
    return result


def _parts(ctx: FetchContext) -> list[Part]:
    return [Part(NAME, ctx.url(), "bundles.json", "json", method="POST", json_body=QUERY)]


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    description="Vast.ai marketplace offers (bundles search API), aggregated per GPU",
)
