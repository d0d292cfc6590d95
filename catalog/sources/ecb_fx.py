"""The European Central Bank's euro foreign exchange reference rates (ecb_fx): what turns a
price listed in euros (Scaleway, Seeweb) or another currency into US dollars.

The ECB publishes, every TARGET business day at about 16:00 CET, how many units of some 30
currencies one euro buys (`USD 1.1172`: 1 EUR = 1.1172 USD). Two documents are read, each its
own stream:

* `daily`: https://www.ecb.europa.eu/stats/eurofxref/eurofxref.zip, one CSV (`eurofxref.csv`)
  of the latest day: `Date, USD, JPY, ...` with a space after every comma and the date spelled
  out (`30 October 2026`);
* `history`: https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip, one CSV
  (`eurofxref-hist.csv`) with a row per business day since 1999-01-04, newest first: `Date,USD,
  JPY,...` and ISO dates (`2026-10-30`).

Both layouts end every line with a comma (an empty last column, read past); a zip or the CSV
inside it are read alike. `N/A` is the ECB's "no rate that day" (a currency not yet or no
longer quoted: CYP, EEK, ROL, TRL, ...): no rate, not a reject. A cell that is neither a
positive number nor `N/A` is a reject (`bad_rate`), never a guess; a row whose date does not
read is a reject (`bad_date`). A header without `Date` and currency codes, a zip without the
CSV, bytes that are not UTF-8: ParseError; a file without any rate: EmptyPayloadError.

The payload's observation time is its newest day at 16:00 Europe/Frankfurt (when the ECB
publishes). USD per unit of each currency is derived in SQL (models/intermediate/
int_fx_rates.sql, mart fx_rates): the raw layer keeps the rates as published (per EUR).
Loading is cheap on a refetch: the history file restates every day since 1999 (about 220,000
rates), and the loader writes only the rates its stream has not stored yet
(warehouse/store.py, raw.fx_observations).

Recorded: ../shared/data/fx/ (eurofxref-hist.zip and eurofxref.csv of 2026-10-30, README).
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from gpucost.catalog.parsing import read_zip_member
from gpucost.catalog.records import (
    EmptyPayloadError,
    FxObservation,
    ParseError,
    ParseResult,
    Payload,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, Part, Source

NAME = "ecb_fx"
DEFAULT_URL = "https://www.ecb.europa.eu/stats/eurofxref"
DAILY, HISTORY = "daily", "history"
PUBLISHED_AT = time(16, 0)  # the ECB's publication time, Frankfurt
FRANKFURT = ZoneInfo("Europe/Berlin")
_CODE = re.compile(r"^[A-Z]{3}$")
_DATE_FORMATS = ("%Y-%m-%d", "%d %B %Y")


def _parts(ctx: FetchContext) -> list[Part]:
    """The latest day and the whole history (two streams)."""
    base = ctx.url().rstrip("/")
    return [
        Part(DAILY, f"{base}/eurofxref.zip", "eurofxref.zip", "zip"),
        Part(HISTORY, f"{base}/eurofxref-hist.zip", "eurofxref-hist.zip", "zip"),
    ]


def stream_of(payload: Payload) -> str:
    """history for the history file (its name says hist), else daily."""
    return HISTORY if "hist" in (payload.name or payload.url or "").lower() else DAILY


def _text(payload: Payload) -> str:
    content = payload.content
    if content[:2] == b"PK":
        try:
            archive = zipfile.ZipFile(io.BytesIO(content))
        except zipfile.BadZipFile as exc:
            raise ParseError(f"{NAME} {payload.name}: not a readable zip ({exc})") from None
        members = [i for i in archive.infolist()
                   if i.filename.lower().startswith("eurofxref") and i.filename.lower().endswith(
                       ".csv")]
        if len(members) != 1:
            raise ParseError(f"{NAME} {payload.name}: the zip holds "
                             f"{[i.filename for i in archive.infolist()][:5]}, not one "
                             "eurofxref*.csv")
        content = read_zip_member(archive, members[0], f"{NAME} {payload.name}")
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{NAME} {payload.name}: not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None


def _day(cell: str) -> date | None:
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cell, fmt).date()
        except ValueError:
            continue
    return None


def _rate(cell: str) -> float | None:
    try:
        value = float(cell)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def parse(payload: Payload) -> ParseResult:
    """The rates of one ECB file (daily or history; zipped or not)."""
    text = _text(payload)
    rows = csv.reader(io.StringIO(text))
    header = [c.strip() for c in next(rows, [])]
    codes = header[1:]
    while codes and codes[-1] == "":  # the trailing comma's empty column
        codes.pop()
    if not header or header[0] != "Date" or not codes or not all(_CODE.match(c) for c in codes):
        raise ParseError(f"{NAME} {payload.name}: the header is not Date and currency codes "
                         f"({','.join(header[:4])[:80]!r})")
    result = ParseResult(stream=stream_of(payload))
    newest: date | None = None
    for line in rows:
        cells = [c.strip() for c in line]
        if not any(cells):
            continue
        day = _day(cells[0])
        if day is None:
            result.rejects.append(Reject("bad_date", f"date {cells[0][:40]!r} does not read",
                                         ",".join(cells)[:500]))
            continue
        for code, cell in zip(codes, cells[1:], strict=False):
            if cell in ("N/A", ""):
                continue  # no rate that day (a currency not quoted then)
            rate = _rate(cell)
            if rate is None:
                result.rejects.append(Reject("bad_rate", f"{day} {code}: {cell[:40]!r} is not a "
                                             "positive rate", f"{day},{code},{cell[:40]}"))
                continue
            result.fx_rates.append(FxObservation(code, rate, day))
        newest = day if newest is None or day > newest else newest
    if not result.fx_rates or newest is None:
        raise EmptyPayloadError(f"{NAME} {payload.name}: no rate in the file")
    result.observed_at = datetime.combine(newest, PUBLISHED_AT, FRANKFURT)
    return result


SOURCE = Source(
    name=NAME, kind="prices", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    description="ECB euro reference exchange rates (daily and since 1999): non-USD prices "
                "in USD",
)
