"""The board-mean rule's promises, by simulation on synthetic boards (no physics),
under the rule's own looks: the mean's interval covers at least 95 %, its sign is
decided wrongly in at most 5 % of comparisons, no space is flagged wrongly in more
than 5 %; and the same rule testing every look at 95 % without the correction fails."""

import numpy as np
import pytest

from models.mean_rule import (
    FIRST_BOARD_PAIRS,
    MeanRule,
    board_chances,
    error_rates,
    simulate,
)

#: The stock board's spaces, and the cap with --precision (pairs a space).
SPACES, CAP = 68, 1000
#: Comparisons simulated per case: a rate of 5 % is estimated to about ±1.1 points.
REPS = 400


class Uncorrected(MeanRule):
    """The same rule, every look's interval at 95 % as if it were the only look."""

    @property
    def z(self) -> float:
        return 1.959964


def realistic_board(seed: int, diffs: str, spaces: int = SPACES):
    """A board like the stock board against a variant: P_A between 0.2 and 0.9,
    0 to 15 % of pairs discordant, and the true differences: none ("null"), tiny and
    of both signs ("tiny": within ±0.6 of the discordance, most under 0.05), or a gain
    of about 0.04 ("gain")."""
    rng = np.random.default_rng(seed)
    p_a = rng.uniform(0.2, 0.9, spaces)
    discordant = rng.uniform(0.0, 0.15, spaces)
    if diffs == "null":
        truth = np.zeros(spaces)
    elif diffs == "tiny":
        truth = discordant * rng.uniform(-0.6, 0.6, spaces)
    else:
        discordant = rng.uniform(0.02, 0.15, spaces)
        truth = np.minimum(discordant, 0.04 + rng.uniform(-0.03, 0.03, spaces))
    return board_chances(p_a, discordant, truth), truth


def rule(delta, spaces=SPACES, kind=MeanRule):
    return kind(cap=CAP, delta=delta, spaces=spaces, streams=10)


@pytest.mark.parametrize("delta", [0.025, None], ids=["delta 0.025", "no delta: to the cap"])
@pytest.mark.parametrize("diffs", ["null", "tiny"])
def test_error_rates_hold_on_a_realistic_board(diffs, delta):
    chances, truth = realistic_board(7, diffs)
    rates = error_rates(simulate(rule(delta), chances, REPS, seed=1), truth)
    assert rates.mean_coverage >= 0.95
    assert rates.mean_false_sign <= 0.05
    assert rates.false_flags <= 0.05


def test_a_rule_testing_every_look_uncorrected_fails_the_same_test():
    chances, truth = realistic_board(7, "null")
    rates = error_rates(simulate(rule(None, kind=Uncorrected), chances, REPS, seed=1), truth)
    assert rates.mean_coverage < 0.95
    assert rates.mean_false_sign > 0.05


def test_few_discordant_pairs_over_the_whole_board_keep_coverage():
    """0-1 % discordant, all one way: a Poisson count of a few, often 0, over the
    board; the pseudo-pairs keep the interval from collapsing onto the estimate."""
    rng = np.random.default_rng(3)
    discordant = rng.uniform(0.0, 0.01, SPACES)
    chances = board_chances(rng.uniform(0.2, 0.9, SPACES), discordant, discordant)
    for delta in (0.025, None):
        rates = error_rates(simulate(rule(delta), chances, REPS, seed=2), discordant)
        assert rates.mean_coverage >= 0.95


def test_a_small_board_keeps_coverage_with_more_pairs_a_space():
    chances, truth = realistic_board(5, "tiny", spaces=4)
    small = rule(None, spaces=4)
    assert small.looks()[0] * 4 >= FIRST_BOARD_PAIRS
    assert error_rates(simulate(small, chances, REPS, seed=3), truth).mean_coverage >= 0.95


def test_a_gain_of_four_points_is_decided_in_the_first_looks():
    """About 0.04 on average: decided, rightly, at 10 or 20 pairs a space in 95 % of
    comparisons (1,360-2,720 shots on the stock board), at 40 in the rest."""
    chances, _ = realistic_board(9, "gain")
    results = simulate(rule(0.025), chances, REPS, seed=4)
    assert all(r.stop == "sign" and r.mean.low > 0 for r in results)
    assert np.mean([r.mean.pairs <= 20 for r in results]) >= 0.95
    assert max(r.mean.pairs for r in results) <= 40


def test_looks_are_fixed_doubling_whole_rounds_to_the_cap():
    assert rule(0.025).looks() == (10, 20, 40, 80, 160, 320, 640, 1000)
    assert MeanRule(cap=50, delta=None, spaces=SPACES, streams=1).looks() == (10, 20, 40, 50)
    assert rule(None, spaces=4).looks()[0] == 170  # 680 pairs over the board, whole rounds


def test_a_board_with_no_discordant_pair_still_has_an_interval():
    """Identical shots everywhere (a design against its copy): the mean is 0 and its
    interval is the pseudo-pairs' width, not a point."""
    counts = np.tile([6, 0, 0, 4], (SPACES, 1))
    at = rule(0.025).mean(counts)
    assert at.mean == 0 and at.low < 0 < at.high
    assert rule(0.025).stop(at) == "equivalent"
    assert rule(0.0001).stop(at) is None
