"""gpuhunt's published per-provider catalogs (dstack): providers we do not scrape directly.

Live fetch, per provider in PROVIDERS (v3 layout, public S3 bucket, base URL overridable
with GPUCOST_SOURCE_URL_GPUHUNT): ``<base>/v3/<provider>/version`` (a text file written last
by gpuhunt's CI, so it never names a catalog not yet uploaded), then
``<base>/v3/<provider>/<version>/catalog.zip``; one Payload per provider named
``<provider>/<version>/catalog.zip``, saved verbatim. A provider that fails is logged and
returned by ``fetch_each`` while the others load.

Parse (one catalog = one provider = one stream):

* the zip holds one CSV, ``<provider>.csv`` (a bare CSV payload is accepted too; the
  provider then comes from the payload name); gpuhunt provider names map to ours
  (lambdalabs -> lambda, verda -> datacrunch, oci -> oracle, vastai -> vast);
* CSV v2/v3 columns, read by header name: instance_name, location, price (USD per hour for
  the whole instance), cpu, memory, gpu_count, gpu_name, gpu_memory (GB per GPU), spot
  (True/False), disk_size, gpu_vendor, flags, cpu_arch, provider_data;
* rows without GPUs (gpu_count 0 or empty: CPU instances) are skipped; a gpu_count that is
  no count (inf, -1, 1.5, text; a slice below one GPU is one) ->
  Reject("gpu_count_invalid"); price 0 or empty -> Reject("zero_or_missing_price"); a
  malformed row -> Reject("unreadable_row");
* pricing_model: spot True -> "spot"; RunPod rows priced for a community-cloud country
  (a two-letter location; secure-cloud rows carry a data-centre id such as "EU-RO-1")
  -> "community"; else "on_demand";
* sku = instance_name, region = location, gpu_name_raw = gpuhunt's GPU name with the
  per-GPU memory appended for models sold in several sizes ("A100 80GB"); an instance name
  that the catalog uses for several GPU counts (Nebius platforms, RunPod GPU types) gets the
  count in front ("8x gpu-h100-sxm"), so offers of different sizes stay apart; for RunPod
  the instance name is RunPod's GPU type id ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe")
  and becomes gpu_name_raw, since gpuhunt's "H100" names both the PCIe and the SXM card;
* the same (sku, region, pricing model) twice keeps the lowest price, the others become
  Reject("duplicate_offer").

gpuhunt's hand-transcribed GCP TPU price table (``resources/tpu_pricing.json``:
``{"TPU v6e": {"us-east1": {"On Demand (USD)": 2.7, "Spot (USD)": 1.89, ...}}}``, USD per
chip-hour) is parsed too: provider "gcp", sku = gpu_name_raw = the TPU name, gpu_count 1
(one chip), region = the GCP region, stream "gcp_tpu_table".

A zip without a CSV, a CSV without the price/instance columns, or JSON of another shape ->
ParseError; nothing accepted -> EmptyPayloadError.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from gpucost.catalog.parsing import (
    GPU_COUNT_INVALID,
    CheapestOffers,
    read_gpu_count,
    read_zip_member,
)
from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sizes import provider_size_count, retired_size
from gpucost.catalog.sources.base import FetchContext, FetchError, Part, Source

NAME = "gpuhunt"
DEFAULT_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com"
# gpuhunt's offline providers (collected hourly by its CI into published catalogs)
PROVIDERS: tuple[str, ...] = (
    "nebius", "verda", "cloudrift", "oci", "lambdalabs", "runpod", "gcp", "azure", "aws",
)
# gpuhunt provider names -> ours (the ids the curated reference prices use: oracle, datacrunch;
# Verda is DataCrunch renamed)
PROVIDER_OF = {
    "lambdalabs": "lambda", "verda": "datacrunch", "vastai": "vast", "oci": "oracle",
}
MAX_CSV_BYTES = 256 * 1024 * 1024  # uncompressed size cap of the CSV inside a catalog zip
_VRAM_IN_NAME = re.compile(r"^(?:A100|A800|V100|A30)$", re.I)
_COUNTRY = re.compile(r"^[A-Z]{2}$")
_NAME_PROVIDER = re.compile(r"(?:^|/)(?:gpuhunt[_-])?(?P<provider>[a-z]+)(?:/|[_.-])")
_TPU_PRICES = {"On Demand (USD)": "on_demand", "Spot (USD)": "spot"}



def _parts(ctx: FetchContext) -> Iterator[Part]:
    """Each provider's current catalog.zip, named by its version file."""
    base = ctx.url().rstrip("/")
    for provider in PROVIDERS:
        if not ctx.selected(provider):
            continue
        try:
            version = ctx.get(f"{base}/v3/{provider}/version", name="version", ext="txt")
        except FetchError as exc:
            ctx.fail(provider, exc)
            continue
        tag = version.content.decode("ascii", "replace").strip()
        if not re.fullmatch(r"[0-9A-Za-z._-]{1,64}", tag):
            ctx.fail(provider, FetchError(f"gpuhunt: {provider} version file holds {tag[:40]!r}"))
            continue
        yield Part(provider, f"{base}/v3/{provider}/{tag}/catalog.zip",
                   f"{provider}/{tag}/catalog.zip", "zip")


