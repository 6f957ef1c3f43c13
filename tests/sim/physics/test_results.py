"""A shot's result is a frozen, complete record: the aim as fired, every piggy's pose
before and after, enough to draw it with no simulation."""

import dataclasses
import math

import numpy as np
import pytest

from models.layout import layout_from_dict
from sim.physics.ballistics import direction
from sim.physics.bullet.world import BulletWorld
from sim.physics.geometry import PiggyModel
from sim.physics.launch import AimedShot


@pytest.fixture(scope="module")
def world(board, design):
    layout = layout_from_dict({"stacks": {"r8c3": ["gold-1"], "r2c1": ["green-1"]}}, board=board)
    with BulletWorld(board, design, layout) as built:
        yield built


def test_a_shot_is_born_with_the_aim_it_was_fired_with_and_cannot_be_changed(world):
    exact = world.shoot(AimedShot(12.5, 7.25, noise=False))
    assert (exact.yaw_deg, exact.pitch_deg) == (12.5, 7.25)
    assert exact.speed_mm_s == world.design.launcher.muzzle_speed_mm_s
    noisy = world.shoot(AimedShot(12.5, 7.25, seed=3))
    assert math.isfinite(noisy.yaw_deg) and noisy.yaw_deg != 12.5
    assert noisy.to_dict()["bale"]["yaw_deg"] == round(noisy.yaw_deg, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        exact.yaw_deg = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        exact.piggies["gold-1"].knocked = True  # type: ignore[misc]


def test_a_launch_reports_its_heading_as_its_aim(world):
    result = world.launch([0.0, -200.0, 60.0], 1500.0 * direction(-30.0, 20.0))
    assert result.yaw_deg == pytest.approx(-30.0)
    assert result.pitch_deg == pytest.approx(20.0)
    assert result.speed_mm_s == pytest.approx(1500.0)


def test_every_piggy_s_start_and_final_pose_are_in_the_result(world, board):
    model = PiggyModel.load()
    hit = world.shoot(AimedShot(0.0, 0.0, noise=False))  # straight ahead at r8c3
    assert set(hit.piggies) == {"gold-1", "green-1"}
    for piggy, shot in hit.piggies.items():
        start = model.centre_at(shot.start_pose)
        space = board.space_center_mm(world.layout.space_of(piggy))
        assert np.linalg.norm(start[:2] - space) < 3.0  # it started on its space
        final = model.own_frame(shot.final_pose)[0]
        assert list(final) == pytest.approx(shot.final_position_mm)
    green = hit.piggies["green-1"]  # behind the tractor: untouched
    assert green.final_pose.position_mm == pytest.approx(green.start_pose.position_mm)
