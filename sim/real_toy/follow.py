"""The bale followed from frame to frame (``BaleFinder``), against a background
that learns the still scene, and the one pass over a video's frames that finds
it in each (``track_video``). Why each rule: docs/real-toy.md, "From any tripod
place" and "The piggies on film"."""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from sim.real_toy.track import (
    LAUNCH_AFTER_S,
    LAUNCH_STEP_PX,
    SHOT_GAP_S,
    Frames,
    LaunchZone,
    Track,
)

#: Least change (0-255 grey levels) a pixel must show to belong to the bale.
MIN_CHANGE = 25
#: A change still over this many frames joins the background (unless it is the
#: bale followed); the bale's place is forgotten after FORGET_FRAMES without it.
STILL_FRAMES = 8
FORGET_FRAMES = 48
#: What lies still is seen again within this share of the bale's reach.
LYING_REACH = 0.25
#: A blob followed anew is the bale only if it moves (LAUNCH_STEP_PX a frame or
#: more) in at least this many of its first STILL_FRAMES + 1 frames.
LEAST_MOVES = 3


def blobs(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """OpenCV's 8-connected components of ``mask``: their count (label 0 the
    background), and each label's stats and centre in the mask's pixels, the blobs
    in raster order of their boxes (top, then left). Labelled within the box round
    the lit pixels only, which gives the same blobs at a fraction of the whole
    frame's pass (that pass was most of a film's measuring time); put in an order
    of their own, since OpenCV's, which labels 2x2 blocks, shifts with the box's
    parity. Label 0's stats are the box's."""
    lit = cv2.findNonZero(mask)
    if lit is None:
        return 1, np.zeros((1, 5), np.int32), np.zeros((1, 2))
    x, y, w, h = cv2.boundingRect(lit)
    count, _, stats, centres = cv2.connectedComponentsWithStats(
        mask[y : y + h, x : x + w], connectivity=8
    )
    stats[:, cv2.CC_STAT_LEFT] += x
    stats[:, cv2.CC_STAT_TOP] += y
    centres += (x, y)
    order = np.lexsort((centres[1:, 0], stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]))
    keep = np.concatenate(([0], 1 + order))
    return count, stats[keep], centres[keep]


