"""Would a control variate cut the shots further? (docs/hitmap.md, "What else was tried")

    python scripts/control_variate_study.py coverage.json

Reads the shots of ``scripts/rqmc_coverage.py --out coverage.json`` (no new shot is
fired). Per space, a cheap surrogate of the outcome — a logistic regression on the
shot's three standard deviates (yaw, pitch, speed), their squares and products — is
fitted on the plain Monte Carlo truth's shots; its mean over the error distribution
is known (2^18 Sobol points, no physics). On the RQMC repetitions' shots (other
shots than the fit's, so no bias) each scramble's mean becomes
mean(hit) - beta (mean(surrogate) - its known mean), beta fitted on the truth's
shots too. Printed per space: the variance of the scramble means without and with
the control variate, pooled over the repetitions (their ratio is the shots saved at
equal precision, roughly), and the same for plain Monte Carlo (the truth's shots,
fitted on one half and judged on the other).
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.stats import qmc

from models.aimer import load_aimer
from models.design import load_design
from sim.studies.shots import rqmc


def features(z: np.ndarray) -> np.ndarray:
    """1, the deviates, their squares and their products: (n, 10)."""
    y, p, s = z.T
    return np.column_stack([np.ones(len(z)), y, p, s, y * y, p * p, s * s, y * p, y * s, p * s])


def fit_logistic(x: np.ndarray, hits: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Logistic regression by Newton's method (a little ridge keeps separable data finite)."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (hits - p) - ridge * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w += step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def surrogate(w: np.ndarray, z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(features(z) @ w, -30, 30)))


def mc_deviates(seed: int) -> np.ndarray:
    """The combined deviates of a plain Monte Carlo shot (sim/physics/noise.py)."""
    launcher, aimer = load_design("stock").launcher, load_aimer("child")
    rng = np.random.default_rng(seed)
    d = rng.standard_normal(3)
    e = rng.standard_normal(2)
    yaw = (d[0] * launcher.yaw_sd_deg + e[0] * aimer.yaw_sd_deg) / math.hypot(
        launcher.yaw_sd_deg, aimer.yaw_sd_deg
    )
    pitch = (d[1] * launcher.pitch_sd_deg + e[1] * aimer.pitch_sd_deg) / math.hypot(
        launcher.pitch_sd_deg, aimer.pitch_sd_deg
    )
    return np.array([yaw, pitch, d[2]])


def main() -> int:
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    runs = data["runs"]
    sobol = stats.norm.ppf(np.clip(qmc.Sobol(3, seed=5).random_base2(18), 1e-12, 1 - 1e-12))
    print(f"{'space':6s} {'P':>5s} {'RQMC VR of CV':>14s} {'MC VR of CV':>12s}")
    for space in [s["space"] for s in data["spaces"]]:
        truth = next(r for r in runs if r["space"] == space and r["sampler"] == "mc")
        z = np.array([mc_deviates(seed) for seed, _, _ in truth["where"]])
        hits = np.array([c == "1" for c in truth["outcomes"]], float)
        w = fit_logistic(features(z), hits)
        g = surrogate(w, z)
        beta = np.cov(hits, g)[0, 1] / np.var(g, ddof=1)
        mean_g = float(surrogate(w, sobol).mean())
        half = len(hits) // 2  # plain Monte Carlo: fit on one half, judge on the other
        w_half = fit_logistic(features(z[:half]), hits[:half])
        g_rest = surrogate(w_half, z[half:])
        b_half = np.cov(hits[:half], surrogate(w_half, z[:half]))[0, 1] / np.var(
            surrogate(w_half, z[:half]), ddof=1
        )
        mc_vr = np.var(hits[half:]) / np.var(hits[half:] - b_half * g_rest)
        plain, adjusted = [], []
        for run in (r for r in runs if r["space"] == space and r["sampler"] == "rqmc"):
            by: dict[tuple[int, int], list[tuple[int, bool]]] = {}
            for (seed, scramble, point), c in zip(run["where"], run["outcomes"], strict=True):
                by.setdefault((seed, scramble), []).append((point, c == "1"))
            for (seed, _), shots in by.items():
                shots.sort()
                points = rqmc.to_deviates(rqmc.scramble_points(seed, 3, len(shots)))
                f = np.array([h for _, h in shots], float)
                plain.append((len(shots), run["seed"], f.mean()))
                adjusted.append(f.mean() - beta * (surrogate(w, points).mean() - mean_g))
        plain_means = np.array([m for _, _, m in plain])
        keys = [(n, s) for n, s, _ in plain]
        groups = {k: [i for i, key in enumerate(keys) if key == k] for k in set(keys)}
        var_plain = np.mean([np.var(plain_means[i], ddof=1) for i in groups.values()])
        var_cv = np.mean([np.var(np.array(adjusted)[i], ddof=1) for i in groups.values()])
        print(f"{space:6s} {hits.mean():5.2f} {var_plain / var_cv:14.2f} {mc_vr:12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
