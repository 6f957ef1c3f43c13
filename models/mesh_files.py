"""A designer's own meshes (``[bale] mesh``, ``[piggy] mesh``, ``[tractor] mesh`` in a
design file): read with trimesh, checked, repaired where trimesh can, and put in
the part's frame (models/meshes.py documents the frames).

Every refusal is an :class:`InputError` with one line that names the field, the file
and what to do; every repair is a one-line note kept with the mesh, so that a
mesh exported in metres, one with holes or one with a million faces gives a clear
answer before any shot, never a silently wrong hit map.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from models.errors import InputError
from models.files import check_path_text, read_bytes
from models.text import shown

if TYPE_CHECKING:
    import trimesh

#: The parts a design may give a mesh for.
MESH_PARTS = ("bale", "piggy", "tractor")
#: The version of the way the sandbox models a designer's mesh (its collision parts,
#: models/decompose.py and models/hulls.py; where an own piggy is aimed,
#: sim/physics/geometry.py), bumped when it changes: part of each mesh's identity
#: and of the normalised design, so that no result made the older way is taken for
#: one made now (cached hit maps are keyed by the normalised design).
#: 3: hulls simplified to 0.1 mm; 4: an own piggy aimed at its centre of mass; 5: hulls
#: kept to 0.05 mm; 6: a mesh of separate convex shells is those shells.
MESH_MODEL_VERSION = 6

#: Millimetres per unit of ``mesh_units``.
MESH_UNITS_MM = {"mm": 1.0, "cm": 10.0, "m": 1000.0, "in": 25.4}
#: File suffixes read (what trimesh reads reliably).
MESH_SUFFIXES = (".stl", ".obj", ".ply", ".glb")
#: The largest mesh file read, bytes (a binary STL of MAX_FACES faces is 10 MB).
MAX_MESH_BYTES = 64 * 2**20
#: The largest coordinate read, in the file's units: far beyond any toy part in
#: any unit, and far from float overflow when squared and cubed (volumes, inertias).
MAX_COORDINATE = 1e9
#: The most faces a mesh may have: more is refused (decimate it in CAD first).
MAX_FACES = 200_000
#: Plausible size of each part, as (smallest, largest) of its largest side, mm. A
#: piggy must also fit its board space (checked against the board).
SIZE_RANGE_MM = {"bale": (2.0, 60.0), "piggy": (5.0, 200.0), "tractor": (20.0, 500.0)}


@dataclass(frozen=True)
class MeshFile:
    """A checked mesh in its part's frame, mm.

    Attributes
    ----------
    part : ``bale``, ``piggy`` or ``tractor``.
    path : the file, absolute.
    sha256 : of the file's bytes (``sha256sum FILE`` prints the same).
    mesh : the closed mesh, (V, 3) vertices in mm, in the part's frame.
    notes : one line per repair made.
    """

    part: str
    path: Path
    sha256: str
    mesh: trimesh.Trimesh = field(compare=False)
    notes: tuple[str, ...] = ()

    @property
    def size_mm(self) -> tuple[float, float, float]:
        """Its extents along x, y and z, mm."""
        x, y, z = self.mesh.extents
        return float(x), float(y), float(z)


def read_mesh_file(path: str | Path, units: str, part: str) -> MeshFile:
    """Read, check, repair and place one mesh; bad ones raise :class:`InputError`.

    The file is read as every input file is (models/files.py: a regular file within
    :data:`MAX_MESH_BYTES`; a path that cannot be resolved, a FIFO or a device is
    refused on one line), and its geometry parsed from those bytes alone: a file it
    names (an OBJ's ``mtllib``, a GLB's buffer ``uri``) is never opened.

    Parameters
    ----------
    path : the mesh file (STL, OBJ, PLY or GLB).
    units : its length unit, a key of :data:`MESH_UNITS_MM`.
    part : ``bale``, ``piggy`` or ``tractor`` (its frame and plausible size).
    """
    text = os.fspath(path)
    field_name = f"'{part}.mesh'"
    check_path_text(text, field_name)
    path = Path(os.path.abspath(text))
    if not os.path.lexists(path):
        raise InputError(f"{field_name}: no such file {shown(os.fspath(path))}")
    if path.suffix.lower() not in MESH_SUFFIXES:
        raise InputError(
            f"{field_name} {shown(path.name)}: not a mesh file (read: {', '.join(MESH_SUFFIXES)})"
        )
    data = read_bytes(path, field_name, MAX_MESH_BYTES)
    key = (path, hashlib.sha256(data).hexdigest(), units, part)
    if key not in _READ:  # once per file content (the sha256 is part of the key)
        while len(_READ) >= MAX_READ:
            del _READ[next(iter(_READ))]
        _READ[key] = _mesh_of(*key, data)
    _READ[key] = _READ.pop(key)  # the most recently used goes last
    return _READ[key]


#: Meshes read, by (file, sha256, units, part), the most recently used last.
_READ: dict[tuple, MeshFile] = {}
MAX_READ = 32


def _mesh_of(path: Path, sha256: str, units: str, part: str, data: bytes) -> MeshFile:
    """The checked mesh in a file's bytes."""
    import numpy as np  # here: the command line starts without them
    import trimesh

    where = f"'{part}.mesh' {shown(path.name)}"
    loaded = _parse(data, path.suffix.lower().lstrip("."), where)
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise InputError(f"{where}: not a mesh (no triangles in it)")
    mesh = loaded
    if len(mesh.faces) > MAX_FACES:
        raise InputError(
            f"{where}: {len(mesh.faces)} faces, over the limit of {MAX_FACES}: "
            f"decimate it in your CAD tool"
        )
    _check_finite(mesh, where)
    with np.errstate(all="ignore"):  # a flat mesh's centre is 0/0
        notes = _make_closed(mesh, where)
    mesh.apply_scale(MESH_UNITS_MM[units])
    _check_size(mesh, units, part, where)
    _place_in_frame(mesh, part)
    return MeshFile(part, path, sha256, mesh, tuple(notes))


