"""The ECB's euro reference rates (catalog/sources/ecb_fx.py) on the recorded files
(../shared/data/fx/, README: 7,126 days from 1999-01-04 to 2026-10-30; 2026-10-30 USD 1.1172,
GBP 0.8338; 2026-10-29 USD 1.113, GBP 0.83578) and on small typed cases."""

from __future__ import annotations

import io
import zipfile
from datetime import date
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import ecb_fx

FX = Path("fx")


def _rates(result) -> dict[tuple[str, date], float]:
    return {(r.currency, r.rate_date): r.rate_per_eur for r in result.fx_rates}


def test_recorded_history(shared_data: Path) -> None:
    path = shared_data / FX / "eurofxref-hist.zip"
    result = ecb_fx.parse(Payload(path.name, path.read_bytes(), ext="zip"))
    rates = _rates(result)
    assert result.stream == "history" and not result.rejects
    # the README's figures
    assert rates[("USD", date(2026, 10, 30))] == 1.1172
    assert rates[("GBP", date(2026, 10, 30))] == 0.8338
    assert rates[("USD", date(2026, 10, 29))] == 1.113
    assert rates[("GBP", date(2026, 10, 29))] == 0.83578
    days = {r.rate_date for r in result.fx_rates}
    assert (len(days), min(days), max(days)) == (7126, date(1999, 1, 4), date(2026, 10, 30))
    # N/A is no rate (the Cypriot pound left with the euro in 2008); the trailing comma's
    # empty column is no currency
    assert ("CYP", date(2026, 10, 30)) not in rates and ("CYP", date(1999, 1, 4)) in rates
    assert "" not in {r.currency for r in result.fx_rates}
    # 2026-10-24/25 is a weekend: no row
    assert ("USD", date(2026, 10, 24)) not in rates
    assert result.observed_at.date() == date(2026, 10, 30)


def test_recorded_daily_layout(shared_data: Path) -> None:
    """`Date, USD, ...` with a space after every comma, the date spelled out."""
    path = shared_data / FX / "eurofxref.csv"
    result = ecb_fx.parse(Payload(path.name, path.read_bytes(), ext="csv"))
    rates = _rates(result)
    assert result.stream == "daily" and len(result.fx_rates) == 29 and not result.rejects
    assert rates[("USD", date(2026, 10, 30))] == 1.1172
    assert rates[("GBP", date(2026, 10, 30))] == 0.8338  # printed 0.83380


def test_zip_and_csv_read_alike() -> None:
    body = b"Date,USD,GBP,\n2026-10-30,1.1172,0.8338,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("eurofxref-hist.csv", body)
    zipped = ecb_fx.parse(Payload("eurofxref-hist.zip", buffer.getvalue()))
    plain = ecb_fx.parse(Payload("eurofxref-hist.csv", body))
    assert _rates(zipped) == _rates(plain) == {("USD", date(2026, 10, 30)): 1.1172,
                                               ("GBP", date(2026, 10, 30)): 0.8338}


def test_bad_cells_are_rejects_never_guesses() -> None:
    body = (b"Date,USD,GBP,\n2026-10-30,1.1172,-1,\n2026-10-29,abc,0.83578,\n"
            b"30/10/2026,1.1,0.8,\n")
    result = ecb_fx.parse(Payload("eurofxref-hist.csv", body))
    assert _rates(result) == {("USD", date(2026, 10, 30)): 1.1172,
                              ("GBP", date(2026, 10, 29)): 0.83578}
    assert sorted(r.reason for r in result.rejects) == ["bad_date", "bad_rate", "bad_rate"]


@pytest.mark.parametrize("body", [b"gpu,hourly_usd\nH100,2.5\n", b"<html>moved</html>",
                                  b"[" * 1000, bytes(range(128, 256))])
def test_another_layout_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(ParseError):
        ecb_fx.parse(Payload("eurofxref.csv", body))


def test_a_zip_without_the_rates_is_a_parse_error() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("nebius.csv", b"gpu,hourly_usd\n")
    with pytest.raises(ParseError):
        ecb_fx.parse(Payload("eurofxref.zip", buffer.getvalue()))


def test_header_alone_is_empty() -> None:
    with pytest.raises(EmptyPayloadError):
        ecb_fx.parse(Payload("eurofxref.csv", b"Date, USD, JPY, \n"))
