"""`gpucost serve`: the refresh flow as Prefect deployments with cron schedules.

Three deployments of the one `refresh` flow, served from this process with `prefect.serve`:

- `refresh/prices`: price sources (kind "prices"), every 6 hours by default;
- `refresh/specs`: spec sources (kind "specs"), daily by default;
- `refresh/throughput`: measured results (kind "throughput": MLPerf Inference, published in
  rounds twice a year), weekly by default.

Each run fetches only its kind of sources, then rebuilds, checks, publishes and exports
everything (the marts join prices with specs). Schedules need a long-lived Prefect server:
PREFECT_API_URL when set, else the local one `gpucost server start` runs under PREFECT_HOME
(flows/prefect_server.py); `--dry-run` prints the deployments and their schedules without
contacting anything. While it serves, a watch thread checks that the server's scheduler creates
the deployments' runs (flows/schedule_check.py); when it does not (no run 90 s after a
deployment was registered, sooner when the server log shows scheduler errors;
GPUCOST_SCHEDULER_GRACE_S changes the 90 s), serve says so in one line and exits 1.
When serve stops (Ctrl-C, SIGTERM), Prefect pauses its deployments and deletes their
scheduled runs; the next `gpucost serve` resumes them. prefect.yaml declares the same deployments
for work pools (`prefect deploy --all`, then `prefect worker start --pool gpucost`).

Crons: `--prices-cron` / `--specs-cron` / `--throughput-cron` / `--timezone`, else the
environment variables GPUCOST_PRICES_CRON, GPUCOST_SPECS_CRON, GPUCOST_THROUGHPUT_CRON,
GPUCOST_SCHEDULE_TIMEZONE, else the defaults below. A cron has 5 fields (minute hour
day-of-month month day-of-week); one of 6 or 7 fields (seconds, years: a 6-field cron would
refresh every second) and one that never fires within 5 years ("0 0 31 2 *") are usage errors
(exit 2), as is an invalid time zone (flows/cli/options.py check_cron).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from gpucost.flows.cli.options import positive
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE

DEFAULT_PRICES_CRON = "0 */6 * * *"  # 00:00, 06:00, 12:00, 18:00
DEFAULT_SPECS_CRON = "30 3 * * *"  # daily at 03:30, between two price runs
DEFAULT_THROUGHPUT_CRON = "45 4 * * 1"  # Mondays at 04:45: results rounds are twice a year
DEFAULT_TIMEZONE = "UTC"


@dataclass(frozen=True)
class Schedule:
    name: str  # deployment name
    kind: str  # source kind the deployment fetches
    cron: str
    timezone: str
    description: str


def schedules(prices_cron: str | None = None, specs_cron: str | None = None,
              timezone: str | None = None,
              throughput_cron: str | None = None) -> list[Schedule]:
    """The deployments' schedules: arguments, else environment, else defaults."""
    tz = timezone or os.environ.get("GPUCOST_SCHEDULE_TIMEZONE") or DEFAULT_TIMEZONE
    return [
        Schedule("prices", "prices",
                 prices_cron or os.environ.get("GPUCOST_PRICES_CRON") or DEFAULT_PRICES_CRON,
                 tz, "fetch the price sources, rebuild, check, publish and export"),
        Schedule("specs", "specs",
                 specs_cron or os.environ.get("GPUCOST_SPECS_CRON") or DEFAULT_SPECS_CRON,
                 tz, "fetch the spec sources, rebuild, check, publish and export"),
        Schedule("throughput", "throughput",
                 throughput_cron or os.environ.get("GPUCOST_THROUGHPUT_CRON")
                 or DEFAULT_THROUGHPUT_CRON,
                 tz, "fetch the measured results, rebuild, check, publish and export"),
    ]


def deployments(plan: list[Schedule]) -> list[Any]:
    """RunnerDeployments of the refresh flow, one per schedule (no API call is made)."""
    from prefect.schedules import Cron

    from gpucost.flows.refresh import refresh

    return [
        refresh.to_deployment(
            name=s.name, schedule=Cron(s.cron, timezone=s.timezone), parameters={"kind": s.kind},
            description=s.description, tags=["gpucost", s.kind],
        )
        for s in plan
    ]


def describe(deps: list[Any]) -> str:
    lines = []
    for d in deps:
        for sched in d.schedules:
            cron = sched.schedule
            lines.append(
                f"refresh/{d.name}: cron {cron.cron!r} ({cron.timezone or 'UTC'}), "
                f"parameters {d.parameters}, entrypoint {d.entrypoint}"
                + ("" if sched.active else " [inactive]")
            )
    return "\n".join(lines)


