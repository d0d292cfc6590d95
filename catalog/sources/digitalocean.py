"""DigitalOcean's GPU Droplet pricing page (https://www.digitalocean.com/pricing/gpu-droplets),
scraped with BeautifulSoup.

One layout is known (recorded in ../shared/data/prices/pricing_pages_html/digitalocean/):
React pricing cards (styled-components, class names ``CardPricingstyles__StyledCardPricingCard
-<hash>`` matched by prefix). A card has an ``<h3>`` title ("NVIDIA H100x8", "AMD Instinct™
MI300Xx8", "NVIDIA L40S"), a price container (``$2.99`` + ``/GPU/hour``, the number
sometimes split by React comments ``$<!-- -->1.99<!-- -->``) with a label under the price,
and, on on-demand cards, a spec list (GPUs per Droplet, GPU Memory for the whole Droplet,
Droplet Memory, Droplet vCPUs, ...).

Prices are USD **per GPU-hour**: price_per_hour = per-GPU price x GPUs per Droplet (the spec
list, else the title's ``x8`` suffix, else the card is Reject("gpu_count_unknown")).

* The pricing model comes from the label under the price, never from the title: the
  reserved cards come first and carry the same title as the on-demand card ("NVIDIA
  H100x8"). "On-Demand Price" -> ``on_demand``; "Reserved Price" -> the term stated on the
  card ("a contractual commitment of 12 months" -> ``reserved_1y``, 36 months ->
  ``reserved_3y``, 6 months -> ``reserved_6m``, 1 month -> ``reserved_1m``; any other or no
  term -> Reject("reserved_term_unsupported")); another
  label -> Reject("unknown_tier").
* Struck-through prices are ignored. Every on-demand price sits in a
  ``gpu-droplets__StyledStrikeThrough-<hash>`` wrapper, but only a wrapper with a modifier
  class (``... dvynub``), followed by another price, is drawn struck: the H100x1 card shows
  6.74 struck and **3.39** as the promotional on-demand price (footnote ``*``: "Promotional
  pricing is subject to change at any time"); 3.39 is what is loaded. A price inside
  ``<s>`` / ``<del>`` is struck too. A card whose only prices are struck ->
  Reject("struck_through_only"); two different unstruck prices ->
  Reject("ambiguous_price"). A unit other than per GPU-hour -> Reject("unexpected_unit").

gpu_name_raw = the title without its ``xN`` count suffix ("NVIDIA H100", "AMD Instinct™
MI300X", spelled as on the page); sku = the title (DigitalOcean's product name, the same for
the reserved and the on-demand card: pricing_model tells them apart; the "Get started" link's
size slug is not used, it is ``size=undefined`` on the L40S card). gpu_memory_gb = GPU
Memory / GPUs (per GPU), ram_gb = Droplet Memory (GiB as printed), vcpus = Droplet vCPUs;
the reserved cards state no specs. Region "" (not stated), provider "digitalocean", stream
"pricing_page". ParseResult.observed_at is the Wayback capture time of a recorded page, else
None. A page without pricing cards -> ParseError("no known DigitalOcean pricing layout");
cards without a priced one -> EmptyPayloadError.
"""

from __future__ import annotations

import re

from bs4 import Tag

from gpucost.catalog.pages import (
    DOLLAR_PRICE,
    first_price,
    leading_gpu_count,
    leading_number,
    no_price_reason,
    node_text,
    read_page,
    reserved_model,
    says_on_demand,
)
from gpucost.catalog.parsing import GPU_COUNT_INVALID, CheapestOffers, read_gpu_count
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "digitalocean"
DEFAULT_URL = "https://www.digitalocean.com/pricing/gpu-droplets"

STREAM = "pricing_page"
_CARD = re.compile(r"^CardPricingstyles__StyledCardPricingCard-")
_PRICE_CONTAINER = re.compile(r"^CardPricingstyles__StyledPriceContainer-")
_STRIKE = re.compile(r"StrikeThrough", re.I)
# pages.DOLLAR_PRICE held to the start of the element's text: a price element is "$2.99", a
# longer text with a dollar amount inside it is not one
_PRICE = re.compile(r"^" + DOLLAR_PRICE.pattern)
_COUNT_SUFFIX = re.compile(r"(?<=\S)x(?P<n>\d+)$")
_TERM = re.compile(r"commitment of\s+(?P<n>\d+)\s*(?P<unit>months?|years?)", re.I)
_PER_GPU = re.compile(r"/\s*GPU\s*/\s*h(?:ou)?r", re.I)


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    offers = CheapestOffers(result)
    cards = soup.find_all(class_=_CARD)
    if not cards:
        raise ParseError(f"digitalocean {payload.name}: no known DigitalOcean pricing layout")
    for card in cards:
        _parse_card(card, offers)
    return offers.finish(
        f"digitalocean {payload.name}: DigitalOcean pricing layout found but no priced card")


