"""The bale in every frame of a video, and the video cut into shots.

The camera stands still, so everything that is not the board is what changed:
each frame is compared with a median background (frames spread over the video's
first 0.2 s: film the board still a moment before the first shot).
The bale is a blob that became lighter (a straw bale over a green board; its
shadow, darker, is left out), followed from frame to frame
(sim/real_toy/follow.py); its place is the centroid of the
change, each pixel weighted by how much of it the bale covers (sub-pixel). Frames are searched
at a quarter of their size and the centroid taken at full size around what was
found (every 2nd-4th pixel, the bale still a few pixels wide), which keeps a
1080p frame to a few milliseconds.

A shot starts with a launch (:func:`split_shots`): the bale seen again after
still frames with no bale (at least :data:`SHOT_GAP_S`), which is how a filmed
session looks: fire, pick the bale up, set the angles, fire again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.errors import InputError
from models.text import shown
from sim.real_toy import video_file

#: Frames sampled for the median background, over the video's first BACKGROUND_S.
BACKGROUND_FRAMES = 9
BACKGROUND_S = 0.2
#: The bale absent this long ends a shot, s (a bale out of view for less, leaving
#: the top of the frame on a high arc, stays in its shot; ``piggy film`` leaves
#: 0.25 s between shots).
SHOT_GAP_S = 0.1
#: A shot must show the bale in at least this many frames to be a shot at all.
MIN_SHOT_FRAMES = 4
#: A shot starts with a launch: the bale first seen within this distance of the
#: barrel's reach (from the pivot, mm) and moving at least LAUNCH_STEP_PX a frame
#: over its first MIN_SHOT_FRAMES frames.
LAUNCH_REACH_MM = 120.0
LAUNCH_STEP_PX = 0.75
#: A launch's step is its mean over its first LAUNCH_FRAMES frames (a shorter run:
#: all of them), as many as the finder watches a blob followed anew
#: (sim/real_toy/follow.py, STILL_FRAMES + 1). A shot fired along the camera's
#: line of sight barely moves in the picture at first, and gravity bends it off
#: that line, so its steps grow (1.8 m off, 25 deg above, a -25 deg shot leaving
#: 2 deg off the line of sight: 0.4-0.8 px a frame, then 1.0-1.2 px by its 5th to
#: 8th): judged over MIN_SHOT_FRAMES alone it was taken for a bale at rest and
#: its shot merged into the one before. A bale at rest flickers within a pixel
#: however long it is seen.
LAUNCH_FRAMES = 9
#: What the tracking follows must have lain still this long, s, to be given up
#: for a blob moving where a launch starts (a piggy knocked over and left lying
#: while the next shot is fired; within a shot, a bale seen again beside a piggy
#: it knocked, which lay still for a quarter of a second in the films tried).
LAUNCH_AFTER_S = 0.5


@dataclass(frozen=True)
class VideoInfo:
    path: Path
    fps: float
    width: int
    height: int
    frames: int


@dataclass(frozen=True)
class Track:
    """The bale per frame, over the whole video: ``present`` (n,) bool, ``pixel``
    (n, 2) centroid (NaN where absent), ``area`` (n,) changed pixels; ``fresh``
    (n,) bool, where known: the blob was followed anew, not the one followed
    before (a bale hidden and seen again is not fresh: it is no launch)."""

    present: np.ndarray
    pixel: np.ndarray
    area: np.ndarray
    fresh: np.ndarray | None = None


class Frames:
    """A video's frames in order, grey (luma), decoded by ffmpeg in its own process
    (imageio-ffmpeg): the decoding runs beside the tracking, and grey frames are a
    third of the bytes of colour ones."""

    def __init__(self, info: VideoInfo):
        self.info = info

    def __iter__(self) -> Iterator[np.ndarray]:
        import imageio_ffmpeg

        width, height = self.info.width, self.info.height
        reader = imageio_ffmpeg.read_frames(str(self.info.path), pix_fmt="gray", bits_per_pixel=8)
        try:
            next(reader)  # the metadata
            for raw in reader:
                yield np.frombuffer(raw, np.uint8).reshape(height, width)
        finally:
            reader.close()


def open_video(path: str | Path) -> Frames:
    """A video's frames; anything that is not a readable video is refused."""
    import imageio_ffmpeg

    path = video_file(path)
    refusal = (
        f"video {shown(str(path))}: not a video ffmpeg can read (an MP4 or MOV from a "
        "phone, at least 2 frames)"
    )
    try:
        reader = imageio_ffmpeg.read_frames(str(path), pix_fmt="gray", bits_per_pixel=8)
        meta = next(reader)
        first = next(reader, None)
        reader.close()
    except (OSError, RuntimeError, StopIteration, ValueError):
        raise InputError(refusal) from None
    fps, size, duration = (
        meta.get("fps") or 0,
        meta.get("size") or (0, 0),
        meta.get("duration") or 0,
    )
    width, height = (int(v) for v in size)
    if first is None or not fps or fps <= 0 or width * height == 0 or len(first) != width * height:
        raise InputError(refusal)
    frames = max(2, round(float(duration) * float(fps)))
    return Frames(VideoInfo(path, float(fps), width, height, frames))


