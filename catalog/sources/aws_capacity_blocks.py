"""AWS EC2 Capacity Blocks for ML: the price table of https://aws.amazon.com/ec2/capacityblocks/pricing/.

A Capacity Block reserves GPU instances for a fixed block of 1 to 182 days, booked ahead and
paid up front: pricing_model "capacity_block", neither on_demand nor a 1-/3-year reserved
term. price_per_hour is the price per **instance-hour** (the whole instance, USD), gpu_count
the accelerators of the instance; provider "aws" (the seller is AWS, the source is this
table), region the AWS region code, stream "capacity_blocks", payment None (a block is paid
up front by definition; the table states no payment options).

Two shapes of the same table are read (the parser tells them apart by the first byte):

* **The AWS page** (live, DEFAULT_URL, HTML): the page embeds its tables as
  ``<script type="application/json">`` blocks, ``{"data": {"items": [{"fields": {"jsonData":
  "<JSON text>"}}]}}``; a jsonData whose ``heading`` names "Pricing" holds ``table.
  rowDefinitions`` (``id`` -> ``label``, the instance type) and ``table.items`` (``idProperty``
  -> the row, ``"2"`` the region's name, ``"3"`` the price text ``"$31.464 USD ($3.933
  USD)"``: per instance-hour, then per accelerator-hour). The region name is mapped to its
  code (_REGION_CODES; a name not in it -> Reject("region_unknown")), the accelerator and its
  count come from the instance type (aws.INSTANCE_GPUS plus _EXTRA_INSTANCES; an instance
  type in neither -> Reject("gpu_count_unknown")). No date on the page: observed_at is the
  fetch time.
* **The recorded table** (../shared/data/prices/aws_capacity_blocks/, a scheduled scraper's
  JSON of that page, github.com/koyakimu/ec2-capacity-blocks-for-ml-pricing-json):
  ``{"metadata": {"last_updated", ...}, "instance_types": {"<type>": {"instance_family",
  "accelerator_type", "accelerator_count", "pricing": [{"region", "region_code",
  "hourly_rate_usd", "accelerator_hourly_rate_usd"}]}}}``. ParseResult.observed_at is
  ``metadata.last_updated`` (the rates move between versions of the page: every value keeps
  the date it was read; a payload without it is ParseError).

Traps (../shared/data/prices/aws_capacity_blocks/README.md), handled in both shapes:

* **UltraServers** (``u-p6e-gb200x72``, ``u-p6e-gb200x36``: 72 / 36 GB200 sold whole) print a
  single figure, the **per-GPU** rate (10.582), with no per-accelerator figure (0.0 in the
  JSON): price_per_hour = that rate x the GPU count (72 x 10.582 = 761.904 USD per
  UltraServer-hour), price_kind "shape_per_gpu" (a per-GPU list price multiplied out to the
  only shape sold). Another type with a single figure and more than one accelerator is
  ambiguous -> Reject("per_gpu_figure_ambiguous").
* **Per-GPU consistency**: where both figures are printed, the per-accelerator figure must
  equal the instance figure / accelerator count to within 0.5 % (the page rounds to three
  decimals: 49.749 / 8 = 6.2186 against 6.219); otherwise Reject("per_gpu_mismatch"), the
  row not loaded.
* **Local Zones and GovCloud** (``us-east-1-dfw-2a``, ``us-gov-west-1``) are regions of their
  own at their own prices: the region code is kept as given, never folded into its parent
  region.
* Not every type is in every region: only the rows printed are offers.
* A price of 0 or none -> Reject("zero_or_missing_price") (unknown, never free); the same
  (type, region) twice -> the cheaper kept, the other Reject("duplicate_offer").

A document of neither shape -> ParseError; a table without one accepted row ->
EmptyPayloadError.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from gpucost.catalog.parsing import CheapestOffers
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.aws import INSTANCE_GPUS
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "aws_capacity_blocks"
DEFAULT_URL = "https://aws.amazon.com/ec2/capacityblocks/pricing/"
STREAM = "capacity_blocks"
PER_GPU_TOLERANCE = 0.005  # relative: the page rounds both figures to three decimals

# instance types of the Capacity Blocks table that aws.INSTANCE_GPUS (the EC2 price list's
# instance types) does not list: the UltraServers (sold whole, 72 / 36 GB200) and the
# one-device Trainium2 size (AWS Trn2 instance page)
_EXTRA_INSTANCES: dict[str, tuple[str, float]] = {
    "u-p6e-gb200x72": ("GB200", 72), "u-p6e-gb200x36": ("GB200", 36),
    "trn2.3xlarge": ("Trainium2", 1),
}
_ULTRASERVER = "u-"

# the region names the page prints -> region codes (AWS "Regions and Zones"; the Local Zone
# as the page spells it); GovCloud regions are regions of their own
_REGION_CODES = {
    "US East (N. Virginia)": "us-east-1", "US East (Ohio)": "us-east-2",
    "US West (N. California)": "us-west-1", "US West (Oregon)": "us-west-2",
    "Africa (Cape Town)": "af-south-1", "Asia Pacific (Hong Kong)": "ap-east-1",
    "Asia Pacific (Hyderabad)": "ap-south-2", "Asia Pacific (Jakarta)": "ap-southeast-3",
    "Asia Pacific (Melbourne)": "ap-southeast-4", "Australia (Melbourne)": "ap-southeast-4",
    "Asia Pacific (Mumbai)": "ap-south-1", "Asia Pacific (Osaka)": "ap-northeast-3",
    "Asia Pacific (Seoul)": "ap-northeast-2", "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2", "Australia (Sydney)": "ap-southeast-2",
    "Asia Pacific (Tokyo)": "ap-northeast-1", "Canada (Central)": "ca-central-1",
    "Canada West (Calgary)": "ca-west-1", "Europe (Frankfurt)": "eu-central-1",
    "Europe (Ireland)": "eu-west-1", "Europe (London)": "eu-west-2",
    "Europe (Milan)": "eu-south-1", "Europe (Paris)": "eu-west-3",
    "Europe (Spain)": "eu-south-2", "Europe (Stockholm)": "eu-north-1",
    "Europe (Zurich)": "eu-central-2", "Israel (Tel Aviv)": "il-central-1",
    "Middle East (Bahrain)": "me-south-1", "Middle East (UAE)": "me-central-1",
    "South America (Sao Paulo)": "sa-east-1", "South America (São Paulo)": "sa-east-1",
    "AWS GovCloud (US-West)": "us-gov-west-1", "AWS GovCloud (US-East)": "us-gov-east-1",
    "Dallas Local Zone (US East N. Virginia)": "us-east-1-dfw-2a",
    "US West (Dallas Local Zone)": "us-west-2-dal-1a",
}
_SCRIPT = re.compile(rb'<script[^>]*type="application/json"[^>]*>(.*?)</script>', re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_USD = re.compile(r"\$\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*USD", re.I)


def parse(payload: Payload) -> ParseResult:
    head = payload.content[:64].lstrip()
    if head.startswith(b"{"):
        return _parse_table_json(payload)
    return _parse_page(payload)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _raw(*parts: object) -> str:
    return " | ".join(str(p) for p in parts)[:2000]


def _gpus(instance: str) -> tuple[str, float] | None:
    found = INSTANCE_GPUS.get(instance) or _EXTRA_INSTANCES.get(instance)
    return (found[0], float(found[1])) if found else None


def _offer(offers: CheapestOffers, instance: str, region: str, gpu_name: str,
           count: float, figure: float | None, per_gpu: float | None, raw: str) -> None:
    """One capacity-block offer from the instance figure and the per-accelerator figure
    (None or 0: not printed), with the README's traps."""
    where = f"{instance} {region}"
    if figure is None or figure <= 0:
        offers.reject("zero_or_missing_price", f"{where}: hourly rate {figure!r}", raw)
        return
    if count <= 0 or count != int(count):
        offers.reject("gpu_count_unknown", f"{where}: accelerator count {count!r}", raw)
        return
    kind = "instance"
    if not per_gpu:
        if instance.startswith(_ULTRASERVER):
            # the single figure of an UltraServer is its per-GPU rate (README)
            figure, per_gpu, kind = round(figure * count, 6), figure, "shape_per_gpu"
        elif count != 1:
            offers.reject("per_gpu_figure_ambiguous",
                          f"{where}: one figure {figure} for {count:g} accelerators", raw)
            return
    elif abs(figure / count - per_gpu) > PER_GPU_TOLERANCE * per_gpu:
        offers.reject("per_gpu_mismatch", f"{where}: {figure} / {count:g} = "
                      f"{figure / count:.4f} against {per_gpu} per accelerator", raw)
        return
    offers.add(PriceObservation(
        provider="aws", sku=instance, region=region, pricing_model="capacity_block",
        price_per_hour=figure, gpu_name_raw=gpu_name, gpu_count=count, price_kind=kind,
    ), raw)


