"""Tiny synthetic videos for the measurement's tests, drawn with OpenCV directly:
the stock board's markers on a plain board seen by a pinhole camera, and a
yellow bale flying the closed-form arc, bouncing and resting, shot after shot,
with still frames between. Not the sandbox's renderer (``piggy film``): a
stand-in whose truth is exact, so a test can say how close the measurement is."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import imageio_ffmpeg
import numpy as np

from models.board import load_board
from models.design import load_design
from sim.physics.ballistics import GRAVITY_MM_S2, contact_offset_mm, direction, release_point_mm
from sim.real_toy.markers import marker_layout

_TEXTURE_MM = (-320.0, 320.0, -440.0, 440.0)  # x0, x1, y0, y1 of the board picture
_PX_PER_MM = 2.0
_BALE_BGR = np.array([40, 200, 240], np.float32)


@dataclass(frozen=True)
class Camera:
    at_mm: tuple[float, float, float]
    look_at_mm: tuple[float, float, float]
    fov_deg: float
    size: tuple[int, int]

    def matrices(self):
        w, h = self.size
        f = w / (2 * math.tan(math.radians(self.fov_deg) / 2))
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
        at, target = np.array(self.at_mm), np.array(self.look_at_mm)
        forward = (target - at) / np.linalg.norm(target - at)
        right = np.cross(forward, [0, 0, 1.0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        r = np.vstack([right, down, forward])
        return k, r, -r @ at


def board_picture() -> np.ndarray:
    x0, x1, y0, y1 = _TEXTURE_MM
    s = _PX_PER_MM
    picture = np.full((int((y1 - y0) * s), int((x1 - x0) * s), 3), (70, 140, 90), np.uint8)
    layout = marker_layout(load_board("stock"))
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))
    for marker in layout.markers:
        side = round(marker.side_mm * s)
        image = cv2.aruco.generateImageMarker(aruco, marker.id, side)
        quiet = round(marker.side_mm * s / 6)
        cx, cy = marker.centre_mm
        col, row = round((cx - x0) * s), round((y1 - cy) * s)
        picture[
            row - side // 2 - quiet : row + side // 2 + quiet,
            col - side // 2 - quiet : col + side // 2 + quiet,
        ] = 255
        picture[
            row - side // 2 : row - side // 2 + side, col - side // 2 : col - side // 2 + side
        ] = image[..., None]
    return picture


def render_board(camera: Camera) -> np.ndarray:
    k, r, t = camera.matrices()
    x0, _, _, y1 = _TEXTURE_MM
    s = _PX_PER_MM
    texture_to_board = np.array([[1 / s, 0, x0], [0, -1 / s, y1], [0, 0, 1.0]])
    homography = k @ np.column_stack([r[:, 0], r[:, 1], t]) @ texture_to_board
    return cv2.warpPerspective(board_picture(), homography, camera.size, flags=cv2.INTER_AREA)


def flights(angles, speeds, seed=0):
    """Each shot's centre path sampler and truth (contact x, y and launch speed)."""
    design = load_design("stock")
    out = []
    for (pitch, yaw), speed in zip(angles, speeds, strict=True):
        p0 = release_point_mm(design, yaw, pitch)
        v0 = speed * direction(yaw, pitch)
        depth, ahead = contact_offset_mm(design.bale, pitch)
        vz, z0 = v0[2], p0[2]
        t_c = (vz + math.sqrt(vz * vz + 2 * GRAVITY_MM_S2 * (z0 - depth))) / GRAVITY_MM_S2
        g = np.array([0, 0, -GRAVITY_MM_S2])
        contact = p0 + v0 * t_c + 0.5 * g * t_c**2
        heading = v0[:2] / np.linalg.norm(v0[:2])
        truth = (*(contact[:2] + ahead * heading), speed)
        v_after = (v0 + g * t_c) * np.array([0.6, 0.6, -0.4])

        def where(t, p0=p0, v0=v0, t_c=t_c, contact=contact, v_after=v_after, g=g):
            if t <= t_c:
                return p0 + v0 * t + 0.5 * g * t * t
            dt = min(t - t_c, 2 * v_after[2] / GRAVITY_MM_S2)  # one hop, then it rests
            return contact + v_after * dt + 0.5 * g * dt * dt

        out.append((where, t_c, truth))
    return out


def write_video(
    path,
    camera: Camera,
    angles,
    speeds,
    fps=240,
    still_s=0.4,
    after_s=0.25,
    noise=2.0,
    seed=0,
    blur_samples=3,
):
    """The video and its truth rows (x_mm, y_mm, speed_mm_s)."""
    rng = np.random.default_rng(seed)
    k, r, t = camera.matrices()
    rvec = cv2.Rodrigues(r)[0]
    board = np.ascontiguousarray(render_board(camera)[..., ::-1])  # RGB, as ffmpeg takes it
    bale_rgb = _BALE_BGR[::-1]
    w, h = camera.size
    writer = imageio_ffmpeg.write_frames(
        str(path),
        (w, h),
        fps=fps,
        quality=9,
        macro_block_size=1,
        # x264's fastest preset, as `piggy film` writes: the slower presets spend
        # about a minute of CPU on a few hundred frames of noise
        output_params=["-pix_fmt", "yuv444p", "-preset", "ultrafast"],
    )
    writer.send(None)

    # The sensor's noise: each frame a window, at a random offset, of one pool of
    # normal deviates drawn once (a frame's own 1.5 million were most of the CPU).
    pixels, offsets = h * w * 3, 1 << 16
    pool = noise * rng.standard_normal(pixels + offsets, dtype=np.float32)

    def emit(frame):
        start = int(rng.integers(offsets))
        noisy = frame + pool[start : start + pixels].reshape(frame.shape)
        writer.send(np.clip(noisy, 0, 255, out=noisy).astype(np.uint8))

    truths = []
    still = board.astype(np.float32)
    for _ in range(round(still_s * fps)):
        emit(still)
    for where, t_c, truth in flights(angles, speeds, seed):
        truths.append(truth)
        for i in range(round((t_c + after_s) * fps)):
            frame = board.astype(np.float32)
            for j in range(blur_samples):
                tt = (i + (j + 0.5) / blur_samples - 0.5) / fps
                if tt < 0:
                    continue
                centre = where(tt)
                pixel, _ = cv2.projectPoints(centre.reshape(1, 3), rvec, t, k, None)
                radius = 4.5 * k[0, 0] / (r @ centre + t)[2]
                u, v = pixel.ravel()
                x0, y0 = int(u - radius - 3), int(v - radius - 3)
                size = int(2 * radius + 7)
                if x0 < 0 or y0 < 0 or x0 + size >= w or y0 + size >= h:
                    continue
                mask = np.zeros((size, size), np.float32)
                cv2.circle(
                    mask,
                    (round((u - x0) * 16), round((v - y0) * 16)),
                    round(radius * 16),
                    1.0,
                    -1,
                    cv2.LINE_AA,
                    4,
                )
                patch = frame[y0 : y0 + size, x0 : x0 + size]
                weight = mask[..., None] / blur_samples
                patch[:] = patch * (1 - weight) + bale_rgb * weight
            emit(frame)
        for _ in range(round(still_s * fps)):
            emit(still)
    writer.close()
    return truths
