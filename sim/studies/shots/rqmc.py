"""Randomised quasi-Monte Carlo (RQMC): a space's shots from scrambled Sobol points,
with an error estimated from independent scrambles, and when to stop.

P(space) is the integral of a deterministic outcome over the shot's errors: yaw,
pitch (the launcher's and the aimer's Gaussian errors summed: one Gaussian each)
and speed, plus one uniform per ``--vary`` factor. Plain Monte Carlo draws every
shot independently; RQMC spreads the points of each *scramble* evenly over that
space (a scrambled Sobol sequence, the first 2^m points of which are a net), so a
smooth-bordered region is measured with a smaller error for the same shots.

- **Points.** :data:`SCRAMBLES` independent scrambles per space, each seeded from the
  root seed, the space and the scramble's number with numpy's SeedSequence (as
  sim/studies/maps/hitmap.py splits a shot's seed), so the same seed gives the same points
  whatever the design, worker count or order: comparisons stay paired shot for shot.
- **Estimate and interval.** The estimate is the mean of the scrambles' means; its
  95 % interval is Student's t with R - 1 degrees of freedom over the R scramble
  means (their spread guarded by :func:`spread`), each bound kept between two
  Wilson intervals of the same hits: no narrower than at :func:`credit` times the
  shots (the variance reduction credited is never more than that, which keeps an
  interval honest where every scramble saw the same, all hits or none, and the
  scramble means vary by nothing), no wider than at the shots fired (plain Monte
  Carlo's: scrambled Sobol points stratify the errors, measured to do no worse than
  independent shots even on the fence-decided spaces, docs/hitmap.md).
- **Stopping.** Points per scramble start at :data:`FIRST_POINTS` (20 shots, plain
  Monte Carlo's first batch) and grow (:func:`grow`: each scramble's Sobol sequence
  is extended, its earlier points kept) until the interval is within ±precision, or
  the cap. The decision looks at the estimated error, which would bias coverage down
  (stopping where the spread happens to be low); the guard on the spread and the
  credit cap keep coverage at or above 93 % for a nominal 95 %, checked by
  simulation in tests/sim/studies/test_rqmc.py and on the real physics in docs/hitmap.md;
  the ceiling and the small first look keep the shots at or below plain Monte
  Carlo's where RQMC gains nothing.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats
from scipy.stats import qmc

from models.seeds import split_seed
from models.stats import Z_95, PairedDifference, wilson_bounds, wilson_interval
from sim.studies.shots.records import ShotRow

#: Independent scrambles per space: the degrees of freedom of the error (R - 1).
SCRAMBLES = 10
#: Points per scramble at the first look (then :func:`grow`): 20 shots, plain Monte
#: Carlo's first batch, enough where P is near 0 or 1.
FIRST_POINTS = 2
#: The spread guard's assumed rate: the error of twice the points is taken to be at
#: least the first half's over 2^GUARD_RATE (0.5: plain Monte Carlo's rate; 1.5: RQMC's
#: on a smooth border). 1 is the most the coverage test allows: 1.5 under-covers.
GUARD_RATE = 1.0
#: The most variance reduction over plain Monte Carlo an interval is ever credited with.
MAX_CREDIT = 16
#: Distinguishes the scrambles' seeds from the shots' seeds of plain Monte Carlo.
_STREAM = 0x5E0B01
#: Uniforms kept this far from 0 and 1 before the inverse normal CDF (a finite error).
_EDGE = 1e-12


def scramble_seed(root_seed: int, space: tuple[int, int], scramble: int) -> int:
    """The seed of one space's scramble ``scramble``, split from the root seed."""
    return split_seed(root_seed, *space, spawn_key=(_STREAM, scramble))


def scramble_points(seed: int, dims: int, count: int) -> np.ndarray:
    """The first ``count`` points of a scrambled Sobol sequence in ``dims`` dimensions,
    (count, dims) uniforms in (0, 1); the first ``count`` are the same whatever more
    are asked for later."""
    return ScrambleStream(seed, dims).first(count)


class ScrambleStream:
    """One scrambled Sobol sequence (:func:`scramble_points`), drawn as far as it has
    been asked for and extended on demand: a space's looks each ask for a few more
    points, and seeding and scrambling the sequence again at every look cost more
    than its points. The points are the same, bit for bit, however they are drawn
    (a Sobol sequence's next points do not depend on how many were drawn at once)."""

    def __init__(self, seed: int, dims: int):
        self._sobol = qmc.Sobol(dims, scramble=True, seed=np.random.default_rng(seed))
        self.points = np.empty((0, dims))

    def first(self, count: int) -> np.ndarray:
        """The sequence's first ``count`` points, (count, dims) uniforms in (0, 1)."""
        if count > len(self.points):
            with warnings.catch_warnings():  # a count not a power of two is still unbiased
                warnings.simplefilter("ignore", UserWarning)
                more = self._sobol.random(count - len(self.points))
            self.points = np.concatenate([self.points, np.clip(more, _EDGE, 1.0 - _EDGE)])
        return self.points[:count]


