"""The rolling shutter: when each tracked point was seen, and the readout estimated
over a video's flights.

A phone's sensor reads its rows one after the other, top to bottom, over part of
the frame period (the readout), so a frame's lower rows are seen later than its
top ones: the bale on row ``v`` of a frame that starts at ``t`` was seen at
``t + readout * period * v / height``. A high arc climbs up the picture and falls
back, so taking every point at its frame's time times its flight wrongly by up
to the readout, and its ballistic fit (sim/real_toy/speed.py) reads the launch
speed 2-3 % fast at half a period.

The readout of a phone at 240 fps is not printed on it. It is estimated here from
the video itself: gravity is known, and so is the time scale of a flight it
pulls down, so the readout is the one that lets every flight's pixels fit a
parabola under gravity best. One readout is fitted jointly over all the shots'
flights (a single shot's flight leaves it loose: from -2 to 3 periods on a short
one), each flight weighted by its own pixel noise (the profile likelihood of
its misfit): a shot tracked less cleanly does not pull the estimate towards
itself. A negative readout is a picture read bottom to top (the phone held the
other way up).

Some views cannot tell it. The readout moves a point's time by its row, and
gravity shows in the picture only as far as the bale's fall crosses the rows;
from high above (75 deg) the fall runs mostly along the line of sight, so the
flights' misfit barely changes with the readout (on exact drawn tracks from
1.8 m, 75 deg, 60 deg to the side, six flights give +-0.14 against +-0.01 from
behind), and a touch's centre a millimetre off pulls the loose best value to
the end of the range searched. There the readout is reported as not measurable
from this view, not as a number, and the speeds are timed as a global shutter's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from sim.real_toy.defaults import READOUT_RANGE
from sim.real_toy.detect import CameraPose
from sim.real_toy.speed import fit_flight

#: The grid step of the first search, before the best point is refined.
GRID_STEP = 0.1
#: An estimate known less well than this (1 sd, share of the period) is not used,
#: and the readout is taken as 0 (a global shutter). A high arc's speed moves
#: about 6 % per period of readout, so this keeps the readout's share of its error
#: near half a percent. Three flights on a 960x540 video gave -0.33 +- 0.16 for a
#: global shutter: the pixel noise is not the only misfit (the tracked centroid's
#: own small biases), so a loose estimate can be off by more than its error says.
MAX_READOUT_SE = 0.1
#: A best value closer than this to an end of the range searched is that end.
EDGE = 0.01


@dataclass(frozen=True)
class FlightTrack:
    """One shot's flight as tracked, for the estimate: each point's frame time (s)
    and pixel, and where and when (about) it ended on the board (mm, s)."""

    frame_times_s: np.ndarray
    pixels: np.ndarray
    touch_centre_mm: np.ndarray
    touch_time_s: float


#: How the readout was found (:attr:`Readout.source`): given on the command line,
#: estimated, no flight to estimate it from, or flights that cannot tell it.
GIVEN, ESTIMATED = "given", "estimated"
NO_FLIGHTS, NOT_MEASURABLE = "not determined", "not measurable from this view"


@dataclass(frozen=True)
class Readout:
    """The readout used (share of the frame period) and how it was found:
    :data:`GIVEN`, :data:`ESTIMATED`, :data:`NO_FLIGHTS` or :data:`NOT_MEASURABLE`
    (then 0 is used, a global shutter's timing); where estimated or tried, the
    best value, its standard error and the flights it was estimated from.
    ``at_edge``: the best value is an end of the range searched (no minimum)."""

    fraction: float
    source: str
    estimate: float | None = None
    se: float | None = None
    flights: int = 0
    at_edge: bool = False

    def describe(self) -> str:
        if self.source == GIVEN:
            return f"{self.fraction:g} of the frame period (given)"
        spread = f" +- {self.se:.2f}" if self.se is not None else ""
        if self.source == ESTIMATED:
            return (
                f"{self.fraction:.2f}{spread} of the frame period "
                f"(estimated over {self.flights} flights)"
            )
        timed = "the points timed as a global shutter's (0); give --readout if it is known"
        if self.source == NO_FLIGHTS:
            return f"not determined: no flight long enough to estimate it from; {timed}"
        if self.at_edge:
            why = f"their best fit runs to the end of the range searched ({self.estimate:.0f})"
        elif self.se is None:
            why = "their misfit has no minimum in it"
        else:
            why = f"their best fit is only {self.estimate:.2f}{spread}"
        return f"{NOT_MEASURABLE}: {self.flights} flights do not tell it ({why}); {timed}"


def point_times(
    frame_times_s: np.ndarray, pixels: np.ndarray, readout: float, fps: float, height: int
) -> np.ndarray:
    """When each tracked point was seen: its frame's time plus the readout's share
    of the period times its row's share of the picture's height."""
    rows = np.asarray(pixels, float)[:, 1]
    return np.asarray(frame_times_s, float) + readout / fps * rows / height


def estimate_readout(
    pose: CameraPose, flights: Sequence[FlightTrack], fps: float, height: int
) -> Readout:
    """The readout that lets all ``flights`` fit their ballistic paths best: the
    minimum over :data:`READOUT_RANGE` of the flights' summed log misfits (a grid,
    then refined), its standard error from the curvature there. A flight with no
    fit at some readout of the grid is left out. Taken as 0 with no flights
    (:data:`NO_FLIGHTS`), and where the flights cannot tell it
    (:data:`NOT_MEASURABLE`): a standard error over :data:`MAX_READOUT_SE`, no
    minimum, or the best value at an end of the range."""
    low, high = READOUT_RANGE
    grid = np.linspace(low, high, round((high - low) / GRID_STEP) + 1)
    on_grid = [[_flight_cost(pose, f, float(r), fps, height) for r in grid] for f in flights]
    kept = [f for f, costs in zip(flights, on_grid, strict=True) if np.isfinite(costs).all()]
    if not kept:
        return Readout(0.0, NO_FLIGHTS, flights=len(flights))

    def cost(readout: float) -> float:
        return sum(_flight_cost(pose, f, readout, fps, height) for f in kept)

    summed = np.sum([c for c in on_grid if np.isfinite(c).all()], axis=0)
    best = int(np.argmin(summed))
    bracket = (float(grid[max(best - 1, 0)]), float(grid[min(best + 1, len(grid) - 1)]))
    refined = minimize_scalar(cost, bounds=bracket, method="bounded", options={"xatol": 1e-3})
    readout = float(refined.x)
    se = _curvature_se(cost, readout, float(refined.fun))
    # A best value at an end of the range is the fit running off it, no minimum:
    # its curvature there says nothing of how well the flights tell the readout.
    at_edge = min(readout - low, high - readout) < EDGE
    if at_edge or se is None or se > MAX_READOUT_SE:
        return Readout(0.0, NOT_MEASURABLE, readout, se, len(kept), at_edge)
    return Readout(readout, ESTIMATED, readout, se, len(kept))


def _flight_cost(
    pose: CameraPose, flight: FlightTrack, readout: float, fps: float, height: int
) -> float:
    """A flight's negative log likelihood at a readout (but a constant), with its
    own noise: its 2 * frames residuals give frames * log(mean squared misfit);
    infinite where no path fits."""
    times = point_times(flight.frame_times_s, flight.pixels, readout, fps, height)
    fitted = fit_flight(pose, times, flight.pixels, flight.touch_centre_mm, flight.touch_time_s)
    if fitted is None or fitted.rms_px <= 0:
        return math.inf
    return 2 * fitted.frames * math.log(fitted.rms_px)


def _curvature_se(cost, at: float, least: float, step: float = 0.05) -> float | None:
    """The standard error of the minimum of ``cost`` (a negative log likelihood):
    1 / sqrt(its second derivative), None where it is not convex."""
    curvature = (cost(at + step) - 2 * least + cost(at - step)) / step**2
    if not (math.isfinite(curvature) and curvature > 0):
        return None
    return 1 / math.sqrt(curvature)
