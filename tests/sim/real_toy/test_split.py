"""Cutting the bale's track into shots, and finding the bale among other changes,
on tracks and frames drawn here (no video): a shot starts only with a launch, so
a bale hidden for a while in mid-flight, coming back into the picture, or at
rest and flickering, stays in its shot; and the bale is followed through size
changes past a larger change that stays still (the tractor turned)."""

from __future__ import annotations

import numpy as np

from sim.real_toy.follow import MIN_CHANGE, BaleFinder
from sim.real_toy.track import LAUNCH_AFTER_S, LaunchZone, Track, split_shots

FPS = 240.0
SIZE = (640, 360)
MUZZLE = np.array([300.0, 250.0])
ZONE = LaunchZone(MUZZLE[None, :], 20.0, SIZE)


def _flight(frames: int, start=MUZZLE, step=(4.0, -3.0), fall=0.05) -> np.ndarray:
    """A launch's pixels: leaving ``start`` at ``step`` px a frame, curving down."""
    k = np.arange(frames)[:, None]
    return start + np.array(step) * k + np.array([0.0, fall]) * k**2


def _track(pieces: list[np.ndarray | int]) -> Track:
    """A track from pieces: pixel runs (seen) and frame counts (not seen)."""
    rows = [np.full((p, 2), np.nan) if isinstance(p, int) else p for p in pieces]
    pixel = np.vstack(rows)
    present = np.isfinite(pixel).all(axis=1)
    return Track(present, pixel, present * 60.0)


def _rest(at: np.ndarray, frames: int) -> np.ndarray:
    return np.tile(at, (frames, 1)) + np.random.default_rng(1).normal(0, 0.05, (frames, 2))


def test_a_bale_hidden_in_mid_flight_stays_in_its_shot():
    """Hidden for 0.15 s in mid-flight (behind the tractor, against the wall),
    then seen again: one shot, not two."""
    flight = _flight(80)
    track = _track([60, flight[:30], 36, flight[66:], 60, _flight(40), 60])
    shots = split_shots(track, FPS, ZONE)
    assert [len(s) for s in shots] == [44, 40]


def test_a_high_arc_leaving_the_top_of_the_picture_stays_in_its_shot():
    """Out over the top edge for 0.3 s and back down through it: one shot."""
    up = _flight(20, step=(1.0, -12.0), fall=0.0)
    down = np.column_stack([np.full(30, 330.0), 2.0 + 9.0 * np.arange(30)])
    track = _track([60, up, 72, down, 60, _flight(40), 60])
    assert [len(s) for s in split_shots(track, FPS, ZONE)] == [50, 40]


def test_a_bale_at_rest_is_never_a_new_shot_and_the_next_launch_is():
    """A bale at rest that drops out of the track for 0.2 s (flickering, or seen
    through a hand) and is seen again where it lay, for seconds, is the same
    shot's; the next shot, launched after it is taken away, is a new one."""
    flight = _flight(40)
    lay = flight[-1]
    track = _track([60, flight, _rest(lay, 100), 48, _rest(lay, 600), 60, _flight(30), 60])
    shots = split_shots(track, FPS, ZONE)
    assert len(shots) == 2
    assert len(shots[0]) == 40 + 100 + 600 and len(shots[1]) == 30


def test_a_launch_starts_a_shot_only_in_the_launch_zone_and_moving():
    """A moving bale first seen away from the muzzle (a sliding bale coming out
    from behind the tractor) continues the shot before it; one seen at the muzzle
    but still is no launch either."""
    far = _flight(30, start=MUZZLE + np.array([150.0, 0.0]))
    track = _track([60, _flight(40), 40, far, 40, _rest(MUZZLE, 30), 60, _flight(30), 60])
    assert [len(s) for s in split_shots(track, FPS, ZONE)] == [100, 30]


def test_a_launch_seen_nearly_end_on_starts_its_own_shot():
    """A shot fired along the camera's line of sight (1.8 m off, 25 deg above,
    a -25 deg shot 2 deg off it) moves under LAUNCH_STEP_PX a frame in its first
    frames (0.4-0.8 px, as filmed), then, bent off that line by gravity, about
    1.1 px: its own shot, not the end of the one before; a bale at rest at the
    muzzle still starts none."""
    steps = np.array([0.4, 0.8, 0.7, 0.8, 1.1, 1.0, 1.2, 1.1] + [1.1] * 31)
    end_on = MUZZLE + np.vstack([[0.0, 0.0], np.cumsum(steps[:, None] * [0.6, 0.8], axis=0)])
    pieces = [60, _flight(40), 60, end_on, 60, _rest(MUZZLE, 30), 60, _flight(30), 60]
    assert [len(s) for s in split_shots(_track(pieces), FPS, ZONE)] == [40, 70, 30]


