"""The bale drawn into ``piggy film``'s frames (sim/real_toy/film.py films the shots):
its pose at any time from the shot's record, its convex hull and its shadow
straight below it blurred over the exposure and placed by the rolling shutter,
hidden where a nearer body is drawn; and the sensor noise laid on every frame."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.physics.results import ShotResult
from sim.real_toy.bodies import quat_rotation
from sim.real_toy.camera import Camera
from sim.real_toy.scene import BALE_RGB, SHADOW_DEPTH

#: Frames of noise drawn once and taken in a seeded random order.
NOISE_BANK = 8
#: Above this height (mm) the bale casts no shadow the camera can see; below it the
#: shadow darkens as the bale comes down.
SHADOW_HEIGHT_MM = 150.0


@dataclass(frozen=True)
class Exposure:
    """How a frame of a film is exposed (sim/real_toy/film.py's ``FilmSettings.exposed``):
    the frames a second, the shutter open for ``exposure`` of a period, the renders
    averaged over that time, and the rolling shutter's readout, a share of the period."""

    fps: int
    exposure: float
    blur_samples: int
    rolling_shutter: float


class Noise:
    """Sensor noise from a bank of frames drawn once, taken in a seeded random order:
    two saturating uint8 operations a frame (cheap at 1080p)."""

    def __init__(self, camera: Camera, sd: float, rng: np.random.Generator):
        self._rng = rng
        self._bank: list[tuple[np.ndarray, np.ndarray]] = []
        self._now: tuple[np.ndarray, np.ndarray] | None = None
        shape = (camera.height, camera.width, 3)
        for _ in range(NOISE_BANK if sd > 0 else 0):
            values = np.rint(rng.standard_normal(shape, dtype=np.float32) * sd)
            np.clip(values, -255, 255, out=values)
            self._bank.append(
                (values.clip(0, None).astype(np.uint8), (-values).clip(0, None).astype(np.uint8))
            )

    def draw(self, still: np.ndarray, frame: np.ndarray) -> None:
        """Start a frame: ``frame`` becomes ``still`` with this frame's noise."""
        import cv2

        if not self._bank:
            np.copyto(frame, still)
            return
        self._now = self._bank[int(self._rng.integers(len(self._bank)))]
        up, down = self._now
        cv2.add(still, up, dst=frame)
        cv2.subtract(frame, down, dst=frame)

    def add(self, picture: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
        """This frame's noise added to a part of it drawn anew (at ``rows``, ``cols``)."""
        import cv2

        if self._now is None:
            return picture
        up, down = self._now
        return cv2.subtract(cv2.add(picture, up[rows, cols]), down[rows, cols])


def _bale_pose(shot: ShotResult, time_s: float) -> tuple[np.ndarray, np.ndarray, bool]:
    """The bale's centre (3,), mm, rotation (3, 3) and whether it is in play, at a
    time after release: positions interpolated between the recorded steps, the
    orientation of the nearer one; after the record's end, as it ended."""
    rec = shot.recording
    assert rec is not None
    at = min(max(time_s / rec.dt_s, 0.0), rec.frames - 1.0)
    k = min(int(at), rec.frames - 2) if rec.frames > 1 else 0
    f = at - k if rec.frames > 1 else 0.0
    position = (
        rec.bale_mm[k] if rec.frames == 1 else (1 - f) * rec.bale_mm[k] + f * rec.bale_mm[k + 1]
    )
    nearer = k if f < 0.5 else k + 1
    return position, quat_rotation(rec.bale_quat[nearer]), bool(rec.bale_in_play[k])


def draw_bale(
    still: np.ndarray,
    gain: np.ndarray,
    camera: Camera,
    hull_mm: np.ndarray,
    shot: ShotResult,
    time_s: float,
    exposed: Exposure,
    depth: np.ndarray | None = None,
) -> tuple[slice, slice, np.ndarray] | None:
    """The bale and its shadow drawn on the still scene, blurred over the exposure and
    placed by the rolling shutter: the rows and columns of the part drawn anew and
    that part (uint8 RGB); None when the bale is not in the picture. With the
    scene's ``depth`` (:mod:`sim.real_toy.bodies`), the bale is hidden where a body
    nearer than its centre is drawn, and its shadow falls on the board only."""
    import cv2

    samples = exposed.blur_samples if exposed.exposure > 0 else 1
    period = 1.0 / exposed.fps
    shapes = []  # per sample: the bale's outline, its shadow's, the shadow's depth, its gain
    for k in range(samples):
        t = time_s + exposed.exposure * period * (k + 0.5) / samples
        centre, _, in_play = _bale_pose(shot, t)
        pixel = camera.project(centre)
        if exposed.rolling_shutter > 0 and np.isfinite(pixel).all():
            row = min(max(pixel[1], 0.0), camera.height - 1.0)
            t += exposed.rolling_shutter * period * row / camera.height
        centre, rotation, in_play = _bale_pose(shot, t)
        if not in_play:
            continue
        points = centre + hull_mm @ rotation.T
        outline = camera.project(points)
        ground = points.copy()
        ground[:, 2] = 0.0
        shadow = camera.project(ground)
        if not (np.isfinite(outline).all() and np.isfinite(shadow).all()):
            continue
        shade = SHADOW_DEPTH * max(0.0, 1.0 - centre[2] / SHADOW_HEIGHT_MM)
        u, v = camera.project(centre)
        lit = gain[int(np.clip(v, 0, camera.height - 1)), int(np.clip(u, 0, camera.width - 1))]
        distance = float(np.linalg.norm(centre - np.asarray(camera.position_mm, float)))
        shapes.append((outline, shadow, shade, lit, distance))
    if not shapes:
        return None
    every = np.concatenate([np.vstack([o, s]) for o, s, _, _, _ in shapes])
    x0, y0 = np.floor(every.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(every.max(axis=0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, camera.width), min(y1, camera.height)
    if x1 <= x0 or y1 <= y0:
        return None  # out of the picture
    corner = np.array([x0, y0], float)
    base = still[y0:y1, x0:x1]
    behind = None if depth is None else depth[y0:y1, x0:x1]
    total = np.zeros(base.shape, np.float32)
    for outline, shadow, shade, lit, distance in shapes:
        tile = base.copy()
        if shade > 0:
            mask = np.zeros(base.shape[:2], np.uint8)
            cv2.fillConvexPoly(mask, _polygon(shadow - corner), 255, cv2.LINE_AA, 4)
            if behind is not None:
                mask[np.isfinite(behind)] = 0  # the shadow on the board, not on a body
            tile = (tile * (1 - shade / 255 * mask[..., None].astype(np.float32))).astype(np.uint8)
        colour = tuple(float(c) for c in np.clip(BALE_RGB * lit, 0, 255))
        cv2.fillConvexPoly(tile, _polygon(outline - corner), colour, cv2.LINE_AA, 4)
        if behind is not None:
            np.copyto(tile, base, where=(behind <= distance)[..., None])
        total += tile
    picture = np.clip(total / len(shapes) + 0.5, 0, 255).astype(np.uint8)
    return slice(y0, y1), slice(x0, x1), picture


def _polygon(pixels: np.ndarray) -> np.ndarray:
    """The convex hull of points (n, 2) as OpenCV's fixed-point polygon (4 bits)."""
    import cv2

    return cv2.convexHull(np.round(pixels * 16).astype(np.int32))
