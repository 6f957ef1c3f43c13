"""Launcher designs (TOML, models/designs/*.toml): the launcher, the bale, the
piggies' material and the physics settings that a shot is simulated with.

Every field carries its unit in its name; every number has an allowed range,
and a bad file gets an :class:`InputError` that names the field and the range.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.errors import InputError, check_label
from models.files import known_names, read_toml, resolve_named_file
from models.mesh_files import (
    MESH_PARTS,
    check_design_meshes,
    check_mesh_field,
    mesh_identity,
    resolve_mesh_paths,
)

DESIGNS_DIR = Path(__file__).parent / "designs"


@dataclass(frozen=True)
class Launcher:
    """The wolf tractor's spring launcher.

    A design gives the launch either as a speed (``muzzle_speed_mm_s``,
    ``speed_sd_mm_s``) or as a spring (the five ``SPRING_FIELDS``). With a spring,
    :class:`Design` derives the two speed fields from it and the bale's mass
    (:func:`spring_speed_mm_s`), so that everything downstream reads one muzzle
    speed and one speed spread and never needs to know about springs.
    """

    muzzle_speed_mm_s: float = 2000.0  # mean speed of the bale leaving the barrel
    speed_sd_mm_s: float = 30.0  # shot-to-shot spread of that speed (1 sd)
    pivot_height_mm: float = 70.0  # barrel pivot above the board surface
    barrel_length_mm: float = 40.0  # pivot to muzzle
    pitch_min_deg: float = -30.0  # lowest tilt the barrel reaches
    pitch_max_deg: float = 75.0  # highest tilt
    yaw_sd_deg: float = 0.8  # aim spread, turning (1 sd)
    pitch_sd_deg: float = 0.8  # aim spread, tilting (1 sd)
    # The spring, when the design gives one (all five, or none):
    spring_rate_n_m: float | None = None  # stiffness k, N/m
    draw_mm: float | None = None  # how far it is compressed when cocked
    draw_sd_mm: float | None = None  # shot-to-shot spread of the draw (1 sd)
    plunger_mass_g: float | None = None  # the part the spring pushes, moving with the bale
    efficiency: float | None = None  # share of the spring's energy that ends up moving

    @property
    def has_spring(self) -> bool:
        return self.spring_rate_n_m is not None


#: The launcher's spring fields, and the speed fields a spring replaces.
SPRING_FIELDS = ("spring_rate_n_m", "draw_mm", "draw_sd_mm", "plunger_mass_g", "efficiency")
SPEED_FIELDS = ("muzzle_speed_mm_s", "speed_sd_mm_s")


def spring_speed_mm_s(launcher: Launcher, bale_mass_g: float) -> tuple[float, float]:
    """Muzzle speed and its spread (1 sd), mm/s, of a spring launcher.

    Energy balance: the share ``efficiency`` of the spring's energy moves bale and
    plunger together, ½·η·k·d² = ½·(m_bale + m_plunger)·v², so
    v = d·√(η·k / (m_bale + m_plunger)). The speed is proportional to the draw,
    so a normal spread of the draw gives exactly a normal spread of the speed,
    sd_v = v·sd_d/d (no first-order approximation).
    """
    rate, draw, draw_sd = launcher.spring_rate_n_m, launcher.draw_mm, launcher.draw_sd_mm
    plunger, efficiency = launcher.plunger_mass_g, launcher.efficiency
    if rate is None or draw is None or draw_sd is None or plunger is None or efficiency is None:
        raise ValueError("not a spring launcher: it gives no spring")
    moving_kg = (bale_mass_g + plunger) * 1e-3
    speed = draw * 1e-3 * math.sqrt(efficiency * rate / moving_kg) * 1e3
    return speed, speed * draw_sd / draw


@dataclass(frozen=True)
class Bale:
    """The hay bale: a block with rounded edges, fired long side first."""

    length_mm: float = 11.0
    width_mm: float = 7.0
    height_mm: float = 6.0
    corner_radius_mm: float = 1.5
    mass_g: float = 1.5
    friction: float = 0.5
    restitution: float = 0.5
    # A designer's own shape instead of the block (models/mesh_files.py): the
    # sides above then only size the stand-ins that need a box.
    mesh: str | None = None  # mesh file; relative to the design file
    mesh_units: str = "mm"  # mm, cm, m or in
    mesh_threshold: float = 0.05  # CoACD concavity: smaller, closer parts, more
    mesh_max_parts: int = 16  # at most this many convex parts


@dataclass(frozen=True)
class Piggy:
    """The piggies' material, and their shape when the design gives a mesh (else
    models/assets/piggy*.obj)."""

    mass_g: float = 2.5
    friction: float = 0.6
    restitution: float = 0.3
    mesh: str | None = None
    mesh_units: str = "mm"
    mesh_threshold: float = 0.05
    mesh_max_parts: int = 16


@dataclass(frozen=True)
class Tractor:
    """The tractor body a bale can ricochet off, when the design gives a mesh (else
    models/assets/tractor.obj); the barrel stays the launcher's."""

    mesh: str | None = None
    mesh_units: str = "mm"
    mesh_threshold: float = 0.05
    mesh_max_parts: int = 16


