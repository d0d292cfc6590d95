"""Safe publishing: a failed build never replaces the published file; reads are read-only."""

import duckdb
import pytest

from gpucost.warehouse.publish import (
    NoWarehouseError,
    WarehouseBusyError,
    build,
    connect_readonly,
    serving_path,
    writer_lock,
)


def _publish(tmp_path, value):
    with build(tmp_path) as con:
        con.execute(f"create table t as select {value} as v")


def test_build_swaps_in_and_failed_build_leaves_published_intact(tmp_path):
    _publish(tmp_path, 1)
    with pytest.raises(RuntimeError):
        with build(tmp_path) as con:
            con.execute("create table t as select 2 as v")
            raise RuntimeError("a check failed")
    assert not (tmp_path / "gpucost_next.duckdb").exists()
    con = duckdb.connect(str(serving_path(tmp_path)), read_only=True)
    assert con.execute("select v from t").fetchone() == (1,)
    con.close()


def test_reader_holding_old_file_does_not_block_publish(tmp_path):
    _publish(tmp_path, 1)
    reader = duckdb.connect(str(serving_path(tmp_path)), read_only=True)
    _publish(tmp_path, 2)  # must not fail on the reader's lock
    assert reader.execute("select v from t").fetchone() == (1,)
    reader.close()
    fresh = duckdb.connect(str(serving_path(tmp_path)), read_only=True)
    assert fresh.execute("select v from t").fetchone() == (2,)
    fresh.close()


def test_second_writer_fails_fast(tmp_path):
    with writer_lock(tmp_path):
        with pytest.raises(WarehouseBusyError):
            with writer_lock(tmp_path):
                pass


@pytest.mark.parametrize("query", [
    "copy t to '{tmp}/out.csv'",
    "attach '{tmp}/other.duckdb' as other",
    "select * from read_csv('/etc/passwd')",
    "create table u (a int)",
    "set enable_external_access = true",
])
def test_readonly_connection_refuses_writes_and_file_access(tmp_path, query):
    _publish(tmp_path, 1)
    con = connect_readonly(tmp_path)
    with pytest.raises(duckdb.Error):
        con.execute(query.format(tmp=tmp_path))
    con.close()


def test_no_warehouse_yet(tmp_path):
    with pytest.raises(NoWarehouseError):
        connect_readonly(tmp_path)
