"""Paperspace's (DigitalOcean) public pricing page (https://www.paperspace.com/pricing),
scraped with BeautifulSoup.

One layout is known (recorded in ../shared/data/prices/pricing_pages_html/paperspace/,
2024-01-23): Webflow machine cards, each an ``<h1 class="instance-names">`` (the machine:
"H100", "A100-80G", "A4000", ...) with price blocks ``<h1 class="instance-price-2">`` (older
desktop cards: ``instance-price``), a spec list ("NVIDIA HGX H100 GPU", "256 GB RAM",
"20 vCPU", "16 GB GPU") and "Multi-GPU types: 2x 4x 8x". A page without such cards ->
ParseError("no known Paperspace pricing layout"); cards without one visible price ->
EmptyPayloadError.

* Hidden elements are not on the page a visitor sees: a price block inside an element of
  class ``hide`` (the H100 card's stale "3.09 / NVIDIA A100 GPU" block, the whole hidden
  "Servers & Desktops" grid of desktop cards) -> Reject("hidden_element"), never a price.
* Prices are USD per machine-hour of a one-GPU machine. A price marked with footnote stars
  ("2.24*", "1.15**") is the commitment price the footnote states ("*$2.24/hour pricing is
  for a 3-year commitment") -> pricing_model "reserved_1y" / "reserved_3y" by the stated
  term; a marked price whose footnote states no term -> Reject("reserved_term_unknown").
  An unmarked price is "on_demand".
* The footnote "On-demand pricing for H100 is $6.00/hour ($8.96) under our special promo
  price." is the H100's on-demand price: 6.00 -> an "on_demand" observation of the card it
  names. What the "($8.96)" is the page does not say -> Reject("price_meaning_unknown").
* Multi-GPU machines: "Multiply the specs and price of each type above by the number of
  GPUs", for the counts the card lists ("8x"): one observation per count with price, RAM and
  vCPUs x count; sku "<card>x<count>" ("H100x8"), the one-GPU machine is sku "<card>".
* gpu_name_raw = the card name as written ("H100", "A100-80G", "RTX5000");
  gpu_memory_gb from an "N GB GPU" spec where the card shows one, else from the card name
  ("A100-80G" -> 80), else None.

provider "paperspace", region "" (not regional on the page), stream "pricing_page".
ParseResult.observed_at comes from the Wayback capture comment of a recorded page, else None.
"""

from __future__ import annotations

import re

from bs4 import Tag

from gpucost.catalog.pages import classes, node_text, price_or_reject, read_page
from gpucost.catalog.parsing import finish_cheapest
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "paperspace"
DEFAULT_URL = "https://www.paperspace.com/pricing"
STREAM = "pricing_page"

_CARD_CLASSES = ("instance-blocks-flex", "instance-blocks")
_PRICE_CLASSES = ("instance-price-2", "instance-price")
_PRICE = re.compile(r"^\$?\s*(?P<price>\d[\d,]*(?:\.\d+)?)\s*(?P<marks>\**)$")
_COMMITMENT = re.compile(
    r"^(?P<marks>\*+)\s*\$?(?P<price>\d[\d,]*(?:\.\d+)?)\s*/\s*hour pricing is for an?\s+"
    r"(?P<years>\d+)[- ]year commitment", re.I)
_ON_DEMAND_NOTE = re.compile(
    r"On-demand pricing for (?P<card>\S+) is \$(?P<price>\d[\d,]*(?:\.\d+)?)\s*/\s*hour"
    r"(?:\s*\((?P<aside>[^)]*)\))?", re.I)
_MULTI = re.compile(r"(?P<n>\d+)\s*x\b", re.I)
_RAM = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*GB RAM$", re.I)
_VCPU = re.compile(r"^(?P<n>\d+)\s*vCPUs?$", re.I)
_GPU_MEMORY = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*GB GPU\b", re.I)
_TERMS = {1: "reserved_1y", 3: "reserved_3y"}


def _hidden(node: Tag) -> bool:
    """The node or one of its ancestors has class `hide` (not shown on the page)."""
    current: Tag | None = node
    while isinstance(current, Tag):
        if "hide" in classes(current):
            return True
        current = current.parent
    return False


def _card(name: Tag) -> Tag | None:
    current = name.parent
    while isinstance(current, Tag):
        if any(c in _CARD_CLASSES for c in classes(current)):
            return current
        current = current.parent
    return None


