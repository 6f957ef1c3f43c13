"""A bounce followed closely by a second turn (a bouncy bale striking again a few
frames after its first touch) is measured at its first touch: the split between
the curves is not moved past the first frame seen off the curve where no frames
are missing there. Image tracks projected through the pose of
tests/sim/real_toy/test_measure.py's camera, as in test_touch_arc.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.physics.ballistics import GRAVITY_MM_S2, direction, release_point_mm
from sim.real_toy.touch import first_touch
from tests.sim.real_toy.test_touch_arc import DESIGN, FPS, _shot

#: The second turn: how many frame periods after the first touch (3.6 in the
#: bouncy film that showed it), and what it does to the velocity after the bounce,
#: per axis (thrown back across the flight, its climb damped).
SECOND_AFTER = 3.0
SECOND_TURN = np.array([-1.0, 0.1, 0.3])
BOUNCE = (0.8, 0.8, -0.7)


def _struck_again(pitch: float, yaw: float, noise_px: float):
    """:func:`test_touch_arc._shot`'s bouncy shot, struck again
    :data:`SECOND_AFTER` frame periods after its first touch."""
    pose, times, points, _, truth, touched, offsets, launch = _shot(pitch, yaw, BOUNCE, noise_px)
    p0, v0 = release_point_mm(DESIGN, yaw, pitch), 2000.0 * direction(yaw, pitch)
    g = np.array([0.0, 0.0, -GRAVITY_MM_S2])
    t_c = touched / FPS
    after = (v0 + g * t_c) * np.array(BOUNCE)
    t_2 = t_c + SECOND_AFTER / FPS
    struck = p0 + v0 * t_c + 0.5 * g * t_c**2 + after * (t_2 - t_c)
    late = times > t_2
    points = points.copy()
    points[late] = struck + (after * SECOND_TURN) * (times[late] - t_2)[:, None]
    noise = np.random.default_rng(3).normal(0, noise_px, (len(times), 2))
    return pose, times, pose.project(points) + noise, truth, offsets, launch


@pytest.mark.parametrize("yaw", [10.0, -10.0, -28.0])
def test_a_bale_striking_again_three_frames_after_its_touch_is_measured_at_its_touch(yaw):
    pose, times, pixels, truth, (depth, ahead), launch = _struck_again(-30.0, yaw, 0.1)

    touch = first_touch(pose, times, pixels, depth, ahead, yaw, launch)

    assert touch is not None
    miss = float(np.linalg.norm(touch.point_mm - truth))
    assert miss < 3.0, miss  # the split moved to the second turn: 10 mm long
    assert math.isfinite(touch.flown_frames)
