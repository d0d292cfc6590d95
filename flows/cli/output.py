"""What every command prints: the formats, the cells, numbers and ages, and the exit codes.

One set of formats everywhere (`--format table|csv|json`, `add_format_option`):
- `table`: aligned columns for a terminal, every cell through `terminal.safe` (a value is
  remote text: a control character in it is shown escaped, never obeyed);
- `csv`: RFC 4180 (the csv module's CRLF line ends, so a CR inside a value is quoted too),
  the data exact;
- `json`: strict JSON (dates as ISO text, NaN and infinities as null, never a bare `NaN`).

Numbers: `number` (prices, ratios: 65,509 / 2.99 / 0.0979 / 8.40e+22), `count` (parameters,
tokens, FLOPs: 7e9, 1.56e12) and `age_text` (102.4 d). A missing figure prints as "-".

Exit codes (every command):
  0  success; `refresh` exits 0 whenever it published, even when no live source could be
     reached (offline, the curated data and the last good observations are published by
     design), while its Prefect flow run then ends Failed for automations to act on
  1  the run failed: nothing new was published (a model or check failed), a query failed,
     no published warehouse yet, or another refresh holds the writer lock; `server
     status`: no local Prefect server answers, or its scheduler creates no runs; `serve`:
     the scheduler creates no runs of the served deployments
  2  usage error (unknown source, bad option, invalid cron)
  3  data was published but a source failed (`refresh --strict`; `refresh --upload` when
     the upload to object storage failed; a refused file in `ingest`; `sources
     --strict` when a source is failing, replayed, never fetched or stale, stale meaning
     live data older than --max-age-days)
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import IO, Any

from gpucost.flows.cli.terminal import safe

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SOURCE_FAILED = 0, 1, 2, 3
EXIT_CODES = __doc__[__doc__.index("Exit codes"):].rstrip()

FORMATS = ("table", "csv", "json")


def add_format_option(parser: Any, help: str | None = None,
                      aliases: dict[str, str] | None = None) -> None:
    """`--format table|csv|json`, the same choices on every command (default: table).
    `aliases` maps a former name to its format ({"text": "table"}): still accepted, not listed."""
    known = dict(aliases or {})

    def fmt(text: str) -> str:
        return known.get(text, text)

    parser.add_argument("--format", choices=FORMATS, default="table", type=fmt,
                        help=help or "table (aligned, for a terminal), csv (RFC 4180) or json "
                                     "(strict: null for a missing number)")


def json_value(v: Any) -> Any:
    """A value as strict JSON holds it: dates as ISO text, a non-finite number as null."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, Decimal):
        return float(v) if v.is_finite() else None
    if isinstance(v, (datetime, date, time)):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    return v


def write_json(value: Any, out: IO[str] | None = None) -> None:
    """`value` (rows, a dict) as strict JSON, indented one space, and a newline."""
    out = out or sys.stdout
    json.dump(json_value(value), out, indent=1, allow_nan=False, default=str)
    out.write("\n")


def write_csv(headers: Sequence[str], rows: Iterable[Sequence[Any]],
              out: IO[str] | None = None) -> None:
    """RFC 4180 CSV: a header line, then the rows exactly (None as an empty cell)."""
    writer = csv.writer(out or sys.stdout)
    writer.writerow(headers)
    writer.writerows(rows)


def write_frame(frame: Any, fmt: str, out: IO[str] | None = None) -> None:
    """A pandas DataFrame as `csv` or `json`. CSV is pandas' writer in write_csv's dialect
    (the csv module, CRLF line ends, a missing value as an empty cell), which keeps a
    time column's text as pandas gives it; JSON is pandas' records (times as ISO text in
    UTC, NaN as null) through write_json."""
    out = out or sys.stdout
    if fmt == "csv":
        frame.to_csv(out, index=False, lineterminator="\r\n")
    elif fmt == "json":
        write_json(json.loads(frame.to_json(orient="records", date_format="iso")), out)
    else:
        raise ValueError(f"write_frame writes csv or json, not {fmt!r}")


def aligned(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, indent: str = "",
            rule: bool = False) -> list[str]:
    """Aligned columns as lines (no trailing blanks); `rule` adds a dashed line under the
    header. Every cell goes through `safe`: one value stays one line of the table."""
    head = [safe(h) for h in headers]
    cells = [[safe(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(head)]

    def line(values: Sequence[str]) -> str:
        return (indent + "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True))
                ).rstrip()

    return [line(head)] + ([indent + "  ".join("-" * w for w in widths)] if rule else []) \
        + [line(r) for r in cells]


def write_table(headers: Sequence[str], rows: Iterable[Sequence[Any]],
                out: IO[str] | None = None, *, indent: str = "", rule: bool = False) -> None:
    out = out or sys.stdout
    for text in aligned(headers, rows, indent=indent, rule=rule):
        out.write(text + "\n")


def number(v: Any, digits: int = 3) -> str:
    """A readable figure: 65,509 / 2.99 / 0.0979 / 8.40e+22 (>= 1e13 or < 1e-3); "-" if none."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    v = float(v)
    if not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1e13 or abs(v) < 1e-3:
        return f"{v:.{digits - 1}e}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def count(v: Any) -> str:
    """Parameters, tokens, FLOPs: 7e9, 1.56e12, 3.79e25; "-" if none."""
    if v is None:
        return "-"
    text = f"{float(v):.3g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa}e{int(exponent)}"


def age_text(days: float | None) -> str:
    """An age in days, one decimal ("102.4 d"); "" when unknown."""
    return "" if days is None else f"{days:.1f} d"
