"""Solid bodies drawn into a film's frames: the tractor's and the piggies' convex
parts, each filled in its colour, with a depth per pixel so that what is drawn
later is hidden where something nearer was drawn before.

Occlusion is a painter's order by part, kept in a depth image: every convex part
has one depth (the distance from the camera to its centre), parts are filled
farthest first, and a pixel takes a part's colour only where the part is nearer
than what that pixel already shows. The board, table and wall are at infinite
depth. For these small convex parts (a piggy's body, head, legs; the tractor's
boxes and wheels) one depth a part orders them as the eye does wherever two do
not interpenetrate, which the physics keeps them from; and because the depth is
kept, bodies drawn into a frame over a background drawn once (the piggies that
move, the bale) are hidden by the still ones in front of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.real_toy.camera import Camera

#: A part's outline is drawn this much darker than its face (the parts read apart).
EDGE_SHADE = 0.7


@dataclass(frozen=True)
class Part:
    """One convex part to draw: its vertices (n, 3), board frame, mm, its colour
    (RGB 0-255, before the light) and how light its face is (0-1.2)."""

    points_mm: np.ndarray
    rgb: np.ndarray
    shade: float = 1.0


def quat_rotation(q: np.ndarray) -> np.ndarray:
    """The rotation matrix (3, 3) of an (x, y, z, w) quaternion."""
    x, y, z, w = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def piggy_rgb(name: str) -> np.ndarray:
    """A piggy's colour by the colour in its name (``gold-2``), RGB 0-255."""
    from sim.colours import PIGGY_RGBA

    return np.array(PIGGY_RGBA[name.split("-")[0]][:3], float) * 255


def piggy_parts(parts_mm: Sequence[np.ndarray], rotation, position, name: str) -> list[Part]:
    """A piggy's convex parts (body frame, mm) at a pose, in its colour, the higher
    parts a little lighter (the light comes from above)."""
    rgb = piggy_rgb(name)
    placed = [p @ np.asarray(rotation).T + np.asarray(position) for p in parts_mm]
    low = min(float(p[:, 2].min()) for p in placed)
    high = max(float(p[:, 2].max()) for p in placed)
    span = max(high - low, 1e-6)
    return [Part(p, rgb, 0.8 + 0.25 * (float(p[:, 2].mean()) - low) / span) for p in placed]


def far_depth(camera: Camera) -> np.ndarray:
    """A depth image (height, width) with nothing drawn: every pixel at infinity."""
    return np.full((camera.height, camera.width), np.inf, np.float32)


def paint(
    image: np.ndarray,
    depth: np.ndarray,
    camera: Camera,
    parts: Sequence[Part],
    gain: np.ndarray,
    edges: bool = True,
) -> None:
    """Fill ``parts`` into ``image`` (RGB uint8) and ``depth`` (float32) in place,
    farthest first, each only where it is nearer than what is there."""
    import cv2

    eye = np.asarray(camera.position_mm, float)
    height, width = depth.shape
    ordered = sorted(parts, key=lambda p: -float(np.linalg.norm(p.points_mm.mean(axis=0) - eye)))
    for part in ordered:
        centre3 = part.points_mm.mean(axis=0)
        distance = float(np.linalg.norm(centre3 - eye))
        outline = camera.project(part.points_mm)
        centre = camera.project(centre3)
        if not (np.isfinite(outline).all() and np.isfinite(centre).all()):
            continue
        x0, y0 = np.floor(outline.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        if x1 <= x0 or y1 <= y0:
            continue
        u = int(np.clip(centre[0], 0, width - 1))
        v = int(np.clip(centre[1], 0, height - 1))
        colour = np.clip(part.rgb * part.shade * float(gain[v, u]), 0, 255)
        polygon = cv2.convexHull(np.round((outline - [x0, y0]) * 16).astype(np.int32))
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, polygon, 255, cv2.LINE_8, 4)
        tile = image[y0:y1, x0:x1]
        face = np.empty_like(tile)
        face[:] = colour.astype(np.uint8)
        if edges:
            edge = tuple(float(c) for c in colour * EDGE_SHADE)
            cv2.polylines(face, [polygon], True, edge, 1, cv2.LINE_AA, 4)
        nearer = (mask > 0) & (distance < depth[y0:y1, x0:x1])
        tile[nearer] = face[nearer]
        depth[y0:y1, x0:x1][nearer] = distance


def projected_box(camera: Camera, parts: Sequence[Part]) -> tuple[slice, slice] | None:
    """The rows and columns that ``parts`` cover in the picture (None: none)."""
    if not parts:
        return None
    pixels = camera.project(np.vstack([p.points_mm for p in parts]))
    pixels = pixels[np.isfinite(pixels).all(axis=1)]
    if len(pixels) == 0:
        return None
    x0, y0 = np.floor(pixels.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(pixels.max(axis=0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, camera.width), min(y1, camera.height)
    if x1 <= x0 or y1 <= y0:
        return None
    return slice(y0, y1), slice(x0, x1)