@dataclass(frozen=True)
class Surfaces:
    """Board, fences and tractor.

    Bullet combines two touching bodies' coefficients by multiplying them: a bale
    (restitution 0.5) off a fence (0.5) bounces with 0.25.
    """

    friction: float = 0.5
    restitution: float = 0.5


@dataclass(frozen=True)
class Physics:
    """How a shot is simulated."""

    steps_per_s: float = 1000.0  # time step = 1 / steps_per_s
    solver_iterations: int = 20
    max_time_s: float = 4.0  # cap on one shot's simulated time
    rest_speed_mm_s: float = 4.0  # a body slower than this ...
    rest_spin_deg_s: float = 20.0  # ... and turning slower than this is at rest
    rest_time_s: float = 0.03  # everything at rest this long ends the shot
    sleep_at_rest: bool = True  # idle piggies static until something comes near
    early_verdict: bool = True  # a piggy surely out stops holding up the shot's end
    rigid_obstacles: bool = False  # fences and tractor as Bullet rigid bodies
    air_drag: bool = False  # quadratic air drag on the bale
    drag_coefficient: float = 1.05  # of the bale, on its frontal area (a cube: 1.05)
    air_density_kg_m3: float = 1.2


@dataclass(frozen=True)
class Design:
    """A whole launcher design; load it with :func:`load_design`."""

    name: str = "stock"
    description: str = ""
    launcher: Launcher = Launcher()
    bale: Bale = Bale()
    piggy: Piggy = Piggy()
    tractor: Tractor = Tractor()
    surfaces: Surfaces = Surfaces()
    physics: Physics = Physics()

    def __post_init__(self):
        # A spring's speed follows from the spring and the bale, whatever the
        # launcher's speed fields say: derived here, so no copy can go stale.
        if self.launcher.has_spring:
            speed, sd = spring_speed_mm_s(self.launcher, self.bale.mass_g)
            object.__setattr__(
                self,
                "launcher",
                dataclasses.replace(self.launcher, muzzle_speed_mm_s=speed, speed_sd_mm_s=sd),
            )

    def to_dict(self) -> dict:
        """Every field; a spring launcher shows its spring and its derived speed."""
        data = dataclasses.asdict(self)
        if not self.launcher.has_spring:
            for key in SPRING_FIELDS:
                del data["launcher"][key]
        # A part without a mesh shows no mesh fields (and a design without a tractor
        # mesh no tractor), so that such a design reads as it did before meshes.
        for part in MESH_PARTS:
            if data[part]["mesh"] is None:
                for key in MESH_FIELDS:
                    del data[part][key]
        if not data["tractor"]:
            del data["tractor"]
        return data

    def file_dict(self) -> dict:
        """The fields a design file gives (a spring launcher without its derived
        speed): what ``design_from_dict`` reads back to this design."""
        data = self.to_dict()
        if self.launcher.has_spring:
            for key in SPEED_FIELDS:
                del data["launcher"][key]
        return data


#: The fields that go with a mesh (the first two checked by models.mesh_files).
MESH_FIELDS = ("mesh", "mesh_units", "mesh_threshold", "mesh_max_parts")

_SECTIONS = {
    "launcher": Launcher,
    "bale": Bale,
    "piggy": Piggy,
    "tractor": Tractor,
    "surfaces": Surfaces,
    "physics": Physics,
}

