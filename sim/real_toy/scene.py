"""What a camera sees of the still scene, drawn once per video: the board's top
(its margins, its spaces faintly outlined, the holes dark), the markers taped where
:mod:`sim.real_toy.markers` puts them, the fences, the table around the board and the
wall beyond, under the light; and the bale drawn into a frame at one moment.

The still scene is ray-cast: every pixel's viewing ray (:meth:`Camera.rays`) meets
the board's plane z = 0 or, off the board, the table's plane (the board's
thickness lower), and the colour there is computed where it lands, at twice the
video's resolution and averaged down (no texture is resampled, so the markers'
edges are as sharp as the optics allow). The light is a brightness gain over the
image: a gradient across it (a window to one side) and a vignette (a phone's lens
darkens its corners).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.grid import Board
from sim.real_toy.camera import Camera
from sim.real_toy.defaults import GRADIENT, VIGNETTE
from sim.real_toy.markers import QUIET_MODULES, MarkerLayout, marker_modules

#: Colours as drawn (RGB 0-255): a green board, paler spaces, their outline, the
#: tractor's hole, the fences, a wooden table, a pale wall; the bale's straw.
BOARD_RGB = np.array([92, 140, 74], float)
SPACE_RGB = np.array([112, 160, 88], float)
LINE_RGB = np.array([70, 104, 58], float)
HOLE_RGB = np.array([38, 36, 34], float)
FENCE_RGB = (122, 74, 30)
TABLE_RGB = np.array([150, 112, 78], float)
WALL_RGB = np.array([196, 196, 188], float)
BALE_RGB = np.array([237, 204, 77], float)
TRACTOR_RGB = np.array([110, 110, 124], float)
#: How much of the light a shadow takes away where the bale is on the board.
SHADOW_DEPTH = 0.45
#: Supersampling of the still scene, per side.
SUPERSAMPLE = 2


@dataclass(frozen=True)
class Lighting:
    """The light: ``gradient`` the brightness change from the image's left edge to
    its right (0.3: from 0.85 to 1.15 of the mean), ``vignette`` the darkening of its
    corners (0.3: corners at 0.7)."""

    gradient: float = GRADIENT
    vignette: float = VIGNETTE

    def gain(self, width: int, height: int) -> np.ndarray:
        """The brightness gain at each pixel (height, width), float32."""
        u = np.linspace(-1.0, 1.0, width)
        v = np.linspace(-1.0, 1.0, height)
        r2 = (u[None, :] ** 2 + v[:, None] ** 2) / 2
        return ((1 + self.gradient / 2 * u[None, :]) * (1 - self.vignette * r2)).astype(np.float32)


def still_scene(
    camera: Camera, board: Board, layout: MarkerLayout, lighting: Lighting
) -> np.ndarray:
    """The board, markers, fences, table and wall as the camera sees them, lit:
    (height, width, 3) uint8 RGB."""
    import cv2

    big = Camera(
        camera.position_mm,
        camera.look_at_mm,
        camera.fov_deg,
        camera.width * SUPERSAMPLE,
        camera.height * SUPERSAMPLE,
    )
    ray_x, ray_y, ray_z = (part.ravel() for part in big.rays())
    cx, cy, cz = camera.position_mm
    down = ray_z < -1e-9  # the rays that meet the board's plane (the rest, the wall)
    reach = np.where(down, -cz / np.where(down, ray_z, -1.0), np.float32(np.nan))
    x, y = cx + reach * ray_x, cy + reach * ray_y
    x_min, x_max, y_min, y_max = board.surface_extent_mm
    on_board = down & (x >= x_min) & (x <= x_max) & (y >= y_min) & (y <= y_max)
    points = np.column_stack([x[on_board], y[on_board]])
    colours = np.tile(WALL_RGB.astype(np.float32), (len(x), 1))
    colours[down] = TABLE_RGB  # off the board, a ray goes on down to the table
    colours[on_board] = _surface_colours(points, board, layout)
    image = cv2.resize(
        colours.reshape(big.height, big.width, 3),
        (camera.width, camera.height),
        interpolation=cv2.INTER_AREA,
    )
    _draw_fences(image, camera, board)
    image *= lighting.gain(camera.width, camera.height)[..., None]
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


def _surface_colours(points: np.ndarray, board: Board, layout: MarkerLayout) -> np.ndarray:
    """The colour (n, 3) at each point (n, 2) of the board's top, mm."""
    x, y = points[:, 0], points[:, 1]
    colours = np.tile(BOARD_RGB, (len(points), 1))
    gx0, _, gy0, _ = board.grid_extent_mm
    s = board.space_mm
    col = np.floor((x - gx0) / s)
    row = np.floor((y - gy0) / s)
    on_grid = (col >= 0) & (col < board.cols) & (row >= 0) & (row < board.rows)
    hole = np.zeros(len(points), bool)
    for r, c in board.holes:
        hole |= on_grid & (row == r) & (col == c)
    colours[on_grid & ~hole] = SPACE_RGB
    colours[hole] = HOLE_RGB
    # the painted outline: within half a line's width of a grid line
    half_line = max(board.line_mm, 0.8) / 2
    near_x = np.abs((x - gx0) - np.round((x - gx0) / s) * s) <= half_line
    near_y = np.abs((y - gy0) - np.round((y - gy0) / s) * s) <= half_line
    grid_box = (
        (x >= gx0 - half_line)
        & (x <= gx0 + board.cols * s + half_line)
        & (y >= gy0 - half_line)
        & (y <= gy0 + board.rows * s + half_line)
    )
    colours[grid_box & ~hole & (near_x | near_y)] = LINE_RGB
    for marker in layout.markers:
        modules = marker_modules(layout, marker.id).astype(float)
        n = len(modules)
        module_mm = marker.side_mm / (n - 2 * QUIET_MODULES)
        left = marker.centre_mm[0] - n * module_mm / 2
        top = marker.centre_mm[1] + n * module_mm / 2
        i = np.floor((top - y) / module_mm)  # image row 0 toward +y
        j = np.floor((x - left) / module_mm)
        on_paper = (i >= 0) & (i < n) & (j >= 0) & (j < n)
        value = modules[i[on_paper].astype(int), j[on_paper].astype(int)]
        # printed black is a dark grey, paper a bright white, as a camera sees them
        colours[on_paper] = (28 + value[:, None] / 255 * (236 - 28)) * np.ones(3)
    return colours


