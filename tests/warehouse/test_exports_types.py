"""Types dashboards read without help (issue 42, item 3): every export of the documented load
of all recorded data (flows/recorded.py; one load for the module), read from `latest/` with
pandas (`read_csv(parse_dates=<the time columns the manifest lists>)`, no format argument;
`read_parquet`) and with pyarrow, gives datetimes for time columns and numbers for number
columns; and one recorded price, worked out by hand, reads the same from the CSV, the
Parquet and the warehouse."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from gpucost.warehouse.exports import MANIFEST_NAME, export_dir, latest_snapshot
from gpucost.warehouse.publish import serving_path

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TIMES = ("TIMESTAMP WITH TIME ZONE", "TIMESTAMP", "DATE")
NUMBERS = ("DOUBLE", "FLOAT", "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT",
           "UBIGINT", "UINTEGER")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, request) -> Path:
    """A data dir with every recorded file loaded and published once (about 15 s)."""
    if not SHARED.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    from gpucost.flows import recorded as rec

    data = tmp_path_factory.mktemp("exports-types")
    rec.ingest_recorded(SHARED, data, say=lambda s: None)
    yield data
    shutil.rmtree(data, ignore_errors=True)


def _manifest(data: Path) -> tuple[Path, dict]:
    folder = latest_snapshot(export_dir(data))
    assert folder is not None
    return folder, json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))


def _tabular(manifest: dict) -> list[dict]:
    return [f for f in manifest["files"] if f["format"] in ("csv", "parquet")]


def test_every_export_reads_with_datetimes_and_numbers(recorded: Path) -> None:
    """Every CSV and Parquet file of latest/ (all marts, month files and latest windows):
    pandas and pyarrow give datetime64 (tz-aware UTC for TIMESTAMP WITH TIME ZONE) for the
    time columns and numeric dtypes for the number columns, with the manifest's row count.
    The one documented exception: a DATE column read from Parquet by pandas is
    `datetime.date` objects (Arrow date32; docs/operations.md), a datetime64 from CSV."""
    folder, manifest = _manifest(recorded)
    files = _tabular(manifest)
    assert {f["table"] for f in files} >= {"gpu_offers", "price_history", "price_changes",
                                           "price_index", "fx_rates"}
    checked_times = 0
    for entry in files:
        path = folder / entry["path"]
        types = {c["name"]: c["type"] for c in entry["columns"]}
        times = [n for n, t in types.items() if t in TIMES]
        numbers = [n for n, t in types.items() if t in NUMBERS]
        if entry["format"] == "csv":
            frame = pd.read_csv(path, parse_dates=times)
            arrow = pacsv.read_csv(path)
        else:
            frame = pd.read_parquet(path)
            arrow = pq.read_table(path)
        assert len(frame) == arrow.num_rows == entry["rows"], entry["path"]
        assert list(frame.columns) == list(types), entry["path"]
        if not len(frame):
            continue
        for name in times:
            kind, dtype, atype = types[name], frame[name].dtype, arrow.schema.field(name).type
            if kind == "DATE" and entry["format"] == "parquet":
                assert pa.types.is_date32(atype), (entry["path"], name, atype)
                values = frame[name].dropna()
                assert values.map(type).isin([date]).all()
                continue
            assert pd.api.types.is_datetime64_any_dtype(dtype), (entry["path"], name, dtype)
            if entry["format"] == "csv" and frame[name].isna().all():
                continue  # an empty CSV column: pyarrow infers `null` (no type to infer)
            assert pa.types.is_timestamp(atype) or pa.types.is_date(atype), (name, atype)
            if kind == "TIMESTAMP WITH TIME ZONE":
                assert str(dtype.tz) == "UTC", (entry["path"], name, dtype)
                assert atype.tz in ("UTC", "+00:00"), (entry["path"], name, atype)
            checked_times += 1
        for name in numbers:
            if frame[name].isna().all() and entry["format"] == "csv":
                continue  # an empty CSV column has no type to infer
            assert pd.api.types.is_numeric_dtype(frame[name].dtype), (
                entry["path"], name, frame[name].dtype)
            atype = arrow.schema.field(name).type
            assert pa.types.is_integer(atype) or pa.types.is_floating(atype) or (
                pa.types.is_null(atype) and entry["format"] == "csv"), (name, atype)
    assert checked_times > 100


def test_a_recorded_price_reads_the_same_everywhere(recorded: Path) -> None:
    """AWS p5.48xlarge (8x H100 SXM) on demand in us-east-1, the last row of the recorded
    prices/aws_price_list/p5.48xlarge_us-east-1_ondemand_history.csv:
    `2026-08-22T07:34:47,p5.48xlarge,55.04` (a time without zone, read as UTC). Per GPU:
    55.04 / 8 = 6.88 USD/GPU-hour, observed 2026-08-22 07:34:47 UTC: the price_history row of
    day 2026-08-22, in the month file months/2026-08 of the CSV and the Parquet export and
    in the warehouse."""
    folder, manifest = _manifest(recorded)
    types = {c["name"]: c["type"] for c in next(
        f for f in manifest["files"] if f["path"] == "price_history/months/2026-08.csv"
    )["columns"]}
    times = [n for n, t in types.items() if t in TIMES]
    csv = pd.read_csv(folder / "price_history" / "months" / "2026-08.csv", parse_dates=times)
    parquet = pd.read_parquet(folder / "price_history" / "months" / "2026-08.parquet")
    observed = pd.Timestamp(datetime(2026, 8, 22, 7, 34, 47, tzinfo=UTC))
    rows = []
    for frame in (csv, parquet):
        hit = frame[(frame["provider"] == "aws")
                    & (frame["accelerator_id"] == "nvidia-h100-sxm5-80gb")
                    & (frame["pricing_model"] == "on_demand")
                    & (pd.to_datetime(frame["day"]) == pd.Timestamp("2026-08-22"))]
        assert len(hit) == 1, hit
        rows.append((float(hit["price_per_gpu_hour"].iloc[0]), hit["observed_at"].iloc[0]))
    con = duckdb.connect(str(serving_path(recorded)), read_only=True)
    try:
        price, at = con.execute(
            "select price_per_gpu_hour, observed_at from price_history where provider = 'aws' "
            "and accelerator_id = 'nvidia-h100-sxm5-80gb' and pricing_model = 'on_demand' "
            "and day = date '2026-08-22'").fetchone()
    finally:
        con.close()
    assert rows[0] == rows[1] == (pytest.approx(55.04 / 8), observed)
    assert (price, at) == (pytest.approx(6.88), observed.to_pydatetime())
    # the CSV text itself: ISO-8601 with a full offset
    text = (folder / "price_history" / "months" / "2026-08.csv").read_text(encoding="utf-8")
    assert ",2026-08-22T07:34:47.000000+00:00," in text
    assert os.path.realpath(export_dir(recorded) / "price_history") == str(
        folder / "price_history")