# -- parse ----------------------------------------------------------------------------------

def _provider_from_name(text: str) -> str | None:
    m = _NAME_PROVIDER.search(text or "")
    return m.group("provider") if m else None


def _open_catalog(payload: Payload) -> tuple[str, str]:
    """(gpuhunt provider name, CSV text) of a catalog payload (zip or bare CSV)."""
    content = payload.content
    if content[:2] == b"PK":
        try:
            archive = zipfile.ZipFile(io.BytesIO(content))
        except zipfile.BadZipFile as exc:
            raise ParseError(f"gpuhunt {payload.name}: not a readable zip ({exc})") from exc
        members = [i for i in archive.infolist() if i.filename.endswith(".csv")]
        if not members:
            raise ParseError(f"gpuhunt {payload.name}: the zip holds no CSV")
        member = members[0]
        provider = PurePosixPath(member.filename).stem
        raw = read_zip_member(archive, member, f"gpuhunt {payload.name}", MAX_CSV_BYTES)
    else:
        provider = _provider_from_name(payload.name) or _provider_from_name(payload.url) or ""
        raw = content
    if not provider:
        raise ParseError(f"gpuhunt {payload.name}: cannot tell the provider")
    try:
        return provider, raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"gpuhunt {payload.name}: not UTF-8 text ({exc})") from exc


def parse(payload: Payload) -> ParseResult:
    head = payload.content.lstrip()[:1]
    if head == b"{":
        return _parse_tpu_table(payload)
    gpuhunt_provider, text = _open_catalog(payload)
    provider = PROVIDER_OF.get(gpuhunt_provider, gpuhunt_provider)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        reader.fieldnames = header
        rows = list(reader)
    except csv.Error as exc:
        raise ParseError(f"gpuhunt {payload.name}: malformed CSV ({exc})") from exc
    missing = {"instance_name", "price", "gpu_count"} - set(header)
    if missing:
        raise ParseError(f"gpuhunt {payload.name}: CSV lacks column(s) {sorted(missing)}")
    result = ParseResult(stream=provider)
    counts: dict[str, set[str]] = {}
    for row in rows:
        counts.setdefault((row.get("instance_name") or "").strip(), set()).add(
            (row.get("gpu_count") or "").strip())
    shared = {name for name, seen in counts.items() if len(seen) > 1}
    offers = CheapestOffers(result)
    for row in rows:
        obs = _row(row, provider, result, count_in_sku=(row.get("instance_name") or "").strip()
                   in shared)
        if obs is not None:
            offers.add(obs, _raw(row))
    offers.finish(f"gpuhunt {payload.name}: no GPU offer with a price", f"{len(rows)} rows")
    return result


