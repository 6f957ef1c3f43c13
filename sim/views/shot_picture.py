"""The picture of one shot (``piggy shoot --png``): the whole board from above, a
close-up of the action from above, and a section along the aim (what the bale
passed over or hit: the tractor, the fences, the piggies, the bale's path).

The section is drawn by :mod:`sim.views.shot_section`. Labels (piggy names,
contact numbers) are placed by :mod:`sim.views.labels` so that they never overlap;
the upper piggy of a stack is drawn a little offset, so that both piggies of a
stack show from above.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from models.board import Board
from models.body_shapes import drawn_parts
from models.design import Design
from sim.physics.geometry import PiggyModel
from sim.physics.results import ShotResult
from sim.views import pictures
from sim.views.labels import draw_labels
from sim.views.shot_section import (
    OUT_COLOUR,
    PATH_COLOUR,
    TABLE_COLOUR,
    along_aim,
    draw_section,
)

#: How far the upper piggy of a stack is drawn from the one under it, mm (top views).
STACK_OFFSET_MM = np.array([9.0, -9.0])


def shot_figure(board: Board, design: Design, result: ShotResult, title: str = ""):
    """The three views of a shot fired on ``board`` with ``design``, from its result."""
    fig = plt.figure(figsize=(15, 9.6))
    grid = fig.add_gridspec(
        2,
        2,
        width_ratios=[1.0, 1.35],
        height_ratios=[1.2, 1.0],
        left=0.05,
        right=0.98,
        top=0.91,
        bottom=0.14,
        wspace=0.12,
        hspace=0.22,
    )
    whole, close, section = (
        fig.add_subplot(grid[:, 0]),
        fig.add_subplot(grid[0, 1]),
        fig.add_subplot(grid[1, 1]),
    )
    starts, ends = _footprints(PiggyModel.for_design(design), result)
    region = _close_up_region(result, starts, ends)
    tractor = drawn_parts(design, "tractor")
    for ax, detail in ((whole, False), (close, True)):
        _top_view(ax, board, result, tractor, starts, ends, detail)
    whole.add_patch(
        Rectangle(
            region[:2],
            region[2] - region[0],
            region[3] - region[1],
            fill=False,
            ec="#202020",
            ls=":",
            lw=1.2,
            zorder=9,
        )
    )
    whole.set_title(title or "the board from above", fontsize=11)
    close.set_xlim(region[0], region[2])
    close.set_ylim(region[1], region[3])
    close.set_title("close-up (dotted box on the left): contacts in order", fontsize=11)
    _name_things(close, result, starts, ends)
    draw_section(section, board, design, result)
    handles = [
        plt.Line2D(
            [],
            [],
            color="#404040",
            ls="--",
            lw=0.8,
            label=f"as fired (the aim and its errors): yaw {result.yaw_deg:.1f}, "
            f"pitch {result.pitch_deg:.1f} deg",
        ),
        plt.Line2D([], [], color=PATH_COLOUR, lw=1.5, label="bale's centre"),
        plt.Line2D(
            [],
            [],
            marker="o",
            ls="",
            mfc="none",
            mec=OUT_COLOUR,
            label="the bale's contacts, numbered in order",
        ),
        plt.Line2D([], [], marker="x", ls="", color=OUT_COLOUR, mew=2.5, ms=9, label="knocked out"),
        Rectangle(
            (0, 0),
            1,
            1,
            fc="#999999",
            alpha=0.3,
            label="where a piggy stood (faint); the upper of a stack offset",
        ),
        Rectangle((0, 0), 1, 1, fc=pictures.FENCE_COLOUR, label="fence across the aim"),
        Rectangle(
            (0, 0),
            1,
            1,
            fc="none",
            ec=pictures.FENCE_COLOUR,
            hatch="///",
            label="fence beside the aim (section)",
        ),
        Rectangle((0, 0), 1, 1, fc=TABLE_COLOUR, label="the table, off the board (section)"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=9, frameon=False)
    knocked = ", ".join(result.knocked) or "nobody"
    struck = " -> ".join(result.contacts) or "nothing"
    fig.suptitle(f"Knocked out: {knocked}        (the bale struck: {struck})", fontsize=13)
    return fig


# --- top views --------------------------------------------------------------------------
def _offsets(centres: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """For each piggy, where to draw it from above relative to where it is: the upper
    of two piggies standing on each other is drawn a little off."""
    out = {}
    for name, c in centres.items():
        under = any(
            other != name and np.linalg.norm(c[:2] - o[:2]) < 15 and o[2] < c[2]
            for other, o in centres.items()
        )
        out[name] = np.append(STACK_OFFSET_MM, 0.0) if under else np.zeros(3)
    return out


def _footprints(model: PiggyModel, result: ShotResult):
    """(starts, ends): piggy -> (parts as drawn, centre as drawn), before and after;
    ``model`` the design's piggy (:meth:`PiggyModel.for_design`), whose body frame the
    result's poses are in."""

    def drawn(parts_by_piggy):
        centres = {p: np.vstack(parts).mean(axis=0) for p, parts in parts_by_piggy.items()}
        shift = _offsets(centres)
        return {
            p: ([part + shift[p] for part in parts], centres[p] + shift[p])
            for p, parts in parts_by_piggy.items()
        }

    return (
        drawn({p: model.parts_at(r.start_pose) for p, r in result.piggies.items()}),
        drawn({p: model.parts_at(r.final_pose) for p, r in result.piggies.items()}),
    )


