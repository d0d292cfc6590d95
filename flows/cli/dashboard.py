"""`gpucost dashboard`: the interactive dashboard (Streamlit) of the published warehouse.

It serves flows/dashboard_app.py with Streamlit on http://127.0.0.1:8501 (loopback only; the
port with --port, the address with --host), headless: no browser is opened, no usage
statistics are sent (browser.gatherUsageStats false), no file is watched. The app reads the
published file (<data dir>/gpucost.duckdb, GPUCOST_DATA_DIR) READ-ONLY, a connection per read
that is closed at once, so it never locks a refresh out; a publish swaps a new file in
(os.replace) and the open page notices within a few seconds (the file's inode, size and
mtime) and shows the new figures. Ctrl-C stops it.

Streamlit is an optional extra (pip install gpucost[dashboard]; `make dashboard-setup`
installs requirements-dashboard.lock into the venv): without it the command fails in one
line saying so. docs/dashboards.md ("gpucost dashboard").
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import socket
import sys
from pathlib import Path

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_USAGE
from gpucost.flows.cli.terminal import one_line, safe

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501  # Streamlit's own default port
APP = Path(__file__).resolve().parents[1] / "dashboard_app.py"
SETUP_HINT = "`make dashboard-setup` installs it (pip install gpucost[dashboard])"


class DashboardError(Exception):
    """The dashboard cannot start as asked (the extra missing, the port taken)."""


def port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def streamlit_missing() -> str:
    """Why the dashboard extra is not usable here ('' when it is)."""
    if importlib.util.find_spec("streamlit") is None:
        return f"the dashboard needs Streamlit, an optional extra not installed here: {SETUP_HINT}"
    return ""


def check_port(host: str, port: int) -> None:
    """DashboardError when `host`:`port` cannot be listened on (in use, no such address)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise DashboardError(f"--host {host}: no such address ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise DashboardError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc}): another program "
                "(another dashboard?) holds it; choose another port with --port") from None


def streamlit_command(host: str, port: int) -> list[str]:
    """The Streamlit server command: headless, no telemetry, no file watching, errors shown
    by type only (a traceback goes to the terminal, not to the page)."""
    return [sys.executable, "-m", "streamlit", "run", str(APP),
            "--server.address", host, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--server.runOnSave", "false",
            "--global.developmentMode", "false", "--client.toolbarMode", "minimal",
            "--client.showErrorDetails", "type", "--browser.serverAddress", host,
            "--browser.serverPort", str(port)]


def cmd_dashboard(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import serving_path

    missing = streamlit_missing()
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return EXIT_FAILED
    if not args.host.strip():
        print("error: --host: give an address, e.g. 127.0.0.1", file=sys.stderr)
        return EXIT_USAGE
    data = data_dir()
    published = serving_path(data)
    if not published.exists():
        print(f"error: no published warehouse at {safe(published)}: run `gpucost refresh` "
              "first", file=sys.stderr)
        return EXIT_FAILED
    try:
        check_port(args.host, args.port)
    except DashboardError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    if not is_loopback(args.host):
        print(f"warning: --host {safe(args.host)}: the dashboard is served to every machine "
              "that reaches this address, with no login and no TLS: anyone there reads every "
              "table of the warehouse (it can change nothing: the file is opened read-only)",
              file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"gpucost dashboard on http://{safe(shown)}:{args.port}/ reading {safe(published)} "
          "read-only (Ctrl-C stops it)", flush=True)
    env = dict(os.environ, GPUCOST_DATA_DIR=str(data),
               STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", STREAMLIT_SERVER_HEADLESS="true")
    command = streamlit_command(args.host, args.port)
    sys.stderr.flush()
    os.execve(command[0], command, env)  # Streamlit's server becomes this process
    return EXIT_FAILED  # pragma: no cover (execve does not return)


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("dashboard", help="serve the interactive dashboard (Streamlit, optional "
                       "extra: make dashboard-setup)", description=__doc__)
    d.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                   help=f"TCP port to serve on (default {DEFAULT_PORT})")
    d.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}, this machine only); "
                   "another address (0.0.0.0: every interface) serves the warehouse's tables to "
                   "anyone who reaches it, without login or TLS")
    d.set_defaults(func=cmd_dashboard)
