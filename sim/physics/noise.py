"""A shot's errors: the launcher's spread, the aimer's error and the ``--vary``
factors, drawn from a seed (plain Monte Carlo) or given as deviates (a sampler's
points, sim/studies/shots/rqmc.py).

Seeded, the draws are those the shot has always made, in this order: three standard
normals (launcher yaw, pitch, speed), two (aimer yaw, pitch), then the ``vary``
uniforms (sim/physics/materials.py: the shorthands' three, then each material's six
where one is named); adding an aimer or ``vary`` leaves the earlier draws as they
were. :func:`materials_of` draws a shot's factors again without firing it.

Given as :class:`Deviates`, the launcher's and the aimer's yaw errors (independent
Gaussians) are one Gaussian of standard deviation sqrt(launcher² + aimer²), and the
same for pitch: a shot is three standard normals (yaw, pitch, speed) and one uniform
on (-1, 1) per ``vary`` factor, in the order of :data:`~sim.physics.materials.VARIABLE`
among those named. Fewer dimensions suit quasi-Monte Carlo points better.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.aimer import Aimer
from models.design import Launcher
from sim.physics.materials import NOMINAL, VARIABLE, Materials, draw_materials


@dataclass(frozen=True)
class Deviates:
    """One shot's errors as standard deviates.

    ``yaw``, ``pitch``, ``speed``: standard normals; ``vary``: one uniform on (-1, 1)
    per factor named by ``vary``, in the order of ``VARIABLE``.
    """

    yaw: float
    pitch: float
    speed: float
    vary: tuple[float, ...] = ()


@dataclass(frozen=True)
class ShotErrors:
    """What noise does to a shot: added yaw and pitch (degrees), the speed (mm/s) and
    the material factors."""

    d_yaw_deg: float
    d_pitch_deg: float
    speed_mm_s: float
    materials: Materials


def seeded_errors(
    seed: int | None, launcher: Launcher, aimer: Aimer, vary: dict | None
) -> ShotErrors:
    """A shot's errors drawn from its seed (plain Monte Carlo)."""
    (d_yaw, d_pitch, d_speed), (e_yaw, e_pitch), materials = _seeded_draws(seed, vary)
    return ShotErrors(
        d_yaw_deg=d_yaw * launcher.yaw_sd_deg + aimer.yaw_bias_deg + e_yaw * aimer.yaw_sd_deg,
        d_pitch_deg=(
            d_pitch * launcher.pitch_sd_deg + aimer.pitch_bias_deg + e_pitch * aimer.pitch_sd_deg
        ),
        speed_mm_s=launcher.muzzle_speed_mm_s + d_speed * launcher.speed_sd_mm_s,
        materials=materials,
    )


def _seeded_draws(seed: int | None, vary: dict | None) -> tuple[np.ndarray, np.ndarray, Materials]:
    """A seeded shot's draws in their one order: the launcher's three normals, the
    aimer's two, then the ``vary`` factors."""
    rng = np.random.default_rng(seed)
    launcher, aimer = rng.standard_normal(3), rng.standard_normal(2)
    return launcher, aimer, draw_materials(vary, rng)


def _deviate_materials(deviates: Deviates, vary: dict | None) -> Materials:
    """The factors of a shot given as deviates: one uniform per factor named."""
    half_ranges = vary or {}
    named = [name for name in VARIABLE if half_ranges.get(name) is not None]
    if len(deviates.vary) != len(named):
        raise ValueError(f"{len(named)} vary deviates needed, got {len(deviates.vary)}")
    factors = {
        name: 1.0 + half_ranges[name] * u for name, u in zip(named, deviates.vary, strict=True)
    }
    return Materials(**factors) if factors else NOMINAL


def materials_of(seed: int | None, deviates: Deviates | None, vary: dict | None) -> Materials:
    """The factors a shot drew, from how it drew its errors (its ``seed``, or its
    ``deviates`` where given, as a hit map's rows give them back), without firing it:
    a study reads its shots' draws back (sim/studies/maps/sensitivity.py)."""
    if deviates is not None:
        return _deviate_materials(deviates, vary)
    return _seeded_draws(seed, vary)[2]


def deviate_errors(
    deviates: Deviates, launcher: Launcher, aimer: Aimer, vary: dict | None
) -> ShotErrors:
    """A shot's errors from given deviates (the launcher's and aimer's spreads
    combined)."""
    yaw_sd = math.hypot(launcher.yaw_sd_deg, aimer.yaw_sd_deg)
    pitch_sd = math.hypot(launcher.pitch_sd_deg, aimer.pitch_sd_deg)
    return ShotErrors(
        d_yaw_deg=aimer.yaw_bias_deg + deviates.yaw * yaw_sd,
        d_pitch_deg=aimer.pitch_bias_deg + deviates.pitch * pitch_sd,
        speed_mm_s=launcher.muzzle_speed_mm_s + deviates.speed * launcher.speed_sd_mm_s,
        materials=_deviate_materials(deviates, vary),
    )


def fired_with(
    launcher: Launcher,
    yaw_deg: float,
    pitch_deg: float,
    *,
    seed: int | None,
    noise: bool,
    aimer: Aimer,
    vary: dict[str, float] | None,
    deviates: Deviates | None,
) -> tuple[float, float, float, Materials]:
    """What a shot set at ``yaw_deg``, ``pitch_deg`` is really fired with, in every
    engine: (yaw deg, pitch deg, speed mm/s, materials), its errors drawn from
    ``seed`` (or given as ``deviates``); without ``noise``, the setting itself at the
    launcher's speed."""
    if not noise:
        return yaw_deg, pitch_deg, launcher.muzzle_speed_mm_s, NOMINAL
    errors = (
        seeded_errors(seed, launcher, aimer, vary)
        if deviates is None
        else deviate_errors(deviates, launcher, aimer, vary)
    )
    return (
        yaw_deg + errors.d_yaw_deg,
        pitch_deg + errors.d_pitch_deg,
        errors.speed_mm_s,
        errors.materials,
    )


def vary_dims(vary: dict | None) -> int:
    """How many uniforms a shot's ``vary`` factors take as deviates."""
    return sum(1 for name in VARIABLE if (vary or {}).get(name) is not None)
