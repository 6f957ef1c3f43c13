"""The early verdict: a piggy whose knock-out can no longer be undone stops holding
up the end of the shot.

A shot ends when everything in play has been at rest for ``rest_time_s``. A piggy
sliding away from its space after a strike keeps it going for tenths of a second,
although it is already out. With the design's ``physics.early_verdict`` on, such a
piggy stops counting as moving (it is still simulated, and still wakes what it
comes near) when all of these hold (docs/physics.md, "Fidelity on grazing shots"):

1. it lies on the board or the table (not in the air, where friction cannot slow it);
2. its centre of mass is past its space's outline along x or y by more than the
   distance it could still travel back toward the space (:func:`travel_mm`);
3. it is moving away from its space along that axis;
4. nothing but the board and the table is within its reach: its bounding sphere
   plus the distance it could still travel in any direction (checked by the world).

Why the knock-out then stands whatever its orientation (docs/rules/go-piggy-go.md,
ruling 7, as in :mod:`sim.physics.knockout`):

- ``touches-line``: the convex hull of the piggy's vertices holds a ball of radius
  ``inner_radius_mm`` around its centre of mass, so some vertex reaches at least
  that far beyond the centre along the axis: centre past ``line_starts - inner``
  means a part on the line.
- ``cleared``: every vertex lies within ``outer_radius_mm`` of the centre: centre
  past ``space / 2 + outer`` means no part over the space.
- A piggy that left the board is past its outline by more than either.

How far it can still go: on its own (nothing near) the only horizontal force on it
is friction with what it lies on, at most ``mu g`` per unit mass with ``mu`` the
product of the two coefficients (Bullet multiplies them). Its energy per unit mass
that could carry it back toward its space is its spin's (at most
``k_max^2 |w|^2 / 2``, ``k_max`` the largest radius of gyration), its velocity's
across the axis, and the fall of its centre of mass to the lowest it can lie
(``g (z - inner)``); friction spends it within ``e / (mu g)``. Its velocity along
the axis carries it away, not back, and counts only toward its reach. Pure numpy:
no physics here, so the rule is tested on states made by hand.

The bale has an early verdict of its own, for worlds that need not follow it to
rest (hit maps): lying on the board with nothing but the board within
:func:`touch_radius_mm`, it can strike nothing more. The questions to Bullet (what is
near, what touches) are :mod:`sim.physics.bullet.early_verdict`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.physics.ballistics import GRAVITY_MM_S2


@dataclass(frozen=True)
class PiggyShape:
    """What the early verdict needs of the piggy's shape (or the bale's), about its
    centre of mass, mm.

    ``inner_radius_mm``: the largest ball around the centre inside the hull of its
    parts (also the lowest its centre can lie on a flat surface); ``outer_radius_mm``:
    the farthest vertex from the centre.
    """

    inner_radius_mm: float
    outer_radius_mm: float

    @classmethod
    def of(cls, parts_mm: list[np.ndarray]) -> PiggyShape:
        """From the convex parts' vertices (n_i, 3) in a frame centred on the centre of mass."""
        from scipy.spatial import ConvexHull

        vertices = np.vstack(parts_mm)
        hull = ConvexHull(vertices)
        # facets as n . x + offset <= 0 inside, unit n: the centre is -offset from each
        return cls(
            inner_radius_mm=float(np.min(-hull.equations[:, 3])),
            outer_radius_mm=float(np.max(np.linalg.norm(vertices, axis=1))),
        )


@dataclass(frozen=True)
class Motion:
    """A piggy's state: centre of mass (x, y, z), mm, board frame (z = 0 on the board's
    top); velocity, mm/s; spin, rad/s; the largest principal moment of inertia over
    its mass, mm^2. Plain floats: this is looked at every tenth step."""

    centre_mm: tuple[float, float, float]
    velocity_mm_s: tuple[float, float, float]
    spin_rad_s: tuple[float, float, float]
    gyration_sq_mm2: float


def knocked_out_beyond_mm(
    shape: PiggyShape, space_mm: float, line_mm: float, hit_rule: str
) -> float:
    """How far from its space's centre, along x or y, the centre of mass of a piggy is
    knocked out whatever its orientation (mm; module docstring)."""
    if hit_rule == "touches-line":
        return space_mm / 2 - line_mm / 2 - shape.inner_radius_mm
    return space_mm / 2 + shape.outer_radius_mm  # cleared


