"""The stand-in shot engine: fire bales in a :class:`~sim.physics.scene.Scene` and judge.

Build a :class:`World` once, then fire many shots from it: each shot starts from
the settled layout (piggies at their resting poses, everything still), turns the
tractor, releases the bale at the muzzle and steps until everything is at rest
(or a cap), then judges every piggy by the knock-out test (docs/rules/go-piggy-go.md,
ruling 7; :mod:`sim.physics.knockout`).

Idle piggies are static stand-ins: a piggy is woken (made a dynamic body) when
something moving comes near, and frozen back when it has come to rest
(docs/physics.md describes the engine and its price). Lengths inside are cm (see
:mod:`sim.physics.scene`); every interface speaks mm, g, s and degrees.
"""

from __future__ import annotations

import math

import numpy as np

from models.aimer import PERFECT, Aimer
from models.board import Board, space_name
from models.design import Design
from models.layout import Layout
from sim.physics.ballistics import (
    GRAVITY_MM_S2,
    direction,
    drag_constant_per_mm,
    release_point_mm,
)
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.materials import NOMINAL, Materials
from sim.physics.noise import Deviates, deviate_errors, seeded_errors
from sim.physics.results import PiggyResult, Recording, ShotResult
from sim.physics.scene import REST_CHECK_EVERY, parking_cm
from sim.physics.sealing import Sealing

#: Speed a falling bale can add to its muzzle speed over the board (a 300 mm drop), mm/s.
_FALL_SPEED_MM_S = math.sqrt(2 * GRAVITY_MM_S2 * 300.0)
#: Touches of one body less than this apart are one strike (a rattling bale), s.
_STRIKE_GAP_S = 0.02
#: A woken piggy at rest this long goes back to its stand-in (two checks for rest), s.
_FREEZE_AFTER_S = 0.02


