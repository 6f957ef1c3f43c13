"""What is nearer hides what is behind it in a film (sim/real_toy/bodies.py): parts
drawn in any order, a part drawn later over a background drawn before (a piggy
moving in front of still ones), and the bale drawn behind a body."""

from __future__ import annotations

import numpy as np
import pytest

from sim.real_toy.bodies import Part, far_depth, paint
from sim.real_toy.camera import Camera

pytest.importorskip("cv2")

CAMERA = Camera((0.0, -800.0, 700.0), (0.0, 120.0, 0.0), 60.0, 320, 180)
GAIN = np.ones((CAMERA.height, CAMERA.width), np.float32)
RED, BLUE = np.array([200.0, 20, 20]), np.array([20.0, 20, 200])


def _box(y_mm: float) -> np.ndarray:
    """A 60 mm cube standing on the board at (0, y_mm)."""
    return np.array([[x, y_mm + dy, z] for x in (-30, 30) for dy in (-30, 30) for z in (0, 60)])


def _drawn(parts):
    image = np.zeros((CAMERA.height, CAMERA.width, 3), np.uint8)
    depth = far_depth(CAMERA)
    paint(image, depth, CAMERA, parts, GAIN, edges=False)
    return image, depth


def _centre_pixel(y_mm: float):
    u, v = np.round(CAMERA.project(np.array([0.0, y_mm, 30.0]))).astype(int)
    return v, u


def test_the_nearer_part_is_seen_whatever_the_order_they_are_given_in():
    near, far = Part(_box(0.0), BLUE), Part(_box(60.0), RED)
    for parts in ([near, far], [far, near]):
        image, depth = _drawn(parts)
        v, u = _centre_pixel(30.0)  # where the near cube's top hides the far one
        assert image[v, u, 2] > 150 and image[v, u, 0] < 50
        assert np.isfinite(depth[v, u])


def test_a_part_drawn_later_stays_behind_what_was_drawn_nearer_before():
    image, depth = _drawn([Part(_box(0.0), BLUE)])
    paint(image, depth, CAMERA, [Part(_box(60.0), RED)], GAIN, edges=False)
    v, u = _centre_pixel(30.0)
    assert image[v, u, 2] > 150  # still the near (blue) cube
    v, u = _centre_pixel(90.0)
    assert image[v, u, 0] > 150  # the far one shows above it


def test_the_bale_is_hidden_behind_a_nearer_body():
    """draw_bale with the scene's depth: a bale lying just behind a cube, below
    the camera's line over it, leaves the cube's pixels as they were; without the
    depth it is drawn over them."""
    from models.design import load_design
    from sim.physics.results import Recording, ShotResult
    from sim.real_toy.bale_frames import draw_bale
    from sim.real_toy.film import FilmSettings

    design = load_design("stock")
    image, depth = _drawn([Part(_box(0.0), BLUE)])
    rec = Recording(
        1e-3,
        np.array([[0.0, 50.0, 3.0]] * 3),
        np.array([[0.0, 0.0, 0.0, 1.0]] * 3),
        np.ones(3, bool),
        {},
        {},
    )
    shot = ShotResult(0, 0, 2000, [0, 0, 0], None, None, None, [0, 0, 0], [], [], 0, True, {}, "")
    shot = ShotResult(**{**shot.__dict__, "recording": rec})
    settings = FilmSettings(exposure=0.0, rolling_shutter=0.0)
    hidden = draw_bale(
        image, GAIN, CAMERA, design.bale.hull_mm, shot, 1e-3, settings.exposed, depth
    )
    shown = draw_bale(image, GAIN, CAMERA, design.bale.hull_mm, shot, 1e-3, settings.exposed)
    assert hidden is not None and shown is not None
    rows, cols, picture = hidden
    cube = np.isfinite(depth[rows, cols])
    assert cube.any()
    assert np.array_equal(picture[cube], image[rows, cols][cube])  # the cube, untouched
    assert shown[:2] == (rows, cols)
    assert not np.array_equal(shown[2][cube], image[rows, cols][cube])
