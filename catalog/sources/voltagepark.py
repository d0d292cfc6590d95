"""Voltage Park's public pricing page (https://www.voltagepark.com/pricing), scraped with
BeautifulSoup.

One layout is known (recorded in ../shared/data/prices/pricing_pages_html/voltagepark/,
2025-07-12): Webflow plan cards, each an eyebrow title (``div.text-eyebrow``: "On-Demand,
Ethernet", "On-demand, 3200 Gbps Infiniband", "Long-Term Reserve"), a price heading
(``div.heading-style-h3``: "$1.99/hr") and feature lines ("1-1016 HGX H100 GPUs for your
bursts and experimentation."). Everything between one eyebrow and the next belongs to its
card. A page without an eyebrow followed by a "$…/hr" price -> ParseError("no known Voltage
Park pricing layout"); no priced on-demand card -> EmptyPayloadError.

* The price is **per GPU-hour**: the text has no "per GPU" label, the meaning comes from the
  page's copy ("1-1016 HGX H100 GPUs", H100 on-demand at $1.99/GPU/hr). The smallest GPU
  count a card allows is the offer's gpu_count: the Ethernet card (1-1016 GPUs) gives a
  one-GPU offer, the InfiniBand card (8-1016 GPUs) an eight-GPU offer; price_per_hour = the
  per-GPU price x that count.
* sku = "<count>x <GPU> (<eyebrow>)", e.g. "1x HGX H100 (On-Demand, Ethernet)" and
  "8x HGX H100 (On-demand, 3200 Gbps Infiniband)": the two offers differ by network, and
  the InfiniBand one needs 8 GPUs or more. gpu_name_raw = the GPU as the feature line spells
  it ("HGX H100").
* An eyebrow starting "On-demand" -> pricing_model "on_demand". A reserve card ("Long-Term
  Reserve") states no term -> Reject("reserved_term_unknown"); a card without a price ->
  Reject("zero_or_missing_price"); a card whose GPU or count cannot be read ->
  Reject("gpu_unknown").

provider "voltagepark", region "" (not regional on the page), stream "pricing_page".
ParseResult.observed_at comes from the Wayback capture comment of a recorded page, else None.
"""

from __future__ import annotations

import re

from bs4 import Tag

from gpucost.catalog.pages import classes, node_text, price_or_reject, read_page
from gpucost.catalog.parsing import finish_cheapest
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, Reject
from gpucost.catalog.sources.base import FetchPolicy, Source

NAME = "voltagepark"
DEFAULT_URL = "https://www.voltagepark.com/pricing"
STREAM = "pricing_page"

_PRICE = re.compile(r"^\$\s*(?P<price>\d[\d,]*(?:\.\d+)?)\s*/\s*(?:hr|hour)\b", re.I)
_GPUS = re.compile(r"(?P<low>\d+)\s*[-–]\s*(?P<high>\d+)\s+(?P<gpu>.+?)\s+GPUs\b")


def _cards(soup: Tag) -> list[tuple[str, list[Tag]]]:
    """(eyebrow text, the elements up to the next eyebrow) per plan card."""
    eyebrows = soup.select("div.text-eyebrow")
    marks = {id(e) for e in eyebrows}
    cards = []
    for eyebrow in eyebrows:
        body: list[Tag] = []
        for node in eyebrow.find_all_next():
            if id(node) in marks:
                break
            body.append(node)
        cards.append((node_text(eyebrow), body))
    return cards


def parse(payload: Payload) -> ParseResult:
    soup, result = read_page(payload, STREAM)
    cards = _cards(soup)
    priced = [c for c in cards if any(
        "heading-style-h3" in classes(n) and _PRICE.match(node_text(n)) for n in c[1])]
    if not priced:
        raise ParseError(f"voltagepark {payload.name}: no known Voltage Park pricing layout")
    for eyebrow, body in cards:
        _parse_card(eyebrow, body, result)
    return finish_cheapest(result, f"voltagepark {payload.name}: Voltage Park cards found but "
                           "no priced on-demand card")


def _parse_card(eyebrow: str, body: list[Tag], result: ParseResult) -> None:
    heading = next((n for n in body if "heading-style-h3" in classes(n)), None)
    price_text = node_text(heading)
    features = [node_text(n) for n in body if "pricing11_feature" in classes(n)]
    raw = " | ".join([eyebrow, price_text, *features])[:2000]
    if not eyebrow.lower().startswith("on-demand"):
        reason = "reserved_term_unknown" if "reserve" in eyebrow.lower() else "unknown_tier"
        result.rejects.append(Reject(reason, f"{eyebrow!r}: {price_text or 'no price'} "
                                     "(no stated term or tier)", raw))
        return
    price = price_or_reject(price_text, result.rejects, f"{eyebrow}: {price_text!r}", raw,
                            pattern=_PRICE, reason="zero_or_missing_price")
    if price is None:
        return
    gpus = next((g for f in features if (g := _GPUS.search(f))), None)
    if gpus is None or int(gpus.group("low")) <= 0:
        result.rejects.append(Reject("gpu_unknown", f"{eyebrow}: no 'N-M <GPU> GPUs' line", raw))
        return
    count = float(gpus.group("low"))
    gpu = gpus.group("gpu").strip()
    result.prices.append(PriceObservation(
        provider="voltagepark", sku=f"{count:g}x {gpu} ({eyebrow})", region="",
        pricing_model="on_demand", price_per_hour=round(price * count, 6), gpu_name_raw=gpu,
        gpu_count=count,
    ))


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse,
    payload_name="pricing.html", ext="html", policy=FetchPolicy(html=True),
    description="Voltage Park's pricing page (scraped HTML plan cards, per GPU-hour)",
)
