"""The stand-in shot engine: it holds a :class:`~sim.physics.bullet.scene.Scene`, fires bales
in it and judges.

Build a :class:`BulletWorld` once, then fire many shots from it: each shot starts from
the settled layout (piggies at their resting poses, everything still), turns the
tractor, releases the bale at the muzzle and steps until everything is at rest
(or a cap), then judges every piggy by the knock-out test (docs/rules/go-piggy-go.md,
ruling 7; :mod:`sim.physics.knockout`).

A shot runs through small parts with one job each: the stand-ins
(:mod:`sim.physics.bullet.stand_ins`), the drag, the contact log, the recorder, the bale's
leaving play and the rest detector (:mod:`sim.physics.bullet.shot_parts`), the early
verdict (:mod:`sim.physics.bullet.early_verdict`) and the judge (:mod:`sim.physics.judge`);
docs/architecture.md draws how they meet.
Lengths inside are cm (see :mod:`sim.physics.bullet.scene`); every interface speaks mm, g, s
and degrees.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.early_verdict import EarlyVerdict
from sim.physics.bullet.scene import REST_CHECK_EVERY, Scene
from sim.physics.bullet.shot_parts import (
    ContactLog,
    Drag,
    OutOfPlay,
    RestDetector,
    ShotLimits,
    recorder,
)
from sim.physics.bullet.stand_ins import StandIns
from sim.physics.engine import FiringEngine
from sim.physics.judge import Judge
from sim.physics.launch import Launch
from sim.physics.materials import Materials
from sim.physics.results import ShotResult
from sim.physics.shot_log import shot_result


class BulletWorld(FiringEngine):
    """The stand-in shot engine, holding the scene it fires in (Bullet's: the MuJoCo
    engine is :class:`sim.physics.mujoco.world.MujocoWorld`).

    Built as every engine is (:class:`~sim.physics.engine.FiringEngine`);
    :meth:`shoot` fires from the tractor, :meth:`launch` from anywhere.
    :class:`WindowedWorld` is one drawn in PyBullet's window (the sandbox).
    """

    scene: Scene
    engine = "bullet"
    #: Whether the scene is drawn in PyBullet's own window.
    gui = False

    def _make_scene(
        self, board: Board, design: Design, layout: Layout | None, hit_rule: str
    ) -> Scene:
        return Scene(board, design, layout, hit_rule=hit_rule, gui=self.gui)

    # --- the scene's data, for callers (the rest: FiringEngine) --------------------
    @property
    def client(self) -> int:
        return self.scene.client

    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]:
        """Each piggy's resting pose on the layout (body frame: mm, quaternion)."""
        return self.scene.rest_poses_mm()

    # --- layouts and resets ---------------------------------------------------------
    def set_layout(self, layout: Layout) -> None:
        """Stand the layout's piggies on their spaces, let them settle, and keep their
        resting poses: every shot starts from them. Then swap every piggy for its
        static stand-in and judge the layout as it stands."""
        self.scene.set_layout(layout)
        self._prepare_layout()

    def _prepare_layout(self) -> None:
        scene = self.scene
        # From now on an idle piggy is a static stand-in at its resting pose; a
        # dynamic body is made for it when something comes near.
        self.stand_ins = StandIns(scene)
        scene.colour_for_gui(list(scene.names))
        self.judge = Judge(scene)
        self.early_verdict = EarlyVerdict(scene)
        # Making the stand-ins removed the piggies' dynamic bodies, which moved the
        # bale in Bullet's body arrays (a removal swaps the last body into the gap).
        # Made anew it is the last, as it was when every shot made a new bale, and
        # every shot's reset leaves it there: the shots are the same bytes as then.
        scene.remove(scene.bale)
        scene.make_bale()
        self._reset()

    def reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout (what every shot starts from)."""
        self._reset(tractor_yaw_deg)

    def _reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout, everything at rest, the bale parked as new.

        The piggies woken in the last shot are removed, newest first, so that
        Bullet's body arrays return to the same order (the bale last); the bale is
        parked, its contact pairs dropped; the stand-ins go back to their resting
        poses; one empty step lets Bullet drop every other contact pair and manifold
        of the last shot (its warm-start impulses would carry into the next); then
        the bale is made as a new one (:meth:`Scene.reset_bale`). Every shot thus
        starts from the same state whatever came before (checked in
        tests/sim/physics/test_world.py). With ``sleep_at_rest`` off every piggy is
        woken at once.
        """
        scene = self.scene
        self.stand_ins.remove_made()
        scene.reset_bale()
        self.stand_ins.reset()
        scene.call(
            pb.resetBasePositionAndOrientation,
            scene.tractor,
            [0, 0, 0],
            pb.getQuaternionFromEuler([0, 0, math.radians(tractor_yaw_deg)]),
        )
        scene.call(pb.stepSimulation)
        scene.reset_bale()
        if not self.design.physics.sleep_at_rest:
            self.stand_ins.wake_all()

    def _set_materials(self, materials: Materials) -> None:
        """Scale the contact coefficients of the bodies that outlive a shot (board,
        fences, tractor, stand-ins); the bale reads the factors when reset for the
        shot, woken piggies when made."""
        scene = self.scene
        if materials == scene.materials:
            return
        scene.materials = materials
        surfaces = self.design.surfaces
        for body in scene.static_bodies:
            scene.call(
                pb.changeDynamics,
                body,
                -1,
                **scene.surface(surfaces.friction, surfaces.restitution, "surface"),
            )
        self.stand_ins.apply_materials()

    # --- shots (``shoot`` and ``launch``: FiringEngine) ------------------------------
    def turn(self, yaw_deg: float, pitch_deg: float) -> list[float]:
        return list(pb.getQuaternionFromEuler([math.radians(pitch_deg), 0, math.radians(yaw_deg)]))

    def _start(self, launch: Launch) -> None:
        self._set_materials(launch.materials)
        self._reset(launch.yaw_deg)

    def _run(
        self, launch: Launch, record_every: int, on_step: Callable[[], None] | None
    ) -> ShotResult:
        """Release the bale, step the parts until everything is at rest (or the time
        cap), and judge."""
        scene, stand_ins = self.scene, self.stand_ins
        bale, client, dt = scene.bale, scene.client, scene.dt
        velocity_mm_s = launch.velocity_mm_s
        scene.call(
            pb.resetBasePositionAndOrientation,
            bale,
            [c * CM_PER_MM for c in launch.release_mm],
            launch.orientation,
        )
        scene.call(pb.resetBaseVelocity, bale, [v * CM_PER_MM for v in velocity_mm_s], [0, 0, 0])
        limits = ShotLimits.of(scene, self.design, velocity_mm_s)
        drag, contacts, rest = (
            Drag(scene, self.design),
            ContactLog(scene),
            RestDetector(scene, self.design),
        )
        out_of_play = OutOfPlay(scene)
        frames = recorder(scene, record_every) if record_every else None
        bale_in_play, bale_cm = True, (math.nan, math.nan, math.nan)
        quiet: dict[str, int] = {}  # woken piggy -> steps it has been at rest
        if frames:
            frames.take(True)
        step = 0
        settled = False
        while step < limits.max_steps:
            if step >= stand_ins.look_at:
                moving = list(stand_ins.woken.values())
                stand_ins.wake_near(
                    [bale, *moving] if bale_in_play else moving, step, limits.reach_cm
                )
            if drag.active and bale_in_play:
                drag.push(bale)
            pb.stepSimulation(physicsClientId=client)
            step += 1
            if on_step is not None:
                on_step()
            if bale_in_play:
                contacts.read(bale, step)
            if frames:
                frames.stepped(step, bale_in_play)
            if step % REST_CHECK_EVERY:
                continue
            if bale_in_play:
                bale_in_play, bale_cm = out_of_play.check(bale)
            restless = self._restless(rest, bale_in_play, bale_cm, quiet, limits, out_of_play)
            if rest.settled(restless):
                settled = True
                break
        if frames:
            frames.finish(step, bale_in_play)
        return shot_result(
            launch,
            contacts,
            rest_mm=out_of_play.rest_mm(bale),
            sim_time_s=step * dt,
            settled=settled,
            piggies=self.judge.after_shot(stand_ins.disturbed),
            hit_rule=self.hit_rule,
            recorder=frames,
        )

    def _restless(
        self,
        rest: RestDetector,
        bale_in_play: bool,
        bale_cm: tuple[float, float, float],
        quiet: dict[str, int],
        limits: ShotLimits,
        out_of_play: OutOfPlay,
    ) -> set[int]:
        """At a check for rest, the bodies still moving: the woken stand-ins and the
        bale while in play, less those at rest (the quiet stand-ins frozen again, when
        the design sleeps bodies at rest), the stand-ins whose verdicts are sealed and,
        in a world that need not bring the bale to rest, a spent bale."""
        stand_ins, physics, bale = self.stand_ins, self.design.physics, self.scene.bale
        movers = [*stand_ins.woken.values(), bale] if bale_in_play else [*stand_ins.woken.values()]
        restless = rest.restless(movers)
        if physics.sleep_at_rest:
            stand_ins.freeze_quiet(
                quiet, restless, set(movers), limits.reach_cm, limits.freeze_steps
            )
        if physics.early_verdict and restless:
            restless -= self.early_verdict.sealed(
                restless & set(stand_ins.woken.values()), limits.ground_friction
            )
        if (
            not self.bale_to_rest
            and bale in restless
            and self.early_verdict.bale_spent(
                bale,
                bale_cm,
                limits.bale_friction,
                limits.bale_gyration_sq_mm2,
                out_of_play.surface_cm,
            )
        ):
            restless.discard(bale)
        return restless


class WindowedWorld(BulletWorld):
    """A Bullet world drawn in PyBullet's own window (the sandbox, sim/views/sandbox.py)."""

    gui = True
