"""Meshes of the toy, built in code with trimesh: the piggy, the hay bale, the tractor.

Each body is a list of convex parts. For the piggy that list *is* its collision
geometry: a convex decomposition (body, head, snout, ears, legs, tail), so that
a bale can fly under its belly between its legs. One convex hull of the whole
piggy would fill that gap.

Frames, in mm:
- piggy: origin on the ground under the centre of its footprint, +y toward the
  snout, +z up.
- bale: origin at its centre, +y along its length (the direction it is fired).
- tractor: origin at the barrel pivot's foot on the board, +y the barrel's
  direction at pitch 0, +z up. The barrel itself (pivot at z = the design's
  pivot height, along +y) is built from the design by :func:`barrel`.

Generated parts are cached under models/assets/ (``scripts/build_models.py``);
:func:`load_parts` reads them back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

ASSETS_DIR = Path(__file__).parent / "assets"

#: Grid spacing for the mass properties of a union of convex parts, mm.
MASS_GRID_MM = 0.25

# --- piggy dimensions, mm -------------------------------------------------------
PIGGY_BODY_SEMI_AXES = (11.5, 15.0, 9.0)  # x (half width), y (half length), z
PIGGY_BODY_CENTRE_Z = 19.0  # belly at 10 mm, back at 28 mm
PIGGY_HEAD_RADIUS = 8.0
PIGGY_LEG_RADIUS = 2.5
PIGGY_LEG_XY = (8.0, 9.0)  # legs at (+-x, +-y): an 11 mm gap between them
PIGGY_LEG_TOP_Z = 16.0


def _ellipsoid(semi_axes, centre, subdivisions=2) -> trimesh.Trimesh:
    mesh = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0)
    mesh.apply_scale(semi_axes)
    mesh.apply_translation(centre)
    return mesh


def _cylinder(radius, p0, p1, sections=12) -> trimesh.Trimesh:
    return trimesh.creation.cylinder(radius=radius, segment=[p0, p1], sections=sections)


def _box(lo, hi) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    box = trimesh.creation.box(extents=hi - lo)
    box.apply_translation((lo + hi) / 2)
    return box


def _cone(radius, base_centre, tip, sections=10) -> trimesh.Trimesh:
    base_centre, tip = np.asarray(base_centre, float), np.asarray(tip, float)
    axis = tip - base_centre
    cone = trimesh.creation.cone(radius=radius, height=np.linalg.norm(axis), sections=sections)
    cone.apply_transform(trimesh.geometry.align_vectors([0, 0, 1], axis / np.linalg.norm(axis)))
    cone.apply_translation(base_centre)
    return cone


def piggy_parts() -> dict[str, trimesh.Trimesh]:
    """The piggy as named convex parts, mm, in the piggy frame (about 35 mm tall)."""
    bx, by, bz = PIGGY_BODY_SEMI_AXES
    zc = PIGGY_BODY_CENTRE_Z
    head = np.array([0.0, by, zc + 5.0])
    parts = {
        "body": _ellipsoid((bx, by, bz), (0, 0, zc), subdivisions=1),
        "head": _ellipsoid((PIGGY_HEAD_RADIUS,) * 3, head, subdivisions=1),
        "snout": _cylinder(4.0, head + np.array([0, 6.0, -1.5]), head + np.array([0, 11.0, -1.5])),
        "ear-left": _cone(
            3.5, head + np.array([-4.5, -1.5, 5.5]), head + np.array([-6.5, -2.5, 11.0])
        ),
        "ear-right": _cone(
            3.5, head + np.array([4.5, -1.5, 5.5]), head + np.array([6.5, -2.5, 11.0])
        ),
        "tail": _ellipsoid((2.0, 2.0, 2.0), (0, -by - 0.5, zc + 3.0), subdivisions=1),
    }
    lx, ly = PIGGY_LEG_XY
    for name, sx, sy in (
        ("front-left", -1, 1),
        ("front-right", 1, 1),
        ("back-left", -1, -1),
        ("back-right", 1, -1),
    ):
        parts[f"leg-{name}"] = _cylinder(
            PIGGY_LEG_RADIUS,
            (sx * lx, sy * ly, 0.0),
            (sx * lx, sy * ly, PIGGY_LEG_TOP_Z),
            sections=10,
        )
    # Centre the footprint (the snout sticks out further than the tail).
    lo = min(p.bounds[0][1] for p in parts.values())
    hi = max(p.bounds[1][1] for p in parts.values())
    for part in parts.values():
        part.apply_translation([0, -(lo + hi) / 2, 0])
    return {name: part.convex_hull for name, part in parts.items()}


def hay_bale(length_mm=11.0, width_mm=7.0, height_mm=6.0, corner_radius_mm=1.5) -> trimesh.Trimesh:
    """A block with rounded edges (a box swept by a sphere), centred, long along +y."""
    r = corner_radius_mm
    half = np.array([width_mm, length_mm, height_mm]) / 2 - r
    if r <= 0:
        return trimesh.creation.box(extents=2 * half)
    sphere = trimesh.creation.icosphere(subdivisions=1, radius=r).vertices
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    return trimesh.convex.convex_hull((corners[:, None, :] + sphere[None, :, :]).reshape(-1, 3))


def tractor_parts() -> dict[str, trimesh.Trimesh]:
    """The wolf tractor's collision parts (without the barrel), mm, tractor frame."""
    parts = {
        "turntable": _cylinder(75.0, (0, 0, 0), (0, 0, 3.0), sections=32),
        "chassis": _box((-22, -45, 8), (22, 28, 38)),
        "cab": _box((-18, -45, 38), (18, -15, 66)),
        "wolf-head": _ellipsoid((11, 11, 12), (0, -30, 78), subdivisions=1),
        "post": _cylinder(6.0, (0, 0, 38), (0, 0, 64)),
    }
    for side in (-1, 1):
        parts[f"wheel-front-{'left' if side < 0 else 'right'}"] = _cylinder(
            13.0, (side * 22, 16, 13), (side * 32, 16, 13), sections=16
        )
        parts[f"wheel-back-{'left' if side < 0 else 'right'}"] = _cylinder(
            18.0, (side * 22, -28, 18), (side * 34, -28, 18), sections=16
        )
    for name in ("wolf-ear-left", "wolf-ear-right"):
        side = -1 if name.endswith("left") else 1
        parts[name] = _cone(4.0, (side * 6, -30, 86), (side * 10, -32, 96))
    return {name: part.convex_hull for name, part in parts.items()}


