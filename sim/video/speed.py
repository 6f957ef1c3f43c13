"""The bale's flight in 3D from one camera: a ballistic fit to its image track.

Before it first touches the board the bale flies a parabola under gravity (the
project's constant; air drag is left out, as the stock design leaves it out).
Its centre comes down to the height at which its lowest corner touches the
board (``contact_height_mm``, from the bale's size and tilt) at a time t_c
between two frames. With that height known, the path is fixed by the touch
point (x_c, y_c), the velocity there and t_c: six unknowns, fitted by least
squares to the pixels of the flight frames. A first guess comes from the same
model made linear (each frame's ray must pass through the bale: a cross product,
linear in the unknowns for a given t_c), solved for a few t_c; the pixels' least
squares then refine it. The launch speed is the fitted path's speed where it
left the barrel: its horizontal distance from the pivot axis equal to the
barrel's reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from sim.physics.ballistics import GRAVITY_MM_S2
from sim.video.detect import CameraPose

_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MM_S2])


@dataclass(frozen=True)
class Flight:
    """A fitted flight: where the centre was when at the contact height (mm),
    its velocity then (mm/s), the time then (s, video clock), the rms pixel
    misfit, the parameters' covariance (x_c, y_c, vx, vy, vz, t_c), frames used."""

    touch_centre_mm: np.ndarray
    velocity_mm_s: np.ndarray
    touch_time_s: float
    rms_px: float
    covariance: np.ndarray
    frames: int

    def position(self, t) -> np.ndarray:
        tau = np.asarray(t, float)[..., None] - self.touch_time_s
        return self.touch_centre_mm + self.velocity_mm_s * tau + 0.5 * _GRAVITY * tau**2


def fit_flight(
    pose: CameraPose,
    times_s: np.ndarray,
    pixels: np.ndarray,
    contact_height_mm: float,
    touch_window_s: tuple[float, float],
) -> Flight | None:
    """The ballistic path through the flight frames' pixels whose centre reaches
    ``contact_height_mm`` within ``touch_window_s``; None if no fit is found."""
    times_s, pixels = np.asarray(times_s, float), np.asarray(pixels, float)
    if len(times_s) < 4:
        return None
    rays = pose.rays(pixels)
    origin = pose.centre_mm
    lo, hi = touch_window_s
    best = None
    for t_c in np.linspace(lo, hi, 5):
        guess = _linear_guess(rays, origin, times_s - t_c, contact_height_mm)
        if guess is None:
            continue
        params = np.append(guess, t_c)
        cost = float(np.sum(_residuals(params, pose, times_s, pixels, contact_height_mm) ** 2))
        if best is None or cost < best[0]:
            best = (cost, params)
    if best is None:
        return None
    scale = np.array([10.0, 10.0, 100.0, 100.0, 100.0, 1e-3])
    result = least_squares(
        lambda p: _residuals(p * scale, pose, times_s, pixels, contact_height_mm),
        best[1] / scale,
        method="lm",
        x_scale="jac",
    )
    if not result.success:
        return None
    params = result.x * scale
    residual = result.fun
    dof = max(1, len(residual) - len(params))
    variance = float(residual @ residual) / dof
    jacobian = result.jac / scale
    try:
        covariance = np.linalg.inv(jacobian.T @ jacobian) * variance
    except np.linalg.LinAlgError:
        return None
    return Flight(
        touch_centre_mm=np.array([params[0], params[1], contact_height_mm]),
        velocity_mm_s=params[2:5].copy(),
        touch_time_s=float(params[5]),
        rms_px=math.sqrt(float(residual @ residual) / len(residual)),
        covariance=covariance,
        frames=len(times_s),
    )


def _linear_guess(rays, origin, tau, height):
    """(x_c, y_c, vx, vy, vz) with every ray through the path at its time, for a
    given touch time: d x (C + v tau - O + g tau^2 / 2) = 0, linear in C_xy and v."""
    rows, rhs = [], []
    for d, t in zip(rays, tau, strict=True):
        cross = np.array([[0, -d[2], d[1]], [d[2], 0, -d[0]], [-d[1], d[0], 0]])
        known = np.array([0.0, 0.0, height]) - origin + 0.5 * _GRAVITY * t * t
        rows.append(np.column_stack([cross[:, 0], cross[:, 1], cross * t]))
        rhs.append(-cross @ known)
    a, b = np.vstack(rows), np.concatenate(rhs)
    solution, _, rank, _ = np.linalg.lstsq(a, b, rcond=None)
    return solution if rank == 5 else None


def _residuals(params, pose, times_s, pixels, height):
    centre = np.array([params[0], params[1], height])
    tau = (times_s - params[5])[:, None]
    points = centre + params[2:5] * tau + 0.5 * _GRAVITY * tau**2
    return (pose.project(points) - pixels).ravel()


def launch_speed(flight: Flight, reach_mm: float) -> tuple[float, float] | None:
    """The fitted path's speed where it left the barrel, and its standard error
    (mm/s): the time, before the touch, when its horizontal distance from the
    pivot axis was ``reach_mm``. None when the path never comes that close."""
    c, v = flight.touch_centre_mm[:2], flight.velocity_mm_s[:2]
    # |c + v tau| = reach, tau < 0: a quadratic in tau.
    a, b, k = v @ v, 2 * c @ v, c @ c - reach_mm**2
    disc = b * b - 4 * a * k
    if a <= 0 or disc < 0:
        return None
    tau = (-b + math.sqrt(disc)) / (2 * a)  # the later root: the muzzle, not behind the pivot
    if tau >= 0:
        return None

    def speed_of(params: np.ndarray) -> float:
        cc, vv = params[:2], params[2:5]
        aa, bb = vv[:2] @ vv[:2], 2 * cc @ vv[:2]
        dd = max(bb * bb - 4 * aa * (cc @ cc - reach_mm**2), 0.0)
        t = (-bb + math.sqrt(dd)) / (2 * aa)
        return float(np.linalg.norm(vv + _GRAVITY * t))

    params = np.concatenate([c, flight.velocity_mm_s, [flight.touch_time_s]])
    speed = speed_of(params)
    gradient = np.zeros(6)
    for i, step in enumerate((0.01, 0.01, 0.1, 0.1, 0.1, 1e-6)):
        bumped = params.copy()
        bumped[i] += step
        gradient[i] = (speed_of(bumped) - speed) / step
    se = math.sqrt(max(float(gradient @ flight.covariance @ gradient), 0.0))
    return speed, se
