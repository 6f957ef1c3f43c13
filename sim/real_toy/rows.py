"""Each shot's flight against its angles row: a flight that left the barrel at
another pitch or yaw than its row says is refused by name, never measured.

The row's pitch and yaw set where the first touch is looked for and the lowest
corner's offset, so a wrong row (rows out of order, a pitch written wrong) still
gives a touch and a speed, both wrong (launch speeds 20 % off, marked good). The
fitted flight says which way it left: its pitch and yaw at the barrel
(sim/real_toy/speed.py, ``launch_angles``). Only flights trusted for a speed are
asked (enough frames, a close fit): a short low flight leaves its direction loose.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from models.design import Design
from models.errors import InputError
from sim.real_toy.angles import Angles

#: A flight disagrees with its row when its pitch or yaw is off by more than this
#: many standard deviations (the design's aim spread, at least MIN_SPREAD_DEG, and
#: the fit's own error together) plus SLACK_DEG. The slack is wide: a flight
#: tracked past the tractor from a low place to the side was fitted 7 deg off in
#: pitch and yaw with a close fit, and a right file must not be refused; rows out
#: of order or a pitch written wrong are off by 10 deg or more (the calibration
#: shots' pitches lie 5 to 56 deg apart; a pitch within a few degrees of the set
#: one is not caught).
DISAGREE_SDS = 3.0
MIN_SPREAD_DEG = 1.0
SLACK_DEG = 8.0


class Flown(Protocol):
    """A measured shot as this check reads it (sim/real_toy/measure.py's ShotMeasure)."""

    @property
    def number(self) -> int: ...
    @property
    def pitch_deg(self) -> float: ...
    @property
    def yaw_deg(self) -> float: ...
    @property
    def quality(self) -> str: ...
    @property
    def flown_deg(self) -> tuple[float, float]: ...
    @property
    def flown_se_deg(self) -> tuple[float, float]: ...


def allowed_deg(spread_deg: float, se_deg: float) -> float:
    """How far a flight's fitted angle may lie from its row's."""
    return DISAGREE_SDS * math.hypot(max(spread_deg, MIN_SPREAD_DEG), se_deg) + SLACK_DEG


def check_rows(shots: Sequence[Flown], angles: Angles, design: Design) -> None:
    """Refuse, on one line naming the shot with both pitches and yaws, the shot
    whose trusted flight disagrees most with its angles row."""
    launcher = design.launcher
    worst, worst_ratio = None, 1.0
    for shot in shots:
        if shot.quality != "good" or not all(map(math.isfinite, shot.flown_deg)):
            continue
        (pitch, yaw), (pitch_se, yaw_se) = shot.flown_deg, shot.flown_se_deg
        ratio = max(
            abs(pitch - shot.pitch_deg) / allowed_deg(launcher.pitch_sd_deg, pitch_se),
            abs(_turn(yaw - shot.yaw_deg)) / allowed_deg(launcher.yaw_sd_deg, yaw_se),
        )
        if ratio > worst_ratio:
            worst, worst_ratio = shot, ratio
    if worst is None:
        return
    pitch, yaw = worst.flown_deg
    raise InputError(
        f"shot {worst.number}: its flight leaves the barrel at about pitch {pitch:.0f}, yaw "
        f"{yaw:.0f} deg but --angles {angles.source} row {worst.number + 1} says pitch "
        f"{worst.pitch_deg:g}, yaw {worst.yaw_deg:g}: rows out of order or a wrong angle "
        "(one row per shot fired, in order)"
    )


def _turn(degrees: float) -> float:
    """An angle difference brought to -180..180."""
    return (degrees + 180.0) % 360.0 - 180.0
