"""The sequential paired rule: when to stop firing two designs' paired shots at a
space, looking at them many times, with its error rates kept.

Two designs fire the same shots at a space (common random numbers: each shot is a
pair of outcomes). After each look at the pairs so far, the space stops as soon as
its question is answered:

- ``sign``: the difference's sign is decided at the family-wise level the report
  uses: this look's exact McNemar p-value is at most alpha / (m K), m the spaces
  compared together and K the most looks a space can take (Bonferroni over both);
- ``equivalent``: no difference of δ or more: this look's interval lies within ±δ;
- ``cap``: the most pairs (``undecided`` when neither of the above holds there).

**Looks.** At :data:`FIRST_LOOK` pairs, then at twice as many each time, and at the
cap: at most K looks, all fixed before any shot (never chosen from the data). Pairs
come in rounds (a point of every RQMC scramble, or one shot), so a look's pairs are
a whole number of rounds.

**Intervals.** Each look's interval of P_B - P_A is Tango's score interval
(models/stats.py: it keeps its coverage with few discordant pairs, where Newcombe's
does not) at confidence 1 - alpha/K. By Bonferroni's inequality the K
looks' intervals all hold the true difference at once with probability at least
1 - alpha, so the interval reported, at whichever look the space stopped, covers it
with at least 95 %; and a space is called equivalent only when that same interval
lies within ±δ.

**p-values.** A space's p-value is K times the smallest of its looks' (at most 1):
valid whatever looks were taken (Bonferroni again), so Holm's correction over the
spaces keeps the family-wise rate at alpha; a space stopped on its sign has a
p-value at most alpha/m, which Holm's first step already rejects.

Assumptions, written once: pairs are independent of each other (plain Monte Carlo)
or, with RQMC's points, the paired difference varies no more than over independent
pairs (measured on the stock board: docs/hitmap.md); spaces are independent of each
other.

**Checking a rule.** :func:`simulate` runs any rule on synthetic comparisons (no
physics) and :func:`false_flag_rate` and :func:`coverage` read its error rates:
tests/models/test_sequential.py holds this rule to them, and shows that a rule
testing at every look without the correction fails; scripts/paired_rule_study.py
prints them with the rule's cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from models.stats import PairedDifference, holm, mcnemar_exact, tango_difference

#: The family-wise error rate of the flags, and one minus the intervals' coverage.
ALPHA = 0.05
#: Pairs at the first look. A difference whose sign could be decided at fewer (15
#: discordant pairs, all one way, for 68 spaces) is one the first look settles anyway.
FIRST_LOOK = 40
#: Why a space stopped (``cap``: at the cap, neither decided nor equivalent).
STOPS = ("sign", "equivalent", "cap")


@dataclass(frozen=True)
class PairedRule:
    """The sequential paired rule for ``spaces`` spaces compared together.

    ``cap``: the most pairs at a space; ``delta``: δ, the smallest difference that
    matters (None: no space stops as equivalent); ``streams``: pairs come this many at
    a time (an RQMC sweep's scrambles; 1 for plain Monte Carlo)."""

    cap: int
    delta: float | None
    spaces: int = 1
    streams: int = 1
    alpha: float = ALPHA
    first: int = FIRST_LOOK

    def looks(self) -> tuple[int, ...]:
        """The pairs at each look, in order (the last is the cap)."""
        out: list[int] = []
        pairs = self.streams * math.ceil(self.first / self.streams)
        while pairs < self.cap:
            out.append(pairs)
            pairs *= 2
        return (*out, self.cap)

    @property
    def z(self) -> float:
        """The normal quantile of every look's interval: confidence 1 - alpha/K."""
        return NormalDist().inv_cdf(1.0 - self.alpha / (2 * len(self.looks())))

    @property
    def flag_level(self) -> float:
        """The p-value at a look at or below which a space's sign is decided."""
        return self.alpha / (self.spaces * len(self.looks()))

    def look(self, both: int, a_only: int, b_only: int, neither: int) -> PairedDifference:
        """The difference after the pairs counted (``a_only``: the target knocked out
        by A only, and so on), with Tango's score interval at :attr:`z` and the exact
        McNemar p-value of this look."""
        p_value = mcnemar_exact(a_only, b_only)
        return tango_difference(both, a_only, b_only, neither, self.z, p_value)

    def stop(self, at: PairedDifference) -> str | None:
        """Why a space stops after the look ``at``, or None to fire on."""
        if at.p_value <= self.flag_level:
            return "sign"
        if (
            self.delta is not None
            and -self.delta <= at.diff_ci_low <= at.diff_ci_high <= self.delta
        ):
            return "equivalent"
        if at.shots >= self.cap:
            return "cap"
        return None

    def p_value(self, p_values: list[float]) -> float:
        """A space's p-value from its looks' (Bonferroni over the K looks)."""
        return min(1.0, len(self.looks()) * min(p_values))


# --- checking a rule by simulation ----------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """One simulated space: why it stopped, its last look, and whether it was flagged
    (Holm over the comparison's spaces at :data:`ALPHA`)."""

    stop: str
    last: PairedDifference
    flagged: bool


def pair_chances(p_a: float, discordant: float, diff: float) -> tuple[float, ...]:
    """The chances of a pair being (both, A only, B only, neither) for designs that
    knock the target out with P_A = ``p_a`` and P_B = P_A + ``diff``, disagreeing on
    ``discordant`` of the pairs."""
    a_only, b_only = (discordant - diff) / 2, (discordant + diff) / 2
    both = p_a - a_only
    return (both, a_only, b_only, 1.0 - both - a_only - b_only)


def simulate(rule: PairedRule, chances: list[tuple[float, ...]], reps: int, seed: int) -> list:
    """``reps`` comparisons of ``len(chances)`` spaces, each space's pairs independent
    with the chances given (:func:`pair_chances`), looked at as ``rule`` looks: per
    comparison, an :class:`Outcome` a space."""
    rng = np.random.default_rng(seed)
    between = np.diff(np.array((0, *rule.looks())))
    out = []
    for _ in range(reps):
        spaces = []
        for space in chances:
            counts = np.cumsum([rng.multinomial(n, space) for n in between], axis=0)
            spaces.append(_run(rule, counts))
        adjusted = holm([p for _, _, p in spaces])
        out.append(
            [
                Outcome(stop, at, p < ALPHA)
                for (stop, at, _), p in zip(spaces, adjusted, strict=True)
            ]
        )
    return out


def _run(rule: PairedRule, counts: np.ndarray) -> tuple[str, PairedDifference, float]:
    """The rule on one space's counts at each look (looks, 4)."""
    p_values = []
    for look in counts:
        at = rule.look(*(int(c) for c in look))
        p_values.append(at.p_value)
        stop = rule.stop(at)
        if stop:
            return stop, at, rule.p_value(p_values)
    return "cap", at, rule.p_value(p_values)


def false_flag_rate(results: list, diffs: list[float]) -> float:
    """The share of comparisons that flag any space wrongly: one where nothing
    differs (``diffs``: each space's true difference), or with the wrong sign."""
    wrong = sum(
        any(
            space.flagged
            and (diff == 0 or math.copysign(1, space.last.diff) != math.copysign(1, diff))
            for space, diff in zip(comparison, diffs, strict=True)
        )
        for comparison in results
    )
    return wrong / len(results)


def coverage(results: list, diffs: list[float], flagged_only: bool = False) -> float:
    """The share of the reported intervals (the flagged spaces' only, with
    ``flagged_only``) that hold the true difference."""
    held = [
        space.last.diff_ci_low <= diff <= space.last.diff_ci_high
        for comparison in results
        for space, diff in zip(comparison, diffs, strict=True)
        if space.flagged or not flagged_only
    ]
    return float(np.mean(held))
