"""`kill -9` at 20 moments of a refresh: the published warehouse is always a published state.

Run with `make kill-test` (`pytest -m kill`; 1-2 minutes on 2 cores, so it is kept out of
the default `make test` run and .ci/run calls it on its own).

Setup: a warehouse published from payload set A (state A). For each moment, a copy of that
data dir gets an `ingest` of payload set B (three files: raw writes, then the model build,
checks, exports, checkpoint and the swap) in a child process that SIGKILLs itself at that
moment (tests/support/kill_child.py). Then:

1. the child really died by SIGKILL at its moment (a moment never reached fails the test);
2. the published warehouse opens read-only and passes every check (models/checks);
3. it is state A byte for byte, or state A+B (as a complete uninterrupted run publishes it);
4. `exports/latest` names a complete snapshot (every file as its manifest says) whose files
   hold the rows of state A or of state A+B;
5. the raw layer opens (WAL replayed) and a new ingest of B succeeds and publishes exactly
   state A+B: nothing the killed run committed is lost or loaded twice.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import check_published
from gpucost.models.docs import mart_names
from gpucost.warehouse.exports import export_dir, latest_snapshot
from gpucost.warehouse.publish import serving_path

pytestmark = pytest.mark.kill

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHILD = Path(__file__).resolve().parents[1] / "support" / "kill_child.py"
A_FILES = [FIXTURES / "skypilot" / "lambda_vms_tiny.csv"]
B_FILES = [FIXTURES / "service" / "lambda_vms_2026-03-08.csv",
           FIXTURES / "skypilot" / "gcp_vms_tiny.csv",
           FIXTURES / "skypilot" / "vast_vms_tiny.csv"]
A_WHEN = datetime(2026, 3, 1, tzinfo=UTC)
B_WHEN = datetime(2026, 3, 8, tzinfo=UTC)
# columns that hold the wall-clock time of a run (fetch times, ages, fetch counters): they
# differ between two identical runs, so the content comparison leaves them out
VOLATILE = {
    "source_health": {"last_success_at", "last_live_success_at", "last_failure_at",
                      "last_status", "data_age_days", "fetches_total", "fetches_failed"},
    "gpu_offers": {"confirmed_at", "loaded_at"},  # wall-clock times of the loads
}
# in every mart: the raw.fetches id behind a price (a run killed mid-load may have used up
# sequence values, so the same payload can carry another id: lineage, not content) and ages
# at the build (wall clock)
VOLATILE_EVERYWHERE = {"fetch_id", "age_days"}

MOMENTS: list[tuple[str, dict]] = [
    ("raw: first payload saved, nothing loaded",
     {"call": "gpucost.warehouse.store:RawStore.save_payload", "n": 1, "when": "after"}),
    ("raw: inside the first load transaction",
     {"sql": r"^insert into fetches", "n": 1, "when": "after"}),
    ("raw: during the first observations insert",
     {"sql": r"^insert into price_observations", "n": 1, "when": "during"}),
    ("raw: just before the first commit", {"sql": r"^commit$", "n": 1, "when": "before"}),
    ("raw: just after the first commit", {"sql": r"^commit$", "n": 1, "when": "after"}),
    ("raw: during the third observations insert",
     {"sql": r"^insert into price_observations", "n": 3, "when": "during"}),
    ("raw: all committed, WAL not checkpointed",
     {"sql": r"^commit$", "n": 3, "when": "after"}),
    ("raw: during the raw checkpoint", {"sql": r"^checkpoint$", "n": 1, "when": "during"}),
    ("build: new file created, raw not attached yet",
     {"sql": r"^attach .* as raw", "n": 1, "when": "before"}),
    ("build: loading the curated catalog",
     {"sql": r"^create or replace table curated\.", "n": 3, "when": "during"}),
    ("build: after the second staging view",
     {"sql": r"^create or replace temp view stg_", "n": 2, "when": "after"}),
    ("build: during an intermediate model",
     {"sql": r"^create or replace temp table int_", "n": 3, "when": "during",
      "delay_ms": 1}),
    ("build: during the cost_per_flop mart",
     {"sql": r"^create or replace table cost_per_flop ", "n": 1, "when": "during",
      "delay_ms": 1}),
    ("build: copying the published file into the build file",
     {"call": "shutil:copyfile", "n": 1, "when": "during", "delay_ms": 1}),
    ("build: price_changes rows deleted in place, not yet re-inserted",
     {"sql": r"^delete from main\.price_changes ", "n": 1, "when": "after"}),
    ("build: during the incremental insert into price_changes",
     {"sql": r"^insert into main\.price_changes ", "n": 1, "when": "during",
      "delay_ms": 1}),
    ("build: just after the history state is written",
     {"sql": r"^create or replace table intermediate\.history_state ", "n": 1,
      "when": "after"}),
    ("build: during the checks",
     {"call": "gpucost.models.runner:run_checks", "n": 1, "when": "during", "delay_ms": 3}),
    ("build: staging the exports", {"sql": r"^copy ", "n": 4, "when": "during"}),
    ("build: before detaching raw", {"sql": r"^detach raw", "n": 1, "when": "before"}),
    ("build: during the build checkpoint",
     {"sql": r"^checkpoint$", "n": 2, "when": "during"}),
    ("swap: closed and fsynced, just before os.replace",
     {"replace": "/gpucost.duckdb", "n": 1, "when": "before"}),
    ("swap: just after os.replace, before the directory fsync",
     {"replace": "/gpucost.duckdb", "n": 1, "when": "after"}),
    ("exports: fsyncing the new snapshot, manifest written",
     {"call": "gpucost.warehouse.exports:_fsync", "n": 3, "when": "after"}),
    ("exports: snapshot renamed into snapshots/, latest not flipped",
     {"replace": "/exports/latest", "n": 1, "when": "before"}),
    ("exports: latest flipped, the flat links and pruning not done",
     {"replace": "/exports/latest", "n": 1, "when": "after"}),
]


def _fingerprint(data: Path) -> dict[str, tuple[int, int]]:
    con = duckdb.connect(str(serving_path(data)), read_only=True)
    try:
        out = {}
        for mart in mart_names():
            cols = [r[0] for r in con.execute(f'describe "{mart}"').fetchall()
                    if r[0] not in VOLATILE.get(mart, set()) | VOLATILE_EVERYWHERE]
            sel = ", ".join(f'"{c}"' for c in cols)
            out[mart] = tuple(con.execute(
                f'select count(*), coalesce(bit_xor(hash(row({sel}))), 0) from "{mart}"'
            ).fetchone())
        return out
    finally:
        con.close()


def _raw_counts(data: Path) -> tuple[int, int]:
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    try:
        return (con.execute("select count(*) from price_observations").fetchone()[0],
                con.execute("select count(distinct sha256) from fetches "
                            "where status in ('ok', 'replayed')").fetchone()[0])
    finally:
        con.close()


def _export_rows(data: Path) -> dict[str, int]:
    """{export file (relative path): rows} of every Parquet and CSV export of the snapshot
    `exports/latest` names, after checking each file against its manifest entry (sha256)."""
    out = latest_snapshot(export_dir(data))
    assert out is not None
    listed = {f["path"]: f for f in json.loads((out / "manifest.json").read_text())["files"]}
    con = duckdb.connect()
    reader = {".parquet": "read_parquet", ".csv": "read_csv"}
    try:
        found = {}
        for p in sorted(out.rglob("*")):
            rel = p.relative_to(out).as_posix()
            if p.suffix in reader:
                assert _sha(p) == listed[rel]["sha256"], rel
                found[rel] = con.execute(
                    f"select count(*) from {reader[p.suffix]}('{p}')").fetchone()[0]
                assert found[rel] == listed[rel]["rows"], rel
        return found
    finally:
        con.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _ingest_b(data: Path) -> None:
    outcomes, published = ingest_files("skypilot", B_FILES, observed_at=B_WHEN, data_dir=data)
    assert published is not None
    assert all(o.status in ("replayed", "unchanged") for o in outcomes), outcomes


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    """State A (a data dir, published) and the fingerprints of A and of A+B."""
    base = tmp_path_factory.mktemp("state-a")
    ingest_files("skypilot", A_FILES, observed_at=A_WHEN, data_dir=base)
    ref = tmp_path_factory.mktemp("state-ab") / "data"
    shutil.copytree(base, ref, symlinks=True)  # exports/latest stays a link
    _ingest_b(ref)
    return {
        "base": base,
        "a": _fingerprint(base), "ab": _fingerprint(ref),
        "a_sha": _sha(serving_path(base)),
        "a_exports": _export_rows(base),
        "ab_exports": _export_rows(ref),
        "ab_raw": _raw_counts(ref),
    }


OUTCOMES: dict[str, str] = {}  # moment -> the state found published after the kill


def test_states_differ(states):
    assert states["a"] != states["ab"]  # else the test could not tell them apart
    assert states["a"]["gpu_offers"] != states["ab"]["gpu_offers"]


@pytest.mark.parametrize("name, moment", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_kill_at(name, moment, states, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(states["base"], data, symlinks=True)
    spec = {"source": "skypilot", "files": [str(f) for f in B_FILES],
            "observed_at": B_WHEN.isoformat(), "data_dir": str(data), "moment": moment}
    proc = subprocess.run([sys.executable, str(CHILD), json.dumps(spec)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, (
        f"the child was not killed at '{name}' (exit {proc.returncode}): {proc.stderr[-2000:]}")

    # the published warehouse opens, passes every check and is a published state
    assert check_published(data) == {}
    published = _fingerprint(data)
    if published == states["a"]:
        assert _sha(serving_path(data)) == states["a_sha"]  # untouched, byte for byte
        state = "A"
    else:
        assert published == states["ab"], f"'{name}': published state is neither A nor A+B"
        state = "A+B"
    OUTCOMES[name] = state

    # each export file is whole: it holds the rows of state A or of state A+B (a history
    # mart's month files and `latest` file each on their own)
    found = _export_rows(data)
    for rel, rows in found.items():
        assert rows in (states["a_exports"].get(rel), states["ab_exports"].get(rel)), (name, rel)
    assert set(states["a_exports"]) <= set(found) | set(states["ab_exports"]), name
    assert {m for m in mart_names()} <= {rel.split("/")[0].split(".")[0] for rel in found}
    json.loads((export_dir(data) / "schema.json").read_text())

    # the raw layer opens (WAL replay) and the refresh, run again, publishes exactly A+B
    _ingest_b(data)
    assert _fingerprint(data) == states["ab"]
    assert _raw_counts(data) == states["ab_raw"]
    assert check_published(data) == {}
    assert not list(export_dir(data).glob(".tmp-*"))
    assert not list((export_dir(data) / "snapshots").glob(".tmp-*"))  # half-written: gone


def test_kills_landed_on_both_sides_of_the_swap():
    """Run last: the moments before os.replace leave A, those after it leave A+B."""
    if len(OUTCOMES) < len(MOMENTS):
        pytest.skip("run the whole module (make kill-test)")
    print("\n" + "\n".join(f"  {state:<4} {name}" for name, state in OUTCOMES.items()))
    assert OUTCOMES["swap: closed and fsynced, just before os.replace"] == "A"
    assert OUTCOMES["swap: just after os.replace, before the directory fsync"] == "A+B"
    assert set(OUTCOMES.values()) == {"A", "A+B"}
