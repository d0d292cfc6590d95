"""Issue 42, item 1: the published file is written in DuckDB storage version v1.4.0 (DuckDB 1.4
reads it: duckdb-wasm 1.32, @duckdb/node-api 1.4). DuckDB keeps a file's format when it writes
into it, so a file an older gpucost published in v1.5.0 would stay unreadable by DuckDB 1.4
under incremental builds (each starts from a copy of it): such a base is rebuilt in full once,
said by name, and the next build is incremental again."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

import gpucost.warehouse.publish as publish
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse.publish import SERVING_STORAGE_VERSION, serving_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _header_version(path: Path) -> int:
    """The storage version number in DuckDB's main file header (bytes 12-19 after the
    checksum and the magic `DUCK`): what DuckDB 1.4 compares with the 64-67 it reads."""
    head = path.read_bytes()[:20]
    assert head[8:12] == b"DUCK"
    return struct.unpack("<Q", head[12:20])[0]


def _tag(path: Path) -> str:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("select tags['storage_version'] from duckdb_databases() "
                           "where database_name = current_database()").fetchone()[0]


def test_a_v1_5_base_is_rebuilt_in_full_into_v1_4(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert SERVING_STORAGE_VERSION == "v1.4.0"
    data = tmp_path / "data"
    ingest_files("skypilot", [FIXTURES / "skypilot" / "lambda_vms_tiny.csv"],
                 observed_at=datetime(2026, 11, 1, tzinfo=UTC), data_dir=data, rebuild=False)
    with monkeypatch.context() as m:  # the file an older gpucost published
        m.setattr(publish, "SERVING_STORAGE_VERSION", "v1.5.0")
        build_and_publish(data)
    # 68: "version number 68, but we can only read versions between 64 and 67" (DuckDB 1.4)
    assert (_header_version(serving_path(data)), _tag(serving_path(data))) == (68, "v1.5.0+")

    result = build_and_publish(data)
    assert result.history_mode == ("full: the published file is in DuckDB storage version "
                                   "v1.5.0+, the publish writes v1.4.0 (readable by DuckDB 1.4 "
                                   "and later)")
    assert (_header_version(serving_path(data)), _tag(serving_path(data))) == (67, "v1.4.0+")
    assert build_and_publish(data).history_mode == "incremental"
    assert _header_version(serving_path(data)) == 67
