"""The local emulator of the contact fit (sim/studies/calibrating/contact_fit.py):
each group's terms of what the shots show (sim/studies/calibrating/contact_stats.py)
as a quadratic in the two coefficients over a small grid, and its 95 % intervals.

The emulator is smooth where the shots, chaotic past the first touch, are not: its
synthetic log likelihood is maximised and profiled by scipy.optimize.

Two intervals, the wider kept. The profile's (where the profile log likelihood is
within χ²₁(0.95)/2 = 1.92 of its maximum) trusts the normal approximation and the
quadratic. The replicates' checks neither: each of the grid's sandbox firings
(``repeats`` data sets as large as the measured one at every candidate) is fitted
as if it were the measurement, by an emulator made from the other firings, and the
spread of those fits about the candidates they were fired with is the estimate's
own spread (a parametric bootstrap that costs no more shots; its interval is
±1.96 root-mean-square errors about the estimate, bias included).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import brentq, minimize, minimize_scalar

from sim.studies.calibrating import contact_stats

#: The local grid's candidates per axis.
LOCAL_POINTS = 5
#: Drop of the profile log likelihood at a 95 % bound: χ²₁(0.95) / 2.
DROP_95 = 3.8415 / 2
#: The normal quantile of a two-sided 95 % interval.
Z_95 = 1.96

#: Candidates' sandbox shots: each group's z at (restitution, friction, repeats).
Shown = Callable[[float, float, int], list[np.ndarray]]
#: Per group, the quadratic's coefficients (6, k) of its k terms
#: (sim/studies/calibrating/contact_stats.py, summary), the inverse covariance of
#: those other than the share seen to hop, and one grid point's terms (for what the
#: share's variance needs).
Model = list[tuple[np.ndarray, np.ndarray, contact_stats.GroupTerms]]


def _quadratic(u: np.ndarray) -> np.ndarray:
    """The quadratic's terms at points u (k, 2): 1, u1, u2, u1², u1·u2, u2²."""
    u1, u2 = u[:, 0], u[:, 1]
    return np.stack([np.ones_like(u1), u1, u2, u1 * u1, u1 * u2, u2 * u2], -1)


class Emulator:
    """Each group's mean z as a quadratic over a local grid on the window [lo, hi]
    (coordinates u in [-1, 1]²), its covariance pooled over the grid."""

    def __init__(
        self,
        shown: Shown,
        observed: Sequence[np.ndarray],
        lo: np.ndarray,
        hi: np.ndarray,
        repeats: int,
    ):
        self.lo, self.hi, self.repeats = lo, hi, repeats
        self.measured = list(observed)  # each group's measured z (its shots, 4)
        self.observed = [contact_stats.summary(z, len(contact_stats.hops(z))) for z in observed]
        axis = np.linspace(-1.0, 1.0, LOCAL_POINTS)
        self.grid = np.array([(a, b) for a in axis for b in axis])
        # each point's, each group's sandbox z as (repeats, the group's shots, 4)
        self.simulated = []
        for point in self.grid:
            restitution, friction = self.at(point)
            groups = shown(float(restitution), float(friction), repeats)
            self.simulated.append(
                [z.reshape(repeats, len(m), 4) for z, m in zip(groups, self.measured, strict=True)]
            )
        self.model = self._model(list(range(repeats)))

    def _model(self, kept: list[int]) -> Model:
        """The emulator made from the firings ``kept``."""
        x = _quadratic(self.grid)
        model = []
        for g, measured in enumerate(self.measured):
            terms = [
                contact_stats.group_terms(measured, point[g][kept].reshape(-1, 4), len(kept))
                for point in self.simulated
            ]
            means = np.array([t.mean for t in terms])
            coefficients = np.linalg.lstsq(x, means, rcond=None)[0]
            inverse = np.linalg.inv(np.mean([t.covariance for t in terms], axis=0))
            model.append((coefficients, inverse, terms[0]))
        return model

    def at(self, u) -> np.ndarray:
        """The coefficients at grid coordinates u."""
        return self.lo + (self.hi - self.lo) * (np.asarray(u, float) + 1.0) / 2.0

    def log_likelihood(self, u, observed=None, model: Model | None = None) -> float:
        """The emulated synthetic log likelihood at u of the measured group means (or
        of ``observed``), constants left out."""
        x = _quadratic(np.asarray(u, float)[None, :])[0]
        groups = model or self.model
        means = [x @ coefficients for coefficients, _, _ in groups]
        inverses = [inverse for _, inverse, _ in groups]
        terms = [t for _, _, t in groups]
        return -contact_stats.misfit(observed or self.observed, means, inverses, terms)[0]

    def maximum(self, observed=None, model: Model | None = None) -> tuple[np.ndarray, float]:
        """The emulated maximum within the grid, from the best of the grid's points."""
        values = [self.log_likelihood(u, observed, model) for u in self.grid]
        start = self.grid[int(np.argmax(values))]
        best = minimize(
            lambda u: -self.log_likelihood(u, observed, model),
            start,
            method="L-BFGS-B",
            bounds=[(-1, 1)] * 2,
        )
        return np.array(best.x), -float(best.fun)

    def profile(self, k: int, t: float) -> float:
        """The profile log likelihood of coordinate ``k`` at ``t``: the other one
        maximised within the grid."""

        def negative(s: float) -> float:
            return -self.log_likelihood(np.array([t, s] if k == 0 else [s, t]))

        return -float(minimize_scalar(negative, bounds=(-1.0, 1.0), method="bounded").fun)

    def bound(self, k: int, u_hat: float, peak: float, side: int) -> float | None:
        """The coefficient ``k`` where its profile has dropped by :data:`DROP_95` on
        ``side`` (-1, +1) of its maximum at ``u_hat``; None where it has not by the
        grid's edge."""
        level = peak - DROP_95
        if self.profile(k, float(side)) > level:
            return None
        t = brentq(lambda t: self.profile(k, t) - level, u_hat, float(side), xtol=1e-4)
        u = np.zeros(2)
        u[k] = t
        return float(self.at(u)[k])

    def replicate_spread(self) -> np.ndarray:
        """The root-mean-square error (2,) of the estimate, from the firings fitted as
        measurements (each by the emulator of the other firings) at the grid's inner
        candidates (at the edge a fit cannot err outward)."""
        inner = [j for j, u in enumerate(self.grid) if np.all(np.abs(u) < 1.0)]
        errors = []
        for left_out in range(self.repeats):
            model = self._model([r for r in range(self.repeats) if r != left_out])
            for j in inner:
                observed = [  # as many hops as the measurement saw
                    contact_stats.summary(group[left_out], len(contact_stats.hops(m)))
                    for group, m in zip(self.simulated[j], self.measured, strict=True)
                ]
                u, _ = self.maximum(observed, model)
                errors.append(self.at(u) - self.at(self.grid[j]))
        return np.sqrt(np.mean(np.square(errors), axis=0))
