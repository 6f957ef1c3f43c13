"""The one pass over a video's frames (``track_video``): the bale found in each
(sim/real_toy/track.py) with the sizes the camera's pose gives, and the track
cut into shots, each starting with a launch where the barrel can put the bale."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from models.design import Design
from sim.physics.ballistics import direction, release_radius_mm
from sim.real_toy.detect import CameraPose
from sim.real_toy.follow import BaleFinder
from sim.real_toy.piggies_seen import moving_runs
from sim.real_toy.track import (
    LAUNCH_REACH_MM,
    Frames,
    LaunchZone,
    Track,
    split_shots,
    still_background,
)


def pixels_per_mm(pose: CameraPose) -> float:
    """The picture's scale on the board at the pivot, pixels a mm."""
    ten_mm = pose.project(np.array([[0, 0, 0], [10.0, 0, 0], [0, 10.0, 0]]))
    return float(np.mean(np.linalg.norm(ten_mm[1:] - ten_mm[0], axis=1))) / 10


def bale_finder(frames: Frames, pose: CameraPose, design: Design) -> BaleFinder:
    """A finder for a blob the bale's size as seen on the board (from a quarter of
    it, partly hidden or far, to ten times it, blurred and near; smaller blobs are
    the compression's and the sensor's noise), searched at a
    stride that keeps the bale three samples across, with the launch zone
    (:func:`launch_zone`)."""
    px_per_mm = pixels_per_mm(pose)
    bale = design.bale
    across_px = min(bale.width_mm, bale.height_mm) * px_per_mm
    area = bale.length_mm * max(bale.height_mm, bale.width_mm) * px_per_mm**2
    stride = int(min(4, max(1, across_px // 3)))
    background = still_background(frames)
    info = frames.info
    zone = launch_zone(pose, design, (info.width, info.height))
    return BaleFinder(background, max(4.0, 0.25 * area), 10 * area + 50, stride, zone, info.fps)


def launch_zone(pose: CameraPose, design: Design, size: tuple[int, int]) -> LaunchZone:
    """Where a shot's bale can first be seen: its centre from the muzzle to
    :data:`~sim.real_toy.track.LAUNCH_REACH_MM` beyond, for every yaw and pitch the
    barrel can take (the tractor turns all the way round), within two bale
    lengths (the bale first seen a few frames out, past the barrel or the tractor
    hiding its start), and not at the picture's edge (a bale coming back into
    view)."""
    launcher = design.launcher
    pivot = np.array([0.0, 0.0, launcher.pivot_height_mm])
    reach = release_radius_mm(design)
    ways = [
        direction(yaw, pitch)
        for yaw in np.arange(-180.0, 180.0, 10.0)
        for pitch in np.arange(launcher.pitch_min_deg - 5, launcher.pitch_max_deg + 6, 5.0)
    ]
    points = np.array(
        [pivot + r * way for way in ways for r in np.linspace(reach, reach + LAUNCH_REACH_MM, 9)]
    )
    pixels = pose.project(points)
    pixels = pixels[np.isfinite(pixels).all(axis=1)]
    return LaunchZone(pixels, 2 * design.bale.length_mm * pixels_per_mm(pose) + 3, size)


def track_shots(
    frames: Frames,
    pose: CameraPose,
    design: Design,
    with_piggies: bool,
    progress: Callable[[int], None] = lambda done: None,
) -> tuple[Track, list[np.ndarray]]:
    """The bale tracked through every frame, and the track cut into shots (each
    one's frames). With piggies on the board the bale is followed as on the empty
    board (sim/real_toy/follow.py: a piggy lying still is given up for a launch,
    a turned tractor is no bale), and a run that never moves, a knocked piggy
    lying still after its shot's bale is gone, is no shot."""
    finder = bale_finder(frames, pose, design)
    track = track_video(frames, finder, progress)
    info = frames.info
    shots = split_shots(track, info.fps, launch_zone(pose, design, (info.width, info.height)))
    if with_piggies:
        shots = moving_runs(shots, track)
    return track, shots


_NONE = (math.nan, math.nan)


def _recentre(
    recentred: list, present: list, fresh: list, pixels: list, areas: list, fresh_now: bool
) -> bool:
    """The frames the bale may have been one blob with a still change in, given its
    own centroid (or none) (``BaleFinder.recentred``); the first where it is seen
    starts its shot if the span or this frame (``fresh_now``) did. Whether this
    frame still does."""
    span = [len(present) - back for back, _ in recentred]
    launched = fresh_now or any(fresh[i] for i in span)
    for i, (_, centroid) in zip(span, recentred, strict=True):
        present[i], fresh[i] = centroid is not None, False
        pixels[i] = (centroid[0], centroid[1]) if centroid else _NONE
        areas[i] = centroid[2] if centroid else 0.0
    seen = [i for i in span if present[i]]
    if launched and seen:
        fresh[min(seen)] = True
        return False
    return fresh_now


def track_video(
    frames: Frames,
    finder: BaleFinder,
    progress: Callable[[int], None] = lambda done: None,
) -> Track:
    """One pass over every frame: where the bale is in each (the frames the finder
    takes back, a still change followed on trial, are left without it; those it
    measures again, the bale one blob with a still change, get its own centroid)."""
    present: list[bool] = []
    fresh: list[bool] = []
    pixels: list[tuple[float, float]] = []
    areas: list[float] = []
    index = 0
    for frame in frames:
        found = finder.find(frame)
        for back in range(len(present) - finder.taken_back, len(present)):
            present[back], fresh[back], pixels[back], areas[back] = False, False, _NONE, 0.0
        fresh_now = finder.fresh
        if finder.recentred:
            fresh_now = _recentre(finder.recentred, present, fresh, pixels, areas, fresh_now)
        present.append(found is not None)
        fresh.append(fresh_now)
        pixels.append((found[0], found[1]) if found else _NONE)
        areas.append(found[2] if found else 0.0)
        index += 1
        if index % 50 == 0:
            progress(index)
    progress(index)
    pixel = np.array(pixels, float).reshape(-1, 2)
    return Track(np.array(present, bool), pixel, np.array(areas), np.array(fresh, bool))
