"""The MuJoCo shot engine: the same shot as :class:`sim.physics.bullet.world.BulletWorld`'s, on a
:class:`~sim.physics.mujoco.scene.MujocoScene`, with the same parts where a part
needs no engine (the judge, the early verdict's rules, the strike log, the rest
count, the result) and MuJoCo's own where it reads the simulation.

A shot starts from the settled layout (the state saved when it settled, restored
whole: whatever came before, the same start), turns the tractor, releases the bale
at the muzzle and steps until everything moving is at rest (or the cap), then
judges the piggies the shot disturbed (touched by the bale or by a piggy it moved:
an untouched piggy keeps its verdict, as a Bullet stand-in does). mm, g, s and
degrees at every interface.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.ballistics import drag_constant_per_mm
from sim.physics.bodies import pair_friction
from sim.physics.early_verdict import LayoutBounds
from sim.physics.engine import FiringEngine
from sim.physics.judge import Judge
from sim.physics.launch import AimedShot, Launch
from sim.physics.materials import NOMINAL, Materials
from sim.physics.mujoco.early_verdict import EarlyVerdict
from sim.physics.mujoco.free_flight import FreeFlight
from sim.physics.mujoco.mjcf import M_PER_MM, SETTINGS, MujocoSettings
from sim.physics.mujoco.scene import MujocoScene
from sim.physics.results import ShotResult
from sim.physics.shot_log import REST_CHECK_S, Recorder, RestClock, StrikeLog, shot_result

#: Simulated time allowed for a new layout to settle, s (as Bullet's scene).
_SETTLE_TIME_S = 1.5


class MujocoWorld(FiringEngine):
    """The MuJoCo shot engine, built as every engine is
    (:class:`~sim.physics.engine.FiringEngine`): :meth:`shoot` fires from the tractor,
    :meth:`launch` from anywhere."""

    scene: MujocoScene
    engine = "mujoco"
    #: What MuJoCo is run with (the matching experiments' choice).
    settings: MujocoSettings = SETTINGS

    def _make_scene(
        self, board: Board, design: Design, layout: Layout | None, hit_rule: str
    ) -> MujocoScene:
        layout = layout or Layout(board=board, stacks={})
        return MujocoScene(board, design, layout, hit_rule, self.settings)

    def _prepare_layout(self) -> None:
        self._check_every = max(1, round(REST_CHECK_S / self.scene.dt))
        self.set_layout(self.scene.layout)

    # --- the scene's data, for callers (the rest: FiringEngine) --------------------
    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]:
        """Each piggy's resting pose on the layout (body frame: mm, quaternion)."""
        return dict(self._rest_poses)

    @property
    def layout_bounds(self) -> LayoutBounds:
        """What the early verdict needs of the layout (made once a layout)."""
        return self._early.bounds

    # --- layouts and resets ---------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        """Put the layout's piggies down, let them settle and keep the settled state:
        every shot starts from it. Then judge the layout as it stands."""
        if layout.board != self.scene.board:
            raise ValueError("the layout is for another board than this world's")
        scene = self.scene
        scene.layout = layout
        scene.build(scene.model.drop_poses_mm(scene.board, layout), NOMINAL)
        physics = scene.design.physics
        for step in range(int(_SETTLE_TIME_S / scene.dt)):
            scene.step()
            if (
                step % self._check_every == 0
                and step * scene.dt > 0.2
                and all(
                    scene.at_rest(b, physics.rest_speed_mm_s, math.radians(physics.rest_spin_deg_s))
                    for b in scene.piggy_bodies.values()
                )
            ):
                break
        self._settled = (scene.data.qpos.copy(), scene.data.qvel.copy() * 0.0)
        self._reset()
        self._rest_poses = {
            name: (list(scene.position_mm(b)), scene.quaternion(b))
            for name, b in scene.piggy_bodies.items()
        }
        self.judge = Judge(scene)
        self._early = EarlyVerdict(scene)

    def reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout (what every shot starts from)."""
        self._reset(tractor_yaw_deg)

    def _reset(self, tractor_yaw_deg: float = 0.0, materials: Materials = NOMINAL) -> None:
        """The whole simulation state back to the settled layout's: MuJoCo's data
        reset (warm starts, time, forces), the settled positions, nothing moving, the
        bale parked, the tractor turned, the materials' factors applied."""
        scene = self.scene
        scene.restore(self._settled)
        scene.park(scene.bale)
        scene.turn_tractor(tractor_yaw_deg)
        scene.set_materials(materials)
        scene.forward()

    # --- shots (``shoot`` and ``launch``: FiringEngine) ------------------------------
    #: Whether :meth:`fire` steps a look's shots together (False: one by one, as
    #: :meth:`shoot`; the same results).
    batched = True
    #: The fewest shots :meth:`fire` steps together: a batch's Python between chunks
    #: costs about the same for 2 shots as for 40, so fewer than about 10 are faster
    #: one by one (docs/physics.md, "Speed").
    batch_from = 10
    _cpu_batch = None

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]:
        """These shots' results, in their order: as one persistent ``mujoco.batch``
        (sim/physics/mujoco/batch.py, the same results as :meth:`shoot`'s, faster) where
        they have a batch form and are at least :attr:`batch_from`, else one by one."""
        from sim.physics.mujoco.batch import MujocoBatch, no_batch_form

        if (
            not self.batched
            or len(shots) < self.batch_from
            or any(no_batch_form(self.design, s.vary) for s in shots)
        ):
            return super().fire(shots)
        if self._cpu_batch is None:
            self._cpu_batch = MujocoBatch(self)
        return self._cpu_batch.fire(shots)

    @property
    def batch_refired(self) -> int:
        """Shots :meth:`fire`'s batches handed back to be fired alone (for the bench)."""
        return self._cpu_batch.refired if self._cpu_batch else 0

    def _start(self, launch: Launch) -> None:
        self._reset(launch.yaw_deg, launch.materials)

    def _run(
        self, launch: Launch, record_every: int, on_step: Callable[[], None] | None
    ) -> ShotResult:
        """Release the bale, step until everything moving is at rest (or the cap), and
        judge (``record_every`` counts this engine's steps)."""
        scene = self.scene
        design = self.design
        bale = scene.bale
        scene.place(bale, launch.release_mm, launch.orientation, launch.velocity_mm_s)
        scene.forward()
        physics = design.physics
        dt = scene.dt
        max_steps = round(physics.max_time_s / dt)
        strikes = StrikeLog.every(dt)
        woken: set[str] = set()
        self._last_pose: dict[int, tuple[float, ...]] = {}
        drag_k = drag_constant_per_mm(design) * 1e3  # per m
        frames = self._recorder(record_every) if record_every else None
        bale_in_play, left_at = True, None
        rest = RestClock(design, dt, self._check_every)
        factors = launch.materials
        bale_friction = pair_friction(design, "bale", "surface") * factors.pair_friction(
            "bale", "surface"
        )
        piggy_friction = pair_friction(design, "piggy", "surface") * factors.pair_friction(
            "piggy", "surface"
        )
        if frames:
            frames.take(True)
        step, settled = 0, False
        # the bale's flights stepped in one call, when nothing reads a step between
        flight = None if drag_k or on_step or record_every else FreeFlight(scene)
        while step < max_steps:
            steps = 1
            if flight is not None and not woken:
                steps = flight.free_steps(
                    min(max_steps, step - step % self._check_every + self._check_every) - step
                )
            if drag_k and bale_in_play:
                self._drag(drag_k)
            scene.step(steps)
            step += steps
            if on_step is not None:
                on_step()
            self._read_contacts(step, strikes, woken, bale_in_play)
            if frames:
                frames.stepped(step, bale_in_play)
            if step % self._check_every:
                continue
            if bale_in_play:
                bale_in_play, left_at = self._in_play()
            if rest.settled(self._moving(woken, bale_in_play, bale_friction, piggy_friction)):
                settled = True
                break
        if frames:
            frames.finish(step, bale_in_play)
        scene.check_stable()
        return shot_result(
            launch,
            strikes,
            rest_mm=scene.position_mm(bale) if left_at is None else left_at,
            sim_time_s=step * dt,
            settled=settled,
            piggies=self.judge.after_shot(woken),
            hit_rule=self.hit_rule,
            recorder=frames,
        )

    def _read_contacts(
        self, step: int, strikes: StrikeLog, woken: set[str], bale_in_play: bool
    ) -> None:
        """The bale's strikes of this step (a contact that pushed: a body, or a static
        geom, is one thing), and the piggies it or a moving piggy touched (woken: the
        shot disturbs them). Plain Python on the few contacts of a step: cheaper than
        numpy's calls on arrays this small."""
        scene = self.scene
        if not scene.data.ncon:
            return
        bale_geoms, piggy_geoms, names = scene.bale_geoms, scene.piggy_geoms, scene.geom_names
        for i, (g1, g2) in enumerate(scene.contact_geoms()):
            if g1 in bale_geoms or g2 in bale_geoms:
                other = g2 if g1 in bale_geoms else g1
                if other in piggy_geoms:
                    woken.add(names[other])
                if bale_in_play and scene.contact_force(i) > 0.0:
                    body = int(scene.mj_model.geom_bodyid[other])
                    key = body or -1 - other  # a static geom is a thing of its own
                    strikes.touch(
                        key, names[other], step, partial(scene.contact_point, i), self._bale_at
                    )
            elif g1 in piggy_geoms and g2 in piggy_geoms:
                a, b = names[g1], names[g2]
                if a in woken or b in woken:
                    woken.update((a, b))

    def _bale_at(self) -> list[float]:
        return [float(v) for v in self.scene.position_mm(self.scene.bale)]

    def _moving(
        self, woken: set[str], bale_in_play: bool, bale_friction: float, piggy_friction: float
    ) -> bool:
        """At a check for rest, whether anything still moves: a woken piggy not at
        rest and not sealed (the early verdict), or the bale in play and not at rest
        (nor spent, in a world that need not bring it to rest). At rest is judged on
        the way since the last check (:meth:`_quiet`), not on the velocity now."""
        scene, physics = self.scene, self.design.physics
        restless = {n for n in woken if not self._quiet(scene.piggy_bodies[n])}
        if physics.early_verdict and restless:
            restless -= self._early.sealed(restless, piggy_friction)
        bale_quiet = not bale_in_play or self._quiet(scene.bale)
        if restless:
            return True
        if bale_quiet:
            return False
        return self.bale_to_rest or not self._early.bale_spent(bale_friction)

    def _quiet(self, body: int) -> bool:
        """Whether a body went no farther than the rest speed and turned no more than
        the rest spin allow since the last check. A body resting on MuJoCo's soft
        contacts trembles (a contact is a damped spring): its velocity now may pass
        the rest speed while it goes nowhere, so the way it went is what counts."""
        scene, physics = self.scene, self.design.physics
        pose = (*scene.data.xpos[body].tolist(), *scene.data.xquat[body].tolist())
        last = self._last_pose.get(body)
        self._last_pose[body] = pose
        if last is None:
            return False
        interval = self._check_every * scene.dt
        moved_m = math.dist(pose[:3], last[:3])
        turned = 2.0 * math.acos(
            min(1.0, abs(sum(a * b for a, b in zip(pose[3:], last[3:], strict=True))))
        )
        return (
            moved_m <= physics.rest_speed_mm_s * 1e-3 * interval
            and turned <= math.radians(physics.rest_spin_deg_s) * interval
        )

    def _in_play(self) -> tuple[bool, np.ndarray | None]:
        """Whether the bale is still in play (beside the board's surface and below its
        top: out, parked where it can touch nothing more)."""
        scene = self.scene
        x, y, z = scene.position_mm(scene.bale)
        x0, x1, y0, y1 = scene.board.surface_extent_mm
        if not (x0 <= x <= x1 and y0 <= y <= y1) and z < 0:
            left = np.array([x, y, z])
            scene.park(scene.bale)
            return False, left
        return True, None

    def _drag(self, k_per_m: float) -> None:
        """The bale's quadratic air drag, F = -k m |v| v, for the next step."""
        scene = self.scene
        v, _ = scene.velocity(scene.bale)
        v_m = v * 1e-3
        mass_kg = self.design.bale.mass_g * 1e-3
        scene.data.xfrc_applied[scene.bale, :3] = -k_per_m * mass_kg * np.linalg.norm(v_m) * v_m

    def _recorder(self, every: int) -> Recorder:
        """The engine-neutral recorder on this scene: the bale's and the piggies'
        poses (m, quaternions turned to (x, y, z, w))."""
        scene = self.scene
        bodies = [scene.bale, *scene.piggy_bodies.values()]

        def poses() -> list[tuple[list[float], list[float]]]:
            return [(scene.data.xpos[b].tolist(), scene.quaternion(b)) for b in bodies]

        return Recorder(every, scene.dt, list(scene.piggy_bodies), poses, M_PER_MM)
