"""Where a shot's bale comes to rest, and where its bounce lands again, from its
image track (docs/real-toy.md, "The bale to rest").

**The rest point.** A bale at rest stays on the same pixels: the shot's last
frames, where each lies within :data:`STILL_PX` of the last few frames' median,
are its still frames, if there are at least :data:`MIN_STILL_FRAMES` and they do
not drift (:data:`MOST_DRIFT_PX`); a bale still sliding or tumbling when the
shot's frames end has none. Their centroids, averaged, are the bale's centre
in the image; lying on the board its centre is half its height up, so the ray
through that pixel meets the plane there (as a first touch is lifted,
sim/real_toy/touch.py), above the point of the board under it. There is no rest point
where the shot's frames do not end still (the bale left the board over an edge,
or was still moving), where the resting bale is not wholly in the picture (its
centroid is then not its centre's), or where the point lies off the board's top
(a bale on the table beside it).

**The second touch.** After its first touch the bale hops and lands again. From
the end of the bounce's own tumble (:data:`BOUNCE_FRAMES`) the frames are fitted
with the flight under gravity from the bale's centre at the first touch
(sim/real_toy/hop.py), ever more of them, until the path leaves it: there the
bale has landed, and the landing is the frame that splits the path best into
that flight and a smooth curve after it (a landing bends the image path by a
pixel a frame or less at first, which a smooth curve through the last few frames
hides among the tumbling bale's jitter: that found the break frames early, or
not at all). Where the path leaves the flight the bale is down on the board, flat
or rocking on an edge (:func:`landed_centre_height_mm`), so that pixel is put on
the plane of that centre height; the flight from the first touch to that point
is followed back to where its centre came down through the height of a bale
landing on a corner (:func:`landing_centre_height_mm`: its first contact), and
the landing is taken under the centre there (the corner that touches lies 0-2.5
mm from it, in a direction the spin decides; the video cannot tell the spin). A
landing is kept only where the hop's frames (at least :data:`MIN_HOP_FRAMES`)
lie on that flight (within :data:`HOP_MISFIT_PX`) and the frames after it leave
it (by :data:`LANDED_PX`: it came down there, not in mid-air; a break in mid-air
is passed over and the next one looked for), it lies :data:`MIN_HOP_LENGTH_MM`
or more ahead of the first touch along the flight's heading (a bale come back
struck a fence or the tractor: the board's friction slows a bouncing bale, it
does not turn it round), on the board's top and away from the markers: a bale
sliding or tumbling on the board, or a centroid jumping over a marker's white
paper, also bends the path, but not as a body thrown up from the first touch
falls. Most hops after a low shot's touch lift the bale a millimetre or two for
30-80 ms: the path never leaves a flight there, and no second touch is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.design import Bale
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.real_toy.detect import CameraPose
from sim.real_toy.hop import Hop, departures, landing_time, misses_px
from sim.real_toy.markers import MarkerLayout, landing_blind_spots
from sim.real_toy.touch import Touch, flight_heading
from sim.studies.calibrating.contact_stats import in_boxes

#: A frame is still when its centroid lies within this many pixels of the last
#: frames' median: the tracked centroid of a bale at rest in a ``piggy film`` video
#: wanders 0.01-0.02 px, and a noisier one's (0.1-0.15 px) stays within it. A bale
#: creeping to a stop counts as still only within this of where it stops, 0.35 mm
#: at 0.7 mm a pixel.
STILL_PX = 0.5
#: Still frames drift less than this a frame, pixels (at 0.7 mm a pixel and 240
#: fps, 8 mm/s; the engine takes a bale under 4 mm/s for one at rest).
MOST_DRIFT_PX = 0.05
#: The least still frames that make a rest (``piggy film`` films about 7 before a
#: shot ends: the design's rest time, 0.03 s; a real bale lies until picked up).
MIN_STILL_FRAMES = 5
#: The least frames of a hop seen after the tumble: over fewer, a slide, a tumble
#: and a glitch also lie near some flight from the first touch. A low shot's hop
#: 60-90 mm long lasts 11-13 frames from the first touch (7-9 after the tumble).
#: The flight is first fitted to these frames, and the path's jitter about it
#: there sets how far a frame must miss it to have left it (sim/real_toy/hop.py).
MIN_HOP_FRAMES = 6
#: The frames after the landing that must leave the hop's flight, continued, by
#: more than :data:`LANDED_PX` (rms): a break in mid-air (the tumbling bale's
#: centroid jumping across its outline) is followed by the same flight, a landing
#: by a slide or the next hop. From the side, 6 frames after a landing missed the
#: flight by 4-22 px; after a mid-air break, by 1.0 px.
AFTER_FRAMES = 6
LANDED_PX = 2.5
#: The shortest hop given, mm ahead of the first touch: a bale rolling onto another face
#: as it slides steps its centroid as a landing would, a few mm on, and over so few
#: frames some short flight from the first touch fits it (the contact fit leaves
#: out hops under 40 mm, sim/studies/calibrating/contact_stats.py).
MIN_HOP_LENGTH_MM = 30.0
#: The hop's frames must lie within this (rms px) of the one flight under gravity
#: from the bale's centre at the first touch to its centre where it came down: a break
#: from a glitch (the bale over a marker, partly hidden) or a slide makes a "hop"
#: whose frames are elsewhere.
HOP_MISFIT_PX = 1.5
#: The least a hop's flight rises above the straight line from the first touch to
#: its landing (g T^2 / 8 over its time T), mm: a slide's frames, on the board,
#: lie as near a lower one as its own, the first touch's centre being known to
#: 1-3 mm (a 45 ms hop, 11 frames at 240 fps). On film, three slides and flights
#: taken for hops of 9.6-10.1 frames went thus.
MIN_RISE_MM = 2.5
#: Frames after the first touch's break left out of the search: the bale turns and
#: tumbles in them and its centroid jumps (its area by half), which read as breaks.
BOUNCE_FRAMES = 4

#: The board's top (x_min, x_max, y_min, y_max, mm), None where not known.
BoardTop = tuple[float, float, float, float] | None

_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MM_S2])

NOT_STILL = "the bale was still moving when its frames ended (it left the board or the picture)"
CUT_OFF = "the bale at rest is not wholly in the picture"
OFF_BOARD = "the bale came to rest off the board's top"


@dataclass(frozen=True)
class Rest:
    """A shot's rest: the point under the bale's centre (x, y, mm; None where none
    is measured, with ``why``), and the still frames averaged."""

    point_mm: np.ndarray | None
    still_frames: int
    why: str = ""


def still_tail(pixels: np.ndarray) -> int:
    """How many of the last frames are still: each within :data:`STILL_PX` of the
    median of the last :data:`MIN_STILL_FRAMES`, and together drifting less than
    :data:`MOST_DRIFT_PX` a frame (0 when the last frames are not still)."""
    if len(pixels) < MIN_STILL_FRAMES:
        return 0
    centre = np.median(pixels[-MIN_STILL_FRAMES:], axis=0)
    near = np.linalg.norm(pixels - centre, axis=1) <= STILL_PX
    if not near[-MIN_STILL_FRAMES:].all():
        return 0
    moving = np.flatnonzero(~near)
    still = len(pixels) - (int(moving[-1]) + 1 if len(moving) else 0)
    # The two halves' means, half the run apart: a slow slide along the line of
    # sight stays within STILL_PX over a few frames, but moves between them.
    half = still // 2
    drift = np.linalg.norm(pixels[-half:].mean(axis=0) - pixels[-2 * half : -half].mean(axis=0))
    return still if drift / half <= MOST_DRIFT_PX else 0


def rest_point(
    pose: CameraPose,
    pixels: np.ndarray,
    frame_size: tuple[int, int],
    bale: Bale,
    board_top_mm: BoardTop,
) -> Rest:
    """Where one shot's bale came to rest (its frames' centroids, in order, the
    frames without the bale left out), on a board whose top spans ``board_top_mm``."""
    still = still_tail(pixels)
    if still < MIN_STILL_FRAMES:
        return Rest(None, still, NOT_STILL)
    centre_px = pixels[-still:].mean(axis=0)
    centre = pose.on_plane(centre_px.reshape(1, 2), bale.height_mm / 2)[0]
    if not _in_picture(pose, centre, bale.length_mm / 2, frame_size):
        return Rest(None, still, CUT_OFF)
    if not _on_board(centre, board_top_mm):
        return Rest(None, still, OFF_BOARD)
    return Rest(centre[:2], still)


def _on_board(point_mm: np.ndarray, board_top_mm: BoardTop) -> bool:
    if board_top_mm is None:
        return True
    x0, x1, y0, y1 = board_top_mm
    return bool(x0 <= point_mm[0] <= x1 and y0 <= point_mm[1] <= y1)


def _in_picture(pose: CameraPose, centre_mm: np.ndarray, reach_mm: float, size) -> bool:
    """Whether every point within ``reach_mm`` of the centre (horizontally) is in
    the picture, a pixel inside its edges."""
    angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    ring = centre_mm + reach_mm * np.column_stack(
        [np.cos(angles), np.sin(angles), np.zeros_like(angles)]
    )
    pixels = pose.project(ring)
    width, height = size
    return bool(
        np.isfinite(pixels).all()
        and (pixels[:, 0] >= 0.5).all()
        and (pixels[:, 0] <= width - 1.5).all()
        and (pixels[:, 1] >= 0.5).all()
        and (pixels[:, 1] <= height - 1.5).all()
    )


def landing_centre_height_mm(bale: Bale) -> float:
    """The bale's centre height as it lands after a hop, mm: the middle of lying flat
    (half its height) and standing on a corner (half its diagonal). On ``piggy film``
    shots of the stock bale it was 4.2-7.0 mm (5.6 on average); this gives 5.1."""
    diagonal = math.sqrt(bale.length_mm**2 + bale.width_mm**2 + bale.height_mm**2)
    return (bale.height_mm / 2 + diagonal / 2) / 2


def landed_centre_height_mm(bale: Bale) -> float:
    """The bale's centre height once a hop has come down, where the image path
    leaves the hop's flight, mm: the middle of lying flat (half its height) and
    rocking on an edge (half its smallest cross-section's diagonal); its centre
    was 3.3-4.7 mm up there on ``piggy film`` shots of the stock bale, and this
    gives 3.8."""
    edge = math.hypot(bale.height_mm, min(bale.width_mm, bale.length_mm)) / 2
    return (bale.height_mm / 2 + edge) / 2


def _through(from_mm: np.ndarray, from_s: float, to_mm: np.ndarray, to_s: float) -> Hop:
    """The flight under gravity from one point and time to another."""
    span = to_s - from_s
    return Hop(from_mm, from_s, (to_mm - from_mm) / span - 0.5 * _GRAVITY * span)


def _when_at(hop: Hop, height_mm: float, latest_s: float) -> float:
    """When the hop's centre came down through ``height_mm`` (its last time there
    before ``latest_s``; ``latest_s`` where it never was that high)."""
    a = 0.5 * _GRAVITY[2]
    b, c = hop.velocity_mm_s[2], hop.start_mm[2] - height_mm
    roots = np.roots([a, b, c])
    times = [hop.start_s + r.real for r in roots if abs(r.imag) < 1e-9]
    before = [t for t in times if hop.start_s < t <= latest_s]
    return max(before) if before else latest_s


def _misfit_px(pose: CameraPose, hop: Hop, times_s: np.ndarray, pixels: np.ndarray) -> float:
    """How far the frames lie from a hop's path in the picture, rms px."""
    return float(np.sqrt(np.mean(misses_px(pose, hop, times_s, pixels) ** 2)))


