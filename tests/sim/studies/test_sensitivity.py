"""Which guesses matter (sim/studies/maps/sensitivity.py): the estimate recovers known
effects within its intervals on synthetic shots, finds none when the outcomes are
shuffled against the factors, and reads a real ``--vary`` hit map's own shots."""

import json

import numpy as np
import pytest

from sim.studies.maps.sensitivity import STEP, ShotDraws, draws_of, estimate
from sim.views.sensitivity_picture import sensitivity_section
from tests.helpers import cli_spec, run

NAMES = ("mass", "bale_friction", "piggy_restitution")
HALVES = (0.75, 0.5, 0.5)
#: The board mean's slopes in each factor's uniform: mass matters, restitution not.
SLOPES = np.array([-0.2, 0.06, 0.0])


def synthetic(seed: int, slopes=SLOPES, spaces: int = 10, per_space: int = 200) -> ShotDraws:
    """Shots whose P is linear in the factors, about a base that differs by space."""
    rng = np.random.default_rng(seed)
    units = rng.uniform(-1.0, 1.0, (spaces * per_space, len(NAMES)))
    space = np.repeat(np.arange(spaces), per_space)
    base = rng.uniform(0.35, 0.65, spaces)
    p = base[space] + units @ slopes
    knocked = (rng.random(len(p)) < p).astype(float)
    return ShotDraws(NAMES, HALVES, units, knocked, space)


def truth(slopes=SLOPES) -> dict[str, float]:
    return {n: s * STEP / h for n, s, h in zip(NAMES, slopes, HALVES, strict=True)}


def shuffled(draws: ShotDraws, seed: int) -> ShotDraws:
    """The same shots with their outcomes shuffled against their factors."""
    order = np.random.default_rng(seed).permutation(len(draws.knocked))
    return ShotDraws(draws.names, draws.half_ranges, draws.units, draws.knocked[order], draws.space)


def test_what_matters_is_found_and_lost_when_outcomes_are_shuffled():
    """On one synthetic map mass comes out first, clearly, near its true change (about
    ten standard errors from none); with the outcomes shuffled against the factors
    its interval no longer holds it."""
    draws = synthetic(0)
    found = estimate(draws)
    mass = found.effects[0]
    assert mass.name == "mass" and mass.clear
    assert mass.per_step_ci[0] <= truth()["mass"] <= mass.per_step_ci[1]
    lost = {e.name: e for e in estimate(shuffled(draws, 1)).effects}["mass"]
    assert not lost.per_step_ci[0] <= truth()["mass"] <= lost.per_step_ci[1]


@pytest.mark.slow
def test_the_intervals_hold_known_effects_at_their_level():
    """Over 12 synthetic hit maps the 95 % intervals hold the true change for +10 % in
    at least 30 of the 36 (a calibrated interval misses about 2; 6 misses would be 3
    standard deviations out), and mass's share interval holds its true share in at
    least 10 of 12; with the outcomes shuffled, at most 6 of the 36 intervals leave
    out no effect (about 2 expected)."""
    true_shares = SLOPES**2 / np.sum(SLOPES**2)
    held = shares_held = false_alarms = 0
    for seed in range(12):
        draws = synthetic(seed)
        effects = {e.name: e for e in estimate(draws).effects}
        for name, value in truth().items():
            low, high = effects[name].per_step_ci
            held += low <= value <= high
        low, high = effects["mass"].share_ci
        shares_held += low <= true_shares[0] <= high
        false_alarms += sum(e.clear for e in estimate(shuffled(draws, seed)).effects)
    assert held >= 30 and shares_held >= 10 and false_alarms <= 6


def test_sensitivity_without_vary_exits_2_with_one_line_and_writes_nothing(capsys, tmp_path):
    out = tmp_path / "map.csv"
    code, stdout, err = run(
        capsys, "hitmap", "--spaces", "r2c3", "--shots", "40", "--sensitivity", "--out", str(out)
    )
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and "--sensitivity" in err and "--vary" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_vary_hit_map_reads_its_own_shots(capsys, tmp_path):
    """A small ``--vary`` hit map says which guesses matter from its own shots (one
    row per factor named, in --json and as a table), and the factors it reads back
    are those each shot was fired with (the shot replayed from its row)."""
    from models.board import load_board
    from models.design import load_design
    from sim.physics.registry import make_world
    from sim.studies.comparing.report import replay
    from sim.studies.shots.space_firing import run_space

    argv = ["hitmap", "--spaces", "r2c3,r3c3", "--shots", "40", "--workers", "1"]
    vary = ["--vary", "mass=0.75,bale_restitution=0.5"]
    out = tmp_path / "map.csv"
    code, stdout, _ = run(capsys, *argv, *vary, "--sensitivity", "--json", "--out", str(out))
    assert code == 0
    found = json.loads(stdout)["sensitivity"]
    assert {e["parameter"] for e in found["effects"]} == {"mass", "bale_restitution"}
    assert found["shots"] == 80 and found["spaces"] == 2
    code, stdout, _ = run(capsys, *argv, *vary, "--sensitivity", "--out", str(tmp_path / "b.csv"))
    assert "piggy mass" in stdout and "bale restitution" in stdout
    spec = cli_spec(argv[:-2] + vary)
    part = run_space(spec, "r2c3")
    draws = draws_of(spec, [part])
    board, design = load_board(spec.board), load_design(spec.design)
    with make_world(board, design, hit_rule=spec.hit_rule) as world:
        for index in (0, 7, 21):
            fired = replay(world, spec, "r2c3", part.shots[index]).materials
            assert 1 + 0.75 * draws.units[index, 0] == pytest.approx(fired.mass, abs=1e-12)
            assert 1 + 0.5 * draws.units[index, 1] == pytest.approx(
                fired.bale_restitution, abs=1e-12
            )
    assert draws.knocked.tolist() == [float(r.target_knocked) for r in part.shots]


@pytest.mark.slow
def test_the_design_report_of_a_vary_comparison_says_which_guesses_matter(capsys, tmp_path):
    """``design compare --vary --html``: the page has the section, its picture and one
    table with a row per parameter and each design's figures."""
    page = tmp_path / "report.html"
    code, _, _ = run(
        capsys,
        *("design", "compare", "stock", "fast-spring", "--spaces", "r7c3,r2c3"),
        *("--shots", "40", "--workers", "1", "--cache", str(tmp_path / "cache")),
        *("--vary", "mass=0.75,bale_restitution=0.5", "--html", str(page)),
    )
    assert code == 0
    text = page.read_text()
    section = text[text.index("<h2>Which guesses matter") : text.index("<h2>Space by space")]
    assert 'alt="which guesses matter" src="data:image/png;base64,' in section
    table = section[section.index('<table id="guesses-table">') :]
    assert table.count("<tr>") == 4  # the head, two parameters, all together
    assert "piggy mass" in table and "bale restitution" in table
    assert "stock: board mean, +10 %" in table and "fast-spring: share" in table
    assert sensitivity_section({}) == ""  # a comparison without --vary has no section
