"""Run the fault-injection matrix and write docs/reliability.md from what was observed.

    .venv/bin/python scripts/reliability_table.py      (or: make reliability)

The same scenarios are asserted by tests/system/test_faults.py; this script only records them.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT))

import fault_matrix as fm  # noqa: E402
import hostile_cases as hc  # noqa: E402


def _cell(text: str, limit: int = 110) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _live_walks() -> list[str]:
    lines = [
        "## Live walks",
        "",
        "What each source's live fetch requests, in order, served good by the loopback server"
        " (paths on the server; *nav* = a navigation document, left good by content faults;"
        " every other document is a data document its parser reads).",
        "",
        "| source | requests | empty-catalog document |",
        "| --- | --- | --- |",
    ]
    for source in sorted(fm.GOOD_FIXTURES):
        live = fm.live_documents(source, "")
        walk = "<br>".join(
            f"{'*nav* ' if d.nav else ''}{d.method} `{d.path}` ({d.fmt})" for d in live.docs)
        empties: list[str] = []
        for d in live.docs:
            text = d.empty_label or f"`{_cell(d.empty.decode('utf-8', 'replace'), 70)}`"
            if not d.nav and text not in empties:
                empties.append(text)
        lines.append(f"| {source} | {walk} | {'<br>'.join(empties)} |")
    return lines


NOT_HERE = "run by make cluster-test"  # a cluster case without the cluster extra


def _run_cases(cases: list, marker: str | None = None) -> dict[str, tuple[str, float]]:
    """Run the tests the cases name (pytest, JUnit XML): {node id: (status, seconds)}.
    `marker`: the tests carry it (the default run deselects `cluster` even by node id)."""
    import subprocess
    import xml.etree.ElementTree as ET

    if not cases:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        ids = sorted({c.test for c in cases})
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        *(["-m", marker] if marker else []),
                        f"--junitxml={report}", *ids], cwd=ROOT, capture_output=True,
                       text=True, timeout=1800)
        outcome: dict[str, tuple[str, float]] = {}
        for tc in ET.parse(report).getroot().iter("testcase"):
            name = tc.get("name", "").split("[")[0]
            file = tc.get("classname", "").replace(".", "/") + ".py"
            failed = any(child.tag in ("failure", "error") for child in tc)
            skipped = any(child.tag == "skipped" for child in tc)
            key = f"{file}::{name}"
            held = outcome.get(key, ("pass", 0.0))
            status = "FAIL" if failed or held[0] == "FAIL" else ("skipped" if skipped
                                                                else held[0])
            outcome[key] = (status, held[1] + float(tc.get("time", 0)))
    return outcome


def _case_rows(rows: list) -> list[str]:
    lines = ["| item | case | behaviour now | test | result |",
             "| --- | --- | --- | --- | --- |"]
    for case, (status, secs) in rows:
        file, name = case.test.split("::")
        result = status if status == NOT_HERE else f"{status} ({secs:.1f} s)"
        lines.append(f"| {case.item} | {_cell(case.case, 200)} | {_cell(case.now, 200)} |"
                     f" `{Path(file).name}::{name}` | {result} |")
    return lines


def _clients_section() -> tuple[list[str], int]:
    """Issue 27's cases (hostile clients, huge payloads, dead servers, terminal bytes): run
    their tests; the section's lines and the number of failures."""
    start = time.perf_counter()
    outcome = _run_cases(hc.CLIENT_CASES)
    seconds = time.perf_counter() - start
    rows = [(c, outcome.get(c.test, ("NOT RUN", 0.0))) for c in hc.CLIENT_CASES]
    failed = sum(o[0] != "pass" for _, o in rows)
    return [
        "## Hostile clients, huge payloads, dead servers, terminal bytes",
        "",
        "The failures of issue \"What we publish stays ours\" (items 1-11). Each case is a"
        " test; this table is the outcome of running them"
        f" ({len(rows)} cases, {len(rows) - failed} passed, {failed} failed, {seconds:.0f} s)."
        " The scale case (1,000,000 offers in force: load and publish time, peak RSS) is"
        " measured outside the tests: `make bench-offers`, benchmarks/RESULTS.md \"Offers in"
        " force at scale\".",
        "",
        *_case_rows(rows),
    ], failed


