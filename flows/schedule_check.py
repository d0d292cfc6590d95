"""Is the Prefect scheduler scheduling? What `gpucost server status` and `gpucost serve` ask.

A served deployment runs only when the Prefect server's scheduler service has created its
scheduled flow runs. A healthy scheduler creates them within seconds of a deployment being
created or changed (the "recent deployments" pass; measured: 4 s), and keeps several future
runs per active schedule after that (prefect 3.8: at least 3). A scheduler that fails
(prefect 3.8.8 under SQLAlchemy 2.1: "Can't evaluate bulk DML statement" on every pass) creates
none: the deployments look registered and `serve` polls forever, and nothing ever runs.

So a deployment is **not being scheduled** when it is not paused, has an active schedule, was
created or last changed more than `grace_s` ago (default 90 s: the scheduler's full pass runs
every 60 s) and no flow run of it expected at or after that moment exists. Errors of the
scheduler service in the server's log (the local server's log since it started) name the cause,
and with them a deployment without runs is reported at once, without waiting for the grace.

Everything is read from the server's REST API with the standard library (no Prefect import:
`gpucost server status` answers in a fraction of a second); `assess` is a plain function of
what was read, tested without a server.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpucost.flows.cli.terminal import safe

GRACE_S = 90.0
# with scheduler errors in the log, a deployment younger than this is not judged yet: the
# scheduler's pass over recently changed deployments runs every few seconds
ERRORS_MIN_AGE_S = 15.0
HTTP_TIMEOUT_S = 5.0
LOG_TAIL_BYTES = 4 << 20  # the part of the server log read for scheduler errors
# A logged error of the scheduler service: prefect 3.8 runs it as docket tasks named
# schedule_deployments / schedule_recent_deployments (prefect/server/services/scheduler.py)
_SCHEDULER_ERROR = re.compile(
    r"\|\s*ERROR\s*\|.*(schedule_(recent_)?deployments|services\.scheduler|Scheduler)")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)\b.*")


@dataclass(frozen=True)
class Run:
    name: str
    state: str  # Prefect's state name: Scheduled, Late, Running, Completed, Failed...
    expected_start: datetime | None
    start: datetime | None
    end: datetime | None
    auto_scheduled: bool
    message: str = ""


@dataclass
class DeploymentStatus:
    name: str  # flow/deployment, e.g. refresh/prices
    schedules: list[str]  # "cron '* * * * *' (UTC)" per active schedule
    paused: bool
    since: datetime | None  # created or last changed (the deployment or one of its schedules)
    runs_since: int  # flow runs expected at or after `since`
    last_run: Run | None  # the latest run that left the Scheduled state
    next_run: Run | None  # the earliest run still scheduled
    not_scheduled: bool = False  # the verdict of `assess`
    why: str = ""

    @property
    def scheduled(self) -> bool:
        return bool(self.schedules) and not self.paused


@dataclass
class SchedulerReport:
    deployments: list[DeploymentStatus]
    log_errors: int = 0  # scheduler errors in the server log since it started
    last_log_error: str = ""  # the last one's exception line
    checked_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def failing(self) -> list[DeploymentStatus]:
        return [d for d in self.deployments if d.not_scheduled]

    @property
    def ok(self) -> bool:
        return not self.failing

    def verdict(self) -> str:
        """One line: whether the scheduler schedules, and why not."""
        cause = (f"; the server log has {self.log_errors} scheduler error(s), the last: "
                 f"{self.last_log_error}" if self.log_errors else "")
        if self.failing:
            names = ", ".join(f"{d.name} ({d.why})" for d in self.failing)
            return safe(f"error: the Prefect scheduler is not scheduling: {names}{cause}")
        active = [d for d in self.deployments if d.scheduled]
        if not active:
            paused = sum(d.paused for d in self.deployments)
            return ("scheduler: no active schedule" + (f" ({paused} deployment(s) paused: "
                    "`gpucost serve` resumes them)" if paused else ""))
        line = f"scheduler: ok ({len(active)} active schedule(s) have their runs)"
        if self.log_errors:
            line += f"; warning: {self.log_errors} scheduler error(s) in the server log, " \
                    f"the last: {self.last_log_error}"
        return line


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _run(row: dict[str, Any] | None) -> Run | None:
    if not row:
        return None
    state = row.get("state") or {}
    return Run(
        name=str(row.get("name") or ""),
        state=str(state.get("name") or row.get("state_name") or ""),
        expected_start=_when(row.get("expected_start_time")),
        start=_when(row.get("start_time")), end=_when(row.get("end_time")),
        auto_scheduled=bool(row.get("auto_scheduled")),
        message=str(state.get("message") or ""),
    )


def _schedule_text(s: dict[str, Any]) -> str:
    sched = s.get("schedule") or {}
    if "cron" in sched:
        return f"cron {sched['cron']!r} ({sched.get('timezone') or 'UTC'})"
    if "interval" in sched:
        return f"every {sched['interval']} s"
    return "rrule" if "rrule" in sched else "schedule"


def deployment_status(d: dict[str, Any], flow_name: str, runs_since: int,
                      last_run: dict[str, Any] | None,
                      next_run: dict[str, Any] | None) -> DeploymentStatus:
    """A deployment as the API returned it, with what was read about its runs."""
    active = [s for s in d.get("schedules") or [] if s.get("active", True)]
    stamps = [_when(d.get("created")), _when(d.get("updated"))]
    stamps += [_when(s.get("updated")) for s in active]
    known = [t for t in stamps if t is not None]
    return DeploymentStatus(
        name=f"{flow_name}/{d.get('name')}", schedules=[_schedule_text(s) for s in active],
        paused=bool(d.get("paused")), since=max(known) if known else None,
        runs_since=runs_since, last_run=_run(last_run), next_run=_run(next_run))


def assess(deployments: list[DeploymentStatus], log_errors: list[str], now: datetime,
           grace_s: float = GRACE_S) -> SchedulerReport:
    """The verdict per deployment (see the module doc): not scheduled when it has an active
    schedule and no run since it was created or changed, for longer than `grace_s` or while
    the server log shows scheduler errors."""
    for d in deployments:
        if not d.scheduled or d.runs_since > 0 or d.since is None:
            continue
        age = (now - d.since).total_seconds()
        if age > grace_s or (log_errors and age > min(ERRORS_MIN_AGE_S, grace_s)):
            d.not_scheduled = True
            d.why = (f"an active schedule for {_age(age)} and no scheduled run"
                     if age > grace_s else "no scheduled run yet, scheduler errors logged")
    return SchedulerReport(deployments, log_errors=len(log_errors),
                           last_log_error=log_errors[-1] if log_errors else "", checked_at=now)


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def scheduler_errors(lines: Iterable[str]) -> list[str]:
    """The scheduler errors of a Prefect server log, each as the exception line that ends its
    traceback (or the error line itself when no exception line follows)."""
    found: list[str] = []
    pending: str | None = None
    for raw in lines:
        line = raw.rstrip("\n")
        if _SCHEDULER_ERROR.search(line):
            if pending is not None:
                found.append(pending)
            pending = line.strip()
            continue
        if pending is not None and _EXCEPTION_LINE.match(line):
            found.append(line.strip())
            pending = None
        elif pending is not None and re.match(r"^\d\d:\d\d:\d\d", line):
            found.append(pending)  # the next log record: no exception line followed
            pending = None
    if pending is not None:
        found.append(pending)
    return found


def read_log_errors(log: str | Path | None, offset: int = 0) -> list[str]:
    """Scheduler errors in the server log written since byte `offset` (the server's start),
    reading at most its last LOG_TAIL_BYTES."""
    if not log:
        return []
    try:
        with open(log, "rb") as fh:
            size = fh.seek(0, 2)
            fh.seek(max(offset, size - LOG_TAIL_BYTES) if offset <= size else 0)
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    return scheduler_errors(text.splitlines())


Post = Callable[[str, dict[str, Any]], Any]


def _api(url: str) -> tuple[Post, Callable[[str], Any]]:
    base = url.rstrip("/")

    def post(path: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as resp:
            return json.loads(resp.read())

    def get(path: str) -> Any:
        with urllib.request.urlopen(f"{base}{path}", timeout=HTTP_TIMEOUT_S) as resp:
            return json.loads(resp.read())

    return post, get


def read_deployments(url: str) -> list[DeploymentStatus]:
    """Every deployment of the server at `url` (PREFECT_API_URL form), with its runs."""
    post, get = _api(url)
    flows: dict[str, str] = {}
    out = []
    for d in post("/deployments/filter", {"limit": 200}):
        fid = str(d.get("flow_id"))
        if fid not in flows:
            flows[fid] = str(get(f"/flows/{fid}").get("name"))
        status = deployment_status(d, flows[fid], 0, None, None)
        by_deployment = {"deployment_id": {"any_": [d["id"]]}}
        runs_since = 0
        if status.since is not None:
            runs_since = int(post("/flow_runs/count", {"flow_runs": {
                **by_deployment,
                "expected_start_time": {"after_": status.since.isoformat()}}}))
        last = post("/flow_runs/filter", {
            "flow_runs": {**by_deployment, "state": {"type": {"not_any_": ["SCHEDULED"]}}},
            "sort": "EXPECTED_START_TIME_DESC", "limit": 1})
        nxt = post("/flow_runs/filter", {
            "flow_runs": {**by_deployment, "state": {"type": {"any_": ["SCHEDULED"]}}},
            "sort": "EXPECTED_START_TIME_ASC", "limit": 1})
        status.runs_since = runs_since
        status.last_run = _run(last[0] if last else None)
        status.next_run = _run(nxt[0] if nxt else None)
        out.append(status)
    return out


def check(url: str, log: str | Path | None = None, log_offset: int = 0,
          grace_s: float = GRACE_S, now: datetime | None = None) -> SchedulerReport:
    """Read the server at `url` (and its log, when it is the local one) and assess it."""
    return assess(read_deployments(url), read_log_errors(log, log_offset),
                  now or datetime.now(UTC), grace_s)


def _clock(t: datetime | None, now: datetime) -> str:
    if t is None:
        return "-"
    age = (now - t).total_seconds()
    rel = f"{_age(age)} ago" if age >= 0 else f"in {_age(-age)}"
    return f"{t.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC ({rel})"


def describe(report: SchedulerReport) -> list[str]:
    """One line per deployment (schedule, last run, next run), then the verdict."""
    now = report.checked_at
    lines = []
    for d in sorted(report.deployments, key=lambda x: x.name):
        head = f"{d.name}: {', '.join(d.schedules) or 'no active schedule'}"
        if d.paused:
            head += " [paused]"
        last = d.last_run
        if last:
            when = last.end or last.start or last.expected_start
            head += (f"; last {'scheduled ' if last.auto_scheduled else ''}run "
                     f"{last.name!r} {last.state} {_clock(when, now)}")
        else:
            head += "; no run yet"
        if d.next_run:
            nxt = d.next_run
            head += f"; next {_clock(nxt.expected_start, now)}"
            if nxt.state != "Scheduled":
                head += f" [{nxt.state}]"
        lines.append(safe(head))  # names, states, log lines: the server's text
    lines.append(safe(report.verdict()))
    return lines
