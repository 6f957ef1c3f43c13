"""The tracking with piggies on the board (``piggy measure --layout``): a piggy
knocked onto the green board is lighter than it, as the bale is, and a follower
that once took it for the bale keeps it while it lies still, missing the next
launch beside it; with a layout the bale is the largest new blob of each frame
(sim/real_toy/tracking.py, ``track_shots``). Frames drawn here, no video; slow: 200
frames at 640x360 searched whole (a few seconds under load)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.design import load_design
from sim.physics.ballistics import direction, release_point_mm
from sim.real_toy.camera import Camera
from sim.real_toy.detect import CameraPose, Intrinsics
from sim.real_toy.track import VideoInfo
from sim.real_toy.tracking import pixels_per_mm, track_shots

CAMERA = Camera((0.0, -500.0, 450.0), (0.0, 120.0, 0.0), 60.0, 640, 360)
DESIGN = load_design("stock")
pytestmark = pytest.mark.slow
BOARD_GREY = 70
#: when the piggy slides in and stops, and when the bale is launched
PIGGY_FROM, PIGGY_STOPS, LAUNCH, END = 50, 58, 75, 100


class _Frames:
    """Frames drawn in memory, read as ``sim.real_toy.track.Frames`` are."""

    def __init__(self, frames: list[np.ndarray]):
        self.frames = frames
        height, width = frames[0].shape
        self.info = VideoInfo(Path("drawn.mp4"), 240.0, width, height, len(frames))

    def __iter__(self):
        return iter(self.frames)


def _pose() -> CameraPose:
    k = CAMERA.K
    rvec = cv2.Rodrigues(CAMERA.R)[0].ravel()
    return CameraPose(Intrinsics(k[0, 0], k[1, 1], k[0, 2], k[1, 2]), rvec, CAMERA.t, 0.1, ())


def _blob(frame: np.ndarray, centre, half: tuple[int, int], lighter: int) -> None:
    u, v = (round(c) for c in centre)
    frame[v - half[1] : v + half[1] + 1, u - half[0] : u + half[0] + 1] += lighter


def _film(pose: CameraPose):
    """A still board; a piggy slides in (knocked by a shot before) and lies
    still, somewhat smaller than the bale; then a shot is launched from the
    barrel, while the piggy still lies there. The bale's pixels a frame from the
    launch on."""
    scale = pixels_per_mm(pose)
    bale = DESIGN.bale
    bale_half = (round(bale.length_mm * scale / 2), round(bale.width_mm * scale / 2))
    piggy_half = (round(0.35 * bale.length_mm * scale), round(0.35 * bale.width_mm * scale))
    start, velocity = release_point_mm(DESIGN, 0.0, 8.0), 2000.0 * direction(0.0, 8.0)
    times = (np.arange(END - LAUNCH) + 1) / 240.0
    flight = pose.project(start + velocity * times[:, None])
    piggy_at = pose.project(np.array([[120.0, 200.0, 0.0]]))[0]
    frames = []
    for index in range(END):
        frame = np.full((CAMERA.height, CAMERA.width), BOARD_GREY, np.uint8)
        if index >= PIGGY_FROM:
            slid = 2.0 * (min(index, PIGGY_STOPS) - PIGGY_STOPS)
            _blob(frame, piggy_at + np.array([slid, 0.0]), piggy_half, 60)
        if index >= LAUNCH:
            _blob(frame, flight[index - LAUNCH], bale_half, 100)
        frames.append(frame)
    return _Frames(frames), flight


def test_with_piggies_the_launch_beside_a_piggy_lying_still_is_tracked():
    """With piggies, every launch frame's centroid is the bale's (within 1 px);
    without them (the follower, which a resting bale needs) the track stays on
    the piggy, 60 px or more from the bale: the check fails if ``--layout``'s
    tracking is made the follower again."""
    pose = _pose()
    frames, flight = _film(pose)
    track, _ = track_shots(frames, pose, DESIGN, with_piggies=True)
    launched = track.pixel[LAUNCH:END]
    assert track.present[LAUNCH:END].all()
    assert np.linalg.norm(launched - flight, axis=1).max() < 1.0
    followed, _ = track_shots(frames, pose, DESIGN, with_piggies=False)
    assert np.linalg.norm(followed.pixel[LAUNCH:END] - flight, axis=1).min() > 60.0
