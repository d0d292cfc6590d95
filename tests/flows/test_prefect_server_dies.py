"""The long-lived local Prefect server (flows/prefect_server.py) dies: SIGKILL at two points
of a `gpucost refresh` (issue 27, item 4), and its UI talks to its own API (item 10).

One real server for the file (`gpucost server start` on a free loopback port, PREFECT_HOME in
a temporary folder, about 5-10 s), started again only when a test needs it alive and an
earlier one killed it. Each refresh runs the CLI in a subprocess (real stdout and stderr) on
one source, lambda, served from a recorded page by a loopback server. A dying server must
cost one line: the summary still prints, no traceback, and the exit code says what was
published (0 here: lambda refreshed and the warehouse published, checked in the data dir).

1. killed when the fetch of the sources has begun (the loopback route kills it on the first
   source request): the refresh goes on without it, one line says so;
2. gone before the run starts, recorded under PREFECT_HOME: no Prefect at all, the plain path,
   one line says so;
3. gone before the run starts, named by PREFECT_API_URL (as when it dies between the CLI
   choosing it and the flow run starting): the flow fails before its body began, and the
   CLI runs the plain path, one line says so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pytest

LAMBDA_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
               / "lambda_2026_tabs_min.html")
GPUCOST = str(Path(sys.executable).with_name("gpucost"))
MIDRUN_LINE = "stopped answering during the run: the refresh went on without it"
PLAIN_LINE = "running without Prefect"

pytestmark = pytest.mark.flow


@dataclass
class LocalServer:
    """The Prefect server `gpucost server start` runs under `home` (PREFECT_HOME)."""

    home: Path
    env: dict[str, str]
    starts: list[float] = field(default_factory=list)

    def info(self) -> dict:
        return json.loads((self.home / "gpucost-server.json").read_text())

    def alive(self) -> bool:
        done = subprocess.run([GPUCOST, "server", "status", "--url"], env=self.env,
                              capture_output=True, text=True, timeout=60)
        return done.returncode == 0

    def ensure_running(self) -> dict:
        if not (self.home / "gpucost-server.json").exists() or not self.alive():
            t = time.monotonic()
            done = subprocess.run([GPUCOST, "server", "start"], env=self.env,
                                  capture_output=True, text=True, timeout=150)
            assert done.returncode == 0, done.stdout + done.stderr
            self.starts.append(time.monotonic() - t)
        return self.info()

    def recorded(self) -> dict:
        """The recorded server, alive or not (started when none was ever recorded)."""
        if not (self.home / "gpucost-server.json").exists():
            return self.ensure_running()
        return self.info()

    def kill(self) -> None:
        """SIGKILL the server's process group (nothing of it is left to answer)."""
        pid = self.info()["pid"]
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            if Path(f"/proc/{pid}/stat").exists() and \
                    Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z"):
                return  # a zombie: dead, waiting to be reaped by init
            time.sleep(0.05)


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("prefect-dies")
    home = root / "prefect"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PREFECT_API_URL", "GPUCOST_PREFECT_SERVER")}
    env.update(PREFECT_HOME=str(home), DO_NOT_TRACK="1",
               PREFECT_SERVER_ANALYTICS_ENABLED="false",
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    server = LocalServer(home, env)
    try:
        yield server
    finally:
        subprocess.run([GPUCOST, "server", "stop"], env=env, capture_output=True, timeout=60)


def _refresh(server_env: dict[str, str], data: Path, source_base: str,
             **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**server_env, "GPUCOST_DATA_DIR": str(data),
           "GPUCOST_SOURCE_URL_LAMBDA": f"{source_base}/lambda/pricing", **extra}
    return subprocess.run([GPUCOST, "refresh", "--source", "lambda"], env=env,
                          capture_output=True, text=True, timeout=180)


def _lambda_rows(data: Path) -> int:
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    try:
        return int(con.execute(
            "select count(*) from gpu_offers where source = 'lambda'").fetchone()[0])
    finally:
        con.close()


def _check_output(done: subprocess.CompletedProcess[str], line: str, data: Path) -> str:
    """One line about the server (on stderr, containing `line`), the summary on stdout, no
    traceback, exit 0 and a warehouse with lambda's rows: returns the server line."""
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    err_lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(err_lines) == 1 and line in err_lines[0], done.stderr
    out = done.stdout.splitlines()
    assert out and out[0].startswith("run "), done.stdout  # the summary's first line
    assert any(ln.startswith("published ") for ln in out), done.stdout
    assert out[-1] == "1 of 1 live source refreshed", done.stdout  # the verdict
    # the exit code says what was published: 0, and the warehouse is there with lambda's rows
    assert done.returncode == 0, text
    assert (data / "published.json").exists()
    assert _lambda_rows(data) > 0
    return err_lines[0]


def test_the_ui_names_its_own_api(prefect_server):
    """Item 10: the UI's /ui-settings names the server's own API URL, not prefect's default
    http://127.0.0.1:4200/api (the UI would show "Can't connect")."""
    info = prefect_server.ensure_running()
    base = info["url"].removesuffix("/api")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{base}/ui-settings", timeout=10) as resp:
        settings = json.loads(resp.read())
    assert settings["api_url"] == info["url"]
    assert info["url"] != "http://127.0.0.1:4200/api"


def test_killed_when_the_fetch_began(prefect_server, server, tmp_path):
    """Item 4, mid-run: SIGKILL when the first source request arrives."""
    info = prefect_server.ensure_running()
    body = LAMBDA_PAGE.read_bytes()
    killed: list[float] = []

    def route(path: str):  # type: ignore[no-untyped-def]
        if not killed:  # the fetch has begun: the server dies now
            prefect_server.kill()
            killed.append(time.monotonic())
        if path.startswith("/lambda"):
            return 200, {"Content-Type": "text/html; charset=utf-8"}, body
        return 404, {}, b""

    server.route = route
    data = tmp_path / "data"
    t = time.monotonic()
    done = _refresh(prefect_server.env, data, server.base)
    assert killed, "the refresh never fetched lambda"
    line = _check_output(done, MIDRUN_LINE, data)
    assert info["url"] in line
    assert "Prefect flow run " in done.stdout.splitlines()[0]  # it began under Prefect
    # the dead server costs no waiting (Prefect's client retries for ~1 min per call)
    assert time.monotonic() - t < 60


def test_gone_before_the_run_recorded_server(prefect_server, server, tmp_path):
    """Item 4, before the run: the recorded local server does not answer: plain path."""
    prefect_server.recorded()
    prefect_server.kill()
    body = LAMBDA_PAGE.read_bytes()
    server.route = lambda path: ((200, {"Content-Type": "text/html; charset=utf-8"}, body)
                                 if path.startswith("/lambda") else (404, {}, b""))
    data = tmp_path / "data"
    done = _refresh(prefect_server.env, data, server.base)
    line = _check_output(done, PLAIN_LINE, data)
    assert prefect_server.info()["url"] in line and "gpucost server start" in line
    assert "Prefect flow run" not in done.stdout  # it ran without Prefect


def test_gone_before_the_run_named_by_prefect_api_url(prefect_server, server, tmp_path):
    """Item 4, before the run: PREFECT_API_URL names the dead server (as when it dies after
    the CLI chose it): the flow fails before its body began: plain path."""
    url = prefect_server.recorded()["url"]
    prefect_server.kill()
    body = LAMBDA_PAGE.read_bytes()
    server.route = lambda path: ((200, {"Content-Type": "text/html; charset=utf-8"}, body)
                                 if path.startswith("/lambda") else (404, {}, b""))
    data = tmp_path / "data"
    done = _refresh(prefect_server.env, data, server.base, PREFECT_API_URL=url)
    line = _check_output(done, PLAIN_LINE, data)
    assert url in line and "Prefect API" in line
    assert "Prefect flow run" not in done.stdout
