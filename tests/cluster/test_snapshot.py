"""The published snapshot (cluster/snapshot.py) on the session's SeaweedFS: CURRENT names a
whole warehouse object, readers open it from a cache, a new publish moves CURRENT while an
old reader keeps reading, every reader sees the same numbers, and a publisher killed at any
stage leaves CURRENT naming a whole, readable file; the exports are the local snapshot under
exports/snapshots/<publish_id>/, flipped by exports/latest.json, unchanged files copied on
the server, old snapshots and the flat keys of before pruned."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gpucost.cluster.objects import ObjectStore, s3_filesystem, storage_options
from gpucost.cluster.settings import ClusterSettings, write_settings
from gpucost.cluster.snapshot import (
    CURRENT_KEY,
    LATEST_EXPORTS_KEY,
    PAUSE_ENV,
    SnapshotCorruptError,
    latest_exports,
    open_current,
    publish_snapshot,
    read_current,
)
from gpucost.warehouse.publish import open_published, serving_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
           "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "REAL")


# Every publish below passes allow_shrink: CURRENT may hold another module's bigger snapshot
# (test_cluster_refresh.py's twelve sources), and these tests are not about the shrink guard
# (test_round4_cluster.py is).


def _local_publish(data_dir: Path, n: int) -> None:
    """Ingest a SkyPilot Lambda catalog whose H100 price is changed by `n` cents, observed
    on 2026-03-01 + n days, and publish: a new local warehouse file each time."""
    from gpucost.flows.ingest import ingest_files

    text = (FIXTURES / "skypilot" / "lambda_vms_tiny.csv").read_text(encoding="utf-8")
    assert ",31.92," in text
    feed = data_dir.parent / f"feed-{n}" / "lambda_vms.csv"  # the name tells the cloud
    feed.parent.mkdir(exist_ok=True)
    feed.write_text(text.replace(",31.92,", f",{31.92 + n / 100:.2f},"), encoding="utf-8")
    outcomes, published = ingest_files(
        "skypilot", [feed], observed_at=datetime(2026, 3, 1, tzinfo=UTC) + timedelta(days=n),
        data_dir=data_dir, rebuild=True)
    assert [o.status for o in outcomes] == ["replayed"] and published is not None, outcomes


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local published warehouse with exports (two SkyPilot catalogs)."""
    from gpucost.flows.ingest import ingest_files

    data = tmp_path_factory.mktemp("snapshot") / "data"
    for name, day in (("gcp_vms_tiny.csv", 27), ("lambda_vms_tiny.csv", 28)):
        ingest_files("skypilot", [FIXTURES / "skypilot" / name], data_dir=data, rebuild=False,
                     observed_at=datetime(2026, 2, day, tzinfo=UTC))
    _local_publish(data, 1)  # a price change: price_changes has rows, in two months
    return data


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(con: Any) -> dict[str, int]:
    names = [r[0] for r in con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() "
        "and schema_name = 'main' order by 1").fetchall()]
    return {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}


def _local_rows(data: Path) -> dict[str, int]:
    con = open_published(serving_path(data))
    try:
        return _rows(con)
    finally:
        con.close()


def _object_sha(cluster: ClusterSettings, key: str, tmp: Path) -> tuple[int, str]:
    return ObjectStore(cluster, writer=False).download(cluster.published_bucket, key, tmp)


