"""The bounce's hop after the first touch, fitted as a flight, and where it lands
(docs/real-toy.md, "The bale to rest").

After its first touch the bale flies again, from its centre there, under gravity
alone: one flight whose only unknown is its velocity. Each frame's ray must pass
through the flight's point at that frame's time, which is linear in that
velocity, so the flight through any run of frames is one small least-squares
solve (:func:`fit_hop`). The flight is fitted to ever more frames from the end
of the bounce's tumble; the landing is the frame where the path leaves it, that
frame and the next missing the flight fitted to the frames before it
(:func:`find_landing`). A landing bends the image path by only a pixel or so a
frame (the bale was coming down at a few hundred mm/s), which a smooth curve
through the frames just before it hides among the tumbling bale's jitter; a
flight held to its start and to gravity does not bend with it, so the frames
after the landing leave it by more each frame. The landing's moment is where,
between the last frame on the flight and the first one off it, the flight's
image meets the path after it (:func:`landing_time`). The flight's velocity
along the line of sight hardly shows in the picture (a nearly orthographic
view), so its image is trusted, not its height: sim/real_toy/rest.py puts the
landing's pixel on the board.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from sim.physics.ballistics import GRAVITY_MM_S2
from sim.real_toy.detect import CameraPose

_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MM_S2])

#: A frame has left the flight when it misses the flight fitted to the frames
#: before it by more than this many pixels, or this many times their rms misfit:
#: the tumbling bale's centroid wanders 0.5-1 px about its centre's image; a
#: landing's frames miss by 2-4 px in the first frame after it, more in the next.
DEPART_PX = 2.0
DEPART_FACTOR = 4.0
#: Frames after the landing fitted with a smooth curve to find the landing's
#: moment (the path after it: a slide, or the next hop).
AFTER_FIT_FRAMES = 6
#: How many frames before the first frame seen off the flight the landing may be
#: (:func:`_settled`).
SETTLE_FRAMES = 8


@dataclass(frozen=True)
class Hop:
    """A flight under gravity from the bale's centre ``start_mm`` at ``start_s``
    with ``velocity_mm_s``."""

    start_mm: np.ndarray
    start_s: float
    velocity_mm_s: np.ndarray

    def at(self, times_s) -> np.ndarray:
        """The centre at each time (n,), mm (n, 3)."""
        tau = np.asarray(times_s, float).reshape(-1, 1) - self.start_s
        return self.start_mm + self.velocity_mm_s * tau + 0.5 * _GRAVITY * tau**2


def fit_hop(
    pose: CameraPose,
    start_mm: np.ndarray,
    start_s: float,
    times_s: np.ndarray,
    pixels: np.ndarray,
) -> Hop:
    """The flight from ``start_mm`` at ``start_s`` whose points lie nearest the rays
    through the frames' pixels at their times: each point's distance from its ray,
    scaled by the ray's length to it (a pixel's worth of miss is the same near and
    far), squared and summed, is least (linear in the velocity)."""
    eye = pose.centre_mm
    rays = pose.rays(pixels)
    tau = np.asarray(times_s, float) - start_s
    fixed = start_mm - eye + 0.5 * _GRAVITY * tau[:, None] ** 2
    # (fixed + v tau) x d = 0 on the ray; v tau x d = -tau [d]x v
    scale = 1.0 / np.linalg.norm(fixed, axis=1)
    cross = np.zeros((len(rays), 3, 3))
    cross[:, 0, 1], cross[:, 0, 2] = -rays[:, 2], rays[:, 1]
    cross[:, 1, 0], cross[:, 1, 2] = rays[:, 2], -rays[:, 0]
    cross[:, 2, 0], cross[:, 2, 1] = -rays[:, 1], rays[:, 0]
    rows = (scale * tau)[:, None, None] * cross
    rhs = scale[:, None] * np.cross(fixed, rays)
    velocity = np.linalg.lstsq(rows.reshape(-1, 3), rhs.reshape(-1), rcond=None)[0]
    return Hop(np.asarray(start_mm, float), start_s, velocity)


def misses_px(pose: CameraPose, hop: Hop, times_s: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """How far each frame lies from the hop's image at its time, px (n,)."""
    return np.linalg.norm(pose.project(hop.at(times_s)) - pixels, axis=1)


