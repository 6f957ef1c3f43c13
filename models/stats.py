"""Statistics, in one place: binomial intervals (Wilson), when to stop sampling,
paired differences of two designs fired with the same random numbers (Newcombe's
interval, the exact McNemar test), and the correction for testing many spaces at
once (Holm).

Here, below the referee, because its match reports need the Wilson interval as much
as the hit maps do (docs/architecture.md, "The parts"); and so in plain Python and
numpy, like the rest of models/: the binomial sums are written out rather than
taken from SciPy, which the referee does not load.

Assumptions, written once: the shots at one space are independent Bernoulli trials
with one probability P (each shot has its own seed, and a shot starts from the same
settled state whatever came before); spaces are independent of each other; two
designs compared shot by shot were fired with the same per-shot random numbers
(common random numbers), so their outcomes are paired.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

import numpy as np

#: z for two-sided 95 % intervals.
Z_95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_bounds(
    p: float | np.ndarray, trials: float | np.ndarray, z: float = Z_95
) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a proportion ``p`` seen in ``trials`` trials,
    vectorised over both (``trials`` may be fractional: an effective number of trials)."""
    p = np.asarray(p, float)
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return np.maximum(0.0, centre - half), np.minimum(1.0, centre + half)


def binomial_pmf(trials: int, p: float) -> np.ndarray:
    """(trials + 1,) the probabilities of 0, 1, ..., ``trials`` successes in
    ``trials`` independent trials of probability ``p`` (through the log-gamma
    function: no overflow for large ``trials``)."""
    k = np.arange(trials + 1)
    if p <= 0.0 or p >= 1.0:
        return (k == (trials if p >= 1.0 else 0)).astype(float)
    log_choose = np.array(
        [math.lgamma(trials + 1) - math.lgamma(i + 1) - math.lgamma(trials - i + 1) for i in k]
    )
    return np.exp(log_choose + k * math.log(p) + (trials - k) * math.log1p(-p))


def wilson_half_width(hits: int, shots: int, z: float = Z_95) -> float:
    """Half the width of the Wilson interval (1.0 with no shots)."""
    low, high = wilson_interval(hits, shots, z)
    return (high - low) / 2


def precision_reached(hits: int, shots: int, precision: float) -> bool:
    """Whether the 95 % Wilson interval of ``hits`` in ``shots`` is within ``±precision``."""
    return shots > 0 and wilson_half_width(hits, shots) <= precision


def sequential_bias(p: float, precision: float, batch: int, cap: int) -> tuple[float, float]:
    """Exact bias and mean sample size of precision-driven sampling at true ``p``.

    Shots are fired in batches of ``batch``; after each batch sampling stops when
    :func:`precision_reached`, or at ``cap`` shots. The stopping time depends on the
    data, so the estimate hits/shots is not exactly unbiased; this sums over every
    path (a dynamic programme over the hit count after each batch).

    Returns
    -------
    (bias, mean_shots) : E[hits/shots] - p, and E[shots].
    """
    alive = np.zeros(cap + 1)
    alive[0] = 1.0
    step = binomial_pmf(batch, p)
    mean_estimate = mean_shots = 0.0
    shots = 0
    while shots < cap:
        size = min(batch, cap - shots)
        pmf = step if size == batch else binomial_pmf(size, p)
        alive = np.convolve(alive, pmf)[: cap + 1]
        shots += size
        hits = np.arange(cap + 1)
        stop = np.array(
            [shots >= cap or precision_reached(int(k), shots, precision) for k in range(shots + 1)]
            + [False] * (cap - shots)
        )
        stopping = np.where(stop, alive, 0.0)
        mean_estimate += float(np.sum(stopping * hits) / shots)
        mean_shots += float(np.sum(stopping)) * shots
        alive = np.where(stop, 0.0, alive)
    return mean_estimate - p, mean_shots