def to_deviates(points: np.ndarray) -> np.ndarray:
    """Uniform points as the shot's deviates: the first three columns (yaw, pitch,
    speed) through the inverse normal CDF, standard normals; the others (one per
    ``--vary`` factor) as uniforms on (-1, 1)."""
    out = np.empty_like(points)
    out[:, :3] = stats.norm.ppf(points[:, :3])
    out[:, 3:] = 2.0 * points[:, 3:] - 1.0
    return out


def interval(hits: np.ndarray, z: float = Z_95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimate and 95 % interval from R scrambles of n points each.

    Parameters
    ----------
    hits : (..., R, n) each scramble's outcomes (1 hit, 0 miss) in the order of its
        points (leading axes: independent problems, as the tests' simulations have).

    Returns
    -------
    (estimate, low, high), each of the leading shape. The estimate is the mean of the
    scramble means; the interval is Student's t over them with the spread
    :func:`spread`, each bound kept between the Wilson interval at :func:`credit`
    times the shots (the most precision credited) and the Wilson interval at the
    shots fired (the least: plain Monte Carlo's with as many shots). With one
    scramble: the Wilson interval at the shots fired.
    """
    hits = np.asarray(hits, float)
    scrambles, points = hits.shape[-2:]
    estimate = hits.mean(axis=(-2, -1))
    plain_low, plain_high = wilson_bounds(estimate, scrambles * points, z)
    if scrambles < 2:
        return estimate, plain_low, plain_high
    best_low, best_high = wilson_bounds(estimate, scrambles * points * credit(points, estimate), z)
    first_half = hits[..., : points // 2].mean(axis=-1) if points >= 2 else None
    half = (
        stats.t.ppf(0.975, scrambles - 1)
        * spread(hits.mean(axis=-1), first_half)
        / math.sqrt(scrambles)
    )
    low = np.clip(estimate - half, plain_low, best_low)
    high = np.clip(estimate + half, best_high, plain_high)
    # Wilson's bounds at P = 0 or 1 are 0 or 1 but for rounding: the estimate is held
    return estimate, np.minimum(low, estimate), np.maximum(high, estimate)


def spread(means: np.ndarray, half_means: np.ndarray | None) -> np.ndarray:
    """The standard deviation of the scramble means (..., R) credited: their sample
    standard deviation, or, where larger, that of the means of each scramble's first
    half of its points over 2^:data:`GUARD_RATE` (the error expected from twice the
    points if it falls as N^-GUARD_RATE). Stopping when the spread happens to come
    out low would bias coverage down; the earlier look, made on other points' share,
    guards against it."""
    now = means.std(axis=-1, ddof=1)
    if half_means is None:
        return now
    return np.maximum(now, half_means.std(axis=-1, ddof=1) / 2.0**GUARD_RATE)


def credit(points: int, p) -> np.ndarray:
    """The most variance reduction over plain Monte Carlo an interval from scrambles
    of ``points`` points, estimate ``p``, is credited with: the points per scramble
    expected in the rarer outcome, between 1 and :data:`MAX_CREDIT`. A scramble that
    holds one or two hits (or misses) has a mean of few values and a spread the
    scrambles estimate poorly; the credit grows as that count does."""
    p = np.asarray(p, float)
    return np.clip(points * np.minimum(p, 1.0 - p), 1.0, MAX_CREDIT)


def half_width(hits: np.ndarray) -> np.ndarray:
    """Half the width of :func:`interval`."""
    _, low, high = interval(hits)
    return (high - low) / 2


def next_points(hits: np.ndarray, precision: float | None, cap: int) -> int:
    """Points per scramble to have after a look at the (R, n) ``hits``: n (stop) when
    the interval is within ±precision or ``cap`` points per scramble are reached, else
    :func:`grow` (at most ``cap``)."""
    points = hits.shape[-1]
    if precision is None or points >= cap or half_width(hits) <= precision:
        return points
    return min(grow(points), cap)


def grow(points: int) -> int:
    """The next look's points per scramble: by :data:`FIRST_POINTS` up to eight times
    that, then by a quarter of the largest power of two within: 2, 4, 6, ..., 16, 20,
    24, 28, 32, 40, 48, ... A look is cheap (no shot), so a space stops within about a
    quarter past the shots its precision needs; each step's points are still spread
    over the whole error distribution (consecutive Sobol blocks are nets)."""
    return points + max(FIRST_POINTS, (1 << (points.bit_length() - 1)) // 4)


def plan(shots: int, precision: float | None) -> tuple[int, int, int]:
    """(scrambles, first points, most points per scramble) for a space fired with
    ``shots`` shots, or at most ``shots`` with ``precision``."""
    scrambles = min(SCRAMBLES, shots)
    most = shots // scrambles
    if precision is None:
        return scrambles, most, most
    return scrambles, min(FIRST_POINTS, most), most


#: The 95 % interval of a hit map's shares under each sampler (:func:`proportion`), by
#: the name its file's provenance, its summary and its picture's legend give it.
INTERVALS = {"mc": "Wilson", "rqmc": "Student's t over the RQMC scrambles"}


def provenance(sampler: str) -> dict:
    """What a file made with ``sampler`` records of it: the interval its shares were
    given with (:data:`INTERVALS`); for plain Monte Carlo nothing more (a file without
    ``sampler`` was made so, as every file before there was a choice), for RQMC the
    sampler and the constants of its rule: scrambles, first points, credit cap and
    the spread guard's rate."""
    interval = {"interval": INTERVALS[sampler]}
    if sampler == "mc":
        return interval
    return {
        "sampler": sampler,
        "scrambles": SCRAMBLES,
        "first_points": FIRST_POINTS,
        "max_credit": MAX_CREDIT,
        "guard_rate": GUARD_RATE,
    } | interval


def interval_of(made_by: dict) -> str:
    """The name of the interval of the hit map ``made_by`` describes (its provenance):
    the one it records, or for a file made before files recorded it, its sampler's
    (plain Monte Carlo, Wilson's, where it names none)."""
    return made_by.get("interval") or INTERVALS[made_by.get("sampler") or "mc"]


def by_scramble(rows: Sequence[ShotRow], hit: Callable[[ShotRow], bool]) -> np.ndarray:
    """(R, n): ``hit(row)`` of an RQMC space's shots, by scramble and point."""
    grid = [(row.scramble or 0, row.point or 0) for row in rows]  # an RQMC row has both
    scrambles = 1 + max(k for k, _ in grid)
    out = np.zeros((scrambles, len(rows) // scrambles), bool)
    for row, (k, j) in zip(rows, grid, strict=True):
        out[k, j] = bool(hit(row))
    return out


def proportion(
    rows: Sequence[ShotRow], hit: Callable[[ShotRow], bool]
) -> tuple[float, float, float]:
    """The fraction of a space's shots for which ``hit(row)`` holds, with its 95 %
    interval: RQMC's (:func:`interval`) where the rows name their scramble, else
    Wilson's (plain Monte Carlo)."""
    if rows[0].scramble is None:
        hits = sum(bool(hit(r)) for r in rows)
        low, high = wilson_interval(hits, len(rows))
        return hits / len(rows), low, high
    estimate, scrambles_low, scrambles_high = interval(by_scramble(rows, hit))
    return float(estimate), float(scrambles_low), float(scrambles_high)


def paired_difference(
    rows_a: Sequence[ShotRow], rows_b: Sequence[ShotRow], hit: Callable[[ShotRow], bool]
) -> PairedDifference:
    """P_B - P_A from two designs' RQMC shots at one space (the same points):
    :func:`paired_tables` of ``hit(row)`` by scramble and point."""
    return paired_tables(by_scramble(rows_a, hit), by_scramble(rows_b, hit))


def paired_tables(a: np.ndarray, b: np.ndarray) -> PairedDifference:
    """P_B - P_A from (R, n) outcomes of two designs on the same points: per
    scramble the difference of the means over the points both fired; the estimate is
    their mean, the 95 % interval Student's t with R - 1 degrees of freedom and the
    p-value the t-test's, the spread guarded as :func:`spread` and never credited
    below the paired binomial variance over :func:`credit` (nor 1/N² over it: some
    discordant pair could be missed)."""
    points = min(a.shape[1], b.shape[1])
    a, b = a[:, :points], b[:, :points]
    scrambles, shots = a.shape[0], a.size
    diffs = b.mean(axis=1) - a.mean(axis=1)
    half_diffs = (
        b[:, : points // 2].mean(axis=1) - a[:, : points // 2].mean(axis=1) if points >= 2 else None
    )
    a_only, b_only = int(np.sum(a & ~b)), int(np.sum(~a & b))
    binomial = (a_only + b_only - (a_only - b_only) ** 2 / shots) / shots**2
    floor = max(binomial, 1.0 / shots**2) / float(credit(points, (a_only + b_only) / shots))
    sd = max(
        float(spread(diffs, half_diffs)) if scrambles > 1 else 0.0, math.sqrt(scrambles * floor)
    )
    diff = float(diffs.mean())
    dof = max(1, scrambles - 1)
    half = stats.t.ppf(0.975, dof) * sd / math.sqrt(scrambles)
    t_stat = diff / (sd / math.sqrt(scrambles))
    p_value = 1.0 if a_only + b_only == 0 else float(2 * stats.t.sf(abs(t_stat), dof))
    return PairedDifference(
        shots,
        float(a.mean()),
        float(b.mean()),
        diff,
        max(-1.0, diff - half),
        min(1.0, diff + half),
        a_only,
        b_only,
        p_value,
    )
