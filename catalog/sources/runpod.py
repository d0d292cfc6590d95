"""RunPod's public pricing page (https://www.runpod.io/pricing): per-GPU hourly prices.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/runpod/);
structured data is preferred over visible text:

* 2026 JSON-LD: a ``<script type="application/ld+json">`` block whose ``@graph`` holds one
  schema.org ``Product`` per GPU ("H200 GPU on Runpod") with an ``AggregateOffer`` of two
  ``Offer`` s named "Community Cloud" and "Secure Cloud", prices as strings. ``lowPrice`` is
  not used (for L4 the Community price is above the Secure one), nor the page description
  (a marketing "from $1.99/hr" string that stays frozen for months).
* 2025 Webflow rows: the GPU name in ``<div data-gradient="text-secondary">``, tags
  "141 GB VRAM / 276 GB RAM / 24 vCPUs", and the prices only in the attributes
  ``data-secure-cloud-price`` / ``data-community-cloud-price`` of the price element (its
  visible text is a "0" filled in by JavaScript).

Secure Cloud and Community Cloud are different products, not on-demand vs spot: Secure ->
pricing_model "on_demand" (RunPod's own data centres), Community -> "community" (hosts of
the community marketplace). Neither is ever rewritten against the other.

Prices are per GPU-hour; one observation per GPU and tier with gpu_count 1 (the price of a
one-GPU pod), sku = gpu_name_raw = the GPU name without the " GPU on Runpod" suffix, region
"" (not regional), provider "runpod", stream "pricing_page". A zero, empty or missing price
-> Reject("zero_or_missing_price") (a tier without capacity shows a placeholder).
Zero-width characters are stripped. ParseResult.observed_at comes from the Wayback capture
comment of a recorded page, else None. A page with neither layout -> ParseError; a layout
without a priced row -> EmptyPayloadError.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from bs4 import BeautifulSoup, Tag
from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import (
    Source,
    keep_cheapest,
    raise_empty,
    read_html,
    wayback_capture_time,
)

NAME = "runpod"
DEFAULT_URL = "https://www.runpod.io/pricing"

STREAM = "pricing_page"
TIERS = {"secure": "on_demand", "community": "community"}
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_SUFFIX = re.compile(r"\s+GPU\s+on\s+Runpod\s*$", re.I)
_TAG = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<what>GB VRAM|GB RAM|vCPUs?)$", re.I)


def _clean(text: str) -> str:
    return " ".join(text.translate(_ZERO_WIDTH).split())


def _price(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        price = float(_clean(str(value)).lstrip("$").replace(",", ""))
    except ValueError:
        return None
    return price if price > 0 and price == price else None


def parse(payload: Payload) -> ParseResult:
    soup = read_html(payload)
    result = ParseResult(stream=STREAM, observed_at=wayback_capture_time(soup))
    products = _json_ld_products(soup, payload.name)
    price_nodes = soup.select("[data-secure-cloud-price], [data-community-cloud-price]")
    if not products and not price_nodes:
        raise ParseError(f"runpod {payload.name}: no known RunPod pricing layout")
    for product in products:
        _parse_product(product, result)
    if not products:  # the attribute layout only when no structured data is present
        for node in price_nodes:
            _parse_row(node, result)
    keep_cheapest(result)
    if not result.prices:
        raise_empty(result, f"runpod {payload.name}: pricing layout found but no priced GPU")
    return result


def _observation(name: str, model: str, price: float, **extra: float | None) -> PriceObservation:
    return PriceObservation(
        provider="runpod", sku=name, region="", pricing_model=model, price_per_hour=price,
        gpu_name_raw=name, gpu_count=1.0, **extra,
    )


# -- 2026: JSON-LD ---------------------------------------------------------------------------

def _json_ld_products(soup: BeautifulSoup, name: str) -> list[dict[str, Any]]:
    products: list[dict[str, Any]] = []
    for script in soup.find_all("script", attrs={"type": "application/ld+json"}):
        try:
            doc = json.loads(script.string or script.get_text() or "")
        except ValueError as exc:
            raise ParseError(f"runpod {name}: JSON-LD block is not valid JSON ({exc})") from exc
        stack: list[Any] = [doc]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(reversed(node))
            elif isinstance(node, dict):
                if node.get("@type") == "Product" and isinstance(node.get("offers"), dict):
                    products.append(node)
                elif "@graph" in node:
                    stack.append(node["@graph"])
    return products


def _parse_product(product: dict[str, Any], result: ParseResult) -> None:
    name = _SUFFIX.sub("", _clean(str(product.get("name") or "")))
    offers = product["offers"].get("offers")
    raw = json.dumps(product, sort_keys=True)[:2000]
    if not name or not isinstance(offers, list):
        result.rejects.append(Reject("unexpected_product_shape", name or "(no name)", raw))
        return
    aggregate_currency = str(product["offers"].get("priceCurrency") or "USD")
    for offer in offers:
        if not isinstance(offer, dict):
            continue
        tier_name = _clean(str(offer.get("name") or "")).lower()
        tier = next((t for t in TIERS if t in tier_name), None)
        if tier is None:
            result.rejects.append(Reject("unknown_tier", f"{name}: offer {tier_name!r}", raw))
            continue
        price = _price(offer.get("price"))
        if price is None:
            result.rejects.append(Reject(
                "zero_or_missing_price", f"{name} {tier}: price {offer.get('price')!r}", raw))
            continue
        currency = str(offer.get("priceCurrency") or aggregate_currency).upper()
        result.prices.append(replace(_observation(name, TIERS[tier], price), currency=currency))


# -- 2025: Webflow rows with data attributes -------------------------------------------------

def _row_name(node: Tag) -> str:
    name_node = node.find_previous(attrs={"data-gradient": "text-secondary"})
    return _clean(name_node.get_text(" ", strip=True)) if isinstance(name_node, Tag) else ""


def _row_tags(node: Tag, name_node: Tag | None) -> dict[str, float]:
    """VRAM / RAM / vCPU tags between the row's name and its price element."""
    tags: dict[str, float] = {}
    if name_node is None:
        return tags
    for tag in name_node.find_all_next(class_="gpu-pricing-row__tag"):
        if tag.find_previous(attrs={"data-gradient": "text-secondary"}) is not name_node:
            break
        m = _TAG.match(_clean(tag.get_text(" ", strip=True)))
        if m:
            tags[m.group("what").lower().rstrip("s")] = float(m.group("n"))
    return tags


def _parse_row(node: Tag, result: ParseResult) -> None:
    name_node = node.find_previous(attrs={"data-gradient": "text-secondary"})
    name = _row_name(node)
    raw = f"{name} | " + " ".join(f'{k}="{v}"' for k, v in node.attrs.items()
                                  if k.startswith("data-"))
    if not name:
        result.rejects.append(Reject("gpu_name_missing", "price element without a GPU name",
                                     raw))
        return
    tags = _row_tags(node, name_node if isinstance(name_node, Tag) else None)
    for tier, model in TIERS.items():
        attr = f"data-{tier}-cloud-price"
        if not node.has_attr(attr):
            continue
        price = _price(node.get(attr))
        if price is None:
            result.rejects.append(Reject(
                "zero_or_missing_price", f"{name} {tier}: {attr}={node.get(attr)!r}", raw))
            continue
        result.prices.append(_observation(
            name, model, price, gpu_memory_gb=tags.get("gb vram"), ram_gb=tags.get("gb ram"),
            vcpus=tags.get("vcpu"),
        ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html",
    description="RunPod's pricing page (JSON-LD products or data-attribute rows)",
)
