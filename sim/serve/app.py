"""The sandbox in the browser: a small Starlette app (ASGI, served by uvicorn).

Every request needs the token, else 403 and nothing else (:mod:`sim.serve.guard`).
The page (sim/views/web/sandbox.html and sandbox.js, drawn
by the renderer the offline pages use) talks JSON to ``/api/...``; each tab has
its own sandbox (:mod:`sim.serve.sessions`), its physics runs in the workers
(:mod:`sim.serve.pool`, :mod:`sim.serve.jobs`). Bad input gets status 400 and
``{"error": one line}``, which the page shows. Nothing the browser sends names a
file here: boards, designs and aimers by known name, or uploaded as text
(:mod:`sim.serve.uploads`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from contextlib import asynccontextmanager
from functools import lru_cache

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from models.aimer import known_aimers, load_aimer
from models.board import load_board
from models.design import known_designs, load_design
from models.errors import InputError
from models.seeds import SEED_MAX
from models.text import shown
from sim.defaults import PRECISION_CAP, SAMPLER
from sim.serve import jobs
from sim.serve.guard import Guard, json_body
from sim.serve.pool import ClusterLost, WorkerLost, Workers
from sim.serve.sessions import Sandbox, Store
from sim.serve.sources import Sources
from sim.serve.uploads import Uploads, known_boards
from sim.studies.running.workers import Pool
from sim.studies.shots.space_firing import MapRule
from sim.studies.shots.space_shots import SweepSpec, target_and_stacks
from sim.views import viewer

#: "How likely?": the precisions offered (half-width of the 95 % interval).
PRECISIONS = (0.2, 0.1, 0.05)


class Server:
    """The app's state: the token, the tabs' sandboxes, the workers, the uploads.

    ``board``, ``design`` (names or paths) and ``layout`` (None: the demo's piggies;
    ``empty``, ``crowded``, a path, or the stacks) are what a new tab starts with, read
    for it by content (:mod:`sim.serve.sources`); ``engine`` simulates every tab's
    shots and estimates (None: each design's own engine); ``hosts``, the Host names
    answered (None: any); ``cluster``, a Dask cluster's pool the estimates run on
    (None: the workers here)."""

    def __init__(
        self,
        layout: str | dict | None = None,
        workers: int = 2,
        board: str = "stock",
        design: str = "stock",
        token: str | None = None,
        capacity: int = 32,
        idle_s: float = 1800.0,
        engine: str | None = None,
        hosts: frozenset[str] | None = None,
        cluster: Pool | None = None,
    ):
        self.token = token or secrets.token_urlsafe(24)
        self.store = Store(capacity, idle_s)
        self.workers_wanted = workers
        self.cluster = cluster
        self.workers: Workers | None = None
        self.sources = Sources(board, design, layout)
        self.engine = engine
        self.locks: dict[str, asyncio.Lock] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.uploads = Uploads(self.sources.known)
        self.hosts = hosts

    @property
    def running_workers(self) -> Workers:
        """The workers, which the app's lifespan starts before any request comes."""
        if self.workers is None:
            raise RuntimeError("the workers run inside the app's lifespan only")
        return self.workers

    def app(self) -> Starlette:
        @asynccontextmanager
        async def lifespan(_app):
            self.workers = Workers(self.workers_wanted, self.cluster)
            try:
                yield
            finally:
                for task in self.tasks.values():
                    task.cancel()
                self.workers.close()
                self.uploads.cleanup()
                self.sources.cleanup()

        routes = [
            Route("/", self.page),
            Route("/api/new", self.new, methods=["POST"]),
            Route("/api/{sid}/scene", self.scene),
            Route("/api/{sid}/save/{what}", self.save),
            Route("/api/{sid}/likely", self.likely_status),
            Route("/api/{sid}/{action}", self.act, methods=["POST"]),
        ]
        app = Starlette(routes=routes, lifespan=lifespan)
        app.add_middleware(Guard, token=self.token, hosts=self.hosts)
        return app

    # --- pages and reads ------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        return HTMLResponse(_sandbox_page())

    async def new(self, request: Request) -> Response:
        start = await asyncio.to_thread(self.sources.read)  # the files as they are now
        sandbox = Sandbox(
            board=start.board,
            design=start.design,
            stacks=start.stacks,
            board_label=start.board_label,
            design_label=start.design_label,
            files=start.files,
        )
        key, gone = self.store.add(sandbox)
        for old in gone:
            self._let_go(old)
        return JSONResponse(await self._state(key, sandbox))

    async def scene(self, request: Request) -> Response:
        sandbox = self.store.get(request.path_params["sid"])
        return JSONResponse(await asyncio.to_thread(_scene, sandbox.board, sandbox.design))

    async def likely_status(self, request: Request) -> Response:
        sandbox = self.store.get(request.path_params["sid"])
        return JSONResponse(sandbox.estimate or {})

    async def save(self, request: Request) -> Response:
        sandbox = self.store.get(request.path_params["sid"])
        what = request.path_params["what"]
        if what == "layout.json":
            board = sandbox.board_label if sandbox.board_label in known_boards() else None
            text = json.dumps(
                {**({"board": board} if board else {}), "stacks": sandbox.stacks}, indent=2
            )
            return _download(text, what, "application/json")
        shot = sandbox.last_shot
        if what not in ("shot.json", "shot.html"):
            raise InputError(
                f"unknown file '{shown(what)}': allowed are shot.json, shot.html, layout.json"
            )
        if shot is None:
            raise InputError("no shot to save yet: FIRE first")
        if what == "shot.json":
            return _download(json.dumps(shot["shot"], indent=2), what, "application/json")
        data = {**shot["replay"], "scene": _scene(sandbox.board, sandbox.design)}
        knocked = ", ".join(shot["shot"]["knocked"]) or "nobody"
        return _download(
            viewer.page(data, f"Go Piggy Go! shot — knocked out: {knocked}"), what, "text/html"
        )

    # --- changes --------------------------------------------------------------------
    async def act(self, request: Request) -> Response:
        key, action = request.path_params["sid"], request.path_params["action"]
        body = await json_body(request)
        if action == "close":
            self._let_go(key)
            return JSONResponse({"closed": self.store.close(key)})
        sandbox = self.store.get(key)
        handlers = {
            "edit": self._edit,
            "aim": self._aim,
            "choose": self._choose,
            "upload": self._upload,
            "undo": self._undo,
            "reset": self._reset,
            "fire": self._fire,
            "likely": self._likely,
        }
        if action not in handlers:
            raise InputError(
                f"unknown action '{shown(action)}': allowed are {', '.join(handlers)}, close"
            )
        async with self.locks.setdefault(key, asyncio.Lock()):
            reply = await handlers[action](key, sandbox, body)
        return JSONResponse(reply if reply is not None else await self._state(key, sandbox))

    async def _edit(self, key: str, sandbox: Sandbox, body: dict) -> None:
        op = body.get("op")
        if op == "place":
            sandbox.place(body.get("colour"), body.get("space"))
        elif op == "move":
            sandbox.move(body.get("piggy"), body.get("space"))
        elif op == "remove":
            sandbox.remove(body.get("piggy"))
        elif op == "layout":
            sandbox.set_stacks(body.get("stacks"))
        else:
            raise InputError(f"unknown edit '{shown(op)}': allowed are place, move, remove, layout")

    async def _aim(self, key: str, sandbox: Sandbox, body: dict) -> dict:
        """A new aim, refused (and forgotten) when the tractor cannot take it."""
        sandbox.set_aim(body)
        state = await self._state(key, sandbox)
        if state["aim_error"]:
            sandbox.undo()
            raise InputError(state["aim_error"])
        return state

    async def _undo(self, key: str, sandbox: Sandbox, body: dict) -> None:
        sandbox.undo()

    async def _reset(self, key: str, sandbox: Sandbox, body: dict) -> None:
        sandbox.reset()

    async def _choose(self, key: str, sandbox: Sandbox, body: dict) -> None:
        self.uploads.choose(sandbox, body)

    async def _upload(self, key: str, sandbox: Sandbox, body: dict) -> None:
        self.uploads.upload(sandbox, body)

    async def _fire(self, key: str, sandbox: Sandbox, body: dict) -> dict:
        seed = _seed(body)
        exact = body.get("exact", False)
        if not isinstance(exact, bool):  # "no" is not false
            raise InputError(f"'exact' must be true or false, got {shown(exact)}")
        noise = not exact
        shot = await self.running_workers.run(
            key,
            jobs.fire,
            sandbox.board,
            sandbox.design,
            sandbox.stacks,
            sandbox.aim,
            seed,
            noise,
            sandbox.aimer,
            self.engine,
        )
        sandbox.last_shot = shot
        return {"shot": shot["shot"], "text": shot["text"], "replay": shot["replay"]}

    async def _likely(self, key: str, sandbox: Sandbox, body: dict) -> dict:
        precision = body.get("precision")
        if precision not in PRECISIONS:
            raise InputError(
                f"precision {shown(precision)} is not offered: allowed are "
                f"{', '.join(f'{p:g}' for p in PRECISIONS)}"
            )
        space, target, lone = sandbox.measured()
        # what `piggy hitmap --spaces S --precision P --seed N --aimer A --layout L`
        # measures (sim/cli/hitmap.py, sweep_spec): the same sampler and cap, the
        # same shots, the same P
        spec = SweepSpec(
            board=sandbox.board,
            design=sandbox.design,
            stacks={s: list(stack) for s, stack in sandbox.stacks.items()},  # as it is now
            spaces=(space,),
            shots=PRECISION_CAP,
            seed=_seed(body),
            arc=sandbox.aim.get("arc", "best"),
            aimer=load_aimer(sandbox.aimer),
            precision=precision,
            sampler=SAMPLER,
            engine=self.engine,
        )
        target_and_stacks(spec, space, target)  # refused now, before any shot
        if key in self.tasks:
            self.tasks.pop(key).cancel()
        rule = MapRule.of(spec)
        most = rule.streams * rule.most  # the hit map's cap: the most shots it may fire
        sandbox.estimate = {
            "running": True,
            "space": space,
            "target": target,
            "label": f"a lone piggy on {space}" if lone else f"{target} on {space}",
            "shots": 0,
            "most": most,
            "precision": precision,
        }
        measured = {k: sandbox.estimate[k] for k in ("space", "target", "label")}
        self.tasks[key] = asyncio.create_task(self._estimate(key, sandbox, spec, measured, most))
        return sandbox.estimate

    async def _estimate(
        self, key: str, sandbox: Sandbox, spec: SweepSpec, measured: dict, most: int
    ) -> None:
        """Measure the space (``measured``: its space, target and label) by the hit
        map's own rule, one look a job, each look going
        on from the shots already fired (none is fired twice) and shown as it ends,
        until the rule stops: the shots and P of ``piggy hitmap`` on that space. A new
        estimate or the tab's closing cancels this at the next look."""
        fired: tuple = ()
        try:
            while True:
                look = await self.running_workers.run_estimate(
                    key, jobs.estimate, spec, measured["space"], fired, measured["target"]
                )
                fired += look.pop("rows")
                done = look.pop("done")
                sandbox.estimate = {
                    **look,
                    "label": measured["label"],
                    "running": not done,
                    "most": most,
                    "precision": spec.precision,
                }
                if done:
                    return
        except (InputError, WorkerLost, ClusterLost) as exc:
            sandbox.estimate = {"running": False, "error": str(exc)}
        finally:
            if self.tasks.get(key) is asyncio.current_task():
                del self.tasks[key]

    def _let_go(self, key: str) -> None:
        """A tab closed or let go: its waiting work is dropped."""
        if key in self.tasks:
            self.tasks.pop(key).cancel()
        self.locks.pop(key, None)
        if self.workers is not None:
            self.workers.drop(key)

    async def _state(self, key: str, sandbox: Sandbox) -> dict:
        """What the page shows: the sandbox, its piggies' poses and its aim solved."""
        look = await self.running_workers.run(
            key,
            jobs.look,
            sandbox.board,
            sandbox.design,
            sandbox.stacks,
            sandbox.aim,
            self.engine,
        )
        design = load_design(sandbox.design)
        return {
            "id": key,
            "board": sandbox.board_label,
            "design": sandbox.design_label,
            "aimer": sandbox.aimer,
            "stacks": sandbox.stacks,
            "aim": sandbox.aim,
            "undo": len(sandbox.history),
            "scene_key": _scene_key(sandbox),
            "changed": await asyncio.to_thread(self.sources.changed, sandbox.files),
            "pitch_range": [design.launcher.pitch_min_deg, design.launcher.pitch_max_deg],
            "known": {"board": known_boards(), "design": known_designs(), "aimer": known_aimers()},
            "precisions": PRECISIONS,
            **look,
        }


def _seed(body: dict) -> int:
    """The request's seed (0 when not given; a number, or its digits as text, which
    keep seeds past 2^53 exact), in the command line's range."""
    seed = body.get("seed", 0)
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 20:
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InputError(f"seed {shown(seed)} is out of range: a whole number from 0 to {SEED_MAX}")
    return seed


def _scene_key(sandbox: Sandbox) -> str:
    """What the page's scene is drawn from: the board and design as the workers load
    them (known names, or copies named by their content)."""
    return hashlib.sha256(f"{sandbox.board}|{sandbox.design}".encode()).hexdigest()[:16]


@lru_cache(maxsize=8)
def _scene(board: str, design: str) -> dict:
    return viewer.scene(load_board(board), load_design(design))


@lru_cache(maxsize=1)
def _sandbox_page() -> str:
    return viewer.fill(
        viewer.asset("sandbox.html"),
        RENDERER=viewer.renderer_scripts(),
        SCRIPT=viewer.asset("sandbox.js"),
    )


def _download(text: str, name: str, kind: str) -> Response:
    return Response(
        text, media_type=kind, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