def _moved(result: ShotResult, starts, ends) -> list[str]:
    return [
        p
        for p in result.piggies
        if np.linalg.norm(ends[p][1] - starts[p][1]) > 1.0 or p in result.knocked
    ]


def _close_up_region(result: ShotResult, starts, ends) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1), mm: the disturbed piggies, the contacts and where the bale
    stopped, with a margin; at least 160 mm across."""
    points = [np.asarray(result.rest_mm)[:2]]
    points += [np.asarray(p)[:2] for p in result.contact_points_mm]
    for p in _moved(result, starts, ends):
        points += [starts[p][1][:2], ends[p][1][:2]]
    corners = np.array(points)
    lo, hi = corners.min(axis=0) - 45, corners.max(axis=0) + 45
    middle, half = (lo + hi) / 2, max(80.0, *((hi - lo) / 2))
    return (middle[0] - 1.25 * half, middle[1] - half, middle[0] + 1.25 * half, middle[1] + half)


def _top_view(ax, board: Board, result: ShotResult, tractor, starts, ends, detail: bool) -> None:
    """One view from above; ``tractor`` its convex parts (n_i, 3), mm, tractor frame."""
    pictures.draw_board(ax, board)
    pictures.draw_tractor(ax, result.yaw_deg, tractor)
    for piggy, (parts, _) in starts.items():
        pictures.draw_footprint(ax, parts, piggy, alpha=0.3, edge="none", zorder=5)
    for piggy, (parts, centre) in ends.items():
        pictures.draw_footprint(ax, parts, piggy)
        if piggy in result.knocked:
            ax.plot(
                *centre[:2],
                "x",
                color=OUT_COLOUR,
                ms=16 if detail else 11,
                mew=3 if detail else 2.5,
                zorder=8,
            )
    along = along_aim(result)
    reach = 1.2 * max(np.hypot(result.rest_mm[0], result.rest_mm[1]), 100.0)
    ax.plot(
        [0, reach * along[0]], [0, reach * along[1]], ls="--", color="#404040", lw=0.8, zorder=6
    )
    path = result.trajectory_mm
    if path is not None and len(path):
        ax.plot(path[:, 0], path[:, 1], color=PATH_COLOUR, lw=1.6 if detail else 1.2, zorder=7)
    for point in result.contact_points_mm:
        ax.plot(
            point[0],
            point[1],
            "o",
            mfc="none",
            mec=OUT_COLOUR,
            ms=7 if detail else 5,
            mew=1.5,
            zorder=8,
        )
    ax.plot(*result.rest_mm[:2], "s", mfc="#f0c020", mec=PATH_COLOUR, ms=6, zorder=8)
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm), toward the trough")


def _xy(point) -> tuple[float, float]:
    """A point's (x, y), mm, as a label's anchor."""
    return float(point[0]), float(point[1])


def _name_things(ax, result: ShotResult, starts, ends) -> None:
    """Contact numbers first (they matter most), then the disturbed piggies' names
    where they ended, then where they stood."""
    items = [(str(n), _xy(p), OUT_COLOUR) for n, p in enumerate(result.contact_points_mm, start=1)]
    moved = _moved(result, starts, ends)
    for p in moved:
        verdict = "OUT" if p in result.knocked else "stays"
        items.append(
            (
                f"{p} {verdict}",
                _xy(ends[p][1]),
                OUT_COLOUR if p in result.knocked else "#202020",
            )
        )
    for p in moved:
        items.append((f"{p} stood here", _xy(starts[p][1]), "#606060"))
    items.append(("bale stopped", _xy(result.rest_mm), PATH_COLOUR))
    half = 0.02 * np.ptp(ax.get_xlim())
    keep_clear = [(c[0] - half, c[1] - half, c[0] + half, c[1] + half) for _, c in ends.values()]
    draw_labels(ax, items, 9, keep_clear)
