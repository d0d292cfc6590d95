"""`gpucost offers` says which prices were converted to USD, from what (issue 41, currencies)."""

from __future__ import annotations

from datetime import date

from gpucost.flows.cli.offers import COLUMNS, fx_mark


def test_a_converted_price_names_its_listed_price_and_the_rate_day() -> None:
    # Scaleway's H100-1-80G, 2.52 EUR/h in the undated SkyPilot catalog, converted at the
    # newest ECB rate of the recorded file (2026-10-30: 1.1172 USD per EUR -> 2.8153 USD)
    assert fx_mark("newest_rate", 2.52, "EUR", date(2026, 10, 30)) == \
        " (listed 2.52 EUR; undated: ECB newest rate, 2026-10-30)"
    # a dated price converts at the rate of its own day (a Sunday takes Friday's)
    assert fx_mark("observation_day", 2.52, "EUR", "2026-10-23") == \
        " (listed 2.52 EUR; ECB rate of 2026-10-23)"


def test_a_usd_price_carries_no_conversion_note() -> None:
    assert fx_mark("listed", 3.99, "USD", None) == ""
    assert fx_mark(None, 3.99, "USD", None) == ""


def test_csv_and_json_carry_the_listed_price_and_the_rate() -> None:
    assert COLUMNS[-4:] == ["price_listed", "currency_listed", "fx_rate_date", "fx_basis"]
