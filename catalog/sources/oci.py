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
* only active, visible GPU shapes (gpuQty not 0 or absent) are priced; a gpuQty that is no
  whole count (Infinity, NaN, -1, 1.5, text) -> Reject("gpu_count_invalid"), that shape
  alone; on a GPU shape the "ocpu" part is
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

Oracle's price list API (cetools, ``GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/
products/?currencyCode=USD``; recorded in ``provider_api/oci/``, see its README): ``parse``
chooses the parser by the payload's shape: a zip -> the Cost Estimator parser above
(``parse_cost_estimator``); JSON whose ``items`` carry ``partNumber`` and ``serviceCategory``
-> ``parse_price_list``; anything else -> ParseError. The live fetch still fetches the
estimator zip; a price list payload is ingested (``gpucost ingest oci FILE.json``).

Price list parse: ``{"lastUpdated", "items": [{"partNumber", "displayName", "metricName",
"serviceCategory", "currencyCodeLocalizations": [{"currencyCode", "prices": [{"model",
"value"}]}]}]}``:

* the full list names every OCI part; only GPU items (``GPU`` in the displayName or the
  serviceCategory) are candidates, the others (CPU, storage, network...) are not offers of
  this source and are skipped, as the estimator parser skips CPU shapes;
* kept: ``serviceCategory == "Compute - GPU"`` and ``metricName == "GPU Per Hour"`` with one
  USD PAY_AS_YOU_GO price > 0; every other GPU item is a Reject:
  "Compute - GPU - Other" (H100T, B109480: another product than H100, its GPU and shape are
  not stated) -> "other_gpu_product"; Cloud@Customer, VMware, Roving Edge ->
  "not_public_cloud" (not public-cloud list prices); any other category -> "other_category";
  another metric ("Node Per
  Hour", "Resource Possession Per Day") -> "not_per_gpu_hour"; no single USD pay-as-you-go
  price -> "unexpected_price_data"; 0 -> "zero_or_missing_price";
* gpu_name_raw is read from the displayName (prefixes vary: "OCI - ", "OCI- ", "Oracle Cloud
  Infrastructure - ", none; runs of spaces are one): the segments after the "GPU" segment
  (" - " separated), "A100 - v2" -> "A100 v2" (BM.GPU.A100-v2.8, A100 80 GB SXM4: an oracle
  alias in catalog/aliases.csv). A shape generation without a GPU (X7, V2, E3, E4: "GPU
  Standard - X7", "GPU - E3") -> Reject("generation_only_name"), never guessed; no GPU
  segment -> Reject("no_gpu_name");
* one on_demand observation per part number, provider "oracle", region "" (list prices are
  global); no memory, vCPU or RAM figures (the payload has none). The price list prices ONE
  GPU per hour, but most parts are rented only as a whole bare-metal shape (WHOLE_SHAPES,
  from Oracle's compute shapes documentation): such a part is emitted as that shape, sku =
  the shape name (BM.GPU.H100.8), gpu_count = its GPUs, price_per_hour = GPUs x the per-GPU
  list price (BM.GPU.MI355X.8 = 8 x 8.60 = 68.80), price_kind "shape_per_gpu". A part
  Oracle also rents as a 1-GPU VM (A10: VM.GPU.A10.1), or one whose shape the documentation
  does not give (RTX PRO 6000), keeps its 1-GPU row: sku = the partNumber (B95909),
  gpu_count 1, price_kind "instance";
* ParseResult.observed_at = ``lastUpdated`` (UTC; None when absent or unreadable); stream
  "price_list" (per-GPU part prices: never compared with the estimator's shapes by the
  row-count guard). No GPU price kept -> EmptyPayloadError.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from datetime import UTC, datetime
from typing import Any

from gpucost.catalog.parsing import (
    GPU_COUNT_INVALID,
    CheapestOffers,
    raise_empty,
    read_gpu_count,
    read_zip_member,
)
from gpucost.catalog.records import (
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Source

NAME = "oci"
DEFAULT_URL = "https://www.oracle.com/a/ocom/docs/cloudestimator2/data"
STREAM = "cost_estimator"
PRICE_LIST_STREAM = "price_list"
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


def parse_cost_estimator(payload: Payload) -> ParseResult:
    shapes, products = _documents(payload)
    by_part = {str(p.get("partNumber")): p for p in products["items"] if isinstance(p, dict)}
    result = ParseResult(stream=STREAM)
    for shape in shapes["items"]:
        if not isinstance(shape, dict):
            continue
        name = str(shape.get("name") or "")
        stated = shape.get("gpuQty")
        if not name or stated is None or stated == 0:
            continue  # not a GPU shape
        if shape.get("hidden") or shape.get("status") != "ACTIVE":
            continue  # not on sale
        raw = json.dumps(shape, sort_keys=True)[:2000]
        gpus, why = read_gpu_count(stated)
        if gpus is None:  # Infinity, NaN, -1, 1.5, text: this shape alone is refused
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{name}: {why or 'no GPU count'}",
                                         raw))
            continue
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


# ---- the price list API (cetools) ------------------------------------------------------------

GPU_CATEGORY = "Compute - GPU"
GPU_METRIC = "GPU Per Hour"
_GPU_WORD = re.compile(r"\bGPU\b", re.IGNORECASE)
_SEGMENT_SEP = re.compile(r"\s*-\s+|\s+-\s*")  # " - ", "- ", " -": never a hyphen in a word
_NOT_PUBLIC_CLOUD = re.compile(r"Cloud@Customer|VMware|Roving Edge", re.IGNORECASE)
_GENERATION = re.compile(r"[A-Z]\d", re.IGNORECASE)  # X7, V2, E3, E4: a shape generation

# Parts Oracle rents only as a whole shape: the price list's GPU name -> (shape, GPUs in it).
# Oracle Cloud Infrastructure documentation, Compute Shapes, "Bare Metal Shapes: GPU Shapes"
# and "Virtual Machine (VM) Shapes: GPU Shapes"
# (https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm):
#   shape              GPUs  also a VM shape?
#   BM.GPU.A100-v2.8   8     no (A100 80 GB; the 40 GB BM.GPU4.8 is another part)
#   BM.GPU.L40S.4      4     no
#   BM.GPU.H100.8      8     no
#   BM.GPU.H200.8      8     no
#   BM.GPU.B200.8      8     no
#   BM.GPU.B300.8      8     no (newer than the documentation copy read; Oracle's HPC stack
#                               (oracle-quickstart oci-hpc) names BM.GPU.B300.8)
#   BM.GPU.GB200.4     4     no (a 4-GPU tray of a GB200 NVL72 rack)
#   BM.GPU.GB300.4     4     no (a 4-GPU tray of a GB300 NVL72 rack)
#   BM.GPU.MI300X.8    8     no
#   BM.GPU.MI355X.8    8     no
#   BM.GPU.A10.4       4     yes: VM.GPU.A10.1 / VM.GPU.A10.2 -> A10 keeps its 1-GPU row
WHOLE_SHAPES: dict[str, tuple[str, int]] = {
    "A100 v2": ("BM.GPU.A100-v2.8", 8),
    "L40S": ("BM.GPU.L40S.4", 4),
    "H100": ("BM.GPU.H100.8", 8),
    "H200": ("BM.GPU.H200.8", 8),
    "B200": ("BM.GPU.B200.8", 8),
    "B300": ("BM.GPU.B300.8", 8),
    "GB200": ("BM.GPU.GB200.4", 4),
    "GB300": ("BM.GPU.GB300.4", 4),
    "MI300X": ("BM.GPU.MI300X.8", 8),
    "MI355X": ("BM.GPU.MI355X.8", 8),
}


def _price_list(payload: Payload) -> dict[str, Any] | None:
    """The price list document, or None when the payload is not one."""
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        return None
    if any(isinstance(i, dict) and "partNumber" in i and "serviceCategory" in i
           for i in doc["items"]):
        return doc
    return None


def _stated_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def gpu_name_of_product(display_name: str) -> str | None:
    """The GPU a price list item names, as written after its "GPU" segment:
    "OCI- Compute - GPU - MI355X" -> MI355X, "Compute - GPU - A100 - v2" -> "A100 v2";
    a generation name ("Compute - GPU Standard - V2") is returned as it is ("V2": the caller
    refuses it); None when no GPU is named."""
    segments = [s for s in _SEGMENT_SEP.split(" ".join(display_name.split())) if s]
    upper = [s.upper() for s in segments]
    if "GPU" in upper:
        name = " ".join(segments[upper.index("GPU") + 1:])
        return name or None
    if segments and _GENERATION.fullmatch(segments[-1]) and _GPU_WORD.search(display_name):
        return segments[-1]
    return None


def _usd_payg(item: dict[str, Any]) -> float | None:
    """The one USD pay-as-you-go price of an item (None: absent, several, not a number)."""
    prices = [p for l10n in item.get("currencyCodeLocalizations") or []
              if isinstance(l10n, dict) and l10n.get("currencyCode") == "USD"
              for p in l10n.get("prices") or []
              if isinstance(p, dict) and p.get("model") == "PAY_AS_YOU_GO"]
    if len(prices) != 1:
        return None
    value = prices[0].get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        price = float(value)
    except (TypeError, ValueError):
        return None
    return price if math.isfinite(price) else None


def parse_price_list(payload: Payload, doc: dict[str, Any] | None = None) -> ParseResult:
    """Per-GPU list prices of OCI's price list API (cetools products): see the module doc."""
    doc = doc if doc is not None else _price_list(payload)
    if doc is None:
        raise ParseError(f"oci {payload.name}: not a price list (JSON with 'items' of "
                         "partNumber / serviceCategory)")
    result = ParseResult(stream=PRICE_LIST_STREAM, observed_at=_stated_time(doc.get("lastUpdated")))
    offers = CheapestOffers(result)
    n_gpu = 0
    for item in doc["items"]:
        if not isinstance(item, dict):
            continue
        part = str(item.get("partNumber") or "").strip()
        name = " ".join(str(item.get("displayName") or "").split())
        category = " ".join(str(item.get("serviceCategory") or "").split())
        metric = " ".join(str(item.get("metricName") or "").split())
        if not (_GPU_WORD.search(name) or _GPU_WORD.search(category)):
            continue  # not a GPU item (CPU, storage, network...): not an offer of this source
        n_gpu += 1
        raw = json.dumps(item, sort_keys=True, default=str)[:2000]
        label = f"{part or '(no partNumber)'} {name!r}"
        if category != GPU_CATEGORY:
            if category == f"{GPU_CATEGORY} - Other":
                offers.reject("other_gpu_product",
                              f"{label}: category {category!r}, another product than the "
                              "public GPU shapes; its GPU is not stated (not guessed)", raw)
            elif _NOT_PUBLIC_CLOUD.search(category) or _NOT_PUBLIC_CLOUD.search(name):
                offers.reject("not_public_cloud",
                              f"{label}: category {category!r} is not a public-cloud GPU "
                              "list price", raw)
            else:
                offers.reject("other_category",
                              f"{label}: category {category!r}, not {GPU_CATEGORY!r}", raw)
            continue
        if metric != GPU_METRIC:
            offers.reject("not_per_gpu_hour", f"{label}: metric {metric!r}, not {GPU_METRIC!r}",
                          raw)
            continue
        price = _usd_payg(item)
        if price is None or not part:
            offers.reject("unexpected_price_data",
                          f"{label}: no partNumber or no single USD PAY_AS_YOU_GO price", raw)
            continue
        if price <= 0:
            offers.reject("zero_or_missing_price", f"{label}: {price}", raw)
            continue
        gpu = gpu_name_of_product(name)
        if gpu is None:
            offers.reject("no_gpu_name", f"{label}: the displayName names no GPU", raw)
            continue
        if _GENERATION.fullmatch(gpu):
            offers.reject("generation_only_name",
                          f"{label}: {gpu!r} is a shape generation, not a GPU; the price list "
                          "does not say which GPU it prices (not guessed)", raw)
            continue
        shape = WHOLE_SHAPES.get(gpu)
        if shape is not None:  # a per-GPU list price of a shape rented only whole
            name_of_shape, gpus = shape
            offers.add(PriceObservation(
                provider="oracle", sku=name_of_shape, region="", pricing_model="on_demand",
                price_per_hour=round(gpus * price, 6), gpu_name_raw=gpu, gpu_count=float(gpus),
                price_kind="shape_per_gpu",
            ), raw)
            continue
        offers.add(PriceObservation(
            provider="oracle", sku=part, region="", pricing_model="on_demand",
            price_per_hour=round(price, 6), gpu_name_raw=gpu, gpu_count=1.0,
        ), raw)
    return offers.finish(f"oci {payload.name}: no per-GPU-hour public-cloud GPU price",
                         f"{len(doc['items'])} items, {n_gpu} GPU items")


def parse(payload: Payload) -> ParseResult:
    """A zip: the Cost Estimator's shapes + products; JSON with price list items: the price
    list API; anything else: ParseError."""
    if payload.content[:2] == b"PK":
        return parse_cost_estimator(payload)
    doc = _price_list(payload)
    if doc is None:
        raise ParseError(f"oci {payload.name}: expected a zip of {', '.join(DOCUMENTS)} (Cost "
                         "Estimator) or a price list (JSON with 'items' of partNumber / "
                         "serviceCategory)")
    return parse_price_list(payload, doc)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, walk=_walk,
    description="Oracle Cloud cost estimator: GPU shapes and their USD prices",
)
