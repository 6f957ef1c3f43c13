"""The check's statistics (sim/studies/calibrating/toy_check_stats.py) on synthetic
P's: its error rates by simulation, its interval's coverage, its Brier skill and its
reliability table. A test's error rate is checked by simulation, and a rule that
ignores how the piggies of one shot fall together fails the same check."""

import json
import math

import numpy as np
import pytest

from sim.studies.calibrating.toy_check_stats import check_statistics, reliability_table

#: Trials of each simulation: a rate of 5 % is then known to about ±1.5 % (1 sd).
TRIALS = 300


def shot_probabilities(shots: int = 24) -> np.ndarray:
    """(shots, 6) P's as a crowded board gives them: each shot aims at a stack of
    three piggies (its P's middling: they fall together) and leaves the other three
    nearly always standing."""
    rng = np.random.default_rng(5)
    p = np.zeros((shots, 6))
    p[:, :3] = rng.uniform(0.2, 0.6, (shots, 1))  # the stack: one P for its piggies
    p[:, 3:] = rng.choice([0.0, 0.02, 0.1], (shots, 3))
    return p


def falling_together(p: np.ndarray, refires: int, rng) -> np.ndarray:
    """(shots, refires, piggies) knock-outs where a shot's piggies fall together: one
    uniform per shot and re-fire, a piggy knocked out when it is below the piggy's P
    (each piggy's P exact, the count's variance far above a sum of p(1 - p))."""
    u = rng.random((p.shape[0], refires, 1))
    return u < p[:, None, :]


def rejections(p_toy, p_sandbox, refires: int, rule, seed: int = 0) -> float:
    """How often ``rule`` (stats -> rejected) rejects a film of ``p_toy`` against the
    sandbox's re-fires of ``p_sandbox``."""
    rng = np.random.default_rng(seed)
    seen = np.ones(p_toy.shape, bool)
    rejected = 0
    for _ in range(TRIALS):
        film = falling_together(p_toy, 1, rng)[:, 0]
        fired = falling_together(p_sandbox, refires, rng)
        rejected += rule(fired, film, seen)
    return rejected / TRIALS


def the_check(fired, film, seen) -> bool:
    return check_statistics(fired, film, seen).rejected


def naive(fired, film, seen) -> bool:
    """A z test that takes the piggy-shots as independent (variance sum p(1 - p)) and
    the P's as exact."""
    p = fired.mean(axis=1)
    z = (film - p).sum() / math.sqrt((p * (1 - p)).sum())
    return abs(z) > 1.96


@pytest.mark.slow
def test_the_check_rejects_about_5_percent_of_films_of_the_same_toy_and_a_naive_rule_more():
    p = shot_probabilities()
    size = rejections(p, p, 40, the_check)
    assert 0.02 <= size <= 0.09  # 5 % within about 2.5 sd of the simulation's error
    # the piggies of a stack fall together: a rule blind to it rejects a true sandbox
    assert rejections(p, p, 40, naive) > 0.15


@pytest.mark.slow
def test_the_monte_carlo_error_of_the_p_s_is_in_the_variance():
    """With 3 re-fires a shot, the P's are rough: the test still holds its 5 %."""
    p = shot_probabilities()
    assert 0.02 <= rejections(p, p, 3, the_check) <= 0.09


@pytest.mark.slow
def test_the_stated_power_is_met_at_the_smallest_difference_it_names():
    p = shot_probabilities()
    seen = np.ones(p.shape, bool)
    rng = np.random.default_rng(1)
    stated = check_statistics(falling_together(p, 400, rng), p > 0.5, seen).min_detectable
    # a toy whose stacks fall more often by that much on average over piggy-shots
    shifted = p.copy()
    shifted[:, :3] += stated * p.size / (3 * p.shape[0])
    power = rejections(shifted, p, 200, the_check, seed=2)
    assert 0.70 <= power <= 0.90  # 80 % within the simulation's error