def _footnotes(soup: Tag) -> tuple[dict[str, int | None], list[tuple[str, float, str]]]:
    """Commitment footnotes (stars -> years, None when no term is stated) and on-demand
    notes (card, price, the parenthesised aside)."""
    marks: dict[str, int | None] = {}
    notes: list[tuple[str, float, str]] = []
    for p in soup.find_all("p"):
        text = node_text(p)
        m = _COMMITMENT.match(text)
        if m:
            marks[m.group("marks")] = int(m.group("years"))
        elif text.startswith("*"):
            marks.setdefault(re.match(r"\*+", text).group(0), None)  # type: ignore[union-attr]
        for note in _ON_DEMAND_NOTE.finditer(text):
            notes.append((note.group("card"), float(note.group("price").replace(",", "")),
                          note.group("aside") or ""))
    return marks, notes


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    names = [n for n in soup.find_all("h1", class_="instance-names") if _card(n) is not None]
    if not names:
        raise ParseError(f"paperspace {payload.name}: no known Paperspace pricing layout")
    marks, notes = _footnotes(soup)
    cards: dict[str, dict[str, object]] = {}
    for name_node in names:
        card = _card(name_node)
        assert card is not None
        _parse_card(node_text(name_node), card, marks, cards, result)
    for card_name, price, aside in notes:
        spec = cards.get(card_name)
        if spec is None:
            result.rejects.append(Reject(
                "gpu_unknown", f"on-demand footnote for {card_name!r}: no visible card of "
                "that name", f"{card_name} {price}"))
            continue
        _add(result, card_name, "on_demand", price, spec)
        if aside:
            result.rejects.append(Reject(
                "price_meaning_unknown",
                f"{card_name} footnote '({aside})' beside the on-demand ${price:g}/hour: the "
                "page does not say what it is", aside))
    return finish_cheapest(
        result, f"paperspace {payload.name}: Paperspace cards found but no visible price")


def _specs(price_node: Tag) -> dict[str, float]:
    """The spec list that follows a price block (the first visible one)."""
    specs: dict[str, float] = {}
    wrap = price_node.parent if isinstance(price_node.parent, Tag) else price_node
    spec_list = wrap.find_next_sibling("ul")
    if not isinstance(spec_list, Tag):
        return specs
    for item in spec_list.find_all("p"):
        text = node_text(item)
        for key, pattern in (("ram", _RAM), ("vcpus", _VCPU), ("gpu_memory", _GPU_MEMORY)):
            m = pattern.match(text)
            if m:
                specs[key] = float(m.group("n"))
    return specs


def _parse_card(name: str, card: Tag, marks: dict[str, int | None],
                cards: dict[str, dict[str, object]], result: ParseResult) -> None:
    multi = card.find(class_="pricing-multigpu-info")
    counts = sorted({int(m.group("n")) for m in _MULTI.finditer(node_text(multi))} - {0, 1}) \
        if isinstance(multi, Tag) else []
    for node in card.find_all("h1", class_=list(_PRICE_CLASSES)):
        text = node_text(node)
        raw = f"{name} | {node_text(node.parent) if isinstance(node.parent, Tag) else text}"
        if _hidden(node):
            result.rejects.append(Reject("hidden_element",
                                         f"{name}: price {text!r} in a hidden element", raw))
            continue
        price = price_or_reject(text, result.rejects, f"{name}: {text!r}", raw, pattern=_PRICE,
                                reason="zero_or_missing_price")
        m = _PRICE.match(text)  # anchored: it matches whenever a price was read
        if price is None or m is None:
            continue
        spec: dict[str, object] = {"specs": _specs(node), "counts": counts}
        cards.setdefault(name, spec)
        stars = m.group("marks")
        if not stars:
            _add(result, name, "on_demand", price, spec)
            continue
        years = marks.get(stars)
        if years not in _TERMS:
            result.rejects.append(Reject(
                "reserved_term_unknown", f"{name}: {text!r}: footnote {stars!r} states no "
                "known commitment term", raw))
            continue
        _add(result, name, _TERMS[years], price, spec)  # type: ignore[index]


def _name_memory(name: str) -> float | None:
    """The VRAM a card name carries ("A100-80G" -> 80)."""
    m = re.search(r"-(?P<n>\d+)G$", name)
    return float(m.group("n")) if m else None


def _add(result: ParseResult, name: str, model: str, price: float,
         spec: dict[str, object]) -> None:
    specs: dict[str, float] = spec["specs"]  # type: ignore[assignment]
    counts: list[int] = spec["counts"]  # type: ignore[assignment]
    for count in [1, *counts]:
        ram, vcpus = specs.get("ram"), specs.get("vcpus")
        result.prices.append(PriceObservation(
            provider="paperspace", sku=name if count == 1 else f"{name}x{count}", region="",
            pricing_model=model, price_per_hour=round(price * count, 6), gpu_name_raw=name,
            gpu_count=float(count),
            gpu_memory_gb=specs.get("gpu_memory") or _name_memory(name),
            vcpus=vcpus * count if vcpus else None, ram_gb=ram * count if ram else None,
        ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Paperspace's (DigitalOcean) pricing page (scraped HTML machine cards)",
)
