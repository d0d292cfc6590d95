"""The macro token_cost_split (models/macros/token_cost_split.sql): a query's measured cost
split between its input and output tokens, and the blended million. Plain arithmetic on an
in-memory DuckDB, no warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

MACROS = Path(__file__).resolve().parents[2] / "models" / "macros"


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    for name in ("token_cost_input_share", "token_cost_split"):
        con.execute((MACROS / f"{name}.sql").read_text())
    yield con
    con.close()


def split(con, *args) -> tuple:
    return con.execute("select s.usd_per_million_input_tokens, s.usd_per_million_output_tokens,"
                       " s.usd_per_million_tokens_blended from (select token_cost_split(?, ?, ?,"
                       " ?, ?) as s)", list(args)).fetchone()


def test_the_split_keeps_the_query_cost_and_prices_output_at_the_ratio(con):
    """1.0 USD per million output tokens all-in, 100 output tokens per query: a query costs
    100 micro-USD. 300 input tokens, an output token costing 2 input tokens: 300 + 100 x 2 =
    500 input-token equivalents, so input 100 / 500 = 0.2 USD/M, output 0.4 USD/M; 300 x 0.2
    + 100 x 0.4 = 100 (the query's cost). Blended 3:1: (3 x 0.2 + 0.4) / 4 = 0.25."""
    inp, out, blended = split(con, 1.0, 300, 100, 2.0, 3)
    assert (inp, out, blended) == (pytest.approx(0.2), pytest.approx(0.4), pytest.approx(0.25))
    assert 300 * inp + 100 * out == pytest.approx(1.0 * 100)


def test_no_split_without_every_figure(con):
    for args in ((1.0, None, 100, 2.0, 3), (1.0, 0, 100, 2.0, 3), (1.0, 300, 100, None, 3),
                 (None, 300, 100, 2.0, 3)):
        assert split(con, *args) == (None, None, None), args
    assert split(con, 1.0, 300, 100, 2.0, None)[2] is None
