"""The collision shapes of a :class:`sim.physics.bullet.scene.Scene`: board, table, fences,
tractor, piggy and bale, made on the scene's PyBullet client from a board, a design
and the piggy's model (lengths in mm here, cm inside Bullet).

The shapes are made in the order the scene always made them: what Bullet computes
can depend on the order things are made in, and a seeded shot must not change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.board import Board
from models.decompose import parts_obj_file
from models.design import Design
from models.meshes import ASSETS_DIR
from sim.physics.bodies import bale_parts, static_boxes, tractor_file
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.geometry import PiggyModel
from sim.physics.own_bodies import own_parts_file

#: How a scene calls PyBullet: ``call(fn, *args, **kwargs)`` on its own client.
Call = Callable[..., Any]


@dataclass(frozen=True)
class SceneShapes:
    """PyBullet's ids of a scene's collision shapes.

    Attributes
    ----------
    static_specs : (name, shape, position mm, yaw rad) of every static body but the
        tractor: the board, the table, the fences.
    tractor, piggy, bale : the shapes of the tractor, of every piggy, of the bale.
    """

    static_specs: list[tuple[str, int, tuple[float, float, float], float]]
    tractor: int
    piggy: int
    bale: int


def make_shapes(call: Call, board: Board, design: Design, model: PiggyModel) -> SceneShapes:
    """Every collision shape: board, table, fences, tractor, piggy, bale
    (:mod:`sim.physics.bodies`: what any engine's scene is made of)."""
    static_specs = [
        (box.name, _box_shape(call, box.half_mm), box.centre_mm, box.yaw_rad)
        for box in static_boxes(board)
    ]
    tractor = _obj_shape(call, tractor_file(design))
    piggy = _obj_shape(
        call,
        ASSETS_DIR / "piggy_principal.obj"
        if design.piggy.mesh is None
        else parts_obj_file(list(model.parts_mm)),
    )
    bale = design.bale
    own_bale = own_parts_file(bale, "bale")
    if own_bale is not None:
        bale_shape = _obj_shape(call, own_bale)
    else:
        (vertices,) = bale_parts(design)
        bale_shape = call(
            pb.createCollisionShape, pb.GEOM_MESH, vertices=(vertices * CM_PER_MM).tolist()
        )
    return SceneShapes(static_specs, tractor, piggy, bale_shape)


def _obj_shape(call: Call, path: Path) -> int:
    """A compound of convex hulls, one per object of an OBJ file in mm."""
    return call(
        pb.createCollisionShape,
        pb.GEOM_MESH,
        fileName=str(path),
        meshScale=[CM_PER_MM] * 3,
    )


def _box_shape(call: Call, half_mm: Iterable[float]) -> int:
    return call(pb.createCollisionShape, pb.GEOM_BOX, halfExtents=[h * CM_PER_MM for h in half_mm])
