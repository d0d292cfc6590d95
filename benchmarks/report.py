"""Write benchmarks/RESULTS.md from a benchmark run (keeps the hand-written notes block)."""

from __future__ import annotations

import re
from pathlib import Path

NOTES = re.compile(r"<!-- notes -->.*?<!-- /notes -->", re.S)
OFFERS = re.compile(r"<!-- offers-in-force:start -->.*?<!-- offers-in-force:end -->", re.S)
CLUSTER = re.compile(r"<!-- cluster:start -->.*?<!-- cluster:end -->", re.S)


def _f(x: float, digits: int = 2) -> str:
    return f"{x:,.{digits}f}"


def _queries(d: dict) -> dict:
    return {k: v for k, v in d["queries"].items() if isinstance(v, dict)}


def orchestration_targets(o: dict) -> list[str]:
    """Target rows of the orchestration measurements (benchmarks/orchestration.py)."""
    return [f"| {t['target']}: ≤ {t['limit']}× | {t['measured']} ({_f(t['ratio'])}×) | "
            f"{'yes' if t['met'] else 'no'} |" for t in o.get("targets", [])]


def write_results(r: dict, out: Path) -> None:
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    m = NOTES.search(old)
    notes = m.group(0) if m else "<!-- notes -->\n(no notes yet)\n<!-- /notes -->"
    sizes = {int(k): v for k, v in r["sizes"].items()}
    biggest = max(sizes) if sizes else None
    e = r["empty"]
    lines = [
        "# Benchmarks",
        "",
        f"Machine: {r['machine']}.",
        f"Run: {r['started'][:19]} → {r['finished'][:19]} UTC, with `make bench` "
        "(`python -m benchmarks.bench`). Every step runs in its own process; peak memory is "
        "that process's max RSS. Raw figures: `benchmarks/RESULTS.json`.",
        "",
        "## Targets",
        "",
        "Targets of issue 13, measured side by side in this run.",
        "",
        "| target | measured | met |",
        "| --- | --- | --- |",
    ]
    if biggest:
        b = sizes[biggest]
        ratio = b["incremental"]["seconds"] / e["incremental"]["seconds"]
        lines.append(
            f"| refresh (load + publish) at {biggest:,} rows vs the same on an empty history: "
            f"≤ 2× | {_f(b['incremental']['seconds'])} s vs {_f(e['incremental']['seconds'])}"
            f" s ({_f(ratio)}×) | {'yes' if ratio <= 2 else 'no'} |")
        peak = b["incremental"]["peak_rss_mb"]
        lines.append(f"| peak RSS of a refresh at {biggest:,} rows: ≤ 1 GB | {_f(peak, 0)} MB "
                     f"| {'yes' if peak <= 1024 else 'no'} |")
        worst = max(_queries(b).items(), key=lambda kv: kv[1]["p95_ms"])
        lines.append(f"| p95 of every report/dashboard query at {biggest:,} rows, history "
                     f"queries included: ≤ 50 ms | worst p95 {_f(worst[1]['p95_ms'])} ms "
                     f"({worst[0]}) | {'yes' if worst[1]['p95_ms'] <= 50 else 'no'} |")
    o = r.get("orchestration", {})
    lines += orchestration_targets(o)
    lines += ["", "## Refresh and rebuild", "",
              "| history rows | raw.duckdb MB | generate s | refresh s (load + publish) | history "
              "built | full rebuild s | peak RSS MB (refresh / rebuild) | slowest models of the "
              "refresh | slowest of the rebuild |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows = [("empty", None, e)] + [(f"{n:,}", sizes[n], sizes[n]) for n in sorted(sizes)]
    for label, s, d in rows:
        inc, reb = d["incremental"], d["rebuild"]
        slow = ", ".join(f"{name} {_f(sec)}" for name, sec in reb["slowest_models"][:3])
        slow_inc = ", ".join(f"{name} {_f(sec)}" for name, sec in
                             inc.get("slowest_models", [])[:3])
        lines.append(
            f"| {label} | {_f(s['db_mb'], 0) if s else '-'} | "
            f"{_f(s['generate']['seconds'], 1) if s else '-'} | {_f(inc['seconds'])} "
            f"({_f(inc['load_seconds'])} + {_f(inc['publish_seconds'])}) | "
            f"{inc.get('history_mode', '-')} | "
            f"{_f(reb['seconds'])} | {_f(inc['peak_rss_mb'], 0)} / {_f(reb['peak_rss_mb'], 0)} "
            f"| {slow_inc} | {slow} |")
    lines += ["", "## Query latency (published warehouse, read-only)", "",
              "| query | " + " | ".join(f"{lab} p50 / p95 ms" for lab, _, _ in rows) + " |",
              "| --- |" + " --- |" * len(rows)]
    names = list(_queries(e))
    for s in sizes.values():
        names += [n for n in _queries(s) if n not in names]
    for q in names:
        cells = []
        for _, _, d in rows:
            v = _queries(d).get(q)
            cells.append(f"{_f(v['p50_ms'])} / {_f(v['p95_ms'])}" if v else "-")
        lines.append(f"| {q} | " + " | ".join(cells) + " |")
    lines += ["", "## Parse throughput (recorded files in ../shared/data/prices)", "",
              "| source | files | MB | rows | s | MB/s | rows/s |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, v in sorted(r["parse"].items()):
        if not isinstance(v, dict) or "files" not in v:
            continue
        lines.append(f"| {name} | {v['files']} | {_f(v['mb'])} | {v['rows']:,} | "
                     f"{_f(v['seconds'], 3)} | {_f(v['mb_per_s'], 1)} | {_f(v['rows_per_s'], 0)} |")
    if o.get("targets"):
        from benchmarks.orchestration import markdown

        lines += ["", "## Orchestration", "",
                  "Refreshes through Prefect and as plain calls, side by side, median of 5 "
                  "process runs each: every source served its recorded payload from a loopback "
                  "server, against a running Prefect server (`gpucost server start`); and "
                  "offline (no source reachable), `make refresh` against "
                  "`gpucost refresh --no-prefect`. Then what a flow run and a task run cost.",
                  "", markdown(o)]
    # the sections `make bench-offers` and `make bench-cluster` write (benchmarks/offers.py,
    # benchmarks/cluster.py) are kept as they are
    for section in (OFFERS, CLUSTER):
        kept = section.search(old)
        if kept:
            lines += ["", kept.group(0)]
    lines += ["", "## Notes", "", notes, ""]
    out.write_text("\n".join(lines), encoding="utf-8")
