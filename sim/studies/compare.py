"""Paired design comparisons: two designs fired with the same shots.

Every shot's random numbers (the launcher's spread, the aimer's error, the
physical parameters under ``--vary``) come from its seed, and the seeds depend only
on the root seed, the space and the shot's number, never on the design. So shot i
at a space is the *same* shot for design A and design B — common random numbers —
and the two outcomes form a pair. Pairs make a difference visible with far fewer
shots than two independent hit maps: a shot that both designs hit or both miss
says nothing about the difference, and the test looks only at the discordant ones.

Per space: P_A, P_B, the difference P_B - P_A with Newcombe's paired interval and
the exact McNemar test (models/stats.py) for plain Monte Carlo; with the RQMC
sampler the designs share every scramble's points, and the difference's interval
and p-value come from the per-scramble differences (Student's t,
sim/studies/rqmc.py); then Holm's correction over all the
spaces compared, so that the chance of calling any space different when no space
is stays at most 5 %. With ``precision`` the two hit maps may stop after
different numbers of shots at a space; the pairs are the shots both fired (with
RQMC: the points both fired in every scramble).

With the sequential paired rule (``design compare``'s default, sim/studies/paired.py)
the pairs were fired together and each space stopped when its question was
answered; its row is the rule's last look (Tango's interval at the looks' level,
the space's p-value over its looks, why it stopped: models/sequential.py), Holm's
correction then taken over the spaces' p-values as above.

**The verdict** leads with the question "is B better?": the mean of P_B - P_A over
the spaces both designs reach, with its interval, detectably above or below 0 or
not (and, given δ, whether it lies within ±δ); then the spaces, one count each.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from models.sequential import PairedRule
from models.stats import Z_95, PairedDifference, holm, mean_interval, paired_difference
from sim.studies import paired, rqmc, verdict_words
from sim.studies.dead_zones import FEW_SHOTS
from sim.studies.records import ComparisonRow, ShotRow, SpaceShots

#: Family-wise error rate of the per-space tests.
ALPHA = 0.05


@dataclass(frozen=True)
class Comparison:
    """Design B against design A, space by space (``spaces``: one row per space),
    and on average over the spaces both reach (``mean_diff``: mean, low, high).
    ``rule``: "paired" (sequential, with δ ``delta``) or "per-map"."""

    design_a: str
    design_b: str
    spaces: list[ComparisonRow]
    verdict: str
    mean_diff: tuple  # (mean of P_B - P_A over spaces in reach of both, low, high)
    rule: str = "per-map"
    delta: float | None = None

    @property
    def on_average(self) -> str | None:
        """The board-mean verdict: "more" or "fewer" when the interval of the mean
        difference lies above or below 0, "within_delta" when it lies within ±δ,
        "not_detectable" otherwise; None with no space in reach of both."""
        return mean_verdict(self.mean_diff, self.delta)

    def to_dict(self) -> dict:
        """As JSON: a difference that cannot be estimated is null, with the reason."""
        low_high = [_rounded(v) for v in self.mean_diff]
        why = (
            None
            if low_high[0] is not None
            else (f"no selected space is in reach of both {self.design_a} and {self.design_b}")
        )
        out = {
            "design_a": self.design_a,
            "design_b": self.design_b,
            "verdict": self.verdict,
            "on_average": self.on_average,
            "mean_diff": low_high[0],
            "mean_diff_ci": low_high[1:],
            "null_reason": why,
            "alpha": ALPHA,
            "correction": "holm",
            "rule": self.rule,
            "spaces": [r.to_dict() for r in self.spaces],
        }
        if self.rule == "paired":
            out["delta"] = self.delta
            out["space_counts"] = space_counts(self.spaces)
        return out


def outcomes(part: SpaceShots) -> np.ndarray:
    """(n,) bool: shot by shot, whether the target was knocked out."""
    return np.array([r.target_knocked for r in part.shots], dtype=bool)


def compare_parts(
    name_a: str,
    name_b: str,
    parts_a: list[SpaceShots],
    parts_b: list[SpaceShots],
    rule: PairedRule | None = None,
) -> Comparison:
    """Compare two hit maps of the same spaces, fired with the same seeds: as two
    maps each measured on its own, or, given the paired ``rule``, as that rule fired
    them (sim/studies/paired.py)."""
    pairs: list[tuple[SpaceShots, SpaceShots, PairedDifference | None]] = []
    stops: list[str | None] = []
    for a, b in zip(parts_a, parts_b, strict=True):
        if a.space != b.space:
            raise ValueError("the two hit maps measure other spaces")
        if not (a.reachable and b.reachable):
            pairs.append((a, b, None))
            stops.append(None)
        elif rule is None:
            pairs.append((a, b, pair(a, b)))
            stops.append(None)
        else:
            looked = paired.replay(rule, a, b)
            pairs.append((a, b, dataclasses.replace(looked.last, p_value=looked.p_value)))
            stops.append(looked.stop)
    adjusted = iter(holm([d.p_value for _, _, d in pairs if d is not None]))
    rows = [
        _comparison_row(a, b, d, None if d is None else next(adjusted), stop)
        for (a, b, d), stop in zip(pairs, stops, strict=True)
    ]
    tested = [(r, r.diff) for r in rows if r.diff is not None]
    mean = mean_interval([diff for _, diff in tested], [_paired_variance(r) for r, _ in tested])
    delta = None if rule is None else rule.delta
    sequential = rule is not None
    return Comparison(
        name_a,
        name_b,
        rows,
        verdict_line(name_a, name_b, rows, mean, delta, sequential),
        mean,
        "paired" if sequential else "per-map",
        delta,
    )


def _comparison_row(
    a: SpaceShots,
    b: SpaceShots,
    d: PairedDifference | None,
    adjusted: float | None,
    stop: str | None = None,
) -> ComparisonRow:
    """One space's row: the paired difference ``d`` (None where a design does not
    reach) with its Holm-adjusted p-value, every figure rounded as written, and why
    the paired rule stopped there (None for two maps measured on their own)."""
    if d is None:
        return ComparisonRow(
            space=a.space,
            reachable_a=a.reachable,
            reachable_b=b.reachable,
            shots=0,
            p_a=_p(a),
            p_b=_p(b),
            diff=None,
            diff_ci_low=None,
            diff_ci_high=None,
            a_only=0,
            b_only=0,
            p_value=None,
            p_value_adjusted=None,
            significant=False,
        )
    p_adjusted = _rounded(adjusted)
    return ComparisonRow(
        space=a.space,
        reachable_a=a.reachable,
        reachable_b=b.reachable,
        **{k: _rounded(v) for k, v in d.to_dict().items()},
        p_value_adjusted=p_adjusted,
        significant=p_adjusted is not None and p_adjusted < ALPHA,
        stop=stop,
    )


def pair(a: SpaceShots, b: SpaceShots):
    """One space's paired difference: per scramble with RQMC (its rows name their
    scramble: sim/studies/rqmc.py), else Newcombe's interval and McNemar's test over
    the shots both fired."""
    if a.rqmc:
        return rqmc.paired_difference(a.shots, b.shots, _target_knocked)
    shots = min(len(a.shots), len(b.shots))
    return paired_difference(outcomes(a)[:shots], outcomes(b)[:shots])


def _target_knocked(row: ShotRow) -> bool:
    return row.target_knocked


def mean_verdict(mean_diff: tuple, delta: float | None) -> str | None:
    """What the mean difference's interval says (see :attr:`Comparison.on_average`)."""
    mean, low, high = mean_diff
    if mean is None or math.isnan(mean):
        return None
    if low > 0:
        return "more"
    if high < 0:
        return "fewer"
    if delta is not None and -delta <= low and high <= delta:
        return "within_delta"
    return "not_detectable"