def _rms(misses: np.ndarray) -> float:
    return float(np.sqrt(np.mean(misses**2)))


def departures(
    pose: CameraPose,
    start_mm: np.ndarray,
    start_s: float,
    times_s: np.ndarray,
    pixels: np.ndarray,
    least_frames: int,
) -> Iterator[tuple[int, Hop]]:
    """Each frame (index, in order) where the path leaves the flight from the start
    through the frames before it (at least ``least_frames`` of them), with that
    flight: that frame and the next both miss it by more than :data:`DEPART_PX`,
    or :data:`DEPART_FACTOR` times those frames' rms. A landing is one of them; so
    is a centroid jumping in mid-air, which the frames after it undo."""
    opening = slice(0, least_frames)
    hop = fit_hop(pose, start_mm, start_s, times_s[opening], pixels[opening])
    jitter = _rms(misses_px(pose, hop, times_s[opening], pixels[opening]))
    limit = max(DEPART_PX, DEPART_FACTOR * jitter)
    for k in range(least_frames, len(times_s) - 1):
        hop = fit_hop(pose, start_mm, start_s, times_s[:k], pixels[:k])
        if (misses_px(pose, hop, times_s[k : k + 2], pixels[k : k + 2]) > limit).all():
            yield _settled(pose, start_mm, start_s, times_s, pixels, k, least_frames)


def _settled(pose, start_mm, start_s, times_s, pixels, k: int, least: int) -> tuple[int, Hop]:
    """The landing: of the frames up to :data:`SETTLE_FRAMES` before ``k`` (the
    first frame seen off the flight), the one that splits the frames up to
    :data:`AFTER_FIT_FRAMES` past ``k`` best, into the flight before it and a
    smooth curve from it (least squared misfit, both fitted). A bale coming down
    at a few hundred mm/s leaves the flight by a pixel a frame or less at first:
    its first frames on the board lie within the flight's own jitter, and the
    frame first seen off it comes 1-5 frames after the landing."""
    end = min(len(times_s), k + AFTER_FIT_FRAMES)
    best, least_misfit = k, np.inf
    for split in range(max(least, k - SETTLE_FRAMES), k + 1):
        if end - split < 4:
            continue
        hop = fit_hop(pose, start_mm, start_s, times_s[:split], pixels[:split])
        misfit = float(np.sum(misses_px(pose, hop, times_s[:split], pixels[:split]) ** 2))
        misfit += _curve_misfit(times_s[split:end], pixels[split:end])
        if misfit < least_misfit:
            best, least_misfit = split, misfit
    return best, fit_hop(pose, start_mm, start_s, times_s[:best], pixels[:best])


def _curve(times_s: np.ndarray, pixels: np.ndarray):
    """A quadratic in time through the frames (a line through fewer than four)."""
    t0 = float(times_s[0])
    degree = 2 if len(times_s) >= 4 else 1
    fits = [np.polyfit(times_s - t0, pixels[:, axis], degree) for axis in (0, 1)]
    return lambda t: np.column_stack([np.polyval(f, np.asarray(t) - t0) for f in fits])


def _curve_misfit(times_s: np.ndarray, pixels: np.ndarray) -> float:
    return float(np.sum((_curve(times_s, pixels)(times_s) - pixels) ** 2))


def landing_time(
    pose: CameraPose, hop: Hop, times_s: np.ndarray, pixels: np.ndarray, landed: int
) -> float:
    """When the hop landed: where, between the last frame on the flight and the
    first off it (``landed``), the flight's image comes nearest the smooth curve
    through the frames after it."""
    after = slice(landed, landed + AFTER_FIT_FRAMES)
    path_after = _curve(times_s[after], pixels[after])
    candidates = np.linspace(times_s[landed - 1], times_s[landed], 41)
    gaps = np.linalg.norm(pose.project(hop.at(candidates)) - path_after(candidates), axis=1)
    return float(candidates[int(np.argmin(gaps))])
