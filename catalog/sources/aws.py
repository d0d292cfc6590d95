"""AWS EC2 GPU instance prices from the public Price List Bulk API (no credentials).

Live fetch walks three levels of the bulk API (every URL relative to the offer index, whose
address is overridable with GPUCOST_SOURCE_URL_AWS):

1. the offer index ``/offers/v1.0/aws/index.json`` -> ``offers.AmazonEC2.currentRegionIndexUrl``;
2. the EC2 region index ``/offers/v1.0/aws/AmazonEC2/current/region_index.json`` ->
   ``regions.<code>.currentVersionUrl`` (a JSON offer file; its ``.csv`` twin is fetched);
3. the regional offer file ``/offers/v1.0/aws/AmazonEC2/<version>/<region>/index.csv`` for
   every region in REGIONS, one Payload per region (``<region>/index.csv``).

The index files only navigate and are not returned as payloads. Regional files are large
(hundreds of MB), hence the MAX_BYTES cap; a region that fails is logged and skipped
(``fetch_each`` returns its error) while the others load.

Parse, offer-file CSV (5-line preamble: FormatVersion, Disclaimer, Publication Date,
Version, OfferCode; the header on line 6; all fields quoted). A cheap per-line pre-filter
keeps only lines naming an instance of a GPU / accelerator family (INSTANCE_GPUS: p2, p3,
p3dn, p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, p6e-gb200, g3, g4dn, g4ad, g5, g5g, g6,
g6e, g6f, gr6, gr6f, trn1, trn1n, trn2, inf1, inf2, dl1, dl2q) before CSV parsing. Kept
rows, one PriceObservation per instance type x region x pricing model:

* ``on_demand``: TermType OnDemand, Product Family "Compute Instance*", Tenancy Shared,
  Operating System Linux, Pre Installed S/W NA (or empty), CapacityStatus Used, Unit Hrs,
  MarketOption OnDemand (or empty). Windows/RHEL/SUSE/..., Dedicated/Host tenancy, capacity
  reservation rows (Unused/Allocated) and pre-installed software are other products of the
  same SKU and are skipped (not what this source is for).
* ``reserved_1y`` / ``reserved_3y``: TermType Reserved with the same product filters,
  OfferingClass standard (convertible terms are another product, not read), LeaseContractLength
  1yr / 3yr, and ``payment`` from PurchaseOption: "No Upfront" -> no_upfront, "Partial
  Upfront" -> partial_upfront, "All Upfront" -> all_upfront. A term is priced by up to two
  rows: Unit Hrs (the hourly fee; 0 for All Upfront) and Unit Quantity ("Upfront Fee": paid
  once). price_per_hour is the per-hour equivalent over the whole term: upfront fee / hours in
  the term + hourly fee, a year counted as 365 x 24 = 8,760 hours (HOURS_PER_YEAR; 26,280 for
  3yr): p5.48xlarge 1yr All Upfront 310,000 / 8,760 + 0 = 35.388128. A term without an
  hourly row, or with neither fee above 0 -> Reject("zero_or_missing_price"). The three
  payment options of one term are one offer (instance x region x reserved_1y): the cheapest
  per-hour equivalent is kept with its payment, the others are Reject("duplicate_offer").
* price_per_hour = PricePerUnit (whole instance) in its Currency (China regions: CNY, kept
  with their currency); 0 or empty -> Reject("zero_or_missing_price") (unknown, not free).
* GPU name and count from INSTANCE_GPUS (the price list's ``GPU`` column is fractional or
  missing for some families and absent for Neuron devices), falling back to the ``GPU``
  column for a size not in the table; a GPU-family row with neither ->
  Reject("gpu_count_unknown"), a GPU column that is no count (1.5) ->
  Reject("gpu_count_invalid"). g6f / gr6f are fractional L4 slices (gpu_count < 1: flagged
  by the marts, kept out of per-GPU statistics).
* region = ``Region Code`` (else the ``Location`` text); stream = the sorted region codes.

Parse, daily price history CSV (``timestamp,instance,price_usd``; e.g. a scheduled
``GetProducts`` job): one on_demand observation per instance and UTC day (the last non-empty
price of that day), each with its own ``observed_at``; empty prices ->
Reject("zero_or_missing_price"); other rows of the same day -> Reject("duplicate_offer").
Rows may be unsorted and mix date-only and ISO datetime forms (naive = UTC). The region comes
from the file name (``p5.48xlarge_us-east-1_ondemand_history.csv``), else ParseError; stream
``history/<region>/<instances>``; ParseResult.observed_at = the newest row.

An index JSON handed to parse -> EmptyPayloadError (it holds no prices); an offer file
without a GPU row that passes the filters -> EmptyPayloadError.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import urljoin

from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import (
    EmptyPayloadError,
    FetchError,
    ParseError,
    ParseResult,
    Payload,
    PriceObservation,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "aws"
DEFAULT_URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/index.json"
REGIONS: tuple[str, ...] = ("us-east-1", "us-east-2", "us-west-2")
MAX_BYTES = 2 * 1024 * 1024 * 1024  # a regional EC2 offer file is several hundred MB


# instance type -> (accelerator name, accelerators per instance). Sources: the AWS EC2
# accelerated-computing instance type pages (per family); fractions are GPU slices.
INSTANCE_GPUS: dict[str, tuple[str, float]] = {
    # P2 (K80), P3 (V100 16GB SXM2), P3dn (V100 32GB SXM2)
    "p2.xlarge": ("K80", 1), "p2.8xlarge": ("K80", 8), "p2.16xlarge": ("K80", 16),
    "p3.2xlarge": ("V100", 1), "p3.8xlarge": ("V100", 4), "p3.16xlarge": ("V100", 8),
    "p3dn.24xlarge": ("V100 32GB", 8),
    # P4d (A100 40GB), P4de (A100 80GB)
    "p4d.24xlarge": ("A100", 8), "p4de.24xlarge": ("A100 80GB", 8),
    # P5 (H100), P5e / P5en (H200), P6 (B200, B300), P6e (GB200)
    "p5.4xlarge": ("H100", 1), "p5.48xlarge": ("H100", 8),
    "p5e.48xlarge": ("H200", 8), "p5en.48xlarge": ("H200", 8),
    "p6-b200.48xlarge": ("B200", 8), "p6-b300.48xlarge": ("B300", 8),
    "p6e-gb200.36xlarge": ("GB200", 4),
    # G3 (M60), G4dn (T4), G4ad (Radeon Pro V520), G5 (A10G), G5g (T4G)
    "g3s.xlarge": ("M60", 1), "g3.4xlarge": ("M60", 1), "g3.8xlarge": ("M60", 2),
    "g3.16xlarge": ("M60", 4),
    "g4dn.xlarge": ("T4", 1), "g4dn.2xlarge": ("T4", 1), "g4dn.4xlarge": ("T4", 1),
    "g4dn.8xlarge": ("T4", 1), "g4dn.16xlarge": ("T4", 1), "g4dn.12xlarge": ("T4", 4),
    "g4dn.metal": ("T4", 8),
    "g4ad.xlarge": ("Radeon Pro V520", 1), "g4ad.2xlarge": ("Radeon Pro V520", 1),
    "g4ad.4xlarge": ("Radeon Pro V520", 1), "g4ad.8xlarge": ("Radeon Pro V520", 2),
    "g4ad.16xlarge": ("Radeon Pro V520", 4),
    "g5.xlarge": ("A10G", 1), "g5.2xlarge": ("A10G", 1), "g5.4xlarge": ("A10G", 1),
    "g5.8xlarge": ("A10G", 1), "g5.16xlarge": ("A10G", 1), "g5.12xlarge": ("A10G", 4),
    "g5.24xlarge": ("A10G", 4), "g5.48xlarge": ("A10G", 8),
    "g5g.xlarge": ("T4G", 1), "g5g.2xlarge": ("T4G", 1), "g5g.4xlarge": ("T4G", 1),
    "g5g.8xlarge": ("T4G", 1), "g5g.16xlarge": ("T4G", 2), "g5g.metal": ("T4G", 2),
    # G6 / Gr6 (L4), G6e (L40S), G6f / Gr6f (fractional L4)
    "g6.xlarge": ("L4", 1), "g6.2xlarge": ("L4", 1), "g6.4xlarge": ("L4", 1),
    "g6.8xlarge": ("L4", 1), "g6.16xlarge": ("L4", 1), "g6.12xlarge": ("L4", 4),
    "g6.24xlarge": ("L4", 4), "g6.48xlarge": ("L4", 8),
    "gr6.4xlarge": ("L4", 1), "gr6.8xlarge": ("L4", 1),
    "g6e.xlarge": ("L40S", 1), "g6e.2xlarge": ("L40S", 1), "g6e.4xlarge": ("L40S", 1),
    "g6e.8xlarge": ("L40S", 1), "g6e.16xlarge": ("L40S", 1), "g6e.12xlarge": ("L40S", 4),
    "g6e.24xlarge": ("L40S", 4), "g6e.48xlarge": ("L40S", 8),
    "g6f.large": ("L4", 1 / 8), "g6f.xlarge": ("L4", 1 / 8), "g6f.2xlarge": ("L4", 1 / 4),
    "g6f.4xlarge": ("L4", 1 / 2), "gr6f.4xlarge": ("L4", 1 / 2),
    # Trainium, Inferentia (Neuron devices), Gaudi (DL1), Qualcomm AI 100 (DL2q)
    "trn1.2xlarge": ("Trainium", 1), "trn1.32xlarge": ("Trainium", 16),
    "trn1n.32xlarge": ("Trainium", 16),
    "trn2.48xlarge": ("Trainium2", 16), "trn2u.48xlarge": ("Trainium2", 16),
    "inf1.xlarge": ("Inferentia", 1), "inf1.2xlarge": ("Inferentia", 1),
    "inf1.6xlarge": ("Inferentia", 4), "inf1.24xlarge": ("Inferentia", 16),
    "inf2.xlarge": ("Inferentia2", 1), "inf2.8xlarge": ("Inferentia2", 1),
    "inf2.24xlarge": ("Inferentia2", 6), "inf2.48xlarge": ("Inferentia2", 12),
    "dl1.24xlarge": ("Gaudi", 8), "dl2q.24xlarge": ("Qualcomm AI 100", 8),
}
# families of the table, for sizes it does not list yet (the GPU column then gives the count)
FAMILY_GPU: dict[str, str] = {}
for _instance, (_gpu, _) in INSTANCE_GPUS.items():
    FAMILY_GPU.setdefault(_instance.split(".")[0], _gpu)

_INSTANCE_IN_LINE = re.compile(  # on bytes: the pre-filter runs before any decoding
    rb'"(?:' + "|".join(sorted(map(re.escape, FAMILY_GPU), key=len, reverse=True)).encode()
    + rb')\.[a-z0-9-]+"'
)
_HEADER_START = '"SKU",'
_REGION_IN_NAME = re.compile(
    r"(?:^|[_/.-])(?P<region>(?:[a-z]{2}-)?[a-z]{2,}-[a-z]+-\d)(?:[_/.-]|$)"
)
_HISTORY_COLUMNS = {"timestamp", "instance", "price_usd"}
_RESERVED_TERMS = {"1yr": "reserved_1y", "3yr": "reserved_3y"}
_TERM_YEARS = {"1yr": 1, "3yr": 3}
_PAYMENTS = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront",
             "All Upfront": "all_upfront"}
# hours in a year of a reserved term's per-hour equivalent (365 x 24)
HOURS_PER_YEAR = 8760


# -- fetch ----------------------------------------------------------------------------------

def _json(payload: Payload, what: str) -> dict:
    try:
        doc = json.loads(payload.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FetchError(f"aws: {what} at {payload.url} is not JSON ({exc})") from exc
    if not isinstance(doc, dict):
        raise FetchError(f"aws: {what} at {payload.url} is not a JSON object")
    return doc


def region_urls(ctx: FetchContext) -> dict[str, str]:
    """{region code: URL of its current EC2 offer file (CSV)} from the two index levels."""
    index_url = ctx.url()
    index = _json(ctx.get(index_url, name="index.json", ext="json"), "offer index")
    try:
        region_index_path = index["offers"]["AmazonEC2"]["currentRegionIndexUrl"]
    except (KeyError, TypeError) as exc:
        raise FetchError("aws: offer index lists no AmazonEC2 currentRegionIndexUrl") from exc
    region_index_url = urljoin(index_url, region_index_path)
    regions = _json(ctx.get(region_index_url, name="region_index.json", ext="json"),
                    "EC2 region index")
    out: dict[str, str] = {}
    for code, entry in (regions.get("regions") or {}).items():
        path = entry.get("currentVersionUrl") if isinstance(entry, dict) else None
        if isinstance(path, str) and path:
            out[code] = urljoin(region_index_url, re.sub(r"\.json$", ".csv", path))
    return out


def _parts(ctx: FetchContext) -> Iterator[Part]:
    """The regional offer files of REGIONS, found through the offer index and region index."""
    urls = region_urls(ctx)
    for region in REGIONS:
        if not ctx.selected(region):
            continue
        if region not in urls:
            ctx.fail(region, FetchError(f"aws: region {region} not in the region index"))
            continue
        yield Part(region, urls[region], f"{region}/index.csv", "csv", max_bytes=MAX_BYTES)


# -- parse ----------------------------------------------------------------------------------

def gpu_of_instance(instance_type: str, gpu_column: str = "") -> tuple[str, float] | None:
    """(accelerator name, count) of an EC2 instance type, or None when it has none."""
    if instance_type in INSTANCE_GPUS:
        name, count = INSTANCE_GPUS[instance_type]
        return name, float(count)
    family = instance_type.split(".")[0]
    if family not in FAMILY_GPU:
        return None
    count = _number(gpu_column)
    return (FAMILY_GPU[family], count) if count and count > 0 else (FAMILY_GPU[family], 0.0)


def _number(text: str | None) -> float | None:
    text = (text or "").strip()
    m = re.match(r"^-?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else None


def parse(payload: Payload) -> ParseResult:
    head = payload.content[:4096].decode("utf-8-sig", "replace").lstrip()
    if head.startswith("{"):
        raise EmptyPayloadError(
            f"aws {payload.name}: a Price List index (JSON navigation file), no prices")
    first_line = head.split("\n", 1)[0]
    if _HISTORY_COLUMNS <= {c.strip().lower() for c in first_line.split(",")}:
        try:
            text = payload.content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ParseError(f"aws {payload.name}: not UTF-8 text ({exc})") from exc
        return _parse_history(text, payload)
    return _parse_offer_file(payload)


def _raw(row: dict[str, str], keys: tuple[str, ...] = (
        "SKU", "TermType", "PriceDescription", "Unit", "PricePerUnit", "Currency",
        "LeaseContractLength", "PurchaseOption", "OfferingClass", "Instance Type", "Tenancy",
        "Operating System", "Pre Installed S/W", "CapacityStatus", "MarketOption", "GPU",
        "Region Code")) -> str:
    return ",".join(f"{k}={row.get(k, '')}" for k in keys if row.get(k))[:2000]


def _parse_offer_file(payload: Payload) -> ParseResult:
    # a regional file is hundreds of MB: read it line by line as bytes, decode only the lines
    # the pre-filter keeps (never the whole file as one str)
    lines = io.BytesIO(payload.content)
    header_line = None
    for _ in range(20):
        line = lines.readline().decode("utf-8-sig", "replace").strip()
        if line.startswith(_HEADER_START):
            header_line = line
            break
    if header_line is None:
        raise ParseError(f"aws {payload.name}: no EC2 offer-file header (\"SKU\",...) in the"
                         " first 20 lines")
    try:
        header = next(csv.reader([header_line]))
    except csv.Error as exc:
        raise ParseError(f"aws {payload.name}: malformed header ({exc})") from exc
    missing = {"TermType", "Instance Type", "PricePerUnit", "Tenancy", "Operating System"} \
        - set(header)
    if missing:
        raise ParseError(f"aws {payload.name}: offer file lacks column(s) {sorted(missing)}")
    n_lines = 0
    candidates: list[str] = []
    for raw_line in lines:
        n_lines += 1
        if _INSTANCE_IN_LINE.search(raw_line):
            try:
                candidates.append(raw_line.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as exc:
                raise ParseError(f"aws {payload.name}: not UTF-8 text ({exc})") from exc
    try:
        rows = [dict(zip(header, r, strict=False))
                for r in csv.reader(io.StringIO("\n".join(candidates)))]
    except csv.Error as exc:
        raise ParseError(f"aws {payload.name}: malformed CSV ({exc})") from exc
    result = ParseResult(stream="")
    offers = CheapestOffers(result)
    terms: dict[tuple[str, ...], dict[str, dict[str, str]]] = {}
    for row in rows:
        if row.get("TermType") == "Reserved" and _pricing_model(row, units=("Hrs", "Quantity")):
            key = tuple(row.get(k) or "" for k in ("Instance Type", "Region Code", "Location",
                        "LeaseContractLength", "PurchaseOption", "OfferingClass", "Currency"))
            terms.setdefault(key, {})[row.get("Unit") or ""] = row
            continue
        obs = _offer_row(row, result)
        if obs is not None:
            offers.add(obs, _raw(row))
    for parts in terms.values():
        obs = _reserved_term(parts, result)
        if obs is not None:
            offers.add(obs, ";".join(_raw(r) for r in parts.values()))
    offers.finish(f"aws {payload.name}: no GPU instance price passed the filters",
                  f"{n_lines} rows, {len(rows)} GPU-family rows")
    result.stream = ",".join(sorted({o.region for o in result.prices})) or "offer_file"
    return result


def _pricing_model(row: dict[str, str], units: tuple[str, ...] = ("Hrs",)) -> str | None:
    """The pricing model of a row of the kept product, or None for other products/terms."""
    if not (row.get("Product Family") or "").startswith("Compute Instance"):
        return None
    if (row.get("Tenancy") != "Shared" or row.get("Operating System") != "Linux"
            or (row.get("Pre Installed S/W") or "NA") != "NA"
            or row.get("CapacityStatus", "Used") not in ("Used", "")
            or (row.get("MarketOption") or "OnDemand") != "OnDemand"
            or row.get("Unit") not in units):
        return None
    term = row.get("TermType")
    if term == "OnDemand":
        return "on_demand"
    if (term == "Reserved" and row.get("OfferingClass") == "standard"
            and row.get("PurchaseOption") in _PAYMENTS):
        return _RESERVED_TERMS.get(row.get("LeaseContractLength") or "")
    return None


def _reserved_term(parts: dict[str, dict[str, str]],
                   result: ParseResult) -> PriceObservation | None:
    """One reserved term (its Hrs row and, for upfront payments, its Quantity row) as one
    observation at the per-hour equivalent: upfront / hours in the term + hourly."""
    hourly_row, upfront_row = parts.get("Hrs"), parts.get("Quantity")
    any_row = hourly_row or upfront_row or {}
    lease = any_row.get("LeaseContractLength") or ""
    hours = HOURS_PER_YEAR * _TERM_YEARS[lease]
    hourly = _number(hourly_row.get("PricePerUnit")) if hourly_row else None
    upfront = (_number(upfront_row.get("PricePerUnit")) or 0.0) if upfront_row else 0.0
    if hourly is None or hourly < 0 or upfront < 0 or hourly + upfront <= 0:
        result.rejects.append(Reject(
            "zero_or_missing_price",
            f"{any_row.get('Instance Type')} {any_row.get('Region Code')} reserved {lease} "
            f"{any_row.get('PurchaseOption')}: hourly {hourly!r}, upfront {upfront!r}",
            ";".join(_raw(r) for r in parts.values())))
        return None
    base = _offer_row({**(hourly_row or any_row), "PricePerUnit": "1"}, result)
    if base is None:
        return None
    return replace(base, price_per_hour=round(upfront / hours + hourly, 6),
                   payment=_PAYMENTS[any_row.get("PurchaseOption") or ""])


def _offer_row(row: dict[str, str], result: ParseResult) -> PriceObservation | None:
    instance = (row.get("Instance Type") or "").strip()
    model = _pricing_model(row, units=("Hrs", "Quantity") if row.get("TermType") == "Reserved"
                           else ("Hrs",))
    if model is None:
        return None
    gpu = gpu_of_instance(instance, row.get("GPU") or "")
    if gpu is None:
        return None
    name, count = gpu
    if count > 0:  # the table's count, else the GPU column's (fractional for L4 slices)
        checked, why = read_gpu_count(count, fractions=True)
        if checked is None:
            result.rejects.append(Reject(GPU_COUNT_INVALID, f"{instance}: {why}", _raw(row)))
            return None
    if count <= 0:
        result.rejects.append(Reject("gpu_count_unknown", f"{instance}: not in the table and"
                                     f" GPU column {row.get('GPU')!r}", _raw(row)))
        return None
    region = (row.get("Region Code") or "").strip() or (row.get("Location") or "").strip()
    price = _number(row.get("PricePerUnit"))
    if price is None or price <= 0:
        result.rejects.append(Reject(
            "zero_or_missing_price",
            f"{instance} {region} {model}: PricePerUnit {row.get('PricePerUnit')!r}", _raw(row)))
        return None
    memory = _number(row.get("GPU Memory"))
    return PriceObservation(
        provider="aws", sku=instance, region=region, pricing_model=model,
        price_per_hour=price, gpu_name_raw=name, gpu_count=count,
        currency=(row.get("Currency") or "USD").strip().upper(),
        gpu_memory_gb=round(memory / count, 1) if memory and count >= 1 else None,
        vcpus=_number(row.get("vCPU")), ram_gb=_number(row.get("Memory")),
    )


def _when(text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _parse_history(text: str, payload: Payload) -> ParseResult:
    m = _REGION_IN_NAME.search(payload.name) or _REGION_IN_NAME.search(payload.url or "")
    if m is None:
        raise ParseError(f"aws {payload.name}: a price history file, but its name names no"
                         " region (e.g. p5.48xlarge_us-east-1_ondemand_history.csv)")
    region = m.group("region")
    rows = list(csv.DictReader(io.StringIO(text)))
    result = ParseResult(stream="")
    latest: dict[tuple[str, object], tuple[datetime, float, str]] = {}
    for row in rows:
        if None in row or None in row.values():  # more or fewer cells than the header
            result.rejects.append(Reject(
                "malformed_row", "a row with more or fewer cells than the header",
                ",".join(str(v) for v in row.values())[:500]))
            continue
        row = {k.strip().lower(): v.strip() for k, v in row.items()}
        instance = row.get("instance", "")
        when = _when(row.get("timestamp", ""))
        raw = ",".join(f"{k}={v}" for k, v in row.items())
        if not instance or when is None:
            result.rejects.append(Reject("unreadable_row", "no instance or timestamp", raw))
            continue
        price = _number(row.get("price_usd"))
        if price is None or price <= 0:
            result.rejects.append(Reject(
                "zero_or_missing_price",
                f"{instance} {when.date()}: price_usd {row.get('price_usd')!r}", raw))
            continue
        key = (instance, when.astimezone(UTC).date())
        held = latest.get(key)
        if held is not None:
            keep, drop = (held, (when, price, raw)) if held[0] >= when else ((when, price, raw),
                                                                            held)
            result.rejects.append(Reject(
                "duplicate_offer", f"{instance} {key[1]}: the {drop[0].isoformat()} price"
                f" {drop[1]} superseded by {keep[0].isoformat()} ({keep[1]})", drop[2]))
            latest[key] = keep
        else:
            latest[key] = (when, price, raw)
    for (instance, _day), (when, price, _row) in sorted(latest.items(), key=lambda kv: kv[1][0]):
        gpu = gpu_of_instance(instance)
        name, count = gpu if gpu else (None, None)
        result.prices.append(PriceObservation(
            provider="aws", sku=instance, region=region, pricing_model="on_demand",
            price_per_hour=price, gpu_name_raw=name, gpu_count=count, observed_at=when,
        ))
    if not result.prices:
        raise EmptyPayloadError(f"aws {payload.name}: price history without a priced row")
    instances = sorted({o.sku for o in result.prices})
    result.stream = f"history/{region}/{'+'.join(instances)}"
    result.observed_at = max(o.observed_at for o in result.prices if o.observed_at)
    return result


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    description="AWS Price List bulk API: EC2 offer files of the GPU instance families",
)
