"""The early verdict: a knock-out it seals is one the knock-out test gives in every
orientation, the travel bound is the friction closed form, and a world with it on gives
the verdicts of one without it while ending some shots sooner."""

import dataclasses
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from models.layout import layout_from_dict, load_layout
from models.meshes import load_parts
from sim.physics import aim
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.physics.bullet.world import BulletWorld
from sim.physics.early_verdict import (
    Motion,
    PiggyShape,
    knocked_out_beyond_mm,
    sealed_touch_radius_mm,
    touch_radius_mm,
    travel_mm,
)
from sim.physics.knockout import transform, verdict_on
from sim.physics.launch import AimedShot

#: The piggy's parts about its centre of mass, as the world simulates it.
PARTS = [m.vertices for m in load_parts("piggy_principal").values()]
SHAPE = PiggyShape.of(PARTS)
SPACE = (8, 1)


def motion(centre, velocity=(0.0, 0.0, 0.0), spin=(0.0, 0.0, 0.0), gyration_sq=127.0):
    return Motion(tuple(centre), tuple(velocity), tuple(spin), gyration_sq)


def test_shape_of_a_cube():
    """A 10 mm cube about its centre: the largest ball inside has radius 5, the farthest
    vertex is 5 sqrt(3) away."""
    cube = np.array([[x, y, z] for x in (-5, 5) for y in (-5, 5) for z in (-5, 5)], float)
    shape = PiggyShape.of([cube])
    assert shape.inner_radius_mm == pytest.approx(5.0)
    assert shape.outer_radius_mm == pytest.approx(5 * math.sqrt(3))


@pytest.mark.parametrize("rule", ["touches-line", "cleared"])
def test_past_the_threshold_the_piggy_is_out_in_every_orientation(board, rule):
    """The geometric half of the claim: 300 random orientations with the centre of mass
    0.01 mm beyond the threshold, along x and along y, on both sides; every one is
    knocked out by the knock-out test itself."""
    beyond = knocked_out_beyond_mm(SHAPE, board.space_mm, board.line_mm, rule)
    centre = board.space_center_mm(SPACE)
    rotations = Rotation.random(300, random_state=1).as_matrix()
    for i, rotation in enumerate(rotations):
        axis, side = divmod(i, 2)
        offset = np.zeros(3)
        offset[axis % 2] = (beyond + 0.01) * (1 if side else -1)
        position = np.append(centre, 15.0) + offset
        parts = [transform(v, position, rotation) for v in PARTS]
        verdict = verdict_on(
            parts, centre, board.space_mm, board.line_mm, board.surface_extent_mm, rule
        )
        assert verdict.knocked, (i, verdict.reason)


def test_touching_the_line_seals_no_sooner_than_clearing_it(board):
    touches = knocked_out_beyond_mm(SHAPE, board.space_mm, board.line_mm, "touches-line")
    cleared = knocked_out_beyond_mm(SHAPE, board.space_mm, board.line_mm, "cleared")
    assert 0 < touches < board.space_mm / 2 - board.line_mm / 2 < cleared


def test_sliding_distance_is_the_friction_closed_form():
    """Sliding flat out along x at v with nothing else: v^2 / (2 mu g) in all, none of
    it back; a spin adds k^2 w^2 / (2 mu g) to both."""
    low = motion((0, 0, SHAPE.inner_radius_mm), velocity=(300.0, 0, 0))
    back, anywhere = travel_mm(low, SHAPE, 0.3, axis=0)
    assert back == pytest.approx(0.0)
    assert anywhere == pytest.approx(300.0**2 / (2 * 0.3 * GRAVITY_MM_S2))
    spun = dataclasses.replace(low, spin_rad_s=(0, 0, 10.0))
    back_spun, _ = travel_mm(spun, SHAPE, 0.3, axis=0)
    assert back_spun == pytest.approx(127.0 * 100 / (2 * 0.3 * GRAVITY_MM_S2))
    assert travel_mm(low, SHAPE, 0.0, axis=0) == (math.inf, math.inf)


