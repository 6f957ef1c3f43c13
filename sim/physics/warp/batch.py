"""The GPU path (optional): many shots at one layout fired as a batch of worlds in
lockstep on MuJoCo Warp (``mujoco_warp``), each coming back as the same
:class:`~sim.physics.results.ShotResult` the CPU engine gives (verdicts, strikes,
where the bale rested), so a hit map fired on it fills every column. The engine
``mujoco-warp`` (:mod:`sim.physics.warp.world`) fires a hit map's spaces
through it; docs/gpu.md says what was measured.

- **The same model.** The batch is built from a :class:`~sim.physics.mujoco.world.
  MujocoWorld`: its scene's ``MjModel``, copied and handed to
  ``mujoco_warp.put_model``; no second description of the toy. A new layout on the
  world (``set_layout``) is a new model, taken up at the next batch.
- **The same launch.** Each shot's launch is
  :func:`~sim.physics.launch.launch_state`'s, put into the world's own ``MjData`` by
  the world's own reset, placement and tractor turn, then copied into that shot's
  row of the batch: each world starts as :meth:`MujocoWorld.shoot` starts.
- **The same shot's logic, in chunks.** The batch steps every world together; each
  step's contacts feed every shot's strike log and woken piggies, and every
  :data:`~sim.physics.shot_log.REST_CHECK_S` the rest rule and the early verdict
  are checked on the batch (:class:`~sim.physics.mujoco.shot_book.ShotBook`: the
  CPU engine's rules). A world done is not read again; the batch stops when every
  world is done or at ``max_time_s``.
- **The same judge.** The piggies a shot disturbed are judged by
  :class:`sim.physics.judge.Judge` on their final poses; the others keep their
  verdicts on the layout, as in the CPU engine.

What differs from the CPU engine, and what it changes:

- **Float32.** MuJoCo Warp computes in single precision (MuJoCo in double): the
  same shot drifts apart from the CPU engine's after a few contacts. A batch agrees
  with the CPU engine in distribution (P of a space), never shot by shot.
- **Its own collision code.** The meshes' convex collisions are MuJoCo Warp's, not
  MuJoCo's ``mjc_Convex``; the elliptic cone, ``implicitfast``, mocap bodies and
  the explicit ``<pair>`` contacts are supported as they are.
- **Sleep off by default.** Island sleeping made a step about six times slower on
  the CPU device, so :class:`WarpBatch` switches it off (``sleep=True`` keeps it):
  untouched piggies tremble on their soft contacts far below the rest rule's bounds.
  With sleep off no contact read on a step is stale.
- **Every step's contacts read back.** The strike log needs each step's contacts:
  one read of the batch's contact arrays a step (cheap on the CPU device, a copy
  from the GPU on CUDA: scripts/bench_warp.py measures what it costs).
- **Nominal materials only, no air drag.** ``--vary``'s factors change the model
  per shot and a batch shares one; air drag is a force per step. Such shots are
  refused here; the ``mujoco-warp`` engine fires them singly on the CPU engine and
  says so in a hit map's provenance.
"""

from __future__ import annotations

import copy
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.errors import InputError
from sim.physics.judge import Judge
from sim.physics.launch import AimedShot
from sim.physics.materials import NOMINAL
from sim.physics.mujoco.mjcf import M_PER_MM
from sim.physics.mujoco.shot_book import BatchPoses, ShotBook
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.results import ShotResult
from sim.physics.shot_log import REST_CHECK_S, shot_result

#: Contacts allowed per world at least, and beyond twice the settled layout's
#: (MuJoCo Warp's arrays are sized up front; a batch that overflows them is refused,
#: not silently cut: a crowded board rests on 176 contacts); constraint rows per
#: contact (3 in the elliptic cone's condim 3, and room).
CONTACTS_PER_WORLD = 96
ROWS_PER_CONTACT = 4


def check_warp() -> None:
    """Refuse on one line, with the command that installs it, when MuJoCo Warp is
    not installed (an optional extra, never a default). Warp is started here, its
    own lines muted (:func:`_muted`)."""
    try:
        with _muted():
            import warp

            # no banner, no line per kernel loaded (set before Warp starts)
            warp.config.log_level = max(warp.config.log_level, warp.LOG_WARNING)
            warp.init()
            import mujoco_warp  # noqa: F401
    except ImportError:
        raise InputError(
            "the warp batch needs MuJoCo Warp, an optional extra: pip install -e "
            "'.[gpu]' in a checkout (pip install 'go-piggy-go-sandbox[gpu]')"
        ) from None


