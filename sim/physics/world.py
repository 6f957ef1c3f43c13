"""The PyBullet world: board, fences, tractor, piggies and one hay bale.

Build a :class:`World` once, then fire many shots from it: each shot starts from
the settled layout (piggies at their resting poses, everything still), turns the
tractor, releases the bale at the muzzle and steps until everything is at rest
(or a cap), then judges every piggy by RULINGS.md #7 (:mod:`sim.knockout`).

Inside the physics lengths are centimetres and masses grams (CGS): Bullet's
built-in tolerances (contact thresholds, collision margins, sleeping speeds) are
sized for bodies of about 0.1-10 units, and the toy's parts are millimetres to
decimetres. Every interface of this module speaks mm, g, s and degrees.

Known PyBullet traps, each defeated here and tested:
- bodies get a default linear and angular damping of 0.04; it is set to 0
  (otherwise the bale falls short);
- a small fast body can pass through a thin one in one step; the time step is
  small and the bale uses continuous collision detection.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from models.board import Board, Space, space_name
from models.design import Design
from models.errors import InputError
from models.layout import Layout
from models.meshes import ASSETS_DIR, hay_bale, load_parts, load_piggy_mass
from sim import knockout
from sim.ballistics import GRAVITY_MM_S2, direction, drag_constant_per_mm, release_point_mm
from sim.bullet import pb

CM_PER_MM = 0.1
#: Where bodies out of play wait, in the air far from the board and the table:
#: slot i is at this corner plus i times the spacing along x, cm.
_PARKING_CM = (3000.0, 3000.0, 500.0)
_PARKING_SPACING_CM = 30.0
#: Speed a falling bale can add to its muzzle speed over the board (a 300 mm drop), mm/s.
_FALL_SPEED_MM_S = math.sqrt(2 * GRAVITY_MM_S2 * 300.0)
#: Touches of one body less than this apart are one strike (a rattling bale), s.
_STRIKE_GAP_S = 0.02
#: A woken piggy at rest this long goes back to its stand-in (two checks for rest), s.
_FREEZE_AFTER_S = 0.02
#: Steps between two checks for rest (the check reads every body's velocity).
_REST_CHECK_EVERY = 10
#: Simulated time allowed for a new layout to settle, s.
_SETTLE_TIME_S = 1.5
#: Lift above their resting place at which piggies are put down, mm.
_DROP_CLEARANCE_MM = 0.2


@dataclass
class PiggyResult:
    """What happened to one piggy in a shot."""

    piggy: str
    space: str
    level: int            # 0 bottom or alone, 1 top of a stack
    moved_mm: float       # horizontal distance its centre of mass moved
    knocked: bool
    reason: str
    final_position_mm: list[float]
    tilt_deg: float       # angle between its up axis and the vertical at rest

    def to_dict(self) -> dict:
        return {"space": self.space, "level": self.level, "moved_mm": round(self.moved_mm, 2),
                "knocked": self.knocked, "reason": self.reason,
                "final_position_mm": [round(v, 2) for v in self.final_position_mm],
                "tilt_deg": round(self.tilt_deg, 1)}


@dataclass
class Recording:
    """Poses of the moving bodies every ``dt_s`` of simulated time, for pictures and
    replays. Positions in mm (board frame), orientations as (x, y, z, w) quaternions;
    piggies in their principal (body) frame, as in piggy_principal.obj."""

    dt_s: float
    bale_mm: np.ndarray                  # (n, 3)
    bale_quat: np.ndarray                # (n, 4)
    bale_in_play: np.ndarray             # (n,) bool
    piggies_mm: dict[str, np.ndarray]    # name -> (n, 3)
    piggies_quat: dict[str, np.ndarray]  # name -> (n, 4)

    @property
    def frames(self) -> int:
        return len(self.bale_mm)


@dataclass
class ShotResult:
    """The outcome of one shot: who was knocked out, and what the bale did."""

    yaw_deg: float                 # as fired, noise included
    pitch_deg: float
    speed_mm_s: float
    release_mm: list[float]
    first_contact_mm: list[float] | None
    first_contact_with: str | None
    first_contact_centre_mm: list[float] | None  # the bale's centre at that moment
    rest_mm: list[float]
    contacts: list[str]
    contact_points_mm: list[list[float]]  # where each strike of ``contacts`` happened
    sim_time_s: float
    settled: bool                  # False when the time cap ended the shot
    piggies: dict[str, PiggyResult]
    hit_rule: str
    recording: Recording | None = field(default=None, repr=False)

    @property
    def trajectory_mm(self) -> np.ndarray | None:
        """The bale's centre at each recorded frame while it was in play; (n, 3), mm."""
        if self.recording is None:
            return None
        return self.recording.bale_mm[self.recording.bale_in_play]

    @property
    def knocked(self) -> list[str]:
        return sorted(p for p, r in self.piggies.items() if r.knocked)

    def to_dict(self) -> dict:
        def rounded(v):
            return None if v is None else [round(float(x), 2) for x in v]

        return {
            "knocked": self.knocked,
            "hit_rule": self.hit_rule,
            "piggies": {p: self.piggies[p].to_dict() for p in sorted(self.piggies)},
            "bale": {
                "yaw_deg": round(self.yaw_deg, 4), "pitch_deg": round(self.pitch_deg, 4),
                "speed_mm_s": round(self.speed_mm_s, 2), "release_mm": rounded(self.release_mm),
                "first_contact_mm": rounded(self.first_contact_mm),
                "first_contact_with": self.first_contact_with,
                "first_contact_centre_mm": rounded(self.first_contact_centre_mm),
                "rest_mm": rounded(self.rest_mm), "contacts": self.contacts,
                "contact_points_mm": [rounded(p) for p in self.contact_points_mm],
            },
            "sim_time_s": round(self.sim_time_s, 4),
            "settled": self.settled,
        }


