"""The sandbox's own shots filmed as a phone on a tripod would see them
(``piggy film``; docs/real-toy.md, "Planning a filming setup with piggy film").

Each shot of an angles file is fired with PyBullet on the empty board (stepped at
least :data:`FILM_STEPS_PER_S` times a second), its bale's pose recorded at every
physics step; then the video is drawn frame by frame: the
still scene once (:mod:`sim.video.scene`), and in each frame of a shot the bale
(its convex hull, projected, in straw yellow) with its shadow straight below it.
What a real camera adds, each a setting of :class:`FilmSettings`:

- motion blur: the shutter is open for ``exposure`` of the frame's period, and the
  frame is the mean of ``blur_samples`` renders spread over that time;
- a rolling shutter: the sensor's rows are read from top to bottom over
  ``rolling_shutter`` of the period, so the bale is drawn where it was when the
  row it is on was read;
- sensor noise: Gaussian, ``noise`` grey levels (of 255) standard deviation;
- the light (:class:`~sim.video.scene.Lighting`) and the compression (H.264 at
  ``crf``: 0 lossless, 51 worst; x264's fastest preset).

A frame's time starts at a random phase of the frame period from the bale's
release (a camera does not know when the shot leaves). Shots are separated, and
the video begins and ends, with ``gap_s`` of still frames without a bale. The
video holds pixels only; each shot's truth (its first touch of the board, its
launch speed, where it came to rest and its second touch) goes to a separate CSV
(:func:`truth_rows`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from models.design import Design
from models.grid import Board
from models.layout import Layout
from models.seeds import split_seed
from sim.physics.launch import AimedShot
from sim.physics.results import ShotResult
from sim.studies.calibrating.contact_stats import rest_on_board_mm, second_touch_mm
from sim.video import defaults
from sim.video.angles import Angles
from sim.video.bodies import quat_rotation
from sim.video.camera import Camera
from sim.video.film_piggies import Look, gap_pictures, piggy_drawer, turned_tractor
from sim.video.markers import marker_layout
from sim.video.scene import (
    BALE_RGB,
    SHADOW_DEPTH,
    Lighting,
    still_scene,
    with_tractor,
)

#: The physics steps a second the shots are filmed with, at least (a design stepped
#: finer keeps its own). The engine turns a falling bale only in the step after it
#: reached the board, so at a design's usual 1000 the bale's path broke 0.8-1.9 mm
#: (the mean by pitch, up to 2.8 mm) down inside the board, where a real bale turns
#: where it touches: the measurement, taking the break for the touch, ended each
#: flight short and low, and read the rolling shutter's readout low and the high
#: arcs' launch speeds 1 % fast (docs/real-toy.md, "The first touch in the film").
#: At 4000 the break is 0.2-0.7 mm inside, the engine's own contact tolerance
#: (finer steps leave it there).
FILM_STEPS_PER_S = 4000.0
#: Frames of noise drawn once and taken in a seeded random order.
NOISE_BANK = 8
#: Above this height (mm) the bale casts no shadow the camera can see; below it the
#: shadow darkens as the bale comes down.
SHADOW_HEIGHT_MM = 150.0


@dataclass(frozen=True)
class FilmSettings:
    """How the video is filmed (each field is a ``piggy film`` option)."""

    fps: int = defaults.FPS
    exposure: float = defaults.EXPOSURE
    blur_samples: int = defaults.BLUR_SAMPLES
    noise: float = defaults.NOISE
    rolling_shutter: float = defaults.ROLLING_SHUTTER
    crf: int = defaults.CRF
    gap_s: float = defaults.GAP_S
    shot_s: float = defaults.SHOT_S
    lighting: Lighting = field(default_factory=Lighting)
    #: draw the tractor (its convex parts, turned to each shot's yaw)
    tractor: bool = False

    @property
    def gap_frames(self) -> int:
        return max(1, round(self.gap_s * self.fps))


@dataclass(frozen=True)
class Take:
    """One shot as filmed: its settings, its record, and the frames it spans (the
    times after release, s, of each frame's start)."""

    pitch_deg: float
    yaw_deg: float
    shot: ShotResult
    times_s: np.ndarray


def fire(
    board: Board,
    design: Design,
    angles: Angles,
    seed: int,
    settings: FilmSettings,
    progress: Callable[[int], None] = lambda done: None,
    layout: Layout | None = None,
) -> list[Take]:
    """Fire every shot of ``angles`` in order (shot i seeded ``split_seed(seed, i)``),
    stepped at least :data:`FILM_STEPS_PER_S` times a second and recording the bale
    (and the piggies of ``layout``, each shot from the settled layout) at every
    step, and lay out each one's frames."""
    from sim.physics.engines import make_world, resolve

    if design.physics.steps_per_s < FILM_STEPS_PER_S:
        design = replace(design, physics=replace(design.physics, steps_per_s=FILM_STEPS_PER_S))
    phases = np.random.default_rng(split_seed(seed, len(angles), 1)).uniform(size=len(angles))
    takes = []
    with make_world(board, resolve(design, "bullet"), layout) as world:
        for i, (pitch, yaw) in enumerate(zip(angles.pitch_deg, angles.yaw_deg, strict=True)):
            shot = world.shoot(AimedShot(yaw, pitch, seed=split_seed(seed, i)), record_every=1)
            assert shot.recording is not None  # record_every asks for it
            length = min((shot.recording.frames - 1) * shot.recording.dt_s, settings.shot_s)
            start = phases[i] / settings.fps
            count = max(1, math.floor((length - start) * settings.fps) + 1)
            takes.append(Take(pitch, yaw, shot, start + np.arange(count) / settings.fps))
            progress(i + 1)
    return takes


def frame_count(takes: Sequence[Take], settings: FilmSettings) -> int:
    """The video's frames: the shots' and a gap before, between and after them."""
    return settings.gap_frames * (len(takes) + 1) + sum(len(t.times_s) for t in takes)


def most_frames(shots: int, settings: FilmSettings) -> int:
    """The most frames a video of ``shots`` shots can have (:func:`frame_count` with
    each shot filmed for the whole of ``settings.shot_s``), for the start line."""
    return settings.gap_frames * (shots + 1) + shots * (
        math.floor(settings.shot_s * settings.fps) + 1
    )


def write_film(
    path: str | Path,
    board: Board,
    design: Design,
    camera: Camera,
    takes: Sequence[Take],
    settings: FilmSettings,
    seed: int,
    progress: Callable[[int], None] = lambda done: None,
    piggies: bool = False,
) -> Path:
    """Draw the video and write it as an H.264 MP4, atomically (a failed write is
    one line; no temporary file is left). ``piggies``: draw the piggies the shots
    were fired at (:mod:`sim.video.film_piggies`)."""
    import imageio_ffmpeg

    from sim.physics.bodies import tractor_parts
    from sim.views.video_files import check_video, replacing

    path = Path(path)
    scene = still_scene(camera, board, marker_layout(board), settings.lighting)
    gain = settings.lighting.gain(camera.width, camera.height)
    parts = tractor_parts(design) if settings.tractor else None

    def background(take: Take | None) -> np.ndarray:
        """The still scene a shot is filmed on (and the gap after it)."""
        if parts is None or take is None:
            return scene
        return with_tractor(scene, camera, parts, take.shot.yaw_deg, gain)

    drawer = piggy_drawer(camera, design, gain) if piggies else None

    def look(take: Take | None) -> Look | None:
        """A shot's backgrounds with its piggies (None without piggies)."""
        if drawer is None or take is None:
            return None
        assert take.shot.recording is not None
        turned = turned_tractor(parts or [], take.shot.yaw_deg)
        return drawer.look(scene, turned, background(take), take.shot.recording)

    hull = design.bale.hull_mm
    noise = _Noise(camera, settings.noise, np.random.default_rng(split_seed(seed, len(takes), 2)))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.mp4")
    with replacing(tmp, path):
        writer = imageio_ffmpeg.write_frames(
            str(tmp),
            (camera.width, camera.height),
            fps=settings.fps,
            codec="libx264",
            quality=None,
            macro_block_size=1,
            ffmpeg_log_level="quiet",
            output_params=["-crf", str(settings.crf), "-preset", "ultrafast"],
        )
        writer.send(None)
        frame = np.empty_like(scene)
        done = 0

        def send(canvas: np.ndarray, bale=None) -> None:
            nonlocal done
            noise.draw(canvas, frame)
            if bale is not None:
                rows, cols, picture = bale
                frame[rows, cols] = noise.add(picture, rows, cols)
            writer.send(frame)
            done += 1
            progress(done)

        mid_exposure = settings.exposure / settings.fps / 2
        try:
            current = look(takes[0]) if takes else None
            opening = background(takes[0] if takes else None)
            for _ in range(settings.gap_frames):  # a gap first, then each shot and a gap
                send(opening if current is None else current.before)
            for index, take in enumerate(takes):
                still = background(take)
                recording = take.shot.recording
                assert recording is not None  # fire records every shot
                for time_s in take.times_s:
                    canvas, depth = still, None
                    if drawer is not None and current is not None:
                        canvas, depth = drawer.frame(current, recording, time_s + mid_exposure)
                    send(
                        canvas,
                        _draw_bale(canvas, gain, camera, hull, take.shot, time_s, settings, depth),
                    )
                following = look(takes[index + 1]) if index + 1 < len(takes) else None
                for picture in gap_pictures(still, current, following, settings.gap_frames):
                    send(picture)
                current = following
        finally:
            writer.close()
        check_video(tmp)
    return path


def truth_rows(takes: Sequence[Take], board: Board, piggies: bool = False) -> list[dict]:
    """Each shot's truth, in the angles file's order: the settings, the bale's first
    touch of the board (x_mm, y_mm; empty when it first touched something else), its
    launch speed, where it came to rest on ``board`` and its second touch of the
    board, as the contact fit reads a shot record
    (:mod:`sim.studies.calibrating.contact_stats`): a measured-shots CSV (``piggy calibrate``
    reads it). With ``piggies`` (a film with a layout), ``knocked``: the piggies the
    shot knocked out, sorted, joined by ``;`` (empty: none)."""
    rows = []
    for take in takes:
        shot = take.shot
        on_board = shot.first_contact_with == "board" and shot.first_contact_mm is not None
        x, y = shot.first_contact_mm[:2] if on_board else ("", "")  # type: ignore[index]
        rest, second = rest_on_board_mm(shot, board), second_touch_mm(shot)
        rows.append(
            {
                "pitch_deg": f"{take.pitch_deg:g}",
                "yaw_deg": f"{take.yaw_deg:g}",
                "x_mm": f"{x:.2f}" if on_board else "",
                "y_mm": f"{y:.2f}" if on_board else "",
                "speed_mm_s": f"{shot.speed_mm_s:.1f}",
                "rest_x_mm": "" if rest is None else f"{rest[0]:.2f}",
                "rest_y_mm": "" if rest is None else f"{rest[1]:.2f}",
                "second_x_mm": "" if second is None else f"{second[0]:.2f}",
                "second_y_mm": "" if second is None else f"{second[1]:.2f}",
            }
            | ({"knocked": ";".join(shot.knocked)} if piggies else {})
        )
    return rows


class _Noise:
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


def _draw_bale(
    still: np.ndarray,
    gain: np.ndarray,
    camera: Camera,
    hull_mm: np.ndarray,
    shot: ShotResult,
    time_s: float,
    settings: FilmSettings,
    depth: np.ndarray | None = None,
) -> tuple[slice, slice, np.ndarray] | None:
    """The bale and its shadow drawn on the still scene, blurred over the exposure and
    placed by the rolling shutter: the rows and columns of the part drawn anew and
    that part (uint8 RGB); None when the bale is not in the picture. With the
    scene's ``depth`` (:mod:`sim.video.bodies`), the bale is hidden where a body
    nearer than its centre is drawn, and its shadow falls on the board only."""
    import cv2

    samples = settings.blur_samples if settings.exposure > 0 else 1
    period = 1.0 / settings.fps
    shapes = []  # per sample: the bale's outline, its shadow's, the shadow's depth, its gain
    for k in range(samples):
        t = time_s + settings.exposure * period * (k + 0.5) / samples
        centre, _, in_play = _bale_pose(shot, t)
        pixel = camera.project(centre)
        if settings.rolling_shutter > 0 and np.isfinite(pixel).all():
            row = min(max(pixel[1], 0.0), camera.height - 1.0)
            t += settings.rolling_shutter * period * row / camera.height
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
