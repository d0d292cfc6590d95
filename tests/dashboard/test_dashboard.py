"""`gpucost dashboard` end to end: served on loopback, rendered in headless Chromium, and a
publish while the page is open.

The warehouse holds one recorded file, the SkyPilot-format Lambda catalog of 2026-04-02
(../shared/data/prices/skypilot_format, read in place). Worked out by hand from the file:
`gpu_8x_h100_sxm5` (8 x H100 SXM5) is listed at 27.52 USD per hour in each of its 17 regions,
so 27.52 / 8 = 3.44 USD per GPU-hour, observed 2026-04-02 (the date in the file name). The
dashboard's Rent now tab, asked for H100 SXM5 with 8 GPUs per instance through the URL
(?accelerator=nvidia-h100-sxm5-80gb&gpus=8), must lead with that price, its instance price
and its date.

Then, with the page open, the catalog of 2026-05-07 is ingested (a publish: build, checks,
os.replace of gpucost.duckdb): it lists the same machine at 31.92, 31.92 / 8 = 3.99 USD per
GPU-hour. The ingest must succeed (the dashboard holds no lock on the published file) and
the open page, without a reload, must show 3.99 within its polling interval.

Every request the page makes must stay on the dashboard's own loopback address (no
telemetry, no CDN). Set GPUCOST_DASHBOARD_SCREENSHOTS=<dir> to keep screenshots.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import chromium
import pytest

from gpucost.flows.ingest import ingest_files
from gpucost.warehouse.publish import serving_path

LAMBDA = "prices/skypilot_format/lambda_vms_{}.csv"
QUERY = "?accelerator=nvidia-h100-sxm5-80gb&gpus=8"
TIMEOUT_S = 120  # a shared 2-core machine: a cold first render can take seconds


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gpucost() -> str:
    beside = Path(sys.executable).parent / "gpucost"
    return str(beside) if beside.exists() else (shutil.which("gpucost") or "gpucost")


def _wait_healthy(proc: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"gpucost dashboard exited ({proc.returncode}): {log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                        timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.3)
    pytest.fail(f"gpucost dashboard did not answer in {TIMEOUT_S} s: {log.read_text()}")


class Tab:
    """A Chromium page on an http URL (tests/support/chromium.py drives the browser)."""

    def __init__(self, browser: chromium.Browser):
        self.browser = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        self.page = chromium.Page(browser, session)
        for domain in ("Network", "Page", "Runtime"):
            self.page.call(f"{domain}.enable")

    def open(self, url: str) -> None:
        self.page.call("Page.navigate", {"url": url})

    def text(self) -> str:
        found = self.page.call("Runtime.evaluate", {
            "expression": "document.body ? document.body.innerText : ''",
            "returnByValue": True})
        return found["result"].get("value", "")

    def wait_for(self, *needles: str, absent: tuple[str, ...] = (),
                 timeout: float = TIMEOUT_S) -> str:
        """The page's text once it shows every needle and none of `absent`: Streamlit draws a
        rerun element by element, so one line being there does not mean the next one is."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.text()
            if all(n in text for n in needles) and not any(a in text for a in absent):
                return text
            time.sleep(0.3)
        missing = [n for n in needles if n not in text]
        present = [a for a in absent if a in text]
        pytest.fail(f"the page never showed {missing!r} without {present!r}; "
                    f"it shows:\n{text[:3000]}")


@pytest.fixture
def served(shared_data: Path, streamlit_installed: None, tmp_path: Path):
    """A warehouse of the Lambda catalog of 2026-04-02 and `gpucost dashboard` serving it on
    a free loopback port: (data dir, port)."""
    data = tmp_path / "wh"
    ingest_files("skypilot", [shared_data / LAMBDA.format("2026-04-02")], data_dir=data)
    port = _free_port()
    log = tmp_path / "dashboard.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [_gpucost(), "dashboard", "--port", str(port)], stdout=out,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(os.environ, GPUCOST_DATA_DIR=str(data), NO_PROXY="127.0.0.1",
                     no_proxy="127.0.0.1"))
    try:
        _wait_healthy(proc, port, log)
        yield data, port
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    first = log.read_text(errors="replace").splitlines()[0]
    assert first.startswith(f"gpucost dashboard on http://127.0.0.1:{port}/ reading ")
    assert "read-only" in first


@pytest.fixture
def browser(chromium_binary: str, monkeypatch: pytest.MonkeyPatch):
    # the driver resolves every host name nowhere; the dashboard is on 127.0.0.1 (no name)
    flags = [f if not f.startswith("--host-resolver-rules") else
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" for f in chromium.FLAGS]
    monkeypatch.setattr(chromium, "FLAGS", flags)
    b = chromium.Browser(chromium_binary, width=1400, height=1600, timeout=TIMEOUT_S)
    yield b
    b.close()


def _screenshot(tab: Tab, name: str) -> None:
    folder = os.environ.get("GPUCOST_DASHBOARD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(Path(folder) / name)


def test_rent_now_shows_the_recorded_price_and_a_publish_while_open(
        served, browser, shared_data: Path) -> None:
    data, port = served
    base = f"http://127.0.0.1:{port}/"
    tab = Tab(browser)
    started = time.monotonic()
    tab.open(base + QUERY)
    text = tab.wait_for("Cheapest: 3.44 USD per GPU-hour",
                        "Price basis: each offer's own price per GPU-hour")
    first_render_s = time.monotonic() - started
    # 27.52 / 8 = 3.44 (the file's price of gpu_8x_h100_sxm5), with its instance price,
    # date, age and basis
    assert ("Cheapest: 3.44 USD per GPU-hour at lambda, gpu_8x_h100_sxm5 (8 GPUs, 27.52 USD "
            "per instance-hour), on demand; observed 2026-04-02 00:00 UTC (age ") in text
    assert "price basis: the offer's own listed price (first_hand, source skypilot" in text
    assert "Price basis: each offer's own price per GPU-hour" in text
    assert f"published {time.strftime('%Y')}" in text  # the header names the publish
    _screenshot(tab, "dashboard-before.png")
    print(f"first render of Rent now: {first_render_s:.1f} s")

    # a publish while the page is open: the next Lambda catalog, 31.92 / 8 = 3.99
    before = serving_path(data).stat().st_ino
    [loaded], published = ingest_files("skypilot", [shared_data / LAMBDA.format("2026-05-07")],
                                       data_dir=data)
    assert loaded.status == "replayed" and loaded.error is None and loaded.rows_loaded > 0
    assert published is not None
    assert serving_path(data).stat().st_ino != before  # a new file was swapped in
    text = tab.wait_for("Cheapest: 3.99 USD per GPU-hour", absent=("3.44 USD",),
                        timeout=60)  # no reload
    assert ("Cheapest: 3.99 USD per GPU-hour at lambda, gpu_8x_h100_sxm5 (8 GPUs, 31.92 USD "
            "per instance-hour), on demand; observed 2026-05-07 00:00 UTC (age ") in text
    assert "3.44 USD" not in text
    _screenshot(tab, "dashboard-after.png")

    # every request of the page stayed on the dashboard itself: no telemetry, no CDN
    own = (f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/")
    requests = tab.page.requests()
    assert base + QUERY in requests  # the recording sees the page's requests
    assert any(u.startswith(base + "static/") for u in requests)  # and its scripts
    elsewhere = [u for u in requests
                 if not u.startswith(own) and not u.startswith(("data:", "blob:"))]
    assert elsewhere == []
