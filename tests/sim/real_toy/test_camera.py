"""The pinhole camera of piggy film against its closed form: the optical axis at the
image's centre, the field of view's edges at the image's edges, the board's +x to
the right and +z up in the picture, and every bad setting refused on one line."""

import math

import numpy as np
import pytest

from models.errors import InputError
from sim.real_toy.camera import make_camera


def test_a_point_on_the_optical_axis_lands_at_the_centre():
    camera = make_camera((100, -900, 700), (20, 50, 0), 60, 640, 480)
    axis = np.subtract(camera.look_at_mm, camera.position_mm)
    for reach in (0.3, 1.0, 2.5):
        pixel = camera.project(np.add(camera.position_mm, reach * axis))
        assert pixel == pytest.approx([319.5, 239.5], abs=1e-9)


@pytest.mark.parametrize("fov", [20.0, 60.0, 120.0])
def test_the_field_of_view_spans_the_image_edge_to_edge(fov):
    """A point at half the field of view left or right of the axis lands on the
    image's left or right edge (pixel centres are whole, edges at -0.5, W - 0.5)."""
    camera = make_camera((0, -1000, 0.5), (0, 0, 0.5), fov, 800, 600)
    half = math.radians(fov / 2)
    for side, edge in ((1, 799.5), (-1, -0.5)):
        point = (side * 1000 * math.tan(half), 0, 0.5)  # level camera looking along +y
        assert camera.project(point)[0] == pytest.approx(edge, abs=1e-6)


def test_the_picture_is_upright_and_plus_x_is_to_the_right():
    """From the start Mud Pit's side (-y) looking at the trough: +x to the right,
    +z up, a point behind the camera has no pixel."""
    camera = make_camera((0, -900, 600), (0, 0, 0), 50, 640, 480)
    centre = camera.project((0, 0, 0))
    assert camera.project((50, 0, 0))[0] > centre[0]
    assert camera.project((0, 0, 50))[1] < centre[1]
    assert np.isnan(camera.project((0, -2000, 1200))).all()


def test_the_board_homography_agrees_with_the_projection():
    camera = make_camera((300, -800, 900), (0, 50, 0), 70, 1280, 720)
    points = np.array([[0, 0], [120, -80], [-200, 300]], float)
    mapped = (camera.board_homography() @ np.column_stack([points, np.ones(3)]).T).T
    projected = camera.project(np.column_stack([points, np.zeros(3)]))
    assert mapped[:, :2] / mapped[:, 2:] == pytest.approx(projected, abs=1e-6)


def test_looking_straight_down_is_allowed():
    camera = make_camera((0, 0, 1000), (0, 0, 0), 60, 640, 480)
    assert camera.project((0, 0, 0)) == pytest.approx([319.5, 239.5])
    assert camera.project((0, 100, 0))[1] < 239.5  # +y up the picture


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        (((0, -900, 700), (0, 0, 0), 1.0, 640, 480), "--fov 1 is out of range"),
        (((0, -900, 700), (0, 0, 0), 170.0, 640, 480), "--fov 170 is out of range"),
        (((0, -900, 0), (0, 0, 0), 60.0, 640, 480), "on or under the board"),
        (((0, -900, -5), (0, 0, 0), 60.0, 640, 480), "on or under the board"),
        (((0, 0, 500), (0, 0, 500), 60.0, 640, 480), "are the same point"),
        (((0, -900, 700), (0, 0, 0), 60.0, 641, 480), "a width of 641 px"),
        (((0, -900, 700), (0, 0, 0), 60.0, 640, 8), "a height of 8 px"),
    ],
)
def test_a_bad_camera_is_refused_on_one_line(settings, error):
    with pytest.raises(InputError, match=error) as caught:
        make_camera(*settings)
    assert "\n" not in str(caught.value)
