"""What the views draw of a design's bodies: the piggy, the tractor and the bale,
as the stock ones (models/meshes.py) or as the design's own meshes
(models/mesh_files.py) when it gives them.

Two answers per part, both in mm in the part's frame (models/meshes.py documents
the frames):

- :func:`drawn_parts`, convex parts for flat pictures, which draw each part's
  hull: the stock parts, or an own mesh's collision parts (what the physics and
  the judge use, so that a picture shows what was simulated);
- :func:`surface_parts`, the meshes a 3-D view draws: the stock parts, or the own
  mesh itself, closer to what the designer made than its convex parts.

A piggy in a 3-D view moves with its physics body, whose frame is its principal
frame (origin at its centre of mass, axes its principal axes of inertia);
:func:`surface_parts` gives it in that frame on request. No PyBullet here.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import trimesh

from models.decompose import DecompositionSettings, collision_parts, mesh_mass_properties
from models.mesh_files import MESH_PARTS, MeshFile, read_mesh_file
from models.meshes import hay_bale, load_parts, obj_text

if TYPE_CHECKING:
    from models.design import Design


def own_mesh(design: Design, part: str) -> MeshFile | None:
    """The design's own checked mesh for ``part`` (``piggy``, ``tractor`` or
    ``bale``), or ``None`` when it uses the stock body."""
    if part not in MESH_PARTS:
        raise ValueError(f"no body named {part!r}: one of {', '.join(MESH_PARTS)}")
    section = getattr(design, part)
    if section.mesh is None:
        return None
    return read_mesh_file(section.mesh, section.mesh_units, part)


def drawn_parts(design: Design, part: str) -> list[np.ndarray]:
    """The convex parts a flat picture draws of ``part``: (n_i, 3) vertex arrays, mm,
    in the part's frame (a piggy in its own frame, not its principal one)."""
    mesh_file = own_mesh(design, part)
    if mesh_file is None:
        return [np.asarray(m.vertices, dtype=float) for m in _stock_parts(design, part)]
    section = getattr(design, part)
    settings = DecompositionSettings(section.mesh_threshold, section.mesh_max_parts)
    return [np.array(p.vertices, dtype=float) for p in collision_parts(mesh_file, settings)]


def surface_parts(design: Design, part: str, *, principal: bool = False) -> list[trimesh.Trimesh]:
    """The meshes a 3-D view draws of ``part``, mm, in the part's frame: the stock
    parts, or the own mesh (one closed mesh, as checked and placed).

    Parameters
    ----------
    design : the launcher design.
    part : ``piggy``, ``tractor`` or ``bale``.
    principal : a piggy in its principal frame (its physics body's frame) instead of
        its own frame; only for the piggy.
    """
    if principal and part != "piggy":
        raise ValueError("only the piggy is drawn in its principal frame")
    mesh_file = own_mesh(design, part)
    if mesh_file is None:
        if principal:
            return list(load_parts("piggy_principal").values())
        return _stock_parts(design, part)
    if principal:
        return [_in_principal_frame(mesh_file)]
    return [mesh_file.mesh]


def surface_obj_text(design: Design, part: str, *, principal: bool = False) -> str:
    """:func:`surface_parts` as one Wavefront OBJ text (mm), one object per mesh, as
    PyBullet's renderer loads a visual shape."""
    meshes = surface_parts(design, part, principal=principal)
    return obj_text({f"{part}-{i}": mesh for i, mesh in enumerate(meshes)})


def _stock_parts(design: Design, part: str) -> list[trimesh.Trimesh]:
    """The stock body's parts in its frame; the stock bale is sized by the design."""
    if part == "bale":
        bale = design.bale
        return [hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)]
    return list(load_parts(part).values())


@cache
def _in_principal_frame(mesh_file: MeshFile) -> trimesh.Trimesh:
    """An own piggy's mesh moved to its principal frame, as the physics puts its
    body: the centre of mass of the solid at the origin, its principal axes along
    x, y and z (once per mesh content: a MeshFile compares by file and sha256)."""
    props = mesh_mass_properties(mesh_file.mesh)
    vertices = (np.asarray(mesh_file.mesh.vertices) - props.com_mm) @ props.principal_axes
    return trimesh.Trimesh(vertices, np.asarray(mesh_file.mesh.faces), process=False)
