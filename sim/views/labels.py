"""Labels that never overlap: each label is put, in turn, at the first of a ring of
places round its point that is free of the labels already put, of the marks to
keep clear and of the picture's edges; one put away from its point gets a leader
line. Units are whatever the caller's are (pixels, mm); y may point up or down.
:func:`draw_labels` puts them on a matplotlib axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Directions tried round a point, nearest first: right, above-right, above, ...
_DIRECTIONS = [(1, 0), (1, -1), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 1), (-1, 0)]
#: How far from its point a label may go, in steps of the gap.
_RINGS = (1, 3, 6, 10, 15, 22)

#: A box (x0, y0, x1, y1).
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Placed:
    """Where one label went: its point and its box (x0, y0, x1, y1)."""

    text: str
    point: tuple[float, float]
    box: Box

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2

    def needs_leader(self, gap: float) -> bool:
        """Whether the box stands off its point by more than ``gap`` and a line must
        show what it names."""
        x0, y0, x1, y1 = self.box
        px, py = self.point
        dx, dy = max(x0 - px, 0, px - x1), max(y0 - py, 0, py - y1)
        return float(np.hypot(dx, dy)) > 1.5 * gap

    def leader_end(self) -> tuple[float, float]:
        """The point of the box nearest the label's point."""
        x0, y0, x1, y1 = self.box
        px, py = self.point
        return float(np.clip(px, x0, x1)), float(np.clip(py, y0, y1))


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def place(
    labels: list[tuple[str, tuple[float, float], tuple[float, float]]],
    bounds: tuple[float, float, float, float],
    gap: float,
    keep_clear: Sequence[Box] = (),
) -> list[Placed]:
    """Put labels ``(text, point, (width, height))`` inside ``bounds`` (x0, y0, x1, y1)
    without overlapping each other or the ``keep_clear`` boxes. Labels are taken in
    the order given (put the important ones first). A label that finds no free place
    goes where it overlaps least."""
    taken: list[Box] = list(keep_clear)
    placed = []
    bx0, by0, bx1, by1 = bounds
    for text, (px, py), (w, h) in labels:
        # the first place tried always beats an infinite cost, so it replaces this
        best: Box = (px, py, px, py)
        best_cost = math.inf
        for ring in _RINGS:
            d = ring * gap
            for ux, uy in _DIRECTIONS:
                # the box's near edge at distance d from the point in this direction
                x0 = px + d if ux > 0 else px - d - w if ux < 0 else px - w / 2
                y0 = py + d if uy > 0 else py - d - h if uy < 0 else py - h / 2
                box = (x0, y0, x0 + w, y0 + h)
                outside = (
                    max(bx0 - box[0], 0)
                    + max(box[2] - bx1, 0)
                    + max(by0 - box[1], 0)
                    + max(box[3] - by1, 0)
                )
                cost = sum(_overlap(box, t) for t in taken) + 1e3 * outside * (w + h)
                if cost < best_cost:
                    best, best_cost = box, cost
                if cost == 0:
                    break
            if best_cost == 0:
                break
        taken.append(best)
        placed.append(Placed(text, (px, py), best))
    return placed


def overlaps(placed: list[Placed]) -> int:
    """How many pairs of placed labels overlap (for tests and checks)."""
    return sum(_overlap(a.box, b.box) > 0 for i, a in enumerate(placed) for b in placed[i + 1 :])


def _text_boxes(ax, texts: list[str], fontsize: float) -> list[tuple[float, float]]:
    """Each text's (width, height) in the axes' data units, with a little padding."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    ax.apply_aspect()
    to_data = ax.transData.inverted()
    sizes = []
    for text in texts:
        t = ax.text(0, 0, text, fontsize=fontsize)
        box = t.get_window_extent(renderer)
        t.remove()
        (x0, y0), (x1, y1) = to_data.transform([(0, 0), (box.width + 6, box.height + 4)])
        sizes.append((abs(x1 - x0), abs(y1 - y0)))
    return sizes


def draw_labels(
    ax,
    items: list[tuple[str, tuple[float, float], str]],
    fontsize: float,
    keep_clear=(),
    gap: float | None = None,
) -> list[Placed]:
    """Put labels ``(text, point, colour)`` on an axes without overlaps, with leader
    lines where a label had to stand off its point."""
    x0, x1 = sorted(ax.get_xlim())
    y0, y1 = sorted(ax.get_ylim())
    gap = gap or 0.012 * (x1 - x0)
    sizes = _text_boxes(ax, [t for t, _, _ in items], fontsize)
    placed = place(
        [(t, p, s) for (t, p, _), s in zip(items, sizes, strict=True)],
        (x0, y0, x1, y1),
        gap,
        keep_clear=list(keep_clear),
    )
    for (_, point, colour), label in zip(items, placed, strict=True):
        if label.needs_leader(gap):
            ax.plot(*zip(point, label.leader_end(), strict=True), color=colour, lw=0.8, zorder=10)
        cx, cy = label.centre
        ax.text(
            cx,
            cy,
            label.text,
            fontsize=fontsize,
            color=colour,
            ha="center",
            va="center",
            zorder=11,
            bbox={
                "boxstyle": "square,pad=0.15",
                "fc": "white",
                "ec": colour,
                "lw": 0.6,
                "alpha": 0.9,
            },
        )
    return placed
