"""Projectile flight of the bale, without PyBullet: the closed form (no drag) and
a numerical integration (with quadratic drag). Used by the aim solver and by the
validation of the simulated flight.

Board frame, mm, s, degrees (docs/architecture.md, "Units and frames").
"""

from __future__ import annotations

import math

import numpy as np

from models.design import Design

#: Standard gravity, mm/s^2.
GRAVITY_MM_S2 = 9806.65


def direction(yaw_deg: float, pitch_deg: float) -> np.ndarray:
    """Unit vector of the barrel: yaw 0 along +y, positive yaw toward -x; shape (3,)."""
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    return np.array(
        [-math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), math.sin(pitch)]
    )


def release_radius_mm(design: Design) -> float:
    """Pivot to the bale's centre at release: the barrel plus half a bale, mm."""
    return design.launcher.barrel_length_mm + design.bale.length_mm / 2


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
