"""The picture of the check (sim/studies/calibrating/toy_check.py): the reliability
diagram (predicted P against how often the film shows a knock-out), and each shot's
count of piggies knocked out on film against the sandbox's prediction."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sim.studies.calibrating.toy_check import ToyCheck
from sim.studies.calibrating.toy_check_report import verdict
from sim.views.pictures import save_figure


def check_figure(check: ToyCheck):
    """Two panels: the reliability diagram, its bins' observed frequencies with
    Wilson's 95 % intervals (marker area by the bin's piggy-shots) on the diagonal
    of a perfect sandbox; and per shot, the count knocked out on film (dots) against
    the sandbox's mean count with ±2 sd of its re-fires (grey)."""
    stats = check.statistics
    fig, (diagram, counts) = plt.subplots(
        1, 2, figsize=(13, 5.6), gridspec_kw={"width_ratios": [1, 1.4]}
    )
    bins = stats.reliability
    x = np.array([b.mean_predicted for b in bins])
    y = np.array([b.observed for b in bins])
    errors = np.array([[b.observed - b.observed_lo, b.observed_hi - b.observed] for b in bins]).T
    errors = np.clip(errors, 0, None)  # Wilson's bound at 0 or 1 may round past the point
    diagram.plot([0, 1], [0, 1], color="0.5", lw=1, ls="--", label="the sandbox is right")
    diagram.errorbar(x, y, yerr=errors, fmt="none", ecolor="tab:blue", elinewidth=1.2, capsize=3)
    sizes = 20 + 200 * np.sqrt(np.array([b.count for b in bins]) / max(b.count for b in bins))
    diagram.scatter(x, y, s=sizes, color="tab:blue", zorder=3, label="film (95 % Wilson)")
    for b in bins:
        diagram.annotate(
            f"{b.count}",
            (b.mean_predicted, b.observed),
            xytext=(6, -10),
            textcoords="offset points",
            fontsize=7,
        )
    diagram.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), aspect="equal")
    diagram.set_xlabel("predicted P(knocked out), bin mean")
    diagram.set_ylabel("knocked out on film, share of the bin's piggy-shots")
    diagram.set_title("reliability (numbers: piggy-shots in the bin)", fontsize=9)
    diagram.grid(alpha=0.3)
    diagram.legend(fontsize=7, loc="upper left")
    shots = np.arange(1, stats.shots + 1)
    predicted = (check.predicted * check.seen).sum(axis=1)
    observed = (check.observed & check.seen).sum(axis=1)
    counts.errorbar(
        shots,
        predicted,
        yerr=2 * check.count_sd,
        fmt="_",
        color="0.45",
        ecolor="0.75",
        elinewidth=4,
        markersize=10,
        label="sandbox: mean, ±2 sd of its re-fires",
    )
    counts.scatter(shots, observed, s=18, color="tab:red", zorder=3, label="film")
    counts.set_xlabel("shot")
    counts.set_ylabel("piggies knocked out")
    counts.set_title(
        f"per shot: {stats.observed_total} on film, {stats.predicted_total:.1f} predicted",
        fontsize=9,
    )
    counts.grid(alpha=0.3)
    counts.legend(fontsize=7, loc="upper right")
    fig.suptitle(
        f"Design '{check.spec.design.name}' against {stats.shots} measured shots "
        f"({check.source}): {verdict(stats)}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def save_check_plot(check: ToyCheck, path) -> Path:
    """The check's picture as a PNG, written atomically."""
    return save_figure(check_figure(check), path)
