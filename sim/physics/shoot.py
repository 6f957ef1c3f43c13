"""One shot, end to end: pick the aim (by hand or with the aim solver), fire it on
any engine (:class:`~sim.physics.engine.ShotEngine`), and report it as JSON or text
(its picture is :func:`sim.views.shot_picture.shot_figure`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from models.aimer import PERFECT
from models.board import Board, space_name
from models.design_checks import check_angles
from models.errors import InputError
from sim.physics import aim
from sim.physics.engine import ShotEngine
from sim.physics.launch import AimedShot
from sim.physics.results import ShotResult

#: Yaw may be given in either sense of turning, once round.
ARCS = ("low", "high")
#: Steps between two recorded points of the bale's path in pictures.
_RECORD_EVERY = 4


@dataclass(frozen=True)
class Aim:
    """The aim a shot is fired with, before the shot-to-shot noise."""

    yaw_deg: float
    pitch_deg: float
    target: str | None = None  # space or piggy, when aimed by the solver
    arc: str | None = None
    target_mm: tuple[float, float, float] | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "yaw_deg": round(self.yaw_deg, 4),
            "pitch_deg": round(self.pitch_deg, 4),
        }
        if self.target and self.target_mm is not None:
            out.update(
                target=self.target, arc=self.arc, target_mm=[round(v, 2) for v in self.target_mm]
            )
        return out


def target_point(world: ShotEngine, name: str) -> tuple[np.ndarray, str]:
    """The point to aim at for a space or piggy name, mm; and a label for messages.

    A piggy: its centre as it stands (``PiggyModel.centre_at``). A space with
    piggies: the top piggy. An empty space: its centre, at the bale's half height.
    """
    space, piggy = world.layout.target(name)
    if piggy is not None:
        return world.piggy_centre_mm(piggy), piggy
    stack = world.layout.stacks.get(space)
    if stack:
        return world.piggy_centre_mm(stack[-1]), f"{name} ({stack[-1]})"
    x, y = world.board.space_center_mm(space)
    return np.array([x, y, world.design.bale.height_mm / 2]), name


def solve_aim(world: ShotEngine, at: str, arc: str = "low", strict: bool = False) -> Aim:
    """The solver's aim at a space or piggy. When the asked arc does not exist: the
    other one, or with ``strict`` an :class:`InputError` saying which arcs there are."""
    if arc not in ARCS:
        raise InputError(f"unknown arc '{arc}': allowed are {', '.join(ARCS)}")
    point, label = target_point(world, at)
    solutions = aim.solve(world.design, point, label)
    chosen = next((s for s in solutions if s.arc == arc), None)
    if chosen is None and strict:
        raise InputError(
            f"no {arc} arc reaches {label} with design '{world.design.name}' "
            f"(its pitch range allows only the {solutions[0].arc} arc): use "
            f"--arc {solutions[0].arc}, or leave --arc out"
        )
    chosen = chosen or solutions[0]
    x, y, z = (float(v) for v in point)
    return Aim(chosen.yaw_deg, chosen.pitch_deg, at, chosen.arc, (x, y, z))


def fire(world: ShotEngine, shot: AimedShot, *, record: bool = False) -> ShotResult:
    """Fire one shot, its angles checked against the design's range first;
    ``record`` keeps the bale's path for pictures."""
    check_angles(world.design, shot.yaw_deg, shot.pitch_deg)
    return world.shoot(shot, record_every=_RECORD_EVERY if record else 0)


def report(world: ShotEngine, shot_aim: Aim, shot: AimedShot, result: ShotResult) -> dict:
    """The shot JSON (docs/formats.md, "Shot JSON") of ``shot`` fired with
    ``shot_aim``."""
    data = {
        "board": world.board.name,
        "design": world.design.name,
        "layout": world.layout.to_dict()["stacks"],
        "aim": shot_aim.to_dict(),
        "seed": shot.seed,
        "noise": shot.noise,
        **({} if shot.aimer == PERFECT else {"aimer": shot.aimer.to_dict()}),
        **({} if world.engine == "bullet" else {"engine": world.engine}),
        **result.to_dict(),
    }
    data["bale"]["rest_on"] = rest_place(world.board, result)
    return data


#: The places that are not spaces (docs/architecture.md, "Names"), and the rest of the
#: board top, in words.
_PLACE_WORDS = {
    "pit": "in the start Mud Pit",
    "pit-left": "in the left side Mud Pit",
    "pit-right": "in the right side Mud Pit",
    "trough": "in the trough",
    "edge-left": "on the board's left edge",
    "edge-right": "on the board's right edge",
    "tractor-hole": "in the tractor's hole",
    "off-board": "off the board",
}