def _one_line(exc: Exception) -> str:
    """Pydantic's multi-line validation text as one line ("Invalid cron string ...")."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    detail = next((ln for ln in lines if ln.startswith("Value error")), lines[-1] if lines else "")
    return detail.removeprefix("Value error, ").split(" [type=")[0]


def _cron_origin(args: argparse.Namespace, kind: str) -> str:
    """Where the cron of `kind` came from: its option, its environment variable, the default."""
    if getattr(args, f"{kind}_cron", None):
        return f"--{kind}-cron"
    variable = f"GPUCOST_{kind.upper()}_CRON"
    return variable if os.environ.get(variable) else "the default"


def cmd_serve(args: argparse.Namespace) -> int:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    plan = schedules(args.prices_cron, args.specs_cron, args.timezone, args.throughput_cron)
    try:
        ZoneInfo(plan[0].timezone)
    except (ZoneInfoNotFoundError, ValueError):
        print(f"error: unknown time zone {plan[0].timezone!r} (an IANA name such as UTC or "
              "Europe/Berlin)", file=sys.stderr)
        return EXIT_USAGE
    from gpucost.flows.cli.options import check_cron
    from gpucost.flows.cli.terminal import one_line

    grace = os.environ.get("GPUCOST_SCHEDULER_GRACE_S")
    if grace is not None and grace.strip():
        try:
            positive(grace)
        except argparse.ArgumentTypeError as exc:
            print(f"error: GPUCOST_SCHEDULER_GRACE_S {one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
    for s in plan:  # 5 fields, and it fires (a 6-field cron would refresh every second)
        try:
            check_cron(s.cron, s.timezone)
        except ValueError as exc:
            print(f"error: {one_line(exc)} ({_cron_origin(args, s.kind)})", file=sys.stderr)
            return EXIT_USAGE
    try:
        deps = deployments(plan)
    except ValueError as exc:  # an invalid cron
        print(f"error: {one_line(_one_line(exc))}", file=sys.stderr)
        return EXIT_USAGE
    print(describe(deps))
    if args.dry_run:
        return EXIT_OK
    from gpucost.flows import prefect_server

    url = prefect_server.configured_api_url()
    log, log_offset = None, 0
    if not url:
        info = prefect_server.running()
        if info is None:
            print("error: schedules need a long-lived Prefect server: run `gpucost server "
                  "start` (a local one under PREFECT_HOME), or `prefect server start` and set "
                  "PREFECT_API_URL=http://127.0.0.1:4200/api (docs/operations.md, Schedules)",
                  file=sys.stderr)
            return EXIT_FAILED
        url, log, log_offset = info.url, info.log, info.log_offset
        # for this process's threads and the flow-run processes serve starts
        prefect_server.use_api_url(url)
    print(f"serving on the Prefect server at {url}")
    import prefect

    watch = SchedulerWatch(url, {f"refresh/{d.name}" for d in deps}, log, log_offset)
    watch.start()
    try:
        prefect.serve(*deps, limit=1)  # one refresh at a time: the warehouse has one writer
    finally:
        watch.stop()
    if watch.failure:  # said when it was seen
        return EXIT_FAILED
    return EXIT_OK


class SchedulerWatch(threading.Thread):
    """Checks, beside `prefect.serve`, that the server's scheduler creates the served
    deployments' runs (flows/schedule_check.py): every CHECK_S seconds until each has its
    runs, then every RECHECK_S. When the scheduler is not scheduling, it says so in one line
    and stops serve (exit 1): a serve whose runs are never created only looks alive."""

    CHECK_S = 5.0
    RECHECK_S = 300.0

    def __init__(self, url: str, served: set[str], log: str | None, log_offset: int,
                 grace_s: float | None = None) -> None:
        super().__init__(name="gpucost-scheduler-watch", daemon=True)
        from gpucost.flows import schedule_check

        self.url, self.served, self.log, self.log_offset = url, served, log, log_offset
        env_grace = os.environ.get("GPUCOST_SCHEDULER_GRACE_S")
        self.grace_s = grace_s or (float(env_grace) if env_grace else schedule_check.GRACE_S)
        self.failure: str | None = None
        self._stop_event = threading.Event()

    def stop(self) -> None:
        self._stop_event.set()

    def check_once(self) -> bool | None:
        """True: every served deployment has its runs; False: not scheduling (self.failure
        is set); None: not known yet (not registered yet, or the API did not answer)."""
        from gpucost.flows import schedule_check

        try:
            deps = [d for d in schedule_check.read_deployments(self.url) if d.name in self.served]
        except (OSError, ValueError):
            return None
        if {d.name for d in deps} != self.served or any(d.paused for d in deps):
            return None  # serve has not registered (or resumed) them yet
        report = schedule_check.assess(
            deps, schedule_check.read_log_errors(self.log, self.log_offset),
            datetime.now(UTC), self.grace_s)
        if not report.ok:
            self.failure = report.verdict()
            return False
        return True if all(d.runs_since > 0 for d in deps if d.scheduled) else None

    def run(self) -> None:
        import _thread

        healthy = False
        while not self._stop_event.wait(self.RECHECK_S if healthy else self.CHECK_S):
            result = self.check_once()
            if result is False:
                print(self.failure, file=sys.stderr, flush=True)
                _thread.interrupt_main()  # prefect.serve pauses the deployments and returns
                return
            healthy = bool(result)


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "serve", help="serve the scheduled refresh deployments (needs a Prefect server: "
                      "`gpucost server start`)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--prices-cron", help=f"cron of the price refresh (default "
                   f"$GPUCOST_PRICES_CRON or {DEFAULT_PRICES_CRON!r})")
    s.add_argument("--specs-cron", help=f"cron of the spec refresh (default "
                   f"$GPUCOST_SPECS_CRON or {DEFAULT_SPECS_CRON!r})")
    s.add_argument("--throughput-cron", help=f"cron of the measured-results refresh (default "
                   f"$GPUCOST_THROUGHPUT_CRON or {DEFAULT_THROUGHPUT_CRON!r})")
    s.add_argument("--timezone", help="time zone of the crons (default "
                   f"$GPUCOST_SCHEDULE_TIMEZONE or {DEFAULT_TIMEZONE})")
    s.add_argument("--dry-run", action="store_true",
                   help="print the deployments and their schedules, start nothing")
    s.set_defaults(func=cmd_serve)
