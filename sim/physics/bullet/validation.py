"""Validation of the simulated flight against closed-form ballistics.

On an open board (no fences, no piggies, long enough that every shot lands on
it) the bale is fired straight ahead at pitches across the design's range. The
horizontal distance of its centre at the first strike on the board is compared
with the no-drag projectile range to the height at which its lowest point
touches the board.

The bound. PyBullet integrates with semi-implicit Euler (v += g dt, then
x += v dt), whose path lies below the exact parabola by g t dt / 2 at time t;
coming down at vertical speed |vz| that lands it earlier by that drop / |vz|, a
horizontal distance vx g t dt / (2 |vz|). And Bullet finds contacts at the start
of a step, from the positions the previous step left: a bale that meets the
board during step k is pushed back, and registered as a strike, in step k + 1,
and its centre is read at the end of that step: up to two steps late, 2 vx dt.
So

    |simulated - closed form| <= vx (2 dt + g t dt / (2 |vz|))

and a row passes when its error is within 1 % of the range or within this bound.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from models.board import Board
from models.design import Design
from sim.physics.ballistics import GRAVITY_MM_S2, closed_form_landing
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot


@dataclass(frozen=True)
class RangeRow:
    """One pitch of the range table; distances in mm."""

    pitch_deg: float
    closed_form_mm: float
    simulated_mm: float
    error_mm: float
    bound_mm: float

    @property
    def relative_error(self) -> float:
        return self.error_mm / self.closed_form_mm

    @property
    def passes(self) -> bool:
        return abs(self.error_mm) <= max(0.01 * self.closed_form_mm, self.bound_mm)


def open_board(board: Board, length_mm: float = 2000.0) -> Board:
    """The board without fences, its trough end stretched so every shot lands on it."""
    return dataclasses.replace(board, fences=frozenset(), trough_mm=length_mm)


def lowest_point_height_mm(design: Design, pitch_deg: float) -> float:
    """Height of the bale's centre when its lowest point touches the board, fired
    (and flying, without spin) at ``pitch_deg``: a rounded box tilted about x."""
    bale = design.bale
    r = bale.corner_radius_mm
    half_length, half_height = bale.length_mm / 2 - r, bale.height_mm / 2 - r
    theta = math.radians(pitch_deg)
    return half_length * abs(math.sin(theta)) + half_height * math.cos(theta) + r


def range_table(board: Board, design: Design, pitches_deg) -> list[RangeRow]:
    """Fire at each pitch on the open board and compare with the closed form."""
    rows = []
    dt = 1.0 / design.physics.steps_per_s
    speed = design.launcher.muzzle_speed_mm_s
    with BulletWorld(open_board(board), design) as world:
        for pitch in pitches_deg:
            height = lowest_point_height_mm(design, pitch)
            expected, t = closed_form_landing(design, pitch, height)
            result = world.shoot(AimedShot(0.0, float(pitch), noise=False))
            if result.first_contact_with != "board" or result.first_contact_centre_mm is None:
                raise RuntimeError(f"pitch {pitch}: first struck {result.first_contact_with}")
            simulated = float(result.first_contact_centre_mm[1])
            theta = math.radians(pitch)
            vx = speed * math.cos(theta)
            vz = abs(speed * math.sin(theta) - GRAVITY_MM_S2 * t)
            bound = vx * (2 * dt + GRAVITY_MM_S2 * t * dt / (2 * vz))
            rows.append(RangeRow(float(pitch), expected, simulated, simulated - expected, bound))
    return rows


def default_pitches(design: Design, count: int = 12) -> np.ndarray:
    """Pitches spread over the design's range, degrees."""
    return np.linspace(design.launcher.pitch_min_deg, design.launcher.pitch_max_deg, count)


def format_table(rows: list[RangeRow]) -> str:
    lines = [
        f"{'pitch':>7} {'closed form':>12} {'simulated':>10} {'error':>8} {'error':>7} "
        f"{'bound':>7}  ok",
        f"{'deg':>7} {'mm':>12} {'mm':>10} {'mm':>8} {'%':>7} {'mm':>7}",
    ]
    for r in rows:
        lines.append(
            f"{r.pitch_deg:7.1f} {r.closed_form_mm:12.2f} {r.simulated_mm:10.2f} "
            f"{r.error_mm:8.2f} {100 * r.relative_error:7.2f} {r.bound_mm:7.2f}  "
            f"{'yes' if r.passes else 'NO'}"
        )
    return "\n".join(lines)
