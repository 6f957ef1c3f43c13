"""What a MuJoCo Warp batch keeps of each of its shots between steps: the same
records the CPU engine (:class:`sim.physics.mujoco.world.MujocoWorld`) keeps of one
shot, kept for every world of the batch at once (numpy across the worlds).

- **The strike log and the woken piggies, every step.** Each step's contacts are
  read back from the batch (MuJoCo Warp's contact arrays, every world's in one):
  a bale contact that pushed is a strike in that world's
  :class:`~sim.physics.shot_log.StrikeLog` (while the bale is in play), a piggy the
  bale touched is woken, and so is a piggy touching a woken one. The contacts are
  read directly, not through contact sensors: the batch runs without island
  sleeping, so no contact is stale on a wake-up step.
- **The rest rule and the early verdict, every check.** Every
  :data:`~sim.physics.shot_log.REST_CHECK_S` the bale out of play is parked, each
  woken piggy and the bale in play is quiet or not by the way it went since the
  last check (:meth:`MujocoWorld._quiet`'s rule: a body checked for the first time
  is not quiet), a restless piggy whose knock-out is sealed stops counting and a
  spent bale stops counting where the bale need not rest
  (:class:`~sim.physics.mujoco.early_verdict.EarlyVerdict`, asked of a probe: the
  scene's model with that world's state, MuJoCo's forward pass giving its
  contacts), and the :class:`~sim.physics.shot_log.RestClock` counts.
"""

from __future__ import annotations

import copy
from functools import partial

import numpy as np

from models.design import Design
from sim.physics.bodies import pair_friction
from sim.physics.geometry import BodyPose
from sim.physics.mujoco.early_verdict import EarlyVerdict
from sim.physics.mujoco.mjcf import M_PER_MM
from sim.physics.mujoco.scene import MujocoScene
from sim.physics.shot_log import RestClock, StrikeLog

_OTHER, _BALE, _PIGGY = 0, 1, 2