def _raw(row: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in row.items() if v and k != "provider_data")[:2000]


def _num(text: Any) -> float | None:
    try:
        value = float(str(text).strip())
    except (TypeError, ValueError):
        return None
    return value if value == value else None


def _row(
    row: dict[str, str], provider: str, result: ParseResult, *, count_in_sku: bool = False,
) -> PriceObservation | None:
    if _num(row.get("gpu_count")) == 0 or not (row.get("gpu_count") or "").strip():
        return None  # a CPU instance
    sku = (row.get("instance_name") or "").strip()
    gpu = (row.get("gpu_name") or "").strip()
    # a slice below one GPU is a count (Azure partitions); inf, -1, 1.5 or text is not
    count, why = read_gpu_count(row.get("gpu_count"), fractions=True)
    if count is None:
        result.rejects.append(Reject(GPU_COUNT_INVALID, f"{sku} {gpu}: {why}", _raw(row)))
        return None
    if not sku:
        result.rejects.append(Reject("unreadable_row", "no instance name", _raw(row)))
        return None
    region = (row.get("location") or "").strip()
    if retired_size(provider, sku):
        result.rejects.append(Reject("retired_promo_size", f"{sku}: a retired promotional size",
                                     _raw(row)))
        return None
    price = _num(row.get("price"))
    if price is None or price <= 0:
        result.rejects.append(Reject("zero_or_missing_price",
                                     f"{sku} {region}: price {row.get('price')!r}", _raw(row)))
        return None
    memory = _num(row.get("gpu_memory"))
    spot = (row.get("spot") or "").strip().lower() == "true"
    if spot:
        model = "spot"
    elif provider == "runpod" and _COUNTRY.match(region):
        model = "community"
    else:
        model = "on_demand"
    name = gpu or None
    if provider == "runpod":
        name = sku  # RunPod's GPU type id ("NVIDIA H100 80GB HBM3"): keeps PCIe / SXM apart
    elif name and memory and _VRAM_IN_NAME.match(name):
        name = f"{name} {memory:g}GB"
    known = provider_size_count(provider, sku)
    if known is not None and known > 0:
        count = known  # the provider's own size table (Azure partitions), not the catalog's
    if count_in_sku:
        sku = f"{count:g}x {sku}"
    return PriceObservation(
        provider=provider, sku=sku, region=region, pricing_model=model, price_per_hour=price,
        gpu_name_raw=name, gpu_count=count, gpu_memory_gb=memory,
        vcpus=_num(row.get("cpu")), ram_gb=_num(row.get("memory")),
    )


def _parse_tpu_table(payload: Payload) -> ParseResult:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"gpuhunt {payload.name}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict) or not any(str(k).startswith("TPU") for k in doc):
        raise ParseError(f"gpuhunt {payload.name}: JSON is not gpuhunt's TPU price table")
    result = ParseResult(stream="gcp_tpu_table")
    for tpu, regions in doc.items():
        if not isinstance(regions, dict):
            continue
        for region, entry in regions.items():
            if not isinstance(entry, dict):
                continue
            for column, model in _TPU_PRICES.items():
                if column not in entry:
                    continue
                price = _num(entry.get(column))
                if price is None or price <= 0:
                    result.rejects.append(Reject(
                        "zero_or_missing_price", f"{tpu} {region} {column}: {entry[column]!r}",
                        json.dumps(entry)[:2000]))
                    continue
                result.prices.append(PriceObservation(
                    provider="gcp", sku=tpu, region=region, pricing_model=model,
                    price_per_hour=price, gpu_name_raw=tpu, gpu_count=1.0,
                ))
    if not result.prices:
        raise EmptyPayloadError(f"gpuhunt {payload.name}: TPU table without a price")
    return result


SOURCE = Source(
    name=NAME, kind="prices", authority="catalog", default_url=DEFAULT_URL, parse=parse,
    parts=_parts,
    description="gpuhunt's published provider catalogs (dstack), one zip per provider",
)
