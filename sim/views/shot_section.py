"""A shot's section along the aim (the third view of ``piggy shoot --png``): what the
bale passed over or hit, seen side-on, within :data:`SECTION_HALF_WIDTH_MM` of the
aim line: the tractor and barrel, the fences, the piggies before and after, the
bale's path and its numbered contacts. Distances along the aim and heights in mm.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.patches import Polygon, Rectangle
from scipy.spatial import ConvexHull

from models.board import Board
from models.body_shapes import drawn_parts
from models.design import Design
from models.meshes import barrel
from sim.physics.geometry import PiggyModel
from sim.physics.results import ShotResult
from sim.views import pictures
from sim.views.labels import draw_labels

#: The section shows what stands within this distance of the aim line, mm.
SECTION_HALF_WIDTH_MM = 40.0
#: Every view of a shot draws the knocked-out piggies and the contacts in the first,
#: the bale's path in the second.
OUT_COLOUR, PATH_COLOUR = "#d00000", "#402000"
#: The table round the board, in the section.
TABLE_COLOUR = "#d5dde6"
#: How much of what lies below the board's top the section shows, mm.
_TABLE_MM = 10.0


def along_aim(result: ShotResult) -> np.ndarray:
    """The horizontal unit vector (2,) of the shot's aim, board frame."""
    yaw = math.radians(result.yaw_deg)
    return np.array([-math.sin(yaw), math.cos(yaw)])


def _silhouette(ax, parts, along, **style) -> None:
    """Convex parts seen side-on in the section plane: (distance along the aim, height)."""
    for part in parts:
        pts = np.column_stack([part[:, :2] @ along, part[:, 2]])
        ax.add_patch(Polygon(pts[ConvexHull(pts).vertices], closed=True, **style))


def draw_section(ax, board: Board, design: Design, result: ShotResult) -> None:
    """The section along the aim on ``ax``: board, fences, tractor and barrel, the
    piggies before (faint) and after, the bale's path and the numbered contacts."""
    model = PiggyModel.for_design(design)
    along = along_aim(result)
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
    _board_and_table(ax, board, along, near, far)
    t = board.thickness_mm
    for a, b in board.fence_segments_mm():
        _fence_in_section(ax, a, b, along, across, board, near, far)
    yaw, pitch = math.radians(result.yaw_deg), math.radians(result.pitch_deg)
    turn = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    tilt = np.array(
        [[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]]
    )
    tractor = [part @ turn.T for part in drawn_parts(design, "tractor")]
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
                ec=OUT_COLOUR if knocked else ("none" if faint else "black"),
                lw=1.2 if knocked else 0.3,
                zorder=4 if faint else 5,
            )
            if faint:
                items.append((piggy, (s, float(np.vstack(parts)[:, 2].max())), "#404040"))
    if path is not None and len(path):
        ax.plot(path[:, :2] @ along, path[:, 2], color=PATH_COLOUR, lw=1.6, zorder=7)
    for number, point in enumerate(result.contact_points_mm, start=1):
        s, z = float(np.dot(point[:2], along)), point[2]
        ax.plot(s, z, "o", mfc="none", mec=OUT_COLOUR, ms=6, mew=1.5, zorder=8)
        items.insert(number - 1, (str(number), (s, z), OUT_COLOUR))
    top = max(
        design.launcher.pivot_height_mm + 30,
        float(path[:, 2].max()) + 25 if path is not None and len(path) else 0.0,
    )
    ax.set_xlim(near, far)
    ax.set_ylim(-t - _TABLE_MM, top)
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


def _edge_mm(board: Board, direction: np.ndarray) -> float:
    """How far from the pivot, along ``direction`` (a unit vector), the board's top
    ends, mm."""
    x_min, x_max, y_min, y_max = board.surface_extent_mm
    reach = [
        (high if d > 0 else low) / d
        for d, low, high in ((direction[0], x_min, x_max), (direction[1], y_min, y_max))
        if d != 0
    ]
    return min(reach)


def _board_and_table(ax, board: Board, along: np.ndarray, near: float, far: float) -> None:
    """The board's band where the aim line crosses the board, and past its edges the
    table it lies on (grey, its top the board's foot): a strike there is drawn on
    the table, off the board."""
    t = board.thickness_mm
    start, end = max(near, -_edge_mm(board, -along)), min(far, _edge_mm(board, along))
    ax.add_patch(
        Rectangle(
            (start, -t), end - start, t, fc=pictures.BOARD_COLOUR, ec=pictures.LINE_COLOUR, zorder=1
        )
    )
    for lo, hi in ((near, start), (end, far)):
        if hi > lo:
            ax.add_patch(
                Rectangle(
                    (lo, -t - _TABLE_MM), hi - lo, _TABLE_MM, fc=TABLE_COLOUR, ec="none", zorder=1
                )
            )
            ax.plot([lo, hi], [-t, -t], color=pictures.LINE_COLOUR, lw=0.8, zorder=1)


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
