"""Which guesses matter: how much each ``--vary`` factor moves the board's P, read
from a hit map's own shots (no shot fired for it).

A ``--vary`` hit map's every shot drew its own factor for each guessed parameter
(sim/physics/materials.py), uniformly and independently; its row keeps its seed (or
its RQMC scramble and point), from which the factors are drawn again here
(:func:`sim.physics.noise.materials_of`). Each shot's outcome (target knocked out
or not) is then regressed on its factors.

- **The model.** A linear probability model with one intercept per space (space
  fixed effects): P(knocked | space s, u) = a_s + sum_j b_j u_j, u_j the shot's
  uniform on (-1, 1) (factor 1 + half_j u_j). Each shot is weighted 1 / (its
  space's shots), so every space in reach counts alike, as in the board mean: b_j
  is the board mean's slope in u_j. Its change for +10 % of parameter j is
  b_j 0.1 / half_j.
- **The share.** Under that model the board mean's variance over the guesses'
  ranges is sum_j b_j^2 / 3 (Var u = 1/3), and parameter j's first-order index
  (its share of it) is b_j^2 / sum_k b_k^2. ``board_sd`` is its square root: how
  far, one standard deviation, the guesses together move the board mean.
- **Intervals.** 95 % percentile intervals from a bootstrap of the shots,
  resampled within each space (:data:`BOOTSTRAP` replicates, a fixed seed: the same
  shots give the same figures).
- **Assumptions.** The factors uniform and independent (as ``--vary`` draws them);
  P linear in them over the range (the slope is then the average one: a curved
  response is reported by its straight-line part); shots independent (RQMC's
  points are not, and spread more evenly than independent ones: the intervals are
  then, if anything, too wide). A share estimated from squared slopes is biased
  upward for a parameter that does nothing (its interval then reaches 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from models.errors import InputError
from models.grid import parse_space_name
from sim.physics.materials import VARIABLE
from sim.physics.noise import materials_of
from sim.studies.shots.records import SpaceShots
from sim.studies.shots.space_shots import SweepSpec, row_draws

#: Bootstrap replicates behind each interval.
BOOTSTRAP = 400
#: The bootstrap's own seed (the figures depend only on the shots).
BOOTSTRAP_SEED = 20250
#: Shots needed per factor (and intercept) before the slopes are estimated.
SHOTS_PER_FACTOR = 20
#: The change the effects are given for: +10 % of the parameter.
STEP = 0.1

#: How each parameter is named in a table.
LABELS = {
    "friction": "friction (every body)",
    "restitution": "restitution (every body)",
    "mass": "piggy mass",
} | {name: name.replace("_", " ") for name in VARIABLE[3:]}


@dataclass(frozen=True)
class ShotDraws:
    """A ``--vary`` hit map's shots in reach as the estimate reads them: the factors
    varied (``names``, with their half-ranges), each shot's uniforms (``units``,
    (n, k): factor = 1 + half * unit), whether it knocked its target out, and its
    space (an index)."""

    names: tuple[str, ...]
    half_ranges: tuple[float, ...]
    units: np.ndarray
    knocked: np.ndarray
    space: np.ndarray


def varied(vary: dict | None) -> tuple[str, ...]:
    """The factors a ``--vary`` moves (half-range above 0), in their drawing order."""
    return tuple(name for name in VARIABLE if (vary or {}).get(name))


def draws_of(spec: SweepSpec, parts: Iterable[SpaceShots]) -> ShotDraws:
    """Every shot's factors, drawn again from its row, and its outcome."""
    names = varied(spec.vary)
    halves = np.array([spec.vary[n] for n in names])
    units: list[list[float]] = []
    knocked: list[bool] = []
    space: list[int] = []
    for index, part in enumerate(p for p in parts if p.shots):
        where = parse_space_name(part.space)
        for row in part.shots:
            materials = materials_of(*row_draws(spec, where, row), spec.vary)
            units.append([getattr(materials, n) for n in names])
            knocked.append(row.target_knocked)
            space.append(index)
    factors = np.array(units, dtype=float).reshape(len(units), len(names))
    return ShotDraws(
        names,
        tuple(float(h) for h in halves),
        (factors - 1.0) / halves,
        np.array(knocked, dtype=float),
        np.array(space, dtype=int),
    )


@dataclass(frozen=True)
class Effect:
    """One parameter: the board mean's change for +10 % of it, and its share of the
    board mean's variance over the guesses' ranges, each with its 95 % interval."""

    name: str
    half_range: float
    per_step: float
    per_step_ci: tuple[float, float]
    share: float
    share_ci: tuple[float, float]

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)

    @property
    def clear(self) -> bool:
        """Whether its interval leaves out no effect at all."""
        low, high = self.per_step_ci
        return low > 0 or high < 0

    def to_dict(self) -> dict:
        return {
            "parameter": self.name,
            "half_range": self.half_range,
            "per_10_percent": round(self.per_step, 5),
            "per_10_percent_ci": [round(v, 5) for v in self.per_step_ci],
            "share": round(self.share, 4),
            "share_ci": [round(v, 4) for v in self.share_ci],
        }

    @classmethod
    def from_dict(cls, d: dict) -> Effect:
        """An effect as :meth:`to_dict` wrote it (a report's contents, a summary)."""
        return cls(
            d["parameter"],
            d["half_range"],
            d["per_10_percent"],
            tuple(d["per_10_percent_ci"]),
            d["share"],
            tuple(d["share_ci"]),
        )


