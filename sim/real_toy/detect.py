"""The board's markers in a video frame, and the camera's pose from them.

The camera looks at ArUco markers taped at known places on the board (their
corners in the board frame, mm). OpenCV finds their corners in the image and
``solvePnP`` gives the pose. The intrinsics come from a phone's calibration
(``--camera-file``) or are estimated: square pixels, the principal point at the
image centre, no distortion, and the focal length that makes the markers'
reprojection best (the markers are seen at a slant, so perspective fixes it).
A pose that cannot be right (markers that do not fit one plane as laid out, or a
camera below the board) is refused rather than used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.errors import InputError
from models.files import read_json, read_toml
from models.text import shown
from sim.real_toy.markers import MarkerLayout

#: Fewest markers the pose is solved from (4 corners each): two leave the focal
#: length and the tilt poorly separated.
MIN_MARKERS = 3
#: Largest rms reprojection of the marker corners, as a fraction of the markers'
#: mean side in the image, before the markers are called misplaced.
MAX_REPROJECTION_FRACTION = 0.05
#: ... and at least this many pixels (small markers' corners are found to a pixel).
MIN_REPROJECTION_LIMIT_PX = 2.0


@dataclass(frozen=True)
class Intrinsics:
    """A pinhole camera: focal lengths and principal point in pixels, OpenCV's
    distortion coefficients (k1, k2, p1, p2[, k3])."""

    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1.0]])

    @property
    def dist(self) -> np.ndarray:
        return np.array(self.distortion, float)


@dataclass(frozen=True)
class CameraPose:
    """The camera seen from the board: intrinsics, the board-to-camera rotation
    and translation (OpenCV's rvec/tvec, mm), and how well the markers fit."""

    intrinsics: Intrinsics
    rvec: np.ndarray
    tvec: np.ndarray
    reprojection_px: float
    markers_seen: tuple[int, ...]

    @property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's position in the board frame, mm."""
        return (-self.rotation.T @ self.tvec.reshape(3)).reshape(3)

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Board-frame points (n, 3) to pixels (n, 2)."""
        pts = np.asarray(points_mm, float).reshape(-1, 1, 3)
        image, _ = cv2.projectPoints(
            pts, self.rvec, self.tvec, self.intrinsics.matrix, self.intrinsics.dist
        )
        return image.reshape(-1, 2)

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """Unit directions (n, 3), board frame, of the rays through pixels (n, 2)."""
        pts = np.asarray(pixels, float).reshape(-1, 1, 2)
        k = self.intrinsics
        normalised = cv2.undistortPoints(pts, k.matrix, k.dist).reshape(-1, 2)
        camera_dirs = np.column_stack([normalised, np.ones(len(normalised))])
        dirs = camera_dirs @ self.rotation  # R^T d for each row
        return dirs / np.linalg.norm(dirs, axis=1, keepdims=True)

    def on_plane(self, pixels: np.ndarray, height_mm: float) -> np.ndarray:
        """Where the rays through pixels meet the plane z = height_mm (n, 3)."""
        dirs = self.rays(pixels)
        centre = self.centre_mm
        t = (height_mm - centre[2]) / dirs[:, 2]
        return centre + t[:, None] * dirs


#: A camera file's fx, fy, cx and cy, pixels: the least and the most allowed (a
#: focal length of 1 px or 1e300 px is no phone's).
CAMERA_PIXELS = (1.0, 100_000.0)


def read_camera_file(path: str | Path) -> Intrinsics:
    """A phone's calibration, JSON or TOML: ``fx``, ``fy``, ``cx``, ``cy`` (pixels,
    at the video's size) and optional ``distortion`` (OpenCV's k1, k2, p1, p2[, k3])."""
    path = Path(path)
    # read as every input is (models/files.py): no FIFO, device or huge or deep file
    reader = read_toml if path.suffix.lower() == ".toml" else read_json
    data = reader(path, "camera")
    if not isinstance(data, dict):
        raise InputError(f"--camera-file {shown(str(path))}: expected fx, fy, cx, cy")
    values = {}
    low, high = CAMERA_PIXELS
    for key in ("fx", "fy", "cx", "cy"):
        value = data.get(key)
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)  # "fx": true is no focal length
            or not low <= value <= high  # NaN fails both
        ):
            raise InputError(
                f"--camera-file {shown(str(path))}: '{key}' must be a number of pixels from "
                f"{low:g} to {high:g}, got {shown(value, 40)}"
            )
        values[key] = float(value)
    distortion = data.get("distortion", [0.0] * 5)
    if (
        not isinstance(distortion, list)
        or len(distortion) not in (4, 5, 8)
        or not all(isinstance(d, int | float) and math.isfinite(d) for d in distortion)
    ):
        raise InputError(
            f"--camera-file {shown(str(path))}: 'distortion' must be 4, 5 or 8 numbers "
            "(OpenCV's k1, k2, p1, p2, k3...)"
        )
    return Intrinsics(**values, distortion=tuple(float(d) for d in distortion))


def find_markers(gray: np.ndarray, layout: MarkerLayout) -> dict[int, np.ndarray]:
    """The layout's markers found in a grey frame: id -> (4, 2) corner pixels
    (sub-pixel refined). Markers of other ids are left out."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary, parameters)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    found = {}
    for marker_id, marker_corners in zip(ids.ravel().tolist(), corners, strict=True):
        if marker_id in layout.ids:
            found[int(marker_id)] = marker_corners.reshape(4, 2).astype(float)
    return found


