"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: no port, no
extra package): load a page, collect what a person would see go wrong (uncaught exceptions, console errors,
dialogs, network requests), read the rendered DOM and take a full-page screenshot."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--window-size=1200,900",
]  # fmt: skip
DEADLINE_S = 120.0  # generous: a loaded machine; a condition is waited on, never a fixed time


def chromium() -> str:
    """The Chromium binary; in CI (where .ci/run installs Debian's chromium) its absence fails the test."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get("MQADMIN_REQUIRE_CONFORMANCE") == "1":
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium)")
    pytest.skip("chromium is not installed (apt-get install chromium)")


@dataclass
class PageResult:
    errors: list[str] = field(default_factory=list)  # exceptions, console errors, log errors, dialogs
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    values: dict[str, Any] = field(default_factory=dict)  # the expressions evaluated after load
    screenshot: Path | None = None


class _Pipe:
    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.proc, self.out, self.inp = proc, to_browser, from_browser
        self.buf = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        reply = self.wait(lambda m: m.get("id") == self.next_id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait(self, match: Any) -> dict[str, Any]:
        """The first message ``match`` accepts; events read meanwhile are kept in ``events``."""
        for m in self.events:
            if match(m):
                return m
        deadline = time.monotonic() + DEADLINE_S
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if "method" in m:
                    self.events.append(m)
                if match(m):
                    return m
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise TimeoutError("chromium did not answer over the DevTools pipe")
            ready, _, _ = select.select([self.inp], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self.inp, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the DevTools pipe")
                self.buf += chunk


def render(page: Path, expressions: dict[str, str], screenshot: Path, width: int = 1200) -> PageResult:
    """Open ``page`` (a local file) in a fresh headless Chromium, wait for its load event, evaluate
    ``expressions`` (name -> JavaScript giving a JSON value) and save a full-page PNG to ``screenshot``."""
    binary = chromium()
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    to_r, to_w = os.pipe()  # the browser reads commands on its fd 3
    from_r, from_w = os.pipe()  # and writes replies and events on its fd 4
    # the child's ends, numbered from 10, are moved to 3 and 4 by bash (dash takes one-digit fds only), which then
    # runs the browser (no preexec_fn: unsafe in a process with threads)
    theirs = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_r, from_w)]
    for fd in (to_r, from_w):
        os.close(fd)
    to_r, from_w = theirs
    moves = f"3<&{to_r} 4>&{from_w} {to_r}<&- {from_w}>&-"
    proc = subprocess.Popen(
        ["/bin/bash", "-c", f'exec "$0" "$@" {moves}', binary, *FLAGS, f"--user-data-dir={profile}",
         "--remote-debugging-pipe", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(to_r, from_w),
    )  # fmt: skip
    os.close(to_r)
    os.close(from_w)
    pipe = _Pipe(proc, to_w, from_r)
    result = PageResult()
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        pipe.send("Page.navigate", {"url": page.resolve().as_uri()}, session)
        pipe.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session)
        for name, expression in expressions.items():
            reply = pipe.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
            if "exceptionDetails" in reply:
                raise RuntimeError(f"{name}: {reply['exceptionDetails']}")
            result.values[name] = reply["result"].get("value")
        height = pipe.send(
            "Runtime.evaluate",
            {"expression": "document.documentElement.scrollHeight", "returnByValue": True},
            session,
        )["result"]["value"]
        pipe.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": int(height), "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        shot = pipe.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        result.screenshot = screenshot
        for m in pipe.events:
            method, params = m.get("method"), m.get("params", {})
            if method == "Runtime.exceptionThrown":
                result.errors.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                result.errors.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                result.errors.append(f"log: {params['entry'].get('text')} ({params['entry'].get('url')})")
            elif method == "Page.javascriptDialogOpening":
                result.errors.append(f"dialog: {params.get('message')}")
            elif method == "Network.requestWillBeSent":
                result.requests.append(params["request"]["url"])
        with contextlib.suppress(EOFError, TimeoutError):
            pipe.send("Browser.close")
    finally:
        os.close(to_w)
        os.close(from_r)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=DEADLINE_S)
        shutil.rmtree(profile, ignore_errors=True)
    return result
