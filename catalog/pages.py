"""Reading a scraped pricing page: its tree and capture time, and the text of its cells
(cleaned node text, the first dollar price, numbers, a GPU count at the start of a cell, why
a cell has no price, a price cell read to its price or else its named reject in one step:
price_or_reject, on-demand labels, reservation terms). A parser whose page needs another
reading keeps a local variant and says why.

The source contract is catalog/sources/base.py; the helpers every parser shares (the
cheapest offer, refusing an empty payload, read_gpu_count) are catalog/parsing.py.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from gpucost.catalog.parsing import read_gpu_count
from gpucost.catalog.records import ParseResult, Payload, Reject

_WAYBACK_CAPTURE = re.compile(r"web\.archive\.org/web/(?P<ts>\d{14})(?:[a-z]{2}_)?/")


def read_html(payload: Payload) -> BeautifulSoup:
    """A scraped page's tree (UTF-8, else Latin-1: a page never fails on its encoding)."""
    try:
        text = payload.content.decode("utf-8")
    except UnicodeDecodeError:
        text = payload.content.decode("latin-1")
    return BeautifulSoup(text, "html.parser")


def wayback_capture_time(soup: BeautifulSoup) -> datetime | None:
    """When a recorded page was captured, from the Wayback Machine's comment
    (``/web/20241103180910id_/``); None for a live page."""
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        m = _WAYBACK_CAPTURE.search(str(comment))
        if m:
            try:
                return datetime.strptime(m.group("ts"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            except ValueError:
                return None
    return None


def read_page(payload: Payload, stream: str) -> tuple[BeautifulSoup, ParseResult]:
    """A scraped page's tree (read_html) and an empty result of `stream` whose observed_at is
    the page's Wayback capture time (None for a live page)."""
    soup = read_html(payload)
    return soup, ParseResult(stream=stream, observed_at=wayback_capture_time(soup))


# ---- pricing-page text ------------------------------------------------------------------

# zero-width characters and the soft hyphen, which pages put inside names and prices
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
# a dollar amount anywhere in the text ("$2.99 / GPU / hr", "from $0.90", "$1,234.5"); a whole
# number only: "$1e308" or "$2.5x" is not read as $1 or $2.5 (no match: no price)
DOLLAR_PRICE = re.compile(r"\$\s*(?P<price>\d[\d,]*(?:\.\d+)?)(?!\w|\.\d)")
# a number at the start of a cell: "80 GB" -> 80, "4^1" -> 4 (a footnote marker glued on)
LEADING_NUMBER = re.compile(r"^\s*(?P<n>\d[\d,]*(?:\.\d+)?)")
# a commitment's length in months -> its pricing model (any other term has none)
RESERVED_TERMS = {1: "reserved_1m", 6: "reserved_6m", 12: "reserved_1y", 36: "reserved_3y"}


def clean_text(text: str) -> str:
    """`text` without zero-width characters, each run of whitespace one space, stripped."""
    return " ".join(text.translate(ZERO_WIDTH).split())


def node_text(node: Tag | NavigableString | None) -> str:
    """The text of a node (a tag's strings joined by spaces), cleaned; "" for None."""
    if node is None:
        return ""
    return clean_text(node.get_text(" ", strip=True) if isinstance(node, Tag) else str(node))


def classes(node: Tag) -> list[str]:
    """The class names of a tag (a list, whether the parser split the attribute or not)."""
    value = node.get("class")
    return list(value) if isinstance(value, list) else str(value or "").split()


def first_price(text: str, pattern: re.Pattern[str] = DOLLAR_PRICE) -> float | None:
    """The first price `pattern` finds in `text` (its `price` group, commas dropped); None
    when there is none or it is not above 0 (a zero is never a free offer)."""
    m = pattern.search(text)
    if not m:
        return None
    value = float(m.group("price").replace(",", ""))
    return value if value > 0 else None


def leading_number(text: str, pattern: re.Pattern[str] = LEADING_NUMBER) -> float | None:
    """The number `pattern` matches at the start of `text` (its `n` group, commas dropped);
    None when there is none or it is not above 0."""
    m = pattern.match(text)
    if not m:
        return None
    value = float(m.group("n").replace(",", ""))
    return value if value > 0 else None


def leading_gpu_count(text: str, pattern: re.Pattern[str] | None = None, *,
                      fractions: bool = False) -> tuple[float | None, str]:
    """read_gpu_count of the number at the start of a page's cell ("8", "4^1", "8 GPUs"; the
    `n` group of `pattern`, default LEADING_NUMBER); ``(None, "")`` when the cell starts with
    no number."""
    m = (pattern or LEADING_NUMBER).match(text)
    return read_gpu_count(m.group("n") if m else None, fractions=fractions)


def plain_number(text: str) -> float | None:
    """A cell that is one number, as float() reads it once commas are dropped ("1,800" ->
    1800.0; zero and negatives included); None otherwise."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def no_price_reason(text: str, context: str = "", *, not_available: bool = True) -> str:
    """Why a price cell holds no price, as a reject reason: "no_price_contact_sales" when the
    cell or its `context` says contact, "price_not_available" for "N/A" (a page whose parser
    does not tell it apart passes not_available=False), else "zero_or_missing_price"."""
    if "contact" in f"{text} {context}".lower():
        return "no_price_contact_sales"
    if not_available and text.strip().lower().replace(" ", "") in {"n/a", "na"}:
        return "price_not_available"
    return "zero_or_missing_price"


def price_or_reject(text: str, rejects: list[Reject], detail: str, raw: str = "", *,
                    pattern: re.Pattern[str] = DOLLAR_PRICE, context: str = "",
                    not_available: bool = True, reason: str | None = None) -> float | None:
    """The price a cell's `text` states (first_price with `pattern`), or None after appending
    its named Reject to `rejects` (a ParseResult's or a CheapestOffers' result's list): the
    reason is no_price_reason(text, context, not_available=...) ("no_price_contact_sales",
    "price_not_available", "zero_or_missing_price"), or `reason` itself for a page whose
    parser does not tell empty cells apart; `detail` and `raw` as the Reject's."""
    price = first_price(text, pattern)
    if price is None:
        rejects.append(Reject(
            reason or no_price_reason(text, context, not_available=not_available), detail, raw))
    return price


def says_on_demand(label: str) -> bool:
    """Whether a column or price label names the on-demand price ("On-Demand", "on demand")."""
    label = label.lower()
    return "on-demand" in label or "on demand" in label


def reserved_model(term: re.Match[str] | None) -> str | None:
    """The pricing model of a commitment term matched with groups `n` and `unit` (month...,
    year...): reserved_1m / reserved_6m / reserved_1y / reserved_3y for 1 / 6 / 12 / 36 months;
    None for another or no term."""
    if term is None:
        return None
    years = term.group("unit").lower().startswith("y")
    return RESERVED_TERMS.get(int(term.group("n")) * (12 if years else 1))
