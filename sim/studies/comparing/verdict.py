"""A design comparison's verdict (sim/studies/comparing/compare.py makes the comparison):
what the board mean's interval says (:func:`mean_verdict`), the spaces counted by
what the comparison says of each (:func:`space_counts`), and the one sentence that
puts the two together (:func:`verdict_line`), in the words the difference map and
the report page share (sim/studies/comparing/verdict_words.py).
"""

from __future__ import annotations

import math

from sim.studies.comparing import verdict_words
from sim.studies.shots.records import ComparisonRow


def mean_verdict(mean_diff: tuple, delta: float | None, by_the_mean: bool = False) -> str | None:
    """What the mean difference's interval says (see :attr:`Comparison.on_average`):
    within ±δ first (a mean detectably above 0 but wholly within ±δ is practically
    the same), then more or fewer; the rest "not_detectable", or with the board-mean
    rule "undecided" (not decided at this budget)."""
    mean, low, high = mean_diff
    if mean is None or math.isnan(mean):
        return None
    if delta is not None and -delta <= low and high <= delta:
        return "within_delta"
    if low > 0:
        return "more"
    if high < 0:
        return "fewer"
    return "undecided" if by_the_mean else "not_detectable"


def space_counts(rows: list[ComparisonRow]) -> dict[str, int]:
    """The spaces by what the comparison says of each: B knocks out more, fewer,
    within ±δ (the spaces rule's equivalent spaces that are not significant),
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
    rule: str = "per-map",
    stop: str | None = None,
) -> str:
    """One sentence, the board mean first: whether B knocks out more or fewer than A
    on average over the spaces both reach (the mean difference and its interval),
    then on how many spaces B knocks out more, fewer, or no detectably different
    (the spaces rule: within ±δ, or undecided at the cap; the mean rule: not decided,
    at this precision, the cap or this budget as its ``stop`` says), and where only one
    of the two reaches
    (sim/studies/comparing/verdict_words.py: the map and the page say the same)."""
    on_average = mean_verdict(mean_diff, delta, rule == "mean")
    mean = verdict_words.board_mean(name_a, name_b, on_average, mean_diff, delta, stop)
    spaces = verdict_words.spaces_line(name_a, name_b, space_counts(rows), rule, delta, stop)
    return f"{mean}; {spaces[0].lower()}{spaces[1:]}"
