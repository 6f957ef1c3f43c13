"""What the scene needs of a design's own meshes (models/mesh_files.py): the OBJ of
a part's convex collision parts, and an own bale's inertia. No PyBullet here."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.decompose import (
    DecompositionSettings,
    collision_parts,
    mesh_mass_properties,
    parts_obj_file,
)
from models.design import Bale, Tractor
from models.mesh_files import read_mesh_file


def own_parts_file(section: Bale | Tractor, part: str) -> Path | None:
    """The OBJ (mm) of a design part's own collision parts (its mesh decomposed, in
    its part's frame), or ``None`` when the design gives no mesh for it."""
    if section.mesh is None:
        return None
    mesh_file = read_mesh_file(section.mesh, section.mesh_units, part)
    settings = DecompositionSettings(section.mesh_threshold, section.mesh_max_parts)
    return parts_obj_file([p.vertices for p in collision_parts(mesh_file, settings)])


def own_bale_inertia_g_mm2(bale: Bale) -> np.ndarray | None:
    """An own bale's moments of inertia about its frame's axes through its centre of
    mass, (3,), g·mm²: its mesh as a uniform solid of ``mass_g``. The diagonal of
    the tensor in the bale's frame (Bullet takes no other): exact when the mesh's
    principal axes are the frame's, as for any bale symmetric about its x, y and z
    planes. ``None`` for the stock bale, whose inertia is Bullet's."""
    if bale.mesh is None:
        return None
    props = mesh_mass_properties(read_mesh_file(bale.mesh, bale.mesh_units, "bale").mesh)
    axes = props.principal_axes
    tensor = axes @ np.diag(props.principal_moments_mm5) @ axes.T
    return np.diag(tensor) * bale.mass_g / props.volume_mm3
