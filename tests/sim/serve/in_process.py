"""The sandbox's app driven in the test's own process, as an ASGI server drives it:
its lifespan (and so its worker processes) started on entry and stopped on exit,
requests as uvicorn sends them. For the tests of ``piggy serve``'s estimates."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.serve.app import Server

#: A layout with a piggy for "how likely?" to aim at (blue-1 on r9c3).
LAYOUT = {"board": "stock", "stacks": {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"]}}
#: Generous caps on waits (a busy machine), never a fixed sleep.
WAIT_S = 600


class InProcess:
    """A :class:`Server`'s app called in this process as an ASGI server calls it: its
    lifespan started on entry (the workers) and stopped on exit, then requests."""

    def __init__(self, server: Server):
        self.server = server
        self.app = server.app()
        self._to_app: asyncio.Queue = asyncio.Queue()
        self._from_app: asyncio.Queue = asyncio.Queue()
        self._lifespan: asyncio.Task | None = None

    async def __aenter__(self) -> InProcess:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._lifespan = asyncio.create_task(self.app(scope, self._to_app.get, self._from_app.put))
        await self._to_app.put({"type": "lifespan.startup"})
        message = await asyncio.wait_for(self._from_app.get(), WAIT_S)
        assert message["type"] == "lifespan.startup.complete", message
        return self

    async def __aexit__(self, *exc) -> None:
        await self._to_app.put({"type": "lifespan.shutdown"})
        message = await asyncio.wait_for(self._from_app.get(), WAIT_S)
        assert message["type"] == "lifespan.shutdown.complete", message
        assert self._lifespan is not None
        await self._lifespan

    async def request(self, path: str, body: object = None) -> tuple[int, dict]:
        """(status, JSON reply) of a GET, or of a POST of ``body`` as JSON."""
        data = b"" if body is None else json.dumps(body).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET" if body is None else "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"x-piggy-token", self.server.token.encode()),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
            ],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        answered = asyncio.Event()
        bodies: list[dict] = [{"type": "http.request", "body": data, "more_body": False}]
        sent: list[dict] = []

        async def receive() -> dict:
            if bodies:
                return bodies.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        await asyncio.wait_for(self.app(scope, receive, send), WAIT_S)
        answered.set()
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return status, json.loads(content)


class Looks:
    """Every look the app sends to its workers, recorded as it is sent: the seed of the
    estimate, the shots already fired that it goes on from, and the progress the page
    read just before (``GET /api/<id>/likely``)."""

    def __init__(self, client: InProcess, sid: str):
        self.seen: list[tuple[int, int, dict]] = []
        self.sent = asyncio.Event()
        workers = client.server.running_workers
        original = workers.run_estimate

        async def recorded(owner, fn, spec, space, fired, *target):
            _, progress = await client.request(f"/api/{sid}/likely")
            self.seen.append((spec.seed, len(fired), progress))
            self.sent.set()
            return await original(owner, fn, spec, space, fired, *target)

        workers.run_estimate = recorded

    def of(self, seed: int) -> list[tuple[int, dict]]:
        return [(fired, progress) for s, fired, progress in self.seen if s == seed]

    async def until(self, seed: int, count: int) -> None:
        """Wait until ``count`` looks of the estimate with ``seed`` have been sent."""
        while len(self.of(seed)) < count:
            self.sent.clear()
            await asyncio.wait_for(self.sent.wait(), WAIT_S)


async def aimed_sandbox(client: InProcess) -> str:
    """A new tab's sandbox, a child aiming at blue-1; its id."""
    status, state = await client.request("/api/new", {})
    assert status == 200
    sid = state["id"]
    for action, body in (("choose", {"aimer": "child"}), ("aim", {"at": "blue-1"})):
        status, reply = await client.request(f"/api/{sid}/{action}", body)
        assert status == 200, reply
    return sid