def _specs(card: Tag) -> dict[str, str]:
    specs: dict[str, str] = {}
    for li in card.find_all("li"):
        spans = [node_text(s) for s in li.find_all("span", recursive=False)]
        spans = [s for s in spans if s]
        if len(spans) == 2:
            specs[spans[0].lower()] = spans[1]
    return specs


def _struck(node: Tag, container: Tag, has_unstruck: bool) -> bool:
    """Whether a price element is drawn struck through (see the module docstring)."""
    for parent in [node, *node.parents]:
        if parent is container:
            return False
        if parent.name in ("s", "del", "strike"):
            return True
        classes = [str(c) for c in parent.get("class") or []]
        if any(_STRIKE.search(c) for c in classes):
            modifier = any(not _STRIKE.search(c) for c in classes)
            return modifier or has_unstruck
    return False


def _in_strike_wrapper(node: Tag, container: Tag) -> bool:
    for parent in [node, *node.parents]:
        if parent is container:
            return False
        if parent.name in ("s", "del", "strike") or any(
                _STRIKE.search(str(c)) for c in parent.get("class") or []):
            return True
    return False


def _price(node: Tag) -> float | None:
    """The price a leaf element prints, None unless its text starts with one ("$2.99")."""
    return first_price(node_text(node), _PRICE)


def _card_price(container: Tag) -> tuple[float | None, str, str]:
    """(per-GPU price, its unit text, reject reason when no single price is readable)."""
    nodes = [n for n in container.find_all(["span", "div", "strong", "s", "del"])
             if n.find(["span", "div", "strong", "s", "del"]) is None and _price(n)]
    if not nodes:
        return None, "", no_price_reason(node_text(container), not_available=False)
    has_unstruck = any(not _in_strike_wrapper(n, container) for n in nodes)
    kept = [n for n in nodes if not _struck(n, container, has_unstruck)]
    if not kept:
        return None, "", "struck_through_only"
    prices = {_price(n) for n in kept}
    if len(prices) > 1:
        return None, "", "ambiguous_price"
    node = kept[-1]
    unit = node.find_next_sibling()
    return prices.pop(), node_text(unit) if isinstance(unit, Tag) else "", ""


def _parse_card(card: Tag, offers: CheapestOffers) -> None:
    title = node_text(card.find("h3"))
    container = card.find(class_=_PRICE_CONTAINER)
    raw = node_text(card)[:1000]
    if not title:
        offers.reject("gpu_name_missing", "a pricing card without a title", raw)
        return
    if not isinstance(container, Tag):
        offers.reject("zero_or_missing_price", f"{title}: no price on the card", raw)
        return
    label_node = container.find("p")
    label = node_text(label_node).lower()
    if says_on_demand(label):
        model: str | None = "on_demand"
    elif "reserved" in label:
        m = _TERM.search(node_text(card))
        model = reserved_model(m)
        if model is None:
            offers.reject("reserved_term_unsupported",
                          f"{title}: {label_node and node_text(label_node)!r}, term "
                          f"{m.group(0) if m else 'not stated'}", raw)
            return
    else:
        offers.reject("unknown_tier", f"{title}: price label {node_text(label_node)!r}", raw)
        return
    price, unit, reason = _card_price(container)
    if price is None:
        offers.reject(reason, f"{title} {model}: {node_text(container)!r}", raw)
        return
    if not _PER_GPU.search(unit):
        offers.reject("unexpected_unit", f"{title} {model}: unit {unit!r}", raw)
        return
    specs = _specs(card)
    suffix = _COUNT_SUFFIX.search(title)
    count, why = leading_gpu_count(specs.get("gpus per droplet", ""))
    if count is None and not why:
        count, why = read_gpu_count(suffix.group("n") if suffix else None)
    if why:
        offers.reject(GPU_COUNT_INVALID, f"{title} {model}: {why}", raw)
        return
    if count is None:
        offers.reject("gpu_count_unknown", f"{title} {model}: no GPUs per Droplet", raw)
        return
    memory = leading_number(specs.get("gpu memory", ""))
    offers.add(PriceObservation(
        provider="digitalocean", sku=title, region="", pricing_model=model,
        price_per_hour=round(price * count, 6),
        gpu_name_raw=_COUNT_SUFFIX.sub("", title).strip(), gpu_count=count,
        gpu_memory_gb=round(memory / count, 3) if memory else None,
        vcpus=leading_number(specs.get("droplet vcpus", "")),
        ram_gb=leading_number(specs.get("droplet memory", "")),
    ), raw)


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="gpu-droplets.html", ext="html", policy=FetchPolicy(html=True),
    description="DigitalOcean's GPU Droplet pricing page (scraped HTML, USD per GPU-hour)",
)
