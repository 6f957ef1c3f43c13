"""The bale's flight for many shots at once, without PyBullet: where it first
touches the board and how fast it goes, in closed form without drag and by a
vectorised RK4 integration with the design's quadratic drag.

The bale keeps the barrel's tilt in flight (nothing turns it), so it touches the
board first with its lowest rounded corner, a few mm before or behind its centre
(:func:`contact_offset_mm`); the landing point is that corner's touch. Board
frame, mm, s, degrees; arrays broadcast.
"""

from __future__ import annotations

import numpy as np

from models.design import Bale, Design
from sim.physics.ballistics import (
    GRAVITY_MM_S2,
    drag_constant_per_mm,
    release_radius_mm,
    rk4_velocity_step,
)

#: Time step of the drag integration, s (the bale moves about 1 mm a step; RK4's
#: error is far below a millimetre).
_DRAG_STEP_S = 5e-4
#: A flight still in the air after this long is given up (never on the board), s.
_MAX_FLIGHT_S = 10.0


def contact_offset_mm(bale: Bale, pitch_deg) -> tuple[np.ndarray, np.ndarray]:
    """Where the bale's lowest point is, relative to its centre, when it flies
    tilted by ``pitch_deg``: (depth below the centre, distance ahead of it along
    the flight), mm. Nose up, the rear bottom corner is lowest; nose down, the
    front one; level, the middle of the bottom face."""
    theta = np.radians(pitch_deg)
    r = bale.corner_radius_mm
    half_length, half_height = bale.length_mm / 2 - r, bale.height_mm / 2 - r
    depth = half_length * np.abs(np.sin(theta)) + half_height * np.cos(theta) + r
    ahead = -np.sign(theta) * half_length * np.cos(theta) + half_height * np.sin(theta)
    return depth, ahead


def fly_to_height(design: Design, pitch_deg, speed_mm_s, floor_mm, pivot_height_mm=None):
    """Fly the bale's centre from the muzzle down to ``floor_mm`` above the board.

    Returns
    -------
    distance_mm : horizontal distance of the centre from the pivot axis there
        (NaN where it never comes down to that height).
    speed_there_mm_s : its speed there.
    fastest_mm_s : its highest speed on the way (muzzle included).
    """
    pivot = design.launcher.pivot_height_mm if pivot_height_mm is None else pivot_height_mm
    theta = np.radians(pitch_deg)
    r0 = release_radius_mm(design)
    x, z = r0 * np.cos(theta), pivot + r0 * np.sin(theta)
    speed = np.asarray(speed_mm_s, float)
    vx, vz = speed * np.cos(theta), speed * np.sin(theta)
    x, z, vx, vz, floor = np.broadcast_arrays(x, z, vx, vz, np.asarray(floor_mm, float))
    k = drag_constant_per_mm(design)
    if k == 0.0:
        g = GRAVITY_MM_S2
        drop = np.maximum(z - floor, 0.0)
        t = (vz + np.sqrt(vz * vz + 2 * g * drop)) / g
        there = np.sqrt(vx * vx + vz * vz + 2 * g * drop)
        return x + vx * t, there, np.maximum(there, np.hypot(vx, vz))
    return _dragged(*(a.astype(float).ravel() for a in (x, z, vx, vz, floor)), k, shape=x.shape)


def _dragged(x, z, vx, vz, floor, k, shape):
    """RK4 on x'' = -k|v|vx, z'' = -g - k|v|vz for every flight at once, each until
    its centre comes down through its floor (interpolated within the step)."""

    def accel(ux, uz):
        s = np.hypot(ux, uz)
        return -k * s * ux, -GRAVITY_MM_S2 - k * s * uz

    dt = _DRAG_STEP_S
    distance, there = np.full(x.shape, np.nan), np.full(x.shape, np.nan)
    fastest = np.hypot(vx, vz)
    done = z <= floor
    distance[done], there[done] = x[done], fastest[done]
    for _ in range(int(_MAX_FLIGHT_S / dt)):
        if done.all():
            break
        nvx, nvz = rk4_velocity_step(accel, vx, vz, dt)
        nx, nz = x + dt * (vx + nvx) / 2, z + dt * (vz + nvz) / 2
        speed = np.hypot(nvx, nvz)
        down = ~done & (nz <= floor)
        if down.any():
            f = (z[down] - floor[down]) / (z[down] - nz[down])
            distance[down] = x[down] + f * (nx[down] - x[down])
            before = np.hypot(vx[down], vz[down])
            there[down] = before + f * (speed[down] - before)
            fastest[down] = np.maximum(fastest[down], there[down])
        flying = ~done & ~down
        fastest[flying] = np.maximum(fastest[flying], speed[flying])
        done = done | down
        x, z, vx, vz = nx, nz, nvx, nvz
    return distance.reshape(shape), there.reshape(shape), fastest.reshape(shape)


def landing_distance_mm(design: Design, pitch_deg, speed_mm_s, pivot_height_mm=None):
    """Horizontal distance (mm) from the pivot axis to where the bale first touches
    the board (its lowest corner, :func:`contact_offset_mm`), fired at ``pitch_deg``
    with ``speed_mm_s``; with the design's drag when it has it."""
    depth, ahead = contact_offset_mm(design.bale, pitch_deg)
    distance, _, _ = fly_to_height(design, pitch_deg, speed_mm_s, depth, pivot_height_mm)
    return distance + ahead


def landing_point_mm(design: Design, yaw_deg, pitch_deg, speed_mm_s, pivot_height_mm=None):
    """Where on the board (x, y in mm, last axis) the bale first touches it."""
    distance = landing_distance_mm(design, pitch_deg, speed_mm_s, pivot_height_mm)
    yaw = np.radians(yaw_deg)
    return np.stack(np.broadcast_arrays(-distance * np.sin(yaw), distance * np.cos(yaw)), -1)
