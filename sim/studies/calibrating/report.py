"""A calibration as text (its picture, measured against predicted landings:
sim/views/calibration_picture.py)."""

from __future__ import annotations

from sim.studies.calibrating.calibration import LABELS
from sim.studies.calibrating.result import CalibrationResult


def format_calibration(result: CalibrationResult) -> str:
    """The fit as text: each parameter with its standard error and the base value."""
    units = {"muzzle_speed_mm_s": "mm/s", "speed_sd_mm_s": "mm/s"}
    shots = result.shots
    lines = [
        f"Calibrated '{result.base.name}' from {len(shots)} shots at "
        f"{len({round(float(p), 1) for p in shots.pitch_deg})} pitches ({shots.source}):"
    ]
    for name, e in result.estimates.items():
        unit = units.get(name, "deg")
        digits = 1 if unit == "mm/s" else 3
        sign = "+" if name.endswith("offset_deg") else ""
        spread = (
            f"± {e.se:.{digits}f}"
            if e.se is not None
            else f"(below {e.upper_95:.{digits}f} at 95 %)"
        )
        base = getattr(result.base.launcher, name, 0.0)
        lines.append(
            f"  {LABELS[name]:13s} {e.value:{sign}9.{digits}f} {spread:9s} {unit:4s}  "
            f"(base {base:g})"
        )
    lines.append(
        "  ± one standard error (observed information). The true pitch is the set "
        "pitch plus the pitch offset; the yaw likewise."
    )
    if result.outlier_rows:
        lines.append(
            "  far from the fit (check them): rows " + ", ".join(map(str, result.outlier_rows))
        )
    lines.extend(f"  {note}" for note in result.notes)
    return "\n".join(lines)
