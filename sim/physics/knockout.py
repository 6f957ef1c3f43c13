"""The knocked-out test (docs/rules/go-piggy-go.md, ruling 7), on a piggy's real collision geometry.

Judged from above, as a child looks at the board: the piggy's convex parts, in
their final pose, are projected onto the board, and compared with the square of
the space it stood on.

- ``touches-line`` (default; the rulebook's words): knocked out when some part
  reaches the painted outline of the space. The outline is ``line_mm`` wide,
  centred on the boundary between spaces, so it begins ``line_mm / 2`` inside it.
- ``cleared``: knocked out only when no part is over the space any more (the
  space ends at the centre of its outline).
- Either way, a piggy that has left the board is knocked out.
- Against where it stood before the shot: the rulebook counts a piggy as knocked
  out when the shot *moved it* out of its space. The outline is judged side by
  side (its four sides, +x, -x, +y, -y): given the piggy's parts as it stood
  before the shot, it is knocked out under ``touches-line`` when it now reaches a
  side it did not reach before, or reaches at least :data:`FURTHER_MM` further
  past a side it already touched (a space smaller than a piggy's footprint, or a
  piggy settled askew); a piggy nobody touched never is. A piggy already on one
  side that the shot pushes across its space onto the opposite side is out.

Pure numpy: no physics here, so the rule can be tested on poses made by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.grid import HIT_RULES

#: A piggy whose lowest point is this far below the board surface has fallen off it, mm.
FELL_OFF_DEPTH_MM = 1.0
#: A piggy that already touched its outline before the shot is knocked out (under
#: ``touches-line``) when it now reaches this much further past the line, mm: far
#: more than a woken piggy's settling jitter (hundredths of a mm), less than a nudge
#: a child would see.
FURTHER_MM = 0.5


@dataclass(frozen=True)
class Verdict:
    """Whether one piggy is knocked out, and why.

    ``extent_mm``: how far the piggy's footprint reaches from the centre of its space
    (the larger of the x and y extents, mm; not the launcher's reach,
    :func:`sim.physics.aim.reach_mm`); ``line_starts_mm``: where the outline
    begins, measured the same way.
    """

    knocked: bool
    reason: str
    extent_mm: float
    line_starts_mm: float


def check_hit_rule(rule: str) -> str:
    from models.errors import InputError

    if rule not in HIT_RULES:
        raise InputError(f"unknown hit rule '{rule}': allowed are {', '.join(HIT_RULES)}")
    return rule


def transform(vertices: np.ndarray, position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """Vertices (n, 3) from a body frame to the world: ``R @ v + p``."""
    return vertices @ rotation.T + position


def verdict_on(
    parts_world_mm: list[np.ndarray],
    space_centre_mm,
    space_mm: float,
    line_mm: float,
    surface_extent_mm: tuple[float, float, float, float],
    hit_rule: str = "touches-line",
    start_parts_mm: list[np.ndarray] | None = None,
) -> Verdict:
    """Apply the knocked-out test to one piggy: off the board is out under either
    rule, else the hit rule decides (:func:`touches_line_verdict`,
    :func:`cleared_verdict`).

    Parameters
    ----------
    parts_world_mm : list of (n_i, 3) arrays
        The vertices of each convex collision part, in the board frame, mm.
    space_centre_mm : (2,) array
        Centre of the space the piggy stood on, board frame, mm.
    space_mm, line_mm : float
        Side of a space and width of the painted outline, mm.
    surface_extent_mm : (x_min, x_max, y_min, y_max)
        The board's top surface, mm.
    hit_rule : str
        ``touches-line`` or ``cleared``.
    start_parts_mm : list of (n_i, 3) arrays, optional
        The same parts where the piggy stood before the shot (``touches-line`` only);
        without them the piggy is taken to have stood clear of its outline.
    """
    check_hit_rule(hit_rule)
    all_vertices = np.vstack(parts_world_mm)
    line_starts = space_mm / 2 - line_mm / 2
    centre = all_vertices.mean(axis=0)
    x_min, x_max, y_min, y_max = surface_extent_mm
    off_surface = not (x_min <= centre[0] <= x_max and y_min <= centre[1] <= y_max)
    if off_surface or all_vertices[:, 2].min() < -FELL_OFF_DEPTH_MM:
        return Verdict(
            True, "fell off the board", _extent(all_vertices, space_centre_mm), line_starts
        )
    if hit_rule == "touches-line":
        return touches_line_verdict(all_vertices, space_centre_mm, line_starts, start_parts_mm)
    return cleared_verdict(parts_world_mm, space_centre_mm, space_mm, line_starts)


def touches_line_verdict(
    vertices: np.ndarray,
    space_centre_mm,
    line_starts_mm: float,
    start_parts_mm: list[np.ndarray] | None = None,
) -> Verdict:
    """The ``touches-line`` rule on a piggy still on the board (its parts' vertices
    stacked, (n, 3), mm): out when the shot moved some part onto a side of the
    outline it did not reach before, or :data:`FURTHER_MM` further past a side it
    already touched (module docstring)."""
    extent = _extent(vertices, space_centre_mm)
    if extent < line_starts_mm:
        return Verdict(
            False,
            f"inside its space, {line_starts_mm - extent:.1f} mm clear of the outline",
            extent,
            line_starts_mm,
        )
    now = _side_reaches(vertices, space_centre_mm)
    before = (
        np.full(4, -np.inf)
        if start_parts_mm is None
        else _side_reaches(np.vstack(start_parts_mm), space_centre_mm)
    )
    new = [i for i in range(4) if now[i] >= line_starts_mm > before[i]]
    if new:  # the side it reaches furthest past, of those it did not touch before
        side = max(new, key=lambda i: now[i])
        return Verdict(
            True,
            f"touches the outline of its space on its {SIDES[side]} "
            f"side ({now[side] - line_starts_mm:.1f} mm onto or past the "
            "line)",
            extent,
            line_starts_mm,
        )
    further = [i for i in range(4) if now[i] >= line_starts_mm and now[i] >= before[i] + FURTHER_MM]
    if further:
        side = max(further, key=lambda i: now[i] - before[i])
        return Verdict(
            True,
            f"pushed {now[side] - before[side]:.1f} mm further past the "
            f"outline it already touched, on its {SIDES[side]} side "
            f"({now[side] - line_starts_mm:.1f} mm onto or past the line)",
            extent,
            line_starts_mm,
        )
    return Verdict(
        False,
        "on the outline where it stood before the shot "
        f"({float(np.max(before)) - line_starts_mm:.1f} mm onto it), not moved "
        "out of its space",
        extent,
        line_starts_mm,
    )


def cleared_verdict(
    parts_world_mm: list[np.ndarray], space_centre_mm, space_mm: float, line_starts_mm: float
) -> Verdict:
    """The ``cleared`` rule on a piggy still on the board: out only when no convex
    part overlaps the space's square (which ends at the centre of its outline)
    any more. ``line_starts_mm`` is only reported in the verdict."""
    extent = _extent(np.vstack(parts_world_mm), space_centre_mm)
    overlap = max(
        _overlap_with_square(part[:, :2] - space_centre_mm, space_mm / 2) for part in parts_world_mm
    )
    if overlap <= 0:
        return Verdict(True, "wholly outside its space", extent, line_starts_mm)
    return Verdict(
        False, f"still {overlap:.1f} mm over its space (cleared rule)", extent, line_starts_mm
    )


#: The sides of a space's outline, in the order of :func:`_side_reaches`.
SIDES = ("+x", "-x", "+y", "-y")


def _side_reaches(vertices: np.ndarray, space_centre_mm) -> np.ndarray:
    """How far a footprint reaches toward each side of its space (+x, -x, +y, -y) from
    the space's centre, mm (negative: it does not get past the centre that way)."""
    d = vertices[:, :2] - np.asarray(space_centre_mm, float)
    return np.array([d[:, 0].max(), -d[:, 0].min(), d[:, 1].max(), -d[:, 1].min()])


