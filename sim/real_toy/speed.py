"""The bale's flight in 3D from one camera: a ballistic fit to its image track.

Before it first touches the board the bale flies a parabola under gravity (the
project's constant; air drag is left out, as the stock design leaves it out).
It ends at the bale's centre at the touch (sim/real_toy/touch.py) at a time t_c
between two frames, so the path is fixed by the velocity there and t_c: four
unknowns, fitted by least squares to the pixels of the flight frames. A first
guess comes from the same model made linear (each frame's ray must pass through
the bale: a cross product, linear in the velocity for a given t_c); the pixels'
least squares then refine it. The launch speed is the fitted path's speed where it
left the barrel: its horizontal distance from the pivot axis equal to the
barrel's reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from sim.physics.ballistics import GRAVITY_MM_S2
from sim.real_toy.detect import CameraPose

_GRAVITY = np.array([0.0, 0.0, -GRAVITY_MM_S2])


@dataclass(frozen=True)
class Flight:
    """A fitted flight: where the centre was at the touch (mm), its velocity then
    (mm/s), the time then (s, video clock), the rms pixel misfit, the fitted
    parameters' covariance (vx, vy, vz, t_c), frames used."""

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
    touch_centre_mm: np.ndarray,
    touch_time_s: float,
) -> Flight | None:
    """The ballistic path through the flight frames' pixels that ends at the
    bale's centre at the touch (mm) at about ``touch_time_s``: its velocity there
    and the touch's time fitted; None if no fit is found."""
    times_s, pixels = np.asarray(times_s, float), np.asarray(pixels, float)
    if len(times_s) < 4:
        return None
    rays = pose.rays(pixels)
    origin = pose.centre_mm
    centre = np.asarray(touch_centre_mm, float)
    guess = _linear_guess(rays, origin, times_s - touch_time_s, centre)
    if guess is None:
        return None
    scale = np.array([100.0, 100.0, 100.0, 1e-3])
    result = least_squares(
        lambda p: _residuals(p * scale, pose, times_s, pixels, centre),
        np.append(guess, touch_time_s) / scale,
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
        touch_centre_mm=centre,
        velocity_mm_s=params[:3].copy(),
        touch_time_s=float(params[3]),
        rms_px=math.sqrt(float(residual @ residual) / len(residual)),
        covariance=covariance,
        frames=len(times_s),
    )


def _linear_guess(rays, origin, tau, centre):
    """The velocity at the touch with every ray through the path at its time, for
    a given touch time: d x (C + v tau - O + g tau^2 / 2) = 0, linear in v."""
    rows, rhs = [], []
    for d, t in zip(rays, tau, strict=True):
        cross = np.array([[0, -d[2], d[1]], [d[2], 0, -d[0]], [-d[1], d[0], 0]])
        known = centre - origin + 0.5 * _GRAVITY * t * t
        rows.append(cross * t)
        rhs.append(-cross @ known)
    a, b = np.vstack(rows), np.concatenate(rhs)
    solution, _, rank, _ = np.linalg.lstsq(a, b, rcond=None)
    return solution if rank == 3 else None


def _residuals(params, pose, times_s, pixels, centre):
    tau = (times_s - params[3])[:, None]
    points = centre + params[:3] * tau + 0.5 * _GRAVITY * tau**2
    return (pose.project(points) - pixels).ravel()


def _muzzle_velocity(params: np.ndarray, centre: np.ndarray, reach_mm: float) -> np.ndarray:
    """The path's velocity (mm/s) where it left the barrel, for parameters (vx, vy,
    vz at the touch, t_c): when, before the touch, its horizontal distance from the
    pivot axis was ``reach_mm`` (the later root: the muzzle, not behind the pivot;
    where the path never comes that close, its closest)."""
    c, v = centre[:2], params[:3]
    a, b = v[:2] @ v[:2], 2 * c @ v[:2]
    disc = max(b * b - 4 * a * (c @ c - reach_mm**2), 0.0)
    tau = (-b + math.sqrt(disc)) / (2 * a)
    return v + _GRAVITY * tau


def _with_error(flight: Flight, value) -> tuple[np.ndarray, np.ndarray]:
    """``value(params)`` (an array) at the fitted parameters and its standard error,
    from their covariance (a numerical gradient)."""
    params = np.concatenate([flight.velocity_mm_s, [flight.touch_time_s]])
    at = np.atleast_1d(value(params))
    gradient = np.zeros((len(at), 4))
    for i, step in enumerate((0.1, 0.1, 0.1, 1e-6)):
        bumped = params.copy()
        bumped[i] += step
        gradient[:, i] = (np.atleast_1d(value(bumped)) - at) / step
    variance = np.einsum("ij,jk,ik->i", gradient, flight.covariance, gradient)
    return at, np.sqrt(np.maximum(variance, 0.0))


def _reaches(flight: Flight, reach_mm: float) -> bool:
    """Whether the path, before the touch, came back to ``reach_mm`` from the
    pivot axis."""
    c, v = flight.touch_centre_mm[:2], flight.velocity_mm_s[:2]
    # |c + v tau| = reach, tau < 0: a quadratic in tau.
    a, b, k = v @ v, 2 * c @ v, c @ c - reach_mm**2
    disc = b * b - 4 * a * k
    return a > 0 and disc >= 0 and (-b + math.sqrt(disc)) / (2 * a) < 0


def launch_speed(flight: Flight, reach_mm: float) -> tuple[float, float] | None:
    """The fitted path's speed where it left the barrel, and its standard error
    (mm/s): the time, before the touch, when its horizontal distance from the
    pivot axis was ``reach_mm``. None when the path never comes that close."""
    if not _reaches(flight, reach_mm):
        return None
    centre = flight.touch_centre_mm
    speed, se = _with_error(flight, lambda p: np.linalg.norm(_muzzle_velocity(p, centre, reach_mm)))
    return float(speed[0]), float(se[0])


def launch_angles(flight: Flight, reach_mm: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The fitted path's pitch and yaw where it left the barrel (degrees; yaw 0
    along +y, positive toward -x, as the barrel's) and their standard errors. None
    when the path never comes back to the barrel."""
    if not _reaches(flight, reach_mm):
        return None
    centre = flight.touch_centre_mm

    def angles(params: np.ndarray) -> np.ndarray:
        vx, vy, vz = _muzzle_velocity(params, centre, reach_mm)
        return np.degrees([math.atan2(vz, math.hypot(vx, vy)), math.atan2(-vx, vy)])

    return _with_error(flight, angles)