def test_current_names_a_whole_copy_of_the_local_file(cluster: ClusterSettings, local: Path,
                                                      tmp_path: Path) -> None:
    record = publish_snapshot(local, cluster, allow_shrink=True)
    current = read_current(cluster)
    assert current == record.current()
    assert current["key"].startswith("warehouse/") and current["key"].endswith(".duckdb")
    assert current["sha256"][:16] in current["key"]
    local_file = serving_path(local)
    assert _object_sha(cluster, current["key"], tmp_path / "copy") == (
        local_file.stat().st_size, _sha(local_file))
    assert current["tables"] == _local_rows(local) and current["tables"]["gpu_offers"] > 0
    con = open_current(cluster, tmp_path / "cache")
    try:
        assert _rows(con) == current["tables"]
        with pytest.raises(duckdb.PermissionException):  # file access off, as locally
            con.execute("select * from read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error):
            con.execute("create table planted (x int)")
    finally:
        con.close()
    # the local export snapshot is there, every file the size of the local one, and
    # exports/latest.json (the flip, written last) is its manifest with its prefix
    _assert_exports_whole(cluster)
    snap, prefix = _local_snapshot_files(local)
    latest = latest_exports(cluster)
    assert latest["prefix"] == f"exports/snapshots/{snap.name}/"
    store = ObjectStore(cluster, writer=False)
    remote = store.list(cluster.published_bucket, latest["prefix"])
    assert {k.removeprefix(latest["prefix"]): v for k, v in remote.items()} == prefix
    assert {k: v for k, v in latest.items() if k != "prefix"} == json.loads(
        (snap / "manifest.json").read_text(encoding="utf-8"))
    schema = json.loads(store.get_bytes(cluster.published_bucket,
                                        latest["prefix"] + "schema.json"))
    assert schema["published_at"] == current["published_at"] == latest["published_at"]
    assert not [k for k in store.list(cluster.published_bucket, "exports/")
                if not k.startswith("exports/snapshots/") and k != LATEST_EXPORTS_KEY]


def test_a_second_publish_moves_current_and_an_old_reader_keeps_reading(
        cluster: ClusterSettings, local: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = publish_snapshot(local, cluster, allow_shrink=True)
    old = open_current(cluster, cache)
    old_rows = _rows(old)
    _local_publish(local, 2)
    second = publish_snapshot(local, cluster, allow_shrink=True)
    try:
        assert second.created and second.key != first.key and second.previous == first.key
        current = read_current(cluster)
        assert current["key"] == second.key and current["previous"] == first.key
        assert current["sha256"] == _sha(serving_path(local))
        new = open_current(cluster, cache)
        try:
            assert _rows(new) == current["tables"] == _local_rows(local)
        finally:
            new.close()
        assert _rows(old) == old_rows  # the connection on the old cached file reads on
        store = ObjectStore(cluster, writer=False)
        assert store.exists(cluster.published_bucket, first.key)  # kept for such readers
        assert sorted(p.name for p in cache.iterdir()) == sorted(
            k.rsplit("/", 1)[1] for k in (first.key, second.key))
    finally:
        old.close()
    # the February month files the second local publish linked were copied on the server
    snap, files = _local_snapshot_files(local)
    assert second.exports_snapshot == snap.name
    assert second.exports_copied >= 2 and second.exports_uploaded >= 1
    assert second.exports_copied + second.exports_uploaded + second.exports_skipped == len(files)
    _assert_exports_whole(cluster)
    # nothing changed locally: nothing new uploaded or copied, CURRENT stays
    third = publish_snapshot(local, cluster, allow_shrink=True)
    assert (third.key, third.created) == (second.key, False)
    assert (third.exports_uploaded, third.exports_copied, third.exports_skipped) == (
        0, 0, len(files))
    assert read_current(cluster)["key"] == second.key


def test_old_warehouse_objects_go_after_the_flip_but_never_current_or_previous(
        cluster: ClusterSettings, local: Path) -> None:
    publish_snapshot(local, cluster, allow_shrink=True)
    current = read_current(cluster)
    store = ObjectStore(cluster, writer=True)
    bucket = cluster.published_bucket
    older = [f"warehouse/2020010{i}T000000Z-{i:016x}.duckdb" for i in range(1, 8)]
    for key in older:
        store.put_bytes(bucket, key, b"an old warehouse")
    record = publish_snapshot(local, cluster, keep=3, allow_shrink=True)
    left = set(store.list(bucket, "warehouse/"))
    assert current["key"] in left
    if current.get("previous"):
        assert current["previous"] in left
    assert set(record.warehouses_deleted) >= set(older[:-3]) - {current.get("previous")}
    assert not left & set(record.warehouses_deleted)
    assert len(left) <= 3 + 2  # the newest three, and CURRENT and its previous
    for key in left & set(older):
        store.delete(bucket, key)


def test_a_mismatching_object_is_refused_and_not_cached(cluster: ClusterSettings,
                                                        local: Path, tmp_path: Path) -> None:
    publish_snapshot(local, cluster, allow_shrink=True)
    store = ObjectStore(cluster, writer=True)
    bucket = cluster.published_bucket
    good = store.get_bytes(bucket, CURRENT_KEY)
    current = json.loads(good)
    bogus = "warehouse/20200101T000000Z-00000000deadbeef.duckdb"
    store.put_bytes(bucket, bogus, b"x" * current["size"])  # right size, wrong bytes
    cache = tmp_path / "cache"
    try:
        store.put_bytes(bucket, CURRENT_KEY, json.dumps({**current, "key": bogus}).encode())
        with pytest.raises(SnapshotCorruptError, match="does not match CURRENT"):
            open_current(cluster, cache)
        assert list(cache.iterdir()) == []  # nothing cached, no temporary left
        store.put_bytes(bucket, CURRENT_KEY, b"{not json")
        with pytest.raises(SnapshotCorruptError, match="not a valid snapshot record"):
            read_current(cluster)
    finally:
        store.put_bytes(bucket, CURRENT_KEY, good)
        store.delete(bucket, bogus)
    con = open_current(cluster, cache)
    con.close()


def _sums(con: Any, tables: dict[str, Any]) -> dict[str, tuple[int, float | None]]:
    out = {}
    for name, (column, source) in tables.items():
        expr = f'sum("{column}")::double' if column else "null"
        out[name] = tuple(con.execute(f"select count(*), {expr} from {source}").fetchone())
    return out


def _agree(got: dict[str, tuple[int, float | None]],
           expected: dict[str, tuple[int, float | None]]) -> list[str]:
    """The marts whose rows or sums differ (sums within 1e-9: summation order differs)."""
    bad = []
    for name, (n, total) in expected.items():
        other = got.get(name)
        if other is None or other[0] != n or (total is None) != (other[1] is None) or (
                total is not None and not math.isclose(total, other[1], rel_tol=1e-9,
                                                       abs_tol=1e-9)):
            bad.append(f"{name}: {other} != {(n, total)}")
    return bad


def test_every_reader_sees_the_same_numbers(cluster: ClusterSettings, local: Path,
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """For every exported mart: rows and the sum of a numeric column agree between the local
    published file, pandas/pyarrow over s3fs, DuckDB 2.0 over s3fs (register_filesystem:
    no httpfs), and `gpucost sql --remote`."""
    import pandas as pd
    import pyarrow.parquet as pq

    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_OK

    publish_snapshot(local, cluster, allow_shrink=True)
    schema = json.loads((local / "exports" / "schema.json").read_text(encoding="utf-8"))
    bucket = cluster.published_bucket
    prefix = latest_exports(cluster)["prefix"]  # read once: one publish
    marts: dict[str, tuple[str | None, str]] = {}  # name -> (numeric column, parquet path)
    for name, entry in schema["tables"].items():
        column = next((c["name"] for c in entry["columns"]
                       if str(c["type"]).split("(")[0] in NUMERIC or
                       str(c["type"]).startswith("DECIMAL")), None)
        marts[name] = (column, f"s3://{bucket}/{prefix}{entry['files']['parquet']}")
    assert "price_history" in marts and marts["price_history"][1].endswith("months/*.parquet")

    local_con = open_published(serving_path(local))
    try:
        expected = _sums(local_con, {n: (c, f'"{n}"') for n, (c, _) in marts.items()})
    finally:
        local_con.close()
    assert {n: v[0] for n, v in expected.items()} == {
        n: e["row_count"] for n, e in schema["tables"].items()}

    assert expected["price_changes"][0] > 0 and expected["price_history"][0] > 0
    # DuckDB 2.0 with the s3fs filesystem registered (globs included)
    con = duckdb.connect()
    con.register_filesystem(s3_filesystem(cluster))
    try:
        assert not _agree(_sums(con, {n: (c, f"read_parquet('{p}')")
                                      for n, (c, p) in marts.items()}), expected)
    finally:
        con.close()

    # pandas over s3fs (storage_options) for a file; pyarrow over the s3fs filesystem for
    # the month files of a partitioned mart (its folder holds the CSV months too)
    fs = s3_filesystem(cluster)
    via_pandas = {}
    for name, (column, path) in marts.items():
        if "*" in path:
            frame = pq.read_table(fs.glob(path), filesystem=fs).to_pandas()
        else:
            frame = pd.read_parquet(path, storage_options=storage_options(cluster))
        values = frame[column].dropna() if column else frame.iloc[:0, :0]
        via_pandas[name] = (len(frame), float(values.astype(float).sum())
                            if column and len(values) else None)
    assert not _agree(via_pandas, expected)
    # a single file with the s3fs filesystem object itself
    latest = pd.read_parquet(f"s3://{bucket}/{prefix}price_history/latest.parquet",
                             filesystem=fs)
    assert 0 < len(latest) <= expected["price_history"][0]

    # gpucost sql --remote, with a cluster.json as a reader machine would have
    config = write_settings(cluster, tmp_path / "cluster.json")
    monkeypatch.setenv("GPUCOST_CLUSTER_CONFIG", str(config))
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "reader"))
    query = " union all ".join(
        f"select '{n}' as t, count(*) as n, "
        + (f'sum("{c}")::double' if c else "null::double") + f' as s from "{n}"'
        for n, (c, _) in marts.items())
    capsys.readouterr()
    assert main(["sql", "--remote", query, "--format", "json"]) == EXIT_OK
    via_cli = {r["t"]: (r["n"], r["s"]) for r in json.loads(capsys.readouterr().out)}
    assert not _agree(via_cli, expected)
    assert (tmp_path / "reader" / "remote-cache").is_dir()


def test_sql_remote_says_why_it_cannot_read(cluster: ClusterSettings, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from gpucost.cluster.settings import FIELDS
    from gpucost.flows.cli.main import main
    from gpucost.flows.cli.output import EXIT_FAILED

    for env in FIELDS.values():
        monkeypatch.delenv(env, raising=False)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "reader"))
    cases = [
        (tmp_path / "absent.json", "cluster settings missing: s3_endpoint"),
        (write_settings(replace(cluster, s3_endpoint="http://127.0.0.1:9"),
                        tmp_path / "down.json"), "is unavailable"),
        (write_settings(replace(cluster, reader_secret="wrong-secret-" + "7" * 10),
                        tmp_path / "denied.json"), "access denied to the reader key"),
    ]
    for config, expected in cases:
        monkeypatch.setenv("GPUCOST_CLUSTER_CONFIG", str(config))
        capsys.readouterr()
        assert main(["sql", "--remote", "select 1"]) == EXIT_FAILED
        err = capsys.readouterr().err
        assert err.startswith("error: ") and expected in err, err
        assert err.count("\n") == 1 and cluster.reader_secret not in err