def test_a_blob_followed_anew_within_a_shot_starts_one_only_after_what_lay_still():
    """A blob followed anew the frame after the bale (the bale hidden, a piggy it
    knocked wobbling at the muzzle) is the same shot; after a piggy that lay still
    for LAUNCH_AFTER_S, a launch beside it starts the next one."""
    wobble = MUZZLE + np.random.default_rng(2).normal(0, 4.0, (20, 2))
    lay = _rest(MUZZLE + np.array([40.0, 0.0]), round(LAUNCH_AFTER_S * FPS))
    pieces = [60, _flight(40), wobble, 40, _flight(30), lay, _flight(30), 60]
    track = _track(pieces)
    fresh = np.zeros(len(track.present), bool)
    fresh[[60, 100, 160, 190 + len(lay)]] = True  # each blob's first frame
    track = Track(track.present, track.pixel, track.area, fresh)
    assert [len(s) for s in split_shots(track, FPS, ZONE)] == [60, 30 + len(lay), 30]


def _bale(frame: np.ndarray, centre, half) -> None:
    u, v = (round(c) for c in centre)
    frame[v - half[1] : v + half[1] + 1, u - half[0] : u + half[0] + 1] = 200


def test_the_bale_is_followed_through_a_size_change_past_a_still_larger_change():
    """A larger lighter patch of a bale's size (the tractor turned by hand) appears
    a few frames before the launch and stays; the bale then grows from 5x3 to
    15x9 px as it flies toward the camera. The bale is found in every frame of its
    flight, never the patch, and the patch joins the background."""
    background = np.full((180, 320), 80, np.uint8)
    finder = BaleFinder(background, min_area_px=8, max_area_px=400, search_scale=1)
    found = []
    for k in range(-12, 40):
        frame = background.copy()
        frame[20:30, 200:220] = 80 + 2 * MIN_CHANGE  # the tractor's patch
        if k >= 0:
            centre = (40 + 3 * k, 150 - 2 * k)
            _bale(frame, centre, (2 + k // 8, 1 + k // 13))
            found.append((finder.find(frame), centre))
        else:
            finder.find(frame)
    for hit, centre in found:
        assert hit is not None and np.hypot(hit[0] - centre[0], hit[1] - centre[1]) < 0.6
    assert (finder.background[20:30, 200:220] > 80 + MIN_CHANGE).all()


def test_the_launch_zone_holds_a_shot_fired_back_toward_the_start():
    """The tractor turns all the way round: a shot at yaw 160 deg (toward the start
    Mud Pit, at the camera behind the board) starts a shot as one at yaw 0 does.
    The zone once spanned yaws -90 to 90 only, and such shots were merged into the
    shot before (37 shots of 40 on a film aimed at every piggy)."""
    import cv2

    from models.design import load_design
    from sim.physics.ballistics import direction, release_radius_mm
    from sim.real_toy.camera import Camera
    from sim.real_toy.detect import CameraPose, Intrinsics
    from sim.real_toy.tracking import launch_zone

    camera = Camera((0.0, -800.0, 700.0), (0.0, 120.0, 0.0), 60.0, 960, 540)
    k = camera.K
    rvec = cv2.Rodrigues(camera.R)[0].ravel()
    pose = CameraPose(Intrinsics(k[0, 0], k[1, 1], k[0, 2], k[1, 2]), rvec, camera.t, 0.1, ())
    design = load_design("stock")
    zone = launch_zone(pose, design, (camera.width, camera.height))
    pivot = np.array([0.0, 0.0, design.launcher.pivot_height_mm])
    for yaw in (0.0, 90.0, 160.0, -160.0, 180.0):
        muzzle = pivot + (release_radius_mm(design) + 20.0) * direction(yaw, -10.0)
        assert zone.holds(pose.project(muzzle[None])[0]), yaw
