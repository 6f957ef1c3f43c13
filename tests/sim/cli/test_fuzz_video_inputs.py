"""The hostile pass's sixth round (issue 51): the video commands' inputs are read as
every other input is. A camera file that is a FIFO, a huge file or a deep nest, a
video that is a folder, a FIFO or a device, a focal length of ``true``, 1e-300 or
1e300 px: each refused on one line naming what it is, before any work. And
calibrate's video options without ``--video`` are refused, not ignored.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from models.errors import InputError
from tests.sim.cli.fuzz_support import refused

pytest.importorskip("cv2")

#: A cap on a wait that must not hang (a busy machine), never a timing asserted.
WAIT_S = 120


def _measure(folder: Path, video: str = "v.mp4", camera: str | None = None) -> list[str]:
    (folder / "v.mp4").write_bytes(b"not a video")
    (folder / "a.csv").write_text("pitch_deg,yaw_deg\n20,0\n")
    argv = ["measure", video, "--angles", "a.csv", "--out", "m.csv"]  # in the current folder
    return [*argv, "--camera-file", camera] if camera else argv


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"fx": true, "fy": 1000, "cx": 960, "cy": 540}', "'fx' must be a number of pixels"),
        ('{"fx": 1e-300, "fy": 1000, "cx": 960, "cy": 540}', "from 1 to 100000, got 1e-300"),
        ('{"fx": 1000, "fy": 1e300, "cx": 960, "cy": 540}', "'fy' must be a number of pixels"),
        ("[" * 100_000 + "]" * 100_000, "nested more than 32 levels deep"),
        ('{"fx": 1000, "fx": 900}', "key 'fx' appears twice"),
    ],
    ids=["fx-true", "fx-tiny", "fy-huge", "deep", "repeated-key"],
)
def test_a_camera_file_s_bad_content_is_refused(capsys, here, text, message):
    (here / "cam.json").write_text(text)
    refused(capsys, _measure(here, camera="cam.json"), message, folder=here)


def test_a_huge_camera_file_is_refused_without_reading_it_all(capsys, here):
    with (here / "cam.json").open("wb") as file:
        file.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of nothing on disk
    refused(capsys, _measure(here, camera="cam.json"), "is larger than 4 MiB", folder=here)


def test_a_camera_file_that_is_a_fifo_is_refused_and_never_waited_on(here):
    """Opening a FIFO waits for a writer: the reader must refuse it first."""
    from sim.real_toy.detect import read_camera_file

    os.mkfifo(here / "cam.json")
    raised: list[BaseException] = []

    def read() -> None:
        try:
            read_camera_file(here / "cam.json")
        except BaseException as exc:  # the test looks at it
            raised.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(WAIT_S)
    if reader.is_alive():  # let the stuck reader go: open the FIFO's other end
        os.close(os.open(here / "cam.json", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO as the camera file waited for a writer")
    assert isinstance(raised[0], InputError) and "is not a regular file" in str(raised[0])


@pytest.mark.parametrize(
    ("video", "message"),
    [
        ("folder", "is a folder"),
        ("fifo", "is not a regular file"),
        ("/dev/null", "is not a regular file"),
    ],
)
def test_a_video_that_is_no_regular_file_is_told_what_it_is(capsys, here, video, message):
    if video == "folder":
        (here / "folder").mkdir()
    elif video == "fifo":
        os.mkfifo(here / "fifo")
    err = refused(capsys, _measure(here, video=video), message, folder=here)
    assert "no such file" not in err


def test_measure_refuses_an_unwritable_sidecar_before_the_pass(capsys, here):
    (here / "m.csv.json").mkdir()
    refused(capsys, _measure(here), "--out's sidecar m.csv.json is a folder", folder=here)


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["--angles", "a.csv"], "--angles is"),
        (["--overlay", "o.mp4"], "--overlay is"),
        (["--measured", "m.csv"], "--measured is"),
        (["--angles", "a.csv", "--camera-file", "c.json"], "--angles, --camera-file are"),
    ],
)
def test_calibrate_refuses_the_video_options_without_a_video(capsys, here, given, named):
    (here / "shots.csv").write_text("pitch_deg,yaw_deg,x_mm,y_mm\n20,0,0,300\n")
    err = refused(capsys, ["calibrate", "shots.csv", *given], named, folder=here)
    assert "for measuring a video: give --video VIDEO too" in err


def test_calibrate_names_measured_in_its_refusals(capsys, here):
    argv = _measure(here)[1:4]  # the video and its --angles
    err = refused(capsys, ["calibrate", "--video", *argv, "--measured", "m.txt"], "--measured")
    assert "--measured m.txt must end in .csv" in err
