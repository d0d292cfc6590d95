"""Oracle Cloud (OCI) GPU shape prices from Oracle's public Cost Estimator data.

Live fetch: two JSON documents of the estimator
(``https://www.oracle.com/a/ocom/docs/cloudestimator2/data/<resource>``, base overridable
with GPUCOST_SOURCE_URL_OCI): ``shapes.json`` (every compute shape with its bundled
products) and ``products.json`` (the price of every part number). A shape's price needs
both, so one fetch yields ONE payload ``cost_estimator.zip``: a zip holding the two responses
verbatim as ``shapes.json`` and ``products.json``.

Parse:

* shapes: ``items`` with ``name`` (``BM.GPU.H100.8``), ``hidden``, ``status``,
  ``shapeType.value`` (vm / bm), ``subType.value`` (gpu, standard, ...), ``gpuQty``,
  ``gpuMemoryQty`` (GB, all GPUs), ``bundleMemoryQty``, ``processorType.value`` and
  ``products``: ``[{"type": {"value": "ocpu" | "memory"}, "partNumber", "qty"}]``;
* products: ``items`` with ``partNumber``, ``billingModel`` ("UCM"), ``pricetype``
  ("HOUR") and ``currencyCodeLocalizations``: ``[{"currencyCode", "prices": [{"model":
  "PAY_AS_YOU_GO", "value"}]}]``;
* only active, visible GPU shapes (gpuQty > 0) are priced: on a GPU shape the "ocpu" part is
  priced per GPU (x gpuQty); a "memory" part adds its price x qty; any other part type, a
  missing part, a non-hourly or non-pay-as-you-go price -> Reject("unexpected_price_data");
  a USD total of 0 -> Reject("zero_or_missing_price");
* one on_demand observation per shape in USD, provider "oracle" (the estimator's other
  currency localisations are conversions of the same list price and are not emitted);
  region "" (OCI lists the
  same price in every region); gpu_name_raw = the shape's GPU token ("H100", "A10",
  "MI300X"; GPU4 -> A100 40GB, GPU3 -> V100, GPU2 -> P100, ``BM.GPU.A100-v2.8`` -> A100
  80GB); gpu_memory_gb = gpuMemoryQty / gpuQty; preemptible capacity is priced by OCI as a
  fixed 50 % of on-demand, a rule rather than a quote, so no spot row is emitted.

A zip without both documents or JSON of another shape -> ParseError; no priced GPU shape ->
EmptyPayloadError. Stream "cost_estimator".
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import Any

from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Source, raise_empty, read_zip_member

NAME = "oci"
DEFAULT_URL = "https://www.oracle.com/a/ocom/docs/cloudestimator2/data"
STREAM = "cost_estimator"
DOCUMENTS = ("shapes.json", "products.json")
_LEGACY_GPU = {"GPU4": "A100 40GB", "GPU3": "V100", "GPU2": "P100"}


def _walk(ctx: FetchContext) -> list[Payload]:
    """The estimator's two documents, stored as one zip (both are needed to parse)."""
    base = ctx.url().rstrip("/")
    parts = [ctx.get(f"{base}/{doc}", name=doc, ext="json") for doc in DOCUMENTS]
    buffer = io.BytesIO()
    # fixed timestamps: the same two responses always make the same zip bytes (same sha256)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for part in parts:
            archive.writestr(zipfile.ZipInfo(part.name, date_time=(1980, 1, 1, 0, 0, 0)),
                             part.content)
    return [Payload(name="cost_estimator.zip", content=buffer.getvalue(), url=parts[0].url,
                    content_type="application/zip", http_status=parts[0].http_status,
                    ext="zip")]


def gpu_name_of_shape(shape: str) -> str | None:
    """The GPU token of an OCI shape name: BM.GPU.H100.8 -> H100, VM.GPU3.1 -> V100."""
    parts = re.split(r"[.]", shape.upper())
    for token, name in _LEGACY_GPU.items():
        if token in parts:
            return name
    if "GPU" in parts and parts.index("GPU") + 1 < len(parts):
        token = parts[parts.index("GPU") + 1]
        if token == "A100-V2":
            return "A100 80GB"
        return token.split("-")[0] or None
    return None