def barrel(barrel_length_mm: float) -> trimesh.Trimesh:
    """The launcher barrel, pivot at the origin, along +y (tilt and turn it to aim)."""
    return _cylinder(6.0, (0, -8.0, 0), (0, barrel_length_mm, 0), sections=16)


# --- mass properties ---------------------------------------------------------------
@dataclass(frozen=True)
class MassProperties:
    """Of a solid of unit density: volume (mm^3), centre of mass (mm, shape (3,)),
    principal moments of inertia per unit density (mm^5, shape (3,)) and the
    rotation matrix whose columns are the principal axes (shape (3, 3))."""

    volume_mm3: float
    com_mm: np.ndarray
    principal_moments_mm5: np.ndarray
    principal_axes: np.ndarray


def union_mass_properties(
    parts: list[trimesh.Trimesh], grid_mm: float = MASS_GRID_MM
) -> MassProperties:
    """Mass properties of the union of overlapping convex parts, by a regular grid.

    Summing the parts' own properties would count their overlaps twice; a grid of
    cell centres inside any part counts each bit of volume once. Deterministic.
    """
    halfspaces = []
    for part in parts:
        normals = part.face_normals
        offsets = np.einsum("ij,ij->i", normals, part.triangles[:, 0, :])
        halfspaces.append((normals, offsets))
    lo = np.min([p.bounds[0] for p in parts], axis=0)
    hi = np.max([p.bounds[1] for p in parts], axis=0)
    axes = [np.arange(lo[i] + grid_mm / 2, hi[i], grid_mm) for i in range(3)]
    total_mass, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for z in axes[2]:  # slab by slab to bound memory
        gx, gy = np.meshgrid(axes[0], axes[1], indexing="ij")
        pts = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)])
        inside = np.zeros(len(pts), bool)
        for normals, offsets in halfspaces:
            inside |= np.all(pts @ normals.T <= offsets + 1e-9, axis=1)
        pts = pts[inside]
        total_mass += len(pts)
        first += pts.sum(axis=0)
        second += pts.T @ pts
    cell = grid_mm**3
    volume = total_mass * cell
    com = first / total_mass
    # Inertia about the centre of mass, plus each cell's own inertia (a cube).
    centred = second / total_mass - np.outer(com, com)
    inertia = (np.trace(centred) * np.eye(3) - centred + np.eye(3) * grid_mm**2 / 6) * volume
    moments, axes_matrix = np.linalg.eigh(inertia)
    # Eigenvector signs differ between LAPACK builds: fix them so that the cache
    # is the same everywhere (largest component positive, right-handed).
    for i in range(3):
        if axes_matrix[np.argmax(np.abs(axes_matrix[:, i])), i] < 0:
            axes_matrix[:, i] *= -1
    if np.linalg.det(axes_matrix) < 0:
        axes_matrix[:, 2] *= -1
    return MassProperties(volume, com, moments, axes_matrix)


