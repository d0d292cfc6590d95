"""A tiny DevTools-protocol client for headless Chromium over --remote-debugging-pipe.

No websocket, no extra package: Chromium reads JSON messages (NUL-terminated) on fd 3 and
writes on fd 4. Used by the report tests to load a page, record every network request the
page makes (Network.requestWillBeSent of that page only; the browser's own background
traffic is not the page's), read the rendered DOM, measure elements and take a screenshot.

Chromium is one found on PATH (Debian's `chromium` package): `make test` installs nothing on
the system; without one the rendering tests skip saying so (and fail under CI=true).
Host names resolve nowhere (--host-resolver-rules), so even a broken page sends nothing out.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-default-apps", "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--remote-debugging-pipe",
]


def find() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ProtocolError(Exception):
    pass


def _high(fd: int) -> int:
    """The same pipe end on a descriptor >= 10, so the moves to fds 3 and 4 cannot collide."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    def __init__(self, binary: str, width: int = 1280, height: int = 1000, timeout: float = 60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="gpucost-chromium-")
        to_child_r, self._w = (_high(fd) for fd in os.pipe())
        self._r, from_child_w = (_high(fd) for fd in os.pipe())
        # bash (dash takes one-digit fds only) moves our pipe ends to fds 3 and 4, where
        # Chromium expects them
        script = f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- ' \
                 f"{from_child_w}>&-"
        self.proc = subprocess.Popen(
            ["bash", "-c", script, binary, *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    # -- wire ----------------------------------------------------------------------------
    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._next

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise ProtocolError("Chromium closed the pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        msg_id = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read_message(deadline)
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise ProtocolError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + self.timeout
        for i, msg in enumerate(self.events):
            if msg.get("method") == method and msg.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            msg = self._read_message(deadline)
            if msg.get("method") == method and msg.get("sessionId") == session:
                return msg
            self.events.append(msg)

    # -- pages ---------------------------------------------------------------------------
    def load(self, path: Path) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        self.call("Network.enable", session=session)
        self.call("Page.enable", session=session)
        self.call("DOM.enable", session=session)
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=session)
        self.wait_event("Page.loadEventFired", session)
        return page

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        finally:
            os.close(self._w)
            os.close(self._r)
            shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session
        self._root: int | None = None

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.browser.call(method, params, self.session)

    def requests(self) -> list[str]:
        """Every URL this page asked for, the page itself included."""
        return [m["params"]["request"]["url"] for m in self.browser.events
                if m.get("sessionId") == self.session
                and m.get("method") == "Network.requestWillBeSent"]

    def root(self) -> int:
        """The document node (fetched once: a new DOM.getDocument invalidates node ids)."""
        if self._root is None:
            self._root = self.call("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        return self._root

    def html(self) -> str:
        return self.call("DOM.getOuterHTML", {"nodeId": self.root()})["outerHTML"]

    def select(self, selector: str, node: int | None = None) -> list[int]:
        node = self.root() if node is None else node
        return self.call("DOM.querySelectorAll",
                         {"nodeId": node, "selector": selector})["nodeIds"]

    def attribute(self, node: int, name: str) -> str | None:
        attrs = self.call("DOM.getAttributes", {"nodeId": node})["attributes"]
        pairs = dict(zip(attrs[::2], attrs[1::2], strict=True))
        return pairs.get(name)

    def box(self, node: int) -> tuple[float, float]:
        """Rendered width and height of an element (raises if it is not rendered)."""
        model = self.call("DOM.getBoxModel", {"nodeId": node})["model"]
        return float(model["width"]), float(model["height"])

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True})["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)
