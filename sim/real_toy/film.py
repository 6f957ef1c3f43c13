"""The sandbox's own shots filmed as a phone on a tripod would see them
(``piggy film``; docs/real-toy.md, "Planning a filming setup with piggy film").

Each shot of an angles file is fired with PyBullet on the empty board (stepped at
least :data:`FILM_STEPS_PER_S` times a second), its bale's pose recorded at every
physics step; then the video is drawn frame by frame: the
still scene once (:mod:`sim.real_toy.scene`), and in each frame of a shot the bale
(its convex hull, projected, in straw yellow) with its shadow straight below it
(:mod:`sim.real_toy.bale_frames`).
What a real camera adds, each a setting of :class:`FilmSettings`:

- motion blur: the shutter is open for ``exposure`` of the frame's period, and the
  frame is the mean of ``blur_samples`` renders spread over that time;
- a rolling shutter: the sensor's rows are read from top to bottom over
  ``rolling_shutter`` of the period, so the bale is drawn where it was when the
  row it is on was read;
- sensor noise: Gaussian, ``noise`` grey levels (of 255) standard deviation;
- the light (:class:`~sim.real_toy.scene.Lighting`) and the compression (H.264 at
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
from sim.real_toy import defaults
from sim.real_toy.angles import Angles
from sim.real_toy.bale_frames import Exposure, Noise, draw_bale
from sim.real_toy.camera import Camera
from sim.real_toy.film_piggies import Look, gap_pictures, piggy_drawer, turned_tractor
from sim.real_toy.markers import marker_layout
from sim.real_toy.scene import Lighting, still_scene, with_tractor
from sim.studies.calibrating.contact_stats import rest_on_board_mm, second_touch_mm

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

    @property
    def exposed(self) -> Exposure:
        """What of these settings the bale's drawing reads."""
        return Exposure(self.fps, self.exposure, self.blur_samples, self.rolling_shutter)


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
    from sim.physics.registry import make_world, resolve

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
    were fired at (:mod:`sim.real_toy.film_piggies`)."""
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

    hull, exposed = design.bale.hull_mm, settings.exposed
    noise = Noise(camera, settings.noise, np.random.default_rng(split_seed(seed, len(takes), 2)))
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
                        draw_bale(canvas, gain, camera, hull, take.shot, time_s, exposed, depth),
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
        touch = shot.first_contact_mm if shot.first_contact_with == "board" else None
        rest, second = rest_on_board_mm(shot, board), second_touch_mm(shot)
        rows.append(
            {
                "pitch_deg": f"{take.pitch_deg:g}",
                "yaw_deg": f"{take.yaw_deg:g}",
                "x_mm": "" if touch is None else f"{touch[0]:.2f}",
                "y_mm": "" if touch is None else f"{touch[1]:.2f}",
                "speed_mm_s": f"{shot.speed_mm_s:.1f}",
                "rest_x_mm": "" if rest is None else f"{rest[0]:.2f}",
                "rest_y_mm": "" if rest is None else f"{rest[1]:.2f}",
                "second_x_mm": "" if second is None else f"{second[0]:.2f}",
                "second_y_mm": "" if second is None else f"{second[1]:.2f}",
            }
            | ({"knocked": ";".join(shot.knocked)} if piggies else {})
        )
    return rows