def second_touch(
    pose: CameraPose,
    times_s: np.ndarray,
    pixels: np.ndarray,
    first: Touch,
    bale: Bale,
    layout: MarkerLayout | None,
) -> np.ndarray | None:
    """The bounce's landing on the board (x, y, mm) after the ``first`` touch of the
    shot whose frames' times and centroids are given, on the board the
    ``layout``'s markers lie on; None where the path after the bounce's tumble
    never leaves a flight from the first touch as a landing does, or the landing
    is no hop's (see the module's notes)."""
    if first.flight is None:
        return None
    start = first.break_index + BOUNCE_FRAMES
    times, path = times_s[start:], pixels[start:]
    origin, origin_s = first.flight.touch_centre_mm, first.flight.touch_time_s
    for landed, seen in departures(pose, origin, origin_s, times, path, MIN_HOP_FRAMES):
        after = slice(landed, landed + AFTER_FRAMES)
        if len(times[after]) < AFTER_FRAMES:
            return None
        time_s = landing_time(pose, seen, times, path, landed)
        pixel = pose.project(seen.at([time_s]))
        down = pose.on_plane(pixel, landed_centre_height_mm(bale))[0]
        if not np.isfinite(down).all():
            return None
        if GRAVITY_MM_S2 * (time_s - origin_s) ** 2 / 8 < MIN_RISE_MM:
            return None  # too short a flight to tell from a slide
        hop = _through(origin, origin_s, down, time_s)
        centre = hop.at([_when_at(hop, landing_centre_height_mm(bale), time_s)])[0]
        if _misfit_px(pose, hop, times[:landed], path[:landed]) > HOP_MISFIT_PX:
            continue  # no flight from the first touch comes down there then
        if _misfit_px(pose, hop, times[after], path[after]) <= LANDED_PX:
            continue  # the frames after go on along it: a break in mid-air
        return centre[:2] if _a_hops_landing(centre, origin, bale, layout) else None
    return None


def _a_hops_landing(centre: np.ndarray, origin: np.ndarray, bale: Bale, layout) -> bool:
    """Whether a landing's centre lies ahead of the first touch's along the flight's
    heading, by :data:`MIN_HOP_LENGTH_MM` or more (a bale come back struck a fence
    or the tractor first: the board's friction slows a bouncing bale, it does not
    turn it round), on the board's top and away from the markers."""
    if float((centre[:2] - origin[:2]) @ flight_heading(origin)) < MIN_HOP_LENGTH_MM:
        return False
    return layout is None or (
        _on_board(centre, layout.board_top_mm) and not _by_a_marker(centre, layout, bale)
    )


def _by_a_marker(point_mm: np.ndarray, layout: MarkerLayout, bale: Bale) -> bool:
    """Whether the bale's centre lies in one of the markers' blind spots
    (sim/real_toy/markers.py, :func:`landing_blind_spots`)."""
    spots = landing_blind_spots(layout, bale.length_mm / 2)
    return bool(in_boxes(np.asarray(point_mm, float)[None, :2], spots)[0])
