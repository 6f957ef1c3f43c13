"""The Bullet engine's early verdict (docs/physics.md, "The early verdict"): which
moving piggies are sealed, and whether the bale can strike anything more.

The rules themselves, with no physics, are :mod:`sim.physics.early_verdict`, shared
with the MuJoCo engine (whose checks are in :mod:`sim.physics.mujoco.world`); they
stay apart from this module so that neither they nor MuJoCo import PyBullet. This
part of the engine (:class:`sim.physics.bullet.world.BulletWorld`) reads the bodies' states from
the scene's Bullet and asks it what lies near. Lengths inside are cm, as in
:mod:`sim.physics.bullet.scene`.
"""

from __future__ import annotations

from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.scene import Scene
from sim.physics.early_verdict import (
    LayoutBounds,
    Motion,
    sealed_touch_radius_mm,
    touch_radius_mm,
)

#: A point or vector (x, y, z), cm.
Vector = tuple[float, float, float] | list[float]


class EarlyVerdict:
    """The early verdict's checks on a scene's bodies as Bullet has them now.

    Make one for each layout (it keeps each piggy's space's centre, mm, and how far
    from it a piggy is surely out)."""

    def __init__(self, scene: Scene):
        self.scene = scene
        self._ground = scene.ground
        bounds = LayoutBounds.of(scene)
        self._shape, self._bale_outline = bounds.shape, bounds.bale_outline
        self._beyond_mm, self._space_centres = bounds.beyond_mm, bounds.centres

    def _nothing_near(self, body: int, position_cm, reach_cm: float) -> bool:
        """Nothing but the body itself, the board and the table within ``reach_cm`` of
        ``position_cm`` (by bounding boxes: a generous test)."""
        near = self.scene.call(
            pb.getOverlappingObjects,
            [c - reach_cm for c in position_cm],
            [c + reach_cm for c in position_cm],
        )
        return not {other for other, _ in near or ()} - {body, *self._ground}

    def sealed(self, bodies: set[int], ground_friction: float) -> set[int]:
        """Those of these moving piggies whose knock-out can no longer be undone: on the
        board or the table, past their outline and moving away, nothing near
        (:mod:`sim.physics.early_verdict`). Their friction, mass and inertia are read
        from Bullet, so they are the ones this shot runs with."""
        sealed = set()
        for body in sorted(bodies):
            piggy = self.scene.names[body]
            position, _ = self.scene.call(pb.getBasePositionAndOrientation, body)
            velocity, spin = self.scene.call(pb.getBaseVelocity, body)
            centre = self._space_centres[piggy]
            if not any(
                abs(p / CM_PER_MM - c) >= self._beyond_mm
                for p, c in zip(position, centre, strict=False)
            ):
                continue  # the cheap part first: not even past the line
            mass, friction, inertia = self.scene.call(pb.getDynamicsInfo, body, -1)[:3]
            motion = Motion(
                tuple(p / CM_PER_MM for p in position),
                tuple(v / CM_PER_MM for v in velocity),
                tuple(spin),
                max(inertia) / mass / CM_PER_MM**2,
            )
            reach = sealed_touch_radius_mm(
                motion, centre, self._shape, friction * ground_friction, self._beyond_mm
            )
            if reach is None or not any(
                self.scene.call(pb.getContactPoints, bodyA=body, bodyB=g) for g in self._ground
            ):
                continue
            if self._nothing_near(body, position, reach * CM_PER_MM):
                sealed.add(body)
        return sealed

    def bale_spent(
        self, bale: int, position, friction: float, gyration_sq_mm2: float, surface_cm
    ) -> bool:
        """The bale's early verdict: it lies on the board, and nothing but the board,
        not even the board's edge, is within its reach (``early_verdict.touch_radius_mm``),
        so it can strike nothing more. ``position`` is its centre now, cm; ``friction``
        the product of its and the ground's coefficients."""
        if position[2] > self._bale_outline.outer_radius_mm * CM_PER_MM:
            return False  # in the air: touching nothing
        velocity, spin = self.scene.call(pb.getBaseVelocity, bale)
        motion = Motion(
            tuple(p / CM_PER_MM for p in position),
            tuple(v / CM_PER_MM for v in velocity),
            tuple(spin),
            gyration_sq_mm2,
        )
        reach = touch_radius_mm(motion, self._bale_outline, friction) * CM_PER_MM
        x, y, _ = position
        if not (
            surface_cm[0] + reach <= x <= surface_cm[1] - reach
            and surface_cm[2] + reach <= y <= surface_cm[3] - reach
        ):
            return False
        if not self.scene.call(pb.getContactPoints, bodyA=bale, bodyB=self.scene.board_body):
            return False
        # the table lies under the board everywhere: beyond the edges checked above
        return self._nothing_near(bale, position, reach)
