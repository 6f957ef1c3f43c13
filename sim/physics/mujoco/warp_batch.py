"""The GPU path (optional): many shots at one layout fired as a batch of worlds in
lockstep on MuJoCo Warp (``mujoco_warp``), for a hit map's space. docs/gpu.md says
what was measured.

- **The same model.** The batch is built from a :class:`~sim.physics.mujoco.world.
  MujocoWorld`: its :class:`~sim.physics.mujoco.scene.MujocoScene`'s ``MjModel``
  (the MJCF written from :mod:`sim.physics.bodies`), copied and handed to
  ``mujoco_warp.put_model``; no second description of the toy. A new layout on the
  world (``set_layout``) is a new model, taken up at the next batch.
- **The same launch.** Each shot's launch is
  :func:`~sim.physics.launch.launch_state`'s (the errors from its seed or its RQMC
  deviates), put into the world's own ``MjData`` by the world's own reset, placement
  and tractor turn, then copied into that shot's row of the batch: each world starts
  from the settled layout exactly as :meth:`MujocoWorld.shoot` starts.
- **The same rest rule, checked on the batch.** Every
  :data:`~sim.physics.shot_core.REST_CHECK_S` of simulated time the batch's poses
  are read back: a world whose piggies and bale (unless out of play: then parked, as
  the CPU engine parks it) went no farther than the rest speed and turned no more
  than the rest spin allow since the last check, for the design's ``rest_time_s``,
  is done, and its poses then are its final ones; the batch stops when every world
  is done or at ``max_time_s``. Worlds done early keep stepping (lockstep) but are
  not read again.
- **The same judge.** Every world's final piggy poses go through
  :class:`sim.physics.judge.Judge` (the knock-out test of :mod:`sim.physics.knockout`
  against the settled poses).

What differs from the CPU engine, and what it changes:

- **Float32.** MuJoCo Warp computes in single precision (MuJoCo in double): the
  same shot drifts apart from the CPU engine's after a few contacts. A batch is
  compared with the CPU engine in distribution (P of a space, scripts/bench_warp.py),
  never shot by shot.
- **Its own collision code.** The meshes' convex collisions are MuJoCo Warp's
  (GJK/EPA on the GPU's terms, its own contact sets per pair), not MuJoCo's
  ``mjc_Convex``; the elliptic cone, ``implicitfast``, mocap bodies and the explicit
  ``<pair>`` contacts (the bale's coefficients) are supported as they are. Neither
  engine turns on ``multiccd``.
- **Sleep off by default.** MuJoCo Warp supports island sleeping (by compacting
  the awake dofs), but on the CPU device it made a step about six times slower
  (0.13 s against 0.022 s for 4 worlds), so :class:`WarpBatch` switches it off
  (``sleep=True`` keeps it): untouched piggies are simulated, trembling on their
  soft contacts far below the rest rule's bounds. Costs steps, not verdicts.
- **No early verdict, no strike log.** The CPU engine ends a shot once a moving
  piggy is surely out or the bale is spent (docs/physics.md, "The early verdict");
  the batch waits for rest, which costs steps and changes no verdict the early
  verdict is sound about. Strikes (first struck, ricochets, contact points) are not
  read: a :class:`BatchShot` holds the verdicts, not a :class:`~sim.physics.results.
  ShotResult`. Every piggy is judged, not only those the shot touched (an untouched
  piggy moves hundredths of a mm: never out, :mod:`sim.physics.knockout`).
- **Nominal materials only.** ``--vary``'s factors change the model per shot; a
  batch shares one model, so a shot whose materials are not nominal is refused.
- **No air drag** (off in every stock design): a design with ``air_drag`` is refused.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.aimer import PERFECT, Aimer
from models.errors import InputError
from sim.physics.geometry import BodyPose
from sim.physics.judge import Judge
from sim.physics.launch import launch_state
from sim.physics.materials import NOMINAL
from sim.physics.mujoco.mjcf import M_PER_MM
from sim.physics.mujoco.scene import MujocoScene
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.noise import Deviates
from sim.physics.results import PiggyResult
from sim.physics.shot_core import REST_CHECK_S, RestClock

#: Contacts allowed per world at least, and beyond twice the settled layout's
#: (MuJoCo Warp's arrays are sized up front; a batch that overflows them is refused,
#: not silently cut: a crowded board rests on 176 contacts); constraint rows per
#: contact (3 in the elliptic cone's condim 3, and room).
CONTACTS_PER_WORLD = 96
ROWS_PER_CONTACT = 4


def check_warp() -> None:
    """Refuse on one line, with the command that installs it, when MuJoCo Warp is
    not installed (an optional extra, never a default)."""
    try:
        import warp

        # no banner, no line per kernel loaded (set before Warp starts)
        warp.config.log_level = max(warp.config.log_level, warp.LOG_WARNING)
        import mujoco_warp  # noqa: F401
    except ImportError:
        raise InputError(
            "the warp batch needs MuJoCo Warp, an optional extra: pip install -e "
            "'.[gpu]' in a checkout (pip install 'go-piggy-go-sandbox[gpu]')"
        ) from None


def default_device(device: str | None = None) -> str:
    """The Warp device a batch runs on: ``device`` when given ("cpu" or "cuda"),
    else "cuda" where a CUDA device is present, else "cpu"."""
    check_warp()
    import warp as wp

    if device is not None:
        if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
            raise InputError(f"unknown warp device {device!r}: allowed are cpu, cuda")
        return device
    return "cuda" if wp.is_cuda_available() else "cpu"


@dataclass(frozen=True)
class BatchShot:
    """One shot of a batch: how it left the tractor, each piggy's verdict (the
    judge's :class:`~sim.physics.results.PiggyResult`), whether everything came to
    rest before the cap, the simulated time it took, and whether the simulation
    stayed finite (a shot that did not is no result)."""

    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float
    piggies: dict[str, PiggyResult]
    settled: bool
    sim_time_s: float
    stable: bool

    @property
    def knocked(self) -> list[str]:
        """The piggies knocked out, sorted (as :attr:`ShotResult.knocked`)."""
        return sorted(p for p, r in self.piggies.items() if r.knocked)


class _BatchPoses:
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


class WarpBatch:
    """Shots at a :class:`MujocoWorld`'s layout fired as one batch of MuJoCo Warp
    worlds (module docstring). ``device``: "cpu", "cuda" or None (cuda where
    present); ``sleep``: keep MuJoCo's island sleeping on (slower on the CPU
    device); ``contacts_per_world``, ``rows_per_world``: MuJoCo Warp's arrays (None:
    sized from the settled layout's contacts, :data:`CONTACTS_PER_WORLD`)."""

    def __init__(
        self,
        world: MujocoWorld,
        *,
        device: str | None = None,
        sleep: bool = False,
        contacts_per_world: int | None = None,
        rows_per_world: int | None = None,
    ):
        self.device = default_device(device)
        if world.design.physics.air_drag:
            raise InputError("the warp batch fires without air drag: the design has it on")
        self.world = world
        self.sleep = sleep
        self._contacts, self._rows = contacts_per_world, rows_per_world
        self.contacts_per_world = self.rows_per_world = 0  # set for each batch
        self._source: Any = None  # the world's MjModel the batch's model was made from
        self._warp_model: Any = None
        self.mj_model: Any = None
        self._model()

    def _model(self) -> Any:
        """MuJoCo Warp's model of the world's scene, made again when the world's
        model is a new one (a new layout)."""
        import mujoco
        import mujoco_warp as mjw
        import warp as wp

        source = self.world.scene.mj_model
        if self._source is source:
            return self._warp_model
        model = copy.deepcopy(source)
        if not self.sleep:
            model.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_SLEEP)
        with warnings.catch_warnings():
            # the surfaces carry friction 0 on purpose (a contact takes the larger
            # of its two geoms', the piggy's: mujoco/mjcf.py); MuJoCo Warp warns
            warnings.simplefilter("ignore", UserWarning)
            with wp.ScopedDevice(self.device):
                self._warp_model = mjw.put_model(model)
        self.mj_model, self._source = model, source
        return self._warp_model

    def shoot(
        self,
        yaw_deg: float,
        pitch_deg: float,
        noises: Sequence[dict],
        *,
        aimer: Aimer = PERFECT,
        vary: dict[str, float] | None = None,
    ) -> list[BatchShot]:
        """Fire one shot per entry of ``noises`` (each :meth:`MujocoWorld.shoot`'s
        ``seed=`` or ``deviates=``, as :func:`sim.studies.shots.space_shots.shot_noise`
        gives them) from the tractor set at ``yaw_deg``, ``pitch_deg``, all at once;
        their results in the same order."""
        world, scene = self.world, self.world.scene
        design = world.design
        launches = []
        for noise in noises:
            deviates: Deviates | None = noise.get("deviates")
            launch = launch_state(
                design,
                yaw_deg,
                pitch_deg,
                seed=noise.get("seed", 0),
                aimer=aimer,
                vary=vary,
                deviates=deviates,
            )
            if launch.materials != NOMINAL:
                raise InputError("the warp batch fires nominal materials only (no --vary)")
            launches.append(launch)
        if not launches:
            return []
        # each world's start: the CPU engine's own reset, placement and tractor turn
        rows = []
        for launch in launches:
            world.reset(launch.yaw_deg)
            scene.place(scene.bale, launch.release_mm, launch.orientation, launch.velocity_mm_s)
            scene.forward()
            data = scene.data
            rows.append((data.qpos.copy(), data.qvel.copy(), data.mocap_quat.copy()))
        world.reset()
        final, steps, settled, stable = self._run(rows)
        judge_view = _BatchPoses(scene)
        judge = Judge(judge_view)
        piggies = list(judge.at_rest)
        results = []
        for i, launch in enumerate(launches):
            judge_view.xpos, judge_view.xmat = final[0][i], final[1][i]
            results.append(
                BatchShot(
                    yaw_deg=launch.yaw_deg,
                    pitch_deg=launch.pitch_deg,
                    speed_mm_s=launch.speed_mm_s,
                    piggies=judge.verdicts(piggies) if stable[i] else {},
                    settled=bool(settled[i]),
                    sim_time_s=float(steps[i]) * scene.dt,
                    stable=bool(stable[i]),
                )
            )
        return results

    def _run(self, rows: list) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, Any, Any]:
        """Step the batch from these starts (qpos, qvel, mocap_quat per world) until
        every world is at rest or the cap. Returns each world's final (xpos, xmat),
        its steps, whether it came to rest and whether it stayed finite."""
        import mujoco_warp as mjw
        import warp as wp

        m = self._model()
        world, scene = self.world, self.world.scene
        physics = world.design.physics
        n = len(rows)
        dt = scene.dt
        check_every = max(1, round(REST_CHECK_S / dt))
        max_steps = round(physics.max_time_s / dt)
        step_mm = physics.rest_speed_mm_s * M_PER_MM * check_every * dt
        step_turn = math.radians(physics.rest_spin_deg_s) * check_every * dt
        bale = scene.bale
        piggy_bodies = np.array(sorted(scene.piggy_bodies.values()), dtype=int)
        bodies = np.concatenate([piggy_bodies, [bale]])
        q_bale, v_bale = scene.addresses(bale)
        parked = scene.data.qpos[q_bale : q_bale + 7].copy()  # world.reset() parks it
        x0, x1, y0, y1 = (v * M_PER_MM for v in scene.board.surface_extent_mm)
        nbody = self.mj_model.nbody
        final_xpos = np.zeros((n, nbody, 3))
        final_xmat = np.zeros((n, nbody, 3, 3))
        end = np.full(n, max_steps)
        done = np.zeros(n, dtype=bool)
        stable = np.ones(n, dtype=bool)
        in_play = np.ones(n, dtype=bool)
        rest = RestClock(world.design, dt, check_every, shots=n)
        rested = np.zeros(n, dtype=bool)
        last: tuple[np.ndarray, np.ndarray] | None = None
        with wp.ScopedDevice(self.device):
            settled = int(scene.data.ncon)  # world.reset(): the settled layout's
            self.contacts_per_world = self._contacts or max(CONTACTS_PER_WORLD, 2 * settled + 64)
            self.rows_per_world = self._rows or ROWS_PER_CONTACT * self.contacts_per_world
            d = mjw.put_data(
                self.mj_model,
                scene.data,
                nworld=n,
                nconmax=self.contacts_per_world,
                njmax=self.rows_per_world,
            )
            d.qpos.assign(np.stack([r[0] for r in rows]).astype(np.float32))
            d.qvel.assign(np.stack([r[1] for r in rows]).astype(np.float32))
            d.mocap_quat.assign(np.stack([r[2] for r in rows]).astype(np.float32))
            step = 0
            while step < max_steps and not done.all():
                k = min(check_every, max_steps - step)
                for _ in range(k):
                    mjw.step(m, d)
                step += k
                self._check_overflow(d, n)
                xpos = d.xpos.numpy().astype(float)
                xmat = d.xmat.numpy().astype(float).reshape(n, nbody, 3, 3)
                xquat = d.xquat.numpy().astype(float)
                finite = np.isfinite(xpos).all(axis=(1, 2)) & np.isfinite(xquat).all(axis=(1, 2))
                bad = ~finite & ~done
                stable[bad], done[bad], end[bad] = False, True, step
                # the bale beside the board and below its top is out of play: parked
                bx, by, bz = xpos[:, bale, 0], xpos[:, bale, 1], xpos[:, bale, 2]
                beside = (bx < x0) | (bx > x1) | (by < y0) | (by > y1)
                out = in_play & ~done & beside & (bz < 0)
                if out.any():
                    qpos, qvel = d.qpos.numpy(), d.qvel.numpy()
                    qpos[out, q_bale : q_bale + 7] = parked
                    qvel[out, v_bale : v_bale + 6] = 0.0
                    d.qpos.assign(qpos)
                    d.qvel.assign(qvel)
                    in_play &= ~out
                if last is None:
                    still = np.zeros(n, dtype=bool)
                else:
                    moved = np.linalg.norm(xpos[:, bodies] - last[0][:, bodies], axis=2)
                    dots = np.abs(np.sum(xquat[:, bodies] * last[1][:, bodies], axis=2))
                    turned = 2.0 * np.arccos(np.minimum(1.0, dots))
                    body_still = (moved <= step_mm) & (turned <= step_turn)
                    body_still[:, -1] |= ~in_play  # the bale out of play counts as still
                    still = body_still.all(axis=1)
                last = (xpos, xquat)
                newly = ~done & rest.settled_each(~still, k)
                final_xpos[newly], final_xmat[newly] = xpos[newly], xmat[newly]
                end[newly], done[newly], rested[newly] = step, True, True
                final_xpos[~done], final_xmat[~done] = xpos[~done], xmat[~done]
        return (final_xpos, final_xmat), end, rested, stable

    def _check_overflow(self, d: Any, n: int) -> None:
        """Refuse a batch whose contacts or constraint rows overflowed MuJoCo Warp's
        arrays (it would drop contacts silently)."""
        if int(d.nacon.numpy()[0]) >= self.contacts_per_world * n:
            raise RuntimeError(
                f"MuJoCo Warp's contacts overflowed ({self.contacts_per_world} a world): "
                "raise contacts_per_world"
            )
        if int(np.max(d.nefc.numpy())) >= self.rows_per_world:
            raise RuntimeError(
                f"MuJoCo Warp's constraint rows overflowed ({self.rows_per_world} a world): "
                "raise rows_per_world"
            )
