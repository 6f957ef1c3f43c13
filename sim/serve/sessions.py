"""Each browser tab's sandbox: its board, design, aimer, layout and aim, with the
history that undo walks back; and the bounded store of them.

Every change is checked by the rules the command line uses (the layout by
:func:`models.layout.layout_from_dict`, piggy names by
:func:`models.layout.check_piggy`, seeds by ``sim/cli/common.py``'s range) and
refused with an :class:`~models.errors.InputError` naming the problem.
"""

from __future__ import annotations

import copy
import secrets
import time
from dataclasses import dataclass, field

from models.board import load_board
from models.errors import InputError
from models.layout import COLOURS, check_piggy, layout_from_dict
from models.text import shown
from sim.studies.shots.space_shots import TARGET

#: Steps undo can take back.
MAX_HISTORY = 50
ARCS = ("auto", "low", "high")


@dataclass
class Sandbox:
    """One tab's sandbox. ``board`` and ``design`` are what the workers load: a known
    name, or the server's own copy of a file given to the server or uploaded, named
    by its content (never a path the browser gave); ``*_label`` is what the page
    shows; ``files``, the files read from disk when the tab opened
    (:mod:`sim.serve.sources`)."""

    board: str
    design: str
    stacks: dict[str, list[str]]
    board_label: str = "stock"
    design_label: str = "stock"
    aimer: str = "child"  # the hit maps' aimer: "how likely?" then agrees with piggy hitmap
    aim: dict = field(default_factory=lambda: {"yaw_deg": 0.0, "pitch_deg": 30.0})
    history: list[dict] = field(default_factory=list)
    start: dict = field(default_factory=dict)
    last_shot: dict | None = None
    estimate: dict | None = None
    files: tuple[tuple[str, str], ...] = ()  # the files read for it: (path, sha256)
    used: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.start = self.snapshot()

    def snapshot(self) -> dict:
        """What undo and reset bring back."""
        return copy.deepcopy(
            {
                k: getattr(self, k)
                for k in (
                    "board",
                    "design",
                    "stacks",
                    "board_label",
                    "design_label",
                    "aimer",
                    "aim",
                )
            }
        )

    def restore(self, snapshot: dict) -> None:
        for key, value in copy.deepcopy(snapshot).items():
            setattr(self, key, value)

    def remember(self) -> None:
        """Keep the state before a change, for undo."""
        self.history.append(self.snapshot())
        del self.history[:-MAX_HISTORY]

    def undo(self) -> None:
        if not self.history:
            raise InputError("nothing to undo")
        self.restore(self.history.pop())

    def reset(self) -> None:
        self.remember()
        self.restore(self.start)

    # --- the layout -----------------------------------------------------------------
    def set_stacks(self, stacks: object, source: str = "layout") -> None:
        """A whole new layout, checked on the sandbox's board."""
        layout = layout_from_dict({"stacks": stacks}, board=load_board(self.board), source=source)
        self.remember()
        self.stacks = layout.to_dict()["stacks"]

    def place(self, colour: object, space: object) -> str:
        """Stand the next free piggy of a colour on a space (on top of its stack)."""
        if colour not in COLOURS:
            raise InputError(f"unknown colour '{shown(colour)}': allowed are {', '.join(COLOURS)}")
        on_board = {p for stack in self.stacks.values() for p in stack}
        free = [f"{colour}-{n}" for n in (1, 2, 3) if f"{colour}-{n}" not in on_board]
        if not free:
            raise InputError(f"all three {colour} piggies are on the board already")
        self._move_to(free[0], space)
        return free[0]

    def move(self, piggy: object, space: object) -> None:
        name = check_piggy(piggy)
        self._where(name)
        self._move_to(name, space)

    def remove(self, piggy: object) -> None:
        name = check_piggy(piggy)
        stacks = copy.deepcopy(self.stacks)
        stacks[self._where(name)].remove(name)
        self.set_stacks({s: p for s, p in stacks.items() if p})

    def _where(self, piggy: str) -> str:
        for space, stack in self.stacks.items():
            if piggy in stack:
                return space
        raise InputError(f"piggy {piggy} is not on the board")

    def _move_to(self, piggy: str, space: object) -> None:
        if not isinstance(space, str):
            raise InputError(f"a space is named like r8c3, got {shown(space)}")
        stacks = {s: [p for p in stack if p != piggy] for s, stack in self.stacks.items()}
        stacks.setdefault(space, []).append(piggy)
        self.set_stacks({s: p for s, p in stacks.items() if p})

    # --- the aim --------------------------------------------------------------------
    def set_aim(self, data: object) -> None:
        """``{"yaw_deg", "pitch_deg"}`` (checked when solved or fired, against the
        design), or ``{"at": space or piggy, "arc": auto, low or high}``."""
        if not isinstance(data, dict):
            raise InputError("an aim is {yaw_deg, pitch_deg} or {at, arc}")
        if "at" in data:
            at, arc = data["at"], data.get("arc", "auto")
            if arc not in ARCS:
                raise InputError(f"unknown arc '{shown(arc)}': allowed are {', '.join(ARCS)}")
            if not isinstance(at, str) or not at:
                raise InputError(f"aim at a space (r8c3) or a piggy (gold-2), got {shown(at)}")
            if "-" in at:
                self._where(check_piggy(at))
            else:
                load_board(self.board).parse_space(at)
            aim: dict = {"at": at} | ({} if arc == "auto" else {"arc": arc})
        else:
            aim = {k: _number(data.get(k), k) for k in ("yaw_deg", "pitch_deg")}
        self.remember()
        self.aim = aim

    def measured(self) -> tuple[str, str, bool]:
        """What "how likely?" measures for the aim: (space, piggy, whether it stands
        alone there for the measurement). The piggy aimed at, on its space (at the
        bottom of a stack too); on a space, its top piggy, or on an empty one a piggy
        not on the board, stood there alone (the hit maps' gold-1 where it is free)."""
        at = self.aim.get("at")
        if at is None:
            raise InputError("aim at a space or a piggy first: 'how likely?' measures a target")
        for space, stack in self.stacks.items():
            if at in stack:
                return space, at, False
        if self.stacks.get(at):
            return at, self.stacks[at][-1], False
        on_board = {p for stack in self.stacks.values() for p in stack}
        free = [f"{c}-{n}" for c in COLOURS for n in (1, 2, 3) if f"{c}-{n}" not in on_board]
        if not free:
            raise InputError(
                f"every piggy is on the board: 'how likely?' on the empty {at} stands one "
                "there alone, so take one off first"
            )
        return at, TARGET if TARGET in free else free[0], True


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise InputError(f"{what} must be a number of degrees, got {shown(value)}")
    return float(value)


