"""The stand-ins and the judge on their own: a piggy swapped between its static
stand-in and a dynamic body, and judged against where it stood."""

import numpy as np
import pytest

from models.layout import layout_from_dict
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.scene import Scene
from sim.physics.bullet.stand_ins import StandIns
from sim.physics.judge import Judge


@pytest.fixture
def scene(board, design):
    layout = layout_from_dict({"stacks": {"r8c3": ["gold-1"]}}, board=board)
    with Scene(board, design, layout) as settled:
        yield settled


def mass_g(scene, body):
    return scene.call(pb.getDynamicsInfo, body, -1)[0]


def test_a_stand_in_is_static_where_the_piggy_settled_and_wakes_into_a_dynamic_one(scene, design):
    rest = scene.piggy_pose("gold-1")
    stand_ins = StandIns(scene)
    proxy = scene.piggy_bodies["gold-1"]  # asleep: its body is its stand-in
    assert mass_g(scene, proxy) == 0.0
    assert scene.piggy_pose("gold-1").position_mm == pytest.approx(rest.position_mm)
    body = stand_ins.wake("gold-1")
    assert scene.piggy_bodies["gold-1"] == body != proxy
    assert mass_g(scene, body) == pytest.approx(design.piggy.mass_g)
    assert scene.piggy_pose("gold-1").position_mm == pytest.approx(rest.position_mm)
    assert scene.position_mm(proxy)[2] > 1000.0  # parked in the air, far away
    assert stand_ins.woken == {"gold-1": body} and stand_ins.disturbed == {"gold-1"}
    # moved, then frozen: the stand-in comes back where the piggy now lies
    moved = [(rest.position_mm[0] + 30.0) * CM_PER_MM, *(rest.position_mm[1:] * CM_PER_MM)]
    scene.call(pb.resetBasePositionAndOrientation, body, moved, [0, 0, 0, 1])
    stand_ins.freeze("gold-1")
    assert scene.piggy_bodies["gold-1"] == proxy and stand_ins.woken == {}
    assert scene.position_mm(proxy) == pytest.approx(np.array(moved) / CM_PER_MM)
    stand_ins.remove_made()
    stand_ins.reset()
    assert scene.piggy_pose("gold-1").position_mm == pytest.approx(rest.position_mm)
    assert stand_ins.disturbed == set() and body not in scene.names


def test_only_a_mover_within_reach_wakes_a_stand_in(scene):
    """The bale's bounding box 20 mm from the stand-in's, then 5 mm: with a reach of
    10 mm only the second look wakes it."""
    stand_ins = StandIns(scene)
    stand_in_right = scene.call(pb.getAABB, scene.piggy_bodies["gold-1"])[1][0]  # cm
    centre = scene.piggy_pose("gold-1").position_mm * CM_PER_MM

    def bale_box_apart_by(gap_cm):
        scene.call(pb.resetBasePositionAndOrientation, scene.bale, [0, 0, 50.0], [0, 0, 0, 1])
        scene.call(pb.performCollisionDetection)
        low, high = scene.call(pb.getAABB, scene.bale)
        x = stand_in_right + gap_cm + (high[0] - low[0]) / 2
        scene.call(
            pb.resetBasePositionAndOrientation, scene.bale, [x, centre[1], 2.0], [0, 0, 0, 1]
        )
        scene.call(pb.performCollisionDetection)

    bale_box_apart_by(2.0)
    stand_ins.wake_near([scene.bale], step=0, reach_cm=1.0)
    assert stand_ins.woken == {}
    assert stand_ins.look_at == 1  # the gap could close within two reaches: look again soon
    bale_box_apart_by(0.5)
    stand_ins.wake_near([scene.bale], step=1, reach_cm=1.0)
    assert list(stand_ins.woken) == ["gold-1"]


def test_the_judge_knocks_out_a_piggy_pushed_off_its_space_and_says_how_far(scene, board):
    stand_ins = StandIns(scene)
    judge = Judge(scene)
    assert not judge.at_rest["gold-1"].knocked
    start = judge.at_rest["gold-1"].start_pose
    body = stand_ins.wake("gold-1")
    pushed = (start.position_mm + np.array([board.space_mm, 0.0, 0.0])) * CM_PER_MM
    orientation = scene.call(pb.getBasePositionAndOrientation, body)[1]
    scene.call(pb.resetBasePositionAndOrientation, body, pushed.tolist(), orientation)
    verdict = judge.verdicts(["gold-1"])["gold-1"]
    assert verdict.knocked
    assert verdict.moved_mm == pytest.approx(board.space_mm)
    assert verdict.start_pose is start
    assert verdict.final_pose.position_mm == pytest.approx(pushed / CM_PER_MM)
