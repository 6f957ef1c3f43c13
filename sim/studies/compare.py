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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.stats import Z_95, PairedDifference, holm, mean_interval, paired_difference
from sim.studies import rqmc
from sim.studies.dead_zones import FEW_SHOTS
from sim.studies.records import ComparisonRow, ShotRow, SpaceShots

#: Family-wise error rate of the per-space tests.
ALPHA = 0.05


@dataclass(frozen=True)
class Comparison:
    """Design B against design A, space by space (``spaces``: one row per space)."""

    design_a: str
    design_b: str
    spaces: list[ComparisonRow]
    verdict: str
    mean_diff: tuple  # (mean of P_B - P_A over spaces in reach of both, low, high)

    def to_dict(self) -> dict:
        """As JSON: a difference that cannot be estimated is null, with the reason."""
        low_high = [_rounded(v) for v in self.mean_diff]
        why = (
            None
            if low_high[0] is not None
            else (f"no selected space is in reach of both {self.design_a} and {self.design_b}")
        )
        return {
            "design_a": self.design_a,
            "design_b": self.design_b,
            "verdict": self.verdict,
            "mean_diff": low_high[0],
            "mean_diff_ci": low_high[1:],
            "null_reason": why,
            "alpha": ALPHA,
            "correction": "holm",
            "spaces": [r.to_dict() for r in self.spaces],
        }


def outcomes(part: SpaceShots) -> np.ndarray:
    """(n,) bool: shot by shot, whether the target was knocked out."""
    return np.array([r.target_knocked for r in part.shots], dtype=bool)


def compare_parts(
    name_a: str, name_b: str, parts_a: list[SpaceShots], parts_b: list[SpaceShots]
) -> Comparison:
    """Compare two hit maps of the same spaces, fired with the same seeds."""
    pairs: list[tuple[SpaceShots, SpaceShots, PairedDifference | None]] = []
    for a, b in zip(parts_a, parts_b, strict=True):
        if a.space != b.space:
            raise ValueError("the two hit maps measure other spaces")
        pairs.append((a, b, pair(a, b) if a.reachable and b.reachable else None))
    adjusted = iter(holm([d.p_value for _, _, d in pairs if d is not None]))
    rows = [_comparison_row(a, b, d, None if d is None else next(adjusted)) for a, b, d in pairs]
    tested = [(r, r.diff) for r in rows if r.diff is not None]
    mean = mean_interval([diff for _, diff in tested], [_paired_variance(r) for r, _ in tested])
    return Comparison(name_a, name_b, rows, verdict_line(name_a, name_b, rows), mean)


def _comparison_row(
    a: SpaceShots, b: SpaceShots, d: PairedDifference | None, adjusted: float | None
) -> ComparisonRow:
    """One space's row: the paired difference ``d`` (None where a design does not
    reach) with its Holm-adjusted p-value, every figure rounded as written."""
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


def verdict_line(name_a: str, name_b: str, rows: list[ComparisonRow]) -> str:
    """One sentence: on how many spaces B knocks out more, fewer, or no detectably
    different, and where only one of the two reaches."""
    more = sum(r.significant and (r.diff or 0) > 0 for r in rows)
    fewer = sum(r.significant and (r.diff or 0) < 0 for r in rows)
    same = sum(r.diff is not None and not r.significant for r in rows)
    only_a = sum(r.reachable_a and not r.reachable_b for r in rows)
    only_b = sum(r.reachable_b and not r.reachable_a for r in rows)
    text = (
        f"{name_b} knocks out more than {name_a} on {more} "
        f"space{'s' if more != 1 else ''}, fewer on {fewer}, no detectable difference "
        f"on {same} (95 %, Holm)"
    )
    if only_a or only_b:
        text += f"; only {name_a} reaches {only_a}, only {name_b} reaches {only_b}"
    return text


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
    """Sampling variance of one space's paired difference: (b + c - (b - c)^2 / n) / n^2."""
    n, b, c = row.shots, row.a_only, row.b_only
    return (b + c - (b - c) ** 2 / n) / n**2 if n else 0.0


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
