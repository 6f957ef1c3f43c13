"""A sweep of one design field (``piggy design compare --param FIELD=START:STOP:COUNT``):
the field and its evenly spaced values, and the designs they make; the range
``START:STOP:COUNT`` is read here for the aim-spread scan too (sim/studies/maps/scan.py).
"""

from __future__ import annotations

import math
import tomllib
from typing import TYPE_CHECKING

from models.design import Design, design_from_dict, design_toml
from models.errors import InputError
from models.numbers import ascii_decimal, ascii_whole
from models.text import shown
from sim.studies.designs.search import field_of

if TYPE_CHECKING:  # numpy only once the text is read: a mistake is told before it
    import numpy as np

#: Most values in a sweep: each one is a whole hit map.
MAX_SWEEP_VALUES = 50


def parse_sweep(text: str) -> tuple[str, np.ndarray]:
    """``launcher.muzzle_speed_mm_s=1500:3000:7`` (or a unique field name without its
    section, ``muzzle_speed_mm_s``, or without its unit, ``muzzle_speed``): 2 to
    :data:`MAX_SWEEP_VALUES` values, evenly spaced."""
    name, _, span = text.partition("=")
    field = field_of(name)
    values = parse_range(
        span,
        f"--param {name}" if name else "--param",
        MAX_SWEEP_VALUES,
        "field=start:stop:count, e.g. muzzle_speed=1500:3000:7",
    )
    return field, values


def parse_range(text: str, option: str, max_count: int, form: str) -> np.ndarray:
    """``START:STOP:COUNT`` as COUNT (2 to ``max_count``) evenly spaced finite numbers,
    the count checked before anything is made."""
    start, stop, count = range_parts(text, option, max_count, form)
    import numpy as np

    return np.linspace(start, stop, count)


def range_parts(text: str, option: str, max_count: int, form: str) -> tuple[float, float, int]:
    """``START:STOP:COUNT``'s start, stop and count, checked as :func:`parse_range`
    checks them, without numpy (a mistake told fast)."""
    pieces = [piece.strip() for piece in text.split(":")]
    start, stop = (ascii_decimal(piece) for piece in [*pieces, "", ""][:2])
    count = ascii_whole(pieces[2]) if len(pieces) == 3 else None
    if (
        count is None
        or start is None
        or stop is None
        or not (math.isfinite(start) and math.isfinite(stop))
    ):
        raise InputError(f"{option} must look like {form}; got {shown(text)}")
    if not 2 <= count <= max_count:
        raise InputError(f"{option}: the count must be 2 to {max_count}, got {shown(count)}")
    return start, stop, count


def with_value(design: Design, field: str, value: float) -> Design:
    section, key = field.split(".")
    data = tomllib.loads(design_toml(design))
    data[section][key] = (
        int(value) if isinstance(getattr(getattr(design, section), key), int) else float(value)
    )
    data["name"] = f"{design.name} {key}={value:g}"
    return design_from_dict(data, source=f"sweep of {field}")
