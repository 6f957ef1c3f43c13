"""Calibrating a design from shots measured on the real toy.

A CSV of shots fired on an empty board (docs/real-toy.md says how to measure)
gives, per shot, the settings (``pitch_deg``, ``yaw_deg``) and where the bale
first touched the board (``x_mm``, ``y_mm``, board frame); optionally a
chronograph's ``speed_mm_s`` and the ``pivot_height_mm``. :func:`calibrate` fits
by maximum likelihood the muzzle speed, the speed spread, the yaw and pitch
spreads and the offsets of the pitch and yaw scales, with standard errors from
the observed information, and makes the fitted design.

The model. A shot flies at pitch θ = set + offset + e_θ, yaw ψ = set + offset +
e_ψ and speed v = v0 + e_v (or the chronograph's reading), the e's normal with
the spreads; it lands where :func:`sim.physics.ballistics.landing_point_mm` says
(closed form, or with the base design's drag). The landing is linearised around
the nominal shot (the delta method): normal, with mean at the nominal landing and
covariance J·diag(sd²)·Jᵀ + m²·I, J the landing's derivatives by speed, pitch and
yaw, m the marking error. Why not integrate: the spreads are small (about 1 % of
the speed, 1 degree), so the landing's curvature moves its mean by about
½·R_θθ·sd_θ² ≈ 0.2 mm, well under the marking error, while integrating over the
three errors would cost a quadrature per shot per step of the fit.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np

from models.design import Design
from models.errors import InputError
from sim.physics.ballistics import drag_constant_per_mm, landing_point_mm
from sim.studies.calibrating.checks import (
    ADVICE,
    LABELS,
    MAX_EVALUATIONS,
    check_determined,
    check_enough,
    refuse,
)
from sim.studies.calibrating.fitted_file import fitted_design
from sim.studies.calibrating.likelihood import (
    Undetermined,
    covariance,
    minimise,
    profile_upper_bound,
)
from sim.studies.calibrating.result import CalibrationResult, Estimate
from sim.studies.calibrating.shots_csv import MeasuredShots

#: The fitted parameters, in the order of the covariance matrix.
PARAMETERS = (
    "muzzle_speed_mm_s",
    "speed_sd_mm_s",
    "yaw_sd_deg",
    "pitch_sd_deg",
    "pitch_offset_deg",
    "yaw_offset_deg",
)
#: How precisely a landing is marked and measured (1 sd), mm: a pen dot read off a
#: ruler, and where along the bale's edge the first touch was.
MARKING_SD_MM = 2.0
#: At most this many fits, each with the drag correction of the last.
_DRAG_ROUNDS = 5
#: Indices of the spreads in the parameter vector (fitted as log sd).
_SPREADS = (1, 2, 3)
#: A spread whose log has fallen this far below its start (a factor 1000) fits as zero.
_ZERO_SPREAD_LOG = -math.log(1000.0)
#: Mahalanobis distance² above which a shot is listed as an outlier (χ², 2 d.o.f., 0.999).
_OUTLIER_D2 = 13.8155
_DEG = math.pi / 180


class _Model:
    """The likelihood of the shots for a vector of parameters
    q = (v0 in m/s, log speed sd, log yaw sd, log pitch sd, pitch offset, yaw offset),
    every entry of order one for the optimiser (sds in mm/s and degrees).

    Every step of the fit flies the closed form; a design with drag adds to each
    landing its drag correction (dragged minus closed-form landing), computed by
    :meth:`correct_for_drag` at the current parameters and held while the fit
    runs, then updated until the fit stands still. Drag shortens the stock shots
    by about 1 %, so the correction's own change with the parameters, left out of
    the landing's derivatives, changes the spreads by about 1 % of themselves.
    """

    def __init__(self, shots: MeasuredShots, base: Design, measurement_sd_mm: float):
        self.shots, self.base, self.m2 = shots, base, measurement_sd_mm**2
        self.timed = np.isfinite(shots.speed_mm_s)
        self.pivot = np.where(
            np.isfinite(shots.pivot_height_mm), shots.pivot_height_mm, base.launcher.pivot_height_mm
        )
        self.measured = np.stack([shots.x_mm, shots.y_mm], -1)
        self.closed_form = replace(base, physics=replace(base.physics, air_drag=False))
        self.drag_correction = np.zeros((len(shots), 2))

    def nominal(self, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each shot's speed, pitch and yaw without its random errors."""
        v0, _, _, _, d_pitch, d_yaw = self.natural(q)
        s = self.shots
        return np.where(self.timed, s.speed_mm_s, v0), s.pitch_deg + d_pitch, s.yaw_deg + d_yaw

    def correct_for_drag(self, q) -> None:
        speed, pitch, yaw = self.nominal(q)
        dragged = landing_point_mm(self.base, yaw, pitch, speed, self.pivot)
        self.drag_correction = dragged - landing_point_mm(
            self.closed_form, yaw, pitch, speed, self.pivot
        )

    @staticmethod
    def natural(q) -> np.ndarray:
        return np.array([q[0] * 1e3, math.exp(q[1]), math.exp(q[2]), math.exp(q[3]), q[4], q[5]])

    def landing(self, q):
        """Mean landing (n, 2) and its covariance (n, 2, 2) under parameters q."""
        _, sd_v, sd_yaw, sd_pitch, _, _ = self.natural(q)
        s = self.shots
        speed, pitch, yaw = self.nominal(q)
        h_v, h_p = 1.0, 0.01  # central differences: mm/s, degrees
        speeds = np.concatenate([speed, speed + h_v, speed - h_v, speed, speed])
        pitches = np.concatenate([pitch, pitch, pitch, pitch + h_p, pitch - h_p])
        points = landing_point_mm(
            self.closed_form, np.tile(yaw, 5), pitches, speeds, np.tile(self.pivot, 5)
        ).reshape(5, len(s), 2)
        mean = points[0] + self.drag_correction
        by_speed = (points[1] - points[2]) / (2 * h_v)
        by_pitch = (points[3] - points[4]) / (2 * h_p)
        by_yaw = np.stack([-mean[:, 1], mean[:, 0]], -1) * _DEG  # a turn about the pivot
        sd_v_shot = np.where(self.timed, 0.0, sd_v)
        cov = (
            np.einsum("ni,nj->nij", by_speed, by_speed) * (sd_v_shot**2)[:, None, None]
            + np.einsum("ni,nj->nij", by_pitch, by_pitch) * sd_pitch**2
            + np.einsum("ni,nj->nij", by_yaw, by_yaw) * sd_yaw**2
            + self.m2 * np.eye(2)
        )
        return mean, cov

    def distances2(self, q) -> tuple[np.ndarray, np.ndarray]:
        """Each shot's Mahalanobis distance² from its predicted landing, and log det Σ."""
        mean, cov = self.landing(q)
        r = self.measured - mean
        det = cov[:, 0, 0] * cov[:, 1, 1] - cov[:, 0, 1] * cov[:, 1, 0]
        with np.errstate(divide="ignore", invalid="ignore"):  # NaN where a shot never lands
            d2 = (
                cov[:, 1, 1] * r[:, 0] ** 2
                - 2 * cov[:, 0, 1] * r[:, 0] * r[:, 1]
                + cov[:, 0, 0] * r[:, 1] ** 2
            ) / det
            return d2, np.log(det)

    def negative_log_likelihood(self, q) -> float:
        d2, log_det = self.distances2(q)
        if not (np.all(np.isfinite(d2)) and np.all(np.isfinite(log_det))):
            return 1e12  # a speed at which some shot never comes down
        nll = 0.5 * float(np.sum(d2 + log_det)) + len(d2) * math.log(2 * math.pi)
        if self.timed.any():
            v0, sd_v = q[0] * 1e3, math.exp(q[1])
            if sd_v == 0.0:
                return 1e12  # timed shots of different speeds need a spread
            z = (self.shots.speed_mm_s[self.timed] - v0) / sd_v
            nll += float(np.sum(0.5 * z * z + math.log(sd_v) + 0.5 * math.log(2 * math.pi)))
        return nll

    def start(self) -> np.ndarray:
        """Starting values: the speed that best fits the distances at the set pitches
        (or the chronograph's mean), the base design's spreads, no offsets."""
        launcher = self.base.launcher
        if self.timed.any():
            v0 = float(np.mean(self.shots.speed_mm_s[self.timed]))
        else:
            candidates = launcher.muzzle_speed_mm_s * np.geomspace(0.3, 3.0, 61)
            s = self.shots
            distances = np.hypot(s.x_mm, s.y_mm)
            predicted = np.linalg.norm(
                landing_point_mm(
                    self.closed_form,
                    0.0,
                    s.pitch_deg[None, :],
                    candidates[:, None],
                    self.pivot[None, :],
                ),
                axis=-1,
            )
            v0 = float(candidates[np.nanargmin(np.sum((predicted - distances) ** 2, axis=1))])
        sds = [
            max(launcher.speed_sd_mm_s, 1.0),
            max(launcher.yaw_sd_deg, 0.05),
            max(launcher.pitch_sd_deg, 0.05),
        ]
        return np.array([v0 / 1e3, *np.log(sds), 0.0, 0.0])


