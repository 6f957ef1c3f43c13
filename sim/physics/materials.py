"""The physical parameters that are guesses, and how a shot varies them (``--vary``).

The design gives friction, restitution and the piggies' mass (models/design.py);
none was measured on the toy. ``--vary friction=0.2,restitution=0.2,mass=0.1``
makes every shot draw its own factor for each, uniformly within the relative
half-range (friction x U(0.8, 1.2), ...), from the shot's own seed. One factor per
parameter per shot scales that parameter on every body (bale, piggies, board,
fences, tractor): it stands for "our guess of this coefficient is off by so much".
``mass`` scales the piggies' mass and inertia; the bale's mass is the designer's
to weigh, not a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from models.errors import InputError
from models.numbers import ascii_decimal
from models.text import shown

if TYPE_CHECKING:  # numpy only as a type: parse_vary answers before numpy is imported
    import numpy as np

#: The parameters ``--vary`` may name, in the order their factors are drawn.
VARIABLE = ("friction", "restitution", "mass")
#: The largest relative half-range: factors stay positive.
MAX_HALF_RANGE = 0.9


@dataclass(frozen=True)
class Materials:
    """Factors on the design's friction, restitution and piggy mass (1: as designed)."""

    friction: float = 1.0
    restitution: float = 1.0
    mass: float = 1.0


NOMINAL = Materials()


def parse_vary(text: str | None) -> dict[str, float]:
    """``friction=0.2,restitution=0.2,mass=0.1`` as ``{name: half-range}``."""
    if not text:
        return {}
    vary: dict[str, float] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in VARIABLE:
            raise InputError(
                f"--vary takes name=half-range pairs with names "
                f"{', '.join(VARIABLE)} (e.g. friction=0.2,mass=0.1), "
                f"got {shown(text)}"
            )
        if name in vary:
            raise InputError(f"--vary names {name} twice")
        half = ascii_decimal(value.strip())
        if half is None:
            raise InputError(f"--vary {name}: {shown(value)} is not a number in ASCII digits")
        if not 0.0 <= half <= MAX_HALF_RANGE:
            raise InputError(
                f"--vary {name}={value}: the relative half-range must lie in "
                f"[0, {MAX_HALF_RANGE:g}]"
            )
        vary[name] = half
    return vary


def draw_materials(vary: dict[str, float] | None, rng: np.random.Generator) -> Materials:
    """One shot's factors: nothing is drawn without ``vary`` (the stream is untouched)."""
    if not vary:
        return NOMINAL
    unit = rng.uniform(-1.0, 1.0, len(VARIABLE))
    return Materials(
        **{name: 1.0 + vary.get(name, 0.0) * u for name, u in zip(VARIABLE, unit, strict=True)}
    )
