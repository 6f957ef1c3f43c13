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

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
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
#: Least change (0-255 grey levels) a pixel must show to belong to the bale.
MIN_CHANGE = 25
#: A change still over this many frames joins the background (unless it is the
#: bale followed); the bale's place is forgotten after FORGET_FRAMES without it.
STILL_FRAMES = 8
FORGET_FRAMES = 48
#: A shot starts with a launch: the bale first seen within this distance of the
#: barrel's reach (from the pivot, mm) and moving at least LAUNCH_STEP_PX a frame
#: over its first MIN_SHOT_FRAMES frames.
LAUNCH_REACH_MM = 120.0
LAUNCH_STEP_PX = 0.75


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
    """Finds the bale in frames against a background that learns the still scene.

    Of the blobs that became lighter, the bale is the one of a bale's size nearest
    to where it was going (its last place and step), or with no such place the
    largest that moved since the last frame. What changed and then stayed still for
    :data:`STILL_FRAMES` frames (the tractor turned between two shots, a bale
    removed) joins the background, except around the bale being followed: a bale at
    rest stays the bale, in view, until it is taken away."""

    def __init__(
        self,
        background: np.ndarray,
        min_area_px: float,
        max_area_px: float,
        search_scale: int,
        follow: bool = True,
    ):
        self.background = background.copy()
        #: False: the largest blob in each frame, nothing followed or learned (a film
        #: with piggies: what the bale knocks is lighter than the board and lies still,
        #: and a follower locks onto it and loses the next launches)
        self.follow = follow
        self.scale = search_scale
        self.min_area = min_area_px
        self.max_area = max_area_px
        #: the bale's reach from where it was last seen, px (a bale's width or so)
        self.keep_px = 3 * math.sqrt(max_area_px / 10)
        self._learned()
        self._recent: list[np.ndarray] = []
        self._last: tuple[float, float] | None = None
        self._step = (0.0, 0.0)
        self._missed = 0
        self._seen = 0
        self._origin, self._travel, self._age = (0.0, 0.0), 0.0, 0

    def _learned(self) -> None:
        """The search's background and margin, from the full background."""
        s = self.scale
        self.small_background = np.ascontiguousarray(self.background[::s, ::s])
        # Sharp edges of the still picture (the markers' black and white) flicker
        # with the compression: a change there must be larger to count.
        edges = cv2.morphologyEx(self.background, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        self.small_margin = np.ascontiguousarray((edges // 2)[::s, ::s])

    def find(self, frame: np.ndarray) -> tuple[float, float, float] | None:
        """The bale's centroid (u, v) and area in pixels, or None when not in view."""
        small = np.ascontiguousarray(frame[:: self.scale, :: self.scale])
        change = cv2.subtract(small, self.small_background)
        change = cv2.subtract(change, self.small_margin)
        _, mask = cv2.threshold(change, MIN_CHANGE, 255, cv2.THRESH_BINARY)
        count, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        found = None
        if count >= 2:
            picked = self._pick(stats[1:], centres[1:] * self.scale, small)
            found = None if picked is None else self._centroid(frame, stats[1 + picked])
        if not self.follow:
            return found
        found = self._follow(found)
        self._seen += 1
        if self._seen % STILL_FRAMES == 0:
            self._learn_still(frame, small, mask)
        self._recent = [small, *self._recent[: STILL_FRAMES - 1]]
        return found

    def _pick(self, stats: np.ndarray, centres: np.ndarray, small: np.ndarray) -> int | None:
        """The blob (index into ``stats``) that is the bale, or None."""
        least = self.min_area / (2 * self.scale**2)
        sized = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= least)
        if len(sized) == 0:
            return None
        if not self.follow:
            return int(sized[np.argmax(stats[sized, cv2.CC_STAT_AREA])])
        if self._last is not None:
            ahead = np.array(self._last) + np.array(self._step) * (self._missed + 1)
            distance = np.linalg.norm(centres[sized] - ahead, axis=1)
            reach = self.keep_px + np.hypot(*self._step) * (self._missed + 1)
            if distance.min() <= reach:
                return int(sized[np.argmin(distance)])
        if self._recent:
            moved = [i for i in sized if _moved(stats[i], small, self._recent[0])]
            sized = np.array(moved or sized)
        return int(sized[np.argmax(stats[sized, cv2.CC_STAT_AREA])])

    def _centroid(self, frame: np.ndarray, stat: np.ndarray) -> tuple[float, float, float] | None:
        """The centroid at full size around a blob found in the search, weighted by
        how much each pixel changed."""
        x, y, w, h, _ = stat
        s = self.scale
        height, width = frame.shape[:2]
        if x == 0 or y == 0 or (x + w) * s >= width - s or (y + h) * s >= height - s:
            return None  # cut by the picture's edge: its centroid is not the bale's
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

    def _follow(
        self, found: tuple[float, float, float] | None
    ) -> tuple[float, float, float] | None:
        """Remember where the bale was and its step a frame; forget it after
        :data:`FORGET_FRAMES` frames without it. A blob that has not moved in
        the :data:`STILL_FRAMES` frames since it was first taken for the bale is a
        change in the scene (a bale at rest got there by moving): it is forgotten,
        and not the bale (None)."""
        if found is None:
            self._missed += 1
            if self._missed > FORGET_FRAMES:
                self._forget()
            return None
        if self._last is None:
            self._origin, self._travel, self._age = (found[0], found[1]), 0.0, 0
        else:
            span = self._missed + 1
            self._step = ((found[0] - self._last[0]) / span, (found[1] - self._last[1]) / span)
        self._last, self._missed = (found[0], found[1]), 0
        self._age += 1
        self._travel = max(
            self._travel, math.hypot(found[0] - self._origin[0], found[1] - self._origin[1])
        )
        if self._age >= STILL_FRAMES and self._travel < 1.0:
            self._forget()
            return None
        return found

    def _forget(self) -> None:
        self._last, self._step, self._missed = None, (0.0, 0.0), 0

    def _learn_still(self, frame: np.ndarray, small: np.ndarray, mask: np.ndarray) -> None:
        """Take into the background what changed and has stayed still over the last
        :data:`STILL_FRAMES` frames, away from the bale followed."""
        if len(self._recent) < STILL_FRAMES - 1 or not mask.any():
            return
        oldest = self._recent[-1]
        still = cv2.absdiff(small, oldest) < MIN_CHANGE // 2
        learn = (mask > 0) & still
        if self._last is not None:
            s, keep = self.scale, self.keep_px
            u, v = self._last
            learn[
                max(0, int((v - keep) / s)) : int((v + keep) / s) + 1,
                max(0, int((u - keep) / s)) : int((u + keep) / s) + 1,
            ] = False
        if not learn.any():
            return
        grown = cv2.dilate(learn.astype(np.uint8), np.ones((3, 3), np.uint8))
        height, width = frame.shape[:2]
        full = cv2.resize(grown, (width, height), interpolation=cv2.INTER_NEAREST)
        np.copyto(self.background, frame, where=full.astype(bool))
        self._learned()


def _moved(stat: np.ndarray, small: np.ndarray, previous: np.ndarray) -> bool:
    """Whether a blob's box changed since the frame before."""
    x, y, w, h, _ = stat
    box = (slice(y, y + h), slice(x, x + w))
    return bool((cv2.absdiff(small[box], previous[box]) >= MIN_CHANGE).any())


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
    again after at least :data:`SHOT_GAP_S` without it, in :data:`MIN_SHOT_FRAMES`
    frames or more, moving (:data:`LAUNCH_STEP_PX`) and first seen in the launch
    ``zone`` (anywhere when None). Every other run of frames with the bale belongs
    to the shot before it: the bale came back into view after leaving the top of
    the picture, passing behind the tractor or against the wall, or it flickered
    while at rest. Runs before the first launch (noise) are dropped."""
    gap = max(1, round(SHOT_GAP_S * fps))
    seen = np.flatnonzero(track.present)
    if len(seen) == 0:
        return []
    breaks = np.flatnonzero(np.diff(seen) > gap)
    shots: list[list[np.ndarray]] = []
    for run in np.split(seen, breaks + 1):
        if _launch(track.pixel[run], zone):
            shots.append([run])
        elif shots:
            shots[-1].append(run)
    return [np.concatenate(runs) for runs in shots]


def _launch(pixels: np.ndarray, zone: LaunchZone | None) -> bool:
    """Whether a run of frames (their pixels) starts as a launch does."""
    if len(pixels) < MIN_SHOT_FRAMES:
        return False
    first = pixels[:MIN_SHOT_FRAMES]
    step = float(np.linalg.norm(np.diff(first, axis=0), axis=1).mean())
    return step >= LAUNCH_STEP_PX and (zone is None or zone.holds(first[0]))
