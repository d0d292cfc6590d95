"""Orchestration benchmarks (`make bench`, or `python -m benchmarks.bench --only-orchestration`).

Measured side by side in one run, each run a new process (as a user runs it), the modes
alternating, medians of RUNS:

1. loopback refresh: every source served its good live walk (tests/fixtures) from a loopback
   server; the refresh flow against a long-lived Prefect server this benchmark starts, vs
   the same steps as plain calls (`refresh_plain`). Target <= 1.5x.
2. offline refresh: every source pointed at a name that cannot resolve (as a machine without
   network); `make refresh` (the local Prefect server, already running) vs `gpucost refresh
   --no-prefect`. Target <= 1.5x.
3. `gpucost sql "select ..."` round trip vs a bare `python -c` read-only DuckDB connect and
   the same query. Target <= 2x.

Plus what a flow run and a task run cost against the running server (no-op flow and tasks),
and how long `gpucost server start` takes on a new and on an existing database.
Returned as results["orchestration"]: per-mode entries with seconds / wall_seconds /
peak_rss_mb (medians) and "targets", a list of {target, measured, ratio, limit, met}.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RUNS = 5
SQL_RUNS = 10
TASKS = 20  # no-op tasks per flow run when measuring a task run's cost
SQL = "select accelerator_id, count(*) from gpu_offers group by 1 order by 2 desc limit 5"

RunStep = Callable[..., dict]


# ---- steps (run in a child process by benchmarks.bench --step orch ...) ---------------------
def step(args: list[str]) -> dict:
    kind, *rest = args
    if kind == "loopback":  # ends the process as `gpucost refresh` does (flows/cli._exit_now)
        from gpucost.flows.cli.main import _exit_now

        print(json.dumps(_step_loopback(Path(rest[0]), rest[1])))
        _exit_now(0)
    if kind == "costs":
        return _step_costs()
    raise ValueError(kind)


def _step_loopback(data: Path, mode: str) -> dict:
    """One refresh of every source from a loopback server serving its good live walk."""
    import fault_matrix as fm  # tests/support/fault_matrix.py

    from gpucost.catalog import sources

    names = sources.names()
    server = fm.MatrixServer(names)
    with server.serving(), fm.fast_clients():
        os.environ.update(server.env)
        t = time.perf_counter()
        if mode == "plain":
            from gpucost.flows.steps import refresh_plain

            summary = refresh_plain(names, data_dir=data)
        else:  # as `gpucost refresh` runs it (the server PREFECT_API_URL names)
            from gpucost.flows.prefect_api import api_for_refresh
            from gpucost.flows.refresh import refresh
            from gpucost.flows.summary import RefreshFailedError

            try:
                with api_for_refresh():
                    summary = refresh(names, data_dir=str(data))
            except RefreshFailedError as exc:
                summary = exc.summary
        seconds = time.perf_counter() - t
    statuses = {s.source: s.status for s in summary.sources}
    return {"seconds": seconds, "published": summary.published,
            "refreshed": sum(s in ("live", "unchanged") for s in statuses.values()),
            "sources": len(names)}


def _step_costs() -> dict:
    """What a flow run and a task run cost against the server PREFECT_API_URL names."""
    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE
    from prefect.task_runners import ThreadPoolTaskRunner

    @task(persist_result=False, cache_policy=NO_CACHE)
    def noop(i: int) -> int:
        return i

    @flow(persist_result=False)
    def empty() -> None:
        return None

    @flow(persist_result=False)
    def sequential(n: int) -> None:
        for i in range(n):
            noop(i)

    @flow(persist_result=False, task_runner=ThreadPoolTaskRunner(max_workers=8))
    def concurrent(n: int) -> None:
        for f in [noop.submit(i) for i in range(n)]:
            f.result()

    def timed(fn: Callable[[], None]) -> float:
        fn()  # warm: the first call registers the flow and opens the client
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    t_heartbeat = timed(empty)  # prefect's default: a heartbeat thread every 180 s
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):  # as refresh
        t_empty = timed(empty)
        t_seq = timed(lambda: sequential(TASKS))
        t_conc = timed(lambda: concurrent(TASKS))
    return {"flow_run_ms": t_empty * 1000, "flow_run_with_heartbeats_ms": t_heartbeat * 1000,
            "task_run_sequential_ms": (t_seq - t_empty) / TASKS * 1000,
            "task_run_concurrent_ms": (t_conc - t_empty) / TASKS * 1000,
            "tasks_per_flow": TASKS}


# ---- driver -----------------------------------------------------------------------------------
def _median_of(runs: list[dict]) -> dict:
    out = {k: statistics.median(r[k] for r in runs)
           for k in ("seconds", "wall_seconds", "peak_rss_mb") if all(k in r for r in runs)}
    out["runs_wall_seconds"] = [round(r["wall_seconds"], 3) for r in runs]
    return out


def _process(cmd: list[str], env: dict[str, str]) -> dict:
    """Run `cmd` to the end; its wall time and peak RSS (it must exit 0)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({status}): {err.decode()[-2000:]}")
    return {"seconds": wall, "wall_seconds": wall, "peak_rss_mb": usage.ru_maxrss / 1024}


