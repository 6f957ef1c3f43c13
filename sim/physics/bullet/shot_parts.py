"""The small parts of a shot, one job each: the bale's air drag, the log of its
strikes, the recorder of poses, the bale's leaving play, and the rest detector;
and the limits the step loop keeps to.

The engine (:class:`sim.physics.bullet.world.BulletWorld`) makes a new set for each shot and
calls them in its step loop; each reads the scene's Bullet (the engine-neutral
parts they feed, the strike log, the rest clock and the recorder, are in
:mod:`sim.physics.shot_log`) and keeps its own state, so that each can be tested
on its own. Lengths inside are cm, as in :mod:`sim.physics.bullet.scene`; what
they hand out is mm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from models.design import Design
from sim.physics.ballistics import GRAVITY_MM_S2, drag_constant_per_mm
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.scene import REST_CHECK_EVERY, Scene
from sim.physics.shot_log import Recorder, RestClock, StrikeLog

#: Speed a falling bale can add to its muzzle speed over the board (a 300 mm drop), mm/s.
_FALL_SPEED_MM_S = math.sqrt(2 * GRAVITY_MM_S2 * 300.0)
#: A woken piggy at rest this long goes back to its stand-in (two checks for rest), s.
_FREEZE_AFTER_S = 0.02


@dataclass(frozen=True)
class ShotLimits:
    """What a shot's step loop needs that stays the same while it runs."""

    reach_cm: float  # a stand-in this near a moving body is woken (two steps' travel)
    freeze_steps: int  # a woken piggy at rest this many steps goes back to its stand-in
    max_steps: int  # the time cap
    ground_friction: float  # the least a piggy slides with, on the board or the table
    bale_friction: float  # the bale's on the ground (its own times the ground's)
    bale_gyration_sq_mm2: float  # the bale's largest radius of gyration, squared

    @classmethod
    def of(
        cls, scene: Scene, design: Design, velocity_mm_s: Sequence[float] | np.ndarray
    ) -> ShotLimits:
        """The limits of a shot released at ``velocity_mm_s`` (3,), mm/s, in the
        scene's present materials (the bale made for the shot)."""
        launcher, dt = design.launcher, scene.dt
        fastest_mm_s = max(
            float(np.linalg.norm(velocity_mm_s)),
            launcher.muzzle_speed_mm_s + 4 * launcher.speed_sd_mm_s,
        )
        # the least friction a piggy can slide with, on the board or the table
        ground_friction = min(scene.call(pb.getDynamicsInfo, g, -1)[1] for g in scene.ground)
        mass, bale_friction, inertia = scene.call(pb.getDynamicsInfo, scene.bale, -1)[:3]
        return cls(
            # two steps' travel at the fastest: a stand-in this near is woken
            reach_cm=2 * (fastest_mm_s + _FALL_SPEED_MM_S) * dt * CM_PER_MM,
            freeze_steps=max(1, round(_FREEZE_AFTER_S / dt)),
            max_steps=round(design.physics.max_time_s / dt),
            ground_friction=ground_friction,
            bale_friction=bale_friction * ground_friction,
            bale_gyration_sq_mm2=max(inertia) / mass / CM_PER_MM**2,
        )


class Drag:
    """The bale's quadratic air drag, F = -k m |v| v, applied at its centre in the
    world frame before each step (docs/physics.md, "Air drag")."""

    def __init__(self, scene: Scene, design: Design):
        self._client = scene.client
        self._k_per_cm = drag_constant_per_mm(design) / CM_PER_MM
        self._mass_g = design.bale.mass_g

    @property
    def active(self) -> bool:
        """Whether the design has drag at all."""
        return bool(self._k_per_cm)

    def push(self, bale: int) -> None:
        """Apply the drag of the bale's velocity now, for the next step."""
        client = self._client
        v, _ = pb.getBaseVelocity(bale, physicsClientId=client)
        centre, _ = pb.getBasePositionAndOrientation(bale, physicsClientId=client)
        speed = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        f = -self._k_per_cm * self._mass_g * speed
        pb.applyExternalForce(
            bale, -1, [f * v[0], f * v[1], f * v[2]], centre, pb.WORLD_FRAME, physicsClientId=client
        )


