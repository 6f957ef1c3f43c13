"""The hit map drawn over the board: each measured space coloured by how likely its
piggy is knocked out, with the 95 % interval under the percentage, the space's
name, and the fences and checkpoints drawn over the colours.

Spaces the colour alone does not explain are marked, with a legend: out of reach
(no aim reaches them), held by a fence (knocked out measurably less often than
the open spaces, with a fence on the far side of the space, seen from the
tractor, that stops the piggy inside its space: on the stock board r7c3, r2c3,
r9c2, r9c4), and the dead zones of the hit map's rows (sim/studies/shots/dead_zones.py:
blocked, missed, never out; each decided by its interval, the same rule as in
``design compare`` and the JSON).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib import colormaps
from matplotlib.artist import Artist
from matplotlib.legend_handler import HandlerBase
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text

from models.board import Board, Space
from sim.views.pictures import draw_board, save_figure

#: The colours' scale, red (never knocked out) to green (always).
CMAP = "RdYlGn"
#: "Held by a fence" is shown when the 95 % interval of P(knocked out) lies below
#: this (open spaces are at 95-100 % with the stock launcher and a perfect aim).
_HELD_BELOW = 0.9
_MARKS = {
    "fence": (
        "F",
        "held by a fence: the fence on its far side (seen from the tractor) "
        "stops the piggy inside its space in some or all shots",
    ),
    "blocked": (
        "B",
        "blocked: the bale struck a fence, the tractor or another piggy first, "
        "in most shots (95 %)",
    ),
    "missed": ("M", "missed: the bale struck nothing, in most shots (95 %)"),
    "never_out": ("0", "never out: no shot knocked it out, and enough shots to say so"),
}


class _Letter(HandlerBase):
    """A legend entry drawn as its mark on the map: a letter in a circle."""

    def __init__(self, letter: str):
        super().__init__()
        self.letter = letter

    def create_artists(
        self, legend, orig_handle, xdescent, ydescent, width, height, fontsize, trans
    ):
        return [
            Text(
                width / 2 - xdescent,
                height / 2 - ydescent,
                self.letter,
                ha="center",
                va="center",
                fontsize=fontsize,
                weight="bold",
                transform=trans,
                bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": "#333333", "lw": 0.6},
            )
        ]


def fence_behind(board: Board, space: Space) -> bool:
    """Whether a fence stands on the side of ``space`` away from the tractor: the side
    a shot from the tractor pushes its piggy toward (none for a space exactly
    diagonal from the tractor, which a shot pushes toward a corner)."""
    x, y = board.space_center_mm(space)
    r, c = space
    if abs(abs(x) - abs(y)) < 1e-6:
        return False
    beyond = (r, c + (1 if x > 0 else -1)) if abs(x) > abs(y) else (r + (1 if y > 0 else -1), c)
    return board.fence_between(space, beyond)


def marks(board: Board, row: dict) -> list[str]:
    """The marks (keys of :data:`_MARKS`) that explain a measured space's row."""
    if not row.get("reachable") or row.get("p_target") is None:
        return []
    out = []
    high = row.get("p_target_ci_high")
    if (
        high is not None
        and high < _HELD_BELOW
        and fence_behind(board, board.parse_space(row["space"]))
    ):
        out.append("fence")
    if row.get("dead_zone") in _MARKS:
        out.append(row["dead_zone"])
    return out