# --- the cache -----------------------------------------------------------------------
def obj_text(parts: dict[str, trimesh.Trimesh]) -> str:
    """Parts as one Wavefront OBJ, one object per part, with fixed formatting.

    PyBullet loads such a file as a compound of convex hulls, one per object.
    """
    lines = ["# generated by scripts/build_models.py; do not edit"]
    offset = 1
    for name, mesh in parts.items():
        lines.append(f"o {name}")
        lines.extend(f"v {x:.4f} {y:.4f} {z:.4f}" for x, y, z in mesh.vertices)
        lines.extend(f"f {a + offset} {b + offset} {c + offset}" for a, b, c in mesh.faces)
        offset += len(mesh.vertices)
    return "\n".join(lines) + "\n"


def parse_obj(text: str) -> dict[str, trimesh.Trimesh]:
    """The parts of an OBJ written by :func:`obj_text`."""
    parts: dict[str, tuple[list, list]] = {}
    current: str | None = None
    vertices: list[list[float]] = []
    for line in text.splitlines():
        if line.startswith("o "):
            current = line[2:].strip()
            parts[current] = ([], [])
        elif line[:2] in ("v ", "f "):
            if current is None:
                raise ValueError("a vertex or face before the first part ('o' line)")
            if line.startswith("v "):
                vertices.append([float(v) for v in line.split()[1:4]])
                parts[current][0].append(len(vertices) - 1)
            else:
                parts[current][1].append([int(i) - 1 for i in line.split()[1:4]])
    meshes = {}
    all_vertices = np.array(vertices)
    for name, (indices, faces) in parts.items():
        base = indices[0]
        meshes[name] = trimesh.Trimesh(all_vertices[indices], np.array(faces) - base, process=False)
    return meshes


def build_assets() -> dict[str, str]:
    """Every cached asset as file name -> text, exactly as it is written to disk."""
    piggy = piggy_parts()
    props = union_mass_properties(list(piggy.values()))
    props_text = (
        json.dumps(
            {
                "grid_mm": MASS_GRID_MM,
                "volume_mm3": round(props.volume_mm3, 3),
                "com_mm": [round(float(v), 6) for v in props.com_mm],
                "principal_moments_mm5": [round(float(v), 1) for v in props.principal_moments_mm5],
                "principal_axes": [
                    [round(float(v), 9) for v in row] for row in props.principal_axes
                ],
                "height_mm": round(float(max(p.bounds[1][2] for p in piggy.values())), 3),
                # Half its width (x) and half its length (y), from the origin under it: how far
                # a piggy standing in the middle of a space reaches toward the outline.
                "footprint_half_mm": [
                    round(float(max(abs(v) for p in piggy.values() for v in p.bounds[:, axis])), 3)
                    for axis in (0, 1)
                ],
            },
            indent=2,
        )
        + "\n"
    )
    # The same parts in the principal frame (origin at the centre of mass, axes the
    # principal axes of inertia): the physics body frame, so that its inertia is
    # exactly diagonal there. PyBullet rotates a multibody's collision shape along
    # with a baseInertialFrameOrientation, so the frame is baked into the mesh.
    axes = np.array(json.loads(props_text)["principal_axes"])
    com = np.array(json.loads(props_text)["com_mm"])
    to_principal = np.eye(4)
    to_principal[:3, :3] = axes.T
    to_principal[:3, 3] = -axes.T @ com
    principal = {name: part.copy().apply_transform(to_principal) for name, part in piggy.items()}
    return {
        "piggy.obj": obj_text(piggy),
        "piggy_principal.obj": obj_text(principal),
        "piggy_mass.json": props_text,
        "tractor.obj": obj_text(tractor_parts()),
        "bale_stock.obj": obj_text({"bale": hay_bale()}),
    }


def load_parts(asset: str) -> dict[str, trimesh.Trimesh]:
    """Read the cached parts of ``piggy``, ``piggy_principal``, ``tractor`` or ``bale_stock``."""
    return parse_obj((ASSETS_DIR / f"{asset}.obj").read_text())


def load_piggy_mass() -> dict:
    """The cached mass properties of the piggy (per unit density; see build_assets)."""
    return json.loads((ASSETS_DIR / "piggy_mass.json").read_text())
