"""Incremental history (models/incremental.py): a publish that starts from the previous published
build and rebuilds only what new loads touched gives the same tables as a full rebuild of the
same raw layer, after new days, a re-confirming load, an older payload replayed (backfill)
and an alias change; and the history exports are rewritten only from the changed months on."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import duckdb
import pytest

from gpucost.catalog import CATALOG_DIR
from gpucost.flows import steps
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish
from gpucost.models.incremental import SPECS
from gpucost.warehouse.exports import export_dir
from gpucost.warehouse.publish import serving_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SKY = FIXTURES / "skypilot"
MARTS = ["price_history", "price_changes", "gpu_name_coverage", "unmapped_gpu_names",
         "price_index"]
INTERMEDIATE = [n for n, s in SPECS.items() if s.schema == "intermediate"] + [
    "int_gpu_name_map", "fetches"]


def _at(day: int, month: int = 3, hour: int = 6) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def _load(data: Path, *feeds: tuple[str, Path, datetime]) -> None:
    for source, path, when in feeds:
        ingest_files(source, [path], observed_at=when, data_dir=data, rebuild=False)


def _diff(a: Path, b: Path) -> dict[str, int]:
    """Rows in one published build and not the other (both ways, duplicates counted)."""
    con = duckdb.connect()
    try:
        con.execute(f"attach '{serving_path(a)}' as a (read_only)")
        con.execute(f"attach '{serving_path(b)}' as b (read_only)")
        rels = [f"main.{m}" for m in MARTS] + [f"intermediate.{n}" for n in INTERMEDIATE]
        out = {}
        for rel in rels:
            (n,), = con.execute(
                f"select count(*) from ((select * from a.{rel} except all select * from b.{rel})"
                f" union all (select * from b.{rel} except all select * from a.{rel}))"
            ).fetchall()
            out[rel] = n
        return out
    finally:
        con.close()


def _full_rebuild_of(data: Path, tmp: Path, name: str) -> Path:
    """A copy of the raw layer, published from scratch."""
    full = tmp / name
    full.mkdir()
    shutil.copy(data / "raw.duckdb", full / "raw.duckdb")
    result = build_and_publish(full)
    assert result.history_mode == "full: no previous build"
    return full


def _count(data: Path, sql: str) -> int:
    con = duckdb.connect(str(serving_path(data)), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


def test_incremental_equals_full_rebuild(tmp_path, monkeypatch):
    data = tmp_path / "wh"
    _load(data, ("skypilot", SKY / "lambda_vms_tiny.csv", _at(1)),
          ("skypilot", SKY / "gcp_vms_tiny.csv", _at(1)))
    assert build_and_publish(data).history_mode == "full: no previous build"
    assert _count(data, "select count(*) from price_changes") == 0

    # new days: the 2026-03-08 catalog changes Lambda's prices (price_changes gains rows)
    _load(data, ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(8)),
          ("lambda", FIXTURES / "lambda" / "lambda_2026_tabs_min.html", _at(8)))
    result = build_and_publish(data)
    assert result.history_mode == "incremental"
    assert _diff(data, _full_rebuild_of(data, tmp_path, "f1")) == dict.fromkeys(
        [f"main.{m}" for m in MARTS] + [f"intermediate.{n}" for n in INTERMEDIATE], 0)
    changes = _count(data, "select count(*) from price_changes")
    assert changes > 0

    # a load that only re-confirms (the same catalog fetched again later the same day, and
    # on the next day): the last observation moves, no price changes
    _load(data, ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(8, hour=18)),
          ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(9)))
    assert build_and_publish(data).history_mode == "incremental"
    assert set(_diff(data, _full_rebuild_of(data, tmp_path, "f2")).values()) == {0}
    assert _count(data, "select count(*) from price_changes") == changes
    assert _count(data, "select max(observed_at) from price_history") == _at(9)

    # backfill: an older catalog replayed after newer ones (its series are recomputed whole)
    _load(data, ("skypilot", SKY / "lambda_vms_tiny.csv", _at(4)))
    assert build_and_publish(data).history_mode == "incremental"
    assert set(_diff(data, _full_rebuild_of(data, tmp_path, "f3")).values()) == {0}
    assert _count(data, "select count(*) from price_changes where changed_on = '2026-03-08'") > 0

    # an alias change moves a whole series: the mapped models are rebuilt in full
    catalog = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, catalog, ignore=shutil.ignore_patterns("*.py", "sources"))
    unmapped = _count(data, "select count(*) from unmapped_gpu_names where reason = 'no_alias'")
    moved = _first_unmapped(data)
    with (catalog / "aliases.csv").open("a", encoding="utf-8") as fh:
        fh.write(_alias_row(catalog, moved))
    monkeypatch.setattr(steps, "load_curated", partial(steps.load_curated,
                                                       catalog_dir=catalog))
    result = build_and_publish(data)
    assert result.history_mode.startswith("full: 1 GPU names map to another accelerator")
    assert _count(data, "select count(*) from unmapped_gpu_names where reason = 'no_alias'") \
        == unmapped - 1
    assert set(_diff(data, _full_rebuild_of(data, tmp_path, "f4")).values()) == {0}
    # ... and the next build is incremental again
    _load(data, ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(10)))
    assert build_and_publish(data).history_mode == "incremental"
    assert set(_diff(data, _full_rebuild_of(data, tmp_path, "f5")).values()) == {0}


def _first_unmapped(data: Path) -> str:
    con = duckdb.connect(str(serving_path(data)), read_only=True)
    try:
        rows = con.execute("select gpu_name_raw from unmapped_gpu_names where reason = 'no_alias' "
                           "and gpu_name_raw is not null order by 1").fetchall()
    finally:
        con.close()
    if not rows:
        pytest.fail("the fixtures hold no unmapped GPU name to alias")
    return rows[0][0]


def _alias_row(catalog: Path, name: str) -> str:
    header = (catalog / "aliases.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    row = dict.fromkeys(header, "")
    row.update(alias=name, accelerator_id="nvidia-h100-sxm5-80gb", kind="gpu_name",
               note="test: an alias added between two builds")
    return ",".join(f'"{row[c]}"' if row[c] else "" for c in header) + "\n"


def test_models_changed_or_requested_rebuild_in_full(tmp_path, monkeypatch):
    data = tmp_path / "wh"
    _load(data, ("skypilot", SKY / "lambda_vms_tiny.csv", _at(1)))
    build_and_publish(data)
    assert build_and_publish(data, full=True).history_mode == "full: requested"
    monkeypatch.setattr("gpucost.models.incremental.fingerprint", lambda *a: "other models")
    assert build_and_publish(data).history_mode == \
        "full: the models changed since the previous build"
    assert build_and_publish(data).history_mode == "incremental"


def test_history_exports_rewrite_only_changed_months(tmp_path):
    data = tmp_path / "wh"
    _load(data, ("skypilot", SKY / "lambda_vms_tiny.csv", _at(20, month=1)),
          ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(8)))
    build_and_publish(data)
    out = export_dir(data)
    months = out / "price_history" / "months"
    assert sorted(p.name for p in months.iterdir()) == [
        "2026-01.csv", "2026-01.parquet", "2026-03.csv", "2026-03.parquet"]
    january = (months / "2026-01.parquet").stat().st_mtime_ns
    march = (months / "2026-03.parquet").stat().st_mtime_ns
    _load(data, ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv", _at(9)))
    assert build_and_publish(data).history_mode == "incremental"
    assert (months / "2026-01.parquet").stat().st_mtime_ns == january  # untouched month
    assert (months / "2026-03.parquet").stat().st_mtime_ns != march
    schema = json.loads((out / "schema.json").read_text())
    entry = schema["tables"]["price_history"]
    assert entry["files"]["latest"]["parquet"] == "price_history/latest.parquet"
    con = duckdb.connect()
    try:
        (n_all,), = con.execute(
            f"select count(*) from read_parquet('{out / entry['files']['parquet']}')").fetchall()
        (n_latest,), = con.execute(
            f"select count(*) from read_parquet('{out / 'price_history' / 'latest.parquet'}')"
        ).fetchall()
        (n_march,), = con.execute(
            f"select count(*) from read_parquet('{months / '2026-03.parquet'}')").fetchall()
    finally:
        con.close()
    assert n_all == entry["row_count"] == _count(data, "select count(*) from price_history")
    # latest: the last 180 days before the newest day (2026-03-09) hold every row here
    assert n_latest == n_all and n_march < n_all


def test_published_line_says_when_history_was_rebuilt_in_full():
    from gpucost.flows.cli.refresh import _published_line

    assert _published_line(36, 1.24, "incremental") == \
        "published 36 tables in 1.2 s; `gpucost tables` lists them"
    assert _published_line(36, 1.24, "full: no previous build") == \
        "published 36 tables in 1.2 s; `gpucost tables` lists them"
    assert _published_line(36, 41.0, "full: 1 GPU names map to another accelerator than before") \
        == ("published 36 tables in 41.0 s (price history rebuilt in full: 1 GPU names map to "
            "another accelerator than before); `gpucost tables` lists them")
