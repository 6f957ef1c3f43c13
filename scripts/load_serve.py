"""A bounded load test of ``piggy serve`` on the loopback address.

Starts the server, opens CLIENTS sandboxes (one per simulated tab, each with its
own layout), fires SHOTS shots from each at once from as many threads, and checks
that every shot is answered, for its own tab (its layout and seed), before a time
limit; reports the server's memory (its process and its workers', resident)
before and after, and stops it with Ctrl-C (SIGINT), checking that no process is
left. The tests (tests/sim/serve/test_serve.py) use its helpers and a small run of it.

    python scripts/load_serve.py                      # 8 clients x 20 shots
    python scripts/load_serve.py --clients 2 --shots 3 --seconds 120
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Empty spaces of the stock board, a piggy on one per client.
_SPACES = ["r9c5", "r10c1", "r7c5", "r9c1", "r8c5", "r10c5", "r7c1", "r6c5"]


class Served:
    """``piggy serve`` in a process group of its own, and requests to it."""

    def __init__(
        self,
        *args: str,
        cwd: Path | None = None,
        start_timeout_s: float = 180.0,
        background: bool = False,
    ):
        """``piggy serve ARGS`` as from a terminal, or with ``background`` as a
        background job (started with Ctrl-C ignored, as a shell starts one)."""
        sigint = signal.SIG_IGN if background else signal.SIG_DFL
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sim.cli", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd or ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            start_new_session=True,
            # not what this process has: a suite run in the background ignores Ctrl-C
            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
        )
        stdout, stderr = self.process.stdout, self.process.stderr
        assert stdout is not None and stderr is not None  # both are pipes (PIPE above)
        ready, _, _ = select.select([stdout], [], [], start_timeout_s)
        line = stdout.readline() if ready else ""
        if not line.startswith("Open http"):
            self.process.kill()
            raise RuntimeError(f"piggy serve did not start: {line}{stderr.read()}")
        self.url: str = line.split()[1]
        self.base, self.token = self.url.split("/?token=")

    def request(
        self, path: str, body: object = None, token: bool = True, raw: bytes | None = None
    ) -> tuple[int, Any]:
        """(status, the JSON reply or the bytes of another) of a GET, or a POST of
        ``body`` as JSON (``raw``: those bytes)."""
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Piggy-Token"] = self.token
        request = urllib.request.Request(
            self.base + path, data=data, headers=headers, method="GET" if data is None else "POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=300) as reply:
                status, kind, content = reply.status, reply.headers["Content-Type"], reply.read()
        except urllib.error.HTTPError as error:
            status, kind, content = error.code, error.headers["Content-Type"], error.read()
        is_json = (kind or "").startswith("application/json")
        return status, json.loads(content) if is_json else content

    def memory_mb(self) -> tuple[float, int]:
        """Resident memory of the server and its workers, MB; and how many processes."""
        import psutil

        processes = [psutil.Process(self.process.pid)]
        processes += processes[0].children(recursive=True)
        return sum(p.memory_info().rss for p in processes) / 1e6, len(processes)

    def stop(self, timeout_s: float = 60.0) -> tuple[int | None, bool]:
        """Ctrl-C to the group, as a terminal sends it; (exit code, None if the server
        did not exit within ``timeout_s``; whether any process of the group is left)."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        end = time.monotonic() + 120  # a cap: the wait ends as the last process goes
        while time.monotonic() < end:
            try:
                os.killpg(self.process.pid, 0)
            except ProcessLookupError:
                return code, False
            time.sleep(0.2)
        os.killpg(self.process.pid, signal.SIGKILL)
        return code, True


def load(served: Served, clients: int, shots: int, seconds: float) -> dict:
    """Each client: a new sandbox, one gold piggy on a space of its own, aimed at;
    then ``shots`` shots with seeds of its own, one after the other, all clients at
    once. Returns what was answered, refused and mixed up."""
    outcome: dict[str, Any] = {"answered": 0, "refused": [], "mixed": [], "unanswered": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(index: int) -> None:
        status, state = served.request("/api/new", {})
        sid = state["id"]
        served.request(
            f"/api/{sid}/edit",
            {
                "op": "layout",
                "stacks": {"r8c3": ["gold-2", "pink-1"], _SPACES[index % len(_SPACES)]: ["gold-1"]},
            },
        )
        status, state = served.request(f"/api/{sid}/aim", {"at": "gold-1"})
        expected = state["stacks"]
        for shot in range(shots):
            if time.monotonic() > deadline:
                with lock:
                    outcome["unanswered"] += shots - shot
                return
            seed = 1000 * index + shot
            status, reply = served.request(f"/api/{sid}/fire", {"seed": seed})
            with lock:
                if status != 200:
                    outcome["refused"].append(reply)
                elif reply["shot"]["layout"] != expected or reply["shot"]["seed"] != seed:
                    outcome["mixed"].append((index, shot))
                else:
                    outcome["answered"] += 1
        served.request(f"/api/{sid}/close", {})

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--shots", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--seconds", type=float, default=1200.0, help="stop sending shots after this long"
    )
    args = parser.parse_args()
    served = Served("--workers", str(args.workers), "--layout", "empty")
    load(served, 2, 1, args.seconds)  # two workers start
    before, processes_before = served.memory_mb()
    start = time.monotonic()
    outcome = load(served, args.clients, args.shots, args.seconds)
    elapsed = time.monotonic() - start
    after, processes_after = served.memory_mb()
    code, left = served.stop()
    print(
        f"{args.clients} clients x {args.shots} shots, {args.workers} workers: "
        f"{outcome['answered']} answered, {len(outcome['refused'])} refused, "
        f"{len(outcome['mixed'])} mixed between tabs, {outcome['unanswered']} not sent "
        f"(time limit) in {elapsed:.0f} s; memory {before:.0f} MB before ({processes_before} "
        f"processes), {after:.0f} MB after ({processes_after}); Ctrl-C: exit code {code}, "
        f"{'a process left' if left else 'no process left'}"
    )
    ok = outcome["answered"] == args.clients * args.shots and not left
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