def _parse_table_json(payload: Payload) -> ParseResult:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ParseError(f"aws_capacity_blocks {payload.name}: not valid JSON "
                         f"({type(exc).__name__})") from exc
    types = doc.get("instance_types") if isinstance(doc, dict) else None
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    if not isinstance(types, dict) or not isinstance(meta, dict):
        raise ParseError(f"aws_capacity_blocks {payload.name}: no known Capacity Blocks table "
                         "(a JSON object with metadata and instance_types)")
    try:
        updated = datetime.fromisoformat(str(meta.get("last_updated")).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ParseError(f"aws_capacity_blocks {payload.name}: metadata.last_updated "
                         f"{meta.get('last_updated')!r} is not a date") from exc
    result = ParseResult(stream=STREAM, observed_at=updated if updated.tzinfo
                         else updated.replace(tzinfo=UTC))
    offers = CheapestOffers(result)
    for instance, entry in types.items():
        if not isinstance(entry, dict):
            offers.reject("malformed_row", f"{instance}: not an object", _raw(instance, entry))
            continue
        known = _gpus(instance)
        count = _number(entry.get("accelerator_count")) or (known[1] if known else 0.0)
        gpu_name = known[0] if known else str(entry.get("accelerator_type") or instance)
        for row in entry.get("pricing") or []:
            if not isinstance(row, dict):
                continue
            region = str(row.get("region_code") or "").strip()
            raw = _raw(instance, json.dumps(row, sort_keys=True))
            if not region or region == "unknown":
                offers.reject("region_unknown", f"{instance}: region {row.get('region')!r}"
                              " has no code", raw)
                continue
            _offer(offers, instance, region, gpu_name, count,
                   _number(row.get("hourly_rate_usd")),
                   _number(row.get("accelerator_hourly_rate_usd")), raw)
    return offers.finish(f"aws_capacity_blocks {payload.name}: Capacity Blocks table without"
                         " an accepted price", f"{len(types)} instance types")


def _page_tables(content: bytes) -> list[dict]:
    """The embedded pricing tables of the AWS page (jsonData whose heading names Pricing)."""
    tables = []
    for block in _SCRIPT.findall(content):
        try:
            outer = json.loads(block)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        items = (outer.get("data") or {}).get("items") if isinstance(outer, dict) else None
        for item in items if isinstance(items, list) else []:
            text = ((item or {}).get("fields") or {}).get("jsonData") \
                if isinstance(item, dict) else None
            if not isinstance(text, str):
                continue
            try:
                table = json.loads(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(table, dict) and "pricing" in str(table.get("heading", "")).lower() \
                    and isinstance(table.get("table"), dict):
                tables.append(table)
    return tables


def _page_prices(text: str) -> tuple[float | None, float | None]:
    """(instance figure, per-accelerator figure) of "$31.464 USD ($3.933 USD)"."""
    figures = [float(m.group("n").replace(",", "")) for m in _USD.finditer(text)]
    return (figures[0] if figures else None, figures[1] if len(figures) > 1 else None)


def _parse_page(payload: Payload) -> ParseResult:
    tables = _page_tables(payload.content)
    if not tables:
        raise ParseError(f"aws_capacity_blocks {payload.name}: no known Capacity Blocks pricing "
                         "layout (no embedded pricing table)")
    result = ParseResult(stream=STREAM)
    offers = CheapestOffers(result)
    for table in tables:
        body = table["table"]
        labels = {str(r.get("id")): str(r.get("label") or "").strip()
                  for r in body.get("rowDefinitions") or [] if isinstance(r, dict)}
        for item in body.get("items") or []:
            if not isinstance(item, dict):
                continue
            instance = labels.get(str(item.get("idProperty")), "")
            region_name = " ".join(_TAG.sub(" ", str(item.get("2") or "")).split())
            price_text = " ".join(_TAG.sub(" ", str(item.get("3") or "")).split())
            raw = _raw(instance, region_name, price_text)
            if not instance:
                offers.reject("malformed_row", "a row without its instance type", raw)
                continue
            region = _REGION_CODES.get(region_name)
            if region is None:
                offers.reject("region_unknown", f"{instance}: region {region_name!r}", raw)
                continue
            known = _gpus(instance)
            if known is None:
                offers.reject("gpu_count_unknown", f"{instance}: not a known instance type",
                              raw)
                continue
            figure, per_gpu = _page_prices(price_text)
            _offer(offers, instance, region, known[0], known[1], figure, per_gpu, raw)
    return offers.finish(f"aws_capacity_blocks {payload.name}: Capacity Blocks pricing layout "
                         "found but no priced row")


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="AWS EC2 Capacity Blocks for ML: price per instance-hour of a block booked "
                "ahead (the pricing page's embedded tables)",
)
