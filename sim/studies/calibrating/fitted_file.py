"""The fitted design (:func:`fitted_design`: the base design with the fitted launcher)
and its file, one a person can read (``piggy calibrate --out``): the base design's
own file with the fitted values put in, its comments and layout kept, and what the
fit found written as comments at the top (each estimate with its standard error, the
offsets of the angle scales, which belong to the person, not the launcher).

Fitted values are rounded to what the data supports (:func:`supported`), so the
file shows no 16-digit floats. The fit itself is sim/studies/calibrating/calibration.py.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from models.design import Design, design_toml
from models.files import write_text_atomic
from sim.studies.calibrating.shots_csv import MeasuredShots

if TYPE_CHECKING:
    from sim.studies.calibrating.result import CalibrationResult, Estimate

#: ``key = value   # comment`` on one line of a TOML file.
_ASSIGNMENT = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)(.*?)(\s*#.*)?$")
_SECTION = re.compile(r"^\s*\[([A-Za-z_][A-Za-z0-9_]*)\]")


def toml_value(value) -> str:
    """A value as TOML writes it (strings quoted, booleans lower-case)."""
    if isinstance(value, str):
        return json.dumps(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def with_values(base_text: str, values: dict) -> str:
    """``base_text`` (a design file) with ``values`` put in: ``{"name": ..., "launcher":
    {...}, ...}``; a key the base has and ``values`` lacks is commented out, a key
    ``values`` has and the base lacks is added at the end of its section."""
    lines, section, done = [], None, set()

    def close(section):
        for key, value in (values.get(section) or {}).items() if section else ():
            if (section, key) not in done:
                lines.append(f"{key} = {toml_value(value)}")
                done.add((section, key))

    for line in base_text.splitlines():
        header = _SECTION.match(line)
        if header:
            close(section)
            section = header.group(1)
            lines.append(line)
            continue
        match = _ASSIGNMENT.match(line)
        if not match or line.lstrip().startswith("#"):
            lines.append(line)
            continue
        indent, key, equals, old, comment = match.groups()
        table = values.get(section) if section else values
        if not isinstance(table, dict) or key not in table:
            lines.append(f"# {line.strip()}   (not in the fitted design)")
            continue
        text = toml_value(table[key])
        if comment:  # the comment stays in its column
            gap = len(comment) - len(comment.lstrip())
            text += " " * max(1, len(old) + gap - len(text)) + comment.lstrip()
        lines.append(f"{indent}{key}{equals}{text}")
        done.add((section, key))
    close(section)
    for name, table in values.items():  # sections the base file lacks
        if isinstance(table, dict) and not any(s == name for s, _ in done):
            lines.append(f"\n[{name}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def header(result) -> str:
    """What the fit found, as comment lines."""
    out = [
        f"# Fitted by piggy calibrate from {len(result.shots)} measured shots "
        f"({result.shots.source}), base design '{result.base.name}'.",
        "# Each fitted value is rounded to what the data supports; estimate ± standard error:",
    ]
    for name, e in result.estimates.items():
        spread = (
            f"± {e.se:.2g}" if e.se is not None else f"fits as 0, below {e.upper_95:.3g} at 95 %"
        )
        out.append(f"#   {name} = {e.value:.4g} {spread}")
    out.append(
        "# The offsets belong to the person's angle scales, not to the launcher: add them to the"
    )
    out.append("# readings of those scales (they are not in the design).")
    out += [f"# note: {note}" for note in result.notes]
    return "\n".join(out) + "\n"


def fitted_design(
    base: Design, estimates: dict[str, Estimate], shots: MeasuredShots
) -> tuple[Design, tuple[str, ...]]:
    """The base design with the fitted launcher, and notes on what was carried over.

    A spring launcher stays a spring: its efficiency takes the fitted speed
    (v ∝ √η) and its draw spread the fitted speed spread (sd_v/v = sd_d/d); when
    the efficiency that would need is above 1 the launcher is written as a speed.
    The offsets belong to the person's scales, not the launcher: they are reported.
    """
    value = {name: supported(e.value, e.se) for name, e in estimates.items()}
    launcher = replace(
        base.launcher, yaw_sd_deg=value["yaw_sd_deg"], pitch_sd_deg=value["pitch_sd_deg"]
    )
    notes = []
    pivots = shots.pivot_height_mm[np.isfinite(shots.pivot_height_mm)]
    if len(pivots) and np.ptp(pivots) == 0:
        launcher = replace(launcher, pivot_height_mm=float(pivots[0]))
        notes.append(f"pivot height {pivots[0]:g} mm, as measured")
    speed, sd = value["muzzle_speed_mm_s"], value["speed_sd_mm_s"]
    # a spring launcher gives all its spring fields or none (models/design.py)
    base_efficiency, draw_mm = launcher.efficiency, launcher.draw_mm
    if base_efficiency is not None and draw_mm is not None:
        efficiency = base_efficiency * (speed / base.launcher.muzzle_speed_mm_s) ** 2
        if efficiency <= 1.0:
            launcher = replace(
                launcher,
                efficiency=supported(efficiency, None),
                draw_sd_mm=supported(draw_mm * sd / speed, None, 3),
            )
            notes.append(
                f"spring kept: efficiency {efficiency:.3f}, draw spread "
                f"{launcher.draw_sd_mm:.3f} mm give the fitted speed"
            )
        else:
            launcher = replace(
                launcher,
                spring_rate_n_m=None,
                draw_mm=None,
                draw_sd_mm=None,
                plunger_mass_g=None,
                efficiency=None,
            )
            notes.append(
                f"the spring would need an efficiency of {efficiency:.2f} (> 1): "
                "written as a speed; check the spring's rate, draw and masses"
            )
    if not launcher.has_spring:
        launcher = replace(launcher, muzzle_speed_mm_s=speed, speed_sd_mm_s=sd)
    description = f"{base.name} calibrated from {len(shots)} measured shots ({shots.source})"
    return replace(
        base, name=f"{base.name}-calibrated", description=description, launcher=launcher
    ), tuple(notes)


def write_fitted_design(result: CalibrationResult, path, base_file=None) -> None:
    """The fitted design as a TOML file (atomically), readable by ``load_design``: the
    base design's file (``base_file``; a file written from the base design without
    it) with the fitted values put in, what the fit found as comments on top
    (sim/studies/calibrating/fitted_file.py)."""
    base_text = Path(base_file).read_text() if base_file else design_toml(result.base)
    values = {
        "name": result.design.name,
        "description": result.design.description,
        **result.design.file_dict(),
    }
    write_text_atomic(path, header(result) + with_values(base_text, values))


def supported(value: float, se: float | None, digits: int = 4) -> float:
    """``value`` rounded to what its standard error supports: to the decimal place one
    below the error's first digit (2006.04 ± 6.1 -> 2006.0); without an error, to
    ``digits`` significant digits."""
    if value == 0 or not math.isfinite(value):
        return value
    if se is None or se <= 0:
        return float(f"{value:.{digits}g}")
    return round(value, max(0, 1 - math.floor(math.log10(se))))
