"""How P(target) depends on the aimer: the same spaces measured at a range of aim
spreads (``piggy hitmap --spaces ... --aim-sd-scan 0:6:7``).

The aimer files are assumptions (docs/hitmap.md, "Who aims"); a conclusion that
holds only for some spreads shows here as curves that cross or bend. At each spread
the aimer's yaw and pitch spreads are both set to it, its bias kept; every point
uses the same shot seeds (with the RQMC sampler: the same points), so the curves
are smooth (common random numbers) rather than each point drawing fresh noise.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from models.aimer import MAX_SD_DEG, load_aimer
from models.design import load_design
from models.errors import InputError
from sim.studies import hitmap, rqmc
from sim.studies.records import SpaceShots


def parse_scan(text: str) -> np.ndarray:
    """``START:STOP:COUNT`` in degrees, e.g. ``0:6:7`` -> 0, 1, ..., 6."""
    from sim.studies.design_tools import parse_range

    values = parse_range(text, "--aim-sd-scan", 50, "START:STOP:COUNT in degrees, e.g. 0:6:7")
    if values.min() < 0 or values.max() > MAX_SD_DEG:
        raise InputError(f"--aim-sd-scan: spreads must lie in [0, {MAX_SD_DEG:g}] degrees")
    return values


def aim_sd_scan(
    spec: hitmap.SweepSpec, values: np.ndarray, workers: int = 1, progress=None
) -> list[dict]:
    """One row per (space, spread): P(target) and its 95 % interval (Wilson's, or
    the RQMC sampler's: sim/studies/rqmc.py)."""
    rows: list[dict] = []
    aimer = spec.aimer
    design = load_design(spec.design).name
    for step, sd in enumerate(values):
        point = dataclasses.replace(spec, aimer=aimer.with_spread(sd, sd))
        parts: dict[str, SpaceShots] = {}
        hitmap.run_parts(point, list(spec.spaces), workers, partial(_keep, parts))
        for name in spec.spaces:
            shots = parts[name].shots
            p, low, high = (
                rqmc.proportion(shots, lambda r: r.target_knocked) if shots else (None, None, None)
            )
            rows.append(
                {
                    "design": design,
                    "space": name,
                    "aim_sd_deg": round(float(sd), 4),
                    "reachable": parts[name].reachable,
                    "shots": len(shots),
                    "p_target": round(p, 6) if p is not None else None,
                    "p_target_ci_low": None if low is None else round(low, 6),
                    "p_target_ci_high": None if high is None else round(high, 6),
                }
            )
        if progress:
            progress(step + 1)
    return rows


def _keep(parts: dict[str, SpaceShots], part: SpaceShots) -> None:
    parts[part.space] = part


#: The aimers whose spreads the scan marks (models/aimers/).
MARKED_AIMERS = ("adult", "child")
_STYLES = ("-", "--", ":", "-.")


def scan_figure(rows: list[dict], title: str):
    """P(target) against the aim spread: one colour per space, one line style per
    design, each interval a band; the adult's and the child's spreads marked (a band
    from their yaw spread to their pitch spread)."""
    import matplotlib.pyplot as plt

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
    colours: dict[str, object] = {}
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
