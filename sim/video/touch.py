"""Where the bale first touches the board, from its image track.

The bale is in the air until it touches, so its pixels cannot be dropped onto
the board plane as they are. Instead: where it first touches, its image path
breaks (the bounce turns its velocity). The break is the first frame that a
smooth curve through the frames before it does not predict, while the next
frame does not return to the curve either. The flight before the break is then
fitted in 3D (sim/video/speed.py) with its centre coming down to the contact
height between the last flight frame and the break; the touch is the bale's
lowest corner there (its centre plus the corner's offset along the flight,
sim/physics/ballistics.py's ``contact_offset_mm``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.video.detect import CameraPose
from sim.video.speed import Flight, fit_flight

#: Frames the smooth curve is fitted to when predicting the next one.
WINDOW = 8
#: A frame is off the curve when it misses the prediction by more than this many
#: times the typical miss before it, and at least MIN_BREAK_PX pixels.
BREAK_FACTOR = 5.0
MIN_BREAK_PX = 1.5


@dataclass(frozen=True)
class Touch:
    """A first touch: the lowest corner's point on the board (x, y, mm), the fitted
    flight it ends, and the frame (index into the shot) where the path broke."""

    point_mm: np.ndarray
    flight: Flight
    break_index: int


def find_break(times_s: np.ndarray, pixels: np.ndarray) -> int | None:
    """Index of the first frame after the bounce (the path's break), or None when
    the path runs smoothly to its end (the bale left the view first).

    Each frame is predicted from a quadratic through the :data:`WINDOW` frames
    before it; a break is a frame missed by more than :data:`BREAK_FACTOR` times
    the typical miss so far (the track's own noise, extrapolated), and the frame
    after it missed too."""
    misses: list[float] = []
    for i in range(WINDOW, len(times_s) - 1):
        window = slice(i - WINDOW, i)
        miss_here = _miss(times_s[window], pixels[window], times_s[i], pixels[i])
        typical = float(np.median(misses)) if len(misses) >= 3 else miss_here
        limit = max(MIN_BREAK_PX, BREAK_FACTOR * typical)
        if len(misses) >= 3 and miss_here > limit:
            miss_next = _miss(times_s[window], pixels[window], times_s[i + 1], pixels[i + 1])
            if miss_next > limit:
                return i
        misses.append(miss_here)
    return None


def _quadratic(times, pixels):
    t0 = times[-1]
    return [np.polyfit(times - t0, pixels[:, axis], 2) for axis in (0, 1)], t0


def _miss(times, pixels, t, pixel) -> float:
    fits, t0 = _quadratic(times, pixels)
    predicted = np.array([np.polyval(f, t - t0) for f in fits])
    return float(np.linalg.norm(predicted - pixel))


def first_touch(
    pose: CameraPose,
    times_s: np.ndarray,
    pixels: np.ndarray,
    contact_depth_mm: float,
    contact_ahead_mm: float,
) -> Touch | None:
    """The first touch of one shot's track (its frames' times and pixels); None
    when no break is seen or the flight before it cannot be fitted."""
    broke = find_break(times_s, pixels)
    if broke is None:
        return None
    # The frame before the break may already hold the start of the bounce in its blur:
    # the touch is looked for between the second frame before the break and the break.
    window = (float(times_s[broke - 2]), float(times_s[broke]))
    flight = fit_flight(pose, times_s[:broke], pixels[:broke], contact_depth_mm, window)
    if flight is None:
        return None
    horizontal = flight.velocity_mm_s[:2]
    heading = horizontal / max(float(np.linalg.norm(horizontal)), 1e-9)
    point = flight.touch_centre_mm[:2] + contact_ahead_mm * heading
    return Touch(point, flight, broke)