def first_frames(frames: Frames, count: int) -> list[np.ndarray]:
    """The video's first ``count`` frames (copies)."""
    out = []
    for frame in frames:
        out.append(frame.copy())
        if len(out) == count:
            break
    return out


def still_background(frames: Frames) -> np.ndarray:
    """The per-pixel median of :data:`BACKGROUND_FRAMES` frames spread over the
    video's first :data:`BACKGROUND_S` (the board still before the first shot: a
    bale resting after a shot must not become part of the background)."""
    span = max(BACKGROUND_FRAMES, round(BACKGROUND_S * frames.info.fps))
    step = max(1, span // BACKGROUND_FRAMES)
    picked = []
    for index, frame in enumerate(frames):
        if index % step == 0:
            picked.append(frame.copy())
        if len(picked) == BACKGROUND_FRAMES:
            break
    return np.median(np.stack(picked), axis=0).astype(np.uint8)


@dataclass(frozen=True)
class LaunchZone:
    """Where in the picture a shot can start: the pixels (n, 2) of the bale's centre
    at and just past the muzzle, every way the barrel can point, and how near to
    one of them (px) its first sighting must be; not within ``near_px`` of the
    picture's edge (``size``: width, height), where a bale comes back into view."""

    pixels: np.ndarray
    near_px: float
    size: tuple[int, int]

    def holds(self, pixel: np.ndarray) -> bool:
        u, v = pixel
        width, height = self.size
        inside = min(u, v, width - 1 - u, height - 1 - v) > self.near_px
        near = np.min(np.linalg.norm(self.pixels - pixel, axis=1)) <= self.near_px
        return bool(inside and near)


def split_shots(track: Track, fps: float, zone: LaunchZone | None = None) -> list[np.ndarray]:
    """The frame indices of each shot. A shot starts with a launch: the bale seen
    again after at least :data:`SHOT_GAP_S` without it, or a blob followed anew in
    place of one that lay still for :data:`LAUNCH_AFTER_S` up to the frame before
    (given up for a launch: sim/real_toy/follow.py), in
    :data:`MIN_SHOT_FRAMES` frames or more, moving (:data:`LAUNCH_STEP_PX` a frame
    over its first :data:`LAUNCH_FRAMES`) and
    first seen in the launch ``zone`` (anywhere when None); and where the track
    says which blobs were followed anew (``fresh``), one of those. Every other run
    of frames with the bale belongs to the shot before it: the bale came back into
    view after leaving the top of the picture, passing behind the tractor or a
    piggy or against the wall, or it flickered while at rest. Runs before the first
    launch (noise) are dropped."""
    gap = max(1, round(SHOT_GAP_S * fps))
    seen = np.flatnonzero(track.present)
    if len(seen) == 0:
        return []
    steps = np.diff(seen)
    cut = steps > gap
    if track.fresh is not None:
        lying = round(LAUNCH_AFTER_S * fps)
        cut |= [
            step == 1 and track.fresh[frame] and _lay_still(track.pixel[:frame], lying)
            for step, frame in zip(steps, seen[1:], strict=True)
        ]
    shots: list[list[np.ndarray]] = []
    for run in np.split(seen, np.flatnonzero(cut) + 1):
        fresh = track.fresh is None or track.fresh[run[0]]
        if fresh and _launch(track.pixel[run], zone):
            shots.append([run])
        elif shots:
            shots[-1].append(run)
    return [np.concatenate(runs) for runs in shots]


def _lay_still(pixels: np.ndarray, frames: int) -> bool:
    """Whether the bale followed lay still (within 1 px) over the last ``frames``
    of these."""
    last = pixels[-frames:]
    return len(last) == frames and bool(
        np.isfinite(last).all() and np.ptp(last, axis=0).max() < 1.0
    )


def _launch(pixels: np.ndarray, zone: LaunchZone | None) -> bool:
    """Whether a run of frames (their pixels) starts as a launch does."""
    if len(pixels) < MIN_SHOT_FRAMES:
        return False
    first = pixels[:LAUNCH_FRAMES]
    step = float(np.linalg.norm(np.diff(first, axis=0), axis=1).mean())
    return step >= LAUNCH_STEP_PX and (zone is None or zone.holds(first[0]))
