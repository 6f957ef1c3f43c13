"""The physical parameters that are guesses, and how a shot varies them (``--vary``).

The design gives friction, restitution and the piggies' mass (models/design.py);
none was measured on the toy. ``--vary friction=0.2,restitution=0.2,mass=0.1``
makes every shot draw its own factor for each, uniformly within the relative
half-range (friction x U(0.8, 1.2), ...), from the shot's own seed.

- **Shorthands** (:data:`SHORTHANDS`): one factor per parameter per shot scales
  that parameter on every body (bale, piggies, board, fences, tractor): it stands
  for "our guess of this coefficient is off by so much". ``mass`` scales the
  piggies' mass and inertia; the bale's mass is the designer's to weigh, not a
  guess.
- **One body's coefficient** (:data:`PER_BODY`): ``bale_friction``,
  ``piggy_restitution``, ``surface_friction`` (board, table, fences, tractor) and
  the rest scale one material's coefficient only, each with its own factor, so that
  a study can tell which guess matters (sim/studies/maps/sensitivity.py). A
  shorthand and its own per-body names are not named together.

A contact's coefficient is the product of its two materials' (Bullet's rule,
sim/physics/bodies.py), so a pair's factor is the product of the two materials'
factors.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from models.errors import InputError
from models.numbers import ascii_decimal
from models.text import shown

if TYPE_CHECKING:  # numpy only as a type: parse_vary answers before numpy is imported
    import numpy as np

#: The materials a contact coefficient belongs to (sim/physics/bodies.py).
BODIES = ("bale", "piggy", "surface")
#: The parameters that move every body together, in the order their factors are drawn.
SHORTHANDS = ("friction", "restitution", "mass")
#: One material's coefficient each, drawn after the shorthands.
PER_BODY = tuple(f"{body}_{name}" for body in BODIES for name in ("friction", "restitution"))
#: The parameters ``--vary`` may name, in the order their factors are drawn.
VARIABLE = SHORTHANDS + PER_BODY
#: The largest relative half-range: factors stay positive.
MAX_HALF_RANGE = 0.9


@dataclass(frozen=True)
class Materials:
    """Factors on the design's friction, restitution and piggy mass (1: as designed):
    the shorthands' (every body) and each material's own."""

    friction: float = 1.0
    restitution: float = 1.0
    mass: float = 1.0
    bale_friction: float = 1.0
    bale_restitution: float = 1.0
    piggy_friction: float = 1.0
    piggy_restitution: float = 1.0
    surface_friction: float = 1.0
    surface_restitution: float = 1.0

    def friction_of(self, body: str) -> float:
        """The factor on one material's friction (``body`` of :data:`BODIES`)."""
        return self.friction * getattr(self, f"{body}_friction")

    def restitution_of(self, body: str) -> float:
        """The factor on one material's restitution."""
        return self.restitution * getattr(self, f"{body}_restitution")

    def pair_friction(self, a: str, b: str) -> float:
        """The factor on the friction of a contact between materials ``a`` and ``b``.
        Written as the shorthand squared times the two materials' own, so that with
        shorthands alone it is ``friction**2`` to the bit, as it always was."""
        return self.friction**2 * (getattr(self, f"{a}_friction") * getattr(self, f"{b}_friction"))

    def pair_restitution(self, a: str, b: str) -> float:
        """The factor on the restitution of a contact between ``a`` and ``b``."""
        own = getattr(self, f"{a}_restitution") * getattr(self, f"{b}_restitution")
        return self.restitution**2 * own

    def to_dict(self) -> dict[str, float]:
        """The factors as a shot record holds them (rounded): the shorthands always,
        each material's own only where one was drawn (a record made with shorthands
        alone reads as it always did)."""
        names = [f.name for f in fields(self)]
        if all(getattr(self, name) == 1.0 for name in PER_BODY):
            names = list(SHORTHANDS)
        return {name: round(getattr(self, name), 4) for name in names}


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
    for shorthand in ("friction", "restitution"):
        own = [name for name in PER_BODY if name.endswith(f"_{shorthand}") and name in vary]
        if shorthand in vary and own:
            raise InputError(
                f"--vary {shorthand} moves every body's {shorthand} together: name it "
                f"or {', '.join(own)}, not both"
            )
    return vary


def draw_materials(vary: dict[str, float] | None, rng: np.random.Generator) -> Materials:
    """One shot's factors: nothing is drawn without ``vary`` (the stream is untouched);
    the shorthands' uniforms first, as they always were, then each material's own
    only where ``vary`` names one (a shorthands-only stream is as it always was)."""
    if not vary:
        return NOMINAL
    names = SHORTHANDS + (PER_BODY if any(name in vary for name in PER_BODY) else ())
    unit = rng.uniform(-1.0, 1.0, len(names))
    return Materials(
        **{name: 1.0 + vary.get(name, 0.0) * u for name, u in zip(names, unit, strict=True)}
    )