@dataclass(frozen=True)
class Sensitivity:
    """Which guesses matter, most first (by share), from ``shots`` shots at ``spaces``
    spaces; ``board_sd``: how far the guesses together move the board mean (1 sd)."""

    effects: tuple[Effect, ...]
    shots: int
    spaces: int
    board_sd: float
    board_sd_ci: tuple[float, float]

    def to_dict(self) -> dict:
        return {
            "effects": [e.to_dict() for e in self.effects],
            "shots": self.shots,
            "spaces": self.spaces,
            "board_sd": round(self.board_sd, 5),
            "board_sd_ci": [round(v, 5) for v in self.board_sd_ci],
            "model": "linear probability, space fixed effects, each space weighted alike",
            "intervals": f"95 % bootstrap of the shots within spaces, {BOOTSTRAP} replicates",
        }

    @classmethod
    def from_dict(cls, d: dict) -> Sensitivity:
        """The figures as :meth:`to_dict` wrote them."""
        return cls(
            tuple(Effect.from_dict(e) for e in d["effects"]),
            d["shots"],
            d["spaces"],
            d["board_sd"],
            tuple(d["board_sd_ci"]),
        )

    def lines(self) -> list[str]:
        """The table in words."""
        low, high = self.board_sd_ci
        out = [
            f"Which guesses matter ({self.shots:,} shots at {self.spaces} spaces; "
            "95 % intervals; linear in the factors, shots independent):",
            f"  {'parameter':26} {'range':>7}  {'board mean, +10 %':>26}  "
            f"{'share of the variance':>22}",
        ]
        for e in self.effects:
            p_low, p_high = e.per_step_ci
            s_low, s_high = e.share_ci
            out.append(
                f"  {e.label:26} {f'±{100 * e.half_range:g} %':>7}  "
                f"{f'{e.per_step:+.3f} [{p_low:+.3f}, {p_high:+.3f}]':>26}  "
                f"{f'{100 * e.share:.0f} % [{100 * s_low:.0f}, {100 * s_high:.0f}]':>22}"
            )
        out.append(
            f"  together the guesses move the board mean by ±{self.board_sd:.3f} "
            f"[{low:.3f}, {high:.3f}] (1 sd over their ranges)"
        )
        return out


def estimate(draws: ShotDraws) -> Sensitivity:
    """Each parameter's effect on the board mean and share of its variance (module
    docstring), with bootstrap intervals."""
    n, k = draws.units.shape
    if k == 0:
        raise InputError("which guesses matter needs --vary with some half-range above 0")
    if n < SHOTS_PER_FACTOR * (k + 1):
        raise InputError(
            f"{n} shots in reach are too few to tell {k} guesses apart: the estimate "
            f"needs at least {SHOTS_PER_FACTOR * (k + 1)} (raise --shots or --spaces)"
        )
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    spaces = [np.flatnonzero(draws.space == s) for s in np.unique(draws.space)]
    ones = [_moments(draws.units[i], draws.knocked[i], np.ones((1, len(i)))) for i in spaces]
    slopes = _slopes(ones)[0]
    replicates = _slopes(
        [_moments(draws.units[i], draws.knocked[i], _resampled(rng, len(i))) for i in spaces]
    )
    per_step = STEP / np.array(draws.half_ranges)
    shares, board_sd = _shares(slopes), float(np.sqrt(np.sum(slopes**2) / 3))
    rep_shares = np.array([_shares(r) for r in replicates])
    rep_sd = np.sqrt(np.sum(replicates**2, axis=1) / 3)
    effects = [
        Effect(
            name,
            draws.half_ranges[j],
            float(slopes[j] * per_step[j]),
            _interval(replicates[:, j] * per_step[j]),
            float(shares[j]),
            _interval(rep_shares[:, j]),
        )
        for j, name in enumerate(draws.names)
    ]
    effects.sort(key=lambda e: -e.share)
    return Sensitivity(tuple(effects), n, len(spaces), board_sd, _interval(rep_sd))


def _moments(units: np.ndarray, knocked: np.ndarray, counts: np.ndarray) -> tuple:
    """One space's within-space cross-products, one set per row of ``counts`` (each
    shot's weight in a replicate), divided by its shots (each space weighted alike):
    (r, k, k) of the factors, (r, k) of the factors with the outcome."""
    n, k = units.shape
    total = counts.sum(axis=1)[:, None]
    x_sum, y_sum = counts @ units, counts @ knocked
    xx = (counts @ (units[:, :, None] * units[:, None, :]).reshape(n, k * k)).reshape(-1, k, k)
    xy = counts @ (units * knocked[:, None])
    xx = xx - np.einsum("rj,rl->rjl", x_sum, x_sum) / total[:, :, None]
    xy = xy - x_sum * (y_sum[:, None] / total)
    return xx / n, xy / n


def _resampled(rng: np.random.Generator, n: int) -> np.ndarray:
    """(BOOTSTRAP, n): how many times each of a space's ``n`` shots is drawn, with
    replacement, in each replicate (the same moments are then weighted by it)."""
    picks = rng.integers(0, n, (BOOTSTRAP, n)) + n * np.arange(BOOTSTRAP)[:, None]
    return np.bincount(picks.ravel(), minlength=BOOTSTRAP * n).reshape(BOOTSTRAP, n).astype(float)


def _slopes(moments: list[tuple]) -> np.ndarray:
    """The weighted within-space least-squares slopes of the outcome on the uniforms,
    one row per replicate, from every space's moments."""
    xx = sum(m[0] for m in moments)
    xy = sum(m[1] for m in moments)
    return np.linalg.solve(xx, xy[..., None])[..., 0]


def _shares(slopes: np.ndarray) -> np.ndarray:
    squares = slopes**2
    total = squares.sum()
    return squares / total if total > 0 else np.zeros_like(squares)


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def sensitivity_of(spec: SweepSpec, parts: Iterable[SpaceShots]) -> Sensitivity:
    """Which guesses matter, from a ``--vary`` hit map's parts."""
    return estimate(draws_of(spec, parts))