def check_enough(found: dict[int, np.ndarray], layout: MarkerLayout, frames: int) -> None:
    """Refuse too few markers, naming how many were found and which are expected."""
    expected = sorted(layout.ids)
    if len(found) >= MIN_MARKERS:
        return
    seen = f"only {len(found)} ({', '.join(map(str, sorted(found)))})" if found else "none"
    raise InputError(
        f"markers: {seen} of the board's {len(expected)} markers (ids "
        f"{', '.join(map(str, expected))}) found in the first {frames} frames; at least "
        f"{MIN_MARKERS} must be in view, flat and unhidden (docs/real-toy.md, "
        "'Measuring from a video')"
    )


def solve_pose(
    found: dict[int, np.ndarray],
    layout: MarkerLayout,
    size: tuple[int, int],
    intrinsics: Intrinsics | None = None,
) -> CameraPose:
    """The camera's pose from the markers found (id -> corner pixels) in an image of
    ``size`` (width, height); the focal length is estimated when no intrinsics
    are given. Refuses a pose that cannot be right."""
    ids = sorted(found)
    board = np.concatenate([layout.by_id(i).corners_mm() for i in ids]).astype(float)
    image = np.concatenate([found[i] for i in ids]).astype(float)
    width, height = size
    if intrinsics is None:
        intrinsics = _estimate_intrinsics(board, image, width, height)
    rvec, tvec, error = _pose(board, image, intrinsics)
    pose = CameraPose(intrinsics, rvec, tvec, error, tuple(ids))
    sides = [np.linalg.norm(np.roll(found[i], 1, axis=0) - found[i], axis=1).mean() for i in ids]
    limit = max(MIN_REPROJECTION_LIMIT_PX, MAX_REPROJECTION_FRACTION * float(np.mean(sides)))
    if error > limit:
        raise InputError(
            f"markers at impossible places: they fit the board's layout to {error:.1f} px "
            f"rms (at most {limit:.1f} px); a marker was moved, "
            "turned or printed at another scale (docs/real-toy.md gives their places)"
        )
    if pose.centre_mm[2] <= 0:
        raise InputError(
            "markers at impossible places: the pose they give puts the camera under "
            f"the board (z = {pose.centre_mm[2]:.0f} mm); check the markers' ids and places"
        )
    return pose


def _pose(board: np.ndarray, image: np.ndarray, k: Intrinsics):
    ok, rvec, tvec = cv2.solvePnP(board, image, k.matrix, k.dist, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return np.zeros(3), np.zeros(3), math.inf
    rvec, tvec = cv2.solvePnPRefineLM(board, image, k.matrix, k.dist, rvec, tvec)
    projected, _ = cv2.projectPoints(board, rvec, tvec, k.matrix, k.dist)
    error = float(np.sqrt(np.mean(np.sum((projected.reshape(-1, 2) - image) ** 2, axis=1))))
    return rvec.reshape(3), tvec.reshape(3), error


def _estimate_intrinsics(board, image, width: int, height: int) -> Intrinsics:
    """The focal length (square pixels, centred principal point, no distortion)
    whose pose reprojects the markers best: a coarse search over fields of view
    from 20 to 120 degrees, then a golden-section refinement."""
    cx, cy = width / 2, height / 2

    def error(focal: float) -> float:
        return _pose(board, image, Intrinsics(focal, focal, cx, cy))[2]

    fovs = np.radians(np.linspace(20, 120, 41))
    focals = width / (2 * np.tan(fovs / 2))
    errors = [error(f) for f in focals]
    best = int(np.argmin(errors))
    lo, hi = focals[min(best + 1, len(focals) - 1)], focals[max(best - 1, 0)]
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    ea, eb = error(a), error(b)
    for _ in range(40):
        if ea < eb:
            hi, b, eb = b, a, ea
            a = hi - ratio * (hi - lo)
            ea = error(a)
        else:
            lo, a, ea = a, b, eb
            b = lo + ratio * (hi - lo)
            eb = error(b)
    focal = (lo + hi) / 2
    return Intrinsics(focal, focal, cx, cy)