def space_counts(rows: list[ComparisonRow]) -> dict[str, int]:
    """The spaces by what the comparison says of each: B knocks out more, fewer,
    within ±δ (the paired rule's equivalent spaces that are not significant),
    undecided (the rest in reach of both), and where only one design reaches."""
    counts = {"more": 0, "fewer": 0, "within_delta": 0, "undecided": 0, "only_a": 0, "only_b": 0}
    for r in rows:
        if r.diff is None:
            if r.reachable_a != r.reachable_b:
                counts["only_a" if r.reachable_a else "only_b"] += 1
        elif r.significant:
            counts["more" if r.diff > 0 else "fewer"] += 1
        elif r.stop == "equivalent":
            counts["within_delta"] += 1
        else:
            counts["undecided"] += 1
    return counts


def verdict_line(
    name_a: str,
    name_b: str,
    rows: list[ComparisonRow],
    mean_diff: tuple,
    delta: float | None = None,
    sequential: bool = False,
) -> str:
    """One sentence, the board mean first: whether B knocks out more or fewer than A
    on average over the spaces both reach (the mean difference and its interval),
    then on how many spaces B knocks out more, fewer, or no detectably different
    (the paired rule: within ±δ, or undecided at the cap), and where only one of the
    two reaches (sim/studies/verdict_words.py: the map and the page say the same)."""
    mean = verdict_words.board_mean(
        name_a, name_b, mean_verdict(mean_diff, delta), mean_diff, delta
    )
    spaces = verdict_words.spaces_line(
        name_a, name_b, space_counts(rows), "paired" if sequential else "per-map", delta
    )
    return f"{mean}; {spaces[0].lower()}{spaces[1:]}"


