"""The early verdict's checks (:mod:`sim.physics.early_verdict`) on a MuJoCo scene:
which woken piggies are sealed, and whether the bale is spent."""

from __future__ import annotations

import numpy as np

from sim.physics.early_verdict import (
    LayoutBounds,
    Motion,
    sealed_touch_radius_mm,
    touch_radius_mm,
)
from sim.physics.mujoco.scene import MujocoScene


class EarlyVerdict:
    """The early verdict's checks (:mod:`sim.physics.early_verdict`) on a MuJoCo
    scene: which woken piggies are sealed, and whether the bale is spent."""

    def __init__(self, scene: MujocoScene, bounds: LayoutBounds | None = None):
        self.scene = scene
        m = scene.mj_model
        #: the layout's bounds (``bounds``, or made from the scene: a mesh's hull)
        self.bounds = bounds = bounds or LayoutBounds.of(scene)
        self._shape, self._bale_outline = bounds.shape, bounds.bale_outline
        self._beyond_mm, self._centres = bounds.beyond_mm, bounds.centres
        self._ground = {g for g in range(m.ngeom) if scene.geom_names[g] in ("board", "table")}
        self._board = {g for g in range(m.ngeom) if scene.geom_names[g] == "board"}
        self._others_of: dict[int, np.ndarray] = {}
        piggy_mass = scene.design.piggy.mass_g
        inertia = (
            m.body_inertia[next(iter(scene.piggy_bodies.values()))]
            if scene.piggy_bodies
            else np.ones(3)
        )
        self._piggy_gyration = (
            float(max(inertia) / (piggy_mass * 1e-3)) * 1e6 if scene.piggy_bodies else 0.0
        )
        bale_inertia = m.body_inertia[scene.bale]
        self._bale_gyration = float(max(bale_inertia) / (scene.design.bale.mass_g * 1e-3)) * 1e6

    def _touching(self, body: int, geoms: set[int]) -> bool:
        m, data = self.scene.mj_model, self.scene.data
        for i in range(data.ncon):
            c = data.contact[i]
            if (m.geom_bodyid[c.geom1] == body and c.geom2 in geoms) or (
                m.geom_bodyid[c.geom2] == body and c.geom1 in geoms
            ):
                return True
        return False

    def _nothing_near(self, body: int, radius_mm: float) -> bool:
        """Nothing but the body itself, the board and the table within ``radius_mm`` of
        its centre (bounding spheres: a generous test)."""
        m, data = self.scene.mj_model, self.scene.data
        others = self._others(body)
        apart = np.linalg.norm(data.geom_xpos[others] - data.xpos[body], axis=1)
        return bool(np.all(apart - m.geom_rbound[others] >= radius_mm * 1e-3))

    def _others(self, body: int) -> np.ndarray:
        """The geoms other than the body's own, the board's and the table's."""
        if body not in self._others_of:
            m = self.scene.mj_model
            self._others_of[body] = np.array(
                [g for g in range(m.ngeom) if m.geom_bodyid[g] != body and g not in self._ground],
                dtype=int,
            )
        return self._others_of[body]

    def sealed(self, piggies: set[str], friction: float) -> set[str]:
        """Those of these moving piggies whose knock-out can no longer be undone."""
        scene = self.scene
        out = set()
        for piggy in sorted(piggies):
            body = scene.piggy_bodies[piggy]
            position = scene.position_mm(body)
            centre = self._centres[piggy]
            if not any(
                abs(p - c) >= self._beyond_mm for p, c in zip(position, centre, strict=False)
            ):
                continue
            velocity, spin = scene.velocity(body)
            motion = Motion(tuple(position), tuple(velocity), tuple(spin), self._piggy_gyration)
            reach = sealed_touch_radius_mm(motion, centre, self._shape, friction, self._beyond_mm)
            if reach is None or not self._touching(body, self._ground):
                continue
            if self._nothing_near(body, reach):
                out.add(piggy)
        return out

    def bale_spent(self, friction: float) -> bool:
        """The bale lies on the board and nothing but the board, not even its edge, is
        within its reach: it can strike nothing more."""
        scene = self.scene
        bale = scene.bale
        position = scene.position_mm(bale)
        if position[2] > self._bale_outline.outer_radius_mm:
            return False
        velocity, spin = scene.velocity(bale)
        motion = Motion(tuple(position), tuple(velocity), tuple(spin), self._bale_gyration)
        reach = touch_radius_mm(motion, self._bale_outline, friction)
        x0, x1, y0, y1 = scene.board.surface_extent_mm
        x, y, _ = position
        if not (x0 + reach <= x <= x1 - reach and y0 + reach <= y <= y1 - reach):
            return False
        if not self._touching(bale, self._board):
            return False
        return self._nothing_near(bale, reach)
