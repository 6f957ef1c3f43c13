"""The MuJoCo shot engine: the same shot as :class:`sim.physics.world.World`'s, on a
:class:`~sim.physics.mujoco_scene.MujocoScene`, with the same parts where a part
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
from dataclasses import dataclass
from functools import partial

import numpy as np

from models.aimer import PERFECT, Aimer
from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.ballistics import direction, drag_constant_per_mm, release_point_mm
from sim.physics.bodies import pair_friction
from sim.physics.early_verdict import (
    LayoutBounds,
    Motion,
    sealed_touch_radius_mm,
    touch_radius_mm,
)
from sim.physics.judge import Judge
from sim.physics.materials import NOMINAL, Materials
from sim.physics.mujoco_scene import SETTINGS, MujocoScene, MujocoSettings
from sim.physics.noise import Deviates, fired_with
from sim.physics.results import Recording, ShotResult
from sim.physics.scene_queries import SceneQueries
from sim.physics.shot_parts import STRIKE_GAP_S, StrikeLog

#: Simulated time between two checks for rest, s (Bullet's: every 10 steps of 1 ms).
REST_CHECK_S = 0.01
#: Simulated time allowed for a new layout to settle, s (as Bullet's scene).
_SETTLE_TIME_S = 1.5


@dataclass(frozen=True)
class Launch:
    """How a shot leaves the tractor, noise drawn: the tractor's yaw and pitch
    (degrees), the muzzle speed (mm/s), the materials' factors, and the bale's
    release point (mm), velocity (mm/s) and orientation (x, y, z, w)."""

    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float
    materials: Materials
    release_mm: np.ndarray
    velocity_mm_s: np.ndarray
    orientation: list[float]


def launch_state(
    design: Design,
    yaw_deg: float,
    pitch_deg: float,
    *,
    seed: int | None = 0,
    noise: bool = True,
    aimer: Aimer = PERFECT,
    vary: dict[str, float] | None = None,
    deviates: Deviates | None = None,
) -> Launch:
    """A shot's launch from the tractor set at ``yaw_deg``, ``pitch_deg``, its errors
    drawn from ``seed`` (or given as ``deviates``): what :meth:`MujocoWorld.shoot`
    fires, and the batch of :mod:`sim.physics.warp_batch` too. No engine here."""
    yaw_deg, pitch_deg, speed, materials = fired_with(
        design.launcher,
        yaw_deg,
        pitch_deg,
        seed=seed,
        noise=noise,
        aimer=aimer,
        vary=vary,
        deviates=deviates,
    )
    release = release_point_mm(design, yaw_deg, pitch_deg)
    velocity = speed * direction(yaw_deg, pitch_deg)
    half_yaw, half_pitch = math.radians(yaw_deg) / 2, math.radians(pitch_deg) / 2
    # the bale turned as Bullet's getQuaternionFromEuler([pitch, 0, yaw]) turns it
    orientation = _euler_xz(half_pitch, half_yaw)
    return Launch(yaw_deg, pitch_deg, speed, materials, release, velocity, orientation)


class MujocoWorld(SceneQueries):
    """The MuJoCo shot engine (``World(board, design, layout, hit_rule=...,
    bale_to_rest=...)`` as Bullet's): :meth:`shoot` fires from the tractor,
    :meth:`launch` from anywhere."""

    scene: MujocoScene
    engine = "mujoco"

    def __init__(
        self,
        board: Board,
        design: Design,
        layout: Layout | None = None,
        *,
        hit_rule: str = "touches-line",
        bale_to_rest: bool = True,
        settings: MujocoSettings = SETTINGS,
    ):
        self.bale_to_rest = bale_to_rest
        self.scene = MujocoScene(
            board, design, layout or Layout(board=board, stacks={}), hit_rule, settings
        )
        self._check_every = max(1, round(REST_CHECK_S / self.scene.dt))
        self._gap_steps = max(1, round(STRIKE_GAP_S / self.scene.dt))
        self.set_layout(self.scene.layout)

    # --- the scene's data, for callers (the rest: SceneQueries) --------------------
    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]:
        """Each piggy's resting pose on the layout (body frame: mm, quaternion)."""
        return dict(self._rest_poses)

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
        self.judge = Judge(scene)  # type: ignore[arg-type]  # a scene as the judge reads one
        self._early = _EarlyVerdict(scene)

    def reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout (what every shot starts from)."""
        self._reset(tractor_yaw_deg)

    def _reset(self, tractor_yaw_deg: float = 0.0, materials: Materials = NOMINAL) -> None:
        """The whole simulation state back to the settled layout's: MuJoCo's data
        reset (warm starts, time, forces), the settled positions, nothing moving, the
        bale parked, the tractor turned, the materials' factors applied."""
        scene = self.scene
        scene._mj.mj_resetData(scene.mj_model, scene.data)
        qpos, qvel = self._settled
        scene.data.qpos[:] = qpos
        scene.data.qvel[:] = qvel
        scene.park(scene.bale)
        scene.turn_tractor(tractor_yaw_deg)
        scene.set_materials(materials)
        scene.forward()

    # --- shots ------------------------------------------------------------------------
    def shoot(
        self,
        yaw_deg: float,
        pitch_deg: float,
        *,
        seed: int | None = 0,
        noise: bool = True,
        aimer: Aimer = PERFECT,
        vary: dict[str, float] | None = None,
        deviates: Deviates | None = None,
        record_every: int = 0,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult:
        """Turn and tilt the tractor, fire one bale, and judge every piggy (the
        arguments are :meth:`sim.physics.world.World.shoot`'s; ``record_every`` counts
        this engine's steps)."""
        fired = launch_state(
            self.design,
            yaw_deg,
            pitch_deg,
            seed=seed,
            noise=noise,
            aimer=aimer,
            vary=vary,
            deviates=deviates,
        )
        self._reset(fired.yaw_deg, fired.materials)
        return self._run(
            fired.release_mm,
            fired.velocity_mm_s,
            fired.orientation,
            (fired.yaw_deg, fired.pitch_deg, fired.speed_mm_s, fired.materials),
            record_every,
            on_step,
        )

    def launch(
        self,
        position_mm: Sequence[float] | np.ndarray,
        velocity_mm_s: Sequence[float] | np.ndarray,
        orientation: Sequence[float] = (0, 0, 0, 1),
        *,
        record_every: int = 0,
        reset: bool = True,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult:
        """Release the bale anywhere with any velocity (mm, mm/s), run, and judge."""
        if reset:
            self._reset()
        vx, vy, vz = (float(v) for v in velocity_mm_s)
        fired = (
            math.degrees(math.atan2(-vx, vy)),
            math.degrees(math.atan2(vz, math.hypot(vx, vy))),
            float(np.linalg.norm(velocity_mm_s)),
            self.scene.materials,
        )
        return self._run(position_mm, velocity_mm_s, orientation, fired, record_every, on_step)

    def _run(
        self, position_mm, velocity_mm_s, orientation, fired, record_every, on_step
    ) -> ShotResult:
        """Release the bale, step until everything moving is at rest (or the cap), and
        judge."""
        scene = self.scene
        design = self.design
        bale = scene.bale
        scene.place(bale, position_mm, orientation, velocity_mm_s)
        scene.forward()
        physics = design.physics
        dt = scene.dt
        max_steps = round(physics.max_time_s / dt)
        strikes = StrikeLog(self._gap_steps)
        woken: set[str] = set()
        self._last_pose: dict[int, tuple[float, ...]] = {}
        drag_k = drag_constant_per_mm(design) * 1e3  # per m
        frames: list = []
        bale_in_play, left_at = True, None
        quiet_steps, rest_needed = 0, max(1, round(physics.rest_time_s / dt))
        bale_friction = pair_friction(design, "bale", "surface") * fired[3].friction ** 2
        piggy_friction = pair_friction(design, "piggy", "surface") * fired[3].friction ** 2
        if record_every:
            frames.append(self._frame(True))
        step, settled = 0, False
        # the bale's flights stepped in one call, when nothing reads a step between
        flight = None if drag_k or on_step or record_every else _FreeFlight(scene)
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
            if record_every and step % record_every == 0:
                frames.append(self._frame(bale_in_play))
            if step % self._check_every:
                continue
            if bale_in_play:
                bale_in_play, left_at = self._in_play()
            if self._moving(woken, bale_in_play, bale_friction, piggy_friction):
                quiet_steps = 0
                continue
            quiet_steps += self._check_every
            if quiet_steps >= rest_needed:
                settled = True
                break
        if record_every and step % record_every:
            frames.append(self._frame(bale_in_play))
        scene.check_stable()
        piggies = dict(self.judge.at_rest)
        piggies.update(self.judge.verdicts(sorted(woken)))
        yaw, pitch, speed, materials = fired
        rest = scene.position_mm(bale) if left_at is None else left_at
        return ShotResult(
            yaw_deg=yaw,
            pitch_deg=pitch,
            speed_mm_s=speed,
            release_mm=list(map(float, position_mm)),
            first_contact_mm=strikes.points_mm[0] if strikes.points_mm else None,
            first_contact_with=strikes.struck[0] if strikes.struck else None,
            first_contact_centre_mm=strikes.first_centre_mm,
            rest_mm=[float(v) for v in rest],
            contacts=strikes.struck,
            contact_points_mm=strikes.points_mm,
            sim_time_s=step * dt,
            settled=settled,
            piggies=piggies,
            hit_rule=self.hit_rule,
            recording=self._recording(frames, record_every) if record_every else None,
            materials=materials,
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

    def _frame(self, bale_in_play: bool):
        scene = self.scene
        bodies = [scene.bale, *scene.piggy_bodies.values()]
        return bale_in_play, [(list(scene.position_mm(b)), scene.quaternion(b)) for b in bodies]

    def _recording(self, frames: list, every: int) -> Recording:
        names = list(self.scene.piggy_bodies)
        positions = np.array([[p for p, _ in poses] for _, poses in frames])
        quats = np.array([[q for _, q in poses] for _, poses in frames])
        return Recording(
            dt_s=every * self.scene.dt,
            bale_mm=positions[:, 0],
            bale_quat=quats[:, 0],
            bale_in_play=np.array([in_play for in_play, _ in frames]),
            piggies_mm={n: positions[:, i + 1] for i, n in enumerate(names)},
            piggies_quat={n: quats[:, i + 1] for i, n in enumerate(names)},
        )


def _euler_xz(half_x: float, half_z: float) -> list[float]:
    """(x, y, z, w) of a turn about x by twice ``half_x``, then about z by twice
    ``half_z`` (Bullet's Euler order for [pitch, 0, yaw])."""
    cx, sx, cz, sz = math.cos(half_x), math.sin(half_x), math.cos(half_z), math.sin(half_z)
    return [cz * sx, sz * sx, sz * cx, cz * cx]


class _EarlyVerdict:
    """The early verdict's checks (:mod:`sim.physics.early_verdict`) on a MuJoCo
    scene: which woken piggies are sealed, and whether the bale is spent."""

    def __init__(self, scene: MujocoScene):
        self.scene = scene
        m = scene.mj_model
        bounds = LayoutBounds.of(scene)
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


class _FreeFlight:
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
        i = scene._qvel_of[scene.bale]
        speed = float(np.linalg.norm(data.qvel[i : i + 3]))
        steps = limit
        while steps > 1 and steps * dt * (speed + self._gravity * steps * dt) >= gap:
            steps -= 1
        return steps
