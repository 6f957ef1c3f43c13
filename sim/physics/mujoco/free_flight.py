"""The bale's free flight on a MuJoCo scene: how many steps it surely touches
nothing, so that they run in one call to MuJoCo."""

from __future__ import annotations

import numpy as np

from sim.physics.mujoco.scene import MujocoScene


class FreeFlight:
    """How many steps the bale can fly from here touching nothing, so that they run
    in one call to MuJoCo: the same steps, without Python between them. The bale's
    bounding sphere against every other geom's box (board frame, taken at the
    shot's start: with no piggy touched yet, nothing else moves but by trembling),
    its travel bounded by its speed and gravity's gain."""

    #: Kept between the bale and anything, on top of the bound, m (a resting
    #: piggy's trembling is far less).
    MARGIN_M = 0.002

    def __init__(self, scene: MujocoScene):
        m, data = scene.mj_model, scene.data
        self.scene = scene
        others = np.array([g for g in range(m.ngeom) if m.geom_bodyid[g] != scene.bale])
        rotation = data.geom_xmat[others].reshape(-1, 3, 3)
        aabb = m.geom_aabb[others]  # centre and half sizes, in each geom's frame
        self._centres = data.geom_xpos[others] + np.einsum("gij,gj->gi", rotation, aabb[:, :3])
        self._halves = np.einsum("gij,gj->gi", np.abs(rotation), aabb[:, 3:])
        bale_geoms = sorted(scene.bale_geoms)
        self._bale_radius = float(
            max(
                np.linalg.norm(data.geom_xpos[g] - data.xpos[scene.bale]) + m.geom_rbound[g]
                for g in bale_geoms
            )
        )
        self._gravity = float(np.linalg.norm(m.opt.gravity))

    def free_steps(self, limit: int) -> int:
        """Steps (1 to ``limit``) the bale surely flies touching nothing."""
        if limit <= 1:
            return 1
        scene = self.scene
        data, dt = scene.data, scene.dt
        centre = data.xpos[scene.bale]
        outside = np.maximum(np.abs(centre - self._centres) - self._halves, 0.0)
        gap = float(np.sqrt(np.min(np.einsum("gi,gi->g", outside, outside))))
        gap -= self._bale_radius + self.MARGIN_M
        speed = scene.speed_m_s(scene.bale)
        steps = limit
        while steps > 1 and steps * dt * (speed + self._gravity * steps * dt) >= gap:
            steps -= 1
        return steps
