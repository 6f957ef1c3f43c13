"""A look's shots fired together on the CPU: :meth:`MujocoWorld.fire
<sim.physics.mujoco.world.MujocoWorld.fire>` as one persistent ``mujoco.batch``,
each shot the same bytes as :meth:`MujocoWorld.shoot` fires it alone.

- **The same start.** Each shot starts as the world starts it: MuJoCo's data
  reset, the settled layout, the tractor turned, the bale released, a forward pass;
  the states are the world's own (its reset, its scene's turn and placement),
  copied into the batch. (The world runs a forward pass after the turn too: one
  changes no state, so the release's alone gives the same step.) Nominal
  materials: ``--vary`` has no batch form.
- **Chunks of steps.** The shots still running step together
  :data:`~sim.physics.shot_log.REST_CHECK_S` at a time (the rest check's
  interval) in one call, the contact sensors recorded every step
  (:mod:`sim.physics.mujoco.batch_sensors`): the same steps as the world's, which
  steps its shot one call at a time. A persistent batch keeps each shot's whole
  MjData between calls (the solver's warm start, the sleeping bodies).
- **Between chunks, in numpy.** Each step's strikes and woken piggies from the
  sensors (the strike log's rule, the woken piggies' spread), then at the check the
  world's rules on the batch (:class:`~sim.physics.mujoco.shot_book.ShotBook`: the
  bale out of play parked, the rest rule, the early verdict, asked of the shot's
  whole MjData only when its cheaper tests leave it open).
- **Shots fired again alone.** A shot whose chunk the sensors cannot settle (the
  bale woken from sleep within a step, two new strikes in one step, piggies whose
  spread depends on the contacts' order) or in which MuJoCo warned (a bad
  acceleration: the world refuses that shot) leaves the batch and is fired alone
  by the world after it: the same result, or the same refusal, as shot by shot.
  The others go on.
- **No batch form.** ``--vary`` (its factors change the model shot by shot) and
  air drag (a force on the bale every step) are fired shot by shot
  (:func:`no_batch_form`), and a hit map's provenance says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from models.design import Design
from sim.physics.early_verdict import LayoutBounds
from sim.physics.judge import Judge
from sim.physics.launch import AimedShot, Launch
from sim.physics.mujoco.batch_book import Ends, SensedBook
from sim.physics.mujoco.batch_sensors import ContactSensors
from sim.physics.mujoco.mjcf import M_PER_MM
from sim.physics.mujoco.scene import SETTINGS, MujocoScene
from sim.physics.results import ShotResult
from sim.physics.shot_log import shot_result


class BatchedWorld(Protocol):
    """What the batch asks of its world (:class:`~sim.physics.mujoco.world.
    MujocoWorld`, named here by what it does: the world imports this module)."""

    scene: MujocoScene
    bale_to_rest: bool

    @property
    def design(self) -> Design: ...

    @property
    def hit_rule(self) -> str: ...

    @property
    def layout_bounds(self) -> LayoutBounds: ...

    def reset(self, tractor_yaw_deg: float = 0.0) -> None: ...

    def aimed_launch(self, shot: AimedShot) -> Launch: ...

    def shoot(self, shot: AimedShot) -> ShotResult: ...


def no_batch_form(design: Design, vary: dict[str, float] | None) -> str | None:
    """Why shots of this design with these ``--vary`` factors cannot be fired as a
    batch (None: they can): a batch shares one model and applies no force a step."""
    if vary:
        return "--vary has no batch form (its factors change the model shot by shot)"
    if design.physics.air_drag:
        return "air drag has no batch form (a force on the bale every step)"
    return None


def batch_provenance(design: Design, vary: dict[str, float] | None) -> dict:
    """What a hit map on the ``mujoco`` engine records of how its shots were fired."""
    reason = no_batch_form(design, vary)
    if reason:
        return {"mujoco_batch": f"not used: {reason}; every shot fired singly"}
    return {"mujoco_batch": "each look's shots as one persistent mujoco.batch, 10-step chunks"}


def engine_provenance(design: Design, vary: dict[str, float] | None) -> dict:
    """What a hit map on the ``mujoco`` engine records of it (the registry's answer):
    its name, its settings, and how its shots were fired."""
    settings = dataclasses.asdict(SETTINGS)
    return {"engine": "mujoco", "engine_settings": settings} | batch_provenance(design, vary)


class MujocoBatch:
    """A world's shots fired as one batch (module docstring). :attr:`refired`
    counts the shots the batch handed back to the world to fire alone."""

    def __init__(self, world: BatchedWorld):
        self.world = world
        self.refired = 0
        self._source: Any = None  # the world's MjModel the sensors' model was made from
        self._batch: Any = None

    def _prepare(self, shots: int) -> Any:
        """The batch for this many shots, on the world's present model."""
        import mujoco.batch

        if self._source is not self.world.scene.mj_model:
            self.sensors = ContactSensors(self.world.scene)
            self._source, self._batch = self.world.scene.mj_model, None
        if self._batch is None or self._batch.nsim < shots:
            self._batch = mujoco.batch.Batch(self.sensors.model, shots, nthread=1, persistent=True)
        return self._batch

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]:
        """These shots' results, in their order (:meth:`ShotEngine.fire`)."""
        world = self.world
        launches = [world.aimed_launch(shot) for shot in shots]
        if not launches:
            return []
        batch = self._prepare(len(launches))
        ids = np.arange(len(launches))
        self._start(batch, ids, launches)
        book = SensedBook(
            world.scene,
            world.design,
            world.bale_to_rest,
            world.layout_bounds,
            self.sensors,
            batch,
            len(launches),
        )
        ends = book.run()
        results: list[ShotResult | None] = [None] * len(launches)
        judge = Judge(ends.view)
        for i, launch in enumerate(launches):
            if ends.alone[i]:
                continue
            results[i] = self._result(launch, book, ends, judge, i)
        for alone in map(int, np.flatnonzero(ends.alone)):
            self.refired += 1
            results[alone] = world.shoot(shots[alone])
        return [r for r in results if r is not None]

    def _start(self, batch: Any, ids: np.ndarray, launches: list[Launch]) -> None:
        """Each shot's start, as the world makes it (module docstring)."""
        import mujoco

        world, scene = self.world, self.world.scene
        world.reset()  # the settled layout, the bale parked: every shot's first state
        data = scene.data
        turned, released = [], []
        for launch in launches:
            scene.turn_tractor(launch.yaw_deg)
            turned.append(data.mocap_quat.copy())
            scene.place(scene.bale, launch.release_mm, launch.orientation, launch.velocity_mm_s)
            released.append((data.qpos.copy(), data.qvel.copy()))
        world.reset()
        qpos, qvel, mocap = batch.bind("qpos"), batch.bind("qvel"), batch.bind("mocap_quat")
        batch.reset(ids, stage=mujoco.mjtStage.mjSTAGE_NONE)
        mocap[ids] = np.stack(turned)
        qpos[ids] = np.stack([r[0] for r in released])
        qvel[ids] = np.stack([r[1] for r in released])
        batch.forward(ids)

    def _result(
        self, launch: Launch, book: SensedBook, ends: Ends, judge: Judge, i: int
    ) -> ShotResult:
        """Shot ``i``'s result from its records and its end."""
        scene = self.world.scene
        ends.view.xpos, ends.view.xmat = ends.xpos[i], ends.xmat[i]
        left = book.left_at[i]
        return shot_result(
            launch,
            book.strikes[i],
            rest_mm=ends.xpos[i, scene.bale] / M_PER_MM if left is None else left,
            sim_time_s=int(ends.steps[i]) * scene.dt,
            settled=bool(book.settled[i]),
            piggies=judge.after_shot(book.piggies[j] for j in np.flatnonzero(book.woken[i])),
            hit_rule=self.world.hit_rule,
            recorder=None,
        )
