"""The RQMC sampler's intervals and stopping rule, by simulation on synthetic outcome
functions over the shot's Gaussian errors (no physics): they cover, and an interval
that pretends more precision than it has is caught by the same test."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.stats import qmc

from models.stats import sequential_bias, wilson_bounds
from sim.studies.shots import rqmc

#: Independent repetitions of every simulated measurement.
REPETITIONS = 500
#: Points per scramble the simulations may reach (the rule's cap here).
MOST = 128


def _disc(centre: float, radius: float):
    return lambda z: (z[..., 0] - centre) ** 2 + z[..., 1] ** 2 < radius**2


def _ellipse(radius: float):
    return lambda z: (
        (z[..., 0] / 1.5) ** 2 + (z[..., 1] / 0.7) ** 2 + (z[..., 2] / 1.2) ** 2 < radius**2
    )


def _noisy_band(centre: float, radius: float, width: float):
    """A disc whose rim, ``width`` wide, is decided by a chaotic function of the
    point (as a bounce over a fence decides a shot): no smooth border there."""

    def outcome(z):
        distance = np.hypot(z[..., 0] - centre, z[..., 1])
        phase = np.sin(10 * (z @ np.array([12.9898, 78.233, 37.719]))) * 43758.5453
        chaotic = np.modf(np.abs(phase))[0] < 0.5
        return np.where(np.abs(distance - radius) < width, chaotic, distance < radius)

    return outcome


FUNCTIONS = {
    "disc P 0.05": _disc(0.0, math.sqrt(-2 * math.log(0.95))),
    "disc P 0.5": _disc(0.0, math.sqrt(-2 * math.log(0.5))),
    "disc P 0.95": _disc(0.0, math.sqrt(-2 * math.log(0.05))),
    "off-centre disc P 0.36": _disc(1.0, 1.2),
    "off-centre disc P 0.08": _disc(1.5, 0.7),
    "ellipse P 0.23": _ellipse(1.0),
    "ellipse P 0.65": _ellipse(1.8),
    "noisy band P 0.41": _noisy_band(0.5, 1.1, 0.4),
    "noisy band P 0.16": _noisy_band(1.2, 0.8, 0.3),
}


@pytest.fixture(scope="module")
def deviates():
    """(repetitions, scrambles, points, 3) standard normals: every repetition's
    scrambles, each seeded the way a space's are."""
    out = np.empty((REPETITIONS, rqmc.SCRAMBLES, MOST, 3))
    for rep in range(REPETITIONS):
        for scramble in range(rqmc.SCRAMBLES):
            seed = rqmc.scramble_seed(2026, (rep, 0), scramble)
            out[rep, scramble] = rqmc.to_deviates(rqmc.scramble_points(seed, 3, MOST))
    return out


def truth(outcome) -> float:
    points = qmc.Sobol(3, scramble=True, seed=1).random_base2(20)
    return float(outcome(stats.norm.ppf(np.clip(points, 1e-12, 1 - 1e-12))).mean())


def measure(hits: np.ndarray, precision: float, interval=rqmc.interval):
    """The stopping rule of :func:`rqmc.next_points` run on every repetition at
    once. Returns each repetition's (low, high) and shots."""
    reps = hits.shape[0]
    points = np.full(reps, rqmc.FIRST_POINTS)
    low, high = np.zeros(reps), np.ones(reps)
    live = np.ones(reps, bool)
    n = rqmc.FIRST_POINTS
    while live.any():
        _, lo, hi = interval(hits[live, :, :n])
        low[live], high[live], points[live] = lo, hi, n
        done = ((hi - lo) / 2 <= precision) | (n >= MOST)
        live[np.flatnonzero(live)[done]] = False
        n = rqmc.grow(n)
    return low, high, points * rqmc.SCRAMBLES


def binomial_pretence(hits: np.ndarray):
    """A bad interval: Wilson's, as if the shots were 8 times as many independent ones."""
    estimate = hits.mean(axis=(-2, -1))
    return (estimate, *wilson_bounds(estimate, 8 * hits.shape[-1] * hits.shape[-2]))


@pytest.mark.slow
@pytest.mark.parametrize("precision", [0.05, 0.1])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_intervals_cover_at_least_93_percent(deviates, name, precision):
    outcome = FUNCTIONS[name]
    p = truth(outcome)
    low, high, shots = measure(outcome(deviates), precision)
    coverage = np.mean((low <= p) & (p <= high))
    assert coverage >= 0.93, f"{name} at ±{precision}: coverage {coverage:.3f}"
    stopped = shots < MOST * rqmc.SCRAMBLES  # not at the cap: the precision was reached
    assert np.all((high - low)[stopped] / 2 <= precision + 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["noisy band P 0.41", "noisy band P 0.16"])
def test_an_interval_claiming_too_much_is_caught(deviates, name):
    outcome = FUNCTIONS[name]
    p = truth(outcome)
    low, high, _ = measure(outcome(deviates), 0.05, binomial_pretence)
    assert np.mean((low <= p) & (p <= high)) < 0.93


