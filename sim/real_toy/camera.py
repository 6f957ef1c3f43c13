"""A pinhole camera over the board: where it stands, what it looks at, its field of
view and its image size; what it sees of a point.

The conventions are OpenCV's, so that a pose solver's answer compares directly:
camera axes x to the right of the image, y down, z forward along the optical
axis; a pixel's centre at whole coordinates, the image's edges at -0.5 and
width - 0.5. The intrinsic matrix ``K`` has one focal length ``f`` (square
pixels), the principal point at the image's centre; ``fov_deg`` is the horizontal
field of view, edge to edge. The pose maps a board-frame point X (mm) to the
camera frame as ``R @ X + t``. The camera is upright: the board's +z points up
in the image (a camera looking straight down has +y up in the image instead).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from models.errors import InputError
from sim.real_toy.defaults import FOV_RANGE_DEG, HEIGHT_RANGE, WIDTH_RANGE

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Camera:
    """A camera at ``position_mm`` looking at ``look_at_mm`` (board frame, mm), with a
    horizontal field of view of ``fov_deg`` and an image ``width`` x ``height`` px.
    Build it with :func:`make_camera`, which checks it."""

    position_mm: tuple[float, float, float]
    look_at_mm: tuple[float, float, float]
    fov_deg: float
    width: int
    height: int

    @property
    def focal_px(self) -> float:
        return (self.width / 2) / math.tan(math.radians(self.fov_deg) / 2)

    @cached_property
    def K(self) -> np.ndarray:
        """The intrinsic matrix (3, 3)."""
        import numpy as np

        f = self.focal_px
        return np.array(
            [[f, 0.0, (self.width - 1) / 2], [0.0, f, (self.height - 1) / 2], [0.0, 0.0, 1.0]]
        )

    @cached_property
    def R(self) -> np.ndarray:
        """The rotation (3, 3) from the board frame to the camera's: its rows are the
        camera's right, down and forward axes in the board frame."""
        import numpy as np

        forward = np.subtract(self.look_at_mm, self.position_mm)
        forward = forward / np.linalg.norm(forward)
        up = np.array([0.0, 0.0, 1.0])
        if np.linalg.norm(np.cross(forward, up)) < 1e-6:  # straight down (or up)
            up = np.array([0.0, 1.0, 0.0])
        right = np.cross(forward, up)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        return np.array([right, down, forward])

    @cached_property
    def t(self) -> np.ndarray:
        """The translation (3,): ``R @ X + t`` is a board point in the camera frame."""
        import numpy as np

        return -self.R @ np.asarray(self.position_mm, float)

    def to_camera(self, points_mm) -> np.ndarray:
        """Board-frame points (..., 3), mm, in the camera frame (..., 3), mm."""
        import numpy as np

        return np.asarray(points_mm, float) @ self.R.T + self.t

    def project(self, points_mm) -> np.ndarray:
        """The pixels (..., 2) where board-frame points (..., 3) land; a point behind
        the camera gets NaN."""
        import numpy as np

        cam = self.to_camera(points_mm)
        z = cam[..., 2:3]
        in_front = z > 1e-9
        uvw = cam @ self.K.T
        with np.errstate(divide="ignore", invalid="ignore"):
            pixels = uvw[..., :2] / np.where(in_front, z, np.nan)
        return pixels

    def board_homography(self) -> np.ndarray:
        """The homography (3, 3) from the board plane z = 0 (x, y in mm) to pixels."""
        import numpy as np

        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])

    def rays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each pixel's viewing direction in the board frame, as its x, y and z parts
        (each (height, width), float32), not normalised (its camera-frame z is 1)."""
        import numpy as np

        to_board = self.R.T @ np.linalg.inv(self.K)  # a pixel (u, v, 1) to its ray
        u = np.arange(self.width, dtype=np.float32)[None, :]
        v = np.arange(self.height, dtype=np.float32)[:, None]
        a = to_board.astype(np.float32)
        return tuple(a[i, 0] * u + (a[i, 1] * v + a[i, 2]) for i in range(3))


def make_camera(position_mm, look_at_mm, fov_deg: float, width: int, height: int) -> Camera:
    """A checked :class:`Camera`: each bad setting is one :class:`InputError` line
    naming it and what is allowed."""
    px, py, pz = (float(v) for v in position_mm)
    lx, ly, lz = (float(v) for v in look_at_mm)
    position, look_at = (px, py, pz), (lx, ly, lz)
    if not all(math.isfinite(v) for v in (*position, *look_at)):
        raise InputError("--camera-at and --look-at must be finite numbers, mm")
    lo, hi = FOV_RANGE_DEG
    if not lo < fov_deg < hi:
        raise InputError(
            f"--fov {fov_deg:g} is out of range: more than {lo:g} and less than {hi:g} degrees"
        )
    for name, value, (least, most) in (
        ("width", width, WIDTH_RANGE),
        ("height", height, HEIGHT_RANGE),
    ):
        if not least <= value <= most or value % 2:
            raise InputError(
                f"--size: a {name} of {value} px is not allowed: "
                f"an even number from {least} to {most}"
            )
    if position[2] <= 0:
        raise InputError(
            f"--camera-at z = {position[2]:g} mm is on or under the board: the camera must be "
            "above its surface (z > 0)"
        )
    if math.dist(position, look_at) < 1.0:
        raise InputError(
            "--camera-at and --look-at are the same point: the camera must look somewhere"
        )
    return Camera(position, look_at, float(fov_deg), int(width), int(height))