class World(Sealing):
    """A :class:`~sim.physics.scene.Scene` that fires shots: the stand-in shot engine.

    Built like a scene (``World(board, design, layout, hit_rule=..., gui=...)``);
    :meth:`shoot` fires from the tractor, :meth:`launch` from anywhere.

    ``bale_to_rest=False`` makes a world for studies that count verdicts and strikes
    only: a shot may then end while the bale still slides, once nothing but the board
    is within its reach (it can strike nothing more, so every verdict and every
    strike but its last touches of the board are the same; ``rest_mm`` is then where
    it was, and ``sim_time_s`` shorter; docs/physics.md, "The bale's early verdict").
    """

    def __init__(
        self,
        board: Board,
        design: Design,
        layout: Layout | None = None,
        *,
        hit_rule: str = "touches-line",
        gui: bool = False,
        bale_to_rest: bool = True,
    ):
        self.bale_to_rest = bale_to_rest
        super().__init__(board, design, layout, hit_rule=hit_rule, gui=gui)

    def set_layout(self, layout: Layout) -> None:
        """Stand the layout's piggies on their spaces, let them settle, and keep their
        resting poses: every shot starts from them. Then swap every piggy for its
        static stand-in and judge the layout as it stands."""
        super().set_layout(layout)
        # From now on an idle piggy is a static stand-in at its resting pose; a
        # dynamic body is made for it when something comes near (see _wake).
        self._proxies = {}
        piggy = self.design.piggy
        for name, body in self._piggy_bodies.items():
            self._call(pb.removeBody, body)
            del self._names[body]
            position, orientation = self._rest_poses_cm[name]
            proxy = self._call(
                pb.createMultiBody,
                0,
                self._piggy_shape,
                basePosition=position,
                baseOrientation=orientation,
                useMaximalCoordinates=True,
            )
            self._call(
                pb.changeDynamics, proxy, -1, **self._surface(piggy.friction, piggy.restitution)
            )
            self._proxies[name] = proxy
            self._names[proxy] = name
        # bounding boxes (low, high), cm, of the stand-ins where they stand
        self._rest_boxes = {name: self._call(pb.getAABB, p) for name, p in self._proxies.items()}
        self._stand_in_boxes = dict(self._rest_boxes)
        self._in_play = None  # [(name, low, high)] of the stand-ins in play, when known
        self._piggy_bodies = dict(self._proxies)
        self._woken: dict[str, int] = {}  # piggy -> its dynamic body, in waking order
        self._disturbed: set[str] = set()  # piggies woken in this shot
        self._made: list[int] = []  # dynamic bodies made in this shot, oldest first
        self._look_at = 0  # step of the next look for stand-ins to wake
        self._colour_for_gui(list(self._names))
        self._start_positions_mm = {n: self._position_mm(b) for n, b in self._piggy_bodies.items()}
        self.start_parts_mm = {n: self.piggy_parts_mm(n) for n in self._piggy_bodies}
        self._rest_results = self._judge(self._layout.piggies)
        self._prepare_sealing(layout)
        self._reset()

    def _park(self, body: int, slot: int) -> None:
        """Put a moving body out of play for the rest of the shot: at its own slot in
        the air, beyond the table, where it falls touching nothing.

        Not removed, nor taken out of collisions (which re-adds it to the world):
        either changes Bullet's body order in the middle of a shot, and later
        shots then depended on it."""
        self._call(pb.resetBasePositionAndOrientation, body, parking_cm(slot), [0, 0, 0, 1])
        self._call(pb.resetBaseVelocity, body, [0, 0, 0], [0, 0, 0])

    def _wake(self, piggy: str) -> int:
        """Swap a piggy's static stand-in for a new dynamic body at rest at the same
        pose; return that body."""
        proxy = self._proxies[piggy]
        pose = self._call(pb.getBasePositionAndOrientation, proxy)
        self._call(
            pb.resetBasePositionAndOrientation,
            proxy,
            parking_cm(1 + list(self._proxies).index(piggy)),
            [0, 0, 0, 1],
        )
        self._in_play = None
        body = self._make_piggy(piggy, *pose)
        self._made.append(body)
        self._piggy_bodies[piggy] = body
        self._woken[piggy] = body
        self._disturbed.add(piggy)
        return body

    def _freeze(self, piggy: str) -> None:
        """Swap a woken piggy that has come to rest back for its static stand-in,
        where it now lies (Bullet's sleeping, at no cost at all)."""
        body = self._woken.pop(piggy)
        pose = self._call(pb.getBasePositionAndOrientation, body)
        # parked, not removed: bodies are removed only newest first (see _reset)
        self._park(body, len(self._proxies) + 1 + self._made.index(body))
        self._call(pb.resetBasePositionAndOrientation, self._proxies[piggy], *pose)
        self._piggy_bodies[piggy] = self._proxies[piggy]
        self._stand_in_boxes[piggy] = self._call(pb.getAABB, self._proxies[piggy])
        self._in_play = None

    def _freeze_quiet(
        self,
        quiet: dict[str, int],
        restless: set[int],
        in_play: set[int],
        reach_cm: float,
        quiet_steps_needed: int,
    ) -> None:
        """Freeze the woken piggies that have been at rest for ``quiet_steps_needed``
        steps, as groups: a piggy goes only if every other body in play within reach
        of it goes too (a body left in play would wake it again at once)."""
        for piggy, body in self._woken.items():
            quiet[piggy] = 0 if body in restless else quiet.get(piggy, 0) + REST_CHECK_EVERY
        going = {
            body: piggy for piggy, body in self._woken.items() if quiet[piggy] >= quiet_steps_needed
        }
        near = {body: self._near(body, reach_cm, in_play - {body}) for body in going}
        while True:
            staying = [body for body in going if not near[body] <= going.keys()]
            if not staying:
                break
            for body in staying:
                del going[body]
        for piggy in sorted(going.values()):
            self._freeze(piggy)
            del quiet[piggy]  # woken again, it starts counting anew

    def _near(self, body: int, reach_cm: float, others: set[int]) -> set[int]:
        """Those of ``others`` within ``reach_cm`` of a body's bounding box."""
        low, high = self._call(pb.getAABB, body)
        near = self._call(
            pb.getOverlappingObjects, [c - reach_cm for c in low], [c + reach_cm for c in high]
        )
        return {other for other, _ in near or () if other in others}

    def _wake_near(self, movers: list[int], step: int, reach_cm: float) -> None:
        """Wake every stand-in within ``reach_cm`` (two steps' travel at the fastest)
        of a moving body's bounding box, so that it is dynamic before anything can
        touch it.

        The next look is due when a moving body could have closed the smallest gap
        to within one reach: the piggies woken, and when, are those a look at every
        step would wake.
        """
        if self._in_play is None:
            self._in_play = [
                (name, *self._stand_in_boxes[name])
                for name, proxy in self._proxies.items()
                if self._piggy_bodies[name] == proxy
            ]
        if not movers or not self._in_play:
            self._look_at = step + 1
            return
        # plain Python: a few boxes, called on a third of the steps (numpy was slower)
        nearest, reached = math.inf, set()
        for body in movers:
            (l0, l1, l2), (h0, h1, h2) = pb.getAABB(body, physicsClientId=self.client)
            for name, (a0, a1, a2), (b0, b1, b2) in self._in_play:
                # the gap between the boxes along the axis where they lie farthest apart
                gap = max(a0 - h0, a1 - h1, a2 - h2, l0 - b0, l1 - b1, l2 - b2)
                if gap <= reach_cm:
                    reached.add(name)
                nearest = min(nearest, gap)
        if reached:
            # in a fixed order: creation order steers the solver
            for piggy in sorted(reached):
                self._wake(piggy)
            self._look_at = step + 1
        else:
            self._look_at = step + max(1, int((nearest - reach_cm) / (reach_cm / 2)) - 1)

    def shoot(
        self,
        yaw_deg: float,
        pitch_deg: float,
        *,
        seed: int | None = 0,
        noise: bool = True,
        aimer: Aimer = PERFECT,
        vary: dict | None = None,
        deviates: Deviates | None = None,
        record_every: int = 0,
        on_step=None,
    ) -> ShotResult:
        """Turn and tilt the tractor, fire one bale, and judge every piggy.

        Parameters
        ----------
        yaw_deg, pitch_deg : the aim asked for, degrees; pitch within the design's range.
        seed : seeds the shot's noise: the launcher's spread (speed, turret and tilt
            play), then the aimer's error, then the ``vary`` factors, drawn in that
            order so that adding an aimer or ``vary`` leaves the earlier draws as they
            were (sim/physics/noise.py).
        noise : ``False`` fires exactly as asked at the mean speed, nominal materials.
        aimer : the person aiming (models/aimer.py); the default aims perfectly.
        vary : relative half-ranges of the guessed physical parameters
            (sim/physics/materials.py), one factor each drawn per shot.
        deviates : the shot's errors given as standard deviates instead of drawn from
            ``seed`` (a sampler's point: sim/physics/noise.py).
        record_every : record every body's pose every this many steps (0: not at all).
        on_step : called after every step (the sandbox uses it to play in real time).
        """
        launcher = self.design.launcher
        materials = NOMINAL
        if noise:
            errors = (
                seeded_errors(seed, launcher, aimer, vary)
                if deviates is None
                else deviate_errors(deviates, launcher, aimer, vary)
            )
            yaw_deg += errors.d_yaw_deg
            pitch_deg += errors.d_pitch_deg
            speed = errors.speed_mm_s
            materials = errors.materials
        else:
            speed = launcher.muzzle_speed_mm_s
        self._set_materials(materials)
        self._reset(yaw_deg)
        release = release_point_mm(self.design, yaw_deg, pitch_deg)
        velocity = speed * direction(yaw_deg, pitch_deg)
        orientation = pb.getQuaternionFromEuler([math.radians(pitch_deg), 0, math.radians(yaw_deg)])
        result = self.launch(
            release, velocity, orientation, record_every=record_every, reset=False, on_step=on_step
        )
        result.yaw_deg, result.pitch_deg, result.speed_mm_s = yaw_deg, pitch_deg, speed
        result.materials = materials
        return result

    def _set_materials(self, materials: Materials) -> None:
        """Scale the contact coefficients of the bodies that outlive a shot (board,
        fences, tractor, stand-ins); the bale and woken piggies are made anew each
        shot and read the factors when made."""
        if materials == self._materials:
            return
        self._materials = materials
        surfaces, piggy = self.design.surfaces, self.design.piggy
        for body in self._static_bodies:
            self._call(
                pb.changeDynamics,
                body,
                -1,
                **self._surface(surfaces.friction, surfaces.restitution),
            )
        for proxy in self._proxies.values():
            self._call(
                pb.changeDynamics, proxy, -1, **self._surface(piggy.friction, piggy.restitution)
            )

    def reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout (what every shot starts from)."""
        self._reset(tractor_yaw_deg)

    def _reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout, everything at rest, the bale parked.

        The last shot's moving bodies (bale, woken piggies) are removed, newest
        first, so that Bullet's body arrays return to the same order; the stand-ins
        go back to their resting poses; one empty step lets Bullet drop every
        contact pair and manifold of the last shot (its warm-start impulses would
        carry into the next); then a new bale is made. Every shot thus starts from
        the same state whatever came before (checked in tests/sim/test_world.py).
        With ``sleep_at_rest`` off every piggy is woken at once.
        """
        for body in [*reversed(self._made), self._bale]:
            self._call(pb.removeBody, body)
            del self._names[body]
        for piggy in self._disturbed:
            self._call(
                pb.resetBasePositionAndOrientation,
                self._proxies[piggy],
                *self._rest_poses_cm[piggy],
            )
            self._piggy_bodies[piggy] = self._proxies[piggy]
        self._woken, self._made, self._disturbed, self._look_at = {}, [], set(), 0
        self._stand_in_boxes, self._in_play = dict(self._rest_boxes), None
        self._call(
            pb.resetBasePositionAndOrientation,
            self._tractor,
            [0, 0, 0],
            pb.getQuaternionFromEuler([0, 0, math.radians(tractor_yaw_deg)]),
        )
        self._call(pb.stepSimulation)
        self._make_bale()
        if not self.design.physics.sleep_at_rest:
            for piggy in self._proxies:
                self._wake(piggy)

    def launch(
        self,
        position_mm,
        velocity_mm_s,
        orientation=(0, 0, 0, 1),
        *,
        record_every: int = 0,
        reset: bool = True,
        on_step=None,
    ) -> ShotResult:
        """Release the bale anywhere with any velocity (mm, mm/s), run, and judge.

        :meth:`shoot` is this with the bale at the muzzle; tests use it directly
        to fire from close range or under a piggy's belly.

        Idle piggies are static stand-ins. A stand-in that comes within two steps'
        travel of a moving body's bounding box is swapped for a dynamic body, at
        rest, before anything can touch it (:meth:`_wake_near`); a woken piggy at
        rest, with nothing in play near it, goes back to a stand-in (:meth:`_freeze`).
        """
        if reset:
            self._reset()
        physics = self.design.physics
        bale, client = self._bale, self.client
        pos_cm = [c * CM_PER_MM for c in position_mm]
        self._call(pb.resetBasePositionAndOrientation, bale, pos_cm, list(orientation))
        self._call(pb.resetBaseVelocity, bale, [v * CM_PER_MM for v in velocity_mm_s], [0, 0, 0])
        launcher = self.design.launcher
        fastest_mm_s = max(
            float(np.linalg.norm(velocity_mm_s)),
            launcher.muzzle_speed_mm_s + 4 * launcher.speed_sd_mm_s,
        )
        reach = 2 * (fastest_mm_s + _FALL_SPEED_MM_S) * self._dt * CM_PER_MM
        drag = drag_constant_per_mm(self.design) / CM_PER_MM  # 1/cm
        drag_mass = self.design.bale.mass_g
        rest_speed = physics.rest_speed_mm_s * CM_PER_MM
        rest_spin = math.radians(physics.rest_spin_deg_s)
        rest_steps_needed = max(1, round(physics.rest_time_s / self._dt))
        freeze_steps = max(1, round(_FREEZE_AFTER_S / self._dt))
        max_steps = round(physics.max_time_s / self._dt)
        x0, x1, y0, y1 = self.board.surface_extent_mm
        surface_cm = (x0 * CM_PER_MM, x1 * CM_PER_MM, y0 * CM_PER_MM, y1 * CM_PER_MM)

        # the least friction a piggy can slide with, on the board or the table
        ground_friction = min(self._call(pb.getDynamicsInfo, g, -1)[1] for g in self._ground)
        mass, bale_friction, inertia = self._call(pb.getDynamicsInfo, bale, -1)[:3]
        bale_friction *= ground_friction
        bale_gyration_sq = max(inertia) / mass / CM_PER_MM**2  # mm^2
        last_touch: dict[int, int] = {}
        strike_gap = max(1, round(_STRIKE_GAP_S / self._dt))
        contacts: list[str] = []
        points: list[list[float]] = []
        first_centre = None
        out_of_play_at = None
        bale_in_play = True
        rest_steps = 0
        quiet: dict[str, int] = {}  # woken piggy -> steps it has been at rest
        frames: list[tuple] = []
        names = list(self._piggy_bodies)

        def record(in_play: bool) -> None:
            poses = [
                pb.getBasePositionAndOrientation(b, physicsClientId=client)
                for b in [bale, *(self._piggy_bodies[n] for n in names)]
            ]
            frames.append((in_play, poses))

        if record_every:
            record(True)
        step = 0
        settled = False
        step_fn, contact_fn = pb.stepSimulation, pb.getContactPoints
        while step < max_steps:
            if step >= self._look_at:
                moving = list(self._woken.values())
                self._wake_near([bale, *moving] if bale_in_play else moving, step, reach)
            if drag and bale_in_play:  # F = -k m |v| v, in the world frame, at the centre
                v, _ = pb.getBaseVelocity(bale, physicsClientId=client)
                centre, _ = pb.getBasePositionAndOrientation(bale, physicsClientId=client)
                speed = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                f = -drag * drag_mass * speed
                pb.applyExternalForce(
                    bale,
                    -1,
                    [f * v[0], f * v[1], f * v[2]],
                    centre,
                    pb.WORLD_FRAME,
                    physicsClientId=client,
                )
            step_fn(physicsClientId=client)
            step += 1
            if on_step is not None:
                on_step()
            if bale_in_play:
                # A strike is a contact that pushed: Bullet also reports points a
                # little apart (speculative contacts), which have no normal force.
                for c in contact_fn(bodyA=bale, physicsClientId=client):
                    if c[9] > 0.0:
                        other = c[2]
                        if step - last_touch.get(other, -strike_gap) >= strike_gap:
                            contacts.append(self._names[other])
                            points.append([x / CM_PER_MM for x in c[6]])
                            if first_centre is None:
                                first_centre = list(self._position_mm(bale))
                        last_touch[other] = step
            if record_every and step % record_every == 0:
                record(bale_in_play)
            if step % REST_CHECK_EVERY:
                continue
            if bale_in_play:
                pos, _ = pb.getBasePositionAndOrientation(bale, physicsClientId=client)
                off = not (
                    surface_cm[0] <= pos[0] <= surface_cm[1]
                    and surface_cm[2] <= pos[1] <= surface_cm[3]
                )
                if off and pos[2] < 0:  # below the board top, beside it: out of play
                    bale_in_play = False
                    out_of_play_at = np.array(pos) / CM_PER_MM
                    self._park(bale, 0)
            movers = [*self._woken.values(), bale] if bale_in_play else self._woken.values()
            restless = {b for b in movers if not self._at_rest(b, rest_speed, rest_spin)}
            if physics.sleep_at_rest:
                self._freeze_quiet(quiet, restless, set(movers), reach, freeze_steps)
            if physics.early_verdict and restless:
                restless -= self._sealed(restless & set(self._woken.values()), ground_friction)
            if (
                not self.bale_to_rest
                and bale in restless
                and self._bale_spent(bale, pos, bale_friction, bale_gyration_sq, surface_cm)
            ):
                restless.discard(bale)
            if restless:
                rest_steps = 0
                continue
            rest_steps += REST_CHECK_EVERY
            if rest_steps >= rest_steps_needed:
                settled = True
                break
        rest = self._position_mm(bale) if bale_in_play else out_of_play_at
        if record_every and step % record_every:
            record(bale_in_play)
        piggies = dict(self._rest_results)
        piggies.update(self._judge(sorted(self._disturbed)))
        return ShotResult(
            yaw_deg=math.nan,
            pitch_deg=math.nan,
            speed_mm_s=float(np.linalg.norm(velocity_mm_s)),
            release_mm=list(position_mm),
            first_contact_mm=points[0] if points else None,
            first_contact_with=contacts[0] if contacts else None,
            first_contact_centre_mm=first_centre,
            rest_mm=list(rest),
            contacts=contacts,
            contact_points_mm=points,
            sim_time_s=step * self._dt,
            settled=settled,
            piggies=piggies,
            hit_rule=self.hit_rule,
            recording=self._recording(names, frames, record_every) if record_every else None,
        )

    def _recording(self, names: list[str], frames: list[tuple], record_every: int) -> Recording:
        positions = np.array([[p for p, _ in poses] for _, poses in frames]) / CM_PER_MM
        quats = np.array([[q for _, q in poses] for _, poses in frames])
        return Recording(
            dt_s=record_every * self._dt,
            bale_mm=positions[:, 0],
            bale_quat=quats[:, 0],
            bale_in_play=np.array([in_play for in_play, _ in frames]),
            piggies_mm={n: positions[:, i + 1] for i, n in enumerate(names)},
            piggies_quat={n: quats[:, i + 1] for i, n in enumerate(names)},
        )

    def _judge(self, piggies) -> dict[str, PiggyResult]:
        """The knock-out test (docs/rules/go-piggy-go.md, ruling 7) on these piggies as they
        stand now, each against its settled pose before the shot (``start_parts_mm``)."""
        results = {}
        for piggy in piggies:
            space = self._layout.space_of(piggy)
            verdict = self.piggy_knocked_out(piggy, self.start_parts_mm[piggy])
            position, rotation = self.piggy_pose_mm(piggy)
            com = self._position_mm(self._piggy_bodies[piggy])
            moved = float(np.linalg.norm(com[:2] - self._start_positions_mm[piggy][:2]))
            tilt = math.degrees(math.acos(float(np.clip(rotation[2, 2], -1.0, 1.0))))
            results[piggy] = PiggyResult(
                piggy,
                space_name(space),
                self._layout.level_of(piggy),
                moved,
                verdict.knocked,
                verdict.reason,
                list(position),
                tilt,
            )
        return results