class World:
    """A PyBullet world built once from a board, a design and a layout.

    Parameters
    ----------
    board, design : the toy.
    layout : who stands where; ``None`` for an empty board. Change it later with
        :meth:`set_layout` (no rebuild of the board).
    hit_rule : ``touches-line`` (default) or ``cleared``; RULINGS.md #7.
    gui : open PyBullet's window instead of running headless.
    """

    def __init__(self, board: Board, design: Design, layout: Layout | None = None, *,
                 hit_rule: str = "touches-line", gui: bool = False):
        self.board, self.design = board, design
        self.hit_rule = knockout.check_hit_rule(hit_rule)
        self.gui = gui
        if gui and sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
            # PyBullet would end the whole process when it finds no X server.
            raise InputError("cannot open PyBullet's window: no display (set DISPLAY, or run "
                             "under xvfb-run)")
        self.client = pb.connect(pb.GUI if gui else pb.DIRECT)
        self._dt = 1.0 / design.physics.steps_per_s
        self._names: dict[int, str] = {}
        # Piggies are simulated in their principal frame (see models.meshes.build_assets):
        # origin at the centre of mass, axes along the principal axes of inertia.
        self._piggy_mass = load_piggy_mass()
        self._principal_axes = np.array(self._piggy_mass["principal_axes"])  # columns
        self._com_mm = np.array(self._piggy_mass["com_mm"])
        self._piggy_parts_mm = [m.vertices.copy() for m in load_parts("piggy_principal").values()]
        self._piggy_bodies: dict[str, int] = {}
        self._layout: Layout = layout or Layout(board=board, stacks={})
        self.set_layout(self._layout)

    # --- building ----------------------------------------------------------------
    def _call(self, fn, *args, **kwargs):
        return fn(*args, physicsClientId=self.client, **kwargs)

    def _create_shapes(self) -> None:
        """Every collision shape: board, table, fences, tractor, piggy, bale."""
        physics = self.design.physics
        self._call(pb.setGravity, 0, 0, -GRAVITY_MM_S2 * CM_PER_MM)
        self._call(pb.setPhysicsEngineParameter, fixedTimeStep=self._dt,
                   numSolverIterations=physics.solver_iterations, numSubSteps=0,
                   deterministicOverlappingPairs=1)
        board = self.board
        x0, x1, y0, y1 = board.surface_extent_mm
        t = board.thickness_mm
        # (name, shape, position mm, yaw rad) of every static body
        self._static_specs = [
            ("board", self._box_shape(((x1 - x0) / 2, (y1 - y0) / 2, t / 2)),
             ((x0 + x1) / 2, (y0 + y1) / 2, -t / 2), 0.0),
            # the table under the board: a box, not a GEOM_PLANE, which compound
            # meshes were seen to fall through
            ("table", self._box_shape((5000.0, 5000.0, 50.0)), (0.0, 0.0, -t - 50.0), 0.0),
        ]
        for a, b in board.fence_segments_mm():
            mid, along = (a + b) / 2, b - a
            half = (np.linalg.norm(along) / 2 + board.fence_thickness_mm / 2,
                    board.fence_thickness_mm / 2, board.fence_height_mm / 2)
            self._static_specs.append(("fence", self._box_shape(half),
                                       (mid[0], mid[1], board.fence_height_mm / 2),
                                       math.atan2(along[1], along[0])))
        self._tractor_shape = self._call(pb.createCollisionShape, pb.GEOM_MESH,
                                         fileName=str(ASSETS_DIR / "tractor.obj"),
                                         meshScale=[CM_PER_MM] * 3)
        self._piggy_shape = self._call(pb.createCollisionShape, pb.GEOM_MESH,
                                       fileName=str(ASSETS_DIR / "piggy_principal.obj"),
                                       meshScale=[CM_PER_MM] * 3)
        bale = self.design.bale
        mesh = hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)
        self._bale_shape = self._call(pb.createCollisionShape, pb.GEOM_MESH,
                                      vertices=(mesh.vertices * CM_PER_MM).tolist())

    def _box_shape(self, half_mm) -> int:
        return self._call(pb.createCollisionShape, pb.GEOM_BOX,
                          halfExtents=[h * CM_PER_MM for h in half_mm])

    def _rebuild(self, piggy_poses_cm: dict[str, tuple[list, list]]) -> None:
        """Empty the simulation and make everything anew: the shapes, the static
        bodies, the tractor, the piggies (dynamic bodies) at body-frame poses (cm,
        quaternion), the bale parked. Only a new layout does this; shots reuse it."""
        self._call(pb.resetSimulation)
        self._names = {}
        self._create_shapes()
        surfaces = self.design.surfaces
        for name, shape, position, yaw in self._static_specs:
            body = self._call(pb.createMultiBody, 0, shape,
                              basePosition=[c * CM_PER_MM for c in position],
                              baseOrientation=pb.getQuaternionFromEuler([0, 0, yaw]))
            self._names[body] = name
        self._tractor = self._call(pb.createMultiBody, 0, self._tractor_shape)
        self._names[self._tractor] = "tractor"
        for body in self._names:
            self._call(pb.changeDynamics, body, -1, lateralFriction=surfaces.friction,
                       restitution=surfaces.restitution)
        self._piggy_bodies = {name: self._make_piggy(name, *pose)
                              for name, pose in piggy_poses_cm.items()}
        self._make_bale()

    def _make_bale(self) -> None:
        """A new bale, waiting at its parking slot. New for every shot: a reused one
        carries state that no reset clears, and a shot then depended on the shots
        before it."""
        bale = self.design.bale
        # A maximal-coordinate rigid body, for continuous collision detection. Its
        # inertia is Bullet's, from the bounding box: exact for a box, close for a
        # rounded one (localInertiaDiagonal gives NaN on such bodies in PyBullet 3.2).
        self._bale = self._call(pb.createMultiBody, bale.mass_g, self._bale_shape,
                                basePosition=_parking_cm(0), useMaximalCoordinates=True)
        self._names[self._bale] = "bale"
        smallest = min(bale.length_mm, bale.width_mm, bale.height_mm)
        self._call(pb.changeDynamics, self._bale, -1, lateralFriction=bale.friction,
                   restitution=bale.restitution, linearDamping=0.0, angularDamping=0.0,
                   ccdSweptSphereRadius=0.4 * smallest * CM_PER_MM)
        self._colour_for_gui([self._bale])

    def _make_piggy(self, name: str, position_cm, orientation) -> int:
        """A dynamic piggy body at a body-frame pose (cm, quaternion)."""
        piggy = self.design.piggy
        density = piggy.mass_g / self._piggy_mass["volume_mm3"]  # g / mm^3
        moments_g_cm2 = [m * density * CM_PER_MM ** 2
                         for m in self._piggy_mass["principal_moments_mm5"]]
        body = self._call(pb.createMultiBody, piggy.mass_g, self._piggy_shape,
                          basePosition=position_cm, baseOrientation=orientation)
        self._call(pb.changeDynamics, body, -1, lateralFriction=piggy.friction,
                   restitution=piggy.restitution, linearDamping=0.0,
                   angularDamping=0.0, localInertiaDiagonal=moments_g_cm2)
        self._names[body] = name
        self._colour_for_gui([body])
        return body

    def set_layout(self, layout: Layout) -> None:
        """Stand the layout's piggies on their spaces, let them settle, and keep their
        resting poses: every shot starts from them."""
        if layout.board != self.board:
            raise ValueError("the layout is for another board than this world's")
        self._layout = layout
        stack_height_mm = self._piggy_mass["height_mm"] * 0.75
        drop_poses = {}
        for space, stack in sorted(layout.stacks.items()):
            cx, cy = self.board.space_center_mm(space)
            turn = _rotation_z(_forward_yaw(self.board, space))
            for level, name in enumerate(stack):
                foot = np.array([cx, cy, _DROP_CLEARANCE_MM + level * stack_height_mm])
                drop_poses[name] = (((foot + turn @ self._com_mm) * CM_PER_MM).tolist(),
                                    _quaternion_from_matrix(turn @ self._principal_axes))
        self._rebuild(drop_poses)
        self._settle()
        self._rest_poses_cm = {
            name: tuple(map(list, self._call(pb.getBasePositionAndOrientation, body)))
            for name, body in self._piggy_bodies.items()}
        # From now on an idle piggy is a static stand-in at its resting pose; a
        # dynamic body is made for it when something comes near (see _wake).
        self._proxies = {}
        piggy = self.design.piggy
        for name, body in self._piggy_bodies.items():
            self._call(pb.removeBody, body)
            del self._names[body]
            position, orientation = self._rest_poses_cm[name]
            proxy = self._call(pb.createMultiBody, 0, self._piggy_shape, basePosition=position,
                               baseOrientation=orientation, useMaximalCoordinates=True)
            self._call(pb.changeDynamics, proxy, -1, lateralFriction=piggy.friction,
                       restitution=piggy.restitution)
            self._proxies[name] = proxy
            self._names[proxy] = name
        # bounding boxes (low, high), cm, of the stand-ins where they stand
        self._rest_boxes = {name: self._call(pb.getAABB, p) for name, p in self._proxies.items()}
        self._stand_in_boxes = dict(self._rest_boxes)
        self._in_play = None  # [(name, low, high)] of the stand-ins in play, when known
        self._piggy_bodies = dict(self._proxies)
        self._woken: dict[str, int] = {}   # piggy -> its dynamic body, in waking order
        self._disturbed: set[str] = set()  # piggies woken in this shot
        self._made: list[int] = []  # dynamic bodies made in this shot, oldest first
        self._look_at = 0  # step of the next look for stand-ins to wake
        self._colour_for_gui(list(self._names))
        self._start_positions_mm = {n: self._position_mm(b) for n, b in self._piggy_bodies.items()}
        self.start_parts_mm = {n: self.piggy_parts_mm(n) for n in self._piggy_bodies}
        self._rest_results = self._judge(self._layout.piggies)
        self._reset()

    def _settle(self) -> None:
        """Let the piggies come to rest where they were put down."""
        steps = int(_SETTLE_TIME_S / self._dt)
        rest_speed = self.design.physics.rest_speed_mm_s * CM_PER_MM
        rest_spin = math.radians(self.design.physics.rest_spin_deg_s)
        for step in range(steps):
            self._call(pb.stepSimulation)
            if step % _REST_CHECK_EVERY == 0 and step * self._dt > 0.2 and all(
                    self._at_rest(b, rest_speed, rest_spin) for b in self._piggy_bodies.values()):
                break

    def _park(self, body: int, slot: int) -> None:
        """Put a moving body out of play for the rest of the shot: at its own slot in
        the air, beyond the table, where it falls touching nothing.

        Not removed, nor taken out of collisions (which re-adds it to the world):
        either changes Bullet's body order in the middle of a shot, and later
        shots then depended on it."""
        self._call(pb.resetBasePositionAndOrientation, body, _parking_cm(slot), [0, 0, 0, 1])
        self._call(pb.resetBaseVelocity, body, [0, 0, 0], [0, 0, 0])

    def _wake(self, piggy: str) -> int:
        """Swap a piggy's static stand-in for a new dynamic body at rest at the same
        pose; return that body."""
        proxy = self._proxies[piggy]
        pose = self._call(pb.getBasePositionAndOrientation, proxy)
        self._call(pb.resetBasePositionAndOrientation, proxy,
                   _parking_cm(1 + list(self._proxies).index(piggy)), [0, 0, 0, 1])
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

    def _freeze_quiet(self, quiet: dict[str, int], restless: set[int], in_play: set[int],
                      reach_cm: float, quiet_steps_needed: int) -> None:
        """Freeze the woken piggies that have been at rest for ``quiet_steps_needed``
        steps, as groups: a piggy goes only if every other body in play within reach
        of it goes too (a body left in play would wake it again at once)."""
        for piggy, body in self._woken.items():
            quiet[piggy] = 0 if body in restless else quiet.get(piggy, 0) + _REST_CHECK_EVERY
        going = {body: piggy for piggy, body in self._woken.items()
                 if quiet[piggy] >= quiet_steps_needed}
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
        near = self._call(pb.getOverlappingObjects, [c - reach_cm for c in low],
                          [c + reach_cm for c in high])
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
            self._in_play = [(name, *self._stand_in_boxes[name]) for name, proxy
                             in self._proxies.items() if self._piggy_bodies[name] == proxy]
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

    # --- queries -------------------------------------------------------------------
    @property
    def layout(self) -> Layout:
        return self._layout

    def _position_mm(self, body: int) -> np.ndarray:
        pos, _ = self._call(pb.getBasePositionAndOrientation, body)
        return np.array(pos) / CM_PER_MM

    def _body_pose_mm(self, piggy: str) -> tuple[np.ndarray, np.ndarray]:
        pos, orn = self._call(pb.getBasePositionAndOrientation, self._piggy_bodies[piggy])
        return np.array(pos) / CM_PER_MM, np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)

    def piggy_pose_mm(self, piggy: str) -> tuple[np.ndarray, np.ndarray]:
        """Position (3,), mm, and rotation matrix (3, 3) of a piggy's own frame
        (origin on the ground under its footprint's centre, +y to the snout)."""
        body_position, body_rotation = self._body_pose_mm(piggy)
        rotation = body_rotation @ self._principal_axes.T
        return body_position - rotation @ self._com_mm, rotation

    def piggy_parts_mm(self, piggy: str) -> list[np.ndarray]:
        """A piggy's convex collision parts in its current pose: (n_i, 3) arrays, mm."""
        position, rotation = self._body_pose_mm(piggy)
        return [knockout.transform(v, position, rotation) for v in self._piggy_parts_mm]

    def piggy_centre_mm(self, piggy: str) -> np.ndarray:
        """The centre of a piggy's collision geometry now: the point to aim at; (3,), mm."""
        return np.vstack(self.piggy_parts_mm(piggy)).mean(axis=0)

    def piggy_knocked_out(self, piggy: str) -> knockout.Verdict:
        """RULINGS.md #7 applied to a piggy as it stands now."""
        space = self._layout.space_of(piggy)
        return knockout.judge(self.piggy_parts_mm(piggy), self.board.space_center_mm(space),
                              self.board.space_mm, self.board.line_mm,
                              self.board.surface_extent_mm, self.hit_rule)

    # --- shooting ------------------------------------------------------------------
    def shoot(self, yaw_deg: float, pitch_deg: float, *, seed: int | None = 0,
              noise: bool = True, record_every: int = 0, on_step=None) -> ShotResult:
        """Turn and tilt the tractor, fire one bale, and judge every piggy.

        Parameters
        ----------
        yaw_deg, pitch_deg : the aim, degrees; pitch within the design's range.
        seed : seeds the shot-to-shot noise (aim spread, speed spread).
        noise : ``False`` fires exactly as aimed at the mean speed.
        record_every : record every body's pose every this many steps (0: not at all).
        on_step : called after every step (the sandbox uses it to play in real time).
        """
        launcher = self.design.launcher
        if noise:
            rng = np.random.default_rng(seed)
            d_yaw, d_pitch, d_speed = rng.standard_normal(3)
            yaw_deg += d_yaw * launcher.yaw_sd_deg
            pitch_deg += d_pitch * launcher.pitch_sd_deg
            speed = launcher.muzzle_speed_mm_s + d_speed * launcher.speed_sd_mm_s
        else:
            speed = launcher.muzzle_speed_mm_s
        self._reset(yaw_deg)
        release = release_point_mm(self.design, yaw_deg, pitch_deg)
        velocity = speed * direction(yaw_deg, pitch_deg)
        orientation = pb.getQuaternionFromEuler([math.radians(pitch_deg), 0,
                                                 math.radians(yaw_deg)])
        result = self.launch(release, velocity, orientation, record_every=record_every,
                             reset=False, on_step=on_step)
        result.yaw_deg, result.pitch_deg, result.speed_mm_s = yaw_deg, pitch_deg, speed
        return result

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
            self._call(pb.resetBasePositionAndOrientation, self._proxies[piggy],
                       *self._rest_poses_cm[piggy])
            self._piggy_bodies[piggy] = self._proxies[piggy]
        self._woken, self._made, self._disturbed, self._look_at = {}, [], set(), 0
        self._stand_in_boxes, self._in_play = dict(self._rest_boxes), None
        self._call(pb.resetBasePositionAndOrientation, self._tractor, [0, 0, 0],
                   pb.getQuaternionFromEuler([0, 0, math.radians(tractor_yaw_deg)]))
        self._call(pb.stepSimulation)
        self._make_bale()
        if not self.design.physics.sleep_at_rest:
            for piggy in self._proxies:
                self._wake(piggy)

    def launch(self, position_mm, velocity_mm_s, orientation=(0, 0, 0, 1), *,
               record_every: int = 0, reset: bool = True, on_step=None) -> ShotResult:
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
        self._call(pb.resetBaseVelocity, bale, [v * CM_PER_MM for v in velocity_mm_s],
                   [0, 0, 0])
        launcher = self.design.launcher
        fastest_mm_s = max(float(np.linalg.norm(velocity_mm_s)),
                           launcher.muzzle_speed_mm_s + 4 * launcher.speed_sd_mm_s)
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
            poses = [pb.getBasePositionAndOrientation(b, physicsClientId=client)
                     for b in [bale, *(self._piggy_bodies[n] for n in names)]]
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
                pb.applyExternalForce(bale, -1, [f * v[0], f * v[1], f * v[2]], centre,
                                      pb.WORLD_FRAME, physicsClientId=client)
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
            if step % _REST_CHECK_EVERY:
                continue
            if bale_in_play:
                pos, _ = pb.getBasePositionAndOrientation(bale, physicsClientId=client)
                off = not (surface_cm[0] <= pos[0] <= surface_cm[1]
                           and surface_cm[2] <= pos[1] <= surface_cm[3])
                if off and pos[2] < 0:  # below the board top, beside it: out of play
                    bale_in_play = False
                    out_of_play_at = np.array(pos) / CM_PER_MM
                    self._park(bale, 0)
            movers = [*self._woken.values(), bale] if bale_in_play else self._woken.values()
            restless = {b for b in movers if not self._at_rest(b, rest_speed, rest_spin)}
            if physics.sleep_at_rest:
                self._freeze_quiet(quiet, restless, set(movers), reach, freeze_steps)
            if restless:
                rest_steps = 0
                continue
            rest_steps += _REST_CHECK_EVERY
            if rest_steps >= rest_steps_needed:
                settled = True
                break
        rest = self._position_mm(bale) if bale_in_play else out_of_play_at
        if record_every and step % record_every:
            record(bale_in_play)
        piggies = dict(self._rest_results)
        piggies.update(self._judge(sorted(self._disturbed)))
        return ShotResult(
            yaw_deg=math.nan, pitch_deg=math.nan,
            speed_mm_s=float(np.linalg.norm(velocity_mm_s)), release_mm=list(position_mm),
            first_contact_mm=points[0] if points else None,
            first_contact_with=contacts[0] if contacts else None,
            first_contact_centre_mm=first_centre,
            rest_mm=list(rest), contacts=contacts, contact_points_mm=points,
            sim_time_s=step * self._dt,
            settled=settled, piggies=piggies, hit_rule=self.hit_rule,
            recording=self._recording(names, frames, record_every) if record_every else None)

    def _colour_for_gui(self, bodies) -> None:
        """Colours in PyBullet's window (it draws the collision shapes); no-op headless."""
        if not self.gui:
            return
        from sim.render import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA

        colours = {"board": (0.85, 0.77, 0.6, 1), "fence": FENCE_RGBA, "tractor": TRACTOR_RGBA,
                   "bale": BALE_RGBA, "table": (0.55, 0.5, 0.45, 1)}
        for body in bodies:
            name = self._names[body]
            rgba = PIGGY_RGBA.get(name.split("-")[0]) or colours.get(name)
            if rgba:
                self._call(pb.changeVisualShape, body, -1, rgbaColor=list(rgba))

    def _recording(self, names: list[str], frames: list[tuple], record_every: int) -> Recording:
        positions = np.array([[p for p, _ in poses] for _, poses in frames]) / CM_PER_MM
        quats = np.array([[q for _, q in poses] for _, poses in frames])
        return Recording(
            dt_s=record_every * self._dt, bale_mm=positions[:, 0], bale_quat=quats[:, 0],
            bale_in_play=np.array([in_play for in_play, _ in frames]),
            piggies_mm={n: positions[:, i + 1] for i, n in enumerate(names)},
            piggies_quat={n: quats[:, i + 1] for i, n in enumerate(names)})

    def _at_rest(self, body: int, rest_speed_cm_s: float, rest_spin_rad_s: float) -> bool:
        v, w = pb.getBaseVelocity(body, physicsClientId=self.client)
        return (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= rest_speed_cm_s * rest_speed_cm_s
                and w[0] * w[0] + w[1] * w[1] + w[2] * w[2] <= rest_spin_rad_s * rest_spin_rad_s)

    def _judge(self, piggies) -> dict[str, PiggyResult]:
        """RULINGS.md #7 on these piggies as they stand now."""
        results = {}
        for piggy in piggies:
            space = self._layout.space_of(piggy)
            verdict = self.piggy_knocked_out(piggy)
            position, rotation = self.piggy_pose_mm(piggy)
            com = self._position_mm(self._piggy_bodies[piggy])
            moved = float(np.linalg.norm(com[:2] - self._start_positions_mm[piggy][:2]))
            tilt = math.degrees(math.acos(float(np.clip(rotation[2, 2], -1.0, 1.0))))
            results[piggy] = PiggyResult(piggy, space_name(space), self._layout.level_of(piggy),
                                         moved, verdict.knocked, verdict.reason,
                                         list(position), tilt)
        return results

    def close(self) -> None:
        """Disconnect from PyBullet (also done when the world is garbage-collected)."""
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown pybullet may be gone
            self.close()


def _parking_cm(slot: int) -> list[float]:
    return [_PARKING_CM[0] + slot * _PARKING_SPACING_CM, _PARKING_CM[1], _PARKING_CM[2]]


def _forward_yaw(board: Board, space: Space) -> float:
    """Yaw (radians) that faces a piggy along its space's forward direction."""
    return {"up": 0.0, "left": math.pi / 2, "down": math.pi, "right": -math.pi / 2}[
        board.forward.get(space, "up")]


def _rotation_z(yaw_rad: float) -> np.ndarray:
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _quaternion_from_matrix(m: np.ndarray) -> list[float]:
    """(x, y, z, w) of a proper rotation matrix."""
    w = math.sqrt(max(0.0, 1 + m[0, 0] + m[1, 1] + m[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + m[0, 0] - m[1, 1] - m[2, 2])) / 2, m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] + m[1, 1] - m[2, 2])) / 2, m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] - m[1, 1] + m[2, 2])) / 2, m[1, 0] - m[0, 1])
    return [x, y, z, w]
