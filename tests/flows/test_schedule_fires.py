"""Scheduled refreshes really run: a local Prefect server on a free loopback port, `gpucost
serve` with a one-minute cron, and a scheduled run that publishes (about 40-90 s: up to a
minute waiting for the cron, plus the server's start and the run).

This test cannot pass unless the Prefect scheduler creates the run: nothing here triggers a
run by hand. With SQLAlchemy 2.1 in the venv (prefect 3.8.8's scheduler fails on every pass)
`serve` notices within ~20 s, says so in one line and exits 1, and the test fails saying so.
It is not skipped on CI (`make test` runs it; it needs only the venv).

The plain-function side of the check (flows/schedule_check.py) is tested below on recorded
API answers and a recorded server log, without a server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from gpucost.flows import schedule_check

LAMBDA_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
               / "lambda_2026_tabs_min.html")
DEADLINE_S = 180.0  # the acceptance: a new warehouse within 3 minutes


def _gpucost() -> str:
    return str(Path(sys.executable).with_name("gpucost"))


def _lambda_health(db: Path) -> tuple | None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "select last_success_at, rows_in_force from source_health where source = 'lambda'"
        ).fetchone()
    finally:
        con.close()


@pytest.mark.flow
def test_a_one_minute_schedule_fires_and_publishes(tmp_path, server):
    from gpucost.catalog import sources
    from gpucost.flows import steps

    body = LAMBDA_PAGE.read_bytes()
    server.route = lambda path: ((200, {"Content-Type": "text/html; charset=utf-8"}, body)
                                 if path.startswith("/lambda") else (404, {}, b""))
    data, home = tmp_path / "data", tmp_path / "prefect"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PREFECT_API_URL", "GPUCOST_PREFECT_SERVER")}
    env.update(PREFECT_HOME=str(home), GPUCOST_DATA_DIR=str(data), DO_NOT_TRACK="1",
               PREFECT_SERVER_ANALYTICS_ENABLED="false", NO_PROXY="127.0.0.1,localhost",
               no_proxy="127.0.0.1,localhost",
               # serve asks the server for due runs every 2 s instead of 10
               PREFECT_RUNNER_POLL_FREQUENCY="2")
    for name in sources.names():  # no source reaches the internet: all fail by DNS but lambda
        env[f"GPUCOST_SOURCE_URL_{name.upper()}"] = f"http://{name}.gpucost-offline.invalid/x"
    env["GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS"] = "http://cloudgpus.gpucost-offline.invalid/x"
    env["GPUCOST_SOURCE_URL_LAMBDA"] = f"{server.base}/lambda/pricing"

    # a warehouse published before the schedule: curated data only, lambda never refreshed
    steps.build_and_publish(data)
    db = data / "gpucost.duckdb"
    before = db.stat()
    assert _lambda_health(db) in (None, (None, 0), (None, None))

    start = subprocess.run([_gpucost(), "server", "start"], env=env, capture_output=True,
                           text=True, timeout=150)
    assert start.returncode == 0, start.stdout + start.stderr
    serve_log = tmp_path / "serve.log"
    t0 = time.monotonic()
    with open(serve_log, "wb") as log:
        serve = subprocess.Popen([_gpucost(), "serve", "--prices-cron", "* * * * *"], env=env,
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        health = None
        while time.monotonic() - t0 < DEADLINE_S:
            if serve.poll() is not None:
                pytest.fail(f"serve exited {serve.returncode}:\n"
                            + serve_log.read_text(errors="replace")[-3000:])
            st = db.stat()
            if (st.st_ino, st.st_mtime_ns) != (before.st_ino, before.st_mtime_ns):
                health = _lambda_health(db)
                if health and health[0] is not None:
                    break
            time.sleep(2)
        elapsed = time.monotonic() - t0
        assert health and health[0] is not None, (
            f"no scheduled refresh published within {DEADLINE_S:.0f} s:\n"
            + serve_log.read_text(errors="replace")[-3000:])
        assert health[1] > 0  # the run loaded the page the loopback server sent
        status = subprocess.run([_gpucost(), "server", "status"], env=env,
                                capture_output=True, text=True, timeout=60)
    finally:
        serve.send_signal(signal.SIGTERM)  # Prefect pauses the deployments
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
        subprocess.run([_gpucost(), "server", "stop"], env=env, capture_output=True,
                       timeout=60)
    print(f"scheduled refresh published {elapsed:.0f} s after serve started")
    assert status.returncode == 0, status.stdout + status.stderr
    prices = next(ln for ln in status.stdout.splitlines() if ln.startswith("refresh/prices:"))
    # the run that published: scheduled by the server, not triggered by hand
    assert "last scheduled run" in prices and ("Completed" in prices or "Running" in prices), \
        status.stdout
    assert "scheduler: ok" in status.stdout


# --- the check itself, on recorded answers (no server) -----------------------------------

NOW = datetime(2026, 11, 26, 17, 30, 0, tzinfo=UTC)


def _deployment(name: str, since: datetime, cron: str = "* * * * *", paused: bool = False,
                runs: int = 0) -> schedule_check.DeploymentStatus:
    api = {"id": name, "name": name, "paused": paused,
           "created": since.isoformat(), "updated": since.isoformat(),
           "schedules": [{"active": True, "updated": since.isoformat(),
                          "schedule": {"cron": cron, "timezone": "UTC"}}]}
    return schedule_check.deployment_status(api, "refresh", runs, None, None)


# what prefect 3.8.8 logs under SQLAlchemy 2.1.9 (abridged from a server log, 2026-11-26)
SA21_LOG = (
    "17:26:42.396 | ERROR   | docket.dependencies - ↩ [    47ms] "
    "schedule_deployments(){schedule_deployments}\n"
    """\
