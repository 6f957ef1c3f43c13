"""Aimers (TOML, models/aimers/*.toml): how far off a person sets the tractor.

A fired shot's noise has two independent parts: the launcher's own spread, which
belongs to the design (its speed spread and the mechanical play of the turret and
the tilt, :class:`models.design.Launcher`), and the error of the person aiming,
which belongs to an aimer. Each is Gaussian; the fired yaw is the asked yaw plus
the design's yaw error plus the aimer's bias and yaw error (the same for pitch).
The numbers are assumptions, reasoned in docs/hitmap.md ("Who aims").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from models.errors import InputError
from models.files import known_names, read_toml, resolve_named_file
from models.numbers import ascii_decimal
from models.text import shown

AIMERS_DIR = Path(__file__).parent / "aimers"

#: Largest spread and bias an aimer may have, degrees.
MAX_SD_DEG = 30.0
MAX_BIAS_DEG = 10.0


@dataclass(frozen=True)
class Aimer:
    """A person's aiming error, degrees (1 sd; bias is added to every shot)."""

    name: str = "perfect"
    description: str = ""
    yaw_sd_deg: float = 0.0
    pitch_sd_deg: float = 0.0
    yaw_bias_deg: float = 0.0
    pitch_bias_deg: float = 0.0

    def with_spread(self, yaw_sd_deg: float, pitch_sd_deg: float) -> Aimer:
        """This aimer with other spreads (``--aim-sd``), the bias kept; named after them."""
        for field, value in (("yaw", yaw_sd_deg), ("pitch", pitch_sd_deg)):
            _check_range(f"{field} aim sd", value, 0.0, MAX_SD_DEG, "--aim-sd")
        return dataclasses.replace(
            self,
            name=f"{self.name} (sd {yaw_sd_deg:g},{pitch_sd_deg:g} deg)",
            yaw_sd_deg=float(yaw_sd_deg),
            pitch_sd_deg=float(pitch_sd_deg),
        )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


PERFECT = Aimer()


def aimed_by(aimer: Aimer) -> str:
    """The line that names who aimed a shot, first in its words: ``piggy shoot`` aims
    as ``perfect`` by default and the sandbox in the browser as ``child`` (the hit
    maps' aimer), so one seed fires two different shots, and the words say which."""
    errors = [
        f"{what} {value:+g} deg"
        for what, value in (("yaw bias", aimer.yaw_bias_deg), ("pitch bias", aimer.pitch_bias_deg))
        if value
    ]
    if aimer.yaw_sd_deg or aimer.pitch_sd_deg:
        spread = f"yaw {aimer.yaw_sd_deg:g} deg, pitch {aimer.pitch_sd_deg:g} deg"
        errors.insert(0, f"aim spread (1 sd) {spread}")
    said = ", ".join(errors) or "no aim error: the launcher's own noise only"
    return f"Aimed by: {aimer.name} ({said})"


_RANGES = {
    "yaw_sd_deg": (0.0, MAX_SD_DEG),
    "pitch_sd_deg": (0.0, MAX_SD_DEG),
    "yaw_bias_deg": (-MAX_BIAS_DEG, MAX_BIAS_DEG),
    "pitch_bias_deg": (-MAX_BIAS_DEG, MAX_BIAS_DEG),
}


def known_aimers() -> list[str]:
    return known_names(AIMERS_DIR)


def load_aimer(name_or_path: str | Path = "child") -> Aimer:
    """Load and validate an aimer by name (models/aimers/) or path."""
    path = resolve_named_file(name_or_path, AIMERS_DIR, "aimer")
    return aimer_from_dict(read_toml(path, "aimer"), source=str(path))


def aimer_from_dict(data: dict, source: str = "aimer") -> Aimer:
    """Validate a parsed aimer file; missing numbers are 0."""
    where = f"aimer {source}"
    allowed = {"name", "description", *_RANGES}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InputError(
            f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})"
        )
    values = {}
    for key, (lo, hi) in _RANGES.items():
        value = data.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(f"{where}: '{key}' must be a number of degrees, got {value!r}")
        _check_range(f"'{key}'", value, lo, hi, where)
        values[key] = float(value)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: 'name' must be a non-empty string")
    return Aimer(name=name, description=str(data.get("description", "")), **values)


def parse_aim_sd(text: str) -> tuple[float, float]:
    """``--aim-sd YAW,PITCH`` (degrees) as two numbers."""
    parts = [ascii_decimal(p.strip()) for p in text.split(",")]
    if len(parts) != 2 or None in parts:
        raise InputError(
            f"--aim-sd takes YAW,PITCH in degrees, ASCII digits (e.g. 3,3.5), got {shown(text)}"
        )
    yaw, pitch = (float(p) for p in parts if p is not None)
    for field, value in (("yaw", yaw), ("pitch", pitch)):
        _check_range(f"{field} sd", value, 0.0, MAX_SD_DEG, "--aim-sd")
    return yaw, pitch


def _check_range(what: str, value: float, lo: float, hi: float, where: str) -> None:
    if not lo <= value <= hi:  # also refuses NaN
        raise InputError(f"{where}: {what} = {value:g} is out of range [{lo:g}, {hi:g}]")