# -- a publisher killed at each stage -------------------------------------------------------

_PUBLISHER = """
import sys
from pathlib import Path
from gpucost.cluster.settings import load_settings
from gpucost.cluster.snapshot import publish_snapshot
record = publish_snapshot(Path(sys.argv[1]), load_settings(), allow_shrink=True)
print("done", record.key, flush=True)
"""


def _kill_at(stage: str, data: Path, config: Path) -> None:
    env = {**os.environ, PAUSE_ENV: stage, "GPUCOST_CLUSTER_CONFIG": str(config)}
    proc = subprocess.Popen([sys.executable, "-c", _PUBLISHER, str(data)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.strip() == f"snapshot paused at {stage}", (
            line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def _local_snapshot_files(data: Path) -> tuple[Path, dict[str, int]]:
    """(the local snapshot exports/latest names, {relative path: size} of its files)."""
    snap = Path(os.path.realpath(data / "exports" / "latest"))
    return snap, {p.relative_to(snap).as_posix(): p.stat().st_size
                  for p in snap.rglob("*") if p.is_file()}


def _assert_exports_whole(cluster: ClusterSettings) -> dict[str, Any]:
    """exports/latest.json names a snapshot prefix holding every file of its manifest with
    the manifest's size and sha256 (checked on the bytes of the small files)."""
    latest = latest_exports(cluster)
    store = ObjectStore(cluster, writer=False)
    there = store.list(cluster.published_bucket, latest["prefix"])
    for entry in latest["files"]:
        key = latest["prefix"] + entry["path"]
        assert there.get(key) == entry["bytes"], key
        if entry["bytes"] < 200_000:
            body = store.get_bytes(cluster.published_bucket, key)
            assert hashlib.sha256(body).hexdigest() == entry["sha256"], key
    assert latest["prefix"] + "manifest.json" in there
    return latest


def _assert_current_whole(cluster: ClusterSettings, tmp: Path) -> dict[str, Any]:
    """CURRENT names an object whose bytes are its sha256 and size, which opens and holds
    every table with the rows CURRENT lists."""
    current = read_current(cluster)
    size, sha = _object_sha(cluster, current["key"], tmp / "check.duckdb")
    assert (size, sha) == (current["size"], current["sha256"])
    con = open_current(cluster, tmp / "cache")
    try:
        assert _rows(con) == current["tables"]
    finally:
        con.close()
    return current


def test_a_publisher_killed_at_any_stage_leaves_current_whole(
        cluster: ClusterSettings, local: Path, tmp_path: Path) -> None:
    publish_snapshot(local, cluster, allow_shrink=True)
    before = _assert_current_whole(cluster, tmp_path)
    _local_publish(local, 3)  # a new local file: every run below uploads a new key
    new_sha = _sha(serving_path(local))
    assert new_sha != before["sha256"]
    config = write_settings(cluster, tmp_path / "cluster.json")
    store = ObjectStore(cluster, writer=False)

    def uploaded() -> list[str]:
        return [k for k in store.list(cluster.published_bucket, "warehouse/")
                if new_sha[:16] in k]

    exports_before = _assert_exports_whole(cluster)["publish_id"]
    for stage in ("exports-started", "exports-uploaded", "warehouse-started"):
        _kill_at(stage, local, config)
        assert _assert_current_whole(cluster, tmp_path)["key"] == before["key"], stage
        assert uploaded() == [], stage  # an unfinished multipart upload is no object
        assert _assert_exports_whole(cluster)["publish_id"] == exports_before, stage
    _kill_at("warehouse-uploaded", local, config)
    assert _assert_current_whole(cluster, tmp_path)["key"] == before["key"]
    assert len(uploaded()) == 1  # whole, but not named: a later publish prunes it
    _kill_at("current-written", local, config)
    after = _assert_current_whole(cluster, tmp_path)
    assert after["sha256"] == new_sha and after["previous"] == before["key"]
    # CURRENT flipped, exports/latest.json not yet: it still names the whole old snapshot
    assert _assert_exports_whole(cluster)["publish_id"] == exports_before
    _kill_at("latest-written", local, config)
    local_id = Path(os.path.realpath(local / "exports" / "latest")).name
    assert _assert_exports_whole(cluster)["publish_id"] == local_id != exports_before
    # the next publish (nothing changed locally) finishes the pruning and keeps CURRENT
    record = publish_snapshot(local, cluster, allow_shrink=True)
    assert (record.key, record.created) == (after["key"], False)


def test_export_snapshots_are_pruned_and_the_flat_keys_removed(
        cluster: ClusterSettings, local: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With GPUCOST_EXPORT_SNAPSHOTS=2: after two more local publishes (each uploaded), the
    bucket holds the snapshots of the last two, latest.json names the newest; a key of the
    flat layout of before (exports/gpu_offers.parquet) is deleted; a reader that read the
    previous latest.json still finds every key of its snapshot."""
    store = ObjectStore(cluster, writer=True)
    bucket = cluster.published_bucket
    store.put_bytes(bucket, "exports/gpu_offers.parquet", b"the flat layout of before")
    monkeypatch.setenv("GPUCOST_EXPORT_SNAPSHOTS", "2")
    seen = []
    for n in (4, 5):
        _local_publish(local, n)
        record = publish_snapshot(local, cluster, allow_shrink=True)
        seen.append(record.exports_snapshot)
        assert record.exports_copied > 0  # unchanged months: copied on the server
    reader = _assert_exports_whole(cluster)
    assert reader["publish_id"] == seen[-1]
    ids = {k.split("/")[2] for k in store.list(bucket, "exports/snapshots/")}
    assert ids == set(seen)
    assert not store.exists(bucket, "exports/gpu_offers.parquet")
