"""One shot, end to end: pick the aim (by hand or with the aim solver), fire it in
a :class:`~sim.world.World`, and report it as JSON, text or a picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.errors import InputError
from models.layout import check_piggy
from sim import aim
from sim.world import ShotResult, World

#: Yaw may be given in either sense of turning, once round.
YAW_RANGE_DEG = (-360.0, 360.0)
ARCS = ("low", "high")
#: Steps between two recorded points of the bale's path in pictures.
_RECORD_EVERY = 4


@dataclass(frozen=True)
class Aim:
    """The aim a shot is fired with, before the shot-to-shot noise."""

    yaw_deg: float
    pitch_deg: float
    target: str | None = None       # space or piggy, when aimed by the solver
    arc: str | None = None
    target_mm: tuple[float, float, float] | None = None

    def to_dict(self) -> dict:
        out = {"yaw_deg": round(self.yaw_deg, 4), "pitch_deg": round(self.pitch_deg, 4)}
        if self.target:
            out.update(target=self.target, arc=self.arc,
                       target_mm=[round(v, 2) for v in self.target_mm])
        return out


def target_point(world: World, name: str) -> tuple[np.ndarray, str]:
    """The point to aim at for a space or piggy name, mm; and a label for messages.

    A piggy: the centre of its collision geometry as it stands. A space with
    piggies: the top piggy. An empty space: its centre, at the bale's half height.
    """
    if "-" in name:
        piggy = check_piggy(name)
        world.layout.space_of(piggy)  # raises if it is not on the board
        return world.piggy_centre_mm(piggy), piggy
    space = world.board.parse_space(name)
    stack = world.layout.stacks.get(space)
    if stack:
        return world.piggy_centre_mm(stack[-1]), f"{name} ({stack[-1]})"
    x, y = world.board.space_center_mm(space)
    return np.array([x, y, world.design.bale.height_mm / 2]), name


def solve_aim(world: World, at: str, arc: str = "low") -> Aim:
    """The solver's aim at a space or piggy; the other arc if the asked one does not exist."""
    if arc not in ARCS:
        raise InputError(f"unknown arc '{arc}': allowed are {', '.join(ARCS)}")
    point, label = target_point(world, at)
    solutions = aim.solve(world.design, point, label)
    chosen = next((s for s in solutions if s.arc == arc), solutions[0])
    return Aim(chosen.yaw_deg, chosen.pitch_deg, at, chosen.arc, tuple(float(v) for v in point))


def check_angles(world: World, yaw_deg: float, pitch_deg: float) -> None:
    """Raise :class:`InputError` for a yaw or pitch the tractor cannot take."""
    lo, hi = YAW_RANGE_DEG
    if not (math.isfinite(yaw_deg) and lo <= yaw_deg <= hi):
        raise InputError(f"yaw {yaw_deg:g} deg is out of range [{lo:g}, {hi:g}]")
    launcher = world.design.launcher
    if not (math.isfinite(pitch_deg)
            and launcher.pitch_min_deg <= pitch_deg <= launcher.pitch_max_deg):
        raise InputError(f"pitch {pitch_deg:g} deg is out of range for design "
                         f"'{world.design.name}': [{launcher.pitch_min_deg:g}, "
                         f"{launcher.pitch_max_deg:g}]")


def fire(world: World, shot_aim: Aim, *, seed: int = 0, noise: bool = True,
         record: bool = False) -> ShotResult:
    """Fire one shot with an aim; ``record`` keeps the bale's path for pictures."""
    check_angles(world, shot_aim.yaw_deg, shot_aim.pitch_deg)
    return world.shoot(shot_aim.yaw_deg, shot_aim.pitch_deg, seed=seed, noise=noise,
                       record_every=_RECORD_EVERY if record else 0)


def report(world: World, shot_aim: Aim, result: ShotResult, *, seed: int, noise: bool) -> dict:
    """The shot JSON (docs/formats.md, "Shot JSON")."""
    return {
        "board": world.board.name, "design": world.design.name,
        "layout": world.layout.to_dict()["stacks"],
        "aim": shot_aim.to_dict(), "seed": seed, "noise": noise,
        **result.to_dict(),
    }


def describe(shot_aim: Aim, result: ShotResult) -> str:
    """A few lines for people: who was knocked out, and why."""
    lines = []
    if shot_aim.target:
        lines.append(f"Aimed at {shot_aim.target} ({shot_aim.arc} arc): yaw "
                     f"{shot_aim.yaw_deg:.2f} deg, pitch {shot_aim.pitch_deg:.2f} deg")
    lines.append(f"Fired at yaw {result.yaw_deg:.2f} deg, pitch {result.pitch_deg:.2f} deg, "
                 f"{result.speed_mm_s:.0f} mm/s")
    path = " -> ".join(result.contacts) if result.contacts else "nothing"
    lines.append(f"The bale struck: {path}")
    knocked = ", ".join(result.knocked) or "nobody"
    lines.append(f"Knocked out: {knocked}")
    for piggy in sorted(result.piggies):
        p = result.piggies[piggy]
        mark = "OUT" if p.knocked else "stays"
        lines.append(f"  {mark:5s} {piggy:8s} on {p.space:6s} moved {p.moved_mm:5.1f} mm: "
                     f"{p.reason}")
    if not result.settled:
        lines.append(f"(stopped at the {result.sim_time_s:.1f} s cap before everything "
                     "was at rest)")
    return "\n".join(lines)


def shot_figure(world: World, result: ShotResult, title: str = ""):
    """The picture of a shot just fired in ``world`` (see :mod:`sim.shot_picture`)."""
    from sim.shot_picture import shot_figure as draw

    return draw(world, result, title)