def cluster_extra_installed() -> bool:
    """Whether the cluster packages are installed (`make cluster-setup`): the cluster cases'
    tests (marker `cluster`) can run."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("pyiceberg", "s3fs"))


def _round4_section() -> tuple[list[str], int]:
    """Issue 40's cases: the embedded ones run here; the cluster ones with `-m cluster` when
    the cluster extra is installed, else listed as run by `make cluster-test`."""
    start = time.perf_counter()
    outcome = _run_cases(hc.ROUND4_CASES)
    cluster = cluster_extra_installed()
    if cluster:
        outcome.update(_run_cases(hc.ROUND4_CLUSTER_CASES, marker="cluster"))
    seconds = time.perf_counter() - start
    rows = [(c, outcome.get(c.test, ("NOT RUN", 0.0))) for c in hc.ROUND4_CASES]
    rows += [(c, outcome.get(c.test, ("NOT RUN", 0.0)) if cluster
              else (NOT_HERE, 0.0)) for c in hc.ROUND4_CLUSTER_CASES]
    ran = [o for _, o in rows if o[0] != NOT_HERE]
    failed = sum(o[0] != "pass" for o in ran)
    return [
        "## Hostile round 4: data at rest, links, huge answers, URL overrides, cluster guards",
        "",
        "The failures of issue \"Hostile round 4\" (embedded mode items 1-9, then the cluster"
        " mode's). Each case is a test; this table is the outcome of running them"
        f" ({len(rows)} cases, {len(ran)} run, {len(ran) - failed} passed, {failed} failed,"
        f" {seconds:.0f} s)."
        + ("" if cluster or not hc.ROUND4_CLUSTER_CASES else
           " The cluster cases need the cluster extra (`make cluster-setup`): run by"
           " `make cluster-test`.")
        + " The 10M-row `sql` answers (time and peak RSS before and after) are measured"
        " outside the tests: benchmarks/RESULTS.md \"sql answers at 10M rows\".",
        "",
        *_case_rows(rows),
    ], failed


def _hostile_section() -> tuple[list[str], int]:
    """Run every hostile-input case's test (pytest, JUnit XML) and the gzip-bomb refresh
    measurement; the section's lines and the number of failures."""
    start = time.perf_counter()
    outcome = _run_cases(hc.CASES)
    measured = hc.measure_bomb_refresh()
    seconds = time.perf_counter() - start
    rows = [(c, outcome.get(c.test, ("NOT RUN", 0.0))) for c in hc.CASES]
    failed = sum(o[0] != "pass" for _, o in rows)
    lines = [
        "## Hostile input",
        "",
        "The failures a hostile test found beyond the matrix above (issue \"Hostile input\","
        " items 1-11; items 3, 4, 8 and 9 also have matrix faults: nested brackets, a dribbled"
        " body, a redirect to another host, a gzip bomb). Each case is a test; this table is"
        " the outcome of running them"
        f" ({len(rows)} cases, {len(rows) - failed} passed, {failed} failed, {seconds:.0f} s"
        " including the measurement below).",
        "",
        f"Peak memory of a whole refresh facing a gzip-bomb `robots.txt`"
        f" ({measured['bomb_bytes'] / 1e6:.1f} MB on the wire, 4 GiB of zeros decoded), in"
        f" its own process (getrusage): **{measured['peak_rss_mb']:.0f} MB** (limit"
        f" {hc.PEAK_RSS_LIMIT_MB} MB; the source went {measured['status']}, robots.txt"
        " counting as absent past its 512 KiB cap).",
        "",
        *_case_rows(rows),
    ]
    return lines, failed


