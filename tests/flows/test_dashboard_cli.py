"""`gpucost dashboard` before Streamlit starts (flows/cli/dashboard.py): what it refuses, in one
line each, and the server command it runs. Plain-function tests, no Streamlit needed (the
served and rendered dashboard: tests/dashboard, `make dashboard-test`)."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

import pytest

from gpucost.flows.cli import dashboard
from gpucost.flows.cli import main as cli


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(["dashboard", *argv])
    except SystemExit as exc:  # argparse: usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_without_the_extra_it_fails_in_one_line_naming_the_setup(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "streamlit" else real(name, *a))
    code, out, err = _run(capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("error: the dashboard needs Streamlit, an optional extra")
    assert "`make dashboard-setup`" in err


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_a_bad_port_is_a_usage_error(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "--port", port)
    assert code == 2
    assert err.count("\n") == 1 and "--port" in err and "1-65535" in err


def test_no_published_warehouse(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(dashboard, "streamlit_missing", lambda: "")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    code, _, err = _run(capsys)
    assert code == 1
    assert err == (f"error: no published warehouse at {tmp_path / 'gpucost.duckdb'}: run "
                   "`gpucost refresh` first\n")


def test_a_port_in_use_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(dashboard, "streamlit_missing", lambda: "")
    monkeypatch.setattr(dashboard.os, "execve", lambda *a: pytest.fail("Streamlit started"))
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    (tmp_path / "gpucost.duckdb").write_bytes(b"")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = _run(capsys, "--port", str(port))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"error: cannot listen on 127.0.0.1:{port} (")
    assert "choose another port with --port" in err


def test_the_server_command_is_headless_on_loopback_without_telemetry(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """What `gpucost dashboard` hands over to (execve): Streamlit on 127.0.0.1:8501 by
    default, headless, usage statistics off, no file watcher, the data dir passed on."""
    started: list = []
    monkeypatch.setattr(dashboard, "streamlit_missing", lambda: "")
    monkeypatch.setattr(dashboard, "check_port", lambda host, port: None)
    monkeypatch.setattr(dashboard.os, "execve", lambda *a: started.append(a))
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    (tmp_path / "gpucost.duckdb").write_bytes(b"")
    _, out, err = _run(capsys)
    [(_, argv, env)] = started
    options = dict(zip(argv[5::2], argv[6::2], strict=True))
    assert argv[1:5] == ["-m", "streamlit", "run", str(dashboard.APP)]
    assert dashboard.APP.is_file()
    assert options["--server.address"] == "127.0.0.1" and options["--server.port"] == "8501"
    assert options["--server.headless"] == "true"
    assert options["--browser.gatherUsageStats"] == "false"
    assert options["--server.fileWatcherType"] == "none"
    assert env["GPUCOST_DATA_DIR"] == str(tmp_path)
    assert out == (f"gpucost dashboard on http://127.0.0.1:8501/ reading "
                   f"{tmp_path / 'gpucost.duckdb'} read-only (Ctrl-C stops it)\n")
    assert err == ""  # loopback: no warning


def test_another_host_states_the_risk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(dashboard, "streamlit_missing", lambda: "")
    monkeypatch.setattr(dashboard, "check_port", lambda host, port: None)
    monkeypatch.setattr(dashboard.os, "execve", lambda *a: None)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    (tmp_path / "gpucost.duckdb").write_bytes(b"")
    _, out, err = _run(capsys, "--host", "0.0.0.0")
    assert out.startswith("gpucost dashboard on http://0.0.0.0:8501/")
    assert err.startswith("warning: --host 0.0.0.0: the dashboard is served to every machine")
    assert "no login and no TLS" in err
    assert dashboard.is_loopback("127.0.0.1") and dashboard.is_loopback("::1")
    assert dashboard.is_loopback("localhost") and not dashboard.is_loopback("0.0.0.0")