def _documents(payload: Payload) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload.content))
        docs = {name: json.loads(read_zip_member(archive, name, f"oci {payload.name}"))
                for name in DOCUMENTS}
    except (zipfile.BadZipFile, KeyError, ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"oci {payload.name}: expected a zip of {', '.join(DOCUMENTS)}"
                         f" ({type(exc).__name__}: {exc})") from exc
    shapes, products = docs["shapes.json"], docs["products.json"]
    for doc_name, doc in (("shapes.json", shapes), ("products.json", products)):
        if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
            raise ParseError(f"oci {payload.name}: {doc_name} has no 'items' list")
    return shapes, products


def _usd_hourly(product: dict[str, Any]) -> float | None:
    if product.get("billingModel") != "UCM" or product.get("pricetype") != "HOUR":
        return None
    for l10n in product.get("currencyCodeLocalizations") or []:
        if isinstance(l10n, dict) and l10n.get("currencyCode") == "USD":
            prices = [p for p in l10n.get("prices") or []
                      if isinstance(p, dict) and p.get("model") == "PAY_AS_YOU_GO"]
            if len(prices) == 1:
                try:
                    return float(prices[0]["value"])
                except (KeyError, TypeError, ValueError):
                    return None
    return None


def _value(node: Any) -> str:
    return str(node.get("value") if isinstance(node, dict) else node or "")


def parse(payload: Payload) -> ParseResult:
    shapes, products = _documents(payload)
    by_part = {str(p.get("partNumber")): p for p in products["items"] if isinstance(p, dict)}
    result = ParseResult(stream=STREAM)
    for shape in shapes["items"]:
        if not isinstance(shape, dict):
            continue
        name = str(shape.get("name") or "")
        gpus = shape.get("gpuQty")
        if not name or not isinstance(gpus, (int, float)) or gpus <= 0:
            continue  # not a GPU shape
        if shape.get("hidden") or shape.get("status") != "ACTIVE":
            continue  # not on sale
        raw = json.dumps(shape, sort_keys=True)[:2000]
        total = 0.0
        problem = None
        for part in shape.get("products") or []:
            kind = _value(part.get("type")) if isinstance(part, dict) else ""
            product = by_part.get(str(part.get("partNumber"))) if isinstance(part, dict) else None
            price = _usd_hourly(product) if product else None
            if kind not in ("ocpu", "memory") or price is None:
                problem = f"part {part!r}: type {kind!r}, hourly USD price {price!r}"
                break
            qty = gpus if kind == "ocpu" else float(part.get("qty") or 0)
            total += price * qty
        else:
            if not shape.get("products"):
                problem = "no priced part"
        if problem:
            result.rejects.append(Reject("unexpected_price_data", f"{name}: {problem}", raw))
            continue
        if total <= 0:
            result.rejects.append(Reject("zero_or_missing_price", f"{name}: total {total}", raw))
            continue
        memory = shape.get("gpuMemoryQty")
        result.prices.append(PriceObservation(
            provider="oracle", sku=name, region="", pricing_model="on_demand",
            price_per_hour=round(total, 6), gpu_name_raw=gpu_name_of_shape(name),
            gpu_count=float(gpus),
            gpu_memory_gb=float(memory) / gpus if isinstance(memory, (int, float)) and memory
            else None,
            ram_gb=float(shape["bundleMemoryQty"]) if isinstance(
                shape.get("bundleMemoryQty"), (int, float)) else None,
        ))
    if not result.prices:
        raise_empty(result, f"oci {payload.name}: no priced GPU shape",
                    f"{len(shapes['items'])} shapes")
    return result


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, walk=_walk,
    description="Oracle Cloud cost estimator: GPU shapes and their USD prices",
)
