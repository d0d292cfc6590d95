"""Curated public GPU price tables, kept as a CROSS-CHECK of first-hand sources.

Two human-maintained tables (typed in by people, often stale; never ground truth):

* Full Stack Deep Learning "Cloud GPUs" CSV (MIT), stream "fullstack": columns
  ``Cloud,GPU Type,GPU Arch,GPUs,GPU RAM,vCPUs,RAM,On-demand,Per-GPU,Spot,Name``;
  ``On-demand`` and ``Spot`` are USD per hour for the instance, ``Per-GPU`` = On-demand /
  GPUs, ``GPU Type`` embeds the memory ("A100 (80 GB)"), ``Name`` is the provider's instance
  name (may be empty), vCPUs/RAM may be ranges ("20-26": unknown); a ``GPUs`` cell that is
  no whole count (inf, 0, -1, 1.5, text) -> Reject("gpu_count_invalid"). Live: DEFAULT_URL
  (override GPUCOST_SOURCE_URL_CROSSCHECK).
* cloud-gpus.com ``cloud_gpu.json`` (archived), stream "cloud-gpus": ``{"data": [provider,
  ...]}``, one key per GPU model (``costh100``, ``costa100_80``, ...) whose value is a
  per-GPU-hour price string ("$3.06", "€2.10") or "-" (not offered); the set of keys grows
  over time, so every ``cost*`` key is read (none is assumed). Live: CLOUD_GPUS_URL
  (override GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS).

Each table is fetched on its own (one failing keeps the other); once a host is unreachable,
the other table on the same host is not tried (UnreachableError "not tried: ...").

Rows: source "crosscheck", provider = the provider's name normalised to our provider ids
(PROVIDER_IDS, else lowercase letters and digits), region "", pricing_model on_demand (and
spot from the FSDL ``Spot`` column), price_per_hour for the instance (cloud-gpus.com: one
GPU). sku = the FSDL instance name, else ``<n>x <GPU Type>``; cloud-gpus.com: the JSON key.
gpu_name_raw = the table's GPU spelling ("H100 (80 GB)", the cloud-gpus.com key
``costh100``). A currency symbol other than "$" is kept as that currency (EUR for "€").
"-" / empty -> not offered (skipped); an unreadable or zero price ->
Reject("zero_or_missing_price").

The models never let these rows override a first-hand price: gpu_offers flags them
(source_kind "crosscheck"), they are kept out of the price bases of the cost marts and out
of gpu_prices' statistics, and the mart price_crosscheck compares them with the first-hand
price of the same provider and accelerator.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from gpucost.catalog.names import name_key
from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "crosscheck"
DEFAULT_URL = ("https://raw.githubusercontent.com/the-full-stack/the-full-stack-website/main/"
               "docs/cloud-gpus/cloud-gpus.csv")
CLOUD_GPUS_URL = ("https://raw.githubusercontent.com/cloud-gpus/cloud-gpus.github.io/main/"
                  "cloud_gpu.json")

# provider names of the tables -> our provider ids (where they differ from a plain slug)
PROVIDER_IDS = {
    "amazon aws": "aws", "aws": "aws", "google cloud": "gcp", "gcp": "gcp",
    "microsoft azure": "azure", "azure": "azure", "lambda": "lambda",
    "lambda cloud": "lambda", "lambda labs": "lambda",
    # the provider ids the curated reference prices already use: oracle, datacrunch
    "oracle cloud": "oracle", "oci": "oracle", "oracle": "oracle",
    "datacrunch": "datacrunch", "datacrunch.io": "datacrunch", "verda": "datacrunch",
    "vast.ai": "vast", "runpod": "runpod", "jarvis labs": "jarvislabs",
    "jarvislabs": "jarvislabs", "cudo compute": "cudo", "latitude.sh": "latitude",
    "crusoe cloud": "crusoe", "saladcloud": "salad", "salad": "salad",
    "ori global cloud": "ori", "oblivus cloud": "oblivus", "genesis cloud": "genesiscloud",
    "shakti cloud": "shakti", "massed compute": "massedcompute", "digitalocean": "digitalocean",
    "atlantic.net": "atlanticnet", "runc.ai": "runc", "ovhcloud": "ovhcloud",
    "fluidstack": "fluidstack", "paperspace": "paperspace", "coreweave": "coreweave",
    "hyperstack": "hyperstack", "nebius": "nebius", "vultr": "vultr", "tensordock": "tensordock",
}
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR"}
_PRICE = re.compile(
    r"^(?P<symbol>[^\d\s.,-]*)\s*(?P<value>\d[\d,]*(?:\.\d+)?)\s*(?P<code>[A-Z]{3})?$"
)
_NOT_OFFERED = {"", "-", "—", "n/a", "na", "none", "null"}



def provider_id(name: str) -> str:
    key = " ".join(name.split()).lower()
    return PROVIDER_IDS.get(key) or name_key(key)


def _parts(ctx: FetchContext) -> list[Part]:
    """Both tables; the second has its own override, GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS."""
    return [Part("fullstack", ctx.url(), "cloud-gpus.csv", "csv"),
            Part("cloud-gpus", ctx.url("cloudgpus", CLOUD_GPUS_URL), "cloud_gpu.json", "json")]


def parse_price(text: Any) -> tuple[float, str] | None:
    """("$3.06" -> (3.06, "USD"), "€2.10" -> (2.1, "EUR"), "4.40" -> (4.4, "USD")) or None."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return (float(text), "USD") if text > 0 else None
    m = _PRICE.match(" ".join(str(text or "").split()))
    if not m:
        return None
    value = float(m.group("value").replace(",", ""))
    currency = m.group("code") or _CURRENCY.get(m.group("symbol"), "USD" if not m.group(
        "symbol") else "")
    if value <= 0 or not currency:
        return None
    return value, currency