def test_sealed_only_past_the_line_moving_away_with_little_to_bring_it_back(board):
    centre = board.space_center_mm(SPACE)
    beyond = knocked_out_beyond_mm(SHAPE, board.space_mm, board.line_mm, "touches-line")
    lying = SHAPE.inner_radius_mm  # nothing left to fall
    at = (centre[0] + beyond + 5.0, centre[1], lying)

    def reach(**kwargs):
        return sealed_touch_radius_mm(motion(at, **kwargs), centre, SHAPE, 0.3, beyond)

    away = reach(velocity=(200.0, 0, 0))
    assert away == pytest.approx(SHAPE.outer_radius_mm + 200.0**2 / (2 * 0.3 * GRAVITY_MM_S2))
    assert reach(velocity=(-200.0, 0, 0)) is None  # coming back
    assert reach(velocity=(200.0, 0, 0), spin=(0, 0, 30.0)) is None  # spin enough to return
    assert reach(velocity=(200.0, 200.0, 0)) is None  # sideways: enough to turn 5 mm back
    upright = (at[0], at[1], SHAPE.inner_radius_mm + 8.0)  # could still fall over
    assert (
        sealed_touch_radius_mm(motion(upright, (200.0, 0, 0)), centre, SHAPE, 0.3, beyond) is None
    )
    inside = (centre[0] + beyond - 1.0, centre[1], lying)
    assert sealed_touch_radius_mm(motion(inside, (200.0, 0, 0)), centre, SHAPE, 0.3, beyond) is None


def test_reach_of_a_sliding_body_is_its_outline_plus_the_friction_closed_form():
    """At rest on the ground: its outer radius. Sliding at 500 mm/s with mu 0.25 and
    lying as low as it can: that plus v^2 / (2 mu g); raised 2 mm: g * 2 mm more energy."""
    lying = SHAPE.inner_radius_mm
    assert touch_radius_mm(motion((0, 0, lying)), SHAPE, 0.25) == pytest.approx(
        SHAPE.outer_radius_mm
    )
    slide = 500.0**2 / (2 * 0.25 * GRAVITY_MM_S2)
    assert touch_radius_mm(motion((0, 0, lying), (300.0, 400.0, 0)), SHAPE, 0.25) == pytest.approx(
        SHAPE.outer_radius_mm + slide
    )
    assert touch_radius_mm(
        motion((0, 0, lying + 2.0), (300.0, 400.0, 0)), SHAPE, 0.25
    ) == pytest.approx(SHAPE.outer_radius_mm + slide + 2.0 / 0.25)


@pytest.mark.slow
def test_a_world_with_the_early_verdict_judges_the_same_and_ends_sooner(board, design):
    """Grazing shots beside gold-2 (it slides off its space, away from the others): the
    same piggies knocked out with the early verdict as without, every shot ends no
    later, and some end sooner."""
    crowded = load_layout("crowded", board)
    early = dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, early_verdict=True)
    )
    late = dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, early_verdict=False)
    )
    with BulletWorld(board, early, crowded) as quick, BulletWorld(board, late, crowded) as full:
        centre = full.piggy_centre_mm("gold-2")
        along = centre[:2] / np.linalg.norm(centre[:2])
        point = centre + 15.0 * np.array([-along[1], along[0], 0.0])
        s = aim.solve(design, point)[0]
        sooner = 0
        for seed in range(6):
            a = quick.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=seed))
            b = full.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=seed))
            assert a.knocked == b.knocked, seed
            assert a.sim_time_s <= b.sim_time_s + 1e-9, seed
            sooner += a.sim_time_s < b.sim_time_s
    assert sooner >= 1


def test_a_world_not_following_the_bale_to_rest_gives_the_same_verdicts_and_strikes(board, design):
    """A child's shots at a lone piggy (as a hit map fires them): with the bale's early
    verdict the same piggies are knocked out and the bale struck the same things, but
    for its last touches of the board; no shot ends later, and some end sooner."""
    from models.aimer import load_aimer
    from sim.physics.shoot import solve_aim

    lone = layout_from_dict({"stacks": {"r7c3": ["gold-1"]}}, board=board)
    with (
        BulletWorld(board, design, lone) as full,
        BulletWorld(board, design, lone, bale_to_rest=False) as quick,
    ):
        s = solve_aim(full, "gold-1", "low")
        sooner = 0
        for seed in range(8):
            a = full.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=seed, aimer=load_aimer("child")))
            b = quick.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=seed, aimer=load_aimer("child")))
            assert a.knocked == b.knocked, seed
            assert b.contacts == a.contacts[: len(b.contacts)], seed
            assert set(a.contacts[len(b.contacts) :]) <= {"board"}, seed
            assert b.sim_time_s <= a.sim_time_s + 1e-9, seed
            sooner += b.sim_time_s < a.sim_time_s
    assert sooner >= 1
