"""How hard the bale hits: its kinetic energy at the muzzle and at its fastest
point over the board, and that energy per area of its smallest face, against
reference limits from the toy-safety standards.

The default limits are indicative, not a certification:

- 0.08 J, the kinetic-energy limit for rigid projectiles cited for EN 71-1
  (Safety of toys, part 1, clause 4.17) and ASTM F963 (clause 4.21, projectile
  toys); the same figure is cited for ISO 8124-1.
- 1600 J/m² (0.16 J/cm²), the kinetic energy per contact area cited for EN 71-1's
  projectiles with a resilient impact surface; ISO 8124-1 and ASTM F963 are cited
  with 2500 J/m² for projectiles above 0.08 J. We take the lower of the two.

Both figures come from secondary summaries of the standards, not from their
text; in the standards the per-area figure applies to projectiles above 0.08 J
with a protective tip. Here every design is compared with both, and a design
over a limit is flagged, never refused. docs/real-toy.md has the figures of the
stock designs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.design import Bale, Design
from models.mesh_files import read_mesh_file
from sim.physics.ballistics import drag_constant_per_mm, fly_to_height

#: Pitches tried across the design's range for the fastest point (the endpoints included).
_PITCH_STEPS = 211

LIMITS_SOURCE = (
    "indicative figures cited for EN 71-1 and ASTM F963 projectile toys; not a certification"
)


@dataclass(frozen=True)
class SafetyLimits:
    """Reference limits a design is compared with (defaults: see the module)."""

    kinetic_energy_j: float = 0.08
    kinetic_energy_per_area_j_m2: float = 1600.0
    source: str = LIMITS_SOURCE

    def to_dict(self) -> dict:
        return {
            "kinetic_energy_j": self.kinetic_energy_j,
            "kinetic_energy_per_area_j_m2": self.kinetic_energy_per_area_j_m2,
            "source": self.source,
        }


@dataclass(frozen=True)
class SafetyReport:
    """A design's impact figures, SI units, and the limits they were compared with."""

    design: str
    mass_g: float
    muzzle_speed_mm_s: float
    fastest_speed_mm_s: float  # over the flight, every pitch in the range
    fastest_pitch_deg: float  # the pitch that gives it
    kinetic_energy_j: float  # at the muzzle
    kinetic_energy_max_j: float  # at the fastest point
    smallest_face_mm2: float
    kinetic_energy_per_area_j_m2: float  # the fastest point's energy on the smallest face
    method: str  # closed form, or the drag integration
    limits: SafetyLimits

    @property
    def over_limits(self) -> list[str]:
        """The figures over their limit (empty: within every limit)."""
        over = []
        if self.kinetic_energy_max_j > self.limits.kinetic_energy_j:
            over.append("kinetic_energy_j")
        if self.kinetic_energy_per_area_j_m2 > self.limits.kinetic_energy_per_area_j_m2:
            over.append("kinetic_energy_per_area_j_m2")
        return over

    def to_dict(self) -> dict:
        return {
            "design": self.design,
            "mass_g": self.mass_g,
            "muzzle_speed_mm_s": round(self.muzzle_speed_mm_s, 1),
            "fastest_speed_mm_s": round(self.fastest_speed_mm_s, 1),
            "fastest_pitch_deg": round(self.fastest_pitch_deg, 2),
            "kinetic_energy_j": round(self.kinetic_energy_j, 6),
            "kinetic_energy_max_j": round(self.kinetic_energy_max_j, 6),
            "smallest_face_mm2": round(self.smallest_face_mm2, 2),
            "kinetic_energy_per_area_j_m2": round(self.kinetic_energy_per_area_j_m2, 1),
            "method": self.method,
            "limits": self.limits.to_dict(),
            "over_limits": self.over_limits,
        }


