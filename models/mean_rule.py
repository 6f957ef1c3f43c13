"""The board-mean rule: when to stop firing two designs' paired shots over a whole
board, the question being "is B better on average?", with its error rates kept
over many looks.

Two designs fire the same shots (common random numbers) at every space of the
board, the same number of pairs at each space. The **board mean** is the
equal-weight mean over the m spaces both designs reach of each space's paired
difference d_i = (b_i - c_i) / n_i (b_i: pairs only B knocked the target out in,
c_i: only A; n_i pairs). After each look it stops as soon as

- ``sign``: the mean's interval lies above 0 or below 0;
- ``equivalent``: it lies within ±δ (no mean difference of δ or more);
- ``cap``: the most pairs a space (neither of the above holds there).

**Looks.** The first at :data:`FIRST_PAIRS` pairs a space (at least
:data:`FIRST_BOARD_PAIRS` over the board, so that a few spaces get more), then twice
as many each time, and at the cap: at most K looks, all fixed before any shot.
Pairs come in whole rounds (a point of every RQMC scramble, or one shot).

**The interval.** mean ± z sqrt(V) with z the normal quantile at 1 - alpha/(2K):
Bonferroni over the K looks, so the intervals of all the looks hold the true mean
together with probability at least 1 - alpha, and the one reported, at whichever
look the rule stopped (or a budget cut it short), does too. V bounds the mean's
variance: a space's paired difference has variance (π_i - δ_i²) / n_i ≤ π_i / n_i
(π_i its share of discordant pairs), and the m spaces are independent, so
V = Σ (b_i + c_i + z² / m) / n_i² / m²: each space's discordant pairs (unbiased for
π_i n_i, so their sum over the board is well estimated even where a space has
none), plus z² pseudo-discordant pairs spread over the board, which keeps the
interval honest when the whole board has only a few discordant pairs (a Poisson
count of 0 whose mean is 3 would otherwise give an interval of width 0).

**Spaces.** At the look where the mean stops, a space's sign is decided at the
family-wise level over spaces and looks: its exact McNemar p-value times K (the
look was chosen by the data), then Holm over the spaces; its interval is Tango's at
the looks' confidence 1 - alpha/K. The rest are not decided at this budget.

Assumptions, written once: pairs independent (plain Monte Carlo) or, with RQMC's
points, a paired difference that varies no more than over independent pairs
(measured on the stock board: docs/hitmap.md); spaces independent of each other;
the mean of m independent paired differences near normal once the board holds
:data:`FIRST_BOARD_PAIRS` pairs (the pseudo-pairs cover the few-discordant tail).

**Checking it.** :func:`simulate` runs a rule on synthetic boards (no physics) and
:func:`error_rates` reads its false flags and coverage: tests/models/test_mean_rule.py
holds this rule to them on realistic boards, and shows that the same rule testing
every look at 95 % without the correction fails.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from models.stats import PairedDifference, holm, mcnemar_exact, tango_difference

#: The family-wise error rate of the flags, and one minus the intervals' coverage.
ALPHA = 0.05
#: Pairs a space at the first look: one point of each of 10 RQMC scrambles.
FIRST_PAIRS = 10
#: Pairs over the board at the first look, at least: the stock board's 68 spaces at
#: 10 pairs, where the rule's coverage is shown; a smaller board takes more a space.
FIRST_BOARD_PAIRS = 680
#: Why the mean stopped (``budget``: the time given ran out before it did).
STOPS = ("sign", "equivalent", "cap", "budget")


@dataclass(frozen=True)
class BoardMean:
    """The board mean after a look: its value, interval and the pairs a space."""

    mean: float
    low: float
    high: float
    pairs: int


@dataclass(frozen=True)
class MeanRule:
    """The board-mean rule for ``spaces`` spaces. ``cap``: the most pairs a space;
    ``delta``: δ of the mean (None: no stop as equivalent); ``streams``: pairs come
    this many at a time (an RQMC sweep's scrambles; 1 for plain Monte Carlo);
    ``first``, ``board_first``: the first look's pairs a space and over the board,
    at least."""

    cap: int
    delta: float | None
    spaces: int = 1
    streams: int = 1
    alpha: float = ALPHA
    first: int = FIRST_PAIRS
    board_first: int = FIRST_BOARD_PAIRS

    def looks(self) -> tuple[int, ...]:
        """The pairs a space at each look, in order (the last is the cap)."""
        wanted = max(self.first, math.ceil(self.board_first / max(self.spaces, 1)))
        pairs = self.streams * math.ceil(wanted / self.streams)
        out: list[int] = []
        while pairs < self.cap:
            out.append(pairs)
            pairs *= 2
        return (*out, self.cap)

    @functools.cached_property
    def z(self) -> float:
        """The normal quantile of every look's intervals: confidence 1 - alpha/K."""
        return NormalDist().inv_cdf(1.0 - self.alpha / (2 * len(self.looks())))

    def mean(self, counts: np.ndarray) -> BoardMean:
        """The board mean from each space's counts at a look, (m, 4): (both, A only,
        B only, neither)."""
        counts = np.asarray(counts, dtype=float)
        pairs = counts.sum(axis=1)
        a_only, b_only = counts[:, 1], counts[:, 2]
        m = len(counts)
        mean = float(np.mean((b_only - a_only) / pairs))
        variance = float(np.sum((a_only + b_only + self.z**2 / m) / pairs**2)) / m**2
        half = self.z * math.sqrt(variance)
        return BoardMean(mean, mean - half, mean + half, int(pairs.min()))

    def stop(self, at: BoardMean) -> str | None:
        """Why the rule stops after the look ``at``, or None to fire on."""
        if at.low > 0 or at.high < 0:
            return "sign"
        if self.delta is not None and -self.delta <= at.low <= at.high <= self.delta:
            return "equivalent"
        if at.pairs >= self.cap:
            return "cap"
        return None

    def p_value(self, a_only: int, b_only: int) -> float:
        """A space's p-value over the looks: McNemar's exact, times K (the look was
        chosen by the data)."""
        return min(1.0, len(self.looks()) * mcnemar_exact(a_only, b_only))

    def space(self, both: int, a_only: int, b_only: int, neither: int) -> PairedDifference:
        """One space at the stopping look: its difference, Tango's interval at
        :attr:`z` and its :meth:`p_value`."""
        p_value = self.p_value(a_only, b_only)
        return tango_difference(both, a_only, b_only, neither, self.z, p_value)


# --- checking a rule by simulation ----------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """One simulated comparison: why the mean stopped, its last look, and which spaces
    were flagged with which sign (+1, -1; 0 not flagged: Holm at :data:`ALPHA`)."""

    stop: str
    mean: BoardMean
    flags: tuple[int, ...]


def board_chances(p_a: np.ndarray, discordant: np.ndarray, diffs: np.ndarray) -> np.ndarray:
    """(m, 4): each space's chances of a pair being (both, A only, B only, neither),
    for designs at P_A and P_A + diff disagreeing on ``discordant`` of the pairs."""
    a_only, b_only = (discordant - diffs) / 2, (discordant + diffs) / 2
    both = p_a - a_only
    return np.stack([both, a_only, b_only, 1.0 - both - a_only - b_only], axis=1)


def simulate(rule, chances: np.ndarray, reps: int, seed: int) -> list[Outcome]:
    """``reps`` comparisons of ``len(chances)`` spaces, each space's pairs independent
    with the chances given (:func:`board_chances`), looked at as ``rule`` looks (any
    object with ``looks``, ``mean``, ``stop`` and ``p_value`` as :class:`MeanRule`).
    A space's flag needs its p-value and sign only, not its interval (Tango's, the
    dearest part of :meth:`MeanRule.space`)."""
    rng = np.random.default_rng(seed)
    between = np.diff(np.array((0, *rule.looks())))
    out = []
    for _ in range(reps):
        counts = np.zeros_like(chances, dtype=np.int64)
        for n in between:
            counts = counts + rng.multinomial(n, chances)
            at = rule.mean(counts)
            stop = rule.stop(at)
            if stop:
                break
        a_only, b_only = counts[:, 1].tolist(), counts[:, 2].tolist()
        adjusted = holm([rule.p_value(a, b) for a, b in zip(a_only, b_only, strict=True)])
        signs = np.sign(counts[:, 2] - counts[:, 1]).tolist()
        flags = tuple(sign if p < ALPHA else 0 for sign, p in zip(signs, adjusted, strict=True))
        out.append(Outcome(stop or "cap", at, flags))
    return out


@dataclass(frozen=True)
class ErrorRates:
    """What a rule's simulated comparisons say: the share whose mean interval holds
    the true mean; whose mean sign was decided wrongly (or at all, where the true
    mean is 0); with any space flagged wrongly (its true difference 0, or the other
    sign); and the pairs a space on average."""

    mean_coverage: float
    mean_false_sign: float
    false_flags: float
    pairs: float


def error_rates(results: list[Outcome], diffs: np.ndarray) -> ErrorRates:
    """The error rates of ``results``, each space's true difference ``diffs``."""
    truth = float(np.mean(diffs))
    signs = np.sign(diffs)
    covered = [r.mean.low <= truth <= r.mean.high for r in results]
    false_sign = [
        r.stop == "sign" and (truth == 0 or (r.mean.low > 0) != (truth > 0)) for r in results
    ]
    false_flags = [
        any(f != 0 and f != s for f, s in zip(r.flags, signs, strict=True)) for r in results
    ]
    return ErrorRates(
        float(np.mean(covered)),
        float(np.mean(false_sign)),
        float(np.mean(false_flags)),
        float(np.mean([r.mean.pairs for r in results])),
    )