class Store:
    """At most ``capacity`` sandboxes, keyed by an unguessable id; the one unused
    longest goes when a new one needs room, and any unused for ``idle_s``."""

    def __init__(self, capacity: int = 32, idle_s: float = 1800.0):
        self.capacity, self.idle_s = capacity, idle_s
        self._sandboxes: dict[str, Sandbox] = {}

    def __len__(self) -> int:
        return len(self._sandboxes)

    def add(self, sandbox: Sandbox) -> tuple[str, list[str]]:
        """Keep a new sandbox; its id, and the ids of those let go to make room."""
        gone = self.expire()
        while len(self._sandboxes) >= self.capacity:
            oldest = min(self._sandboxes, key=lambda k: self._sandboxes[k].used)
            del self._sandboxes[oldest]
            gone.append(oldest)
        key = secrets.token_urlsafe(16)
        self._sandboxes[key] = sandbox
        return key, gone

    def get(self, key: str) -> Sandbox:
        sandbox = self._sandboxes.get(key)
        if sandbox is not None and time.monotonic() - sandbox.used > self.idle_s:
            del self._sandboxes[key]  # unused too long: let go, as expire() would
            sandbox = None
        if sandbox is None:
            raise InputError(
                "this sandbox is closed (idle too long, or the server restarted): reload the page"
            )
        sandbox.used = time.monotonic()
        return sandbox

    def close(self, key: str) -> bool:
        return self._sandboxes.pop(key, None) is not None

    def expire(self) -> list[str]:
        """Let go of the sandboxes unused for ``idle_s``; their ids."""
        now = time.monotonic()
        gone = [k for k, s in self._sandboxes.items() if now - s.used > self.idle_s]
        for key in gone:
            del self._sandboxes[key]
        return gone