class ShotBook:
    """The records of a batch of ``shots`` shots on ``scene`` (module docstring).
    ``bale_to_rest``: as the world's (False: a spent bale ends a shot)."""

    def __init__(
        self, scene: MujocoScene, design: Design, shots: int, check_every: int, bale_to_rest: bool
    ):
        self.scene, self.design, self.bale_to_rest = scene, design, bale_to_rest
        m = scene.mj_model
        self.piggies = list(scene.piggy_bodies)
        self.piggy_body = np.array([scene.piggy_bodies[p] for p in self.piggies], dtype=int)
        self._kind = np.full(m.ngeom, _OTHER)
        self._kind[list(scene.bale_geoms)] = _BALE
        self._kind[list(scene.piggy_geoms)] = _PIGGY
        self._piggy_of = np.full(m.ngeom, -1)
        for g in scene.piggy_geoms:
            self._piggy_of[g] = self.piggies.index(scene.geom_names[g])
        self.strikes = [StrikeLog.every(scene.dt) for _ in range(shots)]
        self.woken = np.zeros((shots, len(self.piggies)), dtype=bool)
        self.in_play = np.ones(shots, dtype=bool)
        self.left_at: list[np.ndarray | None] = [None] * shots
        self.done = np.zeros(shots, dtype=bool)
        self.settled = np.zeros(shots, dtype=bool)
        self._rest = RestClock(design, scene.dt, check_every, shots=shots)
        interval = check_every * scene.dt
        self._step_m = design.physics.rest_speed_mm_s * M_PER_MM * interval
        self._turn = np.radians(design.physics.rest_spin_deg_s) * interval
        # the poses at the last check, and which bodies were checked there
        self._last: np.ndarray | None = None
        self._checked = np.zeros((shots, len(self.piggies) + 1), dtype=bool)
        self._probe, self._early = self._probe_of(scene)

    def _probe_of(self, scene: MujocoScene) -> tuple[MujocoScene, EarlyVerdict]:
        """The probe (the scene's model and names, one world's state) and the early
        verdict on it."""
        import mujoco  # as the scene imports it: when a world is made

        probe = copy.copy(scene)
        probe.data = mujoco.MjData(scene.mj_model)
        return probe, EarlyVerdict(probe)

    # --- every step --------------------------------------------------------------
    def contacts(
        self,
        step: int,
        geoms: np.ndarray,
        worlds: np.ndarray,
        pushed: np.ndarray,
        points: np.ndarray,
        bale_xpos: np.ndarray,
    ) -> None:
        """Step ``step``'s contacts: their geoms (k, 2), worlds (k,), whether each
        pushed (k,), their points (k, 3, m) and each world's bale centre (n, 3, m)."""
        live = ~self.done[worlds]
        kinds = self._kind[geoms]
        bale_first = kinds[:, 0] == _BALE
        with_bale = live & (bale_first | (kinds[:, 1] == _BALE))
        other = np.where(bale_first, geoms[:, 1], geoms[:, 0])
        touched = self._piggy_of[other]
        hit_piggy = with_bale & (touched >= 0)
        self.woken[worlds[hit_piggy], touched[hit_piggy]] = True
        names, body_of = self.scene.geom_names, self.scene.mj_model.geom_bodyid
        for i in np.flatnonzero(with_bale & self.in_play[worlds] & pushed):
            world, geom = int(worlds[i]), int(other[i])
            key = int(body_of[geom]) or -1 - geom  # a static geom is a thing of its own
            self.strikes[world].touch(
                key,
                names[geom],
                step,
                partial(_mm, points[i]),
                partial(_mm, bale_xpos[world]),
            )
        among = live & (kinds == _PIGGY).all(axis=1)
        a, b, w = self._piggy_of[geoms[among, 0]], self._piggy_of[geoms[among, 1]], worlds[among]
        spread = self.woken[w, a] | self.woken[w, b]
        self.woken[w[spread], a[spread]] = True
        self.woken[w[spread], b[spread]] = True

    # --- every check -------------------------------------------------------------
    def out_of_play(self, xpos: np.ndarray) -> np.ndarray:
        """The worlds whose bale left play at this check (beside the board's surface
        and below its top), each noted where it left: the caller parks them."""
        scene = self.scene
        x0, x1, y0, y1 = (v * M_PER_MM for v in scene.board.surface_extent_mm)
        bx, by, bz = (xpos[:, scene.bale, i] for i in range(3))
        beside = (bx < x0) | (bx > x1) | (by < y0) | (by > y1)
        out = self.in_play & ~self.done & beside & (bz < 0)
        for world in np.flatnonzero(out):
            self.left_at[world] = xpos[world, scene.bale] / M_PER_MM
        self.in_play &= ~out
        return out

    def check(
        self,
        steps: int,
        xpos: np.ndarray,
        xquat: np.ndarray,
        states: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """A check for rest ``steps`` steps after the last (after
        :meth:`out_of_play`): the worlds that came to rest now. ``states``: each
        world's qpos, qvel and mocap_quat, for the early verdict's probe."""
        bodies = np.append(self.piggy_body, self.scene.bale)
        pose = np.concatenate([xpos[:, bodies], xquat[:, bodies]], axis=2)
        quiet = np.zeros_like(self._checked)
        if self._last is not None:
            moved = np.linalg.norm(pose[..., :3] - self._last[..., :3], axis=2)
            dots = np.abs(np.sum(pose[..., 3:] * self._last[..., 3:], axis=2))
            turned = 2.0 * np.arccos(np.minimum(1.0, dots))
            quiet = self._checked & (moved <= self._step_m) & (turned <= self._turn)
        self._last = pose
        self._checked = np.concatenate([self.woken, self.in_play[:, None]], axis=1)
        restless = self.woken & ~quiet[:, :-1]
        live = ~self.done
        early = self.design.physics.early_verdict
        bale_quiet = ~self.in_play | quiet[:, -1]
        moving = live & self._surely_moving(restless, bale_quiet, early)
        for world in np.flatnonzero(live & ~moving & (restless.any(axis=1) | ~bale_quiet)):
            moving[world] = self._moving(
                int(world), restless[world], bool(bale_quiet[world]), early, states
            )
        newly = live & self._rest.settled_each(moving, steps)
        self.settled |= newly
        return newly

    def _surely_moving(
        self, restless: np.ndarray, bale_quiet: np.ndarray, early: bool
    ) -> np.ndarray:
        """The worlds :meth:`_moving` would find moving, told without asking it (none
        here: a batch that knows cheaper tests says)."""
        return np.zeros(len(bale_quiet), dtype=bool)

    def _moving(
        self, world: int, restless: np.ndarray, bale_quiet: bool, early: bool, states: tuple
    ) -> bool:
        """:meth:`MujocoWorld._moving` for one world of the batch."""
        probed = False
        if early and restless.any():
            self._probe_world(world, states)
            probed = True
            names = {self.piggies[i] for i in np.flatnonzero(restless)}
            if names - self._early.sealed(names, self._friction("piggy")):
                return True
        elif restless.any():
            return True
        if bale_quiet or self.bale_to_rest:
            return not bale_quiet
        if not probed:
            self._probe_world(world, states)
        return not self._early.bale_spent(self._friction("bale"))

    def _probe_world(self, world: int, states: tuple) -> None:
        """The probe set to one world's state, its forward pass run (poses, contacts)."""
        data = self._probe.data
        qpos, qvel, mocap_quat = states
        data.qpos[:], data.qvel[:], data.mocap_quat[:] = qpos[world], qvel[world], mocap_quat[world]
        self._probe.forward()

    def _friction(self, body: str) -> float:
        return pair_friction(self.design, body, "surface")  # nominal materials only


class BatchPoses:
    """What the judge reads of a scene (its board, layout, piggy model, hit rule and
    piggies), with the piggies' poses of one world of the batch (SI arrays)."""

    def __init__(self, scene: MujocoScene):
        self.board, self.layout, self.model = scene.board, scene.layout, scene.model
        self.hit_rule, self.piggy_bodies = scene.hit_rule, scene.piggy_bodies
        self.xpos = np.array(scene.data.xpos, dtype=float)
        self.xmat = np.array(scene.data.xmat, dtype=float).reshape(-1, 3, 3)

    def piggy_pose(self, piggy: str) -> BodyPose:
        body = self.piggy_bodies[piggy]
        return BodyPose(self.xpos[body] / M_PER_MM, self.xmat[body].copy())


def _mm(point_m: np.ndarray) -> list[float]:
    return [float(v) for v in np.asarray(point_m) / M_PER_MM]
