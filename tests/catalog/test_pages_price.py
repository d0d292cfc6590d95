"""The one price-or-reject step the page parsers share (issue 37 item 7):
catalog.pages.price_or_reject reads a cell's price or appends its named Reject."""

from __future__ import annotations

import re

import pytest

from gpucost.catalog.pages import price_or_reject
from gpucost.catalog.records import Reject


@pytest.mark.parametrize("text, kwargs, price, reason", [
    ("$2.99 / GPU / hr", {}, 2.99, None),
    ("from $1,234.5", {}, 1234.5, None),
    ("$0.00", {}, None, "zero_or_missing_price"),
    ("", {}, None, "zero_or_missing_price"),
    ("Contact sales", {}, None, "no_price_contact_sales"),
    ("", {"context": "contact sales"}, None, "no_price_contact_sales"),
    ("N/A", {}, None, "price_not_available"),
    ("N/A", {"not_available": False}, None, "zero_or_missing_price"),
    ("Contact sales", {"reason": "zero_or_missing_price"}, None, "zero_or_missing_price"),
    ("$2.50 / hr", {"pattern": re.compile(r"^\$(?P<price>\d+(?:\.\d+)?) / hr$")}, 2.5, None),
    ("about $2.50 / hr", {"pattern": re.compile(r"^\$(?P<price>\d+(?:\.\d+)?) / hr$")},
     None, "zero_or_missing_price"),
])
def test_price_or_reject(text: str, kwargs: dict, price: float | None,
                         reason: str | None) -> None:
    rejects: list[Reject] = []
    assert price_or_reject(text, rejects, f"H100 on_demand: {text!r}", "raw row", **kwargs) \
        == price
    if reason is None:
        assert rejects == []
    else:
        assert rejects == [Reject(reason, f"H100 on_demand: {text!r}", "raw row")]