def smallest_face_mm2(bale: Bale) -> float:
    """Area of the bale's smallest face seen square on, mm².

    The stock bale: a rounded rectangle, a·b - (4 - π)·r². An own mesh: the least of
    its outline's areas seen along x, y and z (its convex hull's, ½·Σ A·|n·axis|; a
    round bale's end, not its bounding square). For a mesh with hollows the hull's
    outline is larger than the mesh's, so its figure per area errs low there.
    """
    if bale.mesh is not None:
        hull = read_mesh_file(bale.mesh, bale.mesh_units, "bale").mesh.convex_hull
        seen = 0.5 * (hull.area_faces[:, None] * np.abs(hull.face_normals)).sum(axis=0)
        return float(seen.min())
    a, b = sorted((bale.length_mm, bale.width_mm, bale.height_mm))[:2]
    return a * b - (4 - math.pi) * bale.corner_radius_mm**2


def kinetic_energy_j(mass_g: float, speed_mm_s) -> np.ndarray:
    """½·m·v² in joules, from grams and mm/s."""
    return 0.5 * mass_g * 1e-3 * (np.asarray(speed_mm_s) * 1e-3) ** 2


def safety_report(design: Design, limits: SafetyLimits = SafetyLimits()) -> SafetyReport:
    """The design's impact figures at its mean muzzle speed.

    The fastest point: the bale speeds up as it falls, most when fired from the
    highest muzzle; without drag v² = v0² + 2·g·Δh, Δh from the muzzle down to the
    lowest its centre gets on the board (half the bale's smallest side). With the
    design's drag the flight is integrated at every pitch of the range, and the
    fastest point may be the muzzle itself.
    """
    launcher, bale = design.launcher, design.bale
    pitches = np.linspace(launcher.pitch_min_deg, launcher.pitch_max_deg, _PITCH_STEPS)
    lowest_centre_mm = min(bale.length_mm, bale.width_mm, bale.height_mm) / 2
    _, _, fastest = fly_to_height(design, pitches, launcher.muzzle_speed_mm_s, lowest_centre_mm)
    best = int(np.nanargmax(fastest))
    energy_max = float(kinetic_energy_j(bale.mass_g, fastest[best]))
    face = smallest_face_mm2(bale)
    return SafetyReport(
        design=design.name,
        mass_g=bale.mass_g,
        muzzle_speed_mm_s=launcher.muzzle_speed_mm_s,
        fastest_speed_mm_s=float(fastest[best]),
        fastest_pitch_deg=float(pitches[best]),
        kinetic_energy_j=float(kinetic_energy_j(bale.mass_g, launcher.muzzle_speed_mm_s)),
        kinetic_energy_max_j=energy_max,
        smallest_face_mm2=face,
        kinetic_energy_per_area_j_m2=energy_max / (face * 1e-6),
        method="drag integration" if drag_constant_per_mm(design) else "closed form, no drag",
        limits=limits,
    )


def format_safety(report: SafetyReport) -> list[str]:
    """The report as lines for ``piggy design check`` (indent them as you like)."""
    limits = report.limits
    lines = [
        f"kinetic energy {report.kinetic_energy_j:.4f} J at the muzzle, "
        f"{report.kinetic_energy_max_j:.4f} J at its fastest ({report.fastest_speed_mm_s:.0f} "
        f"mm/s, pitch {report.fastest_pitch_deg:g} deg); limit {limits.kinetic_energy_j:g} J",
        f"per area of its smallest face ({report.smallest_face_mm2:.1f} mm²): "
        f"{report.kinetic_energy_per_area_j_m2:.0f} J/m²; limit "
        f"{limits.kinetic_energy_per_area_j_m2:g} J/m²",
    ]
    over = report.over_limits
    excess = {
        "kinetic_energy_j": f"kinetic energy {report.kinetic_energy_max_j:.4f} J > "
        f"{limits.kinetic_energy_j:g} J",
        "kinetic_energy_per_area_j_m2": f"per area {report.kinetic_energy_per_area_j_m2:.0f}"
        f" J/m² > {limits.kinetic_energy_per_area_j_m2:g}"
        " J/m²",
    }
    lines.append(
        "FLAG: safety: OVER THE LIMIT: "
        + "; ".join(excess[k] for k in over)
        + " (flagged, not refused)"
        if over
        else "safety: within the reference limits"
    )
    lines.append(f"  ({limits.source})")
    return lines
