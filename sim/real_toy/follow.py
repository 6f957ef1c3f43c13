"""The bale followed from frame to frame (``BaleFinder``), against a background
that learns the still scene (the one pass over a video's frames that uses it:
``sim.real_toy.tracking.track_video``). Why each rule: docs/real-toy.md, "From
any tripod place" and "The piggies on film"."""

from __future__ import annotations

import math

import cv2
import numpy as np

from sim.real_toy.changes import MIN_CHANGE, blobs, coverage, left_behind, moved_since
from sim.real_toy.track import (
    LAUNCH_AFTER_S,
    LAUNCH_STEP_PX,
    SHOT_GAP_S,
    LaunchZone,
)

#: A change still over this many frames joins the background (unless it is the
#: bale followed); the bale's place is forgotten after FORGET_FRAMES without it.
STILL_FRAMES = 8
FORGET_FRAMES = 48
#: What lies still is seen again within this share of the bale's reach.
LYING_REACH = 0.25
#: A blob that moved on from one that stopped dead is the bale going on only if
#: it is at most this many times the bale's area as seen at the pivot (blurred and
#: nearer the camera it can seem twice as large; a piggy is five times or more).
BALE_SIZED = 3
#: A blob followed anew is the bale only if it moves (LAUNCH_STEP_PX a frame or
#: more) in at least this many of its first STILL_FRAMES + 1 frames.
LEAST_MOVES = 3


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
        #: the largest blob that is the bale alone, search pixels (BALE_SIZED bales)
        self.bale_sized = BALE_SIZED * (max_area_px - 50) / 10 / search_scale**2
        #: after :meth:`find`: how many frames before this one were a still change
        #: in the scene followed as the bale, not the bale
        self.taken_back = 0
        #: after :meth:`find`: the bale's own centroid (u, v, area) in frames before
        #: this one, so many back, where it may have been one blob with a still
        #: change it has now left or that was given up for it (None: not wholly seen)
        self.recentred: list[tuple[int, tuple[float, float, float] | None]] = []
        #: the last frames and the blob followed in each (its search stats, or None)
        self._shown: list[tuple[np.ndarray, np.ndarray | None]] = []
        self._left = False  # this frame: the bale left the blob followed, or it for the bale
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
        found, self.continued, self.taken_back, self.recentred = None, False, 0, []
        stat, self._left = None, False
        if count >= 2:
            picked, self.continued = self._pick(stats[1:], centres[1:] * self.scale, small)
            stat = None if picked is None else stats[1 + picked]
            found = None if stat is None else self._centroid(frame, stat)
        if self._left and found is not None and stat is not None:
            self.recentred = self._recentre(frame, stat, found[2])
        flown = self._moves >= LEAST_MOVES  # what was followed moved as the bale does
        found = self._follow(found)
        self.fresh = found is not None and not (self.continued and flown)
        self._seen += 1
        if self._seen % STILL_FRAMES == 0 or self.taken_back:
            self._learn_still(frame, small, mask)
        if self.taken_back and found is None:
            self._follow_again()
        self._recent = [small, *self._recent[: STILL_FRAMES - 1]]
        self._shown = [(frame, stat), *self._shown[: STILL_FRAMES + 1]]
        return found

    def _recentre(
        self, frame: np.ndarray, bale: np.ndarray, area: float
    ) -> list[tuple[int, tuple[float, float, float] | None]]:
        """The bale's own centroid in each frame the blob it has just left was
        followed in (up to :data:`STILL_FRAMES` + 2 back), found against this frame,
        where that blob shows the still change alone (the tractor turned and the
        bale drawn over it were one blob, its centroid neither's); nothing counts
        where the bale (its search ``stats``) now is. None where less than half the
        bale's ``area`` is found so (the bale was not in that blob's box, or only in
        part, or it lay where the bale now is)."""
        x, y, w, h, _ = bale
        s = self.scale
        rows, cols = (
            slice(max(0, (y - 2) * s), (y + h + 2) * s),
            slice(max(0, (x - 2) * s), (x + w + 2) * s),
        )
        still = frame.copy()
        still[rows, cols] = 255  # nothing is lighter than white
        found: list[tuple[int, tuple[float, float, float] | None]] = []
        for back, (seen, stat) in enumerate(self._shown[: self._seen - self._born], start=1):
            if stat is not None:
                centroid = self._centroid(seen, stat, still)
                whole = centroid is not None and centroid[2] >= area / 2
                found.append((back, centroid if whole else None))
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
        moved = [i for i in sized if self._recent and moved_since(stats[i], small, self._recent[0])]
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
            trial = self._still_on_trial()
            if self.launch is not None and (trial or self._lying(self.launch_after)):
                zone = self.launch
                # a bale launched beside a still change on trial is another blob,
                # however near (seen from close by, the tractor turned and the bale
                # leaving its barrel lie within a bale's reach of each other)
                nearest = sized[np.argmin(distance)]
                launched = [
                    i
                    for i, away in zip(sized, distance, strict=True)
                    if i in moved  # (a part the bale left did not move: it lit none of it)
                    and not self._behind(int(i), stats, small)
                    and (away > reach or (trial and i != nearest))
                    and zone.holds(centres[i])
                ]
                if launched:
                    self._left = trial  # the bale may have come out of the change
                    return int(max(launched, key=lambda i: stats[i, cv2.CC_STAT_AREA])), False
            if distance.min() <= reach:
                nearest = int(sized[np.argmin(distance)])
                going = self._going_on(nearest, sized, distance, reach, moved, stats)
                self._left = going is not None or self._split(nearest, sized, moved, stats, small)
                return (nearest if going is None else going), True
        sized = np.array(moved or sized)
        return int(sized[np.argmax(stats[sized, cv2.CC_STAT_AREA])]), False

    def _going_on(
        self,
        nearest: int,
        sized: np.ndarray,
        distance: np.ndarray,
        reach: float,
        moved: list,
        stats: np.ndarray,
    ) -> int | None:
        """The blob the bale went on in where the one nearest to where it was going
        did not move though the bale did: a bale in flight does not stop dead, and
        a blob that merged it with a still change (the tractor turned, the bale
        coming out from behind it) stops as the bale leaves it. The nearest blob
        that moved, within reach and no larger than :data:`BALE_SIZED` bales (a
        piggy it pushed is larger), or None."""
        if nearest in moved or math.hypot(*self._step) < LAUNCH_STEP_PX:
            return None
        going = [
            k
            for k, (i, away) in enumerate(zip(sized, distance, strict=True))
            if away <= reach and i in moved and stats[i, cv2.CC_STAT_AREA] <= self.bale_sized
        ]
        self._left = bool(going)
        return int(sized[min(going, key=lambda k: distance[k])]) if going else None

    def _split(
        self, nearest: int, sized: np.ndarray, moved: list, stats: np.ndarray, small: np.ndarray
    ) -> bool:
        """Whether the blob followed split, the bale going on alone in the
        ``nearest`` blob (it moved; no larger than :attr:`bale_sized`), leaving a
        part behind (:meth:`_behind`; the blob was as large as both): the bale and a
        still change (the board the tractor uncovered as the bale left, lighter than
        the tractor the background holds). Parts under half a bale are noise."""
        last = self._shown[0][1] if self._shown else None
        if nearest not in moved or last is None:
            return False
        area = cv2.CC_STAT_AREA
        behind = [i for i in sized if i != nearest and self._behind(i, stats, small)]
        left = float(stats[behind, area].sum())
        held = last[area] >= stats[nearest, area] + left / 2
        alone = stats[nearest, area] <= self.bale_sized
        return held and alone and left >= 2 * self.min_area / self.scale**2

    def _behind(self, i: int, stats: np.ndarray, small: np.ndarray) -> bool:
        """Whether blob ``i`` is a part the blob followed left behind (:func:`left_behind`)."""
        last, before = self._shown[0][1] if self._shown else None, self._recent[:1]
        if last is None or not before:
            return False
        return left_behind(stats[i], last, small, before[0], np.delete(stats, i, axis=0))

    def _centroid(
        self, frame: np.ndarray, stat: np.ndarray, still: np.ndarray | None = None
    ) -> tuple[float, float, float] | None:
        """The centroid at full size around a blob found in the search, each pixel
        weighted by how much of it the bale covers (:func:`coverage`) against the
        background (or ``still``), and the blob's area (the pixels that changed by
        :data:`MIN_CHANGE` or more)."""
        x, y, w, h, _ = stat
        s = self.scale
        height, width = frame.shape[:2]
        if x == 0 or y == 0 or (x + w) * s >= width - s or (y + h) * s >= height - s:
            return None  # cut by the picture's edge: its centroid is not the bale's
        x0, y0 = max(0, (x - 2) * s), max(0, (y - 2) * s)
        x1, y1 = min(width, (x + w + 2) * s), min(height, (y + h + 2) * s)
        still = self.background if still is None else still
        weight, area = coverage(frame[y0:y1, x0:x1], still[y0:y1, x0:x1])
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