def main() -> int:
    start = time.perf_counter()
    names = sorted(fm.GOOD_FIXTURES)
    runs = fm.schedule(names)
    with tempfile.TemporaryDirectory() as tmp, fm.fast_clients():
        os.environ["GPUCOST_DATA_DIR"] = str(Path(tmp) / "unused")
        baseline = Path(tmp) / "baseline"
        fm.make_baseline(baseline)
        rows = fm.run_matrix(baseline, Path(tmp), os.environ.__setitem__, names)
    seconds = time.perf_counter() - start
    failed = sum(not o.ok for o in rows)
    lines = [
        "# Reliability: fault injection",
        "",
        "Every fault of issue 7 (HTTP 500, 429 with Retry-After, a timeout, a connection reset,"
        " a truncated body, a changed page layout, an empty catalog, a response over the size"
        " cap, non-UTF-8 bytes, a wrong content type) and of issue \"Hostile input\" (a body"
        " dribbled past the fetch deadline, a redirect to another host, a gzip bomb, nested"
        " brackets) against every live source, on a"
        " loopback HTTP server: each must give a named error for that source only, the other"
        " sources publish, nothing already stored is lost, and the last good data of the"
        " failed source stays in force.",
        "",
        "## Method",
        "",
        fm.METHOD.rstrip(),
        "",
        f"Generated by `scripts/reliability_table.py` (`make reliability`) on"
        f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC ({platform.python_implementation()}"
        f" {platform.python_version()}, {os.cpu_count()} cores): {len(runs)} runs,"
        f" {len(rows)} scenarios ({len(fm.FAULTS)} faults x {len(names)} sources),"
        f" {len(rows) - failed} passed, {failed} failed, {seconds:.0f} s including the baseline."
        " Each row is asserted by"
        " `tests/system/test_faults.py::test_fault_is_named_isolated_and_loses_nothing[<fault>]`.",
        f"Client settings during the runs: read and connect timeout {fm.TIMEOUT_S} s, fetch"
        f" deadline {fm.DEADLINE_S:.0f} s per source, size cap"
        f" {fm.SIZE_CAP // 1024} KiB, 3 retries without backoff or politeness delay"
        " (production:"
        " 5/30 s, deadline 600 s, 64 MiB, backoff 1-2-4 s, TechPowerUp 5 s and ROCm/MLPerf 1 s"
        " between"
        " requests); SkyPilot, AWS, gpuhunt and TechPowerUp limited to the parts their fixtures"
        " cover (the lambda cloud, us-east-1, nebius, three pages).",
        "",
    ]
    if fm.EXPECTED_INSTEAD:
        lines += ["Expected errors other than the fault's own:", ""]
        for (fault, source), (errors, why) in sorted(fm.EXPECTED_INSTEAD.items()):
            lines.append(f"* {fault} / {source}: {' or '.join(sorted(errors))}: {why}.")
        lines.append("")
    lines += ["## Runs", "", "| run | failing sources (fault) | controls |", "| --- | --- | --- |"]
    for index, assignment in enumerate(runs):
        failing = ", ".join(f"{s} ({f})" for s, f in sorted(assignment.items()) if f)
        controls = ", ".join(s for s, f in sorted(assignment.items()) if f is None)
        lines.append(f"| {index} | {failing} | {controls} |")
    lines += [
        "",
        "## Results",
        "",
        "*observed*: the source's status in the run summary (`fallback` = failed, older data"
        " still in force), the named error of each fetch row the run recorded for it, and the"
        " first message.",
        "",
        "| fault | source | run | hits | expected | observed | published, controls live |"
        " last good data kept | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    order = {f.name: i for i, f in enumerate(fm.FAULTS)}
    for o in sorted(rows, key=lambda o: (order[o.fault], o.source)):
        fault = fm.FAULT[o.fault]
        docs = fm.live_documents(o.source, "").docs
        data = [d for d in docs if not d.nav]
        hits = (f"every request ({len(docs)} doc.)" if fault.transport
                else f"data documents ({len(data)} of {len(docs)})")
        errors = ", ".join(f"`{e}`" for e in sorted(set(o.error_types)))
        if len(o.error_types) > 1:
            errors += f" x{len(o.error_types)}"
        kept = f"{o.rows_before} → {o.rows_after} rows"
        if o.lost:
            kept += " LOST: " + ", ".join(o.lost)
        lines.append(
            f"| {o.fault}: {fault.description} | {o.source} | {o.run} | {hits} |"
            f" {' or '.join(sorted(o.expected))} | {o.status}: {errors} {_cell(o.error or '')}"
            f" | {'yes' if o.published else 'NO'}, {'yes' if o.controls_live else 'NO'} |"
            f" {kept} |"
            f" {'pass' if o.ok else 'FAIL'} |"
        )
    hostile, hostile_failed = _hostile_section()
    clients, clients_failed = _clients_section()
    round4, round4_failed = _round4_section()
    hostile_failed += clients_failed + round4_failed
    lines += [""] + hostile + [""] + clients + [""] + round4 + [""] + _live_walks()
    out = ROOT / "docs" / "reliability.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(rows)} scenarios, {failed} failed, {seconds:.1f} s; "
          f"{len(hc.CASES) + len(hc.CLIENT_CASES) + len(hc.ROUND4_CASES)}"
          f" hostile cases (+{len(hc.ROUND4_CLUSTER_CASES)} cluster), {hostile_failed} failed)")
    return 1 if failed or hostile_failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
