"""The MuJoCo scene: the toy as a MuJoCo model (written by
:mod:`sim.physics.mujoco.mjcf`) and its bodies by name: poses, velocities, contacts,
parking. The shot engine on it is :mod:`sim.physics.mujoco.world`. SI inside (m,
kg, s); every interface speaks mm, g, s and degrees.
"""

from __future__ import annotations

import math

import numpy as np

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.geometry import BodyPose, PiggyModel
from sim.physics.materials import NOMINAL, Materials
from sim.physics.mujoco.mjcf import (
    M_PER_MM,
    PARKING_M,
    SETTINGS,
    Coefficients,
    MujocoSettings,
    mjcf,
)


class MujocoScene:
    """A MuJoCo scene built from a board, a design and a layout, and its bodies by
    name: the piggies', the bale's and the tractor's; what the judge asks of a scene
    (:class:`sim.physics.judge.Judge`: ``board``, ``layout``, ``model``,
    ``hit_rule``, ``piggy_bodies``, :meth:`piggy_pose`)."""

    def __init__(
        self,
        board: Board,
        design: Design,
        layout: Layout,
        hit_rule: str,
        settings: MujocoSettings = SETTINGS,
    ):
        import mujoco

        from sim.physics import knockout

        self._mj = mujoco
        self.board, self.design, self.layout = board, design, layout
        self.hit_rule = knockout.check_hit_rule(hit_rule)
        self.settings = settings
        self.model = PiggyModel.for_design(design)
        self.dt = 1.0 / design.physics.steps_per_s
        self.materials = NOMINAL
        self.build(self.model.drop_poses_mm(board, layout), NOMINAL)

    def build(self, poses: dict[str, BodyPose], materials: Materials) -> None:
        """(Re)make the MuJoCo model and its data with the piggies at ``poses``."""
        mj = self._mj
        self.materials = self.materials_built = materials
        #: the model's MJCF text (a batch of shots compiles it with its sensors)
        self.xml = mjcf(self.board, self.design, self.model, poses, materials, self.settings)
        self.mj_model = mj.MjModel.from_xml_string(self.xml)
        self.data = mj.MjData(self.mj_model)
        m = self.mj_model
        self.piggy_bodies = {n: m.body(n).id for n in sorted(poses)}
        self.bale = m.body("bale").id
        self.tractor = m.body("tractor").id
        self.names = {
            m.geom_bodyid[g]: (m.body(m.geom_bodyid[g]).name or "world") for g in range(m.ngeom)
        }
        self.geom_names = [self._geom_name(g) for g in range(m.ngeom)]
        free = (*self.piggy_bodies.values(), self.bale)
        self._qpos_of = {b: m.jnt_qposadr[m.body_jntadr[b]] for b in free}
        self._qvel_of = {b: m.jnt_dofadr[m.body_jntadr[b]] for b in free}
        piggies = set(self.piggy_bodies.values())
        self._piggy_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] in piggies]
        self.bale_geoms = {g for g in range(m.ngeom) if m.geom_bodyid[g] == self.bale}
        self.piggy_geoms = set(self._piggy_geoms)
        self._surface_geoms = [
            g
            for g in range(m.ngeom)
            if self.geom_names[g] in ("board", "table", "fence", "tractor")
        ]
        self._pairs_with = {
            material: [i for i in range(m.npair) if m.pair(i).name.endswith("/" + material)]
            for material in ("surface", "piggy")
        }
        self._piggy_mass = {b: (float(m.body_mass[b]), m.body_inertia[b].copy()) for b in piggies}
        mj.mj_forward(m, self.data)

    def set_materials(self, materials: Materials) -> None:
        """The contact coefficients and the piggies' masses under ``--vary``'s factors
        (the model changed in place: no rebuild)."""
        if materials == self.materials:
            return
        m = self.mj_model
        c = Coefficients.of(self.design, materials, self.settings.damping_gain)
        m.geom_friction[self._piggy_geoms, 0] = c.piggy_friction
        m.geom_solref[self._piggy_geoms, 1] = c.piggy_ratio
        m.geom_solref[self._surface_geoms, 1] = c.surface_ratio
        for material, pairs in self._pairs_with.items():
            m.pair_friction[pairs, 0:2] = c.bale_friction[material]
            m.pair_solref[pairs, 1] = c.bale_ratio[material]
        for body, (mass, inertia) in self._piggy_mass.items():
            factor = materials.mass / self.materials_built.mass
            m.body_mass[body] = mass * factor
            m.body_inertia[body] = inertia * factor
        self._mj.mj_setConst(m, self.data)
        self.materials = materials

    def _geom_name(self, geom: int) -> str:
        """What a strike on a geom is called: "board", "table", "fence", "tractor",
        a piggy's name, or "bale"."""
        name = self.mj_model.geom(geom).name
        for kind in ("board", "table", "fence", "tractor", "bale"):
            if name.startswith(kind):
                return kind
        return name.split(":")[0]

    # --- poses and velocities ------------------------------------------------------
    def body_pose(self, body: int) -> BodyPose:
        """A body's pose now (origin in mm, rotation matrix)."""
        return BodyPose(
            np.array(self.data.xpos[body]) / M_PER_MM,
            np.array(self.data.xmat[body]).reshape(3, 3),
        )

    def piggy_pose(self, piggy: str) -> BodyPose:
        return self.body_pose(self.piggy_bodies[piggy])

    def position_mm(self, body: int) -> np.ndarray:
        return np.array(self.data.xpos[body]) / M_PER_MM

    def quaternion(self, body: int) -> list[float]:
        """A body's orientation, (x, y, z, w)."""
        w, x, y, z = self.data.xquat[body]
        return [float(x), float(y), float(z), float(w)]

    def velocity(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """A free body's velocity (mm/s, board frame) and spin (rad/s, its frame)."""
        i = self._qvel_of[body]
        qvel = self.data.qvel
        return np.array(qvel[i : i + 3]) / M_PER_MM, np.array(qvel[i + 3 : i + 6])

    def addresses(self, body: int) -> tuple[int, int]:
        """Where a free body's pose starts in ``qpos`` and its velocity in ``qvel``."""
        return int(self._qpos_of[body]), int(self._qvel_of[body])

    def speed_m_s(self, body: int) -> float:
        """A free body's speed, m/s."""
        i = self._qvel_of[body]
        return float(np.linalg.norm(self.data.qvel[i : i + 3]))

    def at_rest(self, body: int, speed_mm_s: float, spin_rad_s: float) -> bool:
        """Whether a body moves and spins no faster than these."""
        i = self._qvel_of[body]
        v = self.data.qvel[i : i + 6]
        speed = speed_mm_s * M_PER_MM
        return bool(
            v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= speed * speed
            and v[3] * v[3] + v[4] * v[4] + v[5] * v[5] <= spin_rad_s * spin_rad_s
        )

    def place(
        self, body: int, position_mm, quaternion_xyzw, velocity_mm_s=(0, 0, 0), spin=(0, 0, 0)
    ) -> None:
        """Put a free body at a pose (mm, (x, y, z, w)) with a velocity (mm/s) and a
        spin (rad/s, its frame)."""
        q, v = self._qpos_of[body], self._qvel_of[body]
        x, y, z, w = quaternion_xyzw
        self.data.qpos[q : q + 7] = [*(np.asarray(position_mm) * M_PER_MM), w, x, y, z]
        self.data.qvel[v : v + 3] = np.asarray(velocity_mm_s) * M_PER_MM
        self.data.qvel[v + 3 : v + 6] = spin

    def park(self, body: int) -> None:
        """Put the bale out of play, far from everything, at rest."""
        self.place(body, np.array(PARKING_M) / M_PER_MM, (0, 0, 0, 1))

    def turn_tractor(self, yaw_deg: float) -> None:
        half = math.radians(yaw_deg) / 2
        self.data.mocap_quat[0] = [math.cos(half), 0.0, 0.0, math.sin(half)]

    def contact_geoms(self) -> list[list[int]]:
        """The geoms of each contact now, [geom1, geom2]."""
        return self.data.contact.geom[: self.data.ncon].tolist()

    def contact_force(self, i: int) -> float:
        """Contact ``i``'s normal force, N (the first row of its constraint: the cone
        is elliptic)."""
        return float(self.data.efc_force[self.data.contact.efc_address[i]])

    def contact_point(self, i: int) -> list[float]:
        """Contact ``i``'s point, mm."""
        return (self.data.contact.pos[i] / M_PER_MM).tolist()

    def restore(self, state: tuple[np.ndarray, np.ndarray]) -> None:
        """The whole simulation state back to a kept one (positions, velocities),
        MuJoCo's data reset first (warm starts, time, forces)."""
        self._mj.mj_resetData(self.mj_model, self.data)
        qpos, qvel = state
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel

    def step(self, steps: int = 1) -> None:
        self._mj.mj_step(self.mj_model, self.data, steps)

    def check_stable(self) -> None:
        """Refuse a shot MuJoCo had to reset (its accelerations went bad: NaN or
        beyond bounds; MuJoCo then restarts the state silently)."""
        if self.data.warning[self._mj.mjtWarning.mjWARN_BADQACC].number:
            raise RuntimeError(
                "MuJoCo's simulation went unstable in this shot (bad accelerations): "
                "its result would be meaningless"
            )

    def forward(self) -> None:
        self._mj.mj_forward(self.mj_model, self.data)

    def close(self) -> None:
        """Nothing to let go of beyond what Python collects (for the engines' API)."""
