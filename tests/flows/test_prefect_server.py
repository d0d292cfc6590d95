"""`gpucost server start|stop|status` bookkeeping (flows/cli/server.py,
flows/prefect_server.py), without starting a Prefect server: a stale record is never trusted,
and a pid that is not our server is never signalled."""

from __future__ import annotations

import json
import os

import pytest

from gpucost.flows import prefect_api, prefect_server
from gpucost.flows.cli import main as cli


@pytest.fixture
def home(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    return tmp_path


def _record(home, pid: int, port: int) -> None:  # type: ignore[no-untyped-def]
    (home / prefect_server.STATE_FILE).write_text(json.dumps({
        "pid": pid, "port": port, "url": f"http://127.0.0.1:{port}/api",
        "started_at": "2026-01-01T00:00:00+00:00", "log": str(home / "log")}))


def test_nothing_recorded(home, capsys):
    assert prefect_server.running() is None
    assert cli.main(["server", "status"]) == 1
    assert "not running (none recorded" in capsys.readouterr().out
    assert cli.main(["server", "stop"]) == 0
    assert "no Prefect server recorded" in capsys.readouterr().out


def test_a_stale_record_is_not_used_and_its_pid_not_signalled(home, capsys, monkeypatch):
    # our own pid: alive, but not `prefect server start ... --port 9`
    _record(home, os.getpid(), 9)
    signalled = []
    monkeypatch.setattr(prefect_server, "_terminate", signalled.append)
    assert prefect_server.running() is None
    assert cli.main(["server", "status"]) == 1
    assert "not answering" in capsys.readouterr().out
    assert cli.main(["server", "stop"]) == 0
    assert signalled == []
    assert prefect_server.recorded() is None  # the stale record is gone


def test_a_recorded_server_that_answers_is_used(home, server, capsys, monkeypatch):
    server.route = lambda path: (200, {}, b"true") if path == "/api/health" else (404, {}, b"")
    port = int(server.base.rsplit(":", 1)[1])
    _record(home, os.getpid(), port)
    info = prefect_server.running()
    assert info is not None and info.url == f"{server.base}/api"
    assert cli.main(["server", "status", "--url"]) == 0
    assert capsys.readouterr().out.strip() == f"{server.base}/api"
    monkeypatch.setattr(prefect_server.subprocess, "Popen",
                        lambda *a, **k: pytest.fail("started another server"))
    assert prefect_server.start() == (info, False)


def test_a_temporary_mode_never_uses_the_local_server(home, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setattr(prefect_server, "configured_api_url", lambda: None)
    monkeypatch.setattr(prefect_server, "running", lambda home=None: pytest.fail("looked"))
    with prefect_api.api_for_refresh("temporary") as url:
        assert url is None


def test_the_refresh_process_exits_with_its_output_flushed(tmp_path):
    """`gpucost refresh` ends its process without interpreter teardown (flows/cli._exit_now):
    its piped output still arrives whole, and its exit code is the refresh's."""
    import subprocess
    import sys
    from pathlib import Path

    from gpucost.catalog import sources

    env = {**os.environ, "GPUCOST_DATA_DIR": str(tmp_path / "data")}
    for name in [*sources.names(), "crosscheck_cloudgpus"]:
        env[f"GPUCOST_SOURCE_URL_{name.upper()}"] = f"http://{name}.gpucost-offline.invalid/x"
    gpucost = Path(sys.executable).with_name("gpucost")
    done = subprocess.run([str(gpucost), "refresh", "--no-prefect", "--strict"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr  # published; every source failed (--strict)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("run ") and "unreachable (offline?)" in lines[-1]


def test_a_recorded_server_that_does_not_answer_means_no_prefect(home, monkeypatch):
    """Recorded, not answering (killed, crashed): the refresh runs without Prefect (the CLI's
    plain path, one line), not on a temporary server."""
    monkeypatch.setattr(prefect_server, "configured_api_url", lambda: None)
    _record(home, os.getpid(), 9)
    with prefect_api.api_for_refresh("") as url:
        assert url is None
        reason = prefect_api.unavailable()
        assert reason and "Prefect API" in reason and "http://127.0.0.1:9/api" in reason
        assert "gpucost server start" in reason
    assert prefect_api.unavailable() is None
    with prefect_api.api_for_refresh("temporary"):
        assert prefect_api.unavailable() is None


def test_the_ui_is_started_on_its_own_api():
    env = prefect_server._ui_env("http://127.0.0.1:5000/api", 5000, {})
    assert env == {"PREFECT_SERVER_API_HOST": "127.0.0.1", "PREFECT_SERVER_API_PORT": "5000",
                   "PREFECT_SERVER_UI_API_URL": "http://127.0.0.1:5000/api"}
    # a UI API URL set by hand (a reverse proxy in front) is kept
    assert "PREFECT_SERVER_UI_API_URL" not in prefect_server._ui_env(
        "http://127.0.0.1:5000/api", 5000, {"PREFECT_UI_API_URL": "https://proxy/api"})