@pytest.mark.slow
def test_the_interval_of_delta_p_holds_the_true_difference_about_95_percent():
    p = shot_probabilities()
    toy = p * 0.7
    true_delta = (toy - p).mean()
    rng = np.random.default_rng(3)
    seen = np.ones(p.shape, bool)
    held = 0
    for _ in range(TRIALS):
        stats = check_statistics(
            falling_together(p, 100, rng), falling_together(toy, 1, rng)[:, 0], seen
        )
        lo, hi = stats.delta_p_interval
        held += lo <= true_delta <= hi
    assert 0.90 <= held / TRIALS <= 0.99


def test_a_sandbox_that_knows_every_shot_has_full_skill_and_one_that_ignores_it_none():
    outcomes = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], bool)
    seen = np.ones(outcomes.shape, bool)
    knowing = np.repeat(outcomes[:, None, :], 10, axis=1)  # every re-fire as the film
    stats = check_statistics(knowing, outcomes, seen)
    assert stats.brier == 0 and stats.brier_reference == 0.25 and stats.skill == 1
    assert stats.p_value == 1 and not stats.rejected and stats.delta_p == 0
    # half the re-fires knock out each piggy, whatever the shot: no better than its rate
    blind = np.zeros((4, 1000, 2), bool)
    blind[:, :500, 0] = blind[:, 500:, 1] = True
    assert check_statistics(blind, outcomes, seen).skill == pytest.approx(0, abs=0.002)


def test_the_brier_score_is_the_true_p_s_whatever_the_re_fires():
    """P = 0.5 everywhere: the true P's score 0.25 on any film; estimated from 5
    re-fires each they would score 0.25 + 0.05 (their Monte Carlo variance) but for
    the share taken out."""
    rng = np.random.default_rng(4)
    fired = rng.random((500, 5, 2)) < 0.5
    film = rng.random((500, 2)) < 0.5
    stats = check_statistics(fired, film, np.ones(film.shape, bool))
    assert stats.brier == pytest.approx(0.25, abs=0.01)


def test_unseen_piggy_shots_are_left_out_of_every_figure():
    fired = np.zeros((3, 20, 2), bool)
    fired[:, :, 0] = True  # piggy 0 always knocked out, piggy 1 never
    film = np.array([[1, 1], [1, 0], [1, 0]], bool)  # the film disagrees once...
    seen = np.array([[1, 0], [1, 1], [1, 1]], bool)  # ...where the camera could not see
    stats = check_statistics(fired, film, seen)
    assert (stats.piggy_shots, stats.unseen) == (5, 1)
    assert stats.observed_total == 3 and stats.predicted_total == 3
    assert stats.p_value == 1 and stats.delta_p == 0 and stats.brier == 0


def test_a_knock_out_the_sandbox_calls_impossible_is_rejected():
    fired = np.zeros((3, 20, 1), bool)
    film = np.array([[0], [1], [0]], bool)
    stats = check_statistics(fired, film, np.ones(film.shape, bool))
    assert stats.rejected and stats.p_value == 0 and stats.z == math.inf
    assert json.loads(json.dumps(stats.to_dict(), allow_nan=False))["z"] is None


def test_the_reliability_table_bins_piggy_shots_by_predicted_p():
    predicted = np.array([0.0, 0.01, 0.3, 0.35, 1.0, 1.0])
    observed = np.array([0, 1, 0, 1, 1, 1], float)
    rows = reliability_table(predicted, observed)
    assert [(r.lo, r.hi, r.count) for r in rows] == [(0.0, 0.05, 2), (0.2, 0.4, 2), (0.95, 1.0, 2)]
    assert [r.observed for r in rows] == [0.5, 0.5, 1.0]
    assert rows[1].mean_predicted == pytest.approx(0.325)
    assert all(r.observed_lo <= r.observed <= r.observed_hi for r in rows)
