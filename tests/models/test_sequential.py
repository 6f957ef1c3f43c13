"""The sequential paired rule's promises, by simulation on synthetic paired outcomes
(no physics): under many looks, false flags stay within 5 % family-wise where
nothing differs, the reported intervals cover, a difference of 2δ is found; and a
rule that tests at every look without the correction fails the same test."""

import importlib.util

import numpy as np
import pytest

from models.sequential import (
    ALPHA,
    PairedRule,
    coverage,
    false_flag_rate,
    pair_chances,
    simulate,
)
from models.stats import Z_95, holm, tango_interval
from sim.studies.shots import rqmc
from tests.helpers import ROOT

#: Spaces compared together: the stock board's.
SPACES = 68
STUDY = ROOT / "scripts" / "paired_rule_study.py"


def study_script():
    """scripts/paired_rule_study.py, which holds the naive rule the test is shown to
    fail (every look tested as if it were the only one)."""
    spec = importlib.util.spec_from_file_location("paired_rule_study", STUDY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "disc",
    [
        pytest.param(0.05, id="near-identical designs, 5 % discordant", marks=pytest.mark.slow),
        pytest.param(0.4, id="very different designs, 40 % discordant", marks=pytest.mark.slow),
    ],
)
def test_false_flags_stay_within_five_percent_family_wise(disc):
    rule = PairedRule(cap=640, delta=0.05, spaces=SPACES)
    results = simulate(rule, [pair_chances(0.5, disc, 0.0)] * SPACES, reps=200, seed=1)
    assert false_flag_rate(results, [0.0] * SPACES) <= 0.05
    assert coverage(results, [0.0] * SPACES) >= 0.95


@pytest.mark.slow
def test_a_rule_that_tests_every_look_uncorrected_fails_the_same_test():
    """The same comparisons with the naive rule: false flags well over 5 %."""
    chances = [pair_chances(0.5, 0.4, 0.0)] * SPACES
    naive = study_script().Uncorrected(cap=640, delta=0.05, spaces=SPACES)
    results = simulate(naive, chances, reps=200, seed=1)
    assert false_flag_rate(results, [0.0] * SPACES) > 0.05


@pytest.mark.slow
@pytest.mark.parametrize("disc", [0.05, 0.1, 0.3])
def test_reported_differences_cover_under_many_looks(disc):
    """Spaces that differ by 0 to 2δ (δ = 0.05) and more: every reported interval,
    and those of the flagged spaces, hold the true difference 93 % of the time or more;
    a flag's sign is right."""
    diffs = [d for d in (0.0, 0.025, 0.05, 0.1, 0.2) if d <= disc] * 8
    rule = PairedRule(cap=640, delta=0.05, spaces=len(diffs))
    results = simulate(rule, [pair_chances(0.5, disc, d) for d in diffs], reps=60, seed=2)
    assert coverage(results, diffs) >= 0.93
    assert coverage(results, diffs, flagged_only=True) >= 0.93
    assert false_flag_rate(results, diffs) <= 0.05


def test_a_difference_of_two_delta_is_found():
    """Power at 2δ: a space 0.1 apart, 10 % of pairs discordant, among 68 compared,
    is flagged with the right sign in nine comparisons of ten or more by a cap of 640."""
    rule = PairedRule(cap=640, delta=0.05, spaces=SPACES)
    chances = [pair_chances(0.5, 0.1, 0.1)] + [pair_chances(0.5, 0.05, 0.0)] * (SPACES - 1)
    results = simulate(rule, chances, reps=40, seed=3)
    found = [c[0].flagged and c[0].last.diff > 0 for c in results]
    assert np.mean(found) >= 0.9


def test_looks_are_fixed_before_any_shot():
    rule = PairedRule(cap=1000, delta=0.05, spaces=68, streams=10)
    assert rule.looks() == (40, 80, 160, 320, 640, 1000)
    assert PairedRule(cap=30, delta=None).looks() == (30,)
    assert PairedRule(cap=100, delta=None, streams=3).looks() == (42, 84, 100)
    # K looks: intervals at 1 - alpha / K, flags at alpha / (m K)
    assert rule.z == pytest.approx(2.638, abs=1e-3)
    assert rule.flag_level == pytest.approx(0.05 / (68 * 6))
    assert rule.p_value([0.5, 0.001]) == pytest.approx(0.006)


def test_tango_interval_keeps_its_coverage_with_few_discordant_pairs():
    """Where Newcombe's interval collapses (no discordant pair: a point at 0), Tango's
    stays honest: simulated at 2 % discordance, 40 to 320 pairs, coverage ≥ 93 %."""
    rng = np.random.default_rng(4)
    for pairs in (40, 160, 320):
        counts = rng.multinomial(pairs, [0.005, 0.015, 0.98], size=2000)
        held = [
            low <= 0.01 <= high
            for low, high in (tango_interval(int(a), int(b), pairs) for a, b, _ in counts)
        ]
        assert np.mean(held) >= 0.93
    low, high = tango_interval(0, 0, 160)
    assert low == pytest.approx(-high) and high == pytest.approx(Z_95**2 / (160 + Z_95**2))


@pytest.mark.slow
def test_rqmc_pairs_keep_the_promises():
    """Pairs from scrambled Sobol points (two discs of the same area, shifted: they
    disagree on two crescents, 0 apart on average), 20 spaces: no false flag beyond
    5 %, intervals cover."""

    def disc(centre):
        radius = 1.2
        return lambda z: (z[..., 0] - centre) ** 2 + z[..., 1] ** 2 < radius**2

    a, b = disc(0.0), disc(0.15)
    spaces, reps, scrambles, most = 20, 40, 10, 64
    rule = PairedRule(cap=scrambles * most, delta=0.05, spaces=spaces, streams=scrambles)
    flags, held, tested = 0, 0, 0
    for rep in range(reps):
        p_values, lasts = [], []
        for space in range(spaces):
            points = np.stack(
                [
                    rqmc.to_deviates(
                        rqmc.scramble_points(rqmc.scramble_seed(7, (rep, space), k), 3, most)
                    )
                    for k in range(scrambles)
                ]
            )
            hits_a, hits_b = a(points), b(points)
            p_seen = []
            for pairs in rule.looks():
                n = pairs // scrambles
                x, y = hits_a[:, :n].ravel(), hits_b[:, :n].ravel()
                both, a_only, b_only = int(np.sum(x & y)), int(np.sum(x & ~y)), int(np.sum(~x & y))
                at = rule.look(both, a_only, b_only, x.size - both - a_only - b_only)
                p_seen.append(at.p_value)
                if rule.stop(at):
                    break
            p_values.append(rule.p_value(p_seen))
            lasts.append(at)
        flags += any(p < ALPHA for p in holm(p_values))
        held += sum(at.diff_ci_low <= 0.0 <= at.diff_ci_high for at in lasts)
        tested += len(lasts)
    assert flags / reps <= 0.05
    assert held / tested >= 0.95
