"""``piggy measure --overlay``: the video again with what was measured drawn on
it, so that a person can see it was right: the board frame's axes (x red, y
green, 100 mm from the pivot), each shot's track so far (yellow; the flight the
fit used, then the bounce), its first touch (a cyan ring on the board, from the
frame of the break on) or, for a skipped shot, its reason in red."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from sim.real_toy.measure import Measurement

_AXIS_MM = 100.0
#: Frames between two progress calls: a 1080p frame takes 20-40 ms to draw and
#: encode, so the count moves several times a second.
_PROGRESS_EVERY = 10
#: x264's preset for the check video. Its default (medium) made the overlay cost
#: 3 times the measurement (26 s of CPU against 8 s, 978 frames at 720p), and its
#: 40 frames of lookahead, flushed at the end, held the progress still for minutes
#: on a busy machine; veryfast: 14 s, a file of the same size, 10 frames held.
_PRESET = "veryfast"


def write_overlay(
    measurement: Measurement, path: str | Path, progress: Callable[..., None]
) -> None:
    """Write the overlay video to ``path`` (H.264 MP4), whole or not at all;
    ``progress(done, note=None)`` is told the frames drawn, and when the encoder
    finishes the file."""
    import imageio_ffmpeg

    from sim.views.video_files import replacing

    info, pose, track = measurement.info, measurement.pose, measurement.track
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp.mp4")
    axes = pose.project(np.array([[0, 0, 0], [_AXIS_MM, 0, 0], [0, _AXIS_MM, 0.0]]))
    shot_of_frame = np.full(len(track.present), -1)
    for n, shot in enumerate(measurement.shots):
        shot_of_frame[shot.frames[0] : shot.frames[-1] + 1] = n
    reader = imageio_ffmpeg.read_frames(str(info.path))
    next(reader)
    # a failed write (a full disk) is one line, no temporary file left (replacing)
    with replacing(tmp, path), contextlib.closing(reader):
        writer = imageio_ffmpeg.write_frames(
            str(tmp),
            (info.width, info.height),
            fps=info.fps,
            quality=7,
            macro_block_size=1,
            ffmpeg_log_level="quiet",  # ffmpeg's own lines are not the user's
            output_params=["-preset", _PRESET],
        )
        writer.send(None)
        drawn = 0
        try:
            for index, raw in enumerate(reader):
                frame = np.frombuffer(raw, np.uint8).reshape(info.height, info.width, 3).copy()
                _draw_axes(frame, axes)
                if index < len(shot_of_frame) and shot_of_frame[index] >= 0:
                    _draw_shot(frame, measurement, int(shot_of_frame[index]), index)
                writer.send(frame)
                drawn = index + 1
                if drawn % _PROGRESS_EVERY == 0:
                    progress(drawn)
            progress(drawn, note="all frames drawn; the encoder finishes the file")
        finally:
            writer.close()


def _point(p) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _draw_axes(frame: np.ndarray, axes: np.ndarray) -> None:
    origin = _point(axes[0])
    cv2.line(frame, origin, _point(axes[1]), (230, 40, 40), 2, cv2.LINE_AA)
    cv2.line(frame, origin, _point(axes[2]), (40, 200, 40), 2, cv2.LINE_AA)


def _draw_shot(frame: np.ndarray, measurement: Measurement, n: int, index: int) -> None:
    shot = measurement.shots[n]
    track = measurement.track
    upto = shot.frames[shot.frames <= index]
    pixels = track.pixel[upto]
    pixels = pixels[np.isfinite(pixels).all(axis=1)]
    if len(pixels) > 1:
        cv2.polylines(
            frame, [np.round(pixels).astype(np.int32)], False, (250, 220, 40), 1, cv2.LINE_AA
        )
    label = f"shot {shot.number}"
    colour = (255, 255, 255)
    if shot.skipped:
        label += ": skipped"
        colour = (240, 60, 60)
    elif shot.break_frame is not None and index >= shot.break_frame:
        touch = measurement.pose.project(np.array([[shot.x_mm, shot.y_mm, 0.0]]))[0]
        cv2.circle(frame, _point(touch), 6, (40, 230, 230), 2, cv2.LINE_AA)
        label += f": touch {shot.x_mm:.0f}, {shot.y_mm:.0f} mm"
    cv2.putText(frame, label, (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
