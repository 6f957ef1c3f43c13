"""The toy's static geometry as the engine builds it, with no PyBullet: the fences'
boxes, the piggy's model in its principal frame, where a layout's piggies are put
down, and a piggy's collision parts at any pose.

The engine (:mod:`sim.physics.bullet.scene`) builds its bodies from these, and the views
draw from them and from a shot's result, so that a picture never needs a live
simulation. Board frame, mm, radians inside, as named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from models.board import Board, Space
from models.decompose import DecompositionSettings, collision_parts, mesh_mass_properties
from models.design import Design
from models.layout import Layout
from models.mesh_files import MeshFile, read_mesh_file
from models.meshes import load_parts, load_piggy_mass
from sim.physics import knockout

#: Lift above their resting place at which piggies are put down, mm.
DROP_CLEARANCE_MM = 0.2


@dataclass(frozen=True)
class FenceBox:
    """One fence as the box the engine collides with and the views draw.

    ``start_mm`` and ``end_mm`` (2,) are the ends of its centre line on the board
    (mm); the box runs past each end by half its thickness, so that fences meeting
    at a corner close it.
    """

    start_mm: np.ndarray
    end_mm: np.ndarray
    thickness_mm: float
    height_mm: float

    @property
    def centre_mm(self) -> tuple[float, float, float]:
        """The box's centre (x, y, z), mm; it stands on the board top."""
        mid = (self.start_mm + self.end_mm) / 2
        return (mid[0], mid[1], self.height_mm / 2)

    @property
    def half_extents_mm(self) -> tuple[float, float, float]:
        """Half its length, thickness and height, mm (along, across, up)."""
        length = float(np.linalg.norm(self.end_mm - self.start_mm))
        return (length / 2 + self.thickness_mm / 2, self.thickness_mm / 2, self.height_mm / 2)

    @property
    def yaw_rad(self) -> float:
        """The turn of its length from the board's +x axis, radians."""
        along = self.end_mm - self.start_mm
        return math.atan2(along[1], along[0])

    def bounds_mm(self) -> tuple[np.ndarray, np.ndarray]:
        """The (low, high) corners (3,) of the box, mm: fences run along the grid's
        lines, so the box is axis-aligned."""
        half = self.thickness_mm / 2
        low = np.minimum(self.start_mm, self.end_mm) - half
        high = np.maximum(self.start_mm, self.end_mm) + half
        return np.array([*low, 0.0]), np.array([*high, self.height_mm])


def fence_boxes(board: Board) -> list[FenceBox]:
    """Every fence of the board as a box, in the board's fence order."""
    return [
        FenceBox(a, b, board.fence_thickness_mm, board.fence_height_mm)
        for a, b in board.fence_segments_mm()
    ]


@dataclass(frozen=True)
class BodyPose:
    """Where a rigid body is: its origin (3,), mm, and its rotation matrix (3, 3)
    (columns: its axes in the board frame). For a piggy the body frame is its
    principal frame (origin at the centre of mass), as in piggy_principal.obj."""

    position_mm: np.ndarray
    rotation: np.ndarray


