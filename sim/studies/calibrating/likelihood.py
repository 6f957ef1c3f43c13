"""Maximum-likelihood helpers for small smooth fits: minimising -log L, the
covariance from the observed information, and one-sided profile bounds.

Parameters are vectors of order-one entries (scale them before calling).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

#: Step of the central differences of the Hessian, in the parameters' (order-one) units.
_HESSIAN_STEP = 1e-3
#: Rise of -log L at a one-sided 95 % profile bound (χ²₁ at 0.90, halved).
PROFILE_RISE_95 = 2.7055 / 2


class Undetermined(ValueError):
    """The observed information is singular: ``index`` is the parameter most
    involved in the flat direction of -log L."""

    def __init__(self, index: int):
        super().__init__(f"parameter {index} is not determined")
        self.index = index


def minimise(nll, start: np.ndarray) -> tuple[np.ndarray, float]:
    """The minimum of ``nll`` near ``start``: Nelder-Mead, robust on a small smooth
    problem and needing no gradients. Returns (parameters, -log L there)."""
    fit = minimize(
        nll,
        start,
        method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-8, "maxiter": 20000, "maxfev": 20000, "adaptive": True},
    )
    return np.array(fit.x), float(fit.fun)


def covariance(nll, q: np.ndarray, free: list[int]) -> np.ndarray:
    """Inverse of the observed information of the ``free`` parameters (the Hessian
    of ``nll`` by central differences at the optimum ``q``), (len(free),)*2.

    Raises :class:`Undetermined` when the Hessian is not positive definite.
    """
    k = len(free)
    h = _HESSIAN_STEP
    hessian = np.empty((k, k))
    f0 = nll(q)

    def at(*moves) -> float:
        x = q.copy()
        for index, sign in moves:
            x[free[index]] += sign * h
        return nll(x)

    for i in range(k):
        for j in range(i, k):
            if i == j:
                value = (at((i, 1)) - 2 * f0 + at((i, -1))) / h**2
            else:
                value = (
                    at((i, 1), (j, 1))
                    - at((i, 1), (j, -1))
                    - at((i, -1), (j, 1))
                    + at((i, -1), (j, -1))
                ) / (4 * h * h)
            hessian[i, j] = hessian[j, i] = value
    eigenvalues, vectors = np.linalg.eigh(hessian)
    if eigenvalues[0] <= 1e-9 * max(eigenvalues[-1], 1.0):
        raise Undetermined(free[int(np.argmax(np.abs(vectors[:, 0])))])
    return np.linalg.inv(hessian)


def profile_upper_bound(
    nll,
    q: np.ndarray,
    nll_min: float,
    index: int,
    guess: float,
    rise: float = PROFILE_RISE_95,
    held: tuple[int, ...] = (),
) -> float:
    """Where the profile of ``nll`` in parameter ``index`` (the others minimised
    again at each value, but those ``held`` at their values in ``q``) has risen by
    ``rise`` above ``nll_min``, searching upward from ``guess - 8``; for a parameter
    whose estimate sits at the bottom of its range (a log sd at -inf). Returns the
    parameter's value there (bisection to about 0.2 % of a unit). Hold the others
    at the bottom of their range: a simplex started at -inf never settles."""
    others = [i for i in range(len(q)) if i != index and i not in held]
    rest = q[others].copy()

    def above(value: float) -> bool:
        nonlocal rest

        def with_fixed(x):
            full = q.copy()
            full[others], full[index] = x, value
            return nll(full)

        rest, least = minimise(with_fixed, rest)
        return least - nll_min > rise

    low, high = guess - 8.0, guess
    while not above(high) and high < guess + 6:
        low, high = high, high + 1.0
    for _ in range(12):
        middle = (low + high) / 2
        low, high = (low, middle) if above(middle) else (middle, high)
    return high if math.isfinite(high) else math.nan