def place_at(board: Board, point_mm) -> str:
    """Where a board-frame point (mm) lies: a space (``r9c3``), ``pit``, ``pit-left``,
    ``pit-right``, ``trough``, ``edge-left``/``edge-right`` (beside the spaces, away
    from the side pits), ``tractor-hole`` or ``off-board``."""
    x, y = float(point_mm[0]), float(point_mm[1])
    space = board.space_at_mm((x, y))
    if space is not None:
        return space_name(space)
    x_min, x_max, y_min, y_max = board.surface_extent_mm
    if not (x_min <= x <= x_max and y_min <= y <= y_max):
        return "off-board"
    grid_x_min, grid_x_max, grid_y_min, grid_y_max = board.grid_extent_mm
    if y < grid_y_min:
        return "pit"
    if y > grid_y_max:
        return "trough"
    if grid_x_min <= x <= grid_x_max:
        return "tractor-hole"
    side = "left" if x < grid_x_min else "right"
    row = int((y - grid_y_min) // board.space_mm)
    pit_rows = board.pit_left_rows if side == "left" else board.pit_right_rows
    return f"pit-{side}" if row in pit_rows else f"edge-{side}"


def rest_place(board: Board, result: ShotResult) -> str:
    """Where the bale ended (:func:`place_at` its rest point); ``off-board`` once it
    has struck the table."""
    return "off-board" if "table" in result.contacts else place_at(board, result.rest_mm)


def _in_words(place: str) -> str:
    return _PLACE_WORDS.get(place, f"on {place}")


def _strike(board: Board, what: str, point_mm) -> str:
    if what == "board":
        return f"the board {_in_words(place_at(board, point_mm))}"
    if what == "table":
        return "the table (off the board)"
    return what if "-" in what else f"the {what}"  # a piggy by its name; the fence, tractor


def _counted(strikes: list[str]) -> list[str]:
    """Strikes of one thing in a row said once, with their count: "the table ×4"."""
    runs = [(what, len(list(run))) for what, run in itertools.groupby(strikes)]
    return [what if n == 1 else f"{what} ×{n}" for what, n in runs]


def _why_nobody(shot_aim: Aim, result: ShotResult) -> str:
    """Why nobody could be knocked out, where the shot says so: " (no piggy stood on
    r0c3)" for a shot at an empty space, " (no piggy on the board)" with none at all;
    else nothing (a miss is told by what the bale struck)."""
    if not result.piggies:
        return " (no piggy on the board)"
    target = shot_aim.target  # a space's one name (models/grid.py), or a piggy's
    if target and "-" not in target and all(p.space != target for p in result.piggies.values()):
        return f" (no piggy stood on {target})"
    return ""


def describe(shot_aim: Aim, result: ShotResult, board: Board) -> str:
    """A few lines for people: what the bale struck and where it ended, who was
    knocked out, and why."""
    lines = []
    if shot_aim.target:
        lines.append(
            f"Aimed at {shot_aim.target} ({shot_aim.arc} arc): yaw "
            f"{shot_aim.yaw_deg:.2f} deg, pitch {shot_aim.pitch_deg:.2f} deg"
        )
    lines.append(
        f"Fired at yaw {result.yaw_deg:.2f} deg, pitch {result.pitch_deg:.2f} deg, "
        f"{result.speed_mm_s:.0f} mm/s"
    )
    strikes = [
        _strike(board, what, point)
        for what, point in zip(result.contacts, result.contact_points_mm, strict=True)
    ]
    lines.append(
        "The bale struck, in order: "
        + (" -> ".join(_counted(strikes)) or "nothing")
        + f"; it came to rest {_in_words(rest_place(board, result))}"
    )
    knocked = ", ".join(result.knocked) or "nobody" + _why_nobody(shot_aim, result)
    lines.append(f"Knocked out: {knocked}")
    for piggy in sorted(result.piggies):
        p = result.piggies[piggy]
        mark = "OUT" if p.knocked else "stays"
        lines.append(
            f"  {mark:5s} {piggy:8s} on {p.space:6s} moved {p.moved_mm:5.1f} mm: {p.reason}"
        )
    if not result.settled:
        lines.append(
            f"(stopped at the {result.sim_time_s:.1f} s cap before everything was at rest)"
        )
    return "\n".join(lines)
