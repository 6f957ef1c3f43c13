"""The video commands' outputs (issue 51): a full disk while the encoder writes is
told as "No space left on device" on one line (not "Broken pipe", not ffmpeg's
command), with no temporary file left; a film larger than its budget is refused
before a shot is fired, naming its estimate and the largest allowed; and
imageio-ffmpeg's own warnings never reach the user's terminal.
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tests.helpers import run
from tests.sim.cli.fuzz_support import refused

pytest.importorskip("cv2")
imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
imageio_ffmpeg_io = pytest.importorskip("imageio_ffmpeg._io")  # the writer, unpatched


def _dying_writer(*args, **kwargs):
    """imageio-ffmpeg's writer whose ffmpeg died on a full disk: its next frame is
    a broken pipe, raised as imageio-ffmpeg raises it (ffmpeg's command in it)."""
    yield
    while True:
        yield
        try:
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        except BrokenPipeError as err:
            raise OSError(f"{err}\n\nFFMPEG COMMAND:\nffmpeg -y -f rawvideo ...") from None


@pytest.fixture
def full_disk(monkeypatch):
    import sim.views.video_files

    monkeypatch.setattr(imageio_ffmpeg, "write_frames", _dying_writer)
    monkeypatch.setattr(
        sim.views.video_files.os, "statvfs", lambda _: SimpleNamespace(f_bavail=0, f_frsize=4096)
    )


def _film_argv(folder: Path, *more: str) -> list[str]:
    angles = folder / "a.csv"
    angles.write_text("pitch_deg,yaw_deg\n20,0\n")
    argv = ["film", "--design", "stock", "--angles", str(angles), "--camera-at", "0,-900,700"]
    return [*argv, "--out", str(folder / "f.mp4"), *more]


@pytest.mark.slow
def test_film_on_a_full_disk_says_so_on_one_line(capsys, tmp_path, full_disk):
    argv = _film_argv(tmp_path, "--size", "64x48", "--fps", "30", "--json")  # no progress lines
    err = refused(capsys, argv, "f.mp4")
    assert err.endswith(": No space left on device\n"), err
    assert "FFMPEG" not in err and "Broken pipe" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


@pytest.mark.slow
def test_the_overlay_on_a_full_disk_says_so_on_one_line(tmp_path, full_disk):
    from models.errors import InputError
    from sim.real_toy.overlay import write_overlay

    video = tmp_path / "v.mp4"
    frames = imageio_ffmpeg_io.write_frames(str(video), (32, 32), macro_block_size=1)
    frames.send(None)
    for _ in range(3):
        frames.send(np.zeros((32, 32, 3), np.uint8))
    frames.close()
    measurement = SimpleNamespace(
        info=SimpleNamespace(path=video, width=32, height=32, fps=30.0),
        pose=SimpleNamespace(project=lambda points: np.zeros((len(points), 2))),
        track=SimpleNamespace(present=np.zeros(3, bool)),
        shots=[],
    )
    with pytest.raises(InputError) as failed:
        write_overlay(measurement, tmp_path / "check.mp4", lambda done: None)
    assert str(failed.value) == f"cannot write {tmp_path / 'check.mp4'}: No space left on device"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.mp4"]


@pytest.mark.parametrize(
    ("more", "message"),
    [
        (["--size", "7680x4320"], "about 7.3 GB of memory at this size (at most 4 GiB): the "),
        (["--size", "7680x4320"], "largest of its shape allowed is 5868x3300; choose a smaller"),
        (
            ["--size", "3840x2160", "--fps", "2000", "--shot-seconds", "10"],
            "21001 frames of 3840x2160, 174 billion pixels to draw (at most 100 billion: "
            "12056 frames at this size)",
        ),
    ],
)
def test_a_film_over_its_budget_is_refused_before_a_shot_is_fired(capsys, tmp_path, more, message):
    refused(capsys, _film_argv(tmp_path, *more), message, folder=tmp_path)


def test_imageio_ffmpeg_s_own_warnings_do_not_reach_the_terminal(capsys, tmp_path, monkeypatch):
    """What it logs while a command runs (here, the marker sheet's) is not shown."""
    import sim.cli.markers

    def logging_command(args) -> int:
        logging.getLogger("imageio_ffmpeg").warning("We had to kill ffmpeg to stop it.")
        return 0

    monkeypatch.setattr(sim.cli.markers, "cmd_markers", logging_command)
    # as in a terminal: no handler (pytest's own catch the records), so Python's
    # last resort writes a warning to stderr
    monkeypatch.setattr(logging.root, "handlers", [])
    code, _, err = run(capsys, "markers", "--out", str(tmp_path / "m.png"))
    assert (code, err) == (0, ""), err
