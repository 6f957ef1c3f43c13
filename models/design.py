"""Launcher designs (TOML, models/designs/*.toml): the launcher, the bale, the
piggies' material and the physics settings that a shot is simulated with.

This module reads, checks and writes design files; the design's sections are
:mod:`models.design_parts`' (imported from here too), what they must satisfy
together :mod:`models.design_checks`'. Every field carries its unit in its name;
every number has an allowed range, and a bad file gets an :class:`InputError` that
names the field and the range.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from models import file_kinds
from models.design_checks import check_design_as_a_whole, check_launch, check_ranges_together
from models.design_parts import (
    ENGINES,
    MESH_FIELDS,
    RANGES,
    Bale,
    Design,
    Launcher,
    Physics,
    Piggy,
    Surfaces,
    Tractor,
    spring_speed_mm_s,
)
from models.errors import InputError
from models.files import known_names, read_bytes, read_toml, resolve_named_file
from models.mesh_files import (
    MAX_MESH_BYTES,
    MESH_MODEL_VERSION,
    check_design_meshes,
    check_mesh_field,
    mesh_identity,
    resolve_mesh_paths,
)
from models.text import shown

#: The names importers take from here, the sections' among them.
__all__ = [
    "DESIGNS_DIR",
    "ENGINES",
    "RANGES",
    "Bale",
    "Design",
    "Launcher",
    "Physics",
    "Piggy",
    "Surfaces",
    "Tractor",
    "design_content_sha256",
    "design_from_dict",
    "design_identity",
    "design_toml",
    "known_designs",
    "load_design",
    "spring_speed_mm_s",
]

DESIGNS_DIR = Path(__file__).parent / "designs"

_SECTIONS = {
    "launcher": Launcher,
    "bale": Bale,
    "piggy": Piggy,
    "tractor": Tractor,
    "surfaces": Surfaces,
    "physics": Physics,
}


def known_designs() -> list[str]:
    return known_names(DESIGNS_DIR)


def load_design(name_or_path: str | Path = "stock") -> Design:
    """Load and validate a design by name or path; bad files raise :class:`InputError`."""
    path = resolve_named_file(name_or_path, DESIGNS_DIR, "design")
    data = read_toml(path, "design")
    try:
        return design_from_dict(data, source=str(path))
    except InputError:  # a board or an aimer file given as a design is told so
        source = f"design file {shown(str(path))}"
        file_kinds.refuse_other(file_kinds.kind_of_value(data), "design", source)
        raise


def load_designs(names: list[str]) -> list[Design]:
    """Each of ``names`` loaded (:func:`load_design`); none is a mistake."""
    if not names:
        raise InputError("give at least one design (a name or a TOML file)")
    return [load_design(n) for n in names]


def design_toml(design: Design) -> str:
    """A design as a TOML file (the inverse of :func:`load_design`, for derived designs).

    A mesh's line ends in a comment with the sha256 of the file's bytes and the
    version of the way the sandbox models a mesh, so that everything keyed by
    this text (the design's sha256, cached hit maps) changes when either does."""
    lines = [f"name = {json.dumps(design.name)}", f"description = {json.dumps(design.description)}"]
    for section, values in design.file_dict().items():
        if isinstance(values, dict):
            lines.append(f"[{section}]")
            for key, value in values.items():
                line = f"{key} = {_toml_value(value)}"
                if key == "mesh":
                    data = read_bytes(value, f"'{section}.mesh'", MAX_MESH_BYTES)
                    digest = hashlib.sha256(data).hexdigest()
                    line += f"  # sha256 {digest}, mesh model {MESH_MODEL_VERSION}"
                lines.append(line)
    return "\n".join(lines) + "\n"


def design_content_sha256(design: Design) -> str:
    """A design's identity by content: the sha256 of its normalised text
    (:func:`design_toml`, each mesh's sha256 and the mesh model's version in it). The
    one place it is made: the design's identity in data files, the keys of cached hit
    maps and of the process's physics worlds all use it, so the same design is the
    same key everywhere (and a cache on disk keyed by it stays valid)."""
    return hashlib.sha256(design_toml(design).encode()).hexdigest()


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value) if isinstance(value, str) else str(value)


