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

The same source also reads RunPod's GraphQL API answer (chosen by the payload's shape: a
JSON object, not a page), ``POST https://api.runpod.io/graphql`` with
``{ gpuTypes { id displayName memoryInGb securePrice communityPrice } }``, answered as
``{"data": {"gpuTypes": [...]}}`` (recorded in
../shared/data/prices/provider_api/runpod/, undated):

* ``securePrice`` -> "on_demand", ``communityPrice`` -> "community", USD per GPU-hour (the
  same two products as on the page); one observation per GPU type and tier.
* sku = ``displayName`` (RunPod's label, "H100 SXM", as on the page), gpu_name_raw = ``id``
  (the device name, "NVIDIA H100 80GB HBM3", which tells SXM, PCIe and NVL apart),
  gpu_memory_gb = ``memoryInGb``, stream "graphql_gpu_types" (its own row-count history).
* A price of 0 means "not offered in that cloud" -> Reject("not_offered"), never free; a
  missing or non-numeric price -> Reject("zero_or_missing_price"); a price of exactly 0.5 is
  the API's placeholder (MI300X community 0.5 against secure 2.39, H200 NVL 0.5 against 3.79;
  twelve of them in the recorded answer) -> Reject("placeholder_price"), not published.
* MIG slices ("NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb") are fractional
  GPUs: gpu_count = the slice's memory / the whole card's ``memoryInGb`` (24/96 = 0.25), the
  whole card being the entry whose id is the part before " MIG"; price_per_hour is the
  slice's price. A slice whose card is not in the answer -> Reject("gpu_count_unknown").
* The ``"unknown"`` entry (id "unknown", prices 0) and entries without an id ->
  Reject("gpu_unknown").
* JSON that is not ``{"data": {"gpuTypes": [...]}}`` (a GraphQL ``errors`` answer, a
  truncated body) -> ParseError; no accepted price -> EmptyPayloadError.
* Stock (PriceObservation.available), per GPU type and cloud, where the answer states it.
  RunPod reports stock as ``lowestPrice(input: {gpuCount: 1, secureCloud: true|false})
  { stockStatus }`` ("High" | "Medium" | "Low" | null); a query asking for both clouds
  aliases the two blocks, and the parser reads them under the aliases ``secure`` and
  ``community`` (``{"secure": {"stockStatus": "High"}, "community": {"stockStatus":
  null}}``), each for its own tier (on_demand / community). Mapping: High, Medium or Low
  (any case) -> True (some stock: the pod can be launched now); a block present whose
  ``stockStatus`` is null, empty or "None" -> False (RunPod states no stock in that cloud:
  the console's "unavailable"); no block, a block that is not an object or an unknown word
  -> None (not stated). An un-aliased ``lowestPrice`` block names no cloud, so it is not
  read. The recorded answer (provider_api/runpod) asked for prices only: every row None.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import clean_text, node_text, read_page
from gpucost.catalog.parsing import GPU_COUNT_INVALID, finish_cheapest, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import Source

NAME = "runpod"
DEFAULT_URL = "https://www.runpod.io/pricing"

STREAM = "pricing_page"
TIERS = {"secure": "on_demand", "community": "community"}
_SUFFIX = re.compile(r"\s+GPU\s+on\s+Runpod\s*$", re.I)
_TAG = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<what>GB VRAM|GB RAM|vCPUs?)$", re.I)


def _price(value: Any) -> float | None:
    """A price held as data (a JSON-LD string, a data- attribute), not printed text, so not
    pages.first_price: the whole value is read by float() ("$" and commas dropped); None
    unless above 0."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        price = float(clean_text(str(value)).lstrip("$").replace(",", ""))
    except ValueError:
        return None
    return price if price > 0 and price == price else None


def parse(payload: Payload) -> ParseResult:
    if payload.content.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return parse_graphql(payload)
    soup, result = read_page(payload, STREAM)
    products = _json_ld_products(soup, payload.name)
    price_nodes = soup.select("[data-secure-cloud-price], [data-community-cloud-price]")
    if not products and not price_nodes:
        raise ParseError(f"runpod {payload.name}: no known RunPod pricing layout")
    for product in products:
        _parse_product(product, result)
    if not products:  # the attribute layout only when no structured data is present
        for node in price_nodes:
            _parse_row(node, result)
    return finish_cheapest(result, f"runpod {payload.name}: pricing layout found but no priced GPU")


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
    name = _SUFFIX.sub("", clean_text(str(product.get("name") or "")))
    offers = product["offers"].get("offers")
    raw = json.dumps(product, sort_keys=True)[:2000]
    if not name or not isinstance(offers, list):
        result.rejects.append(Reject("unexpected_product_shape", name or "(no name)", raw))
        return
    aggregate_currency = str(product["offers"].get("priceCurrency") or "USD")
    for offer in offers:
        if not isinstance(offer, dict):
            continue
        tier_name = clean_text(str(offer.get("name") or "")).lower()
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
    return node_text(name_node) if isinstance(name_node, Tag) else ""


def _row_tags(node: Tag, name_node: Tag | None) -> dict[str, float]:
    """VRAM / RAM / vCPU tags between the row's name and its price element."""
    tags: dict[str, float] = {}
    if name_node is None:
        return tags
    for tag in name_node.find_all_next(class_="gpu-pricing-row__tag"):
        if tag.find_previous(attrs={"data-gradient": "text-secondary"}) is not name_node:
            break
        m = _TAG.match(node_text(tag))
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


