"""Headless Chromium for the tests of the 3D pages and the sandbox in the browser.

Debian's ``chromium``; WebGL through SwiftShader (software, no GPU or display
needed). :func:`screenshot` takes one picture of a page; :class:`Browser` drives a
page through the DevTools protocol over a pipe (``--remote-debugging-pipe``: no
port, no extra package), collects its console errors and runs JavaScript in it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time

import pytest

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
]


def chromium() -> str:
    """The browser's path, or skip the test saying why."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed here (.ci/run installs it)")
    return path


def screenshot(url: str, out, profile, size=(900, 650), budget_ms: int = 3000) -> None:
    """A picture of ``url`` after ``budget_ms`` of the page's (virtual) time."""
    subprocess.run(
        [
            chromium(),
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            f"--virtual-time-budget={budget_ms}",
            f"--screenshot={out}",
            url,
        ],
        capture_output=True,
        timeout=600,
        check=False,
    )


def _pipe_fds(commands: int, replies: int) -> None:
    """In the browser's process before it starts: the pipe's ends as fds 3 and 4."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands, replies)]
    os.dup2(high[0], 3)
    os.dup2(high[1], 4)


class Browser:
    """One headless browser with one page, driven over the DevTools protocol."""

    def __init__(self, profile, size=(1100, 750)):
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # the browser reads commands on its fd 3 and writes replies on its fd 4
        self.process = subprocess.Popen(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                f"--window-size={size[0]},{size[1]}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=lambda: _pipe_fds(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._out = os.fdopen(to_browser_w, "wb", buffering=0)
        self._in = os.fdopen(from_browser_r, "rb", buffering=0)
        self._buffer = b""
        self._next_id = 0
        self.errors: list[str] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable", session=True)

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = self._in.read(1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def _note(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(
                details.get("exception", {}).get("description") or details.get("text", "exception")
            )
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(
                " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
            )
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"]["text"])

    def call(self, method: str, session: bool = False, **params) -> dict:
        """Send one command; its result (events met on the way are noted)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        self._out.write(json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self._note(reply)

    def open(self, url: str) -> None:
        self.call("Page.bringToFront", session=True)  # a page behind others is not drawn
        self.call("Page.navigate", session=True, url=url)

    def run(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call(
            "Runtime.evaluate",
            session=True,
            expression=expression,
            awaitPromise=True,
            returnByValue=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(
                result["exceptionDetails"]
                .get("exception", {})
                .get("description", "the script failed")
            )
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 600.0):
        """Wait until a JavaScript expression is truthy (while it fails, the page may
        still be loading); its value."""
        end = time.monotonic() + timeout_s
        failure = None
        while time.monotonic() < end:
            try:
                value = self.run(expression)
            except RuntimeError as exc:
                value, failure = None, exc
            if value:
                return value
            time.sleep(0.2)
        raise TimeoutError(f"waited {timeout_s:g} s for {expression} (last failure: {failure})")

    def click(self, x: float, y: float) -> None:
        """A left click at a point of the page (CSS pixels)."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                session=True,
                type=kind,
                x=x,
                y=y,
                button="left",
                clickCount=1,
            )

    def png(self) -> bytes:
        import base64

        return base64.b64decode(self.call("Page.captureScreenshot", session=True)["data"])

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):  # it may be gone already
            self.call("Browser.close")
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._out.close()
        self._in.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
