"""Launcher designs (TOML, models/designs/*.toml): the launcher, the bale, the
piggies' material and the physics settings that a shot is simulated with.

Every field carries its unit in its name; every number has an allowed range,
and a bad file gets an :class:`InputError` that names the field and the range.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from models.errors import InputError
from models.files import known_names, read_toml, resolve_named_file

DESIGNS_DIR = Path(__file__).parent / "designs"


@dataclass(frozen=True)
class Launcher:
    """The wolf tractor's spring launcher."""

    muzzle_speed_mm_s: float = 2000.0  # mean speed of the bale leaving the barrel
    speed_sd_mm_s: float = 30.0        # shot-to-shot spread of that speed (1 sd)
    pivot_height_mm: float = 70.0      # barrel pivot above the board surface
    barrel_length_mm: float = 40.0     # pivot to muzzle
    pitch_min_deg: float = -30.0       # lowest tilt the barrel reaches
    pitch_max_deg: float = 75.0        # highest tilt
    yaw_sd_deg: float = 0.8            # aim spread, turning (1 sd)
    pitch_sd_deg: float = 0.8          # aim spread, tilting (1 sd)


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


@dataclass(frozen=True)
class Piggy:
    """The piggies' material (their shape is fixed: models/assets/piggy*.obj)."""

    mass_g: float = 2.5
    friction: float = 0.6
    restitution: float = 0.3


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

    steps_per_s: float = 1000.0        # time step = 1 / steps_per_s
    solver_iterations: int = 20
    max_time_s: float = 4.0            # cap on one shot's simulated time
    rest_speed_mm_s: float = 4.0       # a body slower than this ...
    rest_spin_deg_s: float = 20.0      # ... and turning slower than this is at rest
    rest_time_s: float = 0.03          # everything at rest this long ends the shot
    sleep_at_rest: bool = True         # idle piggies static until something comes near
    early_verdict: bool = True         # a piggy surely out stops holding up the shot's end
    air_drag: bool = False             # quadratic air drag on the bale
    drag_coefficient: float = 1.05     # of the bale, on its frontal area (a cube: 1.05)
    air_density_kg_m3: float = 1.2


@dataclass(frozen=True)
class Design:
    """A whole launcher design; load it with :func:`load_design`."""

    name: str = "stock"
    description: str = ""
    launcher: Launcher = Launcher()
    bale: Bale = Bale()
    piggy: Piggy = Piggy()
    surfaces: Surfaces = Surfaces()
    physics: Physics = Physics()

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


_SECTIONS = {"launcher": Launcher, "bale": Bale, "piggy": Piggy,
             "surfaces": Surfaces, "physics": Physics}

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


def design_from_dict(data: dict, source: str = "design") -> Design:
    """Validate a parsed design; missing fields take the stock values."""
    where = f"design {source}"
    top = {"name", "description", *_SECTIONS}
    unknown = sorted(set(data) - top)
    if unknown:
        raise InputError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(top))})")
    sections = {}
    for section, cls in _SECTIONS.items():
        values = data.get(section, {})
        if not isinstance(values, dict):
            raise InputError(f"{where}: '{section}' must be a table")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in values.items():
            if key not in fields:
                raise InputError(f"{where}: unknown field '{section}.{key}' (allowed: "
                                 f"{', '.join(fields)})")
            default = fields[key].default
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise InputError(f"{where}: '{section}.{key}' must be true or false")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"{where}: '{section}.{key}' must be a number, got {value!r}")
            if isinstance(default, int) and not isinstance(value, int):
                raise InputError(f"{where}: '{section}.{key}' must be a whole number")
            if value != value:  # NaN
                raise InputError(f"{where}: '{section}.{key}' is not a number")
            lo, hi = RANGES[f"{section}.{key}"]
            if not lo <= value <= hi:
                raise InputError(f"{where}: '{section}.{key}' = {value} is out of range "
                                 f"[{lo:g}, {hi:g}]")
        sections[section] = cls(**{k: (float(v) if isinstance(fields[k].default, float) else v)
                                   for k, v in values.items()})
    launcher = sections["launcher"]
    if launcher.pitch_min_deg >= launcher.pitch_max_deg:
        raise InputError(f"{where}: 'launcher.pitch_min_deg' ({launcher.pitch_min_deg:g}) must be "
                         f"below 'launcher.pitch_max_deg' ({launcher.pitch_max_deg:g})")
    bale = sections["bale"]
    if 2 * bale.corner_radius_mm >= min(bale.length_mm, bale.width_mm, bale.height_mm):
        raise InputError(f"{where}: 'bale.corner_radius_mm' must be under half the bale's "
                         f"smallest side ({min(bale.length_mm, bale.width_mm, bale.height_mm):g})")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: 'name' must be a non-empty string")
    return Design(name=name, description=str(data.get("description", "")), **sections)
