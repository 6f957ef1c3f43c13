"""Where the bale first touches the board, from its image track.

The bale is in the air until it touches, so its pixels cannot be dropped onto
the board plane as they are. Instead: where it first touches, its image path
breaks (the bounce turns its velocity). The break is the first frame that a
smooth curve through the frames before it does not predict, while the next
frame does not return to the curve either. The corner of that V (the curve
before and the curve after, met between two frames) is the bale's centre at the
touch in the image (when the break is first seen a frame late, the split that
fits the frames either side best is taken); its ray meets the plane at the
centre's height then (from the bale's size and tilt) at the centre's place on
the board. A break whose place lies off the flight's vertical plane (the yaw set,
through the pivot axis) is a glitch in mid-air, not the touch, and the next one
is looked for. The touch is the bale's lowest corner there (the centre plus the
corner's offset along the flight, away from the pivot axis;
sim/physics/ballistics.py's ``contact_offset_mm``). The flight before it, fitted
in 3D through that point (sim/real_toy/speed.py), gives the speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.physics.ballistics import direction
from sim.real_toy.arc import Arc, Launch
from sim.real_toy.arc_landing import (
    arc_misses_px,
    fit_landing,
    landed_in_gap,
    left_arc,
    touch_on_arc,
)
from sim.real_toy.detect import CameraPose
from sim.real_toy.speed import Flight, fit_flight

#: Frames the smooth curve is fitted to when predicting the next one.
WINDOW = 8
#: A frame is off the curve when it misses the prediction by more than this many
#: times the typical miss before it, and at least MIN_BREAK_PX pixels.
BREAK_FACTOR = 5.0
MIN_BREAK_PX = 2.0
#: A break whose centre, put on the board, lies further than this from the vertical
#: plane of the set yaw (through the pivot axis) is not the touch, degrees: the
#: yaw's spread and a person's offset of its scale are a few degrees, while a
#: glitch in mid-air (the bale over a marker) put on the board falls 10 or more
#: off it (seen from behind, a high point's ray meets the board nearer the middle).
OFF_PLANE_DEG = 6.0
#: The earliest frame of a track that can be a break (a steep low shot touches
#: about 9 frames after it leaves the barrel at 240 fps).
FIRST_BREAK = 8
#: The fewest frames seen before a break: a quadratic's worth (:func:`find_break`).
#: A track first seen after the bale left the barrel (the tractor hiding the
#: barrel's end) has its first break counted from the launch the arc from the
#: barrel gives, not from its first frame (:func:`_first_break`).
FEWEST_SEEN = 5
#: A break is on the arc from the barrel when the arc comes down to the board
#: within this many frames of it and this many mm of its centre: the arc lands up
#: to 2.5 frames and 14-21 mm from the true touch (a low shot's 8-10 frames, a
#: bale's centroid off its centre's image by a fraction of a pixel), while a
#: bend in mid-air over a marker seen from near lay 3.6 frames before it.
ARC_FRAMES = 3.0
ARC_MM = 40.0
#: How many frames after the one first seen off the curve the break may lie
#: (:func:`settle_break`) where frames are missing near it (:func:`_late`): after
#: the bale passed the tractor, hidden, the first frames seen again miss the curve
#: before the gap though the bounce is 1-2 frames later.
SETTLE_LATE = 2
#: A touch whose frames either side lie further apart than this many frame
#: periods was hidden: a 64 deg shot that bounced behind the tractor, its frames
#: 94 and 104 either side, was put 12 mm off. Shots whose blobs were cut for 6-7
#: frame periods about the bounce (64 deg shots landing by a marker) were put 2-5 mm
#: off (all 40 measured from behind, 2.2 mm rms, worst 4.5).
HIDDEN_FRAMES = 8.0
#: A break is a bounce only when, of the first OFF_ARC_FRAMES frames from it, one
#: lies more than OFF_ARC_PX from the arc from the barrel (:func:`_leaves_arc`):
#: after a bounce the bale's image leaves the arc by 5 px or more within two frames
#: (a 8 deg shot seen from 1.8 m); frames of a blob cut by a marker's paper and kept
#: bent the path 2.5 frames before the touch while the frames after it lay within
#: 0.5 px of the arc (put 11 mm off).
OFF_ARC_FRAMES = 2
OFF_ARC_PX = 2.0
#: A break's frame just before a gap is still in flight when it lies this close
#: to the arc from the barrel (:func:`_still_flying`): the last frames of a 64 deg
#: shot before 6 frames cut by a marker's paper lay 0.4-0.6 px from it (the frames
#: before, 0.3-0.9), and the corner taken there was 17 mm off; a frame one period
#: after an 8 deg shot's bounce, before frames cut, lay 2.0 px off.
ON_ARC_PX = 1.0


@dataclass(frozen=True)
class Touch:
    """A first touch: the lowest corner's point on the board (x, y, mm), the fitted
    flight it ends, and the frame (index into the shot) where the path broke."""

    point_mm: np.ndarray
    flight: Flight | None
    break_index: int
    #: Frame periods flown before the break: from the launch, where the arc from
    #: the barrel gives it (the muzzle is where every flight starts), else the
    #: frames seen.
    flown_frames: float


def find_break(
    times_s: np.ndarray,
    pixels: np.ndarray,
    start: int = FIRST_BREAK,
) -> int | None:
    """Index of the first frame after the bounce (the path's break), or None when
    the path runs smoothly to its end (the bale left the view first).

    Each frame is predicted from a quadratic through the (up to) :data:`WINDOW`
    frames before it; a break is a frame missed by more than :data:`BREAK_FACTOR` times
    the typical miss so far (the track's own noise, extrapolated), and the frame
    after it missed too."""
    misses: list[float] = []
    # The first frames are left out: a bale coming out from behind the barrel is
    # seen in part, its centroid sliding as more of it shows.
    for i in range(max(start, FEWEST_SEEN), len(times_s) - 1):
        window = slice(max(0, i - WINDOW), i)
        miss_here = _miss(times_s[window], pixels[window], times_s[i], pixels[i])
        # Until a few misses are known, the floor alone: a steep low shot may
        # touch within a dozen frames.
        typical = float(np.median(misses)) if len(misses) >= 3 else 0.0
        limit = max(MIN_BREAK_PX, BREAK_FACTOR * typical)
        if miss_here > limit:
            miss_next = _miss(times_s[window], pixels[window], times_s[i + 1], pixels[i + 1])
            if miss_next > limit:
                return i
        misses.append(miss_here)
    return None


def _quadratic(times, pixels):
    """A quadratic in time through the frames (a line through fewer than five)."""
    t0 = times[-1]
    degree = 2 if len(times) >= 5 else 1
    return [np.polyfit(times - t0, pixels[:, axis], degree) for axis in (0, 1)], t0


def _miss(times, pixels, t, pixel) -> float:
    fits, t0 = _quadratic(times, pixels)
    predicted = np.array([np.polyval(f, t - t0) for f in fits])
    return float(np.linalg.norm(predicted - pixel))


def settle_break(times_s: np.ndarray, pixels: np.ndarray, broke: int, late: int = 0) -> int:
    """The break, or the frame before it (or up to ``late`` frames after it) where
    that splits the path better. A bale that bounced just before a frame has
    barely left the curve in it, so the break is first seen a frame late and the
    curve before it would end on a frame after the bounce (a steep low shot's touch
    then lands 2-3 mm off). After frames left out (the bale passing the tractor),
    the first frame seen again misses the curve before the gap though it may come
    before the bounce. Of the splits, the one whose curves before and after fit
    the same frames (up to :data:`WINDOW` either side of them all) with the least
    squared misfit is taken."""
    splits = range(broke - 1, broke + late + 1)
    first, last = max(0, splits[0] - WINDOW), min(len(times_s), splits[-1] + WINDOW)
    best, least = broke, np.inf
    for split in splits:
        if split - first < 5 or last - split < 2:
            continue
        before, after = slice(first, split), slice(split, last)
        misfit = _misfit(times_s[before], pixels[before]) + _misfit(times_s[after], pixels[after])
        if misfit < least:
            best, least = split, misfit
    return best


def _misfit(times, pixels) -> float:
    fits, t0 = _quadratic(times, pixels)
    predicted = np.column_stack([np.polyval(f, times - t0) for f in fits])
    return float(((predicted - pixels) ** 2).sum())


def contact_pixel(times_s: np.ndarray, pixels: np.ndarray, broke: int) -> tuple[np.ndarray, float]:
    """Where and when in the image the path breaks: the corner of the V that the
    curve before the break and the curve after it make (each fitted to up to
    :data:`WINDOW` frames), searched between the last frame before and the break."""
    before = slice(max(0, broke - WINDOW), broke)
    after = slice(broke, min(len(times_s), broke + WINDOW))
    fits_in, t_in = _quadratic(times_s[before], pixels[before])
    fits_out, t_out = _quadratic(times_s[after], pixels[after])
    candidates = np.linspace(times_s[broke - 1], times_s[broke], 41)
    path_in = np.column_stack([np.polyval(f, candidates - t_in) for f in fits_in])
    path_out = np.column_stack([np.polyval(f, candidates - t_out) for f in fits_out])
    best = int(np.argmin(np.linalg.norm(path_in - path_out, axis=1)))
    return (path_in[best] + path_out[best]) / 2, float(candidates[best])


def flight_heading(centre_mm: np.ndarray) -> np.ndarray:
    """The flight's horizontal heading at a point of it: straight away from the
    pivot axis. The barrel turns about that vertical axis and the bale leaves along
    the barrel, so every flight lies in a vertical plane through the axis. (The
    fitted flight's velocity is no guide: a steep low shot's 8-10 flight frames
    leave its direction loose, and it turned the corner's offset up to 90 degrees,
    putting those touches 5-6 mm short.)"""
    outward = np.asarray(centre_mm, float)[:2]
    return outward / max(float(np.linalg.norm(outward)), 1e-9)


def _off_plane_deg(centre_mm: np.ndarray, yaw_deg: float) -> float:
    """How far a point on the board lies from the set yaw's flight plane, degrees
    about the pivot axis."""
    aimed = direction(yaw_deg, 0.0)[:2]
    return math.degrees(math.acos(min(1.0, float(flight_heading(centre_mm) @ aimed))))


def first_touch(
    pose: CameraPose,
    times_s: np.ndarray,
    pixels: np.ndarray,
    contact_depth_mm: float,
    contact_ahead_mm: float,
    yaw_deg: float | None = None,
    launch: Launch | None = None,
) -> Touch | None:
    """The first touch of one shot's track (its frames' times and pixels); None
    when no break is seen. The bale's centre is where the ray through the break's
    pixel meets the plane of its height at the touch; the touch is its lowest
    corner, ``contact_ahead_mm`` from the centre along the flight (away from the
    pivot axis). With ``yaw_deg`` (the yaw set), a break whose centre lies off that
    yaw's flight plane (:data:`OFF_PLANE_DEG`) is passed over for the next one.

    With ``launch``, the touch is the first break within :data:`ARC_FRAMES` frames
    and :data:`ARC_MM` of where the arc from the barrel comes down to the board
    (:func:`~sim.real_toy.arc_landing.fit_landing`): a bend in mid-air before it
    (the bale over a white marker or the tractor) is passed over, and so is a
    later one (a bounce seen from high above that did not stand out, then a bend
    as the bale hops on). Where no break is found so, the frames where the arc
    comes down are taken for the break if their corner passes the same test (a
    bounce seen from high above bends the path too little to stand out); on a
    short flight, where the path may show no corner there at all, the touch is
    where the path is when the arc comes down (:func:`_landed_at`). A break whose
    frames before it already lie off the arc is no first touch: the touch is where
    the path left the arc (:func:`~sim.real_toy.arc_landing.left_arc`)."""
    arc = None
    if launch is not None:
        arc = fit_landing(pose, times_s, pixels, contact_depth_mm, launch, FIRST_BREAK)
    if launch is not None and arc is None:
        return None
    frame_s = float(np.median(np.diff(times_s))) if len(times_s) > 1 else 0.0
    found = None
    earliest = FIRST_BREAK if arc is None else _first_break(arc, times_s, frame_s)
    start = earliest
    while (seen := find_break(times_s, pixels, start)) is not None and seen + 2 <= len(times_s):
        start = seen + 1
        here = _touch_at(pose, times_s, pixels, seen, contact_depth_mm, yaw_deg, arc)
        if here is not None and arc is not None:
            here = _first_off_arc(
                pose, arc, times_s, pixels, here, earliest, contact_depth_mm, yaw_deg
            )
        if here is None:
            continue
        if arc is None or (
            _arc_miss(arc, here, contact_depth_mm, frame_s) is not None
            and _leaves_arc(pose, arc, times_s, pixels, here[0])
        ):
            found = here
            break
        if here[2] > arc.down_to(contact_depth_mm) + ARC_FRAMES * frame_s:
            break
    if found is None and arc is not None:
        guided = int(np.searchsorted(times_s, arc.down_to(contact_depth_mm)))
        if guided >= earliest and guided + 2 <= len(times_s):
            here = _landed_at(pose, arc, times_s, pixels, guided, contact_depth_mm, yaw_deg)
            if here is not None and _arc_miss(arc, here, contact_depth_mm, frame_s) is not None:
                found = here
    if found is None or _hidden(times_s, found[0], frame_s):
        return None
    broke = found[0]
    flown = broke if arc is None else (times_s[broke] - arc.left_s) / max(frame_s, 1e-9)
    return _touch(pose, times_s, pixels, *found, contact_ahead_mm, float(flown))


def _first_break(arc: Arc, times_s: np.ndarray, frame_s: float) -> int:
    """The earliest frame that can be a break: :data:`FIRST_BREAK` frame periods
    after the bale left the barrel (the arc's launch), counted from the launch
    rather than from the first frame seen, but no fewer than :data:`FEWEST_SEEN`
    frames in. A track seen from the muzzle keeps :data:`FIRST_BREAK`; one whose
    first frames the tractor hid (a -30 deg shot first seen 6-7 frames before it
    touched) starts as many frames earlier as were hidden."""
    after_launch = int(np.searchsorted(times_s, arc.left_s + FIRST_BREAK * frame_s))
    return min(FIRST_BREAK, max(FEWEST_SEEN, after_launch))


def _hidden(times_s: np.ndarray, broke: int, frame_s: float) -> bool:
    """Whether the frames either side of a break lie more than :data:`HIDDEN_FRAMES`
    apart: the bounce happened out of sight (behind the tractor, or the bale's
    blob cut for that long), and the corner of the curves before and after,
    extrapolated across the gap, is no measure of it."""
    return bool(times_s[broke] - times_s[broke - 1] > HIDDEN_FRAMES * frame_s)


def _touch_at(
    pose, times_s, pixels, seen, depth_mm, yaw_deg, arc: Arc | None = None
) -> tuple[int, np.ndarray, float] | None:
    """The settled break, its centre and time for a break first seen at ``seen``;
    None where its centre lies off the yaw's plane. With the arc, the break moves a
    frame on where its frame is still in flight before a gap (:func:`_still_flying`)
    and a frame back where the frame before it, after a gap, is off the arc
    (:func:`~sim.real_toy.arc_landing.landed_in_gap`)."""
    broke = settle_break(times_s, pixels, seen, _late(times_s, seen))
    if arc is not None and _still_flying(pose, arc, times_s, pixels, broke):
        broke += 1
    elif arc is not None and landed_in_gap(pose, arc, times_s, pixels, broke):
        broke -= 1
    pixel, time_s = contact_pixel(times_s, pixels, broke)
    centre = pose.on_plane(pixel.reshape(1, 2), depth_mm)[0]
    if yaw_deg is not None and _off_plane_deg(centre, yaw_deg) > OFF_PLANE_DEG:
        return None
    return broke, centre, time_s


def _first_off_arc(pose, arc: Arc, times_s, pixels, here, earliest, depth_mm, yaw_deg):
    """A break, or where the path left the arc before it (the touch, its hop
    bending the path too little to stand out: arc_landing.py's notes), taken as
    where no break stood out (:func:`_landed_at`)."""
    left = left_arc(pose, arc, times_s, pixels, here[0], earliest)
    if left is None:
        return here
    return _landed_at(pose, arc, times_s, pixels, left, depth_mm, yaw_deg)


def _landed_at(pose, arc: Arc, times_s, pixels, guided, depth_mm, yaw_deg):
    """The touch where the arc comes down (``guided``: the first frame after it),
    no break having stood out: timed by the arc on a short flight
    (:func:`~sim.real_toy.arc_landing.touch_on_arc`), else the corner of the
    curves either side of the frames there; None where its centre lies off the
    yaw's plane."""
    here = touch_on_arc(pose, arc, times_s, pixels, depth_mm)
    if here is None:
        return _touch_at(pose, times_s, pixels, guided, depth_mm, yaw_deg)
    if yaw_deg is not None and _off_plane_deg(here[1], yaw_deg) > OFF_PLANE_DEG:
        return None
    return here


def _late(times_s: np.ndarray, seen: int) -> int:
    """How many frames after the one first seen off the curve the break may lie:
    :data:`SETTLE_LATE` where frames are missing within as many frames of it (the
    bale hidden, or its blob cut and left out: the frames either side of the gap
    may be cut in part too, their centroids off the curve, and the bounce may come
    after the first frame seen off it), else none: a whole frame off the curve
    right after one on it comes after the bounce. (Allowed later anyway, the split
    fitted a second turn best: on a bouncy board, -30 deg shots that touched and
    struck again 3-4 frames later were put up to 20 mm long.)"""
    frame_s = float(np.median(np.diff(times_s)))
    about = times_s[max(0, seen - SETTLE_LATE - 1) : seen + SETTLE_LATE + 1]
    return SETTLE_LATE if bool((np.diff(about) > 1.5 * frame_s).any()) else 0


def _still_flying(pose, arc: Arc, times_s, pixels, broke: int) -> bool:
    """Whether a settled break's frame is the last one in flight before a gap: it
    lies on the arc from the barrel (within :data:`ON_ARC_PX`) and the next frame
    comes more than one and a half frame periods after it, so the bounce happened
    in the gap."""
    if broke + 1 >= len(times_s):
        return False
    frame_s = float(np.median(np.diff(times_s)))
    miss = arc_misses_px(pose, arc, times_s[broke : broke + 1], pixels[broke : broke + 1])[0]
    return bool(miss < ON_ARC_PX and times_s[broke + 1] - times_s[broke] > 1.5 * frame_s)


def _touch(pose, times_s, pixels, broke, centre, time_s, ahead_mm, flown) -> Touch:
    flight = fit_flight(pose, times_s[:broke], pixels[:broke], centre, time_s)
    point = centre[:2] + ahead_mm * flight_heading(centre)
    return Touch(point, flight, broke, flown)


def _leaves_arc(pose, arc: Arc, times_s, pixels, broke: int) -> bool:
    """Whether the bale leaves the arc from the barrel at a break: of the
    :data:`OFF_ARC_FRAMES` frames from the break, one lies more than
    :data:`OFF_ARC_PX` from it. After a bounce the bale flies up and on, off the
    arc that would have gone on down through the board; a bend in mid-air (the
    frames before it cut by a marker's paper, their centroids off the bale's
    centre, and kept) is followed by frames along the arc."""
    after = slice(broke, min(len(times_s), broke + int(OFF_ARC_FRAMES)))
    misses = arc_misses_px(pose, arc, times_s[after], pixels[after])
    return bool(misses.max(initial=0.0) > OFF_ARC_PX)


def _arc_miss(arc: Arc, found, depth_mm: float, frame_s: float) -> float | None:
    """How many frames a break (its settled index, centre and time) lies from where
    the arc comes down to the centre's height; None beyond :data:`ARC_FRAMES`
    frames or :data:`ARC_MM` from the arc's centre there."""
    _, centre, time_s = found
    down = arc.down_to(depth_mm)
    frames = abs(down - time_s) / max(frame_s, 1e-9)
    near = float(np.linalg.norm(arc.position(down)[:2] - centre[:2]))
    return frames if frames <= ARC_FRAMES and near <= ARC_MM else None
