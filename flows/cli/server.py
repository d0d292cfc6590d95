"""`gpucost server start|stop|status`: one long-lived local Prefect server, reused by refreshes.

Without PREFECT_API_URL, every Prefect run would start a temporary server of its own (a
uvicorn subprocess on the SQLite database under PREFECT_HOME) and stop it at exit: about 3 s
per run on an existing database and 10 s or more on a new one, which is more than the whole
offline refresh. `gpucost server start` starts `prefect server start` once, in the
background, on a free loopback port, with its log in `$PREFECT_HOME/gpucost-server.log`,
and records its address in `$PREFECT_HOME/gpucost-server.json`; a later start finds it
running and returns at once.

`gpucost refresh` (through Prefect) uses, in this order:

1. PREFECT_API_URL when it is set (environment or Prefect profile): a server you operate;
2. the local server recorded under PREFECT_HOME, when it answers its health check; with
   GPUCOST_PREFECT_SERVER=local (as `make refresh` sets it) it is started when none runs;
   recorded but not answering (killed, crashed, a reboot): the same steps without Prefect,
   and one line says so and that `gpucost server start` starts it again;
3. else Prefect's temporary server for this one run (GPUCOST_PREFECT_SERVER=temporary: always);
4. and when no Prefect API can be reached or started, the same steps without Prefect.

A server that dies during a refresh costs one line: the refresh goes on without it, prints
its summary and exits as it would have (flows/refresh.py; `ApiWatch` notices the death within
half a second and makes Prefect give up at once instead of retrying each call for a minute).

`gpucost server stop` stops the recorded server (SIGTERM to its process group, then SIGKILL
after 10 s); `gpucost server status` prints its address, then one line per deployment (its
schedules, its last run with state and time, its next run) and whether the scheduler is
scheduling (flows/schedule_check.py); it exits 0 when the server answers and schedules, 1 when
it does not answer or its scheduler creates no runs (`--url`: the API URL alone, e.g.
`PREFECT_API_URL=$(gpucost server status --url) prefect deployment run refresh/prices`).
Without a local server, a PREFECT_API_URL that answers is checked the same way (without a log).
The server holds about 240 MB of memory while it runs. Its UI is at the recorded address
without the `/api` suffix, and talks to that server's API (`_ui_env`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK
from gpucost.flows.cli.terminal import one_line
from gpucost.flows.prefect_server import (
    ServerStartError,
    healthy,
    prefect_home,
    prepare_prefect_home,
    recorded,
    running,
    start,
    stop,
)


def cmd_server(args: argparse.Namespace) -> int:
    prepare_prefect_home()
    home = prefect_home()
    if args.action == "start":
        t = time.perf_counter()
        try:
            info, started = start()
        except ServerStartError as exc:
            print(f"error: {one_line(exc)}", file=sys.stderr)
            return EXIT_FAILED
        if started:
            print(f"started the Prefect server at {info.url} (pid {info.pid}, "
                  f"{time.perf_counter() - t:.1f} s; log {info.log})")
        elif not args.quiet:
            print(f"the Prefect server runs at {info.url} (pid {info.pid})")
        return EXIT_OK
    if args.action == "stop":
        info = stop()
        print(f"stopped the Prefect server at {info.url} (pid {info.pid})" if info
              else f"no Prefect server recorded under {home}")
        return EXIT_OK
    info = running(home)
    if info and args.url:
        print(info.url)
        return EXIT_OK
    if info:
        print(f"running at {info.url} (pid {info.pid}, since {info.started_at}; "
              f"UI {info.url.removesuffix('/api')}; log {info.log})")
        return _print_schedules(info.url, info.log, info.log_offset)
    external = os.environ.get("PREFECT_API_URL")
    if external and not args.url and healthy(external):
        print(f"no local server; PREFECT_API_URL {external} answers")
        return _print_schedules(external, None, 0)
    stale = recorded(home)
    print(f"not running (recorded at {stale.url}, pid {stale.pid}, not answering)" if stale
          else f"not running (none recorded under {home})")
    return EXIT_FAILED


def _print_schedules(url: str, log: str | None, log_offset: int) -> int:
    """The deployments' schedules, last and next runs, and whether the scheduler schedules
    (flows/schedule_check.py): exit 1 when it does not."""
    from gpucost.flows import schedule_check

    try:
        report = schedule_check.check(url, log, log_offset)
    except (OSError, ValueError) as exc:
        print(f"error: could not read the deployments at {url}: {one_line(exc)}")
        return EXIT_FAILED
    for line in schedule_check.describe(report):
        print(line)
    return EXIT_OK if report.ok else EXIT_FAILED


def add_parser(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "server", help="start, stop or check the long-lived local Prefect server refreshes use",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("action", choices=("start", "stop", "status"))
    s.add_argument("--quiet", "-q", action="store_true",
                   help="start: print nothing when the server already runs")
    s.add_argument("--url", action="store_true",
                   help="status: print only the API URL (for PREFECT_API_URL=...)")
    s.set_defaults(func=cmd_server)