#: Allowed range of every number, by "section.field".
RANGES: dict[str, tuple[float, float]] = {
    "launcher.muzzle_speed_mm_s": (100.0, 20000.0),
    "launcher.speed_sd_mm_s": (0.0, 2000.0),
    "launcher.pivot_height_mm": (10.0, 300.0),
    "launcher.barrel_length_mm": (5.0, 200.0),
    "launcher.pitch_min_deg": (-60.0, 85.0),
    "launcher.pitch_max_deg": (-60.0, 85.0),
    "launcher.yaw_sd_deg": (0.0, 20.0),
    "launcher.pitch_sd_deg": (0.0, 20.0),
    "launcher.spring_rate_n_m": (1.0, 100000.0),
    "launcher.draw_mm": (0.5, 300.0),
    "launcher.draw_sd_mm": (0.0, 50.0),
    "launcher.plunger_mass_g": (0.0, 500.0),
    "launcher.efficiency": (0.01, 1.0),
    "bale.length_mm": (3.0, 60.0),
    "bale.width_mm": (3.0, 60.0),
    "bale.height_mm": (3.0, 60.0),
    "bale.corner_radius_mm": (0.0, 10.0),
    "bale.mass_g": (0.05, 100.0),
    "bale.friction": (0.0, 2.0),
    "bale.restitution": (0.0, 1.0),
    "piggy.mass_g": (0.1, 200.0),
    "piggy.friction": (0.0, 2.0),
    "piggy.restitution": (0.0, 1.0),
    **{f"{part}.mesh_threshold": (0.01, 1.0) for part in ("bale", "piggy", "tractor")},
    **{f"{part}.mesh_max_parts": (1, 64) for part in ("bale", "piggy", "tractor")},
    "surfaces.friction": (0.0, 2.0),
    "surfaces.restitution": (0.0, 1.0),
    "physics.steps_per_s": (240.0, 20000.0),
    "physics.solver_iterations": (1, 500),
    "physics.max_time_s": (0.1, 60.0),
    "physics.rest_speed_mm_s": (0.01, 100.0),
    "physics.rest_spin_deg_s": (0.01, 1000.0),
    "physics.rest_time_s": (0.0, 5.0),
    "physics.drag_coefficient": (0.0, 5.0),
    "physics.air_density_kg_m3": (0.0, 5.0),
}


def known_designs() -> list[str]:
    return known_names(DESIGNS_DIR)


def load_design(name_or_path: str | Path = "stock") -> Design:
    """Load and validate a design by name or path; bad files raise :class:`InputError`."""
    path = resolve_named_file(name_or_path, DESIGNS_DIR, "design")
    return design_from_dict(read_toml(path, "design"), source=str(path))


def design_toml(design: Design) -> str:
    """A design as a TOML file (the inverse of :func:`load_design`, for derived designs).

    A mesh's line ends in a comment with the sha256 of the file's bytes, so that
    everything keyed by this text (the design's sha256, cached hit maps) changes
    when the mesh does."""
    lines = [f"name = {json.dumps(design.name)}", f"description = {json.dumps(design.description)}"]
    for section, values in design.file_dict().items():
        if isinstance(values, dict):
            lines.append(f"[{section}]")
            for key, value in values.items():
                line = f"{key} = {_toml_value(value)}"
                if key == "mesh":
                    line += f"  # sha256 {hashlib.sha256(Path(value).read_bytes()).hexdigest()}"
                lines.append(line)
    return "\n".join(lines) + "\n"


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
        "design_sha256": hashlib.sha256(design_toml(design).encode()).hexdigest(),
        **({"meshes": meshes} if meshes else {}),
    }