# -- GraphQL API: {"data": {"gpuTypes": [...]}} ------------------------------------------------

GRAPHQL_STREAM = "graphql_gpu_types"
GRAPHQL_TIERS = (("securePrice", "on_demand"), ("communityPrice", "community"))
PLACEHOLDER_PRICE = 0.5
# the aliased lowestPrice blocks that state each tier's stock (module docstring)
STOCK_BLOCKS = {"on_demand": "secure", "community": "community"}
STOCK_WORDS = {"high", "medium", "low"}
NO_STOCK_WORDS = {"", "none"}
_MIG = re.compile(r"^(?P<card>.+?)\s+MIG\s+(?P<slices>\d+)g\.(?P<gb>\d+(?:\.\d+)?)gb$", re.I)


def _gpu_types(payload: Payload) -> list[Any]:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"runpod {payload.name}: not valid JSON ({exc})") from exc
    data = doc.get("data") if isinstance(doc, dict) else None
    types = data.get("gpuTypes") if isinstance(data, dict) else None
    if not isinstance(types, list):
        errors = doc.get("errors") if isinstance(doc, dict) else None
        detail = f": errors {json.dumps(errors)[:200]}" if errors else ""
        raise ParseError(f"runpod {payload.name}: JSON without a data.gpuTypes list{detail}")
    return types


def _api_price(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        price = float(value)
    except ValueError:
        return None
    return price if price == price and price not in (float("inf"), float("-inf")) else None


def stock_status(entry: dict[str, Any], model: str) -> bool | None:
    """Whether the tier `model` of a gpuTypes entry can be launched now, as its aliased
    lowestPrice block states it: True (High / Medium / Low), False (stockStatus null or
    "None"), None (no block: not stated). See the module docstring."""
    block = entry.get(STOCK_BLOCKS[model])
    if not isinstance(block, dict) or "stockStatus" not in block:
        return None
    status = block["stockStatus"]
    if status is None:
        return False
    word = clean_text(str(status)).lower()
    if word in STOCK_WORDS:
        return True
    return False if word in NO_STOCK_WORDS else None


def parse_graphql(payload: Payload) -> ParseResult:
    """RunPod's GraphQL gpuTypes answer (see the module docstring)."""
    types = _gpu_types(payload)
    result = ParseResult(stream=GRAPHQL_STREAM)
    memory = {str(t.get("id")): t.get("memoryInGb") for t in types if isinstance(t, dict)}
    for entry in types:
        if not isinstance(entry, dict):
            continue
        raw = json.dumps(entry, sort_keys=True)[:2000]
        gpu_id = clean_text(str(entry.get("id") or ""))
        label = clean_text(str(entry.get("displayName") or "")) or gpu_id
        if not gpu_id or gpu_id.lower() == "unknown":
            result.rejects.append(Reject("gpu_unknown", f"gpu type {gpu_id or '(no id)'}", raw))
            continue
        count = 1.0
        mig = _MIG.match(gpu_id)
        if mig:
            card_memory = _api_price(memory.get(mig.group("card")))
            if not card_memory or card_memory <= 0:
                result.rejects.append(Reject(
                    "gpu_count_unknown", f"{gpu_id}: MIG slice of a card not in the answer", raw))
                continue
            count, why = read_gpu_count(round(float(mig.group("gb")) / card_memory, 6),
                                        fractions=True)
            if count is None:  # a "slice" larger than its card
                result.rejects.append(Reject(GPU_COUNT_INVALID, f"{gpu_id}: {why}", raw))
                continue
        gb = _api_price(entry.get("memoryInGb"))
        for field, model in GRAPHQL_TIERS:
            value = entry.get(field)
            price = _api_price(value)
            if price is None or price < 0:
                result.rejects.append(Reject(
                    "zero_or_missing_price", f"{label} {model}: {field} {value!r}", raw))
            elif price == 0:
                result.rejects.append(Reject(
                    "not_offered", f"{label} {model}: {field} 0 (not offered in that cloud)", raw))
            elif price == PLACEHOLDER_PRICE:
                result.rejects.append(Reject(
                    "placeholder_price",
                    f"{label} {model}: {field} {price:g}, the API's placeholder value", raw))
            else:
                result.prices.append(PriceObservation(
                    provider="runpod", sku=label, region="", pricing_model=model,
                    price_per_hour=price, gpu_name_raw=gpu_id, gpu_count=count,
                    gpu_memory_gb=gb if gb and gb > 0 else None,
                    available=stock_status(entry, model),
                ))
    return finish_cheapest(
        result, f"runpod {payload.name}: gpuTypes answer without an accepted price",
        f"{len(types)} gpu types")


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html",
    description="RunPod's pricing page (JSON-LD products or data-attribute rows)",
)
