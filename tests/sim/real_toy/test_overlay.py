"""``piggy measure --overlay``: the check video's progress moves to its last frame
and says when only the encoder's end of the file is left (it sat at "950/979
frames" for minutes while the encoder finished)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import imageio_ffmpeg
import numpy as np

from sim.real_toy.overlay import write_overlay
from sim.real_toy.track import VideoInfo

FRAMES, SIZE = 123, (64, 48)


def _video(path: Path) -> None:
    writer = imageio_ffmpeg.write_frames(str(path), SIZE, fps=240, macro_block_size=1)
    writer.send(None)
    for n in range(FRAMES):
        writer.send(np.full((SIZE[1], SIZE[0], 3), n % 250, np.uint8))
    writer.close()


def test_the_overlays_progress_reaches_its_last_frame_and_says_the_file_is_finishing(tmp_path):
    _video(tmp_path / "shots.mp4")
    measurement = SimpleNamespace(  # no shot measured: the axes alone are drawn
        info=VideoInfo(tmp_path / "shots.mp4", 240.0, *SIZE, FRAMES),
        pose=SimpleNamespace(project=lambda points: np.full((len(points), 2), 10.0)),
        track=SimpleNamespace(present=np.zeros(FRAMES, bool)),
        shots=(),
    )
    calls: list[tuple[int, str | None]] = []
    write_overlay(measurement, tmp_path / "check.mp4", lambda n, note=None: calls.append((n, note)))
    counts = [n for n, _ in calls]
    assert counts == sorted(counts) and counts[-1] == FRAMES
    assert max(np.diff([0, *counts])) <= 10  # the count moves every few frames
    assert calls[-1][1] == "all frames drawn; the encoder finishes the file"
    assert (tmp_path / "check.mp4").stat().st_size > 0
