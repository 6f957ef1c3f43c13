"""What a calibration needs of its shots, checked before the fit (enough shots, at
enough pitches spread wide enough, none level) and after it (each parameter
determined within stated bounds), each refusal one line saying what to measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from models.errors import InputError
from sim.studies.calibrating.shots_csv import MeasuredShots

if TYPE_CHECKING:
    from sim.studies.calibrating.result import CalibrationResult

LABELS = {
    "muzzle_speed_mm_s": "muzzle speed",
    "speed_sd_mm_s": "speed spread",
    "yaw_sd_deg": "yaw spread",
    "pitch_sd_deg": "pitch spread",
    "pitch_offset_deg": "pitch offset",
    "yaw_offset_deg": "yaw offset",
}
#: What to measure when the shots cannot determine a parameter.
ADVICE = {
    "muzzle_speed_mm_s": "fire at more pitches, or add chronograph readings (speed_mm_s)",
    "speed_sd_mm_s": "fire at pitches spread over the range, low shots and high arcs, "
    "8 shots each, or add chronograph readings (speed_mm_s)",
    "yaw_sd_deg": "fire more shots (their sideways scatter measures it)",
    "pitch_sd_deg": "fire at pitches spread over the range, low shots and high arcs, 8 shots each",
    "pitch_offset_deg": "fire at pitches spread over the range, low shots and high arcs",
    "yaw_offset_deg": "fire more shots",
}
MIN_SHOTS = 10
MIN_PITCHES = 3
#: The set pitches must span at least this much, deg: a narrow span cannot tell the
#: speed from a pitch offset (the landings move alike with both).
MIN_PITCH_SPAN_DEG = 10.0
#: A fit is refused when the muzzle speed's standard error is above this fraction of it,
MAX_SPEED_RELATIVE_SE = 0.10
#: or the speed spread's 95 % upper bound is above this fraction of the speed,
MAX_SPREAD_OF_SPEED = 0.25
#: or a scale offset's standard error is above this, or the offset itself beyond
#: ``MAX_OFFSET_DEG`` (a scale misread by that much is a mistyped column), deg.
MAX_OFFSET_SE_DEG = 2.0
MAX_OFFSET_DEG = 10.0
#: Evaluations of the likelihood a whole fit may take (a good fit of 40 shots takes
#: about 1,500, with the profile bounds of spreads that fit as zero a few tens of
#: thousands): the cap on the fit's time, whatever the shots.
MAX_EVALUATIONS = 150_000
#: Shots this close to level (deg) land flat: their first touch is ambiguous.
LEVEL_DEG = 3.0


def check_enough(shots: MeasuredShots) -> None:
    """Refuse, on one line saying what to measure, shots a fit cannot use: too few,
    one near level, too few pitches or too narrow a span of them."""
    check_settings(shots.pitch_deg, shots.source)


def check_settings(pitch_deg: Sequence[float] | np.ndarray, source: str) -> None:
    """:func:`check_enough` on the pitches set for each shot alone, as an angles file
    written while filming gives them (``calibrate --video`` checks it before the
    first frame is read: the measurement keeps at most these shots); ``source``: the
    file named in the refusal."""
    pitches_set = np.asarray(pitch_deg, dtype=float)
    n = len(pitches_set)
    if n < MIN_SHOTS:
        raise InputError(
            f"{source}: {n} shots; a calibration needs at least {MIN_SHOTS} "
            "(measure 5 pitches x 8 shots)"
        )
    level = np.flatnonzero(np.abs(pitches_set) < LEVEL_DEG)
    if len(level):
        raise InputError(
            f"{source} row {level[0] + 2}: pitch {pitches_set[level[0]]:g} "
            f"is within {LEVEL_DEG:g} deg of level, where the bale lands flat and "
            f"its first touch is ambiguous; fire at least {LEVEL_DEG:g} deg from "
            "level"
        )
    pitches = sorted({round(float(p), 1) for p in pitches_set})
    if len(pitches) < MIN_PITCHES:
        at = " and ".join(f"{p:g}" for p in pitches)
        raise InputError(
            f"{source}: all {n} shots were fired at pitch {at} deg: so few pitches cannot "
            "tell the speed spread from the pitch spread, nor the speed from a pitch offset; "
            f"fire at {MIN_PITCHES} or more pitches (e.g. 5 pitches x 8 shots)"
        )
    if pitches[-1] - pitches[0] < MIN_PITCH_SPAN_DEG:
        raise InputError(
            f"{source}: the pitches span {pitches[0]:g} to {pitches[-1]:g} deg, less "
            f"than {MIN_PITCH_SPAN_DEG:g} deg: so narrow a span cannot tell the speed from a "
            "pitch offset; fire at pitches spread over the range, low shots and high arcs "
            "(e.g. -30, -25, 8, 64 and 70 deg)"
        )


def check_determined(result: CalibrationResult) -> None:
    """Refuse, on one line saying what to measure, a fit that leaves the speed, its
    spread or a scale offset undetermined beyond the stated bounds."""
    e = result.estimates
    speed, spread = e["muzzle_speed_mm_s"], e["speed_sd_mm_s"]
    if speed.se is not None and speed.se > MAX_SPEED_RELATIVE_SE * speed.value:
        refuse(
            "muzzle_speed_mm_s",
            f"to {MAX_SPEED_RELATIVE_SE:.0%} ({speed.value:.0f} ± {speed.se:.0f} mm/s)",
        )
    bound = spread.upper_95 if spread.se is None else spread.value + 1.645 * spread.se
    if bound is not None and bound > MAX_SPREAD_OF_SPEED * speed.value:
        refuse(
            "speed_sd_mm_s",
            f"(below {bound:,.0f} mm/s at 95 %, more than {MAX_SPREAD_OF_SPEED:.0%} of the speed)",
        )
    for name in ("pitch_offset_deg", "yaw_offset_deg"):
        offset = e[name]
        if (offset.se is not None and offset.se > MAX_OFFSET_SE_DEG) or abs(
            offset.value
        ) > MAX_OFFSET_DEG:
            refuse(
                name,
                f"({offset.value:+.1f} ± {offset.se or 0:.1f} deg; a scale is read "
                f"to within {MAX_OFFSET_DEG:g} deg and {MAX_OFFSET_SE_DEG:g} deg)",
            )


def refuse(name: str, how: str = ""):
    raise InputError(
        f"the shots cannot determine the {LABELS[name]}{' ' + how if how else ''}: {ADVICE[name]}"
    )