def summary(design: str, parts: list[SpaceShots]) -> dict:
    """One design's figures with intervals: mean P over the spaces in reach (normal
    interval over independent spaces), and the worst space with its Wilson interval
    (the interval of that space alone: picking the minimum of many estimates biases
    it low, more so with few shots)."""
    reachable = [c for c in parts if c.reachable and c.shots]
    estimates = [rqmc.proportion(c.shots, _target_knocked) for c in reachable]
    ps = [p for p, _, _ in estimates]
    variances = [_variance(c, e) for c, e in zip(reachable, estimates, strict=True)]
    mean, low, high = mean_interval(ps, variances)
    if reachable:  # a probability's interval stays within [0, 1], with few shots too
        low, high = max(low, 0.0), min(high, 1.0)
    out = {
        "design": design,
        "spaces": len(parts),
        "in_reach": len(reachable),
        "mean_p_target": _rounded(mean),
        "mean_p_target_ci": [_rounded(low), _rounded(high)],
        "worst_space": None,
        "worst_p_target": None,
        "worst_p_target_ci": [None, None],
        "worst_shots": None,
        "worst_few_shots": False,
        "null_reason": None if reachable else "no selected space is in reach of this design",
    }
    if reachable:
        index = int(np.argmin(ps))
        n = len(reachable[index].shots)
        out.update(
            {
                "worst_space": reachable[index].space,
                "worst_p_target": _rounded(ps[index]),
                "worst_p_target_ci": [_rounded(v) for v in estimates[index][1:]],
                "worst_shots": n,
                "worst_few_shots": n < FEW_SHOTS,
            }
        )
    return out


def _variance(part: SpaceShots, estimate: tuple) -> float:
    """A space's estimate's sampling variance: p(1-p)/n for plain Monte Carlo; for
    RQMC, from its interval's half-width."""
    p, low, high = estimate
    if part.rqmc:
        return ((high - low) / (2 * Z_95)) ** 2
    return p * (1 - p) / len(part.shots)


def _paired_variance(row: ComparisonRow) -> float:
    """Sampling variance of one space's paired difference, (b + c - (b - c)^2 / n) / n^2;
    with the paired rule never below one discordant pair's 1 / n^2 (a space whose pairs
    all agreed could still differ by about that; the per-map rule keeps its figures
    as they were)."""
    n, b, c = row.shots, row.a_only, row.b_only
    if not n:
        return 0.0
    variance = b + c - (b - c) ** 2 / n
    return (variance if row.stop is None else max(variance, 1.0)) / n**2


def _p(part: SpaceShots) -> float | None:
    return _rounded(float(np.mean(outcomes(part)))) if part.reachable and part.shots else None


def _rounded(value):
    if value is None or isinstance(value, bool | int):
        return value
    return None if math.isnan(value) else round(float(value), 6)


def study_title(made_by: dict) -> str:
    """What made a study, in one line: the aimer, ``--vary``, the precision (or the
    shots a space), the sampler (plain Monte Carlo where the provenance names none)
    and the seed."""
    vary = ", ".join(f"{k} ±{100 * v:g} %" for k, v in (made_by.get("vary") or {}).items())
    precision = made_by.get("precision")
    sampling = (
        f"to ±{precision:g} (at most {made_by['shots_cap']} shots a space)"
        if precision
        else f"{made_by['shots_cap']} shots a space"
    )
    sampler = made_by.get("sampler") or "mc"
    sampler = {"rqmc": "randomised quasi-Monte Carlo", "mc": "plain Monte Carlo"}.get(
        sampler, sampler
    )
    return (
        f"{made_by['aimer']} aiming, vary {vary or 'none'}, {sampling}, {sampler}, "
        f"seed {made_by['seed']}"
    )
