"""The pictures of design studies: designs' hit maps side by side with their
figures, a sweep of one design field, and P(target) against the aim spread (the
difference map of two designs fired with the same shots is
sim/views/difference_map.py's). The studies (sim/studies/comparing/design_tools.py,
sim/studies/designs/sweep.py, sim/studies/maps/scan.py) measure; these draw
what they return.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.typing import ColorType

from models.aimer import load_aimer
from models.board import Board
from sim.views.hitmap_picture import draw_heatmap


def comparison_figure(board: Board, results: list[dict], maps: list[list[dict]]):
    """Each design's heatmap side by side, its figures underneath."""
    n = len(results)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 8.2), squeeze=False)
    for ax, result, rows in zip(axes[0], results, maps, strict=True):
        draw_heatmap(ax, board, rows, numbers=n <= 2)
        low, high = result["mean_p_target_ci"]
        ax.set_title(
            f"{result['design']}\nin reach {result['in_reach']}/{result['spaces']}, "
            f"mean P {_num(result['mean_p_target'])} [{_num(low)}, {_num(high)}]\n"
            f"worst {result['worst_space']} {_num(result['worst_p_target'])}, "
            f"collateral {_num(result['collateral_rate'])}",
            fontsize=9,
        )
        ax.axis("off")
    fig.suptitle("Launcher designs compared: P(target knocked out) per space", fontsize=12)
    return fig


def _num(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def sweep_figure(field: str, values, results: list[dict]):
    """Mean P (with its interval) and worst P against the field; the spaces in reach
    and the collateral rate beside it where they change, else said once in the title
    (a panel of a constant line says nothing)."""
    series = [
        ("spaces in reach", [r["in_reach"] for r in results]),
        ("P(collateral knock-out), mean", [r["collateral_rate"] for r in results]),
    ]
    changing = [(label, ys) for label, ys in series if len(set(ys)) > 1]
    constant = [
        f"{label.split(',')[0]}: {_num_or_int(ys[0])} for every value"
        for label, ys in series
        if len(set(ys)) <= 1
    ]
    fig, axes = plt.subplots(
        1, 1 + len(changing), figsize=(4.4 * (1 + len(changing)) + 0.6, 4), squeeze=False
    )
    axes = axes[0]
    mean = [r["mean_p_target"] for r in results]
    axes[0].errorbar(
        values,
        mean,
        yerr=[
            [m - r["mean_p_target_ci"][0] for m, r in zip(mean, results, strict=True)],
            [r["mean_p_target_ci"][1] - m for m, r in zip(mean, results, strict=True)],
        ],
        fmt="o-",
        capsize=3,
        label="mean (95 % interval)",
    )
    axes[0].plot(values, [r["worst_p_target"] for r in results], "s--", label="worst space")
    axes[0].set_ylabel("P(target knocked out)")
    axes[0].legend()
    for ax, (label, ys) in zip(axes[1:], changing, strict=True):
        ax.plot(values, ys, "o-")
        ax.set_ylabel(label)
        if label == "spaces in reach":
            ax.yaxis.get_major_locator().set_params(integer=True)
    for ax in axes:
        ax.set_xlabel(field)
        ax.grid(alpha=0.3)
    fig.suptitle(
        f"Design sweep of {field}" + (f"\n{'; '.join(constant)}" if constant else ""), fontsize=11
    )
    fig.tight_layout()
    return fig


def _num_or_int(value) -> str:
    return str(value) if isinstance(value, int) else _num(value)


#: The aimers whose spreads the scan marks (models/aimers/).
MARKED_AIMERS = ("adult", "child")
_STYLES = ("-", "--", ":", "-.")


def scan_figure(rows: list[dict], title: str):
    """P(target) against the aim spread: one colour per space, one line style per
    design, each interval a band; the adult's and the child's spreads marked (a band
    from their yaw spread to their pitch spread)."""
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for aimer, shade in zip(MARKED_AIMERS, ("#c8e0c8", "#f0d8b8"), strict=True):
        a = load_aimer(aimer)
        low, high = sorted((a.yaw_sd_deg, a.pitch_sd_deg))
        ax.axvspan(low - 0.03, high + 0.03, color=shade, alpha=0.7, zorder=0)
        ax.text(
            (low + high) / 2,
            1.13,
            f"{aimer}\n(yaw {a.yaw_sd_deg:g}°, pitch {a.pitch_sd_deg:g}°)",
            ha="center",
            va="top",
            fontsize=7,
            zorder=1,
        )
    designs = list(dict.fromkeys(r["design"] for r in rows))
    colours: dict[str, ColorType] = {}
    for d, design in enumerate(designs):
        for name in dict.fromkeys(r["space"] for r in rows):
            mine = [
                r
                for r in rows
                if r["space"] == name and r["design"] == design and r["p_target"] is not None
            ]
            if not mine:
                continue
            sd = [r["aim_sd_deg"] for r in mine]
            label = name if len(designs) == 1 else f"{name}, {design}"
            (line,) = ax.plot(
                sd,
                [r["p_target"] for r in mine],
                marker="o",
                ls=_STYLES[d % len(_STYLES)],
                color=colours.get(name),
                label=label,
            )
            colours[name] = line.get_color()
            ax.fill_between(
                sd,
                [r["p_target_ci_low"] for r in mine],
                [r["p_target_ci_high"] for r in mine],
                color=line.get_color(),
                alpha=0.12,
            )
    ax.set_xlabel("aim spread, 1 sd (degrees, yaw and pitch)")
    ax.set_ylabel("P(target knocked out)")
    ax.set_ylim(-0.02, 1.15)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2, loc="lower left")
    ax.set_title(f"{', '.join(designs)}: {title}", fontsize=10)
    fig.tight_layout()
    return fig