def _offline_env(env: dict[str, str]) -> dict[str, str]:
    """Every source at a name under .invalid (RFC 6761: never resolves), as offline."""
    from gpucost.catalog import sources

    out = dict(env)
    for name in sources.names():
        out[f"GPUCOST_SOURCE_URL_{name.upper()}"] = f"http://{name}.gpucost-offline.invalid/x"
    out["GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS"] = "http://cloudgpus.gpucost-offline.invalid/x"
    return out


def _target(target: str, a: float, b: float, limit: float, unit: str = "s") -> dict:
    ratio = a / b
    return {"target": target, "measured": f"{a:.2f} {unit} vs {b:.2f} {unit}",
            "ratio": round(ratio, 2), "limit": limit, "met": ratio <= limit}


def measure(work: Path, run_step: RunStep, log: Callable[[str], None]) -> dict:
    """Every orchestration figure, side by side; starts (and stops) its own Prefect server."""
    from gpucost.flows import prefect_server

    home = work / "prefect"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "DO_NOT_TRACK": "1"}
    env.pop("PREFECT_API_URL", None)
    saved = {k: os.environ.get(k) for k in ("PREFECT_HOME", "PREFECT_API_URL")}
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    out: dict = {}
    try:
        log("orchestration: starting a Prefect server (new database) ...")
        t = time.perf_counter()
        prefect_server.start()
        out["server_start_new_db_s"] = time.perf_counter() - t
        prefect_server.stop()
        t = time.perf_counter()
        info, _ = prefect_server.start()
        out["server_start_existing_db_s"] = time.perf_counter() - t
        server_env = {**env, "PREFECT_API_URL": info.url}

        log("orchestration: cost of a flow run and a task run ...")
        out["run_costs"] = run_step("orch", "costs", env=server_env)

        log(f"orchestration: loopback refresh, {RUNS} runs per mode ...")
        runs: dict[str, list[dict]] = {"plain": [], "prefect": []}
        dirs = {m: work / f"loopback-{m}" for m in runs}
        for m in runs:  # seed: the first run loads every source's baseline
            run_step("orch", "loopback", str(dirs[m]), m,
                     env=server_env if m == "prefect" else env)
        for _ in range(RUNS):
            for m in runs:
                runs[m].append(run_step("orch", "loopback", str(dirs[m]), m,
                                        env=server_env if m == "prefect" else env))
        out["loopback_plain"] = _median_of(runs["plain"])
        out["loopback_prefect"] = _median_of(runs["prefect"])
        out["loopback_refreshed"] = f"{runs['prefect'][-1]['refreshed']} of " \
                                    f"{runs['prefect'][-1]['sources']} sources"

        log(f"orchestration: offline refresh, {RUNS} runs per mode ...")
        offline = _offline_env({**env, "GPUCOST_DATA_DIR": str(work / "offline")})
        make = ["make", "-s", "refresh"]
        plain = [str(BIN / "gpucost"), "refresh", "--no-prefect"]
        _process(plain, offline)  # seed the warehouse
        _process(make, offline)
        off: dict[str, list[dict]] = {"plain": [], "prefect": []}
        for _ in range(RUNS):
            off["plain"].append(_process(plain, offline))
            off["prefect"].append(_process(make, offline))
        out["offline_plain"] = _median_of(off["plain"])
        out["offline_prefect"] = _median_of(off["prefect"])

        log("orchestration: what importing Prefect costs a process ...")
        imports: dict[str, list[dict]] = {"core": [], "flow": []}
        for _ in range(RUNS):
            for key, module in (("core", "steps"), ("flow", "refresh")):
                imports[key].append(_process(
                    [sys.executable, "-c", f"import gpucost.flows.{module}"], env))
        out["import_refresh_run"] = _median_of(imports["core"])  # the plain path
        out["import_refresh_flow"] = _median_of(imports["flow"])  # ... plus Prefect

        log(f"orchestration: `gpucost sql` round trip, {SQL_RUNS} runs per mode ...")
        db = work / "offline" / "gpucost.duckdb"
        bare = [sys.executable, "-c",
                "import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); "
                "print(con.execute(sys.argv[2]).fetchall())", str(db), SQL]
        cli = [str(BIN / "gpucost"), "sql", SQL]
        sql: dict[str, list[dict]] = {"bare": [], "cli": []}
        for _ in range(SQL_RUNS):
            sql["bare"].append(_process(bare, offline))
            sql["cli"].append(_process(cli, offline))
        out["sql_bare_duckdb"] = _median_of(sql["bare"])
        out["sql_gpucost"] = _median_of(sql["cli"])
    finally:
        prefect_server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    lp, lq = out["loopback_prefect"]["wall_seconds"], out["loopback_plain"]["wall_seconds"]
    op, oq = out["offline_prefect"]["wall_seconds"], out["offline_plain"]["wall_seconds"]
    sc, sb = out["sql_gpucost"]["wall_seconds"], out["sql_bare_duckdb"]["wall_seconds"]
    out["targets"] = [
        _target("loopback refresh through Prefect (running server) vs plain calls", lp, lq, 1.5),
        _target("offline `make refresh` (Prefect) vs `gpucost refresh --no-prefect`",
                op, oq, 1.5),
        _target("`gpucost sql` round trip vs bare read-only DuckDB connect + query",
                sc, sb, 2.0),
    ]
    return out