@contextmanager
def _muted() -> Iterator[None]:
    """Standard output and error muted at the file descriptor level: Warp's native
    library writes to them as it starts ("Warp CUDA warning: Could not find or load
    the NVIDIA CUDA driver" where there is no GPU, its banner), which would clutter a
    command's one-line errors and break ``--json``'s output. What it means is asked
    in words (:func:`default_device`); an error still comes as an exception."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stdout.flush()  # what Python buffered while muted is dropped, not shown later
        sys.stderr.flush()
        for fd, kept in zip((1, 2), saved, strict=True):
            os.dup2(kept, fd)
            os.close(kept)
        os.close(devnull)


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


@dataclass
class _Ends:
    """Each world's end: its bodies' poses (xpos, xmat, SI), its steps, and whether it
    stayed finite."""

    xpos: np.ndarray
    xmat: np.ndarray
    steps: np.ndarray
    stable: np.ndarray


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

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]:
        """Fire these shots (:meth:`ShotEngine.fire`'s) all at once; their results in
        the same order, each a whole :class:`ShotResult`. A shot with ``vary`` is
        refused (nominal materials only); so is the batch if a shot went unstable
        (as the CPU engine refuses it), once every other shot has run."""
        world, scene = self.world, self.world.scene
        launches = []
        for shot in shots:
            launch = world.aimed_launch(shot)
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
        judge_view = BatchPoses(scene)
        judge = Judge(judge_view)
        book, ends = self._run(rows)
        unstable = np.flatnonzero(~ends.stable)
        if unstable.size:
            raise RuntimeError(
                f"MuJoCo Warp's simulation went unstable in shot {int(unstable[0])} of the "
                "batch (not finite): its result would be meaningless"
            )
        results = []
        for i, launch in enumerate(launches):
            judge_view.xpos, judge_view.xmat = ends.xpos[i], ends.xmat[i]
            left = book.left_at[i]
            results.append(
                shot_result(
                    launch,
                    book.strikes[i],
                    rest_mm=ends.xpos[i, scene.bale] / M_PER_MM if left is None else left,
                    sim_time_s=int(ends.steps[i]) * scene.dt,
                    settled=bool(book.settled[i]),
                    piggies=judge.after_shot(
                        book.piggies[j] for j in np.flatnonzero(book.woken[i])
                    ),
                    hit_rule=world.hit_rule,
                    recorder=None,
                )
            )
        return results

    def _run(self, rows: list) -> tuple[ShotBook, _Ends]:
        """Step the batch from these starts (qpos, qvel, mocap_quat per world) until
        every world is done or the cap: each world's records and end."""
        import mujoco_warp as mjw
        import warp as wp

        m = self._model()
        world, scene = self.world, self.world.scene
        n, dt = len(rows), scene.dt
        check_every = max(1, round(REST_CHECK_S / dt))
        max_steps = round(world.design.physics.max_time_s / dt)
        book = ShotBook(scene, world.design, n, check_every, world.bale_to_rest)
        bale = scene.bale
        q_bale, v_bale = scene.addresses(bale)
        parked = scene.data.qpos[q_bale : q_bale + 7].copy()  # world.reset() parks it
        nbody = self.mj_model.nbody
        ends = _Ends(
            np.zeros((n, nbody, 3)),
            np.zeros((n, nbody, 3, 3)),
            np.full(n, max_steps),
            np.ones(n, dtype=bool),
        )
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
            while step < max_steps and not book.done.all():
                mjw.step(m, d)
                step += 1
                xpos = d.xpos.numpy()
                self._read_contacts(d, book, step, xpos[:, bale])
                if step % check_every:
                    continue
                xpos = xpos.astype(float)
                xquat = d.xquat.numpy().astype(float)
                xmat = d.xmat.numpy().astype(float).reshape(n, nbody, 3, 3)
                finite = np.isfinite(xpos).all(axis=(1, 2)) & np.isfinite(xquat).all(axis=(1, 2))
                bad = ~finite & ~book.done
                ends.stable[bad], book.done[bad], ends.steps[bad] = False, True, step
                qpos, qvel = d.qpos.numpy(), d.qvel.numpy()
                out = book.out_of_play(xpos)
                if out.any():  # parked where it can touch nothing more, as the CPU engine
                    qpos[out, q_bale : q_bale + 7] = parked
                    qvel[out, v_bale : v_bale + 6] = 0.0
                    d.qpos.assign(qpos)
                    d.qvel.assign(qvel)
                states = (
                    qpos.astype(float),
                    qvel.astype(float),
                    d.mocap_quat.numpy().astype(float),
                )
                newly = book.check(check_every, xpos, xquat, states)
                ends.steps[newly] = step
                live = ~book.done
                ends.xpos[live], ends.xmat[live] = xpos[live], xmat[live]
                book.done |= newly
            if step % check_every:  # the cap between two checks: the poses there
                live = ~book.done
                ends.xpos[live] = d.xpos.numpy()[live]
                ends.xmat[live] = d.xmat.numpy().reshape(n, nbody, 3, 3)[live]
        return book, ends

    def _read_contacts(self, d: Any, book: ShotBook, step: int, bale_xpos: np.ndarray) -> None:
        """This step's contacts, every world's, into the book (refused when they
        overflowed MuJoCo Warp's arrays: it would drop contacts silently)."""
        n = len(book.done)
        count = int(d.nacon.numpy()[0])
        if count >= self.contacts_per_world * n:
            raise RuntimeError(
                f"MuJoCo Warp's contacts overflowed ({self.contacts_per_world} a world): "
                "raise contacts_per_world"
            )
        if int(np.max(d.nefc.numpy())) >= self.rows_per_world:
            raise RuntimeError(
                f"MuJoCo Warp's constraint rows overflowed ({self.rows_per_world} a world): "
                "raise rows_per_world"
            )
        if not count:
            return
        contact = d.contact
        geoms = contact.geom.numpy()[:count]
        worlds = contact.worldid.numpy()[:count]
        rows = contact.efc_address.numpy()[:count, 0]
        force = d.efc.force.numpy()
        pushed = (rows >= 0) & (force[worlds, np.maximum(rows, 0)] > 0.0)
        book.contacts(step, geoms, worlds, pushed, contact.pos.numpy()[:count], bale_xpos)
