"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ended by a NUL byte on file descriptors 3 and 4), with the standard
library only: open a page, run JavaScript in it, and collect what it logged as an error.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _binary(executable: str) -> str:
    """Chromium itself rather than Debian's wrapper script, which ``exec``s it anyway."""
    real = Path("/usr/lib/chromium/chromium")
    return str(real) if real.is_file() and Path(executable).resolve() == Path(
        "/usr/bin/chromium") else executable


class Browser:
    """One headless Chromium with one page. ``errors``: every console error, uncaught
    exception and error log entry of the page and its frames, as text."""

    def __init__(self, executable: str, profile: Path, size: tuple[int, int] = (1300, 1400)):
        to_chrome, self._write = os.pipe()
        self._read, from_chrome = os.pipe()

        def pipes_at_3_and_4():  # in the child; by way of fds above 10, so that a pipe
            # already at 3 or 4 is neither overwritten nor left closed on exec
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, from_chrome)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self._process = subprocess.Popen(
            [_binary(executable), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={profile}",
             f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=pipes_at_3_and_4, close_fds=False)
        os.close(to_chrome)
        os.close(from_chrome)
        self._buffer, self._next_id, self._events = b"", 0, []
        self.errors: list[str] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget",
                                   {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _send(self, message: dict) -> int:
        self._next_id += 1
        os.write(self._write, json.dumps({"id": self._next_id, **message}).encode() + b"\0")
        return self._next_id

    def _receive(self, timeout_s: float) -> dict | None:
        deadline = time.monotonic() + timeout_s
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                return None
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        text, _, self._buffer = self._buffer.partition(b"\0")
        message = json.loads(text)
        self._note(message)
        return message

    def _note(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description")
                               or details.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(" ".join(str(a.get("value", a.get("description")))
                                        for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"]["text"])
        elif method:
            self._events.append(message)

    def _call(self, method: str, params: dict | None = None, session: str | None = None,
              timeout_s: float = 60.0) -> dict:
        message = {"method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        wanted = self._send(message)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            reply = self._receive(deadline - time.monotonic())
            if reply is not None and reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
        raise TimeoutError(f"{method}: no answer in {timeout_s:g} s")

    def call(self, method: str, params: dict | None = None) -> dict:
        """A DevTools command in the page's session."""
        return self._call(method, params, self._session)

    def open(self, url: str, timeout_s: float = 60.0) -> None:
        """Load ``url`` and wait for its load event."""
        self._events.clear()
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + timeout_s
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load in {timeout_s:g} s")
            self._receive(deadline - time.monotonic())

    def run(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "exception"))
        return result["result"].get("value")

    def wait(self, seconds: float) -> None:
        """Let the page run, still collecting what it logs."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._receive(deadline - time.monotonic())

    def screenshot(self, path: Path) -> Path:
        import base64

        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self._call("Browser.close", timeout_s=10)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._write)
        os.close(self._read)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