def markdown(o: dict) -> str:
    """The orchestration figures as Markdown (benchmarks/report.py writes them to RESULTS.md)."""
    c = o["run_costs"]
    lines = ["| target | measured (median process wall time) | ratio | limit | met |",
             "| --- | --- | --- | --- | --- |"]
    for t in o["targets"]:
        lines.append(f"| {t['target']} | {t['measured']} | {t['ratio']:.2f}x | "
                     f"<= {t['limit']}x | {'yes' if t['met'] else 'no'} |")
    lines += ["", "| mode | median s (in process) | median process s | runs (process s) | "
              "peak RSS MB |", "| --- | --- | --- | --- | --- |"]
    for key, v in o.items():
        if isinstance(v, dict) and "runs_wall_seconds" in v:
            lines.append(f"| {key} | {v['seconds']:.2f} | {v['wall_seconds']:.2f} | "
                         f"{', '.join(f'{x:.2f}' for x in v['runs_wall_seconds'])} | "
                         f"{v['peak_rss_mb']:.0f} |")
    lines += ["", f"Against a running server: one flow run {c['flow_run_ms']:.0f} ms (an "
              f"empty flow; {c['flow_run_with_heartbeats_ms']:.0f} ms with Prefect's default "
              f"heartbeats); one task run {c['task_run_sequential_ms']:.0f} ms when run one "
              f"after another, {c['task_run_concurrent_ms']:.0f} ms each when "
              f"{c['tasks_per_flow']} are submitted at once (8 threads). `gpucost server "
              f"start`: {o['server_start_new_db_s']:.1f} s on a new database, "
              f"{o['server_start_existing_db_s']:.1f} s on an existing one. Importing the "
              f"flow module (Prefect included) takes a process "
              f"{o['import_refresh_flow']['wall_seconds']:.2f} s, the plain path's module "
              f"{o['import_refresh_run']['wall_seconds']:.2f} s."]
    return "\n".join(lines)


def main_only(run_step: RunStep, work: Path) -> dict:
    """`--only-orchestration`: these figures alone, printed as Markdown and JSON."""
    out = measure(work, run_step, lambda text: print(text, file=sys.stderr))
    print(json.dumps(out, indent=1, default=str), file=sys.stderr)
    print(markdown(out))
    return out
