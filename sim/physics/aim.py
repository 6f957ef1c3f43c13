"""The aim solver: the yaw and pitch that put the bale's centre through a point.

For a target the solver returns the low and the high arc where both exist within
the design's pitch range, or raises :class:`OutOfReach` with the distances the
launcher can reach at that height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.board import Board, space_name
from models.design import Design
from models.errors import InputError
from sim.physics.ballistics import (
    closed_form_landing,
    drag_constant_per_mm,
    height_at_distance,
    release_radius_mm,
)

#: Pitch grid for bracketing the solutions, degrees.
_SCAN_STEP_DEG = 0.25
#: Bisection stops when the pitch bracket is this narrow, degrees.
_PITCH_TOLERANCE_DEG = 1e-6


@dataclass(frozen=True)
class AimSolution:
    """One way to hit a point: ``arc`` is ``low`` or ``high``."""

    arc: str
    yaw_deg: float
    pitch_deg: float
    distance_mm: float  # horizontal, pivot to target

    def to_dict(self) -> dict:
        return {
            "arc": self.arc,
            "yaw_deg": round(self.yaw_deg, 4),
            "pitch_deg": round(self.pitch_deg, 4),
            "distance_mm": round(self.distance_mm, 2),
        }


class OutOfReach(InputError):
    """No pitch within the design's range reaches the target."""

    def __init__(
        self, target: str, distance_mm: float, reach_mm: tuple[float, float], design: Design
    ):
        self.distance_mm, self.reach_mm = distance_mm, reach_mm
        lo, hi = reach_mm
        reaches = (
            f"reaches {lo:.0f}-{hi:.0f} mm at that height"
            if math.isfinite(lo)
            else "never comes down to that height"
        )
        super().__init__(
            f"{target} is out of reach: {distance_mm:.0f} mm from the tractor, and design "
            f"'{design.name}' {reaches} (pitch {design.launcher.pitch_min_deg:g} to "
            f"{design.launcher.pitch_max_deg:g} deg)"
        )


def yaw_to(point_mm) -> float:
    """The yaw (degrees, in (-180, 180]) that turns the barrel toward a board point."""
    return math.degrees(math.atan2(-point_mm[0], point_mm[1]))


def solve(design: Design, target_mm, target_name: str = "the target") -> list[AimSolution]:
    """Every arc through ``target_mm`` (x, y, z in mm, board frame), low arc first.

    Raises :class:`OutOfReach` when there is none within the pitch range.
    """
    target = np.asarray(target_mm, float)
    distance = float(math.hypot(target[0], target[1]))
    lo, hi = design.launcher.pitch_min_deg, design.launcher.pitch_max_deg

    def miss(pitch: float) -> float:
        return height_at_distance(design, pitch, distance) - target[2]

    pitches = np.append(np.arange(lo, hi, _SCAN_STEP_DEG), hi)
    values = [miss(p) for p in pitches]
    # Rising through the target with more pitch: the low arc; falling: the high arc.
    solutions = []
    for a, b, fa, fb in zip(pitches[:-1], pitches[1:], values[:-1], values[1:], strict=True):
        if np.isfinite(fa) and np.isfinite(fb) and (fa < 0 <= fb or fb < 0 <= fa):
            arc = "low" if fa < fb else "high"
            solutions.append(
                AimSolution(arc, yaw_to(target), _bisect(miss, float(a), float(b), fa), distance)
            )
    if not solutions:
        raise OutOfReach(target_name, distance, reach_mm(design, target[2]), design)
    return solutions


def _bisect(f, a: float, b: float, fa: float) -> float:
    while b - a > _PITCH_TOLERANCE_DEG:
        m = (a + b) / 2
        fm = f(m)
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return (a + b) / 2


def reach_mm(design: Design, height_mm: float) -> tuple[float, float]:
    """The nearest and farthest horizontal distances (mm) at which the bale's centre
    comes down through ``height_mm``, over the design's pitch range."""
    lo, hi = design.launcher.pitch_min_deg, design.launcher.pitch_max_deg
    pitches = np.linspace(lo, hi, 161)
    if drag_constant_per_mm(design) == 0:
        distances = [closed_form_landing(design, p, height_mm)[0] for p in pitches]
    else:
        distances = [_landing_with_drag(design, p, height_mm) for p in pitches]
    distances = [d for d in distances if np.isfinite(d)]
    if not distances:
        return (math.nan, math.nan)
    return (min(distances), max(distances))


def _landing_with_drag(design: Design, pitch: float, height_mm: float) -> float:
    """Farthest distance (mm) where the dragged flight is still above ``height_mm``."""
    near = release_radius_mm(design) * math.cos(math.radians(pitch))  # the muzzle
    far = 5000.0
    if height_at_distance(design, pitch, near) < height_mm:
        return math.nan
    for _ in range(40):
        mid = (near + far) / 2
        if height_at_distance(design, pitch, mid) >= height_mm:
            near = mid
        else:
            far = mid
    return near


def board_reach(design: Design, board: Board) -> tuple[float, float, dict]:
    """The design's landing distances on open ground (:func:`reach_mm`, the bale's
    centre at half its height; infinite where it never comes down), and which of
    ``board``'s spaces' centres lie within them, with the distances clipped to the
    board's spaces (mm): what ``piggy design check`` reports."""
    near_mm, far_mm = reach_mm(design, design.bale.height_mm / 2)
    if not math.isfinite(near_mm):
        return (
            near_mm,
            far_mm,
            {
                "board": board.name,
                "reach_on_board_mm": None,
                "reach_reason": "the bale never comes down to the board within the pitch range",
            },
        )
    distance = {space_name(s): math.hypot(*board.space_center_mm(s)) for s in board.spaces}
    span = (min(distance.values()), max(distance.values()))
    return (
        near_mm,
        far_mm,
        {
            "board": board.name,
            "board_span_mm": [round(v, 1) for v in span],
            "reach_on_board_mm": [round(max(near_mm, span[0]), 1), round(min(far_mm, span[1]), 1)],
            "spaces": len(distance),
            "spaces_in_reach": [n for n, d in distance.items() if near_mm <= d <= far_mm],
            "too_close": [n for n, d in distance.items() if d < near_mm],
            "too_far": [n for n, d in distance.items() if d > far_mm],
        },
    )
