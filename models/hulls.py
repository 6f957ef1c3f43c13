"""Convex hulls with as few vertices as their shape needs.

Bullet's convex-convex collision costs about in proportion to the hulls' vertices,
and a hull taken from a dense CAD export keeps every vertex of it: a 52,000-face
piggy split into 16 parts had 17,537 hull vertices and made a child's shot 3.0
times slower than the stock piggy's 252 (scripts/bench.py --only own-piggy). Most
of those vertices are within a hair of the hull that the others make; this keeps
the hull's shape to :data:`HULL_TOLERANCE_MM` and drops the rest (853 vertices at
0.1 mm, as fast as the stock piggy). The stock piggy's own parts are coarser: its
body is a 42-vertex sphere, whose faces lie up to 6.6 % of its radius (1 mm)
inside the true ellipsoid. A smooth part over about 7 mm across reaches
:data:`HULL_MAX_VERTICES` first (a sphere 10 mm across keeps to 0.074 mm, one 30
mm across to 0.24 mm).

Why 0.05 mm and not 0.1: on grazing shots (150 a space, aimed 12 mm beside the
wide-piggy example, the same seeds) hulls kept to 0.1 mm knocked the piggy out
of r3c3 less often than the raw hulls (19 shots against 3, McNemar p = 0.001);
kept to 0.05 mm, 0 against 6 (p = 0.03; 0.02 mm: 0 against 5). That grazing set
moves with any change of the hulls, either way; 0.05 mm moves it least. At five
other spaces the 0.05 mm hulls differ from the raw ones on 3 shots against 3.
"""

from __future__ import annotations

import numpy as np
import trimesh

#: No vertex of a hull lies further than this outside its simplified hull, mm.
HULL_TOLERANCE_MM = 0.05
#: A hull with at most this many vertices is kept as it is (the stock piggy's parts
#: have 11 to 42): simplifying it would save nothing Bullet notices.
HULL_KEPT_VERTICES = 64
#: The most vertices a simplified hull keeps, whatever the tolerance asks.
HULL_MAX_VERTICES = 256

#: The first points: the extremes along the 3 axes and the 4 cube diagonals.
_START_DIRECTIONS = np.array(
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1]], float
)


def simplified_hull(points_mm: np.ndarray) -> trimesh.Trimesh:
    """The convex hull of ``points_mm`` (n, 3), with at most
    :data:`HULL_MAX_VERTICES` of them, all within :data:`HULL_TOLERANCE_MM` of it
    unless that cap is reached.

    Its vertices are a subset of the points, so it lies inside their hull. Built
    greedily: the points extreme along seven directions, then, one at a time, the
    point furthest outside the hull made so far. A point once inside stays inside
    (the hull only grows), so each round measures only the points still outside.
    The same points give the same hull.
    """
    hull = trimesh.convex.convex_hull(np.asarray(points_mm, dtype=float))
    if len(hull.vertices) <= HULL_KEPT_VERTICES:
        return hull
    outside = np.asarray(hull.vertices)
    extremes = outside @ np.vstack([_START_DIRECTIONS, -_START_DIRECTIONS]).T
    kept = outside[np.unique(np.argmax(extremes, axis=0))]
    while True:
        simple = trimesh.convex.convex_hull(kept)
        distance = _furthest_outside(simple, outside)
        still_out = distance > HULL_TOLERANCE_MM
        if not still_out.any() or len(kept) >= HULL_MAX_VERTICES:
            return simple
        outside, distance = outside[still_out], distance[still_out]
        kept = np.vstack([kept, outside[np.argmax(distance)]])


def _furthest_outside(hull: trimesh.Trimesh, points: np.ndarray) -> np.ndarray:
    """How far each point (n, 3) lies outside a convex hull, mm (≤ 0: inside)."""
    offsets = np.einsum("ij,ij->i", hull.face_normals, hull.triangles[:, 0])
    return (points @ hull.face_normals.T - offsets).max(axis=1)
