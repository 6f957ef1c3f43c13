"""The paired tests of the grazing bench (scripts/bench.py; docs/physics.md, "Fidelity
on grazing shots"): two engines' verdicts on the same shots, compared target by target.

The exact McNemar test is the project's one (models/stats.py); the largest
difference over targets, and the adoption rule, are the bench's own.
"""

from __future__ import annotations

import math

from scipy.stats import binom

from models.layout import ALL_PIGGIES
from models.stats import mcnemar_exact


def max_dp_test(a_only: list[int], b_only: list[int], shots: int) -> tuple[float, float]:
    """The largest |P_A - P_B| over targets that "no difference" leaves 95 % of the time
    (what these shots can resolve), and the p-value of the one observed; exact, given
    each target's discordant pairs (each target's b-only count is binomial(d, 1/2),
    the targets independent)."""
    discordant = [a + b for a, b in zip(a_only, b_only, strict=True)]
    observed = max(abs(a - b) for a, b in zip(a_only, b_only, strict=True))

    def all_within(m: int) -> float:  # P(every |2 B_k - d_k| <= m)
        return math.prod(
            binom.cdf((d + m) // 2, d, 0.5) - binom.cdf(-((m - d) // 2) - 1, d, 0.5)
            for d in discordant
        )

    resolvable = next(m for m in range(max(discordant) + 1) if all_within(m) >= 0.95)
    p_value = 1.0 if observed == 0 else 1.0 - all_within(observed - 1)
    return resolvable / shots, float(min(1.0, p_value))


def paired(a: list[list[frozenset]], b: list[list[frozenset]]) -> dict:
    """A against B on the same grazing shots (``[target][shot]`` -> who was knocked
    out): P(target knocked out) per target, the largest |P_A - P_B|, the exact McNemar
    test on target-knocked-out over all shots, the share of shots with the same verdicts."""
    shots, targets = len(a[0]), ALL_PIGGIES[: len(a)]  # row k: shots at the k-th piggy
    a_only = [
        sum(p in x and p not in y for x, y in zip(a[k], b[k], strict=True))
        for k, p in enumerate(targets)
    ]
    b_only = [
        sum(p in y and p not in x for x, y in zip(a[k], b[k], strict=True))
        for k, p in enumerate(targets)
    ]
    resolvable, max_p = max_dp_test(a_only, b_only, shots)
    same = sum(x == y for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True))
    largest = max(abs(x - y) for x, y in zip(a_only, b_only, strict=True))
    return {
        "max_abs_dp": round(largest / shots, 4),
        "max_abs_dp_resolvable": round(resolvable, 4),
        "max_abs_dp_p": round(max_p, 4),
        "a_only": sum(a_only),
        "b_only": sum(b_only),
        "mcnemar_p": round(mcnemar_exact(sum(a_only), sum(b_only)), 4),
        "agreement": round(same / (shots * len(a)), 4),
    }


def passes(test: dict) -> bool:
    """The adoption rule: no significant difference at 5 % (McNemar), and the largest
    difference in P within what the shots can resolve."""
    return test["mcnemar_p"] >= 0.05 and test["max_abs_dp"] <= test["max_abs_dp_resolvable"]


def hits(results: list[list[frozenset]]) -> list[int]:
    """How often each target was knocked out (row k: shots at the k-th piggy)."""
    targets = ALL_PIGGIES[: len(results)]
    return [sum(p in x for x in row) for p, row in zip(targets, results, strict=True)]
