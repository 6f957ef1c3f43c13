"""Projectile flight of the bale, without PyBullet: the closed form (no drag) and
a numerical integration (with quadratic drag), for one shot (the aim solver, the
validation of the simulated flight) or many at once (the calibration and safety
studies: where the bale first touches the board and how fast it goes).

The bale keeps the barrel's tilt in flight (nothing turns it), so it touches the
board first with its lowest rounded corner, a few mm before or behind its centre
(:func:`contact_offset_mm`); the landing point is that corner's touch.

Board frame, mm, s, degrees (docs/architecture.md, "Units and frames").
"""

from __future__ import annotations

import math

import numpy as np

from models.design import Bale, Design

#: Standard gravity, mm/s^2.
GRAVITY_MM_S2 = 9806.65
#: Time step of the vectorised drag integration, s (the bale moves about 1 mm a step;
#: RK4's error is far below a millimetre).
_DRAG_STEP_S = 5e-4
#: A flight still in the air after this long is given up (never on the board), s.
_MAX_FLIGHT_S = 10.0


def direction(yaw_deg: float, pitch_deg: float) -> np.ndarray:
    """Unit vector of the barrel: yaw 0 along +y, positive yaw toward -x; shape (3,)."""
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    return np.array(
        [-math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), math.sin(pitch)]
    )


def release_radius_mm(design: Design) -> float:
    """Pivot to the bale's centre at release, its rear at the muzzle: the barrel plus
    half a bale (an own mesh's extent behind its centre of mass), mm."""
    return design.launcher.barrel_length_mm + design.bale.behind_mm


def release_point_mm(design: Design, yaw_deg: float, pitch_deg: float) -> np.ndarray:
    """Where the bale's centre is when it leaves the barrel; shape (3,), mm."""
    pivot = np.array([0.0, 0.0, design.launcher.pivot_height_mm])
    return pivot + release_radius_mm(design) * direction(yaw_deg, pitch_deg)


def drag_constant_per_mm(design: Design) -> float:
    """k in a = -k |v| v for the bale's quadratic drag (1/mm); 0 when drag is off.

    k = rho Cd A / (2 m), with A the bale's frontal area (width x height).
    """
    physics = design.physics
    if not physics.air_drag:
        return 0.0
    area_m2 = design.bale.width_mm * design.bale.height_mm * 1e-6
    k_per_m = (
        physics.air_density_kg_m3
        * physics.drag_coefficient
        * area_m2
        / (2 * design.bale.mass_g * 1e-3)
    )
    return k_per_m * 1e-3


def height_at_distance(
    design: Design, pitch_deg: float, distance_mm: float, speed_mm_s: float | None = None
) -> float:
    """Height (mm) of the bale's centre when it is ``distance_mm`` from the pivot,
    horizontally, fired at ``pitch_deg``; -inf if it never gets that far."""
    speed = design.launcher.muzzle_speed_mm_s if speed_mm_s is None else speed_mm_s
    theta = math.radians(pitch_deg)
    r0 = release_radius_mm(design)
    x0, z0 = r0 * math.cos(theta), design.launcher.pivot_height_mm + r0 * math.sin(theta)
    d = distance_mm - x0
    if d < 0:
        return -math.inf
    k = drag_constant_per_mm(design)
    vx, vz = speed * math.cos(theta), speed * math.sin(theta)
    if k == 0.0:
        t = d / vx
        return z0 + vz * t - 0.5 * GRAVITY_MM_S2 * t * t
    return _integrate_with_drag(x0, z0, vx, vz, k, distance_mm)


def rk4_velocity_step(accel, vx, vz, dt: float):
    """One classic Runge-Kutta step of the velocity under ``accel(vx, vz) -> (ax, az)``
    (mm/s, mm/s^2); scalars or numpy arrays alike. Returns the new (vx, vz)."""
    a1 = accel(vx, vz)
    a2 = accel(vx + 0.5 * dt * a1[0], vz + 0.5 * dt * a1[1])
    a3 = accel(vx + 0.5 * dt * a2[0], vz + 0.5 * dt * a2[1])
    a4 = accel(vx + dt * a3[0], vz + dt * a3[1])
    return (
        vx + dt / 6 * (a1[0] + 2 * a2[0] + 2 * a3[0] + a4[0]),
        vz + dt / 6 * (a1[1] + 2 * a2[1] + 2 * a3[1] + a4[1]),
    )


def _integrate_with_drag(x, z, vx, vz, k, target_x, dt=2e-4, z_floor=-500.0) -> float:
    """RK4 on x'' = -k|v|vx, z'' = -g - k|v|vz until x reaches target_x; z there."""

    def accel(vx_, vz_):
        s = math.hypot(vx_, vz_)
        return -k * s * vx_, -GRAVITY_MM_S2 - k * s * vz_

    while x < target_x:
        if z < z_floor or vx <= 1e-9:
            return -math.inf
        nvx, nvz = rk4_velocity_step(accel, vx, vz, dt)
        nx, nz = x + dt * (vx + nvx) / 2, z + dt * (vz + nvz) / 2
        if nx >= target_x:  # interpolate the last step
            f = (target_x - x) / (nx - x)
            return z + f * (nz - z)
        x, z, vx, vz = nx, nz, nvx, nvz
    return z


def closed_form_landing(
    design: Design, pitch_deg: float, height_mm: float, speed_mm_s: float | None = None
) -> tuple[float, float]:
    """No-drag flight to the moment the centre comes down to ``height_mm``.

    Returns ``(horizontal distance from the pivot, time of flight)``, mm and s.
    """
    speed = design.launcher.muzzle_speed_mm_s if speed_mm_s is None else speed_mm_s
    theta = math.radians(pitch_deg)
    r0 = release_radius_mm(design)
    x0, z0 = r0 * math.cos(theta), design.launcher.pivot_height_mm + r0 * math.sin(theta)
    vx, vz = speed * math.cos(theta), speed * math.sin(theta)
    g = GRAVITY_MM_S2
    disc = vz * vz + 2 * g * (z0 - height_mm)
    if disc < 0:
        return math.nan, math.nan
    t = (vz + math.sqrt(disc)) / g
    return x0 + vx * t, t


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
    fx, fz, fvx, fvz, ffloor = (a.astype(float).ravel() for a in (x, z, vx, vz, floor))
    return _dragged(fx, fz, fvx, fvz, ffloor, k, shape=x.shape)


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
