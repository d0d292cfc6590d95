"""flows/cli/output.py: the one output layer (formats, cells, numbers, ages, exit codes)."""

from __future__ import annotations

import argparse
import io
import json
import math
from datetime import date, datetime
from decimal import Decimal

import pytest

from gpucost.flows.cli import output


def test_numbers_counts_and_ages_read_as_worked_by_hand() -> None:
    assert output.number(65509.4) == "65,509"
    assert output.number(2.9875) == "2.99"
    assert output.number(0.09791) == "0.0979"
    assert output.number(8.4e22) == "8.40e+22"
    assert output.number(0.0004) == "4.00e-04"
    assert [output.number(v) for v in (None, math.nan, 0)] == ["-", "-", "0"]
    assert output.count(7e9) == "7e9"
    assert output.count(1.5625e12) == "1.56e12"
    assert output.count(3.7856e25) == "3.79e25"
    assert output.count(512) == "512"
    assert output.age_text(102.44) == "102.4 d"
    assert output.age_text(None) == ""


def test_the_three_formats_keep_the_data_and_the_table_escapes_it() -> None:
    rows = [["H100", 2.49, None], ["evil\x1b[2J\nrow", math.inf, Decimal("1.5")]]
    out = io.StringIO()
    output.write_csv(["gpu", "price", "x"], rows, out)
    assert out.getvalue().split("\r\n")[:2] == ["gpu,price,x", "H100,2.49,"]
    assert '"evil\x1b[2J\nrow"' in out.getvalue()  # exact, quoted
    out = io.StringIO()
    output.write_json([dict(zip(["gpu", "price", "x"], r, strict=True)) for r in rows]
                      + [{"day": date(2026, 11, 27), "at": datetime(2026, 11, 27, 1, 2)}], out)
    data = json.loads(out.getvalue())
    assert data[1] == {"gpu": "evil\x1b[2J\nrow", "price": None, "x": 1.5}
    assert data[2] == {"day": "2026-11-27", "at": "2026-11-27T01:02:00"}
    lines = output.aligned(["gpu", "price"], [["H100", "2.49"], ["evil\x1b\nx", "-"]], rule=True)
    assert lines == ["gpu          price", "-----------  -----", "H100         2.49",
                     "evil\\x1b\\nx  -"]


def test_every_command_offers_the_same_formats() -> None:
    parser = argparse.ArgumentParser()
    output.add_format_option(parser)
    assert parser.parse_args([]).format == "table"
    for fmt in ("table", "csv", "json"):
        assert parser.parse_args(["--format", fmt]).format == fmt
    with pytest.raises(SystemExit):
        parser.parse_args(["--format", "text"])
    assert (output.EXIT_OK, output.EXIT_FAILED, output.EXIT_USAGE,
            output.EXIT_SOURCE_FAILED) == (0, 1, 2, 3)
    assert output.EXIT_CODES.startswith("Exit codes") and "  3  data was published" \
        in output.EXIT_CODES


def test_a_former_format_name_stays_an_alias() -> None:
    """`explain --format text` (its former name) is `table`; the choices listed stay three."""
    parser = argparse.ArgumentParser()
    output.add_format_option(parser, aliases={"text": "table"})
    assert parser.parse_args(["--format", "text"]).format == "table"
    assert parser.parse_args(["--format", "csv"]).format == "csv"
    assert "{table,csv,json}" in parser.format_usage()
    with pytest.raises(SystemExit):
        parser.parse_args(["--format", "yaml"])


def test_a_frame_as_csv_and_json() -> None:
    """write_frame: CSV in write_csv's dialect (CRLF; a missing value empty; a CR quoted),
    the same bytes as write_csv for plain values; JSON strict (NaN null, times ISO in UTC)."""
    import pandas as pd

    frame = pd.DataFrame({"gpu": ["H100", "evil\rrow"], "price": [2.49, math.nan],
                          "n": [8, 1],
                          "at": pd.to_datetime(["2026-03-08", "2026-03-09"], utc=True)})
    out = io.StringIO()
    output.write_frame(frame, "csv", out)
    assert out.getvalue() == ("gpu,price,n,at\r\nH100,2.49,8,2026-03-08 00:00:00+00:00\r\n"
                              '"evil\rrow",,1,2026-03-09 00:00:00+00:00\r\n')
    plain = io.StringIO()
    output.write_csv(["gpu", "price", "n"], [["H100", 2.49, 8], ["evil\rrow", None, 1]], plain)
    out = io.StringIO()
    output.write_frame(frame[["gpu", "price", "n"]], "csv", out)
    assert out.getvalue() == plain.getvalue()
    out = io.StringIO()
    output.write_frame(frame, "json", out)
    assert json.loads(out.getvalue()) == [
        {"gpu": "H100", "price": 2.49, "n": 8, "at": "2026-03-08T00:00:00.000Z"},
        {"gpu": "evil\rrow", "price": None, "n": 1, "at": "2026-03-09T00:00:00.000Z"}]
    with pytest.raises(ValueError):
        output.write_frame(frame, "table", out)
