"""Shadeform's instance-types API: every cloud it resells, priced per instance, with stock.

``GET https://api.shadeform.ai/v1/instances/types`` with the header ``X-API-KEY: <key>``
(https://docs.shadeform.ai/api-reference/instances/instances-types). The key comes from
GPUCOST_SHADEFORM_API_KEY (catalog/secrets.py: registered for redaction, never logged); with
no key set the live fetch fails at once, before any request, with MissingApiKeyError (a
SourceError) naming that variable; `gpucost refresh` records it failed and publishes the
rest. No answer is recorded in ../shared/data; tests/fixtures/shadeform/instance_types.json
is one in the documented shape:

    {"instance_types": [{"cloud": "lambdalabs", "shade_instance_type": "H100_sxm5x8",
      "cloud_instance_type": "gpu_8x_h100_sxm5",
      "configuration": {"memory_in_gb", "storage_in_gb", "vcpus", "num_gpus", "gpu_type",
                        "interconnect", "nvlink", "os_options", "vram_per_gpu_in_gb"},
      "hourly_price": 2390, "deployment_type": "vm",
      "availability": [{"region": "us-east-1", "available": true, "display_name": "..."}],
      "boot_time": {...}}]}

Unit: ``hourly_price`` is an integer number of US cents per hour for the whole instance
("hourly_price integer: The hourly price of the instance in cents",
https://docs.shadeform.ai/api-reference/instances/instances-info, the same field in the
instance-types answer; SkyPilot's fetch_shadeform.py divides it by 100 the same way):
price_per_hour = hourly_price / 100 (2390 -> 23.90 USD/h).

Rows, one PriceObservation per instance type x region listed in ``availability``:

* provider "shadeform" (the seller the buyer pays), sku = ``<cloud>_<shade_instance_type>``
  spelt as SkyPilot's ``shadeform/vms.csv`` spells its InstanceType (``_`` -> ``-`` in the
  type; a trailing ``G`` and ``Gx`` get their ``B``), e.g. ``lambdalabs_H100-sxm5x8``. The
  underlying cloud is thus the sku's prefix, which the resale logic already reads
  (catalog/providers.csv: shadeform is an aggregator with sku_seller_regex ``^([a-z0-9]+)_``;
  models/macros/resold_from.sql; catalog/seller_names.csv maps lambdalabs -> lambda): the
  rows of this source and the SkyPilot ones resolve to the same seller and the same aliases.
* gpu_name_raw = ``configuration.gpu_type`` (as SkyPilot: ``_`` -> ``-``, a trailing ``G``
  -> ``GB``), gpu_count = ``num_gpus``, gpu_memory_gb = ``vram_per_gpu_in_gb`` (per GPU),
  vcpus, ram_gb = ``memory_in_gb``; pricing_model "on_demand"; stream "instance_types_api".
* region = the entry's ``region``; available = its ``available`` flag (True: launchable
  there now; False: listed, no capacity; a flag that is not a boolean -> None, not stated).
* an instance type whose ``availability`` list is empty -> one row with region "" and
  available False (priced, but no region can launch it now); a missing availability field
  (not a list) -> one row with region "" and available None (not stated).
* a zero, negative, missing or non-integer ``hourly_price`` -> Reject("zero_or_missing_price");
  a GPU count that is no count -> Reject("gpu_count_invalid"); a CPU-only type (num_gpus 0
  or absent) is skipped; JSON without an ``instance_types`` list -> ParseError; no accepted
  row -> EmptyPayloadError.
"""

from __future__ import annotations

import json
from typing import Any

from gpucost.catalog import secrets
from gpucost.catalog.pages import clean_text
from gpucost.catalog.parsing import GPU_COUNT_INVALID, finish_cheapest, read_gpu_count
from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
    SourceError,
)
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "shadeform"
DEFAULT_URL = "https://api.shadeform.ai/v1/instances/types"
STREAM = "instance_types_api"
KEY_VARIABLE = f"GPUCOST_{NAME.upper()}_API_KEY"


class MissingApiKeyError(SourceError):
    """The live fetch needs an API key and none is set (raised before any request)."""


def _parts(ctx: FetchContext) -> list[Part]:
    key = secrets.api_key(NAME)
    if key is None:
        raise MissingApiKeyError(f"{KEY_VARIABLE} is not set (Shadeform's API needs a key)")
    return [Part(NAME, ctx.url(), "instance_types.json", "json",
                 headers={"X-API-KEY": key})]


def skypilot_name(text: str) -> str:
    """A Shadeform name spelt as SkyPilot's fetch_shadeform.py writes it in vms.csv."""
    name = text.replace("_", "-")
    if name.endswith("G"):
        name += "B"
    return name.replace("Gx", "GBx")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _cents(value: Any) -> int | None:
    """hourly_price when it is a positive whole number of cents, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value <= 0 or value != int(value):  # NaN, <= 0, a fraction
        return None
    return int(value)


def _regions(entry: dict[str, Any]) -> list[tuple[str, bool | None]]:
    """(region, available) per listed region; ("", False) for an empty list, ("", None)
    when the list is missing."""
    listed = entry.get("availability")
    if not isinstance(listed, list):
        return [("", None)]
    out: list[tuple[str, bool | None]] = []
    for item in listed:
        if not isinstance(item, dict):
            continue
        flag = item.get("available")
        out.append((clean_text(str(item.get("region") or "")),
                    flag if isinstance(flag, bool) else None))
    return out or [("", False)]


def parse(payload: Payload) -> ParseResult:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ParseError(f"shadeform {payload.name}: not valid JSON ({exc})") from exc
    types = doc.get("instance_types") if isinstance(doc, dict) else None
    if not isinstance(types, list):
        raise ParseError(f"shadeform {payload.name}: JSON without an 'instance_types' list")
    result = ParseResult(stream=STREAM)
    for entry in types:
        if not isinstance(entry, dict):
            continue
        config = entry.get("configuration")
        config = config if isinstance(config, dict) else {}
        cloud = clean_text(str(entry.get("cloud") or "")).lower()
        shade_type = clean_text(str(entry.get("shade_instance_type") or ""))
        sku = f"{cloud}_{skypilot_name(shade_type)}"
        raw = json.dumps(entry, sort_keys=True)[:2000]
        if not config.get("num_gpus"):  # a CPU-only instance type
            continue
        count, why = read_gpu_count(config.get("num_gpus"))
        if count is None:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{sku}: {why}", raw))
            continue
        cents = _cents(entry.get("hourly_price"))
        if cents is None:
            result.rejects.append(Reject(
                "zero_or_missing_price", f"{sku}: hourly_price {entry.get('hourly_price')!r}",
                raw))
            continue
        gpu = skypilot_name(clean_text(str(config.get("gpu_type") or shade_type)))
        for region, available in _regions(entry):
            result.prices.append(PriceObservation(
                provider=NAME, sku=sku, region=region, pricing_model="on_demand",
                price_per_hour=round(cents / 100, 6), gpu_name_raw=gpu, gpu_count=count,
                gpu_memory_gb=_number(config.get("vram_per_gpu_in_gb")),
                vcpus=_number(config.get("vcpus")), ram_gb=_number(config.get("memory_in_gb")),
                available=available,
            ))
    return finish_cheapest(
        result, f"shadeform {payload.name}: instance-types answer without a priced GPU type",
        f"{len(types)} instance types")


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    needs_key=True,
    description="Shadeform's instance-types API (an API key needed): resold clouds' "
                "instances per region, with stock",
)
