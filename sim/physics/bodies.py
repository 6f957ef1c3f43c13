"""What a scene is made of, for any engine: the static boxes (board, table,
fences), the tractor's, the piggy's and the bale's convex parts, their masses and
inertias, and the contact coefficients of each pair of materials. No engine here:
the Bullet scene (:mod:`sim.physics.bullet.scene`, :mod:`sim.physics.bullet.scene_shapes`) and
the MuJoCo one (:mod:`sim.physics.mujoco.scene`) are both built from these, so the
two cannot hold two copies of the toy (tests/sim/physics/test_mujoco.py compares
what each engine built with them). mm, g and radians, as named.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.board import Board
from models.design import Design
from models.meshes import ASSETS_DIR, hay_bale, parse_obj
from sim.physics.geometry import PiggyModel, fence_boxes
from sim.physics.own_bodies import own_bale_inertia_g_mm2, own_parts_file


@dataclass(frozen=True)
class StaticBox:
    """A box that never moves: its name ("board", "table" or "fence"), half its
    size along its own x, y, z (mm), its centre (mm) and its turn about z (rad)."""

    name: str
    half_mm: tuple[float, float, float]
    centre_mm: tuple[float, float, float]
    yaw_rad: float


def static_boxes(board: Board) -> list[StaticBox]:
    """The board, the table under it and the fences, in the order scenes make them."""
    x0, x1, y0, y1 = board.surface_extent_mm
    t = board.thickness_mm
    boxes = [
        StaticBox(
            "board",
            ((x1 - x0) / 2, (y1 - y0) / 2, t / 2),
            ((x0 + x1) / 2, (y0 + y1) / 2, -t / 2),
            0.0,
        ),
        # the table under the board: a box, not a plane, which compound meshes were
        # seen to fall through in Bullet
        StaticBox("table", (5000.0, 5000.0, 50.0), (0.0, 0.0, -t - 50.0), 0.0),
    ]
    boxes += [
        StaticBox("fence", fence.half_extents_mm, fence.centre_mm, fence.yaw_rad)
        for fence in fence_boxes(board)
    ]
    return boxes


def tractor_file(design: Design):
    """The OBJ of the tractor's convex parts (mm, tractor frame): the design's own,
    decomposed, or the stock asset."""
    return own_parts_file(design.tractor, "tractor") or ASSETS_DIR / "tractor.obj"


def tractor_parts(design: Design) -> list[np.ndarray]:
    """The tractor's convex parts, (n_i, 3) each, mm, tractor frame."""
    return [
        np.asarray(m.vertices, float) for m in parse_obj(tractor_file(design).read_text()).values()
    ]


def bale_parts(design: Design) -> list[np.ndarray]:
    """The bale's convex parts, (n_i, 3) each, mm, about its centre: its own mesh's
    decomposition, or the stock rounded block (one hull)."""
    bale = design.bale
    own = own_parts_file(bale, "bale")
    if own is not None:
        return [np.asarray(m.vertices, float) for m in parse_obj(own.read_text()).values()]
    mesh = hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)
    return [np.asarray(mesh.vertices, float)]


def bale_inertia_g_mm2(design: Design) -> np.ndarray:
    """The bale's moments of inertia about its axes, (3,), g·mm²: an own mesh's as a
    solid; the stock block's as a box of its hull's extents (what Bullet takes for a
    convex hull, to within the 1-2 % its collision margin adds)."""
    own = own_bale_inertia_g_mm2(design.bale)
    if own is not None:
        return own
    points = np.vstack(bale_parts(design))
    size = points.max(axis=0) - points.min(axis=0)
    lx, ly, lz = size
    mass = design.bale.mass_g
    return mass / 12.0 * np.array([ly * ly + lz * lz, lx * lx + lz * lz, lx * lx + ly * ly])


def piggy_inertia_g_mm2(design: Design, model: PiggyModel, mass_factor: float = 1.0) -> np.ndarray:
    """A piggy's principal moments of inertia, (3,), g·mm²: its model's shape at the
    design's mass (times ``mass_factor``, ``--vary``'s), uniform density."""
    density = design.piggy.mass_g * mass_factor / model.mass["volume_mm3"]
    return np.array(model.mass["principal_moments_mm5"]) * density


#: The materials a contact is between.
MATERIALS = ("bale", "piggy", "surface")


def pair_friction(design: Design, a: str, b: str) -> float:
    """The sliding friction of a contact between materials ``a`` and ``b`` (of
    :data:`MATERIALS`): the product of the two coefficients (Bullet's rule, the one
    the design's numbers were chosen for)."""
    return _coefficient(design, a, "friction") * _coefficient(design, b, "friction")


def pair_restitution(design: Design, a: str, b: str) -> float:
    """The restitution of a contact between materials ``a`` and ``b``: the product of
    the two coefficients (Bullet's rule)."""
    return _coefficient(design, a, "restitution") * _coefficient(design, b, "restitution")


def _coefficient(design: Design, material: str, name: str) -> float:
    section = {"bale": design.bale, "piggy": design.piggy, "surface": design.surfaces}[material]
    return float(getattr(section, name))
