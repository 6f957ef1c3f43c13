"""The static geometry the engine builds from and the views draw: fences, the piggy's
model, where a layout's piggies are put down."""

import math

import numpy as np
import pytest

from models.layout import layout_from_dict
from sim.physics.geometry import (
    DROP_CLEARANCE_MM,
    BodyPose,
    PiggyModel,
    fence_boxes,
    rotation_z,
)


def test_every_fence_box_covers_its_segment_and_its_two_descriptions_agree(board):
    """The engine and the renderer turn a box by its yaw; the replay page places it by
    its corners: both describe the same box."""
    boxes = fence_boxes(board)
    assert len(boxes) == len(board.fence_segments_mm()) == 8
    for box, (a, b) in zip(boxes, board.fence_segments_mm(), strict=True):
        low, high = box.bounds_mm()
        half = np.array(box.half_extents_mm)
        turn = rotation_z(box.yaw_rad)
        corners = np.array(box.centre_mm) + np.array(
            [turn @ (half * np.array(s)) for s in [(1, 1, 1), (-1, -1, -1), (1, -1, 1)]]
        )
        assert corners.min(axis=0) == pytest.approx(low, abs=1e-9)
        assert corners.max(axis=0) == pytest.approx(high, abs=1e-9)
        for end in (a, b):  # the centre line lies inside, with half a thickness to spare
            assert np.all(low[:2] + board.fence_thickness_mm / 2 - 1e-9 <= end)
            assert np.all(end <= high[:2] - board.fence_thickness_mm / 2 + 1e-9)
        assert (low[2], high[2]) == (0.0, board.fence_height_mm)


def test_a_piggy_is_put_down_on_its_space_facing_forward_and_a_stack_one_above(board):
    model = PiggyModel.load()
    layout = layout_from_dict(
        {"stacks": {"r8c3": ["gold-2", "pink-1"], "r2c1": ["green-1"]}}, board=board
    )
    poses = model.drop_poses_mm(board, layout)
    assert list(poses) == layout.piggies
    for piggy in ("gold-2", "green-1"):
        origin, rotation = model.own_frame(poses[piggy])
        space = layout.space_of(piggy)
        assert origin[:2] == pytest.approx(board.space_center_mm(space), abs=1e-9)
        assert origin[2] == pytest.approx(DROP_CLEARANCE_MM)
        assert rotation == pytest.approx(np.eye(3), abs=1e-6)  # facing up (cached axes: 1e-9)
        lowest = np.vstack(model.parts_at(poses[piggy]))[:, 2].min()
        assert 0.0 < lowest <= DROP_CLEARANCE_MM + 0.5  # just above the board
    top, _ = model.own_frame(poses["pink-1"])
    assert top[2] == pytest.approx(DROP_CLEARANCE_MM + 0.75 * model.mass["height_mm"])


def test_parts_and_centre_follow_a_pose():
    model = PiggyModel.load()
    home = BodyPose(np.zeros(3), np.eye(3))
    for part, moved in zip(model.parts_mm, model.parts_at(home), strict=True):
        assert moved == pytest.approx(part)
    half_turn = BodyPose(np.array([10.0, 0.0, 0.0]), rotation_z(math.pi))
    centre = model.centre_at(home)
    expected = rotation_z(math.pi) @ centre + np.array([10.0, 0.0, 0.0])
    assert model.centre_at(half_turn) == pytest.approx(expected)