def _draw_fences(image: np.ndarray, camera: Camera, board: Board) -> None:
    """Each fence as a solid wall, its faces filled (they stand on the board, nothing
    of the still scene is in front of them)."""
    import cv2

    half = board.fence_thickness_mm / 2
    for a, b in board.fence_segments_mm():
        along = (b - a) / np.linalg.norm(b - a)
        across = np.array([-along[1], along[0]]) * half
        base = [a + across, b + across, b - across, a - across]
        corners = np.array(
            [[*p, z] for z in (0.0, board.fence_height_mm) for p in base], dtype=float
        )
        pixels = camera.project(corners)
        if not np.isfinite(pixels).all():
            continue
        hull = cv2.convexHull(np.round(pixels * 16).astype(np.int32))
        cv2.fillConvexPoly(image, hull, FENCE_RGB, cv2.LINE_AA, 4)


def with_tractor(
    still: np.ndarray,
    camera: Camera,
    parts_mm: list[np.ndarray],
    yaw_deg: float,
    gain: np.ndarray,
) -> np.ndarray:
    """The still scene with the tractor on it, turned to ``yaw_deg``: each of its
    convex parts (tractor frame, mm) filled in grey, the farthest first, the higher
    ones lighter. The bale is drawn over it (its release is at the muzzle, in front)."""
    import cv2

    image = still.copy()
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    placed = [part @ turn.T for part in parts_mm]
    eye = np.asarray(camera.position_mm, float)
    placed.sort(key=lambda part: -float(np.linalg.norm(part.mean(axis=0) - eye)))
    top = max(float(part[:, 2].max()) for part in placed) or 1.0
    for part in placed:
        outline = camera.project(part)
        centre = camera.project(part.mean(axis=0))
        if not (np.isfinite(outline).all() and np.isfinite(centre).all()):
            continue
        u = int(np.clip(centre[0], 0, camera.width - 1))
        v = int(np.clip(centre[1], 0, camera.height - 1))
        shade = (0.7 + 0.3 * float(part[:, 2].mean()) / top) * float(gain[v, u])
        polygon = cv2.convexHull(np.round(outline * 16).astype(np.int32))
        cv2.fillConvexPoly(
            image, polygon, tuple(float(x) for x in TRACTOR_RGB * shade), cv2.LINE_AA, 4
        )
        cv2.polylines(image, [polygon], True, (40, 40, 44), 1, cv2.LINE_AA, 4)
    return image