def parse(payload: Payload) -> ParseResult:
    head = payload.content.lstrip()[:1]
    if head in (b"{", b"["):
        return _parse_cloud_gpus(payload)
    return _parse_fullstack(payload)


def _count(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if value > 0 else None


def _parse_fullstack(payload: Payload) -> ParseResult:
    try:
        text = payload.content.decode("utf-8-sig")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        reader.fieldnames = header
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ParseError(f"crosscheck {payload.name}: unreadable CSV ({exc})") from exc
    missing = {"Cloud", "GPU Type", "GPUs", "On-demand"} - set(header)
    if missing:
        raise ParseError(f"crosscheck {payload.name}: not the FSDL table, lacks"
                         f" {sorted(missing)}")
    result = ParseResult(stream="fullstack")
    offers = CheapestOffers(result)
    for row in rows:
        raw = ",".join(f"{k}={v}" for k, v in row.items() if v)[:2000]
        cloud, gpu = (row.get("Cloud") or "").strip(), " ".join((row.get("GPU Type") or "").split())
        count, why = read_gpu_count(row.get("GPUs"))
        if why:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{cloud} {gpu}: {why}", raw))
            continue
        if not cloud or not gpu or count is None:
            result.rejects.append(Reject("unreadable_row", "no cloud, GPU type or GPU count",
                                         raw))
            continue
        sku = (row.get("Name") or "").strip() or f"{count:g}x {gpu}"
        on_demand = parse_price(row.get("On-demand"))
        if on_demand is None and (per_gpu := parse_price(row.get("Per-GPU"))):
            on_demand = (per_gpu[0] * count, per_gpu[1])
        for model, price in (("on_demand", on_demand), ("spot", parse_price(row.get("Spot")))):
            if price is None:
                if model == "on_demand":
                    result.rejects.append(Reject(
                        "zero_or_missing_price", f"{cloud} {sku}: On-demand"
                        f" {row.get('On-demand')!r}", raw))
                continue
            obs = PriceObservation(
                provider=provider_id(cloud), sku=sku, region="", pricing_model=model,
                price_per_hour=round(price[0], 6), currency=price[1], gpu_name_raw=gpu,
                gpu_count=count, vcpus=_count(row.get("vCPUs")), ram_gb=_count(row.get("RAM")),
            )
            offers.add(obs, raw)
    return offers.finish(f"crosscheck {payload.name}: no priced row", f"{len(rows)} rows")


def _parse_cloud_gpus(payload: Payload) -> ParseResult:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"crosscheck {payload.name}: not valid JSON ({exc})") from exc
    providers = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(providers, list):
        raise ParseError(f"crosscheck {payload.name}: JSON without a 'data' list")
    result = ParseResult(stream="cloud-gpus")
    offers = CheapestOffers(result)
    for entry in providers:
        if not isinstance(entry, dict) or not str(entry.get("name") or "").strip():
            continue
        provider = provider_id(str(entry["name"]))
        for key, value in entry.items():
            if not key.startswith("cost") or key == "cost":
                continue
            if value is None or str(value).strip().lower() in _NOT_OFFERED:
                continue
            price = parse_price(value)
            if price is None:
                result.rejects.append(Reject(
                    "zero_or_missing_price", f"{entry['name']} {key}: {value!r}",
                    f"name={entry['name']},{key}={value}"))
                continue
            obs = PriceObservation(
                provider=provider, sku=key, region="", pricing_model="on_demand",
                price_per_hour=price[0], currency=price[1], gpu_name_raw=key, gpu_count=1.0,
            )
            offers.add(obs, f"name={entry['name']},{key}={value}")
    return offers.finish(f"crosscheck {payload.name}: no price",
                         f"{len(providers)} providers")


SOURCE = Source(
    name=NAME, kind="prices", authority="curated", default_url=DEFAULT_URL, parse=parse,
    parts=_parts,
    description="hand-kept multi-provider price tables (FSDL, cloud-gpus.com): comparison only",
)
