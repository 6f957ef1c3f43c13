"""The statistics of the check (``piggy calibrate --check``): the sandbox's P(knocked
out) for each piggy of each measured shot, estimated from its re-fires, set against
what the video shows.

Numbers in, numbers out (numpy arrays): the firing is
sim/studies/calibrating/toy_check.py's. For shot i and piggy j, the sandbox fired the
shot's launch M times (``refires[i, m, j]``: knocked out in re-fire m) and the video
shows ``observed[i, j]``; ``seen[i, j]`` is False where the camera could not tell
(that piggy-shot is left out everywhere).

- **The test** (one, two-sided, at 5 %): the total knocked out on film against the
  total the sandbox predicts. Under the hypothesis that the toy knocks out as the
  sandbox does, shot i's count S_i has the variance of the sandbox's count over its
  re-fires (piggies in one shot are not independent: a toppled stack falls
  together, so the variance is the count's, not a sum of p(1 - p)), and the
  prediction, a mean of M re-fires, adds 1/M of it (its Monte Carlo error):
  z = (sum S_i - sum mean_i) / sqrt(sum var_i (1 + 1/M)), normal.
- **ΔP**: the mean over piggy-shots of observed minus predicted, with a 95 %
  interval from the spread of the shots' own differences (a ratio estimator's
  standard error, Student t with shots - 1 degrees of freedom): it assumes the
  shots independent, not the hypothesis; the Monte Carlo error is inside it.
- **Power**: the smallest |ΔP| this test finds at 5 % with 80 % power, taking the
  variance under a difference to be the one under none.
- **Brier score** with the Monte Carlo error of each P taken out (its expected
  share, p(1 - p) / (M - 1)), and its skill against a reference that ignores the
  shot (each piggy's sandbox P averaged over the shots); the skill's interval is a
  bootstrap over shots.
- **Reliability**: piggy-shots binned by predicted P, each bin's observed frequency
  with Wilson's interval (it counts the piggy-shots of a bin as independent, which
  piggies of one shot are not: read it as a picture, the test decides).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

import numpy as np

from models.stats import Z_95, wilson_interval

#: The test's level and the power stated.
ALPHA = 0.05
POWER = 0.80
#: z for 80 % power (one side of the normal).
Z_POWER = 0.8416212335729143
#: Edges of the reliability table's bins of predicted P.
BIN_EDGES = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0)
#: Resamples of the skill score's bootstrap.
BOOTSTRAP = 2000


@dataclass(frozen=True)
class ReliabilityBin:
    """Piggy-shots whose predicted P lies in [lo, hi) (the last bin holds 1):
    how many, their mean P, and how often the video shows them knocked out."""

    lo: float
    hi: float
    count: int
    mean_predicted: float
    observed: float
    observed_lo: float
    observed_hi: float


@dataclass(frozen=True)
class CheckStatistics:
    """What the check found (see the module's docstring)."""

    shots: int
    piggy_shots: int
    unseen: int
    refires: int
    observed_total: int
    predicted_total: float
    total_sd: float  # of observed minus predicted, under the hypothesis
    z: float
    p_value: float
    delta_p: float
    delta_p_interval: tuple[float, float]
    min_detectable: float
    brier: float
    brier_reference: float
    skill: float | None
    skill_interval: tuple[float, float] | None
    reliability: tuple[ReliabilityBin, ...]

    @property
    def rejected(self) -> bool:
        return self.p_value < ALPHA

    def to_dict(self) -> dict:
        """Every field, and whether the test rejects; an infinite z (a knock-out the
        sandbox calls impossible) is written as null, JSON having no infinity."""
        data = asdict(self)
        data["z"] = self.z if math.isfinite(self.z) else None
        data["rejected"] = self.rejected
        return data


def check_statistics(
    refires: np.ndarray, observed: np.ndarray, seen: np.ndarray, seed: int = 0
) -> CheckStatistics:
    """The check's statistics from the sandbox's ``refires`` (shots, M, piggies; bool),
    the film's ``observed`` and ``seen`` (shots, piggies; bool); ``seed`` seeds the
    skill's bootstrap. Needs at least two shots, and M of at least two."""
    refires = np.asarray(refires, bool)
    observed, seen = np.asarray(observed, bool), np.asarray(seen, bool)
    shots, m, _ = refires.shape
    if shots < 2 or m < 2:
        raise ValueError(f"the check needs 2 shots and 2 re-fires each, not {shots} and {m}")
    predicted = refires.mean(axis=1)
    y = observed.astype(float)
    counts = (refires & seen[:, None, :]).sum(axis=2)  # (shots, M): each re-fire's count
    differences = ((y - predicted) * seen).sum(axis=1)  # per shot: observed - predicted
    per_shot = seen.sum(axis=1)
    variance = float(counts.var(axis=1, ddof=1).sum()) * (1 + 1 / m)
    total = float(differences.sum())
    n = int(per_shot.sum())
    z, p_value = _z_test(total, variance)
    brier, reference, skill, skill_interval = _brier(predicted, y, seen, m, seed)
    return CheckStatistics(
        shots=shots,
        piggy_shots=n,
        unseen=int(seen.size - n),
        refires=m,
        observed_total=int((observed & seen).sum()),
        predicted_total=float((predicted * seen).sum()),
        total_sd=math.sqrt(variance),
        z=z,
        p_value=p_value,
        delta_p=total / n,
        delta_p_interval=_ratio_interval(differences, per_shot),
        min_detectable=(Z_95 + Z_POWER) * math.sqrt(variance) / n,
        brier=brier,
        brier_reference=reference,
        skill=skill,
        skill_interval=skill_interval,
        reliability=reliability_table(predicted[seen], y[seen]),
    )


def _z_test(total: float, variance: float) -> tuple[float, float]:
    """z and its two-sided p-value; with no variance (every P 0 or 1), any
    difference is one the sandbox calls impossible."""
    if variance <= 0:
        return (0.0, 1.0) if abs(total) < 1e-9 else (math.copysign(math.inf, total), 0.0)
    z = total / math.sqrt(variance)
    return z, math.erfc(abs(z) / math.sqrt(2))


def _ratio_interval(differences: np.ndarray, per_shot: np.ndarray) -> tuple[float, float]:
    """95 % interval of sum(differences) / sum(per_shot), shots independent: the ratio
    estimator's standard error, Student t with shots - 1 degrees of freedom."""
    from scipy.special import stdtrit  # Student t's quantile (scipy.stats loads for s)

    shots = len(differences)
    ratio = differences.sum() / per_shot.sum()
    residuals = differences - ratio * per_shot
    se = math.sqrt(shots / (shots - 1) * float((residuals**2).sum())) / per_shot.sum()
    half = float(stdtrit(shots - 1, 0.975)) * se
    return float(ratio - half), float(ratio + half)


def _brier(
    predicted: np.ndarray, y: np.ndarray, seen: np.ndarray, m: int, seed: int
) -> tuple[float, float, float | None, tuple[float, float] | None]:
    """The Brier score (Monte Carlo error taken out), the reference's, the skill and
    its 95 % bootstrap interval over shots (None where the reference is 0)."""
    scores = ((predicted - y) ** 2 - predicted * (1 - predicted) / (m - 1)) * seen
    per_piggy = (predicted * seen).sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    references = (per_piggy[None, :] - y) ** 2 * seen
    n = seen.sum()
    brier, reference = float(scores.sum() / n), float(references.sum() / n)
    if reference <= 0:
        return brier, reference, None, None
    by_shot, reference_by_shot = scores.sum(axis=1), references.sum(axis=1)
    picks = np.random.default_rng(seed).integers(0, len(y), (BOOTSTRAP, len(y)))
    denominators = reference_by_shot[picks].sum(axis=1)
    skills = 1 - by_shot[picks].sum(axis=1) / np.where(denominators > 0, denominators, np.nan)
    lo, hi = np.nanpercentile(skills, [2.5, 97.5])
    return brier, reference, 1 - brier / reference, (float(lo), float(hi))


def reliability_table(predicted: np.ndarray, y: np.ndarray) -> tuple[ReliabilityBin, ...]:
    """Piggy-shots binned by predicted P (:data:`BIN_EDGES`), empty bins left out."""
    which = np.digitize(predicted, BIN_EDGES[1:-1])
    rows = []
    for k, (lo, hi) in enumerate(itertools.pairwise(BIN_EDGES)):
        inside = which == k
        count = int(inside.sum())
        if count == 0:
            continue
        knocked = int(y[inside].sum())
        low, high = wilson_interval(knocked, count)
        rows.append(
            ReliabilityBin(
                lo, hi, count, float(predicted[inside].mean()), knocked / count, low, high
            )
        )
    return tuple(rows)
