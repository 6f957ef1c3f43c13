"""The picture of one shot (``piggy shoot --png``): the whole board from above, a
close-up of the action from above, and a section along the aim (what the bale
passed over or hit: the tractor, the fences, the piggies, the bale's path).

Labels (piggy names, contact numbers) are placed by :mod:`sim.views.labels` so that
they never overlap; the upper piggy of a stack is drawn a little offset, so
that both piggies of a stack show from above.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Polygon, Rectangle
from scipy.spatial import ConvexHull

from models.board import Board
from models.design import Design
from models.meshes import barrel, load_parts
from sim.physics.geometry import PiggyModel
from sim.physics.results import ShotResult
from sim.views import labels, pictures

#: How far the upper piggy of a stack is drawn from the one under it, mm (top views).
STACK_OFFSET_MM = np.array([9.0, -9.0])
#: The section shows what stands within this distance of the aim line, mm.
SECTION_HALF_WIDTH_MM = 40.0
_OUT_COLOUR, _PATH_COLOUR = "#d00000", "#402000"


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
    starts, ends = _footprints(result)
    region = _close_up_region(result, starts, ends)
    for ax, detail in ((whole, False), (close, True)):
        _top_view(ax, board, result, starts, ends, detail)
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
    _section(section, board, design, result)
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
        plt.Line2D([], [], color=_PATH_COLOUR, lw=1.5, label="bale's centre"),
        plt.Line2D(
            [],
            [],
            marker="o",
            ls="",
            mfc="none",
            mec=_OUT_COLOUR,
            label="the bale's contacts, numbered in order",
        ),
        plt.Line2D(
            [], [], marker="x", ls="", color=_OUT_COLOUR, mew=2.5, ms=9, label="knocked out"
        ),
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


def _footprints(result: ShotResult):
    """(starts, ends): piggy -> (parts as drawn, centre as drawn), before and after."""
    model = PiggyModel.load()

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


def _top_view(ax, board: Board, result: ShotResult, starts, ends, detail: bool) -> None:
    pictures.draw_board(ax, board)
    pictures.draw_tractor(ax, result.yaw_deg, [m.vertices for m in load_parts("tractor").values()])
    for piggy, (parts, _) in starts.items():
        pictures.draw_footprint(ax, parts, piggy, alpha=0.3, edge="none", zorder=5)
    for piggy, (parts, centre) in ends.items():
        pictures.draw_footprint(ax, parts, piggy)
        if piggy in result.knocked:
            ax.plot(
                *centre[:2],
                "x",
                color=_OUT_COLOUR,
                ms=16 if detail else 11,
                mew=3 if detail else 2.5,
                zorder=8,
            )
    along = _along(result)
    reach = 1.2 * max(np.hypot(result.rest_mm[0], result.rest_mm[1]), 100.0)
    ax.plot(
        [0, reach * along[0]], [0, reach * along[1]], ls="--", color="#404040", lw=0.8, zorder=6
    )
    path = result.trajectory_mm
    if path is not None and len(path):
        ax.plot(path[:, 0], path[:, 1], color=_PATH_COLOUR, lw=1.6 if detail else 1.2, zorder=7)
    for point in result.contact_points_mm:
        ax.plot(
            point[0],
            point[1],
            "o",
            mfc="none",
            mec=_OUT_COLOUR,
            ms=7 if detail else 5,
            mew=1.5,
            zorder=8,
        )
    ax.plot(*result.rest_mm[:2], "s", mfc="#f0c020", mec=_PATH_COLOUR, ms=6, zorder=8)
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm), toward the trough")


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
) -> list[labels.Placed]:
    """Put labels ``(text, point, colour)`` on an axes without overlaps, with leader
    lines where a label had to stand off its point."""
    x0, x1 = sorted(ax.get_xlim())
    y0, y1 = sorted(ax.get_ylim())
    gap = gap or 0.012 * (x1 - x0)
    sizes = _text_boxes(ax, [t for t, _, _ in items], fontsize)
    placed = labels.place(
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


def _xy(point) -> tuple[float, float]:
    """A point's (x, y), mm, as a label's anchor."""
    return float(point[0]), float(point[1])


def _name_things(ax, result: ShotResult, starts, ends) -> None:
    """Contact numbers first (they matter most), then the disturbed piggies' names
    where they ended, then where they stood."""
    items = [(str(n), _xy(p), _OUT_COLOUR) for n, p in enumerate(result.contact_points_mm, start=1)]
    moved = _moved(result, starts, ends)
    for p in moved:
        verdict = "OUT" if p in result.knocked else "stays"
        items.append(
            (
                f"{p} {verdict}",
                _xy(ends[p][1]),
                _OUT_COLOUR if p in result.knocked else "#202020",
            )
        )
    for p in moved:
        items.append((f"{p} stood here", _xy(starts[p][1]), "#606060"))
    items.append(("bale stopped", _xy(result.rest_mm), _PATH_COLOUR))
    half = 0.02 * np.ptp(ax.get_xlim())
    keep_clear = [(c[0] - half, c[1] - half, c[0] + half, c[1] + half) for _, c in ends.values()]
    draw_labels(ax, items, 9, keep_clear)


# --- the section along the aim -----------------------------------------------------------------
def _along(result: ShotResult) -> np.ndarray:
    yaw = math.radians(result.yaw_deg)
    return np.array([-math.sin(yaw), math.cos(yaw)])


def _silhouette(ax, parts, along, **style) -> None:
    """Convex parts seen side-on in the section plane: (distance along the aim, height)."""
    for part in parts:
        pts = np.column_stack([part[:, :2] @ along, part[:, 2]])
        ax.add_patch(Polygon(pts[ConvexHull(pts).vertices], closed=True, **style))


def _section(ax, board: Board, design: Design, result: ShotResult) -> None:
    model = PiggyModel.load()
    along = _along(result)
    across = np.array([along[1], -along[0]])
    path = result.trajectory_mm
    reached = [float(np.dot(result.rest_mm[:2], along))]
    if path is not None and len(path):
        reached.append(float(np.max(path[:, :2] @ along)))
    for piggy in result.knocked:  # where the knocked-out ones went, when still near the aim
        end = model.centre_at(result.piggies[piggy].final_pose)
        if abs(float(end[:2] @ across)) <= SECTION_HALF_WIDTH_MM:
            reached.append(float(end[:2] @ along))
    far = max(reached) + 40
    near = -90.0
    t = board.thickness_mm
    ax.add_patch(
        Rectangle(
            (near, -t), far - near, t, fc=pictures.BOARD_COLOUR, ec=pictures.LINE_COLOUR, zorder=1
        )
    )
    for a, b in board.fence_segments_mm():
        _fence_in_section(ax, a, b, along, across, board, near, far)
    yaw, pitch = math.radians(result.yaw_deg), math.radians(result.pitch_deg)
    turn = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    tilt = np.array(
        [[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]]
    )
    tractor = [m.vertices @ turn.T for m in load_parts("tractor").values()]
    tube = barrel(design.launcher.barrel_length_mm).vertices @ (turn @ tilt).T
    style = {"fc": "#707070", "ec": "#303030", "lw": 0.5, "alpha": 0.85, "zorder": 3}
    lifted = tube + np.array([0.0, 0.0, design.launcher.pivot_height_mm])
    _silhouette(ax, [*tractor, lifted], along, **style)
    items = []
    for piggy in sorted(result.piggies):
        colour = pictures.PIGGY_COLOURS.get(piggy.split("-")[0], "grey")
        shot = result.piggies[piggy]
        before, after = model.parts_at(shot.start_pose), model.parts_at(shot.final_pose)
        for parts, faint in ((before, True), (after, False)):
            centre = np.vstack(parts).mean(axis=0)
            s = float(centre[:2] @ along)
            if abs(float(centre[:2] @ across)) > SECTION_HALF_WIDTH_MM or not near < s < far:
                continue
            knocked = piggy in result.knocked and not faint
            _silhouette(
                ax,
                parts,
                along,
                fc=colour,
                alpha=0.3 if faint else 0.9,
                ec=_OUT_COLOUR if knocked else ("none" if faint else "black"),
                lw=1.2 if knocked else 0.3,
                zorder=4 if faint else 5,
            )
            if faint:
                items.append((piggy, (s, float(np.vstack(parts)[:, 2].max())), "#404040"))
    if path is not None and len(path):
        ax.plot(path[:, :2] @ along, path[:, 2], color=_PATH_COLOUR, lw=1.6, zorder=7)
    for number, point in enumerate(result.contact_points_mm, start=1):
        s, z = float(np.dot(point[:2], along)), point[2]
        ax.plot(s, z, "o", mfc="none", mec=_OUT_COLOUR, ms=6, mew=1.5, zorder=8)
        items.insert(number - 1, (str(number), (s, z), _OUT_COLOUR))
    top = max(
        design.launcher.pivot_height_mm + 30,
        float(path[:, 2].max()) + 25 if path is not None and len(path) else 0.0,
    )
    ax.set_xlim(near, far)
    ax.set_ylim(-t - 4, top)
    ax.set_aspect("equal", adjustable="box")
    draw_labels(ax, items, 8.5, gap=0.008 * (far - near))
    ax.set_xlabel("distance along the aim from the tractor's pivot (mm)")
    ax.set_ylabel("height (mm)")
    ax.set_title(
        f"section along the aim: what stands within {SECTION_HALF_WIDTH_MM:.0f} mm "
        "of it (faint: before the shot)",
        fontsize=11,
    )
    ax.grid(alpha=0.25)


def _fence_in_section(ax, a, b, along, across, board, near, far) -> None:
    """A fence where it comes within the section's width: solid where it crosses the
    aim line, hatched where it only runs beside it."""
    points = np.linspace(a, b, 60)
    inside = np.abs(points @ across) <= SECTION_HALF_WIDTH_MM
    if not inside.any():
        return
    s = points[inside] @ along
    half = board.fence_thickness_mm / 2
    lo, hi = max(near, float(s.min()) - half), min(far, float(s.max()) + half)
    if hi <= lo:
        return
    crosses = np.sign(a @ across) != np.sign(b @ across)
    ax.add_patch(
        Rectangle(
            (lo, 0),
            hi - lo,
            board.fence_height_mm,
            fc=pictures.FENCE_COLOUR if crosses else "none",
            ec=pictures.FENCE_COLOUR,
            hatch=None if crosses else "///",
            lw=1.0,
            zorder=2,
        )
    )
