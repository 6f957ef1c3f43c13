"""What a launcher design is: its sections as dataclasses (the launcher, the bale,
the piggies' material and shape, the tractor, the surfaces, the physics settings)
and every number's allowed range.

Every field carries its unit in its name. Reading, checking and writing a design
file is :mod:`models.design`'s; what the fields must satisfy together,
:mod:`models.design_checks`'.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from models.mesh_files import MESH_PARTS, read_mesh_file

if TYPE_CHECKING:
    import numpy as np


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

    # Read once per bale (a frozen dataclass keeps a cached property in its __dict__,
    # outside its fields: equality, hashing and the file it writes ignore it).
    @cached_property
    def hull_mm(self) -> np.ndarray:
        """Points whose convex hull is the bale, in its frame: origin at its centre of
        mass (on the barrel's axis), +y along the barrel, +z up; (n, 3), mm. The
        block's eight corners (its rounded corners left out, which errs on the safe
        side), or the convex hull's vertices of an own mesh."""
        import numpy as np  # here: the command line starts without it

        if self.mesh is None:
            half = np.array([self.width_mm, self.length_mm, self.height_mm]) / 2
            signs = [(sx, sy, sz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
            return np.array(signs, dtype=float) * half
        mesh = read_mesh_file(self.mesh, self.mesh_units, "bale").mesh
        return np.array(mesh.convex_hull.vertices, dtype=float)

    @property
    def behind_mm(self) -> float:
        """From its centre of mass back to its rearmost point along the barrel, mm: how
        far ahead of the muzzle its centre is as it leaves the barrel. Half its length
        for the block; an own mesh's real extent, so that a bale heavier at one end
        leaves the barrel as wholly as a symmetric one."""
        if self.mesh is None:
            return self.length_mm / 2
        return float(-self.hull_mm[:, 1].min())


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
    engine: str = "bullet"  # the physics engine: one of ENGINES


@dataclass(frozen=True)
class Design:
    """A whole launcher design; load it with :func:`models.design.load_design`."""

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
        # Bullet, the engine of every design before there was a choice, goes unsaid:
        # such a design reads, and is keyed, as it was
        if data["physics"]["engine"] == ENGINES[0]:
            del data["physics"]["engine"]
        return data

    def file_dict(self) -> dict:
        """The fields a design file gives (a spring launcher without its derived
        speed): what ``design_from_dict`` reads back to this design."""
        data = self.to_dict()
        if self.launcher.has_spring:
            for key in SPEED_FIELDS:
                del data["launcher"][key]
        return data


#: The physics engines a design may be simulated with (the first is the default).
ENGINES = ("bullet", "mujoco", "mujoco-warp")

#: The fields that go with a mesh (the first two checked by models.mesh_files).
MESH_FIELDS = ("mesh", "mesh_units", "mesh_threshold", "mesh_max_parts")

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
