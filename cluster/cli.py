"""`gpucost cluster up|down|status`: the cluster's servers on this machine (cluster/servers.py),
for tests and local trials.

  up      start SeaweedFS (master, two volume servers, filer, S3 gateway), PostgreSQL, a
          Prefect server, the work pools and their workers, on free loopback ports, with their
          data in --dir (default: GPUCOST_CLUSTER_DIR, else <data dir>/cluster); writes
          <dir>/cluster.json and prints the endpoints (never a secret). Already running: says
          so and starts nothing. Exit 0 when everything answers, 1 when a server did not start
          (the message names it and quotes its log, <dir>/logs/<name>.log).
  down    stop them (workers first, PostgreSQL last); the data stays for the next `up`.
  status  one line per server: its pid alive and its port answering; exit 1 if any is down.
  refresh every source (or --source ...) fetched in --batches runs of the fetch deployment on
          the fetcher pool, then one run of the publish deployment (cluster/flows.py); the
          deployments are registered (again) first. Exit 0 when the publish completed, 1 when
          it did not; 3 when it did but a fetch run failed (or, with --strict, a source).
          One refresh at a time per cluster: another one running is refused by name (exit 1),
          or waited for with --wait SECONDS. A publish run no publisher worker starts within
          GPUCOST_CLUSTER_PUBLISH_START_S (default 120 s) is cancelled: it never publishes
          later, and the refresh says so (exit 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_SOURCE_FAILED
from gpucost.flows.cli.terminal import one_line, safe


def _dir(args: argparse.Namespace) -> Path:
    from gpucost.cluster.settings import cluster_dir

    return Path(args.dir).resolve() if args.dir else cluster_dir()


def _say(text: str) -> None:
    print(safe(text), file=sys.stderr, flush=True)


def cmd_up(args: argparse.Namespace) -> int:
    from gpucost.catalog.secrets import redact
    from gpucost.cluster import servers

    dir = _dir(args)
    started = time.monotonic()
    # without --fetch-workers: as many as the recorded cluster has (else 2)
    recorded = sum(1 for s in servers.read_servers(dir) if s.name.startswith("fetcher-"))
    args.fetch_workers = args.fetch_workers or recorded or 2
    settings = servers.running(dir, fetch_workers=args.fetch_workers)
    if settings is not None:
        headline = f"cluster already running in {safe(str(dir))}"
    else:
        try:
            settings = servers.up(dir, fetch_workers=args.fetch_workers, say=_say)
        except servers.ClusterStartError as exc:
            print(f"error: {one_line(redact(str(exc)))}", file=sys.stderr)
            return EXIT_FAILED
        headline = f"cluster up in {safe(str(dir))} ({time.monotonic() - started:.1f} s)"
    recorded = servers.read_servers(dir)
    fetchers = sum(1 for s in recorded if s.name.startswith("fetcher-"))
    pg_port = next((s.port for s in recorded if s.name == "postgres"), 0)
    print(headline)
    print(f"  s3        {settings.s3_endpoint}  buckets {settings.raw_bucket}, "
          f"{settings.published_bucket}; writer key {settings.writer_key}, reader key "
          f"{settings.reader_key} (their secrets are in cluster.json)")
    print(f"  postgres  {servers.HOST}:{pg_port}  role {servers.PG_ROLE}, databases "
          f"{', '.join(servers.PG_DATABASES)} (password in cluster.json)")
    print(f"  prefect   {settings.prefect_api_url}")
    print(f"  pools     {servers.FETCH_POOL} ({fetchers} workers), {servers.PUBLISH_POOL} "
          "(1 worker, concurrency limit 1)")
    print(f"  settings  GPUCOST_CLUSTER_CONFIG={safe(str(dir / 'cluster.json'))}")
    return EXIT_OK


def cmd_down(args: argparse.Namespace) -> int:
    from gpucost.cluster import servers

    dir = _dir(args)
    stopped = servers.down(dir, say=_say)
    print(f"stopped {len(stopped)} servers in {safe(str(dir))}" + (
        f": {', '.join(stopped)}" if stopped else " (none was running)")
          + "; the data stays")
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    from gpucost.cluster import servers

    dir = _dir(args)
    rows = servers.status(dir)
    if not rows:
        print(f"no cluster recorded in {safe(str(dir))}: `gpucost cluster up` starts one")
        return EXIT_FAILED
    width = max(len(r.name) for r in rows)
    for r in rows:
        print(safe(f"{r.name:<{width}}  {'up' if r.up else 'DOWN':<4}  pid {r.pid:<7} "
                   f"port {r.port:<5}  {one_line(r.detail)}"))
    down = [r.name for r in rows if not r.up]
    if down:
        print(f"{len(down)} of {len(rows)} servers down: {', '.join(down)}")
    return EXIT_FAILED if down else EXIT_OK


def cmd_refresh(args: argparse.Namespace) -> int:
    from gpucost.catalog import sources
    from gpucost.cluster import flows
    from gpucost.cluster.settings import config_path, load_settings

    for name in args.source or []:
        sources.get(name)  # unknown: exit 2 (main)
    try:
        settings = load_settings(Path(args.dir) / "cluster.json" if args.dir
                                 else config_path()).require(
            "prefect_api_url", "s3_endpoint", "writer_key", "writer_secret", "postgres_url")
        run = flows.run_cluster_refresh(args.source, batches=args.batches, settings=settings,
                                        wait_s=args.wait, say=_say, deploy_first=True)
    except Exception as exc:  # not configured, Prefect server gone...: one named line
        from gpucost.catalog.secrets import redact

        print(f"error: {type(exc).__name__}: {one_line(redact(str(exc)))}", file=sys.stderr)
        return EXIT_FAILED
    for r in run.fetch_runs:
        print(safe(f"fetch run {r['id']}  {r['state']:<9}  {', '.join(r['sources'])}"))
    width = max((len(s) for s in run.sources), default=0)
    for name, (status, rows, error) in sorted(run.sources.items()):
        detail = (f"{rows} rows" if status == "ok" else "same payload as before"
                  if status == "unchanged" else one_line(error or "its fetch run failed"))
        print(safe(f"  {name:<{width}}  {status:<9}  {detail}"))
    print(safe(f"publish run {run.publish_run.get('id')}  {run.publish_run.get('state')}  "
               f"({run.seconds:.1f} s in all)"))
    print(safe(run.verdict()))
    if not run.ok:
        # its state's message: why it was cancelled, or the publisher's named error (a
        # shrink refused, the store unavailable...)
        detail = run.publish_run.get("detail")
        if detail and run.publish_run.get("state") == "CANCELLED":
            print(safe(f"NOT published: {one_line(detail)}"))
        else:
            print(safe("NOT published: the publish run did not complete"
                       + (f" ({one_line(detail)[:400]})" if detail else "")
                       + f"; its logs are on the Prefect server, {settings.prefect_api_url}"))
        return EXIT_FAILED
    failed = any(r["state"] != "COMPLETED" for r in run.fetch_runs) or (
        args.strict and any(v[0] == "failed" for v in run.sources.values()))
    return EXIT_SOURCE_FAILED if failed else EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """`gpucost cluster up|down|status [--dir DIR]`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dir", default=None,
                        help="the cluster's folder (default: GPUCOST_CLUSTER_DIR, else "
                             "<data dir>/cluster)")
    c = sub.add_parser("cluster", help="start, stop or check local cluster servers (tests, "
                                       "trials)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = c.add_subparsers(dest="cluster_action", required=True, metavar="ACTION")
    u = actions.add_parser("up", parents=[common], help="start the servers (or find them up)")
    u.add_argument("--fetch-workers", type=int, default=None, choices=range(1, 17),
                   metavar="N", help="how many fetcher workers (default: as many as the "
                                     "cluster in --dir had, else 2)")
    u.set_defaults(func=cmd_up)
    d = actions.add_parser("down", parents=[common], help="stop the servers, keep the data")
    d.set_defaults(func=cmd_down)
    s = actions.add_parser("status", parents=[common], help="one line per server")
    s.set_defaults(func=cmd_status)
    r = actions.add_parser("refresh", parents=[common],
                           help="fetch in batches on the fetcher pool, then publish once")
    r.add_argument("--source", action="append", help="only this source (repeatable)")
    r.add_argument("--batches", type=int, default=3, choices=range(1, 65), metavar="N",
                   help="fetch runs to split the sources into (default 3)")
    r.add_argument("--strict", action="store_true", help="exit 3 when any source failed")
    r.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="another cluster refresh running: wait this long for it to end "
                        "(default 0: refuse at once)")
    r.set_defaults(func=cmd_refresh)
