"""The PyBullet scene: board, table, fences, tractor, piggies and one hay bale.

:class:`Scene` builds every body from a board, a design and a layout, lets the
layout's piggies settle, and answers questions about where things are: a piggy's
pose, whether it is at rest. It is the registry of the bodies: the engine that
fires bales in it (:class:`sim.physics.bullet.world.BulletWorld`) and that engine's parts
make, swap and park bodies through it. What it builds from is static data
(:mod:`sim.physics.geometry`), which the views draw from too.

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
from collections.abc import Callable, Iterable
from typing import Any, Self

import numpy as np

from models.board import Board
from models.design import Design
from models.errors import InputError
from models.layout import Layout
from models.mesh_files import check_piggy_fits, read_mesh_file
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.physics import knockout
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.scene_shapes import make_shapes
from sim.physics.geometry import BodyPose, PiggyModel, quaternion_from_matrix
from sim.physics.materials import NOMINAL
from sim.physics.own_bodies import own_bale_inertia_g_mm2

#: Where bodies out of play wait, in the air far from the board and the table:
#: slot i is at this corner plus i times the spacing along x, cm.
_PARKING_CM = (3000.0, 3000.0, 500.0)
_PARKING_SPACING_CM = 30.0
#: The collision groups Bullet gives a dynamic body (btBroadphaseProxy's DefaultFilter)
#: and the groups it collides with (AllFilter).
_DYNAMIC_GROUP, _ALL_GROUPS = 1, -1
#: Steps between two checks for rest (the check reads every body's velocity).
REST_CHECK_EVERY = 10
#: Simulated time allowed for a new layout to settle, s.
_SETTLE_TIME_S = 1.5
#: Colours in PyBullet's window of the bodies that have no colour of their own.
_GUI_RGBA = {
    "board": (0.85, 0.77, 0.6, 1),
    "fence": FENCE_RGBA,
    "tractor": TRACTOR_RGBA,
    "bale": BALE_RGBA,
    "table": (0.55, 0.5, 0.45, 1),
}


class Scene:
    """A PyBullet scene built once from a board, a design and a layout: the registry
    of its bodies.

    Parameters
    ----------
    board, design : the toy.
    layout : who stands where; ``None`` for an empty board. Change it later with
        :meth:`set_layout` (no rebuild of the board).
    hit_rule : ``touches-line`` (default) or ``cleared``; docs/rules/go-piggy-go.md,
        ruling 7.
    gui : open PyBullet's window instead of running headless.

    Attributes
    ----------
    names : body id -> name ("board", "fence", "tractor", "bale" or the piggy's).
    piggy_bodies : piggy -> the body that stands for it now.
    static_bodies : the board, the table, the fences and the tractor.
    ground : the board and the table, the bodies things come to rest on.
    bale : the bale's body (made for each layout, reset for every shot).
    rest_poses_cm : piggy -> its settled body pose on the layout (cm, quaternion).
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
        self.client: int = pb.connect(pb.GUI if gui else pb.DIRECT)
        self._connected = True
        self.dt = 1.0 / design.physics.steps_per_s
        piggy = design.piggy
        if piggy.mesh is not None:  # before the decomposition: a refusal costs nothing
            check_piggy_fits(read_mesh_file(piggy.mesh, piggy.mesh_units, "piggy"), board.space_mm)
        self.model = PiggyModel.for_design(design)
        self.names: dict[int, str] = {}
        self.piggy_bodies: dict[str, int] = {}
        self.static_bodies: list[int] = []
        self.ground: list[int] = []
        self.rest_poses_cm: dict[str, tuple[list[float], list[float]]] = {}
        self.materials = NOMINAL
        self.layout: Layout = layout or Layout(board=board, stacks={})
        self.set_layout(self.layout)

    # --- building ----------------------------------------------------------------
    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` on this scene's PyBullet client."""
        return fn(*args, physicsClientId=self.client, **kwargs)

    def _create_shapes(self) -> None:
        """The engine's settings, then every collision shape (:func:`make_shapes`)."""
        physics = self.design.physics
        self.call(pb.setGravity, 0, 0, -GRAVITY_MM_S2 * CM_PER_MM)
        self.call(
            pb.setPhysicsEngineParameter,
            fixedTimeStep=self.dt,
            numSolverIterations=physics.solver_iterations,
            numSubSteps=0,
            deterministicOverlappingPairs=1,
        )
        shapes = make_shapes(self.call, self.board, self.design, self.model)
        self._static_specs = shapes.static_specs
        self._tractor_shape, self.piggy_shape = shapes.tractor, shapes.piggy
        self._bale_shape = shapes.bale
        self._bale_inertia_g_mm2 = own_bale_inertia_g_mm2(self.design.bale)

    def _rebuild(self, piggy_poses_cm: dict[str, tuple[list[float], list[float]]]) -> None:
        """Empty the simulation and make everything anew: the shapes, the static
        bodies, the tractor, the piggies (dynamic bodies) at body-frame poses (cm,
        quaternion), the bale parked. Only a new layout does this; shots reuse it."""
        self.call(pb.resetSimulation)
        self.names = {}
        self._create_shapes()
        surfaces = self.design.surfaces
        # Fences and the tractor as rigid bodies (maximal coordinates) cost Bullet less a
        # step than fixed-base multibodies; not the board and the table, on which a
        # rigid bale slides askew (docs/physics.md, "Speed")
        rigid = self.design.physics.rigid_obstacles
        for name, shape, position, yaw in self._static_specs:
            body = self.call(
                pb.createMultiBody,
                0,
                shape,
                basePosition=[c * CM_PER_MM for c in position],
                baseOrientation=pb.getQuaternionFromEuler([0, 0, yaw]),
                useMaximalCoordinates=rigid and name == "fence",
            )
            self.names[body] = name
        self.tractor = self.call(
            pb.createMultiBody, 0, self._tractor_shape, useMaximalCoordinates=rigid
        )
        self.names[self.tractor] = "tractor"
        self.static_bodies = list(self.names)
        self.ground = [b for b, name in self.names.items() if name in ("board", "table")]
        self.board_body = next(b for b in self.ground if self.names[b] == "board")
        for body in self.static_bodies:
            self.call(
                pb.changeDynamics,
                body,
                -1,
                **self.surface(surfaces.friction, surfaces.restitution, "surface"),
            )
        self.piggy_bodies = {
            name: self.make_piggy(name, *pose) for name, pose in piggy_poses_cm.items()
        }
        self.make_bale()

    def surface(self, friction: float, restitution: float, body: str) -> dict[str, float]:
        """A body's contact coefficients under the current factors of its material
        (``body``: "bale", "piggy" or "surface"; restitution at most 1: a factor must
        not make a bounce add energy)."""
        return {
            "lateralFriction": friction * self.materials.friction_of(body),
            "restitution": min(1.0, restitution * self.materials.restitution_of(body)),
        }

    def make_bale(self) -> None:
        """A new bale, waiting at its parking slot (made with the scene and for each
        layout; every shot then reuses it, through :meth:`reset_bale`)."""
        bale = self.design.bale
        # A maximal-coordinate rigid body, for continuous collision detection. The
        # stock bale's inertia is Bullet's, from the bounding box: exact for a box,
        # close for a rounded one.
        self.bale = self.call(
            pb.createMultiBody,
            bale.mass_g,
            self._bale_shape,
            basePosition=parking_cm(0),
            useMaximalCoordinates=True,
        )
        self.names[self.bale] = "bale"
        smallest = min(bale.length_mm, bale.width_mm, bale.height_mm)
        if self._bale_inertia_g_mm2 is not None:
            # An own bale's inertia is its mesh's (a solid). Given with the mass:
            # without it PyBullet makes a maximal-coordinate body's state NaN.
            self.call(
                pb.changeDynamics,
                self.bale,
                -1,
                mass=bale.mass_g,
                localInertiaDiagonal=(self._bale_inertia_g_mm2 * CM_PER_MM**2).tolist(),
            )
        self.call(
            pb.changeDynamics,
            self.bale,
            -1,
            **self.surface(bale.friction, bale.restitution, "bale"),
            linearDamping=0.0,
            angularDamping=0.0,
            ccdSweptSphereRadius=0.4 * smallest * CM_PER_MM,
        )
        self.colour_for_gui([self.bale])

    def reset_bale(self) -> None:
        """The bale back to what a new one is: at rest at its parking slot, its
        surface under the current material factors, and a new broadphase proxy, so
        that no contact pair, manifold or warm-start impulse of the last shot is left
        (``setCollisionFilterGroupMask`` rebuilds the proxy where the body stands, with
        the groups Bullet gives a dynamic body: it keeps its place in Bullet's body
        arrays, which removing and re-adding it would not). Its activation state needs
        nothing: a body PyBullet makes without ``URDF_ENABLE_SLEEPING`` never sleeps."""
        bale = self.design.bale
        self.call(pb.resetBasePositionAndOrientation, self.bale, parking_cm(0), [0, 0, 0, 1])
        self.call(pb.resetBaseVelocity, self.bale, [0, 0, 0], [0, 0, 0])
        self.call(
            pb.changeDynamics,
            self.bale,
            -1,
            **self.surface(bale.friction, bale.restitution, "bale"),
        )
        self.call(pb.setCollisionFilterGroupMask, self.bale, -1, _DYNAMIC_GROUP, _ALL_GROUPS)

    def make_piggy(self, name: str, position_cm: list[float], orientation: list[float]) -> int:
        """A dynamic piggy body at a body-frame pose (cm, quaternion)."""
        piggy, mass = self.design.piggy, self.model.mass
        mass_g = piggy.mass_g * self.materials.mass
        density = mass_g / mass["volume_mm3"]  # g / mm^3
        moments_g_cm2 = [m * density * CM_PER_MM**2 for m in mass["principal_moments_mm5"]]
        body = self.call(
            pb.createMultiBody,
            mass_g,
            self.piggy_shape,
            basePosition=position_cm,
            baseOrientation=orientation,
        )
        self.call(
            pb.changeDynamics,
            body,
            -1,
            **self.surface(piggy.friction, piggy.restitution, "piggy"),
            linearDamping=0.0,
            angularDamping=0.0,
            localInertiaDiagonal=moments_g_cm2,
        )
        self.names[body] = name
        self.colour_for_gui([body])
        return body

    def remove(self, body: int) -> None:
        """Take a body out of the simulation for good."""
        self.call(pb.removeBody, body)
        del self.names[body]

    def park(self, body: int, slot: int) -> None:
        """Put a moving body out of play for the rest of the shot: at its own slot in
        the air, beyond the table, where it falls touching nothing.

        Not removed, nor taken out of collisions (which re-adds it to the world):
        either changes Bullet's body order in the middle of a shot, and later
        shots then depended on it."""
        self.call(pb.resetBasePositionAndOrientation, body, parking_cm(slot), [0, 0, 0, 1])
        self.call(pb.resetBaseVelocity, body, [0, 0, 0], [0, 0, 0])

    def set_layout(self, layout: Layout) -> None:
        """Stand the layout's piggies on their spaces, let them settle, and keep their
        resting poses. In PyBullet's window nothing is drawn until it is built (drawing
        every step of the settling made opening the window take twenty seconds)."""
        if layout.board != self.board:
            raise ValueError("the layout is for another board than this world's")
        self.layout = layout
        self.materials = NOMINAL  # a layout settles as designed, whatever the last shot drew
        drop_poses = {
            name: ((pose.position_mm * CM_PER_MM).tolist(), quaternion_from_matrix(pose.rotation))
            for name, pose in self.model.drop_poses_mm(self.board, layout).items()
        }
        if self.gui:
            self.call(pb.configureDebugVisualizer, pb.COV_ENABLE_RENDERING, 0)
        try:
            self._rebuild(drop_poses)
            self._settle()
        finally:
            if self.gui:
                self.call(pb.configureDebugVisualizer, pb.COV_ENABLE_RENDERING, 1)
        self.rest_poses_cm = {}
        for name, body in self.piggy_bodies.items():
            position, orientation = self.call(pb.getBasePositionAndOrientation, body)
            self.rest_poses_cm[name] = (list(position), list(orientation))

    def _settle(self) -> None:
        """Let the piggies come to rest where they were put down."""
        steps = int(_SETTLE_TIME_S / self.dt)
        rest_speed = self.design.physics.rest_speed_mm_s * CM_PER_MM
        rest_spin = math.radians(self.design.physics.rest_spin_deg_s)
        for step in range(steps):
            self.call(pb.stepSimulation)
            if (
                step % REST_CHECK_EVERY == 0
                and step * self.dt > 0.2
                and all(self.at_rest(b, rest_speed, rest_spin) for b in self.piggy_bodies.values())
            ):
                break

    # --- queries -------------------------------------------------------------------
    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]:
        """Each piggy's resting pose on the layout, as a recording keeps poses: its
        body's position (centre of mass, mm) and quaternion (x, y, z, w)."""
        return {
            name: ([v / CM_PER_MM for v in position], list(orientation))
            for name, (position, orientation) in self.rest_poses_cm.items()
        }

    def position_mm(self, body: int) -> np.ndarray:
        """A body's origin now; (3,), mm."""
        pos, _ = self.call(pb.getBasePositionAndOrientation, body)
        return np.array(pos) / CM_PER_MM

    def body_pose(self, body: int) -> BodyPose:
        """A body's pose now (origin in mm, rotation matrix)."""
        pos, orn = self.call(pb.getBasePositionAndOrientation, body)
        return BodyPose(
            np.array(pos) / CM_PER_MM, np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3)
        )

    def piggy_pose(self, piggy: str) -> BodyPose:
        """A piggy's body (principal) pose now."""
        return self.body_pose(self.piggy_bodies[piggy])

    def colour_for_gui(self, bodies: Iterable[int]) -> None:
        """Colours in PyBullet's window (it draws the collision shapes); no-op headless."""
        if not self.gui:
            return
        for body in bodies:
            name = self.names[body]
            rgba = PIGGY_RGBA.get(name.split("-")[0]) or _GUI_RGBA.get(name)
            if rgba:
                self.call(pb.changeVisualShape, body, -1, rgbaColor=list(rgba))

    def at_rest(self, body: int, rest_speed_cm_s: float, rest_spin_rad_s: float) -> bool:
        """Whether a body moves and spins no faster than these (cm/s, rad/s)."""
        v, w = pb.getBaseVelocity(body, physicsClientId=self.client)
        return bool(
            v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= rest_speed_cm_s * rest_speed_cm_s
            and w[0] * w[0] + w[1] * w[1] + w[2] * w[2] <= rest_spin_rad_s * rest_spin_rad_s
        )

    def close(self) -> None:
        """Disconnect from PyBullet (also done when the scene is garbage-collected)."""
        if self._connected and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self._connected = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
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
