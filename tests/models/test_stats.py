"""The statistics of hit maps and comparisons, against hand calculations and by
simulation (seeded)."""

import math

import numpy as np
import pytest

from models.stats import (
    binomial_pmf,
    holm,
    mcnemar_exact,
    mean_interval,
    paired_difference,
    precision_reached,
    sequential_bias,
    wilson_interval,
)


def test_mcnemar_exact_by_hand():
    # 9 discordant pairs favour A, 2 favour B: P(X <= 2 | 11, 1/2) = (1 + 11 + 55) / 2048
    assert mcnemar_exact(9, 2) == pytest.approx(2 * 67 / 2048)
    assert mcnemar_exact(2, 9) == mcnemar_exact(9, 2)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    # 5 discordant pairs all one way: two-sided p = 2 / 2^5 (the grazing bench's case)
    assert mcnemar_exact(5, 0) == mcnemar_exact(0, 5) == 2 / 32


@pytest.mark.slow
def test_mcnemar_exact_agrees_with_scipy():
    """The whole-number tail against SciPy's binomial CDF, which the test once used,
    over every split of up to 300 discordant pairs."""
    from scipy.stats import binom

    for discordant in range(1, 301):
        for a_only in range(discordant + 1):
            b_only = discordant - a_only
            scipy_p = min(1.0, 2 * float(binom.cdf(min(a_only, b_only), discordant, 0.5)))
            assert mcnemar_exact(a_only, b_only) == pytest.approx(scipy_p, rel=1e-13, abs=0)


def test_binomial_pmf_against_scipy():
    from scipy.stats import binom

    for trials, p in ((1, 0.3), (25, 0.5), (200, 0.07), (2000, 0.999)):
        expected = binom.pmf(np.arange(trials + 1), trials, p)
        np.testing.assert_allclose(binomial_pmf(trials, p), expected, rtol=1e-9, atol=1e-300)
    assert binomial_pmf(3, 0.0).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert binomial_pmf(3, 1.0).tolist() == [0.0, 0.0, 0.0, 1.0]


def test_holm_by_hand():
    # sorted: 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, held up to 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5]
    assert holm([0.6, 0.6]) == [1.0, 1.0]


def test_paired_difference_by_hand():
    """Both hit 12, only A 9, only B 2, neither 1 (24 shots)."""
    a = np.array([1] * 12 + [1] * 9 + [0] * 2 + [0], bool)
    b = np.array([1] * 12 + [0] * 9 + [1] * 2 + [0], bool)
    d = paired_difference(a, b)
    assert (d.shots, d.a_only, d.b_only) == (24, 9, 2)
    assert (d.p_a, d.p_b) == (pytest.approx(21 / 24), pytest.approx(14 / 24))
    assert d.diff == pytest.approx(-7 / 24)
    # Newcombe's method 10 by hand: phi = (12*1 - 9*2) / sqrt(21 * 3 * 14 * 10)
    phi = (12 - 18) / math.sqrt(21 * 3 * 14 * 10)
    la, ua = wilson_interval(21, 24)
    lb, ub = wilson_interval(14, 24)
    pa, pb = 21 / 24, 14 / 24
    below = math.sqrt((pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2)
    above = math.sqrt((ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2)
    assert d.diff_ci_low == pytest.approx(-7 / 24 - below)
    assert d.diff_ci_high == pytest.approx(-7 / 24 + above)
    assert d.p_value == pytest.approx(2 * 67 / 2048)


def test_identical_outcomes_show_no_difference():
    a = np.array([1, 0, 1, 1, 0] * 20, bool)
    d = paired_difference(a, a)
    assert d.diff == 0 and d.p_value == 1.0
    assert d.diff_ci_low < 0 < d.diff_ci_high


def test_paired_interval_covers_the_true_difference_95_percent_of_the_time():
    """Simulated pairs with correlated outcomes (common random numbers): the true
    difference P_B - P_A = 0.1 lies inside the interval about 95 % of the time."""
    rng = np.random.default_rng(7)
    covered = 0
    trials = 1000
    for _ in range(trials):
        u = rng.random(200)
        a, b = u < 0.6, u < 0.7
        d = paired_difference(a, b)
        covered += d.diff_ci_low <= 0.1 <= d.diff_ci_high
    # 95 % nominal; the binomial sd of the coverage over 1000 trials is ~0.007
    assert 0.93 <= covered / trials <= 0.975


def test_mcnemar_holds_its_level_under_no_difference():
    rng = np.random.default_rng(3)
    rejections = 0
    for _ in range(1000):
        u, v = rng.random(100), rng.random(100)
        a, b = u < 0.5, np.where(v < 0.8, u < 0.5, rng.random(100) < 0.5)
        rejections += paired_difference(a, b).p_value < 0.05
    assert rejections / 1000 <= 0.05 + 0.02  # exact tests are conservative


def test_precision_rule():
    assert not precision_reached(0, 0, 0.05)
    assert precision_reached(35, 35, 0.05)  # P = 1 after 35 shots: half-width 0.049
    assert not precision_reached(34, 34, 0.05)
    assert not precision_reached(100, 200, 0.05)  # P = 0.5 needs ~380 shots
    assert precision_reached(192, 384, 0.05)


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5, 0.8, 0.95])
def test_sequential_stopping_bias_is_small(p):
    bias, mean_shots = sequential_bias(p, 0.05, 20, 1000)
    assert abs(bias) < 0.01  # a fifth of the precision asked for
    assert 40 <= mean_shots <= 400


def test_sequential_bias_matches_simulation():
    """The exact dynamic programme against 4,000 simulated sequential samples."""
    rng = np.random.default_rng(11)
    p, estimates = 0.9, []
    for _ in range(4000):
        hits = shots = 0
        while True:
            hits += int(np.sum(rng.random(20) < p))
            shots += 20
            if precision_reached(hits, shots, 0.05) or shots >= 1000:
                break
        estimates.append(hits / shots)
    bias, _ = sequential_bias(p, 0.05, 20, 1000)
    se = np.std(estimates) / math.sqrt(len(estimates))
    assert abs((np.mean(estimates) - p) - bias) < 4 * se


def test_mean_interval():
    mean, low, high = mean_interval([0.2, 0.4], [0.01, 0.03])
    assert mean - low == pytest.approx(high - mean)
    assert mean == pytest.approx(0.3)
    assert high - mean == pytest.approx(1.959964 * math.sqrt(0.04) / 2, rel=1e-5)
    assert math.isnan(mean_interval([], [])[0])
