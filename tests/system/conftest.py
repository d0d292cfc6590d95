"""Fixtures of the system tests: one warehouse loaded from every recorded file, shared."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import duckdb
import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def loaded(tmp_path_factory, request):
    """The documented load (flows/recorded.py) of every recorded file into a fresh
    warehouse, published once: (read-only connection, results, published, seconds, lines,
    data directory)."""
    if not SHARED.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    from gpucost.flows import recorded

    data = tmp_path_factory.mktemp("everything")
    lines: list[str] = []
    start = time.perf_counter()
    results, published = recorded.ingest_recorded(SHARED, data, say=lines.append)
    seconds = time.perf_counter() - start
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    yield con, results, published, seconds, lines, data
    con.close()
    shutil.rmtree(data, ignore_errors=True)


