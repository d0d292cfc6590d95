"""A test-only source that needs an API key (used by tests/test_security.py).

It sends the key both as a bearer header and, like some real APIs, as a query parameter,
so that a URL in an error message carries it: the worst case for leaks.
"""

from __future__ import annotations

import json

import requests

from catalog import http, secrets
from catalog.records import ParseError, ParseResult, Payload, PriceObservation, SourceError

NAME = "keyed"
KIND = "prices"
DEFAULT_URL = "http://127.0.0.1:9/keyed"
BACKOFF_S = 0.0


def fetch(session: requests.Session | None = None) -> list[Payload]:
    key = secrets.api_key(NAME)
    if key is None:
        raise SourceError("GPUCOST_KEYED_API_KEY is not set")
    url = http.source_url(NAME, DEFAULT_URL)
    return [http.fetch(url, name="offers.json", ext="json", session=session,
                       params={"api_key": key}, headers={"Authorization": f"Bearer {key}"},
                       backoff_s=BACKOFF_S)]


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
