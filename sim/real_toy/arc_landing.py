"""Where the arc from the barrel comes down to the board, and the first touch
timed by it where the image path shows no break.

The arc (sim/real_toy/arc.py) is fitted to the frames before where it comes down,
refitted until that stays (:func:`fit_landing`). Frames after the touch do not
follow it: the bale rides on over the board, above the arc that would have gone
on through it. A refit that takes them in flies higher and comes down later, so
it takes in more of them: seen from high above, where a bounce barely bends the
path, an 8 deg shot's arc crept a frame later with every refit, each fitting
worse (0.2 to 0.9 px rms), and came down 7 frames after the touch (put 42 mm
off). A landing from flight frames settles within two or three refits (drawn
tracks whose row's pitch is 3-4 deg off: the first arc came down 4-8 frames
early, the second within a frame of the touch); a climb not settled after
:data:`ARC_ROUNDS` refits, each coming down later than the one before, is no
landing: the arc fitted to the first frames from the barrel, before any touch
can come, is kept.

A shot fired downward and seen from high above shows no break at its touch: the
bale turns down onto its face about the corner that touched and slides on, its
image path within 0.4 px of the arc for one to three frames after the corner's
contact, and then bending away by a fraction of a pixel a frame. No corner of
the curves before and after lies between the frames where the arc lands, and the
one taken there was up to two frames early (-25 and -30 deg shots put 4-13 mm
short). Its flight is short, though (9-11 frame periods from the muzzle at 240
fps): the arc, pinned at the muzzle, times the touch to a fraction of a frame
(the same shots put 0.1-3.8 mm off), so the touch is where the path is when the
arc comes down (:func:`touch_on_arc`). An upward shot's long flight leaves its
landing time to the pitch its row says (the height is barely seen from above),
1-2 frames off, and its corner is kept.

Before its first touch the bale flies free, on the arc from the barrel; once it
has touched, its image leaves the arc and goes on leaving it. Seen from high
above, an upward shot's hop may bend the path too little to stand out against a
local curve (an 8 deg shot's, 1.0-1.4 px from the curve, under the 2 px floor),
while it leaves the arc by 1.3 px more every frame; a later break (the first frame
after frames left out mid-hop) then lay in the frames where the arc came down and
was taken for the touch, 5 frames late (put 36 mm off). A break with frames
before it off the arc is not the first touch: the touch is where the path left
the arc (:func:`left_arc`), taken as where no break stands out (on a short
flight, timed by the arc).

Where frames about the touch were cut (the bale landing by a marker), the split
that fits the frames either side best (sim/real_toy/touch.py's ``settle_break``)
may put the first frame after the touch, seen alone between two gaps, on the
curve before it: a 64 deg shot seen from 1.2 m, 25 deg above and 60 deg to the
side, its frames 94 and 98 about the touch and 98 and 105 after it, had frame 98
(6.9 px off the arc, the frames before within 0.1-1.3 px) drawn into the flight,
and the corner, the curve after extrapolated six frames back, put 11.6 mm short
(1.1 mm, split before frame 98). A frame after a gap that lies off the arc came
after the bounce, which happened in the gap: the break is that frame
(:func:`landed_in_gap`). With no gap before it, a frame off the arc may be a
blob cut in flight and kept (:data:`LEFT_FRAMES`), and it stays in the flight.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from sim.real_toy.arc import Arc, Launch, fit_arc
from sim.real_toy.detect import CameraPose

#: Refits of the arc to the frames before where it came down.
ARC_ROUNDS = 6
#: The longest flight (s, from the muzzle to where the arc comes down) whose arc
#: times a touch the path shows no break at: the stock launcher's downward shots
#: fly 0.036-0.044 s (9-11 frame periods at 240 fps), its flattest upward ones
#: 0.15 s or more, whose landing time drifts with the pitch.
SHORT_FLIGHT_S = 0.08
#: The path has left the arc before a break when each of the LEFT_FRAMES frames
#: just before it lies more than LEFT_PX from the arc (two frames: one blob cut by
#: a marker's paper or the tractor, and kept, puts a single frame off). Flight
#: frames lie within 0.1-0.9 px rms of their arc; an 8 deg shot's hop seen from
#: 1.8 m, 75 deg above, was 2.4 px off it two frames after its touch.
LEFT_FRAMES = 2
LEFT_PX = 2.0
#: The frames off the arc whose distances from it time the departure
#: (:func:`left_arc`): the first few, before a second turn can bend the run.
LEFT_FIT = 3


def fit_landing(
    pose: CameraPose,
    times_s: np.ndarray,
    pixels: np.ndarray,
    depth_mm: float,
    launch: Launch,
    first_frames: int,
) -> Arc | None:
    """The arc from the barrel fitted to the frames before it comes down to
    ``depth_mm``, first to the ``first_frames`` frames (before any touch), then
    refitted to the frames before where it came down until that stays; None where
    a fit fails. Where it had not settled after :data:`ARC_ROUNDS` fits, each
    coming down later than the one before (taking in frames after the touch: the
    module's notes), the first arc."""
    cut = min(len(times_s), first_frames)
    fits: list[Arc] = []
    landings: list[int] = []
    for _ in range(ARC_ROUNDS):
        arc = fit_arc(pose, times_s[:cut], pixels[:cut], launch)
        if arc is None:
            return None
        fits.append(arc)
        landed = int(np.searchsorted(times_s, arc.down_to(depth_mm)))
        if landed == cut:
            return arc
        landings.append(landed)
        cut = landed
    climbed = all(b > a for a, b in pairwise(landings))
    return fits[0] if climbed else fits[-1]


def touch_on_arc(
    pose: CameraPose, arc: Arc, times_s: np.ndarray, pixels: np.ndarray, depth_mm: float
) -> tuple[int, np.ndarray, float] | None:
    """The touch timed by the arc on a short flight (:data:`SHORT_FLIGHT_S`): the
    index of the first frame after the arc comes down to ``depth_mm``, the
    centre's place there (mm: the ray through the path's pixel then, between the
    frames either side, meets the plane at ``depth_mm``) and the time; None on a
    longer flight or where the arc comes down outside the frames."""
    down = arc.down_to(depth_mm)
    after = int(np.searchsorted(times_s, down))
    if down - arc.left_s > SHORT_FLIGHT_S or not 0 < after < len(times_s):
        return None
    share = (down - times_s[after - 1]) / (times_s[after] - times_s[after - 1])
    pixel = (1 - share) * pixels[after - 1] + share * pixels[after]
    return after, pose.on_plane(pixel.reshape(1, 2), depth_mm)[0], float(down)


def arc_misses_px(pose: CameraPose, arc: Arc, times_s: np.ndarray, pixels: np.ndarray):
    """Each frame's distance (px) from where the arc from the barrel puts the bale
    at its time."""
    return np.linalg.norm(pose.project(arc.position(times_s)) - pixels, axis=1)


def left_arc(
    pose: CameraPose,
    arc: Arc,
    times_s: np.ndarray,
    pixels: np.ndarray,
    broke: int,
    earliest: int,
) -> int | None:
    """Where the path left the arc from the barrel before a break at ``broke``: the
    first frame after it left, no earlier than ``earliest`` (the first that can be
    a break); None where the :data:`LEFT_FRAMES` frames before the break do not all
    lie more than :data:`LEFT_PX` from the arc (the break may be the first touch),
    or where the frames off it reach back before ``earliest`` (the arc does not
    follow the flight, and its distances time nothing). After the touch the bale's
    velocity is no longer the arc's, so its image draws away from the arc at a
    steady rate: the line through the first :data:`LEFT_FIT` frames of the run off
    the arc that ends at the break, their distances from it in time, comes back to
    naught when it left. (The first frame of the run is no measure: a slow
    departure, 1.1 px a frame, first passed :data:`LEFT_PX` 2.5 frames after the
    touch.)"""
    misses = arc_misses_px(pose, arc, times_s[:broke], pixels[:broke])
    off = misses > LEFT_PX
    if broke < LEFT_FRAMES or not off[broke - LEFT_FRAMES :].all():
        return None
    first = broke - LEFT_FRAMES
    while first > 0 and off[first - 1]:
        first -= 1
    if first < earliest:
        return None
    run = slice(first, min(broke, first + LEFT_FIT))
    rate, at_first = np.polyfit(times_s[run] - times_s[first], misses[run], 1)
    left_s = times_s[first] - at_first / rate if rate > 0 else times_s[first]
    return max(earliest, min(first, int(np.searchsorted(times_s, left_s))))


def landed_in_gap(
    pose: CameraPose, arc: Arc, times_s: np.ndarray, pixels: np.ndarray, broke: int
) -> bool:
    """Whether the frame before a settled break at ``broke`` came after the touch:
    frames are missing just before it (more than one and a half frame periods
    since the frame before it) and it lies more than :data:`LEFT_PX` from the arc
    from the barrel, which flight frames follow within a pixel. The bounce then
    happened in the gap, and the break is that frame, not the next."""
    if broke < 2 or broke >= len(times_s):
        return False
    frame_s = float(np.median(np.diff(times_s)))
    before = broke - 1
    miss = arc_misses_px(pose, arc, times_s[before:broke], pixels[before:broke])[0]
    gap = times_s[before] - times_s[before - 1] > 1.5 * frame_s
    return bool(gap and miss > LEFT_PX)
