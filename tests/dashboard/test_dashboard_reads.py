"""How the dashboard reads the published file (flows/dashboard_app.py `read`), without a
browser: read-only, nothing left open between reads (a writer can open the file right after),
and a read keyed by a file a publish has since replaced is refused (Swapped), so a page never
mixes two publishes."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest


def _file(path: Path, x: int) -> None:
    con = duckdb.connect(str(path))
    con.execute("create table t as select ? as x", [x])
    con.close()


def test_reads_are_read_only_closed_and_refuse_a_swapped_file(
        streamlit_installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpucost.flows import dashboard_app as app

    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    published = tmp_path / "gpucost.duckdb"
    _file(published, 1)
    ident = app.identity(published)

    def x(con: duckdb.DuckDBPyConnection) -> int:
        return con.execute("select x from t").fetchone()[0]

    assert app.read(ident, x) == 1
    with pytest.raises(duckdb.Error, match="read-only"):
        app.read(ident, lambda con: con.execute("create table u (y int)"))
    duckdb.connect(str(published)).close()  # nothing of the dashboard holds the file

    # a publish: the next build swapped in with os.replace
    _file(tmp_path / "gpucost_next.duckdb", 2)
    os.replace(tmp_path / "gpucost_next.duckdb", published)
    assert app.identity(published) != ident
    with pytest.raises(app.Swapped):
        app.read(ident, x)
    assert app.read(app.identity(published), x) == 2