@dataclass(frozen=True)
class PairedDifference:
    """Design B against design A on the same shots at one space.

    ``a_only``: shots that knocked the target out with A and not with B; ``b_only``
    the other way round (the discordant pairs). ``diff`` is P_B - P_A.
    """

    shots: int
    p_a: float
    p_b: float
    diff: float
    diff_ci_low: float
    diff_ci_high: float
    a_only: int
    b_only: int
    p_value: float

    def to_dict(self) -> dict:
        return asdict(self)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar test: under "no difference" each discordant pair is
    equally likely to favour either side, so min(a_only, b_only) is binomial with
    p = 1/2 over the discordant pairs. No discordant pair: p = 1.

    The tail is summed in whole numbers and divided once, so the p-value is the
    exact one rounded to a float (SciPy's ``binom.cdf`` agrees to 2e-14, relatively)."""
    discordant = a_only + b_only
    if discordant == 0:
        return 1.0
    term = tail = 1  # C(discordant, 0), then C(discordant, k) for k = 1 ... min
    for k in range(1, min(a_only, b_only) + 1):
        term = term * (discordant - k + 1) // k
        tail += term
    return min(1.0, 2 * tail / 2**discordant)


def paired_difference(a: np.ndarray, b: np.ndarray, z: float = Z_95) -> PairedDifference:
    """P_B - P_A from paired outcomes: :func:`paired_counts` of the four kinds of pair.

    Parameters
    ----------
    a, b : (n,) bool, the target knocked out by shot i with design A / design B.
    z : the interval's normal quantile (95 % by default).
    """
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("paired outcomes must be two 1-d arrays of one length")
    both, a_only, b_only = int(np.sum(a & b)), int(np.sum(a & ~b)), int(np.sum(~a & b))
    return paired_counts(both, a_only, b_only, len(a) - both - a_only - b_only, z)


def paired_counts(both: int, a_only: int, b_only: int, neither: int, z: float = Z_95):
    """P_B - P_A from the counts of the four kinds of pair, with Newcombe's hybrid
    score interval (his method 10, Statistics in Medicine 17, 1998, 2635-2650) at the
    normal quantile ``z`` and the exact McNemar test."""
    n = both + a_only + b_only + neither
    if n == 0:
        return PairedDifference(0, math.nan, math.nan, 0.0, -1.0, 1.0, 0, 0, 1.0)
    hits_a, hits_b = both + a_only, both + b_only
    p_a, p_b = hits_a / n, hits_b / n
    low_a, high_a = wilson_interval(hits_a, n, z)
    low_b, high_b = wilson_interval(hits_b, n, z)
    margins = (both + a_only) * (neither + b_only) * (both + b_only) * (neither + a_only)
    phi = (both * neither - a_only * b_only) / math.sqrt(margins) if margins else 0.0
    diff = p_b - p_a
    below = math.sqrt(
        max(
            0.0, (p_b - low_b) ** 2 - 2 * phi * (p_b - low_b) * (high_a - p_a) + (high_a - p_a) ** 2
        )
    )
    above = math.sqrt(
        max(
            0.0, (high_b - p_b) ** 2 - 2 * phi * (high_b - p_b) * (p_a - low_a) + (p_a - low_a) ** 2
        )
    )
    return PairedDifference(
        n,
        p_a,
        p_b,
        diff,
        max(-1.0, diff - below),
        min(1.0, diff + above),
        a_only,
        b_only,
        mcnemar_exact(a_only, b_only),
    )


@functools.lru_cache(maxsize=1 << 16)
def tango_interval(a_only: int, b_only: int, pairs: int, z: float = Z_95) -> tuple[float, float]:
    """The score interval of P_B - P_A from ``pairs`` paired outcomes of which
    ``a_only`` knocked the target out with A only and ``b_only`` with B only (Tango,
    Statistics in Medicine 17, 1998, 891-908): every difference that the score test
    with the constrained maximum-likelihood variance does not reject at ``z``.

    Unlike Newcombe's interval it keeps its coverage when the discordant pairs are
    few or none (designs that differ on one shot in twenty): with none it is the
    Wilson-like [-z²/(n + z²), z²/(n + z²)], never a point. Each bound is found by
    bisection, the score falling as the difference tried rises; the same counts come
    back often (a sequential rule's looks, its simulations), so intervals are kept."""
    if pairs == 0:
        return (-1.0, 1.0)
    estimate = (b_only - a_only) / pairs
    edge = 1.0 - 1e-12

    def bound(low: float, high: float, target: float) -> float:
        for _ in range(_BISECTIONS):
            middle = (low + high) / 2
            if _tango_score(a_only, b_only, pairs, middle) > target:
                low = middle
            else:
                high = middle
        return (low + high) / 2

    lower = -1.0 if _tango_score(a_only, b_only, pairs, -edge) <= z else bound(-edge, estimate, z)
    upper = 1.0 if _tango_score(a_only, b_only, pairs, edge) >= -z else bound(estimate, edge, -z)
    return (max(-1.0, lower), min(1.0, upper))


#: Bisection steps of a score interval's bounds (2^-50 of the range: exact to print).
_BISECTIONS = 50


def tango_difference(
    both: int, a_only: int, b_only: int, neither: int, z: float, p_value: float
) -> PairedDifference:
    """P_B - P_A from the counts of the four kinds of pair (``a_only``: the target
    knocked out by A only, and so on) with Tango's score interval at ``z``
    (:func:`tango_interval`) and ``p_value``, the sequential rule's at its look (the
    spaces rule's McNemar, models/sequential.py; the board-mean rule's adjusted over
    its looks, models/mean_rule.py)."""
    pairs = both + a_only + b_only + neither
    low, high = tango_interval(a_only, b_only, pairs, z)
    return PairedDifference(
        pairs,
        (both + a_only) / pairs,
        (both + b_only) / pairs,
        (b_only - a_only) / pairs,
        low,
        high,
        a_only,
        b_only,
        p_value,
    )


def _tango_score(a_only: int, b_only: int, pairs: int, difference: float) -> float:
    """Tango's score statistic for "P_B - P_A = difference": the observed difference
    less the one tried, over its standard error with P(A only) at its maximum
    likelihood under that difference (the root of a quadratic)."""
    n, d = pairs, difference
    b = -a_only - b_only + (2 * n - b_only + a_only) * d
    c = -a_only * d * (1 - d)
    a_rate = (math.sqrt(max(0.0, b * b - 8 * n * c)) - b) / (4 * n)  # P(A only) constrained
    variance = n * (2 * a_rate + d * (1 - d))
    excess = b_only - a_only - n * d
    if variance <= 0.0:
        return 0.0 if excess == 0 else math.copysign(math.inf, excess)
    return excess / math.sqrt(variance)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment: reject where the adjusted p is below alpha, and the
    chance of any false rejection among all the tests stays at most alpha."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def mean_interval(
    means: list[float], variances: list[float], z: float = Z_95
) -> tuple[float, float, float]:
    """The mean of several independent estimates and its normal-approximation interval.

    ``variances`` are the estimates' own sampling variances (p(1-p)/n for a
    proportion); returns ``(mean, low, high)``.
    """
    k = len(means)
    if k == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(np.mean(means))
    half = z * math.sqrt(float(np.sum(variances))) / k
    return (mean, mean - half, mean + half)