@dataclass(frozen=True)
class PiggyModel:
    """The piggy as the engine simulates it: in its principal frame (origin at the
    centre of mass, axes along the principal axes of inertia; models.meshes).

    Attributes
    ----------
    parts_mm : its convex collision parts, (n_i, 3) arrays, principal frame, mm.
    principal_axes : (3, 3), the principal axes (columns) in the piggy's own frame
        (origin on the ground under its footprint's centre, +y to the snout).
    com_mm : (3,), its centre of mass in its own frame, mm.
    mass : the cached mass properties per unit density (models.meshes.build_assets).
    aims_at_centre_of_mass : where :meth:`centre_at` puts the point to aim at. An
        own piggy: its centre of mass. The stock piggy: the mean of its parts'
        vertices, 0.6 mm from its centre of mass, kept so that every stock result
        stays as it was. A mean of vertices moves with how finely a mesh's hulls
        are made (the wide-piggy example's by 4.8 mm when its hulls were
        simplified), so it is not used for a designer's mesh.
    """

    parts_mm: tuple[np.ndarray, ...]
    principal_axes: np.ndarray
    com_mm: np.ndarray
    mass: dict
    aims_at_centre_of_mass: bool = False

    @staticmethod
    @cache
    def load() -> PiggyModel:
        """The model from the cached assets (read once per process)."""
        mass = load_piggy_mass()
        # plain arrays: trimesh's tracked ones make every transform of them slower
        parts = tuple(
            np.array(m.vertices, dtype=float) for m in load_parts("piggy_principal").values()
        )
        return PiggyModel(parts, np.array(mass["principal_axes"]), np.array(mass["com_mm"]), mass)

    @staticmethod
    def for_design(design: Design) -> PiggyModel:
        """The design's piggy: its own mesh's when it gives one, else the stock one."""
        piggy = design.piggy
        if piggy.mesh is None:
            return PiggyModel.load()
        mesh_file = read_mesh_file(piggy.mesh, piggy.mesh_units, "piggy")
        settings = DecompositionSettings(piggy.mesh_threshold, piggy.mesh_max_parts)
        return _own_piggy(mesh_file, settings)

    def parts_at(self, pose: BodyPose) -> list[np.ndarray]:
        """Its collision parts at a body pose: (n_i, 3) arrays, board frame, mm."""
        return [knockout.transform(v, pose.position_mm, pose.rotation) for v in self.parts_mm]

    def centre_at(self, pose: BodyPose) -> np.ndarray:
        """The point to aim at, at a body pose (see ``aims_at_centre_of_mass``);
        (3,), mm."""
        if self.aims_at_centre_of_mass:
            return np.array(pose.position_mm, dtype=float)  # the principal frame's origin
        return np.vstack(self.parts_at(pose)).mean(axis=0)

    def own_frame(self, pose: BodyPose) -> tuple[np.ndarray, np.ndarray]:
        """Position (3,), mm, and rotation (3, 3) of the piggy's own frame at a body
        pose (origin on the ground under its footprint's centre, +y to the snout)."""
        rotation = pose.rotation @ self.principal_axes.T
        return pose.position_mm - rotation @ self.com_mm, rotation

    def drop_poses_mm(self, board: Board, layout: Layout) -> dict[str, BodyPose]:
        """Where each of the layout's piggies is put down before it settles: on its
        space's centre, facing the space's forward direction, ``DROP_CLEARANCE_MM``
        above its resting place (an upper piggy three quarters of a piggy higher)."""
        stack_height_mm = self.mass["height_mm"] * 0.75
        poses = {}
        for space, stack in sorted(layout.stacks.items()):
            cx, cy = board.space_center_mm(space)
            turn = rotation_z(forward_yaw(board, space))
            for level, name in enumerate(stack):
                foot = np.array([cx, cy, DROP_CLEARANCE_MM + level * stack_height_mm])
                poses[name] = BodyPose(foot + turn @ self.com_mm, turn @ self.principal_axes)
        return poses


@cache
def _own_piggy(mesh_file: MeshFile, settings: DecompositionSettings) -> PiggyModel:
    """A piggy model from a designer's mesh (in the piggy frame): its parts in its
    principal frame and its mass properties as a solid (once per content and
    settings: a MeshFile compares by its file and sha256)."""
    props = mesh_mass_properties(mesh_file.mesh)
    axes, com = props.principal_axes, props.com_mm
    parts = [p.vertices for p in collision_parts(mesh_file, settings)]
    lo, hi = mesh_file.mesh.bounds
    mass = {
        "volume_mm3": props.volume_mm3,
        "com_mm": com.tolist(),
        "principal_moments_mm5": props.principal_moments_mm5.tolist(),
        "principal_axes": axes.tolist(),
        "height_mm": float(hi[2]),
        "footprint_half_mm": [float(max(-lo[i], hi[i])) for i in (0, 1)],
    }
    principal = tuple(np.array((v - com) @ axes, dtype=float) for v in parts)
    return PiggyModel(principal, axes, com, mass, aims_at_centre_of_mass=True)


def forward_yaw(board: Board, space: Space) -> float:
    """Yaw (radians) that faces a piggy along its space's forward direction."""
    return {"up": 0.0, "left": math.pi / 2, "down": math.pi, "right": -math.pi / 2}[
        board.forward.get(space, "up")
    ]


def rotation_z(yaw_rad: float) -> np.ndarray:
    """The rotation (3, 3) by ``yaw_rad`` about the vertical."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def quaternion_from_matrix(m: np.ndarray) -> list[float]:
    """(x, y, z, w) of a proper rotation matrix (3, 3)."""
    w = math.sqrt(max(0.0, 1 + m[0, 0] + m[1, 1] + m[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + m[0, 0] - m[1, 1] - m[2, 2])) / 2, m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] + m[1, 1] - m[2, 2])) / 2, m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] - m[1, 1] + m[2, 2])) / 2, m[1, 0] - m[0, 1])
    return [x, y, z, w]