def _extent(vertices: np.ndarray, space_centre_mm) -> float:
    """How far a footprint reaches from its space's centre: the largest |dx| or |dy|, mm."""
    return float(np.max(np.abs(vertices[:, :2] - np.asarray(space_centre_mm, float))))


def _overlap_with_square(points: np.ndarray, half: float) -> float:
    """Penetration depth (mm) of a convex polygon, given by points (n, 2) around the
    origin, into the open square [-half, half]^2; <= 0 when they do not overlap.

    Separating-axis test: the square's two axes and every edge normal of the
    polygon's hull. The depth is the smallest overlap over the axes.
    """
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = points[ConvexHull(points).vertices]
    except (QhullError, ValueError):  # degenerate: seen edge-on
        hull = points
    edges = np.roll(hull, -1, axis=0) - hull
    normals = np.column_stack([-edges[:, 1], edges[:, 0]])
    lengths = np.linalg.norm(normals, axis=1)
    axes = np.vstack(
        [[1.0, 0.0], [0.0, 1.0], normals[lengths > 1e-12] / lengths[lengths > 1e-12, None]]
    )
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    depth = np.inf
    for axis in axes:
        p, q = hull @ axis, square @ axis
        depth = min(depth, min(p.max(), q.max()) - max(p.min(), q.min()))
    return float(depth)
