"""Exports as snapshots (issue 42, item 2; warehouse/exports.py): each publish writes
`exports/snapshots/<publish_id>/` with manifest.json and flips the relative link
`exports/latest`; unchanged history months are hard links to the previous snapshot; older
snapshots are pruned (GPUCOST_EXPORT_SNAPSHOTS); the flat paths of before are links into
`latest/`; a reader of `latest/` sees one publish, even across a second publish; a crash
leaves `latest` on a complete snapshot."""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.flows import steps
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse import exports
from gpucost.warehouse.exports import (
    KEEP_ENV,
    MANIFEST_NAME,
    SNAPSHOTS_DIRNAME,
    export_dir,
    latest_snapshot,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SKY = FIXTURES / "skypilot"
JANUARY = (SKY / "lambda_vms_tiny.csv", datetime(2026, 1, 20, 6, tzinfo=UTC))
MARCH = (FIXTURES / "service" / "lambda_vms_2026-03-08.csv", datetime(2026, 3, 8, 6, tzinfo=UTC))


def _load(data: Path, path: Path, when: datetime) -> None:
    ingest_files("skypilot", [path], observed_at=when, data_dir=data, rebuild=False)


def _rows(path: Path, fmt: str) -> int:
    reader = {"parquet": "read_parquet", "csv": "read_csv"}[fmt]
    con = duckdb.connect()
    try:
        return con.execute(f"select count(*) from {reader}(?)", [str(path)]).fetchone()[0]
    finally:
        con.close()


def _verify(folder: Path) -> dict:
    """Every file the manifest lists has its sha256, bytes and rows; the folder holds
    nothing else but the manifest. Returns the manifest."""
    manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["publish_id"] == folder.name
    listed = {f["path"]: f for f in manifest["files"]}
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert on_disk == set(listed) | {MANIFEST_NAME}
    for rel, entry in listed.items():
        body = (folder / rel).read_bytes()
        assert hashlib.sha256(body).hexdigest() == entry["sha256"], rel
        assert len(body) == entry["bytes"], rel
        if entry["format"] in ("parquet", "csv"):
            assert _rows(folder / rel, entry["format"]) == entry["rows"], rel
            assert entry["table"] and entry["columns"], rel
    return manifest


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Prices of January and March (two history months), published once."""
    data = tmp_path / "wh"
    _load(data, *JANUARY)
    _load(data, *MARCH)
    build_and_publish(data)
    return data


def test_a_publish_writes_a_snapshot_with_its_manifest(data: Path) -> None:
    out = export_dir(data)
    link = os.readlink(out / "latest")
    assert re.fullmatch(r"snapshots/\d{8}T\d{12}Z", link)  # relative: the folder can move
    folder = latest_snapshot(out)
    assert folder == out / link
    manifest = _verify(folder)
    schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    assert manifest["published_at"] == schema["published_at"]
    assert datetime.fromisoformat(manifest["published_at"]).strftime(
        "%Y%m%dT%H%M%S%fZ") == manifest["publish_id"]
    by_path = {f["path"]: f for f in manifest["files"]}
    offers = by_path["gpu_offers.parquet"]
    assert (offers["format"], offers["table"]) == ("parquet", "gpu_offers")
    assert {"name": "observed_at", "type": "TIMESTAMP WITH TIME ZONE"} in offers["columns"]
    assert offers["rows"] == schema["tables"]["gpu_offers"]["row_count"] > 0
    assert {"price_history/months/2026-01.csv", "price_history/months/2026-03.parquet",
            "price_history/latest.csv", "price_changes.json", "schema.json"} <= set(by_path)
    # the flat paths of before: links into latest/, no second copy
    for name in ("gpu_offers.csv", "schema.json", "price_changes.json", "price_history"):
        assert os.readlink(out / name) == f"latest/{name}"
    assert (out / "price_history" / "months" / "2026-01.parquet").is_file()
    assert (out / "gpu_offers.csv").read_bytes() == (folder / "gpu_offers.csv").read_bytes()


def test_unchanged_months_are_linked_and_old_snapshots_pruned(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A publish that changes March only: January's month files are the previous snapshot's
    own inodes (hard links, their manifest entries carried over), March's are new files.
    With GPUCOST_EXPORT_SNAPSHOTS=2, four publishes leave the newest two."""
    out = export_dir(data)
    first = latest_snapshot(out)
    _load(data, MARCH[0], datetime(2026, 3, 9, 6, tzinfo=UTC))
    assert build_and_publish(data).history_mode == "incremental"
    second = latest_snapshot(out)
    assert second != first
    rel_jan = "price_history/months/2026-01.parquet"
    rel_mar = "price_history/months/2026-03.parquet"
    assert (second / rel_jan).stat().st_ino == (first / rel_jan).stat().st_ino
    assert (second / rel_mar).stat().st_ino != (first / rel_mar).stat().st_ino
    old = {f["path"]: f for f in _verify(first)["files"]}
    new = {f["path"]: f for f in _verify(second)["files"]}
    assert new[rel_jan] == old[rel_jan]
    assert new[rel_mar]["rows"] > old[rel_mar]["rows"]  # the day added
    monkeypatch.setenv(KEEP_ENV, "2")
    for day in (10, 11):
        _load(data, MARCH[0], datetime(2026, 3, day, 6, tzinfo=UTC))
        build_and_publish(data)
    kept = sorted(p.name for p in (out / SNAPSHOTS_DIRNAME).iterdir())
    assert len(kept) == 2 and kept[-1] == latest_snapshot(out).name
    assert first.name not in kept and second.name not in kept
    # the January files are still the first publish's bytes, never rewritten
    assert (latest_snapshot(out) / rel_jan).stat().st_ino == (
        out / "price_history" / "months" / "2026-01.parquet").stat().st_ino


def test_a_reader_of_latest_sees_one_publish_across_a_second_publish(data: Path) -> None:
    """The reader resolves `latest` once, reads its manifest; a publish happens; every file
    it then reads from its folder matches the manifest (sha256 and rows), and the new
    `latest` is complete too."""
    out = export_dir(data)
    folder = Path(os.path.realpath(out / "latest"))
    manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    _load(data, MARCH[0], datetime(2026, 3, 12, 6, tzinfo=UTC))
    build_and_publish(data)
    assert latest_snapshot(out) != folder
    assert _verify(folder) == manifest  # the old publish, whole
    newer = _verify(latest_snapshot(out))
    assert newer["publish_id"] > manifest["publish_id"]


def test_a_crash_leaves_latest_on_a_complete_snapshot(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A publish that dies after its snapshot is written but before the flip (here: the
    flip raises) leaves `latest` where it was; a half-written `.tmp-` snapshot folder (a
    process killed while writing) is removed by the next publish, which then flips."""
    out = export_dir(data)
    before = latest_snapshot(out)
    real_replace = os.replace

    def no_flip(src, dst):  # noqa: ANN001, ANN202
        if str(dst).endswith("/exports/latest"):
            raise OSError("killed before the flip")
        return real_replace(src, dst)

    monkeypatch.setattr(exports.os, "replace", no_flip)
    _load(data, MARCH[0], datetime(2026, 3, 13, 6, tzinfo=UTC))
    result = build_and_publish(data)
    monkeypatch.undo()
    assert result.export_error == "OSError: killed before the flip"
    assert latest_snapshot(out) == before
    _verify(before)
    half = out / SNAPSHOTS_DIRNAME / ".tmp-20260101T000000000000Z"
    (half / "price_history").mkdir(parents=True)
    (half / "gpu_offers.csv").write_text("half")
    build_and_publish(data)
    assert not half.exists()
    after = latest_snapshot(out)
    assert after != before and _verify(after)["publish_id"] == after.name


def test_a_flat_exports_folder_is_migrated_to_links(tmp_path: Path) -> None:
    """An exports/ folder of the flat layout (files and a history folder written in place)
    becomes links into latest/; a flat export of a mart no longer built is removed; files
    that are no export stay."""
    data = tmp_path / "wh"
    out = export_dir(data)
    (out / "price_history" / "months").mkdir(parents=True)
    (out / "price_history" / "months" / "2020-01.csv").write_text("old")
    (out / "gpu_offers.csv").write_text("old")
    (out / "a_mart_no_longer_built.parquet").write_text("old")
    (out / "README.txt").write_text("the operator's note")
    _load(data, *JANUARY)
    build_and_publish(data)
    assert os.readlink(out / "price_history") == "latest/price_history"
    assert os.readlink(out / "gpu_offers.csv") == "latest/gpu_offers.csv"
    assert not (out / "a_mart_no_longer_built.parquet").exists()
    assert (out / "README.txt").read_text() == "the operator's note"
    assert not (out / "price_history" / "months" / "2020-01.csv").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]
    _verify(latest_snapshot(out))


def test_a_bad_snapshot_count_is_a_named_export_error(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = latest_snapshot(export_dir(data))
    monkeypatch.setenv(KEEP_ENV, "0")
    result = steps.build_and_publish(data)
    assert result.export_error == (
        "ExportSettingError: GPUCOST_EXPORT_SNAPSHOTS must be a whole number of snapshots, "
        "at least 1 (got '0')")
    assert latest_snapshot(export_dir(data)) == before


def test_a_data_dir_copied_without_its_links_publishes(data: Path, tmp_path: Path) -> None:
    """`cp -r` (shutil.copytree without symlinks) turns `latest` and the flat links into
    real folders and files: the next publish in the copy replaces them with links again."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    out = export_dir(copy)
    assert (out / "latest").is_dir() and not (out / "latest").is_symlink()
    _load(copy, MARCH[0], datetime(2026, 3, 14, 6, tzinfo=UTC))
    assert build_and_publish(copy).export_error is None
    assert os.readlink(out / "latest").startswith("snapshots/")
    assert os.readlink(out / "price_history") == "latest/price_history"
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]
    _verify(latest_snapshot(out))
