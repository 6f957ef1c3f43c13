"""The check round trip on small sandbox films (sim/studies/calibrating/toy_check.py):
a film of the sandbox's own design passes, a film of a toy with 4x heavier piggies
is refused, and the refusal's ΔP interval holds the true difference, computed from
more shots of both designs at the same launches. Its error rates over many films
are tests/sim/studies/test_toy_check_stats.py's and docs/real-toy.md's."""

import numpy as np
import pytest

from models.board import load_board
from models.design import load_design
from models.layout import load_layout
from sim.studies.calibrating.knocked_csv import parse_knocked_shots
from sim.studies.calibrating.knocked_shots import aimed_angles, heavier_piggies, sandbox_film_csv
from sim.studies.calibrating.toy_check import CheckSpec, fire_refires, launches_of, toy_check

pytestmark = pytest.mark.slow

SHOTS, REFIRES = 12, 40


@pytest.fixture(scope="module")
def scene():
    board, layout, stock = load_board("stock"), load_layout("crowded"), load_design("stock")
    angles = aimed_angles(board, stock, layout, SHOTS)
    piggies = sorted(layout.piggies)
    films = {
        name: parse_knocked_shots(
            sandbox_film_csv(toy, board, layout, angles, seed=7), piggies, source=name
        )
        for name, toy in (("stock", stock), ("heavy", heavier_piggies(stock, 4.0)))
    }
    spec = CheckSpec(board, stock, layout, REFIRES, seed=1)
    return spec, films


def test_a_film_of_the_same_design_is_consistent_with_the_sandbox(scene):
    spec, films = scene
    check = toy_check(films["stock"], spec)
    stats = check.statistics
    assert not stats.rejected
    lo, hi = stats.delta_p_interval
    assert lo <= 0 <= hi
    assert stats.observed_total > SHOTS / 2  # the angles are aimed: knock-outs happen
    assert stats.skill is not None and stats.skill > 0.3  # the shot tells who falls


def test_a_toy_of_heavier_piggies_is_refused_and_its_difference_measured(scene):
    spec, films = scene
    stats = toy_check(films["heavy"], spec).statistics
    assert stats.rejected and stats.delta_p < 0
    # the true difference at these launches: the heavy toy's P's against the stock's
    launches = launches_of(films["heavy"], spec.design)
    heavy = CheckSpec(spec.board, heavier_piggies(spec.design, 4.0), spec.layout, 100, seed=2)
    stock = CheckSpec(spec.board, spec.design, spec.layout, 100, seed=3)
    true_delta = float(
        np.mean(fire_refires(heavy, launches).mean(axis=1) - fire_refires(stock, launches).mean(1))
    )
    lo, hi = stats.delta_p_interval
    assert lo <= true_delta <= hi < 0


def test_the_film_says_what_the_sandbox_shot_knocked_out(scene):
    spec, films = scene
    film = films["stock"]
    assert len(film) == SHOTS and not any(film.unseen)
    assert film.knocked[0] == {"blue-1"}  # aimed at blue-1, fired at the degree read
    assert set().union(*film.knocked) <= set(spec.layout.piggies)