class ContactLog(StrikeLog):
    """The bale's strikes in a Bullet scene (:class:`StrikeLog`).

    A strike is a contact that pushed: Bullet also reports points a little apart
    (speculative contacts), which have no normal force."""

    def __init__(self, scene: Scene):
        super().__init__(StrikeLog.gap_steps(scene.dt))
        self._scene = scene

    def read(self, bale: int, step: int) -> None:
        """Log the strikes of the step just taken (``step`` counts from 1)."""
        scene = self._scene
        for c in pb.getContactPoints(bodyA=bale, physicsClientId=scene.client):
            if c[9] > 0.0:
                other = c[2]
                self.touch(
                    other,
                    scene.names[other],
                    step,
                    partial(_in_mm, c[6]),
                    lambda: list(scene.position_mm(bale)),
                )


def _in_mm(point_cm) -> list[float]:
    return [x / CM_PER_MM for x in point_cm]


def recorder(scene: Scene, every: int) -> Recorder:
    """The engine-neutral recorder on a Bullet scene: the bale's and the piggies'
    poses (cm, followed by name, whichever body stands for each piggy)."""
    names = list(scene.piggy_bodies)

    def poses() -> list[tuple[Sequence[float], Sequence[float]]]:
        bodies = [scene.bale, *(scene.piggy_bodies[n] for n in names)]
        return [pb.getBasePositionAndOrientation(b, physicsClientId=scene.client) for b in bodies]

    return Recorder(every, scene.dt, names, poses, CM_PER_MM)


class OutOfPlay:
    """Whether the bale has left play: beside the board's surface and below its top.
    Then it is parked (it can touch nothing more) and where it left is kept."""

    def __init__(self, scene: Scene):
        self._scene = scene
        x0, x1, y0, y1 = scene.board.surface_extent_mm
        self.surface_cm = (x0 * CM_PER_MM, x1 * CM_PER_MM, y0 * CM_PER_MM, y1 * CM_PER_MM)
        self.left_at_mm: np.ndarray | None = None

    def check(self, bale: int) -> tuple[bool, tuple[float, float, float]]:
        """(still in play, the bale's centre now in cm); parks it when it has left."""
        pos, _ = pb.getBasePositionAndOrientation(bale, physicsClientId=self._scene.client)
        x0, x1, y0, y1 = self.surface_cm
        off = not (x0 <= pos[0] <= x1 and y0 <= pos[1] <= y1)
        if off and pos[2] < 0:  # below the board top, beside it: out of play
            self.left_at_mm = np.array(pos) / CM_PER_MM
            self._scene.park(bale, 0)
            return False, pos
        return True, pos

    def rest_mm(self, bale: int) -> np.ndarray:
        """Where the bale is now, or where it left play; (3,), mm."""
        return self._scene.position_mm(bale) if self.left_at_mm is None else self.left_at_mm


class RestDetector:
    """Which moving bodies are still restless, and when everything has been at rest
    long enough to end the shot (the design's rest speed, spin and time)."""

    def __init__(self, scene: Scene, design: Design):
        physics = design.physics
        self._scene = scene
        self._speed_cm_s = physics.rest_speed_mm_s * CM_PER_MM
        self._spin_rad_s = math.radians(physics.rest_spin_deg_s)
        self.clock = RestClock(design, scene.dt, REST_CHECK_EVERY)

    def restless(self, bodies: list[int]) -> set[int]:
        """Those of these bodies that move or spin faster than at rest."""
        at_rest = self._scene.at_rest
        return {b for b in bodies if not at_rest(b, self._speed_cm_s, self._spin_rad_s)}

    def settled(self, restless: set[int]) -> bool:
        """Count one check (every ``REST_CHECK_EVERY`` steps) with these restless;
        whether everything has now been at rest for the design's rest time."""
        return self.clock.settled(bool(restless))