def draw_heatmap(ax, board: Board, rows: list[dict], numbers: bool = True) -> None:
    """The board with each measured space coloured by its knock-out probability,
    unreachable spaces hatched. ``numbers``: the percentages, their intervals, the
    board's labels and the marks too (for a map large enough to read them)."""
    draw_board(ax, board, labels=numbers)
    cmap = colormaps[CMAP]
    s = board.space_mm
    for r in rows:
        space = board.parse_space(r["space"])
        x, y = board.space_center_mm(space) - s / 2
        # zorder 2: over the spaces, under the checkpoints (3) and fences (4)
        if not r["reachable"]:
            ax.add_patch(
                Rectangle(
                    (x, y),
                    s,
                    s,
                    facecolor="#d0d0d0",
                    edgecolor="#555555",
                    hatch="///",
                    lw=0.6,
                    zorder=2,
                )
            )
        else:
            ax.add_patch(
                Rectangle(
                    (x, y),
                    s,
                    s,
                    facecolor=cmap(r["p_target"]),
                    alpha=0.85,
                    edgecolor="#8a7650",
                    lw=0.8,
                    zorder=2,
                )
            )
        if not numbers:
            continue
        if r["reachable"]:
            ax.text(
                x + s / 2,
                y + s / 2 + 6,
                f"{100 * r['p_target']:.0f}%",
                ha="center",
                va="center",
                fontsize=9,
                weight="bold",
                zorder=6,
            )
            low, high = r.get("p_target_ci_low"), r.get("p_target_ci_high")
            if low is not None and high is not None:
                ax.text(
                    x + s / 2,
                    y + s / 2 - 7,
                    f"{100 * low:.0f}-{100 * high:.0f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="#333333",
                    zorder=6,
                )
        else:
            ax.text(
                x + s / 2,
                y + s / 2,
                "no aim",
                ha="center",
                va="center",
                fontsize=7,
                zorder=6,
                bbox={"fc": "white", "ec": "none", "pad": 1},
            )
        for k, mark in enumerate(marks(board, r)):
            ax.text(
                x + s - 6 - 11 * k,
                y + s - 6,
                _MARKS[mark][0],
                ha="center",
                va="center",
                fontsize=8,
                weight="bold",
                zorder=7,
                bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": "#333333", "lw": 0.6},
            )


def legend_handles(board: Board, rows: list[dict], interval: str) -> tuple[list, dict]:
    """Legend entries for what a map shows (out of reach and the marks only when some
    space is so; the interval under each percentage by its name, ``interval``: the
    map's own, sim.studies.shots.rqmc.interval_of its provenance), and the handler map that
    draws the marks."""
    handles: list[Artist] = (
        [
            Patch(
                facecolor="#d0d0d0",
                edgecolor="#555555",
                hatch="///",
                label="out of reach: no aim reaches it",
            )
        ]
        if any(not r["reachable"] for r in rows)
        else []
    )
    handles += [
        Line2D([], [], color="#7a4a1e", lw=3.5, label="fence"),
        Line2D([], [], color="#b03030", lw=1.2, ls="--", label="checkpoint"),
        Line2D([], [], ls="", label=f"under the %: its 95 % interval ({interval})"),
    ]
    shown = {m for r in rows for m in marks(board, r)}
    handlers = {}
    for key, (letter, text) in _MARKS.items():
        if key in shown:
            handles.append(Line2D([], [], ls="", label=text))
            handlers[handles[-1]] = _Letter(letter)
    return handles, handlers


def heatmap_figure(board: Board, rows: list[dict], title: str, *, interval: str):
    """One hit map over the board, with a colour bar and a legend (naming the map's
    ``interval``)."""
    fig, ax = plt.subplots(figsize=(7.2, 9.4))
    fig.subplots_adjust(left=0.1, right=0.9, top=0.96, bottom=0.16)
    draw_heatmap(ax, board, rows)
    mappable = plt.cm.ScalarMappable(cmap=colormaps[CMAP])
    mappable.set_clim(0, 1)
    fig.colorbar(mappable, ax=ax, shrink=0.6, label="P(target knocked out)")
    ax.set_title(title, fontsize=10)
    handles, handlers = legend_handles(board, rows, interval)
    fig.legend(
        handles=handles, handler_map=handlers, loc="lower center", fontsize=8, frameon=False, ncol=1
    )
    return fig


def save_heatmap(board: Board, rows: list[dict], path, title: str, *, interval: str):
    return save_figure(heatmap_figure(board, rows, title, interval=interval), path)
