"""The bale in every frame of a video, and the video cut into shots.

The camera stands still, so everything that is not the board is what changed:
each frame is compared with a median background (frames spread over the video's
first 0.2 s: film the board still a moment before the first shot).
The bale is the largest blob that became lighter (a straw bale over a green
board; its shadow, darker, is left out); its place is the centroid of the
change, weighted by how much each pixel changed (sub-pixel). Frames are searched
at a quarter of their size and the centroid taken at full size around what was
found (every 2nd-4th pixel, the bale still a few pixels wide), which keeps a
1080p frame to a few milliseconds.

A shot is a run of frames with the bale in view; shots are separated by still
frames with no bale (at least :data:`SHOT_GAP_S`), which is how a filmed session
looks: fire, pick the bale up, set the angles, fire again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.errors import InputError
from models.text import shown
from sim.video import video_file

#: Frames sampled for the median background, over the video's first BACKGROUND_S.
BACKGROUND_FRAMES = 9
BACKGROUND_S = 0.2
#: The bale absent this long ends a shot, s (a bale out of view for less, leaving
#: the top of the frame on a high arc, stays in its shot; ``piggy film`` leaves
#: 0.25 s between shots).
SHOT_GAP_S = 0.1
#: A shot must show the bale in at least this many frames to be a shot at all.
MIN_SHOT_FRAMES = 4
#: Least change (0-255 grey levels) a pixel must show to belong to the bale.
MIN_CHANGE = 25


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
    (n, 2) centroid (NaN where absent), ``area`` (n,) changed pixels."""

    present: np.ndarray
    pixel: np.ndarray
    area: np.ndarray


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


class BaleFinder:
    """Finds the bale in frames against one background."""

    def __init__(
        self, background: np.ndarray, min_area_px: float, max_area_px: float, search_scale: int
    ):
        self.background = background
        self.scale = search_scale
        self.small_background = background[::search_scale, ::search_scale]
        # Sharp edges of the still picture (the markers' black and white) flicker
        # with the compression: a change there must be larger to count.
        edges = cv2.morphologyEx(background, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        self.small_margin = np.ascontiguousarray((edges // 2)[::search_scale, ::search_scale])
        self.min_area = min_area_px
        self.max_area = max_area_px

    def find(self, frame: np.ndarray) -> tuple[float, float, float] | None:
        """The bale's centroid (u, v) and area in pixels, or None when not in view."""
        change = cv2.subtract(frame[:: self.scale, :: self.scale], self.small_background)
        change = cv2.subtract(change, self.small_margin)
        _, mask = cv2.threshold(change, MIN_CHANGE, 255, cv2.THRESH_BINARY)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if count < 2:
            return None
        biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        x, y, w, h, _ = stats[biggest]
        s = self.scale
        height, width = frame.shape[:2]
        x0, y0 = max(0, (x - 2) * s), max(0, (y - 2) * s)
        x1, y1 = min(width, (x + w + 2) * s), min(height, (y + h + 2) * s)
        full = cv2.subtract(frame[y0:y1, x0:x1], self.background[y0:y1, x0:x1]).astype(np.float32)
        weight = np.where(full >= MIN_CHANGE, full - MIN_CHANGE / 2, 0.0)
        area = float(np.count_nonzero(weight))
        if not self.min_area <= area <= self.max_area:
            return None
        total = float(weight.sum())
        rows, cols = np.indices(weight.shape)
        u = x0 + float((weight * cols).sum()) / total
        v = y0 + float((weight * rows).sum()) / total
        return u, v, area


def track_video(
    frames: Frames,
    finder: BaleFinder,
    progress: Callable[[int], None] = lambda done: None,
) -> Track:
    """One pass over every frame: where the bale is in each."""
    present, pixels, areas = [], [], []
    index = 0
    for frame in frames:
        found = finder.find(frame)
        present.append(found is not None)
        pixels.append(found[:2] if found else (np.nan, np.nan))
        areas.append(found[2] if found else 0.0)
        index += 1
        if index % 50 == 0:
            progress(index)
    progress(index)
    return Track(np.array(present, bool), np.array(pixels, float).reshape(-1, 2), np.array(areas))


def split_shots(track: Track, fps: float) -> list[np.ndarray]:
    """The frame indices of each shot: runs of frames with the bale, split where
    it is absent for at least :data:`SHOT_GAP_S`; runs too short to be a shot
    (a flicker of noise) are dropped."""
    gap = max(1, round(SHOT_GAP_S * fps))
    seen = np.flatnonzero(track.present)
    if len(seen) == 0:
        return []
    breaks = np.flatnonzero(np.diff(seen) > gap)
    runs = np.split(seen, breaks + 1)
    return [run for run in runs if len(run) >= MIN_SHOT_FRAMES]
