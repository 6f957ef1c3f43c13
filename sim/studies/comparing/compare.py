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
sim/studies/shots/rqmc.py); then Holm's correction over all the
spaces compared, so that the chance of calling any space different when no space
is stays at most 5 %. With ``precision`` the two hit maps may stop after
different numbers of shots at a space; the pairs are the shots both fired (with
RQMC: the points both fired in every scramble).

With the board-mean rule (``design compare``'s default: models/mean_rule.py,
sim/studies/comparing/board_mean.py) the pairs were fired together at every space, look by
look, until the board mean's question was answered; each space's row is its pairs
at that look (Tango's interval at the looks' level, its McNemar p-value times the
looks), Holm's correction taken over the spaces: the spaces not flagged are not
decided (at this precision, the cap or the budget: what stopped the mean). With
the spaces rule (sim/studies/comparing/paired.py) each space stopped when its own
question was answered; its row is the rule's last look (models/sequential.py),
Holm's correction then taken over the spaces' p-values.

**The verdict** leads with the question "is B better?": the mean of P_B - P_A over
the spaces both designs reach, with its interval, detectably above or below 0 or
not (and, given δ, whether it lies within ±δ: then practically the same, whatever
its sign); then the spaces, one count each.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from models.stats import Z_95, PairedDifference, holm, mean_interval, paired_difference
from sim.studies.comparing import board_mean, paired
from sim.studies.comparing.comparison_rule import PER_MAP, ComparisonRule
from sim.studies.comparing.verdict import mean_verdict, space_counts, verdict_line
from sim.studies.shots import rqmc
from sim.studies.shots.dead_zones import FEW_SHOTS
from sim.studies.shots.records import ComparisonRow, ShotRow, SpaceShots

#: Family-wise error rate of the per-space tests.
ALPHA = 0.05


@dataclass(frozen=True)
class Comparison:
    """Design B against design A, space by space (``spaces``: one row per space),
    and on average over the spaces both reach (``mean_diff``: mean, low, high).
    ``rule``: the comparison's (sim/studies/comparing/comparison_rule.py); with the mean rule,
    ``stopped``: why the mean stopped, the looks taken and the pairs a space then."""

    design_a: str
    design_b: str
    spaces: list[ComparisonRow]
    verdict: str
    mean_diff: tuple  # (mean of P_B - P_A over spaces in reach of both, low, high)
    rule: ComparisonRule = PER_MAP
    stopped: MeanStop | None = None

    @property
    def delta(self) -> float | None:
        return self.rule.delta

    @property
    def on_average(self) -> str | None:
        """The board-mean verdict: "more" or "fewer" when the interval of the mean
        difference lies above or below 0, "within_delta" when it lies within ±δ,
        "not_detectable" otherwise; None with no space in reach of both."""
        return mean_verdict(self.mean_diff, self.delta, self.rule.name == "mean")

    @property
    def mean_stop(self) -> str | None:
        """Why the board-mean rule stopped (models/mean_rule.py's ``STOPS``; None under
        another rule): the words of a question it left open say it
        (verdict_words.undecided)."""
        return None if self.stopped is None else self.stopped.stop

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
            "rule": self.rule.name,
            "spaces": [r.to_dict() for r in self.spaces],
        }
        if self.rule.sequential:
            out["delta"] = self.delta
            out["space_counts"] = space_counts(self.spaces)
        if self.stopped is not None:
            out["mean_rule"] = self.stopped.to_dict() | {"budget_s": self.rule.budget_s}
        return out


@dataclass(frozen=True)
class MeanStop:
    """Where the board-mean rule stopped: why (models/mean_rule.py's ``STOPS``), the
    looks taken of those fixed (``looks``), the pairs a space at the last, the shots
    both designs fired, and about how many more pairs a space an undecided mean would
    need (0 when it is decided)."""

    stop: str
    looks_taken: int
    looks: tuple[int, ...]
    pairs: int
    shots: int
    more_pairs: int

    def to_dict(self) -> dict:
        return {
            "stop": self.stop,
            "looks_taken": self.looks_taken,
            "looks": list(self.looks),
            "pairs_a_space": self.pairs,
            "shots": self.shots,
            "more_pairs_a_space_needed": self.more_pairs,
        }


def outcomes(part: SpaceShots) -> np.ndarray:
    """(n,) bool: shot by shot, whether the target was knocked out."""
    return np.array([r.target_knocked for r in part.shots], dtype=bool)