class BaleFinder:
    """Finds the bale in frames against a background that learns the still scene.

    Of the blobs that became lighter, the bale is the one of a bale's size nearest
    to where it was going (its last place and step), or with no such place the
    largest that moved since the last frame; but a blob that moves in the
    ``launch`` zone while the one followed has lain still for
    :data:`LAUNCH_AFTER_S` is a new launch: what lies still (a bale at rest, a
    piggy knocked onto the board) cannot fly. What changed and then stayed still
    for :data:`STILL_FRAMES` frames (the tractor turned between two shots, a bale
    removed) joins the background, except around the bale being followed: a bale
    at rest stays the bale, in view, until it is taken away. A blob followed anew
    that moved in fewer than :data:`LEAST_MOVES` of its first frames (more than
    :data:`STILL_FRAMES`) is such a change, not the bale: it is learned at once,
    its frames are taken back (:attr:`taken_back`), and what was followed before
    it is followed again. One on trial that has not moved is given up at once for
    a blob moving in the ``launch`` zone (the tractor turned in the frame the bale
    leaves the barrel, taken first as the larger), its frames taken back."""

    def __init__(
        self,
        background: np.ndarray,
        min_area_px: float,
        max_area_px: float,
        search_scale: int,
        launch: LaunchZone | None = None,
        fps: float = 240.0,
    ):
        self.background = background.copy()
        self.scale = search_scale
        self.min_area = min_area_px
        self.max_area = max_area_px
        self.launch = launch
        #: a blob lying still and gone a shot's gap was taken away: forgotten; one
        #: lying still LAUNCH_AFTER_S can be given up for a launch
        self.gap_frames = max(1, round(SHOT_GAP_S * fps))
        self.launch_after = round(LAUNCH_AFTER_S * fps)
        #: the bale's reach from where it was last seen, px (a bale's width or so)
        self.keep_px = 3 * math.sqrt(max_area_px / 10)
        #: after :meth:`find`: how many frames before this one were a still change
        #: in the scene followed as the bale, not the bale
        self.taken_back = 0
        self._learned()
        #: where the background was learned (at the search's scale)
        self._taught = np.zeros(self.small_background.shape, bool)
        self._recent: list[np.ndarray] = []
        self._last: tuple[float, float] | None = None
        self._step = (0.0, 0.0)
        self._missed = 0
        self._seen = 0
        #: the frame the blob followed was first taken for the bale in, how many
        #: frames it was found in and moved in since, and its last places
        self._born, self._age, self._moves = 0, 0, 0
        self._places: list[tuple[float, float]] = []
        #: the blob followed before one followed anew, while that one may be a
        #: still change in the scene
        self._before: tuple | None = None
        #: after :meth:`find`: whether the blob found is the one followed before,
        #: and whether it is fresh (``Track.fresh``): followed anew, or continuing
        #: a blob that never moved as the bale does (a flicker by the muzzle)
        self.continued = False
        self.fresh = False

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
        count, stats, centres = blobs(mask)
        found, self.continued, self.taken_back = None, False, 0
        if count >= 2:
            picked, self.continued = self._pick(stats[1:], centres[1:] * self.scale, small)
            found = None if picked is None else self._centroid(frame, stats[1 + picked])
        flown = self._moves >= LEAST_MOVES  # what was followed moved as the bale does
        found = self._follow(found)
        self.fresh = found is not None and not (self.continued and flown)
        self._seen += 1
        if self._seen % STILL_FRAMES == 0 or self.taken_back:
            self._learn_still(frame, small, mask)
        if self.taken_back and found is None:
            self._follow_again()
        self._recent = [small, *self._recent[: STILL_FRAMES - 1]]
        return found

    def _pick(
        self, stats: np.ndarray, centres: np.ndarray, small: np.ndarray
    ) -> tuple[int | None, bool]:
        """The blob (index into ``stats``) that is the bale, or None; and whether it
        is the one followed."""
        least = self.min_area / (2 * self.scale**2)
        sized = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= least)
        if len(sized) == 0:
            return None, False
        moved = [i for i in sized if self._recent and _moved(stats[i], small, self._recent[0])]
        if self._last is not None:
            ahead = np.array(self._last) + np.array(self._step) * (self._missed + 1)
            distance = np.linalg.norm(centres[sized] - ahead, axis=1)
            reach = self.keep_px + np.hypot(*self._step) * (self._missed + 1)
            if self._lying(STILL_FRAMES):
                # a bale at rest is seen again where it lay; a blob appearing beside
                # it (a piggy it hid, set up again) is followed anew, on trial
                reach = self.keep_px * LYING_REACH
            # what lies still cannot fly, nor can a still change on trial (the
            # tractor turned in the frame the bale leaves the barrel, the larger)
            still = self._lying(self.launch_after) or self._still_on_trial()
            if self.launch is not None and still:
                zone = self.launch
                launched = [
                    i
                    for i, away in zip(sized, distance, strict=True)
                    if i in moved and away > reach and zone.holds(centres[i])
                ]
                if launched:
                    return int(max(launched, key=lambda i: stats[i, cv2.CC_STAT_AREA])), False
            if distance.min() <= reach:
                return int(sized[np.argmin(distance)]), True
        sized = np.array(moved or sized)
        return int(sized[np.argmax(stats[sized, cv2.CC_STAT_AREA])]), False

    def _centroid(self, frame: np.ndarray, stat: np.ndarray) -> tuple[float, float, float] | None:
        """The centroid at full size around a blob found in the search, each pixel
        weighted by how much of it the bale covers (:func:`coverage`), and the
        blob's area (the pixels that changed by :data:`MIN_CHANGE` or more)."""
        x, y, w, h, _ = stat
        s = self.scale
        height, width = frame.shape[:2]
        if x == 0 or y == 0 or (x + w) * s >= width - s or (y + h) * s >= height - s:
            return None  # cut by the picture's edge: its centroid is not the bale's
        x0, y0 = max(0, (x - 2) * s), max(0, (y - 2) * s)
        x1, y1 = min(width, (x + w + 2) * s), min(height, (y + h + 2) * s)
        seen, still = frame[y0:y1, x0:x1], self.background[y0:y1, x0:x1]
        weight, area = coverage(seen, still)
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
        :data:`FORGET_FRAMES` frames without it. A blob followed anew (nothing
        followed, or out of the followed one's reach) that moved in fewer than
        :data:`LEAST_MOVES` of its first :data:`STILL_FRAMES` frames is a change in
        the scene (a bale at rest got there by moving; a tractor turned may seem to
        jump in the frame it turns): it is forgotten, its frames taken back, and
        it is not the bale (None); the blob followed before it, if any, is followed
        again (a bale hidden behind a piggy, where a pushed piggy seemed to jump)."""
        if found is None:
            self._missed += 1
            taken = self._missed > self.gap_frames and self._lying(STILL_FRAMES)
            if self._missed > FORGET_FRAMES or taken:
                self._forget()
            return None
        if self._last is None or not self.continued:
            if self._still_on_trial():
                # a still change given up for this blob (a launch): its frames are
                # taken back, and what was followed before it stays as it was
                self.taken_back = self._seen - self._born
            else:
                self._before = self._state() if self._last is not None else None
            self._born, self._age, self._moves, self._places = self._seen, 0, 0, []
        if self._last is not None:
            span = self._missed + 1
            self._step = ((found[0] - self._last[0]) / span, (found[1] - self._last[1]) / span)
        moving = self._age > 0 and math.hypot(*self._step) >= LAUNCH_STEP_PX
        self._last, self._missed = (found[0], found[1]), 0
        self._age += 1
        self._moves += moving
        self._places = [self._last, *self._places[: max(STILL_FRAMES, self.launch_after) - 1]]
        if self._age > STILL_FRAMES and self._moves < LEAST_MOVES:
            self.taken_back = self._seen - self._born
            self._forget()  # until it is learned (:meth:`_follow_again`)
            return None
        if self._age > STILL_FRAMES:
            self._before = None
        return found

    def _follow_again(self) -> None:
        """Follow again what was followed before a still change taken back (that
        change learned first, with nothing kept from learning around it: what was
        followed before is not in view, or the change would not have been
        followed)."""
        if self._before is not None:
            *state, missed = self._before
            self._last, self._step, self._born, self._age, self._moves, self._places = state
            self._missed = missed + self.taken_back + 1

    def _state(self) -> tuple:
        """What is known of the blob followed, to follow it again."""
        return (
            self._last,
            self._step,
            self._born,
            self._age,
            self._moves,
            self._places,
            self._missed,
        )

    def _still_on_trial(self) -> bool:
        """Whether the blob followed was followed anew, is still on trial (at most
        :data:`STILL_FRAMES` frames old) and has not moved in a step since (its
        first frame shows no step yet: a bale just launched is not still)."""
        trial = self._last is not None and 1 < self._age <= STILL_FRAMES
        return trial and self._moves == 0

    def _lying(self, frames: int) -> bool:
        """Whether the blob followed has lain still (within 1 px) over its last
        ``frames`` places."""
        places = np.array(self._places[:frames])
        return len(places) == frames and bool(np.ptp(places, axis=0).max() < 1.0)

    def _forget(self) -> None:
        self._last, self._step, self._missed = None, (0.0, 0.0), 0

    def _learn_still(self, frame: np.ndarray, small: np.ndarray, mask: np.ndarray) -> None:
        """Take into the background what changed and has stayed still over the last
        :data:`STILL_FRAMES` frames, away from the bale followed: what became
        lighter, and, where something was learned before, what became darker (the
        tractor turned away, a piggy set up again: a bale passing there must be seen
        against the board; elsewhere a darker change is a shadow, which a bale
        resting beside it would cast and take away with it)."""
        if len(self._recent) < STILL_FRAMES - 1:
            return
        darker = cv2.subtract(cv2.subtract(self.small_background, small), self.small_margin)
        changed = (mask > 0) | ((darker > MIN_CHANGE) & self._taught)
        if not changed.any():
            return
        oldest = self._recent[-1]
        still = cv2.absdiff(small, oldest) < MIN_CHANGE // 2
        learn = changed & still
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
        self._taught |= grown.astype(bool)
        height, width = frame.shape[:2]
        full = cv2.resize(grown, (width, height), interpolation=cv2.INTER_NEAREST)
        np.copyto(self.background, frame, where=full.astype(bool))
        self._learned()


def coverage(seen: np.ndarray, still: np.ndarray) -> tuple[np.ndarray, float]:
    """How much of each pixel of a patch the bale covers (0-1), and the count of
    pixels that became lighter by :data:`MIN_CHANGE` or more (the blob's area).

    A pixel the bale covers in part (its edge, anti-aliased or blurred by the
    motion) is the background and the bale's own grey mixed in proportion, so
    its cover is its change over the change the whole bale would make there. The
    bale's grey is its lit pixels' upper quartile (a wholly covered pixel shows
    the bale whatever lay behind it). Weighting by the change itself instead
    pulled the centroid toward where the background is darker: a low shot seen
    from high above, crossing the edge of the tractor's dark base just before it
    touched, had its centroid 1-2 px back along its path in the two frames before
    the touch, and its touch was put 4-10 mm short. The lit pixels and the ring
    of pixels round them count (an edge pixel covered under half changes less
    than :data:`MIN_CHANGE` over the green board)."""
    change = cv2.subtract(seen, still).astype(np.float32)
    lit = change >= MIN_CHANGE
    area = float(np.count_nonzero(lit))
    if area == 0:
        return np.zeros(change.shape, np.float32), 0.0
    grey = float(np.percentile(seen[lit], 75))
    whole = np.maximum(grey - still.astype(np.float32), MIN_CHANGE)
    ring = cv2.dilate(lit.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return np.where(ring, np.minimum(change / whole, 1.0), 0.0), area


def _moved(stat: np.ndarray, small: np.ndarray, previous: np.ndarray) -> bool:
    """Whether a blob's box changed since the frame before."""
    x, y, w, h, _ = stat
    box = (slice(y, y + h), slice(x, x + w))
    return bool((cv2.absdiff(small[box], previous[box]) >= MIN_CHANGE).any())


_NONE = (math.nan, math.nan)


def track_video(
    frames: Frames,
    finder: BaleFinder,
    progress: Callable[[int], None] = lambda done: None,
) -> Track:
    """One pass over every frame: where the bale is in each (the frames the finder
    takes back, a still change followed on trial, are left without it)."""
    present: list[bool] = []
    fresh: list[bool] = []
    pixels: list[tuple[float, float]] = []
    areas: list[float] = []
    index = 0
    for frame in frames:
        found = finder.find(frame)
        for back in range(len(present) - finder.taken_back, len(present)):
            present[back], fresh[back], pixels[back], areas[back] = False, False, _NONE, 0.0
        present.append(found is not None)
        fresh.append(finder.fresh)
        pixels.append((found[0], found[1]) if found else _NONE)
        areas.append(found[2] if found else 0.0)
        index += 1
        if index % 50 == 0:
            progress(index)
    progress(index)
    pixel = np.array(pixels, float).reshape(-1, 2)
    return Track(np.array(present, bool), pixel, np.array(areas), np.array(fresh, bool))
