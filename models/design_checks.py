"""What a launcher design must satisfy beyond each field's own range: a launch
given as a speed or as a whole spring, fields that must agree with each other, and
the design as a whole (printable labels, a bale that starts above the board).
Each refusal is an :class:`InputError` that names the fields and the fix.
"""

from __future__ import annotations

import math

from models.design_parts import (
    RANGES,
    SPEED_FIELDS,
    SPRING_FIELDS,
    Bale,
    Design,
    Launcher,
    spring_speed_mm_s,
)
from models.errors import InputError, check_label

#: The yaws a tractor turns to, degrees (a turn and more either way).
YAW_RANGE_DEG = (-360.0, 360.0)


def check_launch(given: dict, sections: dict, where: str) -> None:
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


def check_ranges_together(launcher: Launcher, bale: Bale, where: str) -> None:
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
      barrel reaches (:func:`lowest_points_mm`). A low pivot, a long barrel and a
      steep downward pitch would start a shot under the board, where no flight or
      landing point exists.
    """
    check_label(data.get("name", design.name), f"{where}: 'name'", 64)
    check_label(data.get("description", ""), f"{where}: 'description'", 500, empty_ok=True)

    launcher = design.launcher
    steps = 2000
    pitches = [
        launcher.pitch_min_deg + (launcher.pitch_max_deg - launcher.pitch_min_deg) * i / steps
        for i in range(steps + 1)
    ]
    lowest = lowest_points_mm(launcher, design.bale, pitches)
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


def lowest_points_mm(launcher: Launcher, bale: Bale, pitches_deg: list[float]) -> list[float]:
    """Height above the board surface of the bale's lowest point as it leaves the
    barrel at each pitch, mm (one per pitch).

    Its centre of mass is ``r = barrel_length_mm + bale.behind_mm`` from the pivot
    along the barrel (its rear at the muzzle), its frame turned with the barrel. The
    block's lowest point is ``pivot_height_mm + r sin(pitch) - length_mm / 2
    |sin(pitch)| - height_mm / 2 cos(pitch)`` (rounded corners ignored, which errs
    on the safe side); an own mesh's is the lowest of its convex hull's vertices
    (:attr:`Bale.hull_mm`), exact whatever its shape.
    """
    pivot, radius = launcher.pivot_height_mm, launcher.barrel_length_mm + bale.behind_mm
    if bale.mesh is None:
        return [
            pivot
            + radius * math.sin(math.radians(p))
            - bale.length_mm / 2 * abs(math.sin(math.radians(p)))
            - bale.height_mm / 2 * math.cos(math.radians(p))
            for p in pitches_deg
        ]
    import numpy as np  # an own mesh's bale only: the command line starts without it

    theta = np.radians(np.asarray(pitches_deg, dtype=float))
    hull = bale.hull_mm
    # a point (x, y, z) of the bale's frame is y sin + z cos above its centre
    lowest = (np.outer(np.sin(theta), hull[:, 1]) + np.outer(np.cos(theta), hull[:, 2])).min(1)
    return (pivot + radius * np.sin(theta) + lowest).tolist()


def check_angles(design: Design, yaw_deg: float, pitch_deg: float) -> None:
    """Raise :class:`InputError` for a yaw or pitch the design's tractor cannot take."""
    lo, hi = YAW_RANGE_DEG
    if not (math.isfinite(yaw_deg) and lo <= yaw_deg <= hi):
        raise InputError(f"yaw {yaw_deg:g} deg is out of range [{lo:g}, {hi:g}]")
    launcher = design.launcher
    if not (
        math.isfinite(pitch_deg) and launcher.pitch_min_deg <= pitch_deg <= launcher.pitch_max_deg
    ):
        raise InputError(
            f"pitch {pitch_deg:g} deg is out of range for design "
            f"'{design.name}': [{launcher.pitch_min_deg:g}, "
            f"{launcher.pitch_max_deg:g}]"
        )
