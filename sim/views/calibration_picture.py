"""The picture of a calibration (sim/studies/calibrating/calibration.py): measured against
predicted landings over the board, and the misses along and across the flight.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Ellipse

from models.board import load_board
from sim.studies.calibrating.result import CalibrationResult
from sim.views.pictures import draw_board, save_figure

#: Radius of the drawn ellipses, in standard deviations (95 % of a 2-D normal).
_ELLIPSE_SD = float(np.sqrt(5.991))


#: Landings drawn per shot in the predicted cloud.
_CLOUD_PER_SHOT = 40


def residuals_figure(result: CalibrationResult, board: str = "stock", cloud: bool = False):
    """Three panels: the landings over the board (measured dots, predicted centres
    with their 95 % ellipses), and the misses along and across the flight by pitch,
    with the model's ±2 sd. With ``cloud``, the calibrated design's predicted
    landings (drawn from each shot's fitted landing distribution, a fixed seed) lie
    in grey under the measured first touches (``piggy calibrate --video``)."""
    shots = result.shots
    measured = np.stack([shots.x_mm, shots.y_mm], -1)
    predicted, cov = result.predicted_mm, result.predicted_cov_mm2
    pitches = sorted(set(shots.pitch_deg.tolist()))
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(pitches)))
    colour_of = {p: colours[i] for i, p in enumerate(pitches)}
    fig, (top, along, across) = plt.subplots(
        1, 3, figsize=(15, 5.6), gridspec_kw={"width_ratios": [1.1, 1, 1]}
    )
    draw_board(top, load_board(board), labels=False)
    if cloud:
        rng = np.random.default_rng(0)
        points = np.concatenate(
            [
                rng.multivariate_normal(predicted[i], cov[i], _CLOUD_PER_SHOT)
                for i in range(len(shots))
            ]
        )
        top.scatter(
            *points.T, s=5, color="0.25", alpha=0.45, lw=0, zorder=6, label="predicted cloud"
        )
    for i in range(len(shots)):  # one ellipse per setting is enough; repeats overdraw
        values, vectors = np.linalg.eigh(cov[i])
        angle = np.degrees(np.arctan2(vectors[1, 1], vectors[0, 1]))
        top.add_patch(
            Ellipse(
                predicted[i],
                2 * _ELLIPSE_SD * np.sqrt(values[1]),
                2 * _ELLIPSE_SD * np.sqrt(values[0]),
                angle=angle,
                fill=False,
                edgecolor=colour_of[shots.pitch_deg[i]],
                lw=0.8,
                zorder=7,
            )
        )
    for p in pitches:
        rows = shots.pitch_deg == p
        top.scatter(*measured[rows].T, s=9, color=colour_of[p], zorder=8, label=f"pitch {p:g}")
        top.scatter(*predicted[rows].T, marker="+", s=70, color="black", lw=1.0, zorder=9)
    top.legend(fontsize=7, loc="lower left")
    top.set_title("landings: measured (dots), predicted (+, 95 % ellipse)", fontsize=9)
    # Misses along the flight (away from the tractor) and across it (to the left).
    distance = np.linalg.norm(predicted, axis=1, keepdims=True)
    outward = predicted / distance
    leftward = np.stack([-outward[:, 1], outward[:, 0]], -1)
    miss = measured - predicted
    for ax, direction, label in (
        (along, outward, "along the flight"),
        (across, leftward, "across the flight (to the left)"),
    ):
        value = np.sum(miss * direction, axis=1)
        sd = np.sqrt(np.einsum("ni,nij,nj->n", direction, cov, direction))
        jitter = (np.arange(len(shots)) % 8 - 3.5) * 0.25  # the 8 shots side by side
        ax.errorbar(
            shots.pitch_deg + jitter,
            np.zeros(len(shots)),
            yerr=2 * sd,
            fmt="none",
            ecolor="#bbbbbb",
            elinewidth=3,
            zorder=1,
            label="model ±2 sd",
        )
        ax.scatter(
            shots.pitch_deg + jitter,
            value,
            s=12,
            c=[colour_of[p] for p in shots.pitch_deg],
            zorder=3,
        )
        far = np.array([r - 2 for r in result.outlier_rows], int)
        if len(far):
            ax.scatter(
                shots.pitch_deg[far] + jitter[far],
                value[far],
                s=90,
                facecolors="none",
                edgecolors="red",
                zorder=4,
                label="far off the fit",
            )
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel("pitch as set (deg)")
        ax.set_ylabel(f"measured - predicted, {label} (mm)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(
        f"Calibration of '{result.base.name}' from {len(shots)} shots ({shots.source})", fontsize=12
    )
    fig.tight_layout()
    return fig


def save_residuals_plot(
    result: CalibrationResult, path, board: str = "stock", cloud: bool = False
) -> Path:
    """The residuals picture as a PNG, written atomically."""
    return save_figure(residuals_figure(result, board, cloud), path)
