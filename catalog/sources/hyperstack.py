"""Hyperstack's public GPU pricing page (https://www.hyperstack.cloud/gpu-pricing), scraped
with BeautifulSoup.

Two layouts are known (both recorded in ../shared/data/prices/pricing_pages_html/hyperstack/);
the layout is chosen by what the page holds, and both are read as tables of (header, rows):

* 2024 ``<table>``: head cells "GPU Model", "VRAM (GB)", "Max pCPUs per GPU", "Max RAM (GB)
  per GPU", "Pricing Per Hour", "Reservation Pricing"; price text in many spellings
  ("<span>$</span> 0.30 Per Hour", "$ &nbsp;2.20 per Hour") and "Starts from $0.18/hour".
* 2025 HubSpot cards ``div.page-price_card_main``, each with a head
  (``.page-price_card_head_item``) and rows (``.page-price_card_row_item``): the on-demand
  card ("Pricing Per Hour"), the Reservation card ("Starting from", "Reserve") and the Spot
  VM card ("Spot VM"). The card's kind is read from its header (the recorded page's first
  card title is cut away), never from its position.

Column meaning by header text: "Pricing Per Hour" -> pricing_model "on_demand", "Spot VM" ->
"spot". A reservation price ("Starting from" / "Starts from") is a lowest commitment price
whose term the page does not state -> Reject("reserved_term_unknown") for each. Prices are
**per GPU-hour** (a multi-GPU VM is the same price x count): one observation per GPU type
and pricing model with gpu_count 1. gpu_memory_gb = "VRAM (GB)" (the Spot card shows none:
taken from the same GPU's on-demand row); vcpus and ram_gb are the
page's "Max pCPUs per GPU" and "Max RAM (GB) per GPU" (the largest one-GPU VM), on the rows
that show them. sku = gpu_name_raw = the GPU model as written ("NVIDIA H100 SXM", "NVIDIA
H100" = the PCIe card on the 2025 page); a row naming two GPUs at one price ("NVIDIA RTX
A6000/A40") gives one offer per GPU ("NVIDIA RTX A6000" and "A40"), so each maps to its
own accelerator. A missing or zero price -> Reject("zero_or_missing_price").

provider "hyperstack", region "" (not regional on the page), stream "pricing_page".
Zero-width characters and no-break spaces are normalised. A page with neither layout ->
ParseError("no known Hyperstack pricing layout"); no priced row -> EmptyPayloadError.
ParseResult.observed_at comes from the Wayback capture comment of a recorded page, else None.
"""

from __future__ import annotations

from dataclasses import replace

from bs4 import BeautifulSoup, Tag

from gpucost.catalog.pages import first_price, node_text, plain_number, price_or_reject, read_page
from gpucost.catalog.parsing import finish_cheapest
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "hyperstack"
DEFAULT_URL = "https://www.hyperstack.cloud/gpu-pricing"
STREAM = "pricing_page"



def _column(header: str) -> str:
    h = header.lower()
    if h.startswith("gpu model"):
        return "name"
    if h.startswith("vram"):
        return "vram"
    if "pcpu" in h or "vcpu" in h:
        return "vcpus"
    if "ram" in h:
        return "ram"
    if h.startswith("pricing per hour") or h.startswith("on-demand"):
        return "on_demand"
    if "spot" in h:
        return "spot"
    if h.startswith(("reservation", "starting from", "starts from")):
        return "reservation"
    return "other"  # the "Reserve" link column


def _tables(soup: BeautifulSoup) -> list[tuple[list[str], list[list[str]]]]:
    """Every pricing table of either layout as (column kinds, rows of cell texts)."""
    tables = []
    for card in soup.select("div.page-price_card_main"):  # 2025 cards
        head = [node_text(c) for c in card.select(".page-price_card_head_item")]
        rows = [[node_text(c) for c in row.find_all(recursive=False) if isinstance(c, Tag)]
                for row in card.select(".page-price_card_row_item")]
        tables.append((head, rows))
    for table in soup.find_all("table"):  # 2024 table
        head = [node_text(th) for th in table.select("thead th")]
        rows = [[node_text(td) for td in tr.find_all("td")] for tr in table.select("tbody tr")]
        tables.append((head, rows))
    return [([_column(h) for h in head], rows) for head, rows in tables
            if head and _column(head[0]) == "name"]


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    tables = _tables(soup)
    if not tables:
        raise ParseError(f"hyperstack {payload.name}: no known Hyperstack pricing layout")
    for kinds, rows in tables:
        for cells in rows:
            _parse_row(kinds, cells, result)
    # the Spot card shows no VRAM: the same GPU's VRAM from the on-demand card
    vram = {o.gpu_name_raw: o.gpu_memory_gb for o in result.prices if o.gpu_memory_gb}
    result.prices = [o if o.gpu_memory_gb else replace(o, gpu_memory_gb=vram.get(o.gpu_name_raw))
                     for o in result.prices]
    return finish_cheapest(
        result, f"hyperstack {payload.name}: Hyperstack pricing layout found but no priced row")


def _names(name: str) -> list[str]:
    """The GPUs a row names: "NVIDIA RTX A6000/A40" -> ["NVIDIA RTX A6000", "A40"]."""
    return [part.strip() for part in name.split("/") if part.strip()]


def _parse_row(kinds: list[str], cells: list[str], result: ParseResult) -> None:
    raw = " | ".join(cells)
    if len(cells) != len(kinds):
        result.rejects.append(Reject("unexpected_row_shape", raw[:300], raw))
        return
    row: dict[str, str] = {}
    for kind, text in zip(kinds, cells, strict=True):
        row.setdefault(kind, text)
    name = row["name"]
    if not name:
        result.rejects.append(Reject("gpu_name_missing", raw[:300], raw))
        return
    if "reservation" in row:
        text = row["reservation"]
        result.rejects.append(Reject(
            "reserved_term_unknown" if first_price(text) is not None else "zero_or_missing_price",
            f"{name} reservation {text!r}: a 'starting from' commitment price without a stated "
            "term", raw))
    for model in ("on_demand", "spot"):
        if model not in row:
            continue
        price = price_or_reject(row[model], result.rejects, f"{name} {model}: {row[model]!r}",
                                raw, reason="zero_or_missing_price")
        if price is None:
            continue
        for gpu in _names(name):
            result.prices.append(PriceObservation(
                provider="hyperstack", sku=gpu, region="", pricing_model=model,
                price_per_hour=price, gpu_name_raw=gpu, gpu_count=1.0,
                gpu_memory_gb=plain_number(row.get("vram", "")),
                vcpus=plain_number(row.get("vcpus", "")),
                ram_gb=plain_number(row.get("ram", "")),
            ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="gpu-pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Hyperstack's GPU pricing page (scraped HTML: table or pricing cards)",
)
