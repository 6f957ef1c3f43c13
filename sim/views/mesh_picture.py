"""The picture of a design's own meshes (``piggy design check --png``): each mesh as
the designer gave it beside the convex parts the physics collides with, so that a
designer sees what the decomposition kept and what its hulls bridge (a belly's
arch filled in, a gap between legs closed).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import trimesh
from matplotlib import colormaps
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from models.decompose import DecompositionSettings, collision_parts
from models.design import Design
from models.errors import InputError
from models.mesh_files import MeshFile, design_meshes

#: The light's direction (from above, front left) for the flat shading.
_LIGHT = np.array([-0.4, -0.6, 1.0]) / np.linalg.norm([-0.4, -0.6, 1.0])
#: How far the parts are drawn apart, a share of their distance from the mesh's centre.
_EXPLODE = 0.35
#: The camera: degrees above the board, and round from +x.
_ELEVATION_DEG, _AZIMUTH_DEG = 22.0, -60.0


def mesh_figure(design: Design):
    """A figure with a row per own mesh: the mesh, and its convex collision parts.

    Raises :class:`~models.errors.InputError` when the design has no own mesh.
    """
    meshes = design_meshes(design)
    if not meshes:
        raise InputError(
            f"design '{design.name}' has no own mesh to draw: --png draws the meshes given "
            "by [bale] mesh, [piggy] mesh or [tractor] mesh"
        )
    fig = plt.figure(figsize=(9.0, 4.2 * len(meshes)))
    for row, (part, mesh_file) in enumerate(meshes.items()):
        section = getattr(design, part)
        settings = DecompositionSettings(section.mesh_threshold, section.mesh_max_parts)
        parts = collision_parts(mesh_file, settings)
        given = fig.add_subplot(len(meshes), 2, 2 * row + 1, projection="3d")
        _draw(given, [mesh_file.mesh], single_colour=True)
        given.set_title(_given_title(part, mesh_file), fontsize=9)
        hulls = fig.add_subplot(len(meshes), 2, 2 * row + 2, projection="3d")
        _draw(hulls, _exploded(parts, mesh_file.mesh), single_colour=False)
        hulls.set_title(_parts_title(parts, settings), fontsize=9)
        _same_box(given, hulls, mesh_file.mesh.bounds)
    fig.suptitle(f"design '{design.name}': own meshes and what the physics collides with")
    fig.tight_layout()
    return fig


def _given_title(part: str, mesh_file: MeshFile) -> str:
    x, y, z = mesh_file.size_mm
    return (
        f"{part}: {mesh_file.path.name}, {len(mesh_file.mesh.faces):,} faces\n"
        f"{x:.4g} x {y:.4g} x {z:.4g} mm (x, y, z), +y: "
        f"{'the barrel' if part == 'bale' else 'forward'}"
    )


def _parts_title(parts: list[trimesh.Trimesh], settings: DecompositionSettings) -> str:
    vertices = sum(len(p.vertices) for p in parts)
    if len(parts) == 1:
        return f"convex: one collision part, its hull\n({vertices:,} vertices)"
    return (
        f"its {len(parts)} convex collision parts, drawn apart\n"
        f"(threshold {settings.threshold:g}, at most {settings.max_parts}; "
        f"{vertices:,} hull vertices)"
    )


def _draw(ax, meshes: list[trimesh.Trimesh], single_colour: bool) -> None:
    """Flat-shaded triangles, each part its own colour unless ``single_colour``; one
    collection, so that matplotlib sorts every triangle by depth together."""
    palette = colormaps["tab20"]
    triangles, colours = [], []
    for index, mesh in enumerate(meshes):
        base = np.array((0.85, 0.62, 0.66) if single_colour else palette(index % 20)[:3])
        shade = 0.45 + 0.55 * np.clip(mesh.face_normals @ _LIGHT, 0.0, 1.0)
        triangles.append(mesh.triangles)
        colours.append(np.clip(base[None, :] * shade[:, None], 0.0, 1.0))
    ax.add_collection3d(
        Poly3DCollection(
            np.concatenate(triangles),
            facecolors=np.concatenate(colours),
            edgecolors="none",
            linewidths=0.0,
        )
    )


def _exploded(parts: list[trimesh.Trimesh], mesh: trimesh.Trimesh) -> list[trimesh.Trimesh]:
    """The parts moved away from the mesh's centre by :data:`_EXPLODE` of their own
    centre's distance from it: overlapping hulls are told apart."""
    centre = mesh.bounds.mean(axis=0)
    moved = []
    for part in parts:
        part = part.copy()
        part.apply_translation(_EXPLODE * (part.bounds.mean(axis=0) - centre))
        moved.append(part)
    return moved


def _same_box(given, hulls, bounds: np.ndarray) -> None:
    """Both views the same cube round the mesh (room for the parts drawn apart), seen
    from the same side, in mm."""
    centre = bounds.mean(axis=0)
    half = (bounds[1] - bounds[0]).max() / 2 * (1 + _EXPLODE)
    for ax in (given, hulls):
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        ax.set_zlim(centre[2] - half, centre[2] + half)
        ax.set_box_aspect((1, 1, 1))
        ax.view_init(elev=_ELEVATION_DEG, azim=_AZIMUTH_DEG)
        ax.set_xlabel("x, mm", fontsize=8)
        ax.set_ylabel("y, mm", fontsize=8)
        ax.set_zlabel("z, mm", fontsize=8)
        ax.tick_params(labelsize=7)