Traceback (most recent call last):
  File ".../prefect/server/services/scheduler.py", line 273, in schedule_deployments
    inserted_runs = await models.deployments._insert_scheduled_flow_runs(
  File ".../sqlalchemy/ext/hybrid.py", line 1851, in prop
    raise exc.InvalidRequestError(
"""
    "sqlalchemy.exc.InvalidRequestError: Can't evaluate bulk DML statement; please supply a "
    "bulk_dml decorated function\n"
    "17:26:44.101 | INFO    | prefect.server - something else\n"
)


def test_scheduler_errors_are_read_from_the_server_log():
    errors = schedule_check.scheduler_errors(SA21_LOG.splitlines())
    assert errors == ["sqlalchemy.exc.InvalidRequestError: Can't evaluate bulk DML statement; "
                      "please supply a bulk_dml decorated function"]
    assert schedule_check.scheduler_errors(["17:00:00.000 | INFO | all fine"]) == []


def test_log_errors_before_the_server_started_are_not_counted(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(SA21_LOG)
    assert len(schedule_check.read_log_errors(log, 0)) == 1
    assert schedule_check.read_log_errors(log, log.stat().st_size) == []


def test_a_deployment_without_runs_after_the_grace_is_not_scheduled():
    late = _deployment("prices", NOW - timedelta(seconds=120))
    fresh = _deployment("specs", NOW - timedelta(seconds=30), cron="30 3 * * *")
    fine = _deployment("throughput", NOW - timedelta(hours=5), runs=3)
    paused = _deployment("old", NOW - timedelta(days=2), paused=True)
    report = schedule_check.assess([late, fresh, fine, paused], [], NOW, grace_s=90)
    assert [d.name for d in report.failing] == ["refresh/prices"]
    assert not report.ok
    assert report.verdict() == ("error: the Prefect scheduler is not scheduling: refresh/prices "
                                "(an active schedule for 2.0 min and no scheduled run)")


def test_scheduler_errors_fail_a_deployment_without_runs_before_the_grace():
    young = _deployment("prices", NOW - timedelta(seconds=20))
    errors = schedule_check.scheduler_errors(SA21_LOG.splitlines())
    report = schedule_check.assess([young], errors, NOW, grace_s=90)
    assert not report.ok
    assert "bulk DML" in report.verdict() and report.verdict().count("\n") == 0
    # a deployment registered 5 s ago is not judged yet, even with errors in the log
    assert schedule_check.assess([_deployment("p", NOW - timedelta(seconds=5))], errors, NOW).ok


def test_a_healthy_scheduler_and_paused_deployments():
    ok = schedule_check.assess([_deployment("prices", NOW - timedelta(hours=1), runs=100)],
                               [], NOW)
    assert ok.ok and ok.verdict() == "scheduler: ok (1 active schedule(s) have their runs)"
    paused = schedule_check.assess(
        [_deployment("prices", NOW - timedelta(hours=1), paused=True)], [], NOW)
    assert paused.ok and "paused" in paused.verdict()
