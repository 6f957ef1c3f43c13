"""The bale's flight from the barrel, fitted to its image track: where the arc
comes down to the board.

The bale leaves the muzzle along the barrel (its centre at the pivot plus the
release radius along the barrel's direction) and flies a parabola under gravity.
Four numbers fix that arc: the barrel's yaw and pitch, the speed and the time it
left. Fitted to the frames' pixels, with the angles row and the design's speed
as loose priors (the spreads and a person's scale offsets are a few degrees; a
low shot shows only 8-10 flight frames, too few to pin four numbers down from a
steep view by themselves), the arc tells when and where the bale's centre
comes down to its height at the touch.

That is a check on a break of the image path (sim/real_toy/touch.py): a true first
touch breaks the path where the arc meets the board; a break in mid-air (the
bale's blob cut by a white marker or the tractor) lies frames away from it. And
where the bounce bends the path too little to stand out (a low shot seen from
high above), the arc says which frames to look between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from sim.physics.ballistics import GRAVITY_MM_S2, direction
from sim.real_toy.detect import CameraPose

_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MM_S2])
#: The priors' spreads: the yaw and pitch the row says, degrees (the design's aim
#: spread and a person's offset of the scales), and the speed, as a share of it.
ANGLE_PRIOR_DEG = 4.0
SPEED_PRIOR = 0.1
#: Misses beyond this (pixels) count less than their square in the fit.
ROBUST_PX = 1.0


@dataclass(frozen=True)
class Launch:
    """What is known of a shot before it is seen: the pivot's height and the
    release radius (mm), the angles its row says (degrees) and the design's muzzle
    speed (mm/s)."""

    pivot_height_mm: float
    release_radius_mm: float
    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float


@dataclass(frozen=True)
class Arc:
    """A fitted arc from the barrel: the barrel's yaw and pitch (degrees), the
    speed (mm/s), the time it left (s, video clock), its rms pixel misfit."""

    launch: Launch
    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float
    left_s: float
    rms_px: float

    def position(self, t) -> np.ndarray:
        """The bale's centre (..., 3), mm, at times ``t`` (s)."""
        return _path(self.launch, (self.yaw_deg, self.pitch_deg, self.speed_mm_s, self.left_s), t)

    def down_to(self, height_mm: float) -> float:
        """When (s) the centre comes down to ``height_mm`` above the board."""
        way = direction(self.yaw_deg, self.pitch_deg)
        z0 = self.launch.pivot_height_mm + self.launch.release_radius_mm * way[2]
        vz, g = self.speed_mm_s * way[2], GRAVITY_MM_S2
        tau = (vz + math.sqrt(max(vz * vz + 2 * g * (z0 - height_mm), 0.0))) / g
        return self.left_s + tau


def _path(launch: Launch, params, t) -> np.ndarray:
    yaw, pitch, speed, left = params
    way = direction(yaw, pitch)
    tau = np.asarray(t, float)[..., None] - left
    muzzle = np.array([0.0, 0.0, launch.pivot_height_mm]) + launch.release_radius_mm * way
    return muzzle + speed * way * tau + 0.5 * _GRAVITY * tau**2


def fit_arc(
    pose: CameraPose, times_s: np.ndarray, pixels: np.ndarray, launch: Launch
) -> Arc | None:
    """The arc from the barrel through the frames' pixels (the flight's, before
    any touch), or None with fewer than 4 frames or no fit."""
    times_s, pixels = np.asarray(times_s, float), np.asarray(pixels, float)
    if len(times_s) < 4:
        return None
    prior = np.array([launch.yaw_deg, launch.pitch_deg, launch.speed_mm_s])
    spread = np.array([ANGLE_PRIOR_DEG, ANGLE_PRIOR_DEG, SPEED_PRIOR * launch.speed_mm_s])
    scale = np.array([1.0, 1.0, 100.0, 1e-3])
    fps = 1 / max(float(np.median(np.diff(times_s))), 1e-6) if len(times_s) > 1 else 240.0

    def residuals(scaled):
        params = scaled * scale
        misses = pose.project(_path(launch, params, times_s)) - pixels
        return np.concatenate([misses.ravel(), (params[:3] - prior) / spread])

    guess = np.append(prior, times_s[0] - 1 / fps) / scale
    # A soft loss: a frame or a few whose blob was cut (a marker, the tractor)
    # and kept pull the arc less than a square would.
    result = least_squares(residuals, guess, loss="soft_l1", f_scale=ROBUST_PX, x_scale="jac")
    if not result.success:
        return None
    yaw, pitch, speed, left = result.x * scale
    misses = result.fun[: 2 * len(times_s)]
    rms = math.sqrt(float(misses @ misses) / len(times_s))
    return Arc(launch, float(yaw), float(pitch), float(speed), float(left), rms)
