"""Pictures of the board and of shots, drawn with matplotlib (headless, Agg).

Every picture of the board goes through :func:`draw_board`, so that the board
looks the same everywhere.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Polygon, Rectangle
from scipy.spatial import ConvexHull

from models.board import Board
from models.errors import InputError

# Names (of boards, designs, piggies, seats) are drawn as they are: a "$" in a name
# must not start matplotlib's mathtext, nor anything call out to LaTeX.
matplotlib.rcParams.update({"text.parse_math": False, "text.usetex": False})

#: Seat colours as drawn (docs/architecture.md, "Names").
PIGGY_COLOURS = {"green": "#3a9d3a", "gold": "#e0b000", "pink": "#ff7fb0", "blue": "#3070e0"}
BOARD_COLOUR, SPACE_COLOUR, LINE_COLOUR = "#d8c59a", "#eadcb8", "#8a7650"
FENCE_COLOUR, PIT_COLOUR, TROUGH_COLOUR = "#7a4a1e", "#8b6a4f", "#c9a36b"


def draw_board(ax, board: Board, labels: bool = True, label_scale: float = 1.0) -> None:
    """Board, spaces, holes, fences, checkpoints, pits and trough on a top-view axes (mm);
    ``label_scale`` enlarges the spaces' and checkpoints' names (the 3D texture's, seen
    small and at a slant, need it)."""
    x0, x1, y0, y1 = board.surface_extent_mm
    gx0, gx1, gy0, gy1 = board.grid_extent_mm
    ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color=BOARD_COLOUR, zorder=0))
    ax.add_patch(Rectangle((gx0, y0), gx1 - gx0, gy0 - y0, color=PIT_COLOUR, alpha=0.6, zorder=0))
    ax.add_patch(Rectangle((gx0, gy1), gx1 - gx0, y1 - gy1, color=TROUGH_COLOUR, zorder=0))
    s = board.space_mm
    for side, rows in (("left", board.pit_left_rows), ("right", board.pit_right_rows)):
        lo, hi = gy0 + min(rows) * s, gy0 + (max(rows) + 1) * s
        px = x0 if side == "left" else gx1
        ax.add_patch(
            Rectangle((px, lo), board.side_pit_mm, hi - lo, color=PIT_COLOUR, alpha=0.6, zorder=0)
        )
        if labels:
            ax.text(
                px + board.side_pit_mm / 2,
                (lo + hi) / 2,
                f"pit-{side}",
                rotation=90,
                ha="center",
                va="center",
                fontsize=8,
                color="white",
                clip_on=True,
            )
    if labels:
        ax.text(
            (gx0 + gx1) / 2,
            (y0 + gy0) / 2,
            "start Mud Pit",
            ha="center",
            va="center",
            fontsize=9,
            color="white",
            clip_on=True,
        )
        ax.text(
            (gx0 + gx1) / 2,
            (gy1 + y1) / 2,
            "food trough",
            ha="center",
            va="center",
            fontsize=9,
            clip_on=True,
        )
    for r in range(board.rows):
        for c in range(board.cols):
            corner = (gx0 + c * s, gy0 + r * s)
            if (r, c) in board.holes:
                ax.add_patch(Rectangle(corner, s, s, color="#9a9a9a", zorder=1))
                continue
            ax.add_patch(
                Rectangle(
                    corner,
                    s,
                    s,
                    facecolor=SPACE_COLOUR,
                    edgecolor=LINE_COLOUR,
                    linewidth=0.8,
                    zorder=1,
                )
            )
            if labels:
                # over a hit map's colours (zorder 2), under the piggies (5)
                ax.text(
                    corner[0] + 2,
                    corner[1] + 2,
                    f"r{r}c{c}",
                    fontsize=6.5 * label_scale,
                    color=LINE_COLOUR,
                    zorder=4.5,
                    clip_on=True,
                )
    for k, row in enumerate(board.checkpoints, start=1):
        y = gy0 + row * s
        ax.plot([gx0, gx1], [y, y], ls="--", color="#b03030", lw=1.2, zorder=3)
        if labels:
            # under the line at the right: clear of the space names (bottom left)
            ax.text(
                gx1 - 2,
                y - 2,
                f"checkpoint #{k}",
                fontsize=6.5 * label_scale,
                color="#b03030",
                ha="right",
                va="top",
                zorder=4.5,
                clip_on=True,
                bbox={"fc": "white", "ec": "none", "alpha": 0.6, "pad": 0.5},
            )
    for a, b in board.fence_segments_mm():
        ax.plot(
            [a[0], b[0]], [a[1], b[1]], color=FENCE_COLOUR, lw=3.5, solid_capstyle="butt", zorder=4
        )
    ax.set_xlim(x0 - 5, x1 + 5)
    ax.set_ylim(y0 - 5, y1 + 5)
    ax.set_aspect("equal")
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm), toward the trough")


def draw_footprint(
    ax,
    parts_mm: list[np.ndarray],
    piggy: str,
    *,
    alpha: float = 1.0,
    edge: str = "black",
    zorder: int = 6,
) -> None:
    """A piggy seen from above: the hull of each of its parts, in its colour."""
    colour = PIGGY_COLOURS.get(piggy.split("-")[0], "grey")
    for part in parts_mm:
        pts = part[:, :2]
        hull = pts[ConvexHull(pts).vertices]
        ax.add_patch(
            Polygon(
                hull,
                closed=True,
                facecolor=colour,
                edgecolor=edge,
                lw=0.3,
                alpha=alpha,
                zorder=zorder,
            )
        )


def draw_tractor(ax, yaw_deg: float, tractor_parts_mm: Sequence[np.ndarray]) -> None:
    """The tractor from above, turned to ``yaw_deg``."""
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    rot = np.array([[c, -s], [s, c]])
    for part in tractor_parts_mm:
        pts = part[:, :2] @ rot.T
        hull = pts[ConvexHull(pts).vertices]
        ax.add_patch(
            Polygon(
                hull,
                closed=True,
                facecolor="#707070",
                edgecolor="#303030",
                lw=0.4,
                alpha=0.8,
                zorder=5,
            )
        )


def check_png_path(path: str | Path) -> Path:
    """The path of a PNG to write, checked before any work is done."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise InputError(f"picture file '{path}' must end in .png")
    if not path.parent.is_dir():
        raise InputError(f"cannot write {path}: folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK):
        raise InputError(f"cannot write {path}: folder {path.parent} is not writable")
    return path


def save_figure(fig, path: str | Path) -> Path:
    """Write a figure atomically (a temporary file, then a rename); errors are InputErrors."""
    try:
        path = check_png_path(path)
    except InputError:
        plt.close(fig)
        raise
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")
    try:
        fig.savefig(tmp, dpi=150, bbox_inches="tight")
        tmp.replace(path)
    except BaseException as exc:  # no .tmp file is left behind, whatever failed
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    finally:
        plt.close(fig)
    return path


def figure_png(fig) -> str:
    """A figure as a PNG data URI (for a self-contained page); the figure is closed."""
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