def design_identity(name_or_path: str) -> dict:
    """What identifies a design: its name, its file (an absolute path), the sha256 of
    the file's bytes (``sha256sum FILE`` prints the same) and of the normalised design
    (:func:`design_toml`: the same for two files that differ only in comments or
    layout); with meshes, each mesh file's sha256 and decomposition settings
    (:func:`models.mesh_files.mesh_identity`), so that two data files made with
    different meshes are never taken for one."""
    design = load_design(name_or_path)
    path = resolve_named_file(name_or_path, DESIGNS_DIR, "design").resolve()
    meshes = mesh_identity(design)
    return {
        "design": design.name,
        "design_file": str(path),
        "design_file_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "design_sha256": design_content_sha256(design),
        **({"meshes": meshes} if meshes else {}),
    }


def design_from_dict(data: dict, source: str = "design") -> Design:
    """Validate a parsed design; missing fields take the stock values."""
    where = f"design {source}"
    top = {"name", "description", *_SECTIONS}
    unknown = sorted(set(data) - top)
    if unknown:
        raise InputError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(top))})")
    sections = {
        section: _section(data.get(section, {}), section, cls, where)
        for section, cls in _SECTIONS.items()
    }
    sections = resolve_mesh_paths(sections, Path(source).parent)
    check_launch(data.get("launcher", {}), sections, where)
    check_ranges_together(sections["launcher"], sections["bale"], where)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: 'name' must be a non-empty string")
    design = Design(name=name, description=str(data.get("description", "")), **sections)
    check_design_as_a_whole(design, data, where)
    check_design_meshes(design)
    return design


def _section(values: object, section: str, cls: type, where: str) -> Any:
    """One table of the file (``launcher``, ``bale``, ...) as its dataclass ``cls``;
    its missing fields take the stock values."""
    if not isinstance(values, dict):
        raise InputError(f"{where}: '{section}' must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key, value in values.items():
        if key not in fields:
            raise InputError(
                f"{where}: unknown field '{section}.{key}' (allowed: {', '.join(fields)})"
            )
        if key in MESH_FIELDS[:2]:
            check_mesh_field(value, f"{section}.{key}", where)
        else:
            _check_field(value, fields[key].default, f"{section}.{key}", where)
    if "mesh" not in values and any(k in values for k in MESH_FIELDS):
        first = next(k for k in MESH_FIELDS if k in values)
        raise InputError(f"{where}: '{section}.{first}' needs '{section}.mesh' (the file)")
    return cls(
        **{
            k: (
                float(v)
                if k not in MESH_FIELDS[:2] and isinstance(fields[k].default, float | None)
                else v
            )
            for k, v in values.items()
        }
    )


def _check_field(value: object, default: object, key: str, where: str) -> None:
    """A field's value is of its default's kind (true or false, a whole number, a
    number) and, for numbers, within :data:`RANGES`."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InputError(f"{where}: '{key}' must be true or false")
        return
    if key == "physics.engine":
        if value not in ENGINES:
            raise InputError(
                f"{where}: unknown engine {shown(value)}: allowed are {', '.join(ENGINES)}"
            )
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: '{key}' must be a number, got {value!r}")
    if isinstance(default, int) and not isinstance(value, int):
        raise InputError(f"{where}: '{key}' must be a whole number")
    if value != value:  # NaN
        raise InputError(f"{where}: '{key}' is not a number")
    lo, hi = RANGES[key]
    if not lo <= value <= hi:
        raise InputError(f"{where}: '{key}' = {value} is out of range [{lo:g}, {hi:g}]")