@pytest.mark.slow
def test_smooth_regions_take_fewer_shots_than_plain_monte_carlo(deviates):
    """Where the border is smooth the sampler stops well before plain Monte Carlo
    would (its Wilson interval needs about 1.96² P(1-P) / 0.05² shots)."""
    for name in ("disc P 0.5", "off-centre disc P 0.36", "ellipse P 0.65"):
        outcome = FUNCTIONS[name]
        p = truth(outcome)
        _, _, shots = measure(outcome(deviates), 0.05)
        plain = 1.96**2 * p * (1 - p) / 0.05**2
        assert shots.mean() < 0.8 * plain, f"{name}: {shots.mean():.0f} against {plain:.0f}"


@pytest.mark.slow
@pytest.mark.parametrize("precision", [0.05, 0.1])
def test_no_outcome_takes_more_shots_than_plain_monte_carlo(deviates, precision):
    """Near P = 0 or 1 and where the border is chaotic the sampler gains little, but it
    never fires more than plain Monte Carlo's rule (batches of 20 until Wilson's
    interval is within ±precision; its exact mean from ``sequential_bias``) beyond
    the simulation's noise: its first look is 20 shots and its interval is never
    wider than Wilson's at the shots fired."""
    for name, outcome in FUNCTIONS.items():
        p = truth(outcome)
        _, _, shots = measure(outcome(deviates), precision)
        _, plain = sequential_bias(p, precision, 20, 1000)
        assert shots.mean() <= 1.03 * plain, f"{name}: {shots.mean():.0f} against {plain:.0f}"


@pytest.mark.slow
@pytest.mark.parametrize("points", [16, 64])
def test_paired_differences_cover_and_keep_their_false_alarm_rate(deviates, points):
    """Two designs on the same points: a disc moved right against the same disc moved
    left (the same P by symmetry: no difference) and against a smaller disc (a
    difference): the difference's interval covers, and "significant" comes up about
    as often as its 5 % promises where nothing differs."""
    z = deviates[:, :, :points]
    right, left, smaller = _disc(0.3, 1.2)(z), _disc(-0.3, 1.2)(z), _disc(0.3, 1.0)(z)
    truth_diff = truth(_disc(0.3, 1.0)) - truth(_disc(0.3, 1.2))
    same = [rqmc.paired_tables(right[i], left[i]) for i in range(REPETITIONS)]
    other = [rqmc.paired_tables(right[i], smaller[i]) for i in range(REPETITIONS)]
    assert np.mean([d.p_value < 0.05 for d in same]) <= 0.07
    assert np.mean([d.diff_ci_low <= 0 <= d.diff_ci_high for d in same]) >= 0.93
    assert np.mean([d.diff_ci_low <= truth_diff <= d.diff_ci_high for d in other]) >= 0.93


def test_a_scramble_s_first_points_do_not_depend_on_how_many_are_drawn():
    seed = rqmc.scramble_seed(3, (4, 2), 1)
    assert np.array_equal(rqmc.scramble_points(seed, 4, 8), rqmc.scramble_points(seed, 4, 64)[:8])
    assert rqmc.scramble_seed(3, (4, 2), 1) != rqmc.scramble_seed(3, (4, 2), 2)
    assert rqmc.scramble_seed(3, (4, 2), 1) != rqmc.scramble_seed(3, (2, 4), 1)


def test_a_scramble_drawn_look_by_look_is_the_scramble_drawn_at_once():
    seed = rqmc.scramble_seed(3, (4, 2), 1)
    stream = rqmc.ScrambleStream(seed, 4)
    for count in (2, 3, 3, 8, 21, 64):  # a space's looks, each asking for more
        stream.first(count)
    at_once = qmc.Sobol(4, scramble=True, seed=np.random.default_rng(seed)).random(64)
    assert stream.first(64).tobytes() == np.clip(at_once, 1e-12, 1 - 1e-12).tobytes()
    assert stream.first(5).tobytes() == rqmc.scramble_points(seed, 4, 5).tobytes()


def test_a_space_where_every_scramble_agrees_still_gets_an_interval():
    """All hits in every scramble: the scramble means vary by nothing, yet the
    interval is the Wilson interval of the shots fired, not a point."""
    estimate, low, high = rqmc.interval(np.ones((10, 8)))
    assert estimate == 1.0 and high == 1.0
    assert low == pytest.approx(wilson_bounds(1.0, 80)[0])
    assert low < 0.96


def test_a_file_records_the_rule_that_measured_it():
    """What made an RQMC file names every constant of its stopping rule; plain Monte
    Carlo's files record nothing new but the interval (otherwise they are what they
    were). Each names its interval, and a file made before that says Wilson's."""
    assert rqmc.provenance("rqmc") == {
        "sampler": "rqmc",
        "scrambles": rqmc.SCRAMBLES,
        "first_points": rqmc.FIRST_POINTS,
        "max_credit": rqmc.MAX_CREDIT,
        "guard_rate": rqmc.GUARD_RATE,
        "interval": "Student's t over the RQMC scrambles",
    }
    assert rqmc.provenance("mc") == {"interval": "Wilson"}
    assert rqmc.interval_of(rqmc.provenance("rqmc")) != rqmc.interval_of({}) == "Wilson"
    assert rqmc.interval_of({"sampler": "rqmc"}) == rqmc.INTERVALS["rqmc"]  # an older file


def test_the_plan_splits_the_shots_over_the_scrambles():
    assert rqmc.plan(1000, 0.05) == (10, 2, 100)
    assert rqmc.plan(50, None) == (10, 5, 5)
    assert rqmc.plan(3, None) == (3, 1, 1)