def calibrate(
    shots: MeasuredShots, base: Design, measurement_sd_mm: float = MARKING_SD_MM
) -> CalibrationResult:
    """Fit the launcher to measured shots (maximum likelihood, closed-form flight).

    Parameters
    ----------
    shots : from :func:`sim.studies.calibrating.shots_csv.read_shots`.
    base : the design the fit starts from and fills in (bale, pivot, drag ...).
    measurement_sd_mm : how precisely a landing is marked and measured (1 sd), mm.

    Standard errors come from the observed information (the Hessian of -log L);
    a spread that fits as zero gets a profile-likelihood upper bound instead.
    Raises :class:`InputError` with one line saying what to measure when the shots
    cannot determine a parameter.
    """
    check_enough(shots)
    if not measurement_sd_mm > 0:
        raise InputError(f"the marking error must be above 0 mm, got {measurement_sd_mm}")
    model = _Model(shots, base, measurement_sd_mm)
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # the optimiser's NaN steps
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = _fit(model, shots, base, measurement_sd_mm)
        except _OutOfEvaluations:
            raise InputError(
                f"{shots.source}: the fit did not settle within "
                f"{MAX_EVALUATIONS:,} evaluations: the shots cannot determine the "
                f"launcher with a marking error of {measurement_sd_mm:g} mm, or "
                "disagree with one another (check the pitches, yaws and landings "
                "as written); measure 5 pitches x 8 shots, low shots and high "
                "arcs, marked to a few mm"
            ) from None
    check_determined(result)
    return result


