"""The PyBullet scene: board, table, fences, tractor, piggies and one hay bale.

:class:`Scene` builds every body from a board, a design and a layout, lets the
layout's piggies settle, and answers questions about where things are: a piggy's
pose, its collision parts, whether it is knocked out (docs/physics.md, "The
knock-out test"). The stand-in shot engine that fires bales in it is
:class:`sim.physics.world.World`.

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

import math
import os
import sys
from typing import Self

import numpy as np

from models.board import Board, Space
from models.design import Design
from models.errors import InputError
from models.layout import Layout
from models.meshes import ASSETS_DIR, hay_bale, load_parts, load_piggy_mass
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.physics import knockout
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.materials import NOMINAL

#: Where bodies out of play wait, in the air far from the board and the table:
#: slot i is at this corner plus i times the spacing along x, cm.
_PARKING_CM = (3000.0, 3000.0, 500.0)
_PARKING_SPACING_CM = 30.0
#: Steps between two checks for rest (the check reads every body's velocity).
REST_CHECK_EVERY = 10
#: Simulated time allowed for a new layout to settle, s.
_SETTLE_TIME_S = 1.5
#: Lift above their resting place at which piggies are put down, mm.
_DROP_CLEARANCE_MM = 0.2
#: Colours in PyBullet's window of the bodies that have no colour of their own.
_GUI_RGBA = {
    "board": (0.85, 0.77, 0.6, 1),
    "fence": FENCE_RGBA,
    "tractor": TRACTOR_RGBA,
    "bale": BALE_RGBA,
    "table": (0.55, 0.5, 0.45, 1),
}


class Scene:
    """A PyBullet scene built once from a board, a design and a layout.

    Parameters
    ----------
    board, design : the toy.
    layout : who stands where; ``None`` for an empty board. Change it later with
        :meth:`set_layout` (no rebuild of the board).
    hit_rule : ``touches-line`` (default) or ``cleared``; docs/rules/go-piggy-go.md,
        ruling 7.
    gui : open PyBullet's window instead of running headless.
    """

    def __init__(
        self,
        board: Board,
        design: Design,
        layout: Layout | None = None,
        *,
        hit_rule: str = "touches-line",
        gui: bool = False,
    ):
        self.board, self.design = board, design
        self.hit_rule = knockout.check_hit_rule(hit_rule)
        self.gui = gui
        if gui and sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
            # PyBullet would end the whole process when it finds no X server.
            raise InputError(
                "cannot open PyBullet's window: no display (set DISPLAY, or run under xvfb-run)"
            )
        self.client = pb.connect(pb.GUI if gui else pb.DIRECT)
        self._dt = 1.0 / design.physics.steps_per_s
        self._names: dict[int, str] = {}
        # Piggies are simulated in their principal frame (see models.meshes.build_assets):
        # origin at the centre of mass, axes along the principal axes of inertia.
        self._piggy_mass = load_piggy_mass()
        self._principal_axes = np.array(self._piggy_mass["principal_axes"])  # columns
        self._com_mm = np.array(self._piggy_mass["com_mm"])
        # plain arrays: trimesh's tracked ones make every transform of them slower
        self._piggy_parts_mm = [
            np.array(m.vertices, dtype=float) for m in load_parts("piggy_principal").values()
        ]
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
        self._call(
            pb.setPhysicsEngineParameter,
            fixedTimeStep=self._dt,
            numSolverIterations=physics.solver_iterations,
            numSubSteps=0,
            deterministicOverlappingPairs=1,
        )
        board = self.board
        x0, x1, y0, y1 = board.surface_extent_mm
        t = board.thickness_mm
        # (name, shape, position mm, yaw rad) of every static body
        self._static_specs = [
            (
                "board",
                self._box_shape(((x1 - x0) / 2, (y1 - y0) / 2, t / 2)),
                ((x0 + x1) / 2, (y0 + y1) / 2, -t / 2),
                0.0,
            ),
            # the table under the board: a box, not a GEOM_PLANE, which compound
            # meshes were seen to fall through
            ("table", self._box_shape((5000.0, 5000.0, 50.0)), (0.0, 0.0, -t - 50.0), 0.0),
        ]
        for a, b in board.fence_segments_mm():
            mid, along = (a + b) / 2, b - a
            half = (
                np.linalg.norm(along) / 2 + board.fence_thickness_mm / 2,
                board.fence_thickness_mm / 2,
                board.fence_height_mm / 2,
            )
            self._static_specs.append(
                (
                    "fence",
                    self._box_shape(half),
                    (mid[0], mid[1], board.fence_height_mm / 2),
                    math.atan2(along[1], along[0]),
                )
            )
        self._tractor_shape = self._call(
            pb.createCollisionShape,
            pb.GEOM_MESH,
            fileName=str(ASSETS_DIR / "tractor.obj"),
            meshScale=[CM_PER_MM] * 3,
        )
        self._piggy_shape = self._call(
            pb.createCollisionShape,
            pb.GEOM_MESH,
            fileName=str(ASSETS_DIR / "piggy_principal.obj"),
            meshScale=[CM_PER_MM] * 3,
        )
        bale = self.design.bale
        mesh = hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)
        self._bale_shape = self._call(
            pb.createCollisionShape, pb.GEOM_MESH, vertices=(mesh.vertices * CM_PER_MM).tolist()
        )

    def _box_shape(self, half_mm) -> int:
        return self._call(
            pb.createCollisionShape, pb.GEOM_BOX, halfExtents=[h * CM_PER_MM for h in half_mm]
        )

    def _rebuild(self, piggy_poses_cm: dict[str, tuple[list, list]]) -> None:
        """Empty the simulation and make everything anew: the shapes, the static
        bodies, the tractor, the piggies (dynamic bodies) at body-frame poses (cm,
        quaternion), the bale parked. Only a new layout does this; shots reuse it."""
        self._call(pb.resetSimulation)
        self._names = {}
        self._create_shapes()
        surfaces = self.design.surfaces
        # Fences and the tractor as rigid bodies (maximal coordinates) cost Bullet less a
        # step than fixed-base multibodies; not the board and the table, on which a
        # rigid bale slides askew (docs/physics.md, "Speed")
        rigid = self.design.physics.rigid_obstacles
        for name, shape, position, yaw in self._static_specs:
            body = self._call(
                pb.createMultiBody,
                0,
                shape,
                basePosition=[c * CM_PER_MM for c in position],
                baseOrientation=pb.getQuaternionFromEuler([0, 0, yaw]),
                useMaximalCoordinates=rigid and name == "fence",
            )
            self._names[body] = name
        self._tractor = self._call(
            pb.createMultiBody, 0, self._tractor_shape, useMaximalCoordinates=rigid
        )
        self._names[self._tractor] = "tractor"
        self._static_bodies = list(self._names)
        for body in self._static_bodies:
            self._call(
                pb.changeDynamics,
                body,
                -1,
                **self._surface(surfaces.friction, surfaces.restitution),
            )
        self._piggy_bodies = {
            name: self._make_piggy(name, *pose) for name, pose in piggy_poses_cm.items()
        }
        self._make_bale()

    def _surface(self, friction: float, restitution: float) -> dict:
        """A body's contact coefficients under the current material factors
        (restitution at most 1: a factor must not make a bounce add energy)."""
        return {
            "lateralFriction": friction * self._materials.friction,
            "restitution": min(1.0, restitution * self._materials.restitution),
        }

    def _make_bale(self) -> None:
        """A new bale, waiting at its parking slot. New for every shot: a reused one
        carries state that no reset clears, and a shot then depended on the shots
        before it."""
        bale = self.design.bale
        # A maximal-coordinate rigid body, for continuous collision detection. Its
        # inertia is Bullet's, from the bounding box: exact for a box, close for a
        # rounded one (localInertiaDiagonal gives NaN on such bodies in PyBullet 3.2).
        self._bale = self._call(
            pb.createMultiBody,
            bale.mass_g,
            self._bale_shape,
            basePosition=parking_cm(0),
            useMaximalCoordinates=True,
        )
        self._names[self._bale] = "bale"
        smallest = min(bale.length_mm, bale.width_mm, bale.height_mm)
        self._call(
            pb.changeDynamics,
            self._bale,
            -1,
            **self._surface(bale.friction, bale.restitution),
            linearDamping=0.0,
            angularDamping=0.0,
            ccdSweptSphereRadius=0.4 * smallest * CM_PER_MM,
        )
        self._colour_for_gui([self._bale])

    def _make_piggy(self, name: str, position_cm, orientation) -> int:
        """A dynamic piggy body at a body-frame pose (cm, quaternion)."""
        piggy = self.design.piggy
        mass_g = piggy.mass_g * self._materials.mass
        density = mass_g / self._piggy_mass["volume_mm3"]  # g / mm^3
        moments_g_cm2 = [
            m * density * CM_PER_MM**2 for m in self._piggy_mass["principal_moments_mm5"]
        ]
        body = self._call(
            pb.createMultiBody,
            mass_g,
            self._piggy_shape,
            basePosition=position_cm,
            baseOrientation=orientation,
        )
        self._call(
            pb.changeDynamics,
            body,
            -1,
            **self._surface(piggy.friction, piggy.restitution),
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=moments_g_cm2,
        )
        self._names[body] = name
        self._colour_for_gui([body])
        return body

    def set_layout(self, layout: Layout) -> None:
        """Stand the layout's piggies on their spaces, let them settle, and keep their
        resting poses: every shot starts from them."""
        if layout.board != self.board:
            raise ValueError("the layout is for another board than this world's")
        self._layout = layout
        self._materials = NOMINAL  # a layout settles as designed, whatever the last shot drew
        stack_height_mm = self._piggy_mass["height_mm"] * 0.75
        drop_poses = {}
        for space, stack in sorted(layout.stacks.items()):
            cx, cy = self.board.space_center_mm(space)
            turn = _rotation_z(_forward_yaw(self.board, space))
            for level, name in enumerate(stack):
                foot = np.array([cx, cy, _DROP_CLEARANCE_MM + level * stack_height_mm])
                drop_poses[name] = (
                    ((foot + turn @ self._com_mm) * CM_PER_MM).tolist(),
                    _quaternion_from_matrix(turn @ self._principal_axes),
                )
        self._rebuild(drop_poses)
        self._settle()
        self._rest_poses_cm = {
            name: tuple(map(list, self._call(pb.getBasePositionAndOrientation, body)))
            for name, body in self._piggy_bodies.items()
        }

    def _settle(self) -> None:
        """Let the piggies come to rest where they were put down."""
        steps = int(_SETTLE_TIME_S / self._dt)
        rest_speed = self.design.physics.rest_speed_mm_s * CM_PER_MM
        rest_spin = math.radians(self.design.physics.rest_spin_deg_s)
        for step in range(steps):
            self._call(pb.stepSimulation)
            if (
                step % REST_CHECK_EVERY == 0
                and step * self._dt > 0.2
                and all(
                    self._at_rest(b, rest_speed, rest_spin) for b in self._piggy_bodies.values()
                )
            ):
                break

    # --- queries -------------------------------------------------------------------
    @property
    def layout(self) -> Layout:
        return self._layout

    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]:
        """Each piggy's resting pose on the layout, as a recording keeps poses: its
        body's position (centre of mass, mm) and quaternion (x, y, z, w)."""
        return {
            name: ([v / CM_PER_MM for v in position], list(orientation))
            for name, (position, orientation) in self._rest_poses_cm.items()
        }

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

    def piggy_knocked_out(self, piggy: str, start_parts_mm: list | None = None) -> knockout.Verdict:
        """The knock-out test (docs/rules/go-piggy-go.md, ruling 7) on a piggy as it stands
        now, against where it stood before the shot (``start_parts_mm``, its parts then)
        when given."""
        space = self._layout.space_of(piggy)
        return knockout.judge(
            self.piggy_parts_mm(piggy),
            self.board.space_center_mm(space),
            self.board.space_mm,
            self.board.line_mm,
            self.board.surface_extent_mm,
            self.hit_rule,
            start_parts_mm,
        )

    def _colour_for_gui(self, bodies) -> None:
        """Colours in PyBullet's window (it draws the collision shapes); no-op headless."""
        if not self.gui:
            return
        for body in bodies:
            name = self._names[body]
            rgba = PIGGY_RGBA.get(name.split("-")[0]) or _GUI_RGBA.get(name)
            if rgba:
                self._call(pb.changeVisualShape, body, -1, rgbaColor=list(rgba))

    def _at_rest(self, body: int, rest_speed_cm_s: float, rest_spin_rad_s: float) -> bool:
        v, w = pb.getBaseVelocity(body, physicsClientId=self.client)
        return (
            v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= rest_speed_cm_s * rest_speed_cm_s
            and w[0] * w[0] + w[1] * w[1] + w[2] * w[2] <= rest_spin_rad_s * rest_spin_rad_s
        )

    def close(self) -> None:
        """Disconnect from PyBullet (also done when the world is garbage-collected)."""
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        # not contextlib.suppress: at interpreter shutdown contextlib itself may be gone
        try:  # noqa: SIM105
            self.close()
        except Exception:
            pass


def parking_cm(slot: int) -> list[float]:
    """Where parking slot ``slot`` is (a body out of play waits there), cm."""
    return [_PARKING_CM[0] + slot * _PARKING_SPACING_CM, _PARKING_CM[1], _PARKING_CM[2]]


def _forward_yaw(board: Board, space: Space) -> float:
    """Yaw (radians) that faces a piggy along its space's forward direction."""
    return {"up": 0.0, "left": math.pi / 2, "down": math.pi, "right": -math.pi / 2}[
        board.forward.get(space, "up")
    ]


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