def _parse(data: bytes, file_type: str, where: str) -> Any:
    """The geometry in a mesh file's bytes, and nothing it names: trimesh is given
    the bytes without a way to open other files. Text formats are decoded here, what
    is not UTF-8 (a comment's Latin-1, say) replaced, so that trimesh needs no
    character-set guesser."""
    import numpy as np
    import trimesh

    if file_type == "glb":
        _check_self_contained(data, where)
    elif file_type == "obj" or (file_type == "stl" and not _binary_stl(data)):
        data = data.decode("utf-8", errors="replace").encode("utf-8")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return trimesh.load(
                file_obj=io.BytesIO(data), file_type=file_type, force="mesh", process=True
            )
    except Exception as error:  # trimesh raises many kinds on a bad file
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{where}: cannot read it as a mesh ({shown(first)})") from None


def _binary_stl(data: bytes) -> bool:
    """Whether ``data`` is a binary STL: its size is what its triangle count says."""
    return len(data) >= 84 and len(data) == 84 + 50 * int.from_bytes(data[80:84], "little")


def _check_self_contained(data: bytes, where: str) -> None:
    """A GLB's buffers must be in the file (its binary chunk, or a ``data:`` URI):
    one that names another file (``uri``) is refused, as physics reads geometry
    from the file itself only."""
    try:
        length = int.from_bytes(data[12:16], "little")
        gltf = json.loads(data[20 : 20 + length]) if data[16:20] == b"JSON" else {}
    except ValueError:
        return  # not a GLB: trimesh says so
    buffers = gltf.get("buffers", []) if isinstance(gltf, dict) else []
    named = (
        [b.get("uri") for b in buffers if isinstance(b, dict)] if isinstance(buffers, list) else []
    )
    if any(uri is not None and not str(uri).startswith("data:") for uri in named):
        raise InputError(
            f"{where}: its geometry is in another file (a buffer 'uri'): piggy reads a "
            "mesh from its own file only; export a self-contained GLB"
        )


def _check_finite(mesh: trimesh.Trimesh, where: str) -> None:
    """Coordinates must be finite and far from float overflow (a millimetre mesh
    squared, cubed and scaled stays finite)."""
    import numpy as np

    vertices = np.asarray(mesh.vertices)
    if not np.all(np.isfinite(vertices)) or np.abs(vertices).max(initial=0.0) > MAX_COORDINATE:
        raise InputError(
            f"{where}: has coordinates that are not finite numbers or beyond "
            f"{MAX_COORDINATE:g} in size: check 'mesh_units' ({', '.join(MESH_UNITS_MM)})"
        )


def _make_closed(mesh: trimesh.Trimesh, where: str) -> list[str]:
    """Repair what trimesh can (holes, flipped faces) so that the mesh encloses a
    volume; one note per repair. A mesh that stays open or flat is refused."""
    import trimesh

    notes = []
    if not mesh.is_watertight:
        before = len(mesh.faces)
        trimesh.repair.fill_holes(mesh)
        if not mesh.is_watertight:
            raise InputError(
                f"{where}: has holes that cannot be filled (not watertight): close it in "
                f"your CAD tool"
            )
        notes.append(f"{where}: filled its holes ({len(mesh.faces) - before} faces added)")
    if not mesh.is_winding_consistent or mesh.volume < 0:
        trimesh.repair.fix_normals(mesh)
        notes.append(f"{where}: turned its faces outward")
    if not mesh.is_volume or mesh.volume <= 1e-12:
        raise InputError(f"{where}: encloses no volume (flat, or faces that cross)")
    return notes


def _check_size(mesh: trimesh.Trimesh, units: str, part: str, where: str) -> None:
    """A size far from its part's is a unit mistake more often than a design."""
    largest = float(max(mesh.extents))
    lo, hi = SIZE_RANGE_MM[part]
    if not lo <= largest <= hi:
        raise InputError(
            f"{where}: its largest side is {largest:.6g} mm in '{part}.mesh_units' = "
            f'"{units}", outside the plausible {lo:g} to {hi:g} mm for a {part}: '
            f"check 'mesh_units' ({', '.join(MESH_UNITS_MM)})"
        )