class _OutOfEvaluations(Exception):
    """The fit used up :data:`MAX_EVALUATIONS`."""


def _fit(
    model: _Model, shots: MeasuredShots, base: Design, measurement_sd_mm: float
) -> CalibrationResult:
    """The fit itself, its likelihood evaluations counted against the cap."""
    evaluations = 0

    def negative_log_likelihood(q) -> float:
        """The model's, counted, and large where it cannot be evaluated."""
        nonlocal evaluations
        evaluations += 1
        if evaluations > MAX_EVALUATIONS:
            raise _OutOfEvaluations
        try:
            value = model.negative_log_likelihood(q)
        except (OverflowError, ValueError):  # exp of a runaway log spread
            return 1e12
        return value if math.isfinite(value) else 1e12

    start = model.start()
    q, nll_min = minimise(negative_log_likelihood, start)
    for _ in range(_DRAG_ROUNDS if drag_constant_per_mm(base) else 0):
        model.correct_for_drag(q)
        before = q[0]
        q, nll_min = minimise(negative_log_likelihood, q)
        if abs(q[0] - before) < 1e-5:  # the speed moved by under 0.01 mm/s
            break
    # A spread the landings do not show runs off toward log 0 = -inf: pin it at zero.
    at_zero = [i for i in _SPREADS if q[i] < start[i] + _ZERO_SPREAD_LOG]
    for i in at_zero:
        q[i] = -math.inf
    free = [i for i in range(len(q)) if i not in at_zero]
    covariance_q = np.zeros((len(q), len(q)))
    try:
        covariance_q[np.ix_(free, free)] = covariance(negative_log_likelihood, q, free)
    except Undetermined as flat:
        refuse(PARAMETERS[flat.index])
    values = model.natural(q)
    # From (v0/1000, log sd ..., offsets) to the natural units: the delta method.
    scale = np.array([1e3, values[1], values[2], values[3], 1.0, 1.0])
    covariance_natural = covariance_q * np.outer(scale, scale)
    estimates = {}
    for i, name in enumerate(PARAMETERS):
        if i in at_zero:
            held = tuple(j for j in at_zero if j != i)  # the other spreads at zero
            log_upper = profile_upper_bound(
                negative_log_likelihood, q, nll_min, i, start[i], held=held
            )
            estimates[name] = Estimate(0.0, None, math.exp(log_upper))
        else:
            estimates[name] = Estimate(float(values[i]), float(math.sqrt(covariance_natural[i, i])))
    mean, cov = model.landing(q)
    d2, _ = model.distances2(q)
    design, notes = fitted_design(base, estimates, shots)
    return CalibrationResult(
        base=base,
        design=design,
        shots=shots,
        estimates=estimates,
        covariance=covariance_natural,
        log_likelihood=-nll_min,
        measurement_sd_mm=measurement_sd_mm,
        predicted_mm=mean,
        predicted_cov_mm2=cov,
        outlier_rows=tuple(int(i) + 2 for i in np.flatnonzero(d2 > _OUTLIER_D2)),
        notes=notes + _spread_notes(estimates),
    )


def _spread_notes(estimates: dict[str, Estimate]) -> tuple[str, ...]:
    """What to measure better, for each spread the landings do not show or show poorly."""
    notes: tuple[str, ...] = ()
    for i in _SPREADS:
        name = PARAMETERS[i]
        e = estimates[name]
        if e.se is None:
            notes += (
                f"the {LABELS[name]} fits as 0 (below {e.upper_95:.3g} at 95 %): the "
                f"landings do not show it; to measure it, {ADVICE[name]}",
            )
        elif e.se > e.value / 2:
            notes += (
                f"the {LABELS[name]} is poorly determined (± {e.se:.2g}); to measure it "
                f"better, {ADVICE[name]}",
            )
    return notes
