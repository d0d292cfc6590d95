"""Exports: every mart as zstd Parquet and CSV plus schema.json, written atomically after each
successful publish; they open in pandas and DuckDB with the documented columns."""

import json

import duckdb
import pandas as pd
import pytest

from gpucost.flows import steps
from gpucost.models.docs import Dictionary, mart_names
from gpucost.models.runner import CheckFailedError
from gpucost.warehouse.exports import export_dir
from gpucost.warehouse.publish import serving_path


def _marts(data):
    con = duckdb.connect(str(serving_path(data)), read_only=True)
    try:
        return {m: (con.execute(f'select count(*) from "{m}"').fetchone()[0],
                    [r[0] for r in con.execute(f'describe "{m}"').fetchall()])
                for m in mart_names()}
    finally:
        con.close()


def test_every_mart_exported_with_documented_columns(service_warehouse):
    out = export_dir(service_warehouse)
    schema = json.loads((out / "schema.json").read_text())
    marts = _marts(service_warehouse)
    docs = Dictionary.load()
    assert set(schema["tables"]) == set(marts)
    assert schema["published_at"]
    con = duckdb.connect()
    for mart, (rows, columns) in marts.items():
        entry = schema["tables"][mart]
        assert entry["row_count"] == rows
        assert [c["name"] for c in entry["columns"]] == columns
        for c in entry["columns"]:
            doc = docs.column(mart, c["name"])
            assert c["description"] == doc.description and c["unit"] == doc.unit
        # a history mart is exported by month (a glob) with a `latest` file beside it
        parquet, csv = out / entry["files"]["parquet"], out / entry["files"]["csv"]
        parquet_files = sorted(out.glob(entry["files"]["parquet"]))
        csv_files = sorted(out.glob(entry["files"]["csv"]))
        if "latest" in entry["files"]:
            assert mart in ("price_history", "price_changes", "price_index")
            latest = entry["files"]["latest"]
            parquet_files.append(out / latest["parquet"])
            csv_files.append(out / latest["csv"])
            assert (out / latest["parquet"]).is_file() and (out / latest["csv"]).is_file()
        else:
            assert parquet_files == [parquet] and csv_files == [csv]
        # DuckDB reads the Parquet file: same columns, same rows, zstd compressed
        if rows or "latest" not in entry["files"]:
            rel = con.execute(f"select * from read_parquet('{parquet}')")
            assert [d[0] for d in rel.description] == columns
            assert len(rel.fetchall()) == rows
        for path in parquet_files:
            codecs = {r[0] for r in con.execute(
                f"select distinct compression from parquet_metadata('{path}')").fetchall()}
            assert codecs <= {"ZSTD"}, codecs
        # pandas reads the CSV files with the same columns and rows
        frames = [pd.read_csv(p) for p in csv_files]
        assert all(list(f.columns) == columns for f in frames)
        months = frames[:-1] if "latest" in entry["files"] else frames
        assert sum(len(f) for f in months) == rows
        # and the Parquet files, with the engine the venv installs (pyarrow)
        parquet_frames = [pd.read_parquet(p, engine="pyarrow") for p in parquet_files]
        assert all(list(f.columns) == columns for f in parquet_frames)
        months = parquet_frames[:-1] if "latest" in entry["files"] else parquet_frames
        assert sum(len(f) for f in months) == rows
    con.close()


def test_exported_values_match_the_warehouse(service_warehouse):
    out = export_dir(service_warehouse)
    con = duckdb.connect(str(serving_path(service_warehouse)), read_only=True)
    try:
        diff = con.execute(
            f"(select * from gpu_offers except all "
            f"select * from read_parquet('{out / 'gpu_offers.parquet'}')) union all "
            f"(select * from read_parquet('{out / 'gpu_offers.parquet'}') except all "
            "select * from gpu_offers)").fetchall()
        h100 = con.execute("select price_per_gpu_hour from gpu_offers where source = 'skypilot'"
                           " and sku = 'gpu_8x_h100_sxm5'").fetchone()[0]
    finally:
        con.close()
    assert diff == []
    frame = pd.read_csv(out / "gpu_offers.csv")
    row = frame[(frame["source"] == "skypilot") & (frame["sku"] == "gpu_8x_h100_sxm5")]
    assert row["price_per_gpu_hour"].tolist() == [pytest.approx(h100)] == [pytest.approx(3.49)]


def _snapshot(out):
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file()}


def test_failed_publish_or_export_leaves_exports_whole(tmp_path, monkeypatch):
    out = export_dir(tmp_path)
    out.mkdir(parents=True)
    (out / ".tmp-999-old.parquet").write_bytes(b"left by a crashed export")
    result = steps.build_and_publish(tmp_path)  # curated catalog only
    assert result.export_error is None and "schema.json" in result.exports
    assert not list(out.glob(".tmp-*"))  # crash leftovers are cleared, never published
    before = _snapshot(out)
    assert "schema.json" in before and "accelerators.parquet" in before

    def failing_checks(con):
        con.execute("create or replace table accelerators as select 1 as half_built")
        raise CheckFailedError({"price_positive": [("a row",)]})

    monkeypatch.setattr(steps.runner, "check_or_raise", failing_checks)
    with pytest.raises(CheckFailedError):
        steps.build_and_publish(tmp_path)
    assert _snapshot(out) == before  # no new file, no temporary file left behind
    monkeypatch.undo()

    # an export that fails is reported; the warehouse itself is still published
    def broken(con, data_dir, changed_since=None):
        raise OSError("disk full")

    monkeypatch.setattr(steps, "stage_exports", broken)
    result = steps.build_and_publish(tmp_path)
    assert result.export_error == "OSError: disk full" and result.exports == []
    assert result.mart_rows["accelerators"] > 0
    assert _snapshot(out) == before


def test_csv_cells_that_start_like_a_formula_are_quoted(tmp_path):
    """A scraped name such as `=cmd|' /C calc'!A0` passed into CSV exports unescaped
    (issue "Hostile input", item 11); numbers stay numbers, Parquet keeps the value."""
    import csv

    import duckdb

    from gpucost.warehouse.exports import stage_exports

    con = duckdb.connect()
    con.execute("create table gpu_offers as select * from (values "
                "('=cmd|'' /C calc''!A0', -1.5), ('+SUM(A1)', 2.0), ('@x', 3.0), "
                "('H100 SXM', 4.0), ('-', 5.0)) as v(gpu_name_raw, price)")
    staged = stage_exports(con, tmp_path, ["gpu_offers"], lambda files: {"files": files})
    staged.commit()
    with (tmp_path / "gpu_offers.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["gpu_name_raw"] for r in rows] == [
        "'=cmd|' /C calc'!A0", "'+SUM(A1)", "'@x", "H100 SXM", "'-"]
    assert [r["price"] for r in rows] == ["-1.5", "2.0", "3.0", "4.0", "5.0"]
    parquet = con.execute(f"select gpu_name_raw from '{tmp_path / 'gpu_offers.parquet'}'"
                          ).fetchall()
    assert parquet[0] == ("=cmd|' /C calc'!A0",)