def _check_launch(given: dict, sections: dict, where: str) -> None:
    """A launcher gives its launch as a speed or as a whole spring, not both; a
    spring's derived speed and spread must lie in the speed fields' ranges."""
    spring = [k for k in SPRING_FIELDS if k in given]
    if not spring:
        return  # a speed launcher (missing speed fields take the stock values)
    speed = [k for k in SPEED_FIELDS if k in given]
    if speed:
        raise InputError(
            f"{where}: give the launcher as a speed ({', '.join(SPEED_FIELDS)}) "
            f"or as a spring ({', '.join(SPRING_FIELDS)}), not both: it has "
            f"'launcher.{speed[0]}' and 'launcher.{spring[0]}'"
        )
    missing = [k for k in SPRING_FIELDS if k not in given]
    if missing:
        raise InputError(
            f"{where}: a spring launcher needs all of {', '.join(SPRING_FIELDS)}; "
            f"'launcher.{missing[0]}' is missing"
        )
    derived = spring_speed_mm_s(sections["launcher"], sections["bale"].mass_g)
    for key, value in zip(SPEED_FIELDS, derived, strict=True):
        lo, hi = RANGES[f"launcher.{key}"]
        if not lo <= value <= hi:
            raise InputError(
                f"{where}: the spring gives '{key}' = {value:.4g}, out of range [{lo:g}, {hi:g}]"
            )


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
    _check_launch(data.get("launcher", {}), sections, where)
    _check_ranges_together(sections["launcher"], sections["bale"], where)
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
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: '{key}' must be a number, got {value!r}")
    if isinstance(default, int) and not isinstance(value, int):
        raise InputError(f"{where}: '{key}' must be a whole number")
    if value != value:  # NaN
        raise InputError(f"{where}: '{key}' is not a number")
    lo, hi = RANGES[key]
    if not lo <= value <= hi:
        raise InputError(f"{where}: '{key}' = {value} is out of range [{lo:g}, {hi:g}]")


def _check_ranges_together(launcher: Launcher, bale: Bale, where: str) -> None:
    """What two fields must satisfy together: a pitch range, a bale whose rounded
    corners fit its sides."""
    if launcher.pitch_min_deg >= launcher.pitch_max_deg:
        raise InputError(
            f"{where}: 'launcher.pitch_min_deg' ({launcher.pitch_min_deg:g}) must be "
            f"below 'launcher.pitch_max_deg' ({launcher.pitch_max_deg:g})"
        )
    if 2 * bale.corner_radius_mm >= min(bale.length_mm, bale.width_mm, bale.height_mm):
        raise InputError(
            f"{where}: 'bale.corner_radius_mm' must be under half the bale's "
            f"smallest side ({min(bale.length_mm, bale.width_mm, bale.height_mm):g})"
        )


def check_design_as_a_whole(design: Design, data: dict, where: str) -> None:
    """What a design must satisfy beyond each field's range, else :class:`InputError`.

    - ``name`` and ``description`` print as they are: no control characters (a
      newline, an ESC sequence), at most 64 and 500 characters.
    - The bale leaves the barrel wholly above the board surface at every pitch the
      barrel reaches: its centre is ``barrel_length_mm + length_mm / 2`` from the
      pivot along the barrel, its long side along it, so its lowest point is
      ``pivot_height_mm + r sin(pitch) - length_mm / 2 |sin(pitch)| - height_mm / 2
      cos(pitch)`` (mm; rounded corners ignored, which errs on the safe side). A low
      pivot, a long barrel and a steep downward pitch would start a shot under the
      board, where no flight or landing point exists.
    """
    check_label(data.get("name", design.name), f"{where}: 'name'", 64)
    check_label(data.get("description", ""), f"{where}: 'description'", 500, empty_ok=True)

    launcher, bale = design.launcher, design.bale
    radius = launcher.barrel_length_mm + bale.length_mm / 2
    steps = 2000
    pitches = [
        launcher.pitch_min_deg + (launcher.pitch_max_deg - launcher.pitch_min_deg) * i / steps
        for i in range(steps + 1)
    ]
    lowest = [
        launcher.pivot_height_mm
        + radius * math.sin(math.radians(p))
        - bale.length_mm / 2 * abs(math.sin(math.radians(p)))
        - bale.height_mm / 2 * math.cos(math.radians(p))
        for p in pitches
    ]
    below = [i for i, z in enumerate(lowest) if z <= 0.0]
    if not below:
        return
    worst = min(range(len(lowest)), key=lowest.__getitem__)
    fix = (
        f"raise 'launcher.pitch_min_deg' to at least "
        f"{math.ceil(pitches[below[-1] + 1] * 10) / 10:g}, raise the pivot or shorten "
        f"the barrel"
        if below[-1] < steps
        else "raise the pivot or shorten the barrel"
    )
    raise InputError(
        f"{where}: at pitch {pitches[worst]:g} deg the bale would leave the barrel "
        f"{-lowest[worst]:.1f} mm under the board surface (pivot "
        f"{launcher.pivot_height_mm:g} mm up, barrel {launcher.barrel_length_mm:g} mm "
        f"long): {fix}"
    )
