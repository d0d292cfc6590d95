"""A test-only source that needs an API key (used by tests/system/test_security.py).

It sends the key both as a bearer header and, like some real APIs, as a query parameter,
so that a URL in an error message carries it: the worst case for leaks.
"""

from __future__ import annotations

import json

from gpucost.catalog import secrets
from gpucost.catalog.records import ParseError, ParseResult, Payload, PriceObservation, SourceError
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "keyed"


def _parts(ctx: FetchContext) -> list[Part]:
    key = secrets.api_key(NAME)
    if key is None:
        raise SourceError("GPUCOST_KEYED_API_KEY is not set")
    return [Part(NAME, ctx.url(), "offers.json", "json", params={"api_key": key},
                 headers={"Authorization": f"Bearer {key}"})]


def parse(payload: Payload) -> ParseResult:
    try:
        offers = json.loads(payload.content)["offers"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ParseError(f"keyed: not an offers document: {exc}") from exc
    return ParseResult(stream="offers", prices=[
        PriceObservation(provider="keyed", sku=o["sku"], region="", pricing_model="on_demand",
                         price_per_hour=float(o["price"]), gpu_name_raw=o["gpu"],
                         gpu_count=1)
        for o in offers
    ])


SOURCE = Source(name=NAME, kind="prices", default_url="http://127.0.0.1:9/keyed", parse=parse,
                parts=_parts, description="test-only source that needs an API key")