def _place_in_frame(mesh: trimesh.Trimesh, part: str) -> None:
    """Move a mesh into its part's frame (models/meshes.py): a piggy's lowest point
    on the ground and its footprint centred on the origin; a bale's centre of mass
    at the origin (on the barrel's axis); a tractor as exported (origin at the
    barrel pivot's foot)."""
    if part == "piggy":
        lo, hi = mesh.bounds
        mesh.apply_translation([-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]])
    elif part == "bale":
        mesh.apply_translation(-mesh.center_mass)


def check_piggy_fits(mesh_file: MeshFile, space_mm: float) -> None:
    """A piggy's footprint must fit in a board space of ``space_mm`` (mm) a side, else
    it touches the outline standing still and every shot would knock it out."""
    x, y, _ = mesh_file.size_mm
    if max(x, y) >= space_mm:
        raise InputError(
            f"'piggy.mesh' {mesh_file.path.name}: its footprint is {x:.4g} x {y:.4g} mm, "
            f"it does not fit a board space of {space_mm:g} mm: check 'mesh_units' "
            f"({', '.join(MESH_UNITS_MM)})"
        )


# --- a design's meshes ---------------------------------------------------------------
def check_mesh_field(value: object, key: str, where: str) -> None:
    """``mesh`` is a file name; ``mesh_units`` one of :data:`MESH_UNITS_MM`."""
    if key.endswith(".mesh"):
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: '{key}' must be a file name, got {value!r}")
    elif value not in MESH_UNITS_MM:
        raise InputError(
            f"{where}: '{key}' must be one of {', '.join(MESH_UNITS_MM)}, got {value!r}"
        )


def resolve_mesh_paths(sections: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The design's sections with each ``mesh`` an absolute path (a relative one is
    relative to the design file's ``folder``), and a mesh bale's sides its mesh's
    extents (x: width, y: length, z: height; square corners), so that what reads a
    bale's sides (its frontal area) reads its real size; where it leaves the barrel
    and whether it starts under the board read the mesh itself (``Bale.hull_mm``). A
    bad mesh raises :class:`InputError`."""
    resolved = dict(sections)
    for part in MESH_PARTS:
        mesh = sections[part].mesh
        if mesh is not None:
            check_path_text(mesh, f"'{part}.mesh'")  # a NUL, a name too long: one line
            path = os.path.abspath(folder / Path(mesh).expanduser())  # links left to the reader
            resolved[part] = dataclasses.replace(sections[part], mesh=path)
    bale = resolved["bale"]
    if bale.mesh is not None:
        width, length, height = read_mesh_file(bale.mesh, bale.mesh_units, "bale").size_mm
        resolved["bale"] = dataclasses.replace(
            bale, length_mm=length, width_mm=width, height_mm=height, corner_radius_mm=0.0
        )
    return resolved


class MeshFields(Protocol):
    """A design section's mesh fields (``Bale``, ``Piggy`` and ``Tractor`` in
    models/design_parts.py), as this module reads them."""

    @property
    def mesh(self) -> str | None: ...
    @property
    def mesh_units(self) -> str: ...
    @property
    def mesh_threshold(self) -> float: ...
    @property
    def mesh_max_parts(self) -> int: ...


class MeshedDesign(Protocol):
    """A design as this module reads it: the sections that may give a mesh (one of
    :data:`MESH_PARTS` each). Named by its fields, not by importing ``Design``: the
    design's modules import this one, which stands below them."""

    @property
    def bale(self) -> MeshFields: ...
    @property
    def piggy(self) -> MeshFields: ...
    @property
    def tractor(self) -> MeshFields: ...


def design_meshes(design: MeshedDesign) -> dict[str, MeshFile]:
    """The design's own meshes, checked, by part (only the parts that give one)."""
    meshes = {}
    for part in MESH_PARTS:
        section = getattr(design, part)
        if section.mesh is not None:
            meshes[part] = read_mesh_file(section.mesh, section.mesh_units, part)
    return meshes


def check_design_meshes(design: MeshedDesign) -> None:
    """Read and check every mesh of a design (:class:`InputError` on a bad one)."""
    design_meshes(design)


def mesh_identity(design: MeshedDesign) -> dict[str, dict]:
    """What identifies each of a design's meshes: its file, the sha256 of its bytes,
    its units, the decomposition's settings and :data:`MESH_MODEL_VERSION`; empty without
    meshes."""
    identity = {}
    for part, mesh_file in design_meshes(design).items():
        section = getattr(design, part)
        identity[part] = {
            "file": str(mesh_file.path),
            "sha256": mesh_file.sha256,
            "units": section.mesh_units,
            "threshold": section.mesh_threshold,
            "max_parts": section.mesh_max_parts,
            "model_version": MESH_MODEL_VERSION,
        }
    return identity
