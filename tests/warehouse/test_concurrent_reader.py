"""An analyst's read-only connection, held open in another process across a full refresh,
neither blocks the refresh nor sees anything but the old published data; a new connection
sees the new data (DESIGN.md invariant 3)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from gpucost.flows.ingest import ingest_files
from gpucost.models.docs import mart_names
from gpucost.warehouse.publish import serving_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# The reader: one read-only connection for its whole life. It prints a fingerprint of every
# mart, then re-reads all of them in a loop until a line arrives on stdin, recording any
# read that differs from the first one or fails.
READER = r"""
import json, select, sys, duckdb
path, marts = sys.argv[1], json.loads(sys.argv[2])
con = duckdb.connect(path, read_only=True)
def snapshot():
    return {m: list(con.execute(
        f'select count(*), bit_xor(hash(t)) from "{m}" as t').fetchone()) for m in marts}
first = snapshot()
print(json.dumps({"first": first}), flush=True)
reads, bad = 0, []
while not select.select([sys.stdin], [], [], 0)[0]:
    try:
        now = snapshot()
    except Exception as exc:
        bad.append(f"{type(exc).__name__}: {exc}")
        continue
    reads += 1
    if now != first:
        bad.append(now)
print(json.dumps({"reads": reads, "bad": bad[:3], "last": snapshot()}), flush=True)
"""


def _snapshot(path: Path, marts: list[str]) -> dict[str, list[int]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {m: list(con.execute(
            f'select count(*), bit_xor(hash(t)) from "{m}" as t').fetchone()) for m in marts}
    finally:
        con.close()


def test_reader_keeps_old_data_across_a_refresh_and_new_connections_see_new(tmp_path):
    sky = FIXTURES / "skypilot" / "lambda_vms_tiny.csv"
    # dated after the reference catalog's Lambda prices, so the fixtures' offers are in force
    ingest_files("skypilot", [sky], observed_at=datetime(2026, 11, 1, tzinfo=UTC),
                 data_dir=tmp_path)
    path = serving_path(tmp_path)
    marts = mart_names()
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), json.dumps(marts)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = json.loads(reader.stdout.readline())["first"]
        time.sleep(0.1)  # the reader is looping over its open connection
        newer = FIXTURES / "service" / "lambda_vms_2026-03-08.csv"
        outcomes, published = ingest_files(
            "skypilot", [newer], observed_at=datetime(2026, 11, 8, tzinfo=UTC),
            data_dir=tmp_path)  # must not fail on the reader's lock
        assert [o.status for o in outcomes] == ["replayed"] and published is not None
        time.sleep(0.1)
        reader.stdin.write("stop\n")
        reader.stdin.flush()
        report = json.loads(reader.stdout.readline())
    finally:
        reader.stdin.close()
        reader.wait(timeout=30)
    assert reader.returncode == 0, reader.stderr.read()
    print(f"reader: {report['reads']} consistent reads of all marts across the refresh")
    assert report["bad"] == []  # every read, before, during and after the swap, saw old data
    assert report["reads"] >= 10
    assert report["last"] == first
    fresh = _snapshot(path, marts)  # a new connection sees the new publish
    assert fresh != first
    assert fresh["gpu_offers"] != first["gpu_offers"]
    con = duckdb.connect(str(path), read_only=True)
    h100 = con.execute("select price_per_gpu_hour from gpu_offers "
                       "where sku = 'gpu_8x_h100_sxm5' and source = 'skypilot'").fetchone()[0]
    con.close()
    assert abs(h100 - 27.92 / 8) < 1e-9
