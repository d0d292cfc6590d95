"""Offers in force at scale: `make bench-offers` (`python -m benchmarks.offers [--offers N]`).

One SkyPilot-format price list per cloud (the generic CSV shape: lambda, nebius, fluidstack,
hyperstack), N offers in all (default 1,000,000: each file is a quarter, under the payload
row cap of 500,000), written to a temporary directory and loaded with the real CLI, each step
in its own process (wall time and peak RSS from wait4):

1. day 1: `gpucost ingest skypilot <4 files> --observed-at D1`: load + the first publish (a
   full build of an empty warehouse);
2. day 2: every price changed: load + publish on top of day 1 (the daily refresh: the price
   history built incrementally);
3. one file of 1,000,000 lines: refused by name before parsing (TooManyRowsError), the
   published warehouse untouched.

Writes its section of benchmarks/RESULTS.md (between the `offers-in-force` markers; the
rest of the file is `make bench`'s). Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
START, END = "<!-- offers-in-force:start -->", "<!-- offers-in-force:end -->"
CLOUDS = ("lambda", "nebius", "fluidstack", "hyperstack")
GPUS = (("H100", 8, 1800), ("A100", 8, 1360), ("L4", 1, 16), ("A10", 1, 16), ("H200", 8, 2000),
        ("L40S", 4, 192))
HEADER = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
          "SpotPrice\n")
TARGET_S, TARGET_MB = 120.0, 1024.0


def write_list(path: Path, cloud: str, n: int, seed: int, scale: float = 1.0) -> None:
    """n offers: 50 regions x n/50 instance types, a random price per GPU in 0.5-4 USD (times
    `scale`: day 2 moves every price by 5%, inside the jump gate)."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER)
        for i in range(n):
            gpu, count, mem = GPUS[i % len(GPUS)]
            out.write(f"gpu_{count}x_{gpu.lower()}_{cloud}_{i // 50},{gpu},{count},{count * 26},"
                      f"{mem},{rng.uniform(0.5, 4) * count * scale:.2f},region-{i % 50},,\n")


def run(*args: str, env: dict[str, str]) -> dict:
    """`gpucost <args>` in a child process: exit code, wall seconds, peak RSS MB, last line."""
    t = time.perf_counter()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("gpucost")), *args], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    lines = [x for x in out.splitlines() if x.strip()]
    return {"exit": os.waitstatus_to_exitcode(status), "seconds": time.perf_counter() - t,
            "peak_rss_mb": usage.ru_maxrss / 1024, "last_line": lines[-1] if lines else "",
            "output": out}


def offers_in_force(data: Path) -> int:
    import duckdb

    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        return con.execute("select count(*) from gpu_offers where source = 'skypilot'"
                           ).fetchone()[0]


def measure(n: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="gpucost-offers-"))
    try:
        data = work / "data"
        env = {**os.environ, "GPUCOST_DATA_DIR": str(data), "DO_NOT_TRACK": "1"}
        result: dict = {"offers": n, "started": datetime.now(UTC).isoformat(timespec="seconds")}
        for day, when, scale in ((1, "2026-11-20", 1.0), (2, "2026-11-21", 1.05)):
            files = []
            for k, cloud in enumerate(CLOUDS):
                path = work / f"day{day}" / f"{cloud}_vms.csv"
                path.parent.mkdir(exist_ok=True)
                write_list(path, cloud, n // len(CLOUDS), seed=k, scale=scale)
                files.append(str(path))
            step = run("ingest", "skypilot", *files, "--observed-at", when, env=env)
            if step["exit"] != 0:
                raise RuntimeError(f"day {day} failed:\n{step['output'][-2000:]}")
            step["offers_in_force"] = offers_in_force(data)
            result[f"day{day}"] = step
        big = work / "one" / "lambda_vms.csv"
        big.parent.mkdir()
        write_list(big, "lambda", 1_000_000, seed=99)
        result["one_file_mb"] = big.stat().st_size / 1e6
        step = run("ingest", "skypilot", str(big), "--observed-at", "2026-11-22", env=env)
        step["refused"] = "TooManyRowsError" in step["output"]
        step["offers_in_force"] = offers_in_force(data)
        result["one_file"] = step
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def section(r: dict) -> str:
    def row(label: str, s: dict, note: str) -> str:
        ok = s["seconds"] <= TARGET_S and s["peak_rss_mb"] <= TARGET_MB
        return (f"| {label} | {s['offers_in_force']:,} | {s['seconds']:.1f} | "
                f"{s['peak_rss_mb']:,.0f} | {'yes' if ok else 'no'} | {note} |")

    published = re.sub(r"\s+", " ", r["day2"]["last_line"])[:160]
    return "\n".join([
        START,
        "## Offers in force at scale",
        "",
        f"Run {r['started']} with `make bench-offers` (`python -m benchmarks.offers`): "
        f"{r['offers']:,} offers in force from four SkyPilot-format price lists of "
        f"{r['offers'] // len(CLOUDS):,} rows (the payload row cap is 500,000), loaded and "
        "published with `gpucost ingest`, each step in its own process. Targets of issue 27: "
        f"<= {TARGET_S:.0f} s and <= {TARGET_MB / 1024:.0f} GB peak RSS.",
        "",
        "| step | offers in force after | seconds (load + publish) | peak RSS MB | met | note |",
        "| --- | --- | --- | --- | --- | --- |",
        row("day 1: first load and publish (full build)", r["day1"], "empty warehouse"),
        row("day 2: every price changed (the daily refresh)", r["day2"], published),
        row(f"one file of 1,000,000 lines ({r['one_file_mb']:.0f} MB)", r["one_file"],
            "refused by name before parsing (TooManyRowsError); the rebuild that follows "
            "publishes the same offers"
            if r["one_file"]["refused"] else "NOT refused"),
        END,
    ])


def write_section(text: str, out: Path = RESULTS) -> None:
    current = out.read_text(encoding="utf-8") if out.exists() else ""
    if START in current and END in current:
        head, rest = current.split(START, 1)
        current = head + text + rest.split(END, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    out.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--offers", type=int, default=1_000_000)
    p.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    args = p.parse_args(argv)
    r = measure(args.offers)
    for key in ("day1", "day2", "one_file"):
        r[key].pop("output", None)
    print(json.dumps(r, indent=1))
    text = section(r)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
