"""Huge `gpucost sql` answers and the checksum checks (issue 40): `python -m benchmarks.sql_answers
--data DIR [--compare OTHER_GPUCOST]`.

1. `gpucost sql --timeout 0 --format json|csv "select * from range(10000000)"`, each in its own
   process, output to /dev/null: wall time and peak RSS (wait4). `--compare` runs the same
   with another installation's `gpucost` (e.g. the main checkout's, before streaming) right
   before each run of this one, so both see the same machine load.
2. The checks a refresh makes before it uses its base, on DIR (a warehouse loaded with all
   recorded data, docs/operations.md): the sha256 of the published file
   (warehouse/publish.py file_sha256) and the full read of raw.duckdb that verifies DuckDB's
   block checksums (warehouse/store.py corrupt_tables), best of 5.

Writes its section of benchmarks/RESULTS.md (between the `sql-answers` markers). Nothing here
runs in the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
QUERY = "select * from range(10000000)"
START, END = "<!-- sql-answers:start -->", "<!-- sql-answers:end -->"


def run(gpucost: str, fmt: str, data: Path) -> tuple[float, float, int]:
    """(seconds, peak RSS MB, exit code) of one `gpucost sql` answer."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen([gpucost, "sql", "--timeout", "0", "--format", fmt, QUERY],
                                stdout=sink, stderr=subprocess.DEVNULL,
                                env={**os.environ, "GPUCOST_DATA_DIR": str(data)})
        _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def checks(data: Path) -> tuple[float, float, int, int]:
    """(sha256 ms, raw full-read ms, published MB, raw MB), best of 5."""
    import duckdb

    from gpucost.warehouse.publish import file_sha256
    from gpucost.warehouse.store import corrupt_tables

    published, raw = data / "gpucost.duckdb", data / "raw.duckdb"
    sha, scan = [], []
    for _ in range(5):
        t = time.perf_counter()
        file_sha256(published)
        sha.append(time.perf_counter() - t)
        with duckdb.connect(str(raw), read_only=True) as con:
            t = time.perf_counter()
            assert corrupt_tables(con) == []
            scan.append(time.perf_counter() - t)
    return (min(sha) * 1000, min(scan) * 1000, published.stat().st_size >> 20,
            raw.stat().st_size >> 20)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True,
                   help="a data dir loaded with all recorded data")
    p.add_argument("--compare", help="another `gpucost` to run first (the figures before)")
    p.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    args = p.parse_args(argv)
    mine = str(Path(sys.executable).with_name("gpucost"))
    rows = []
    for fmt in ("json", "csv"):
        for label, exe in ([("before", args.compare)] if args.compare else []) + [
                ("after", mine)]:
            seconds, peak, code = run(exe, fmt, args.data)
            rows.append(f"| {fmt} | {label} | {seconds:.1f} | {peak:,.0f} | {code} |")
            print(rows[-1], flush=True)
    sha_ms, scan_ms, pub_mb, raw_mb = checks(args.data)
    load = os.getloadavg()[0]
    section = [
        START,
        "## sql answers at 10M rows, and the checks before a build",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%dT%H:%M}Z with `python -m benchmarks.sql_answers`"
        f" (load average {load:.1f} on {os.cpu_count()} cores at the end: the machine was"
        " shared, the times are noisy; before and after ran back to back). `gpucost sql"
        f" --timeout 0 --format FMT \"{QUERY}\"` to /dev/null, each in its own process"
        " (peak RSS from wait4). *before*: the whole answer fetched, then written (JSON"
        " through Python's pure-Python indenting encoder); *after*: written as it arrives,"
        " 10,000 rows at a time, DuckDB's memory_limit 1 GB.",
        "",
        "| format | gpucost | seconds | peak RSS MB | exit |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"Checks before the published file and raw.duckdb are used as a build's base (the"
        f" warehouse loaded with all recorded data: published {pub_mb} MB, raw {raw_mb} MB),"
        f" best of 5: sha256 of the published file {sha_ms:.0f} ms; every block of raw.duckdb"
        f" read (DuckDB verifies each block's checksum) {scan_ms:.0f} ms.",
        END,
    ]
    print("\n".join(section))
    if not args.no_write:
        text = RESULTS.read_text(encoding="utf-8")
        block = "\n".join(section)
        if START in text:
            text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text,
                          flags=re.S)
        else:
            text = text.replace("\n## Notes", "\n" + block + "\n\n## Notes", 1)
        RESULTS.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
