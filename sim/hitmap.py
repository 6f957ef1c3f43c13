"""Hit probabilities by space: stand a piggy on each space, aim at it with the aim
solver, fire shots with the design's noise, count what happens.

Every shot's randomness comes from one root seed split per (space, shot) with
numpy's SeedSequence, keyed by the space itself: a space's result depends only on
the root seed, not on which other spaces are measured or in what order.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import colormaps
from matplotlib.patches import Rectangle

from models.board import Board, space_name
from models.design import Design
from models.errors import InputError
from models.layout import layout_from_dict
from referee.match import wilson_interval
from sim import shoot
from sim.aim import OutOfReach
from sim.pictures import draw_board, save_figure
from sim.world import World

#: The piggy that stands on each space in turn.
TARGET = "gold-1"


@dataclass(frozen=True)
class SpaceHits:
    """What ``shots`` shots at a piggy on one space did."""

    space: str
    reachable: bool
    shots: int
    target_knocked: int
    anything_knocked: int
    no_contact: int

    @property
    def probability(self) -> float:
        return self.target_knocked / self.shots if self.shots else float("nan")

    def to_row(self) -> dict:
        lo, hi = wilson_interval(self.target_knocked, self.shots) if self.shots else (None, None)
        return {"space": self.space, "reachable": self.reachable, "shots": self.shots,
                "p_target_knocked": None if not self.shots else round(self.probability, 4),
                "ci95_low": None if lo is None else round(lo, 4),
                "ci95_high": None if hi is None else round(hi, 4),
                "p_anything_knocked": (None if not self.shots
                                       else round(self.anything_knocked / self.shots, 4)),
                "p_no_contact": None if not self.shots else round(self.no_contact / self.shots, 4)}


def shot_seeds(root_seed: int, space: tuple[int, int], shots: int) -> list[int]:
    """The seeds of one space's shots, split from the root seed."""
    children = np.random.SeedSequence([root_seed, *space]).spawn(shots)
    return [int(c.generate_state(1)[0]) for c in children]


def hit_map(board: Board, design: Design, spaces: list, shots: int, seed: int = 0,
            progress=None) -> list[SpaceHits]:
    """Fire ``shots`` shots at a lone piggy on each of ``spaces`` ((row, col) pairs)."""
    if shots < 1:
        raise InputError(f"shots must be at least 1, got {shots}")
    results = []
    with World(board, design) as world:
        for index, space in enumerate(spaces):
            name = space_name(space)
            world.set_layout(layout_from_dict({"stacks": {name: [TARGET]}}, board=board))
            try:
                aim = shoot.solve_aim(world, TARGET)
            except OutOfReach:
                results.append(SpaceHits(name, False, 0, 0, 0, 0))
                continue
            target = anything = silent = 0
            for s in shot_seeds(seed, space, shots):
                result = world.shoot(aim.yaw_deg, aim.pitch_deg, seed=s)
                target += TARGET in result.knocked
                anything += bool(result.knocked)
                silent += TARGET not in result.contacts
            results.append(SpaceHits(name, True, shots, target, anything, silent))
            if progress:
                progress(index + 1)
    return results


def write_csv(results: list[SpaceHits], path) -> Path:
    """One row per space, written atomically."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    rows = [r.to_row() for r in results]
    with open(tmp, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)
    return path


def heatmap_figure(board: Board, results: list[SpaceHits], title: str):
    """The board with each measured space coloured by its knock-out probability;
    unreachable spaces hatched."""
    fig, ax = plt.subplots(figsize=(6.5, 8.5))
    draw_board(ax, board, labels=False)
    cmap = colormaps["RdYlGn"]
    s = board.space_mm
    for r in results:
        space = board.parse_space(r.space)
        x, y = board.space_center_mm(space) - s / 2
        if not r.reachable:
            ax.add_patch(Rectangle((x, y), s, s, facecolor="none", edgecolor="#555555",
                                   hatch="///", zorder=5))
            continue
        ax.add_patch(Rectangle((x, y), s, s, facecolor=cmap(r.probability), alpha=0.85,
                               zorder=5))
        ax.text(x + s / 2, y + s / 2, f"{100 * r.probability:.0f}%", ha="center",
                va="center", fontsize=8, zorder=6)
    mappable = plt.cm.ScalarMappable(cmap=cmap)
    mappable.set_clim(0, 1)
    fig.colorbar(mappable, ax=ax, shrink=0.6, label="P(target knocked out)")
    ax.set_title(title, fontsize=10)
    return fig


def save_heatmap(board: Board, results: list[SpaceHits], path, title: str) -> Path:
    return save_figure(heatmap_figure(board, results, title), path)
