"""How a shot leaves the tractor, the same for every engine: the aim, speed and
materials it was fired with (noise drawn) and the bale's release point, velocity
and orientation. No engine here: each engine turns a :class:`Launch` into a
shot (sim/physics/bullet/, sim/physics/mujoco/, and MuJoCo Warp's batch).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from models.aimer import PERFECT, Aimer
from models.design import Design
from sim.physics.ballistics import direction, release_point_mm
from sim.physics.materials import Materials
from sim.physics.noise import Deviates, fired_with

#: The bale's orientation (x, y, z, w) for a tractor turned by yaw and tilted by
#: pitch (degrees): each engine's own (Bullet's Euler quaternion rounds otherwise
#: than :func:`euler_turn`, and a Bullet shot's bytes are kept).
Turn = Callable[[float, float], list[float]]


@dataclass(frozen=True)
class Launch:
    """How a shot leaves the tractor, noise drawn: the tractor's yaw and pitch
    (degrees), the muzzle speed (mm/s), the materials' factors, and the bale's
    release point (mm), velocity (mm/s) and orientation (x, y, z, w)."""

    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float
    materials: Materials
    release_mm: list[float]
    velocity_mm_s: np.ndarray
    orientation: list[float]


@dataclass(frozen=True)
class AimedShot:
    """A shot asked of an engine, before its noise is drawn: the one request every
    engine fires (:meth:`sim.physics.engine.FiringEngine.shoot`, ``fire``).

    ``yaw_deg``, ``pitch_deg``: the tractor's setting, degrees (pitch within the
    design's range). ``seed`` seeds the shot's noise: the launcher's spread (speed,
    turret and tilt play), then the aimer's error, then the ``vary`` factors, drawn in
    that order so that adding an aimer or ``vary`` leaves the earlier draws as they
    were (sim/physics/noise.py); ``deviates`` gives those errors as standard deviates
    instead (a sampler's point). ``aimer``: the person aiming (models/aimer.py; the
    default aims perfectly). ``vary``: relative half-ranges of the guessed physical
    parameters (sim/physics/materials.py), one factor each drawn per shot.
    ``noise=False`` fires exactly as set, at the mean speed, nominal materials."""

    yaw_deg: float
    pitch_deg: float
    seed: int | None = 0
    deviates: Deviates | None = None
    aimer: Aimer = PERFECT
    vary: dict[str, float] | None = None
    noise: bool = True


def euler_turn(yaw_deg: float, pitch_deg: float) -> list[float]:
    """(x, y, z, w) of a turn about x by ``pitch_deg``, then about z by ``yaw_deg``
    (the order of Bullet's Euler angles [pitch, 0, yaw])."""
    half_x, half_z = math.radians(pitch_deg) / 2, math.radians(yaw_deg) / 2
    cx, sx, cz, sz = math.cos(half_x), math.sin(half_x), math.cos(half_z), math.sin(half_z)
    return [cz * sx, sz * sx, sz * cx, cz * cx]


def launch_state(design: Design, shot: AimedShot, turn: Turn = euler_turn) -> Launch:
    """The launch of ``shot`` from the tractor, its errors drawn from its seed (or
    given as its deviates: sim/physics/noise.py), the bale turned by ``turn``."""
    yaw_deg, pitch_deg, speed, materials = fired_with(
        design.launcher,
        shot.yaw_deg,
        shot.pitch_deg,
        seed=shot.seed,
        noise=shot.noise,
        aimer=shot.aimer,
        vary=shot.vary,
        deviates=shot.deviates,
    )
    return Launch(
        yaw_deg,
        pitch_deg,
        speed,
        materials,
        [float(v) for v in release_point_mm(design, yaw_deg, pitch_deg)],
        speed * direction(yaw_deg, pitch_deg),
        turn(yaw_deg, pitch_deg),
    )


def launch_from(
    position_mm: Sequence[float] | np.ndarray,
    velocity_mm_s: Sequence[float] | np.ndarray,
    orientation: Sequence[float],
    materials: Materials,
) -> Launch:
    """A bale released anywhere with any velocity (mm, mm/s): its aim is the
    velocity's heading (yaw 0 along +y, positive toward -x) and its climb."""
    vx, vy, vz = (float(v) for v in velocity_mm_s)
    return Launch(
        math.degrees(math.atan2(-vx, vy)),
        math.degrees(math.atan2(vz, math.hypot(vx, vy))),
        float(np.linalg.norm(velocity_mm_s)),
        materials,
        [float(v) for v in position_mm],
        np.asarray(velocity_mm_s, dtype=float),
        list(orientation),
    )