@dataclass(frozen=True)
class LayoutBounds:
    """What the early verdict's checks need of a layout, in any engine: the piggy's
    and the bale's outlines, how far from its space's centre a piggy is surely out
    (mm), and each piggy's space's centre (mm)."""

    shape: PiggyShape
    bale_outline: PiggyShape
    beyond_mm: float
    centres: dict[str, tuple[float, ...]]

    @classmethod
    def of(cls, scene) -> LayoutBounds:
        """From a scene of either engine (its piggy model, design, board, layout and
        hit rule)."""
        from models.meshes import hay_bale

        shape = PiggyShape.of(list(scene.model.parts_mm))
        bale = scene.design.bale
        outline = hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)
        board, layout = scene.board, scene.layout
        return cls(
            shape,
            PiggyShape.of([outline.vertices]),
            knocked_out_beyond_mm(shape, board.space_mm, board.line_mm, scene.hit_rule),
            {
                p: tuple(map(float, board.space_center_mm(layout.space_of(p))))
                for p in layout.piggies
            },
        )


def travel_mm(motion: Motion, shape: PiggyShape, friction: float, axis: int) -> tuple[float, float]:
    """How far (mm) the piggy could still travel against friction ``friction`` (the
    product of its and the surface's coefficients): ``(back, anywhere)``, where
    ``back`` leaves out the energy of its velocity along ``axis`` (0: x, 1: y)."""
    if friction <= 0:
        return math.inf, math.inf
    vx, vy, vz = motion.velocity_mm_s
    wx, wy, wz = motion.spin_rad_s
    fall = max(0.0, motion.centre_mm[2] - shape.inner_radius_mm)
    along = motion.velocity_mm_s[axis] ** 2
    # energy per unit mass, mm^2/s^2
    back = (
        vx * vx + vy * vy + vz * vz - along + motion.gyration_sq_mm2 * (wx * wx + wy * wy + wz * wz)
    ) / 2 + GRAVITY_MM_S2 * fall
    braking = friction * GRAVITY_MM_S2
    return back / braking, (back + along / 2) / braking


def outward_axis(motion: Motion, space_centre_mm, beyond_mm: float) -> int | None:
    """The axis (0: x, 1: y) along which the centre is past ``beyond_mm`` from its
    space's centre and moving away from it; ``None`` when there is none. Being past
    is necessary for :func:`sealed_touch_radius_mm` and cheap: looked at first."""
    for axis in (0, 1):
        offset = motion.centre_mm[axis] - space_centre_mm[axis]
        if abs(offset) >= beyond_mm and offset * motion.velocity_mm_s[axis] > 0:
            return axis
    return None


def sealed_touch_radius_mm(
    motion: Motion, space_centre_mm, shape: PiggyShape, friction: float, beyond_mm: float
) -> float | None:
    """Conditions 2 and 3 of the module docstring, for a piggy knocked out whatever its
    orientation beyond ``beyond_mm`` (:func:`knocked_out_beyond_mm`): ``None`` when its
    knock-out is not yet certain to stand; otherwise the distance (mm, from its centre
    of mass) within which nothing may be for it to be sealed (condition 4)."""
    axis = outward_axis(motion, space_centre_mm, beyond_mm)
    if axis is None:
        return None
    back, anywhere = travel_mm(motion, shape, friction, axis)
    if abs(motion.centre_mm[axis] - space_centre_mm[axis]) - back < beyond_mm:
        return None
    return shape.outer_radius_mm + anywhere


def touch_radius_mm(motion: Motion, shape: PiggyShape, friction: float) -> float:
    """How far from its centre (mm) a body lying on the ground could still touch
    something: the sphere that holds every vertex plus the distance it could still
    travel in any direction against friction ``friction`` (:func:`travel_mm`). The
    bale's early verdict: with nothing but the board within it, the bale can strike
    nothing more. (A radius around the body, not the launcher's reach across the
    board, :func:`sim.physics.aim.reach_mm`.)"""
    return shape.outer_radius_mm + travel_mm(motion, shape, friction, 0)[1]
