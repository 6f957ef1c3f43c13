"""What every request to the sandbox's app goes through: on loopback, a local Host
name (:mod:`sim.serve.hosts`, against DNS rebinding); the token (``?token=`` or
the ``X-Piggy-Token`` header; without it 403 and nothing else), a cap on the body,
and every refusal (:class:`~models.errors.InputError`) as one line of JSON with
status 400, which the page shows (a worker lost under a request: 503).
"""

from __future__ import annotations

import json
import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from models.errors import InputError
from models.files import MAX_FILE_BYTES, parse_json
from models.text import shown
from sim.serve.hosts import host_name
from sim.serve.pool import WorkerLost

#: The largest request body, bytes: an upload of the largest board, design or layout
#: file the command line reads, as JSON text.
MAX_BODY_BYTES = 2 * max(MAX_FILE_BYTES[k] for k in ("board", "design", "layout"))
TOKEN_HEADER = "x-piggy-token"


async def json_body(request: Request) -> dict:
    """The request's JSON object, read up to :data:`MAX_BODY_BYTES`."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise _TooLarge
    if not body:
        return {}
    data = parse_json(body.decode("utf-8", errors="replace"), "the request")
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object")
    try:  # JSON may escape half a surrogate pair ("\ud800"): text no file can hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            "the request holds a lone surrogate (\\ud800 to \\udfff escaped alone): "
            "text must be Unicode"
        ) from None
    return data


class _TooLarge(Exception):
    pass


class Guard:
    """The Host (one of ``hosts``, when given: 403 and one line else), the token on
    every request (403 and nothing else without it), a cap on the body, and every
    refusal as one line of JSON."""

    def __init__(self, app, token: str, hosts: frozenset[str] | None = None):
        self.app, self.token, self.hosts = app, token, hosts

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":  # the app has no websockets
            return await send({"type": "websocket.close", "code": 1008})
        request = Request(scope)
        if self.hosts is not None and host_name(request.headers.get("host", "")) not in self.hosts:
            allowed = ", ".join(sorted(self.hosts))
            return await _refuse(
                403, f"this server answers to the Host names {allowed} only (--allow-host)"
            )(scope, receive, send)
        given = request.query_params.get("token") or request.headers.get(TOKEN_HEADER) or ""
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            return await Response(status_code=403)(scope, receive, send)
        size = request.headers.get("content-length", "0")
        try:
            if not size.isdigit() or int(size) > MAX_BODY_BYTES:
                raise _TooLarge
            await self.app(scope, receive, send)
        except _TooLarge:
            await _refuse(
                413, f"the request is larger than {MAX_BODY_BYTES // 1024} KiB, the most allowed"
            )(scope, receive, send)
        except InputError as exc:
            await _refuse(400, str(exc))(scope, receive, send)
        except WorkerLost as exc:  # the pool has been replaced: the next request is served
            await _refuse(503, str(exc))(scope, receive, send)
        except Exception as exc:  # a failure of ours: one line for the page, and the app goes on
            await _refuse(500, f"internal error: {type(exc).__name__}: {exc}")(scope, receive, send)


def _refuse(status: int, message: str) -> Response:
    return JSONResponse(
        {"error": shown(message, 300)}, status_code=status, headers={"Cache-Control": "no-store"}
    )