def compare_parts(
    name_a: str,
    name_b: str,
    parts_a: list[SpaceShots],
    parts_b: list[SpaceShots],
    rule: ComparisonRule = PER_MAP,
) -> Comparison:
    """Compare two hit maps of the same spaces, fired with the same seeds: as two
    maps each measured on its own (``per-map``), or as the mean or the spaces rule
    fired them (sim/studies/comparing/board_mean.py, sim/studies/comparing/paired.py)."""
    if rule.mean is not None:
        return _by_the_mean(name_a, name_b, parts_a, parts_b, rule)
    pairs: list[tuple[SpaceShots, SpaceShots, PairedDifference | None]] = []
    stops: list[str | None] = []
    for a, b in zip(parts_a, parts_b, strict=True):
        if a.space != b.space:
            raise ValueError("the two hit maps measure other spaces")
        if not (a.reachable and b.reachable):
            pairs.append((a, b, None))
            stops.append(None)
        elif rule.spaces is None:
            pairs.append((a, b, pair(a, b)))
            stops.append(None)
        else:
            looked = paired.replay(rule.spaces, a, b)
            pairs.append((a, b, dataclasses.replace(looked.last, p_value=looked.p_value)))
            stops.append(looked.stop)
    return _compared(name_a, name_b, pairs, stops, rule)


def _compared(name_a, name_b, pairs, stops, rule, stopped=None, mean=None) -> Comparison:
    """The rows (Holm over the spaces compared), the board mean (``mean``, else the
    mean of the rows' differences with its normal interval) and the verdict."""
    adjusted = iter(holm([d.p_value for _, _, d in pairs if d is not None]))
    rows = [
        _comparison_row(a, b, d, None if d is None else next(adjusted), stop)
        for (a, b, d), stop in zip(pairs, stops, strict=True)
    ]
    if mean is None:
        tested = [(r, r.diff) for r in rows if r.diff is not None]
        variances = [_paired_variance(r) for r, _ in tested]
        mean = mean_interval([diff for _, diff in tested], variances)
    stop = None if stopped is None else stopped.stop
    line = verdict_line(name_a, name_b, rows, mean, rule.delta, rule.name, stop)
    return Comparison(name_a, name_b, rows, line, mean, rule, stopped)


def _by_the_mean(name_a, name_b, parts_a, parts_b, rule: ComparisonRule) -> Comparison:
    """The comparison as the board-mean rule fired it: the mean at its last look, and
    each space's pairs there (models/mean_rule.py's ``space``)."""
    assert rule.mean is not None
    looked = board_mean.replay(rule.mean, parts_a, parts_b)
    pairs = []
    for a, b in zip(parts_a, parts_b, strict=True):
        if a.space != b.space:
            raise ValueError("the two hit maps measure other spaces")
        counts = looked.counts.get(a.space)
        pairs.append((a, b, None if counts is None else rule.mean.space(*counts)))
    if looked.at is None:
        return _compared(name_a, name_b, pairs, [None] * len(pairs), rule, None, _NO_MEAN)
    at = looked.at
    stopped = MeanStop(
        looked.stop,
        looked.looks,
        rule.mean.looks(),
        at.pairs,
        sum(len(p.shots) for p in (*parts_a, *parts_b)),
        0 if looked.stop in ("sign", "equivalent") else board_mean.pairs_needed(at, rule.delta),
    )
    mean = (at.mean, at.low, at.high)
    return _compared(name_a, name_b, pairs, [None] * len(pairs), rule, stopped, mean)


#: The board mean where no space is in reach of both designs.
_NO_MEAN = (float("nan"), float("nan"), float("nan"))


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
    scramble: sim/studies/shots/rqmc.py), else Newcombe's interval and McNemar's test over
    the shots both fired."""
    if a.rqmc:
        return rqmc.paired_difference(a.shots, b.shots, _target_knocked)
    shots = min(len(a.shots), len(b.shots))
    return paired_difference(outcomes(a)[:shots], outcomes(b)[:shots])


def _target_knocked(row: ShotRow) -> bool:
    return row.target_knocked


def summary(design: str, parts: list[SpaceShots]) -> dict:
    """One design's figures with intervals: mean P over the spaces in reach (normal
    interval over independent spaces), and the worst space with its interval (the hit
    map's, RQMC's or Wilson's; of that space alone: picking the minimum of many
    estimates biases it low, more so with few shots)."""
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
