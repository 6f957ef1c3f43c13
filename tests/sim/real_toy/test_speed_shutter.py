"""The rolling shutter in the launch speed: a phone reads its rows top to bottom over
part of the frame period, so a high arc's points are seen later the lower they
are in the picture. ``piggy measure`` times each point by its row, with the
readout given or estimated over the video's flights. Tracks are drawn here
without a video: each shot's exact path (tests/sim/real_toy/synthetic.py) projected
by a pinhole camera at the moment its row was read, with 0.1 px of noise."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.design import load_design
from sim.cli import main
from sim.real_toy.angles import Angles
from sim.real_toy.detect import CameraPose, Intrinsics
from sim.real_toy.measure import Measurement, measure_shots
from sim.real_toy.report import provenance, report_lines
from sim.real_toy.shutter import (
    MAX_READOUT_SE,
    NO_FLIGHTS,
    NOT_MEASURABLE,
    FlightTrack,
    estimate_readout,
)
from sim.real_toy.track import Track, VideoInfo, split_shots
from tests.sim.real_toy.synthetic import Camera, flights

FPS, WIDTH, HEIGHT = 240.0, 1920, 1080
#: A tripod behind the tractor, 1.16 m from the landings and 37 deg above the board.
CAMERA = Camera((0.0, -800.0, 700.0), (0.0, 120.0, 0.0), 60.0, (WIDTH, HEIGHT))
#: High arcs, whose rows change most, and level shots, which barely climb.
SHOTS = [(64.0, 28.0), (70.0, -28.0), (64.0, -28.0), (70.0, 28.0), (8.0, 28.0), (8.0, -28.0)]
SPEEDS = [2080.0, 2130.0, 2050.0, 2110.0, 2090.0, 2060.0]


def _pose() -> CameraPose:
    k, r, t = CAMERA.matrices()
    intrinsics = Intrinsics(k[0, 0], k[1, 1], k[0, 2], k[1, 2])
    return CameraPose(intrinsics, cv2.Rodrigues(r)[0].ravel(), t, 0.1, (2, 3, 4, 5))


def _seen(pose, where, frames: np.ndarray, readout: float, rng) -> np.ndarray:
    """The bale's pixel in each frame (its start times): where it was when its row
    was read, with 0.1 px of noise."""
    seen = []
    for t_frame in frames:
        t = t_frame
        for _ in range(4):  # the row read depends on where the bale is then
            row = pose.project(where(t).reshape(1, 3))[0, 1]
            t = t_frame + readout / FPS * min(max(row, 0.0), HEIGHT) / HEIGHT
        seen.append(pose.project(where(t).reshape(1, 3))[0])
    return np.array(seen) + rng.normal(0, 0.1, (len(seen), 2))


def _filmed(readout: float, shots=SHOTS, seed: int = 1):
    """The track a camera with this readout gives (still frames between the shots),
    and each shot's true launch speed."""
    pose, rng = _pose(), np.random.default_rng(seed)
    pixels = [np.full((60, 2), np.nan)]  # the board still before the first shot
    speeds = []
    for where, t_c, truth in flights(shots, SPEEDS[: len(shots)]):
        speeds.append(truth[2])
        phase = rng.uniform(0, 1 / FPS)  # the camera does not know when the shot leaves
        frames = phase + np.arange(int((t_c + 0.08) * FPS)) / FPS
        pixels.append(_seen(pose, where, frames, readout, rng))
        pixels.append(np.full((60, 2), np.nan))
    pixel = np.vstack(pixels)
    inside = (pixel >= 0).all(axis=1) & (pixel[:, 0] < WIDTH) & (pixel[:, 1] < HEIGHT)
    pixel[~inside] = np.nan  # out of the picture: not seen
    present = np.isfinite(pixel).all(axis=1)
    info = VideoInfo(Path("drawn.mp4"), FPS, WIDTH, HEIGHT, len(pixel))
    return Track(present, pixel, present * 60.0), info, np.array(speeds)


def _measurement(readout_filmed: float, readout_given: float | None, shots=SHOTS):
    track, info, truth = _filmed(readout_filmed, shots)
    angles = Angles(tuple(p for p, _ in shots), tuple(y for _, y in shots))
    pose = _pose()
    measured, used = measure_shots(
        split_shots(track, FPS), track, info, pose, load_design("stock"), angles, readout_given
    )
    return Measurement(info, pose, track, measured, used), truth


def _measured(readout_filmed: float, readout_given: float | None):
    measurement, truth = _measurement(readout_filmed, readout_given)
    speeds = np.array([s.speed_mm_s for s in measurement.shots])
    return speeds / truth - 1, measurement.readout, [s.pitch_deg for s in measurement.shots]


@pytest.mark.parametrize(
    "readout",
    [0.5, pytest.param(0.0, marks=pytest.mark.slow), pytest.param(-0.4, marks=pytest.mark.slow)],
)
def test_the_readout_is_estimated_over_the_flights_and_the_speeds_come_right(readout):
    """The readout found within 0.05 of the period (read top to bottom, a global
    shutter, bottom to top), and every speed given within 0.5 %."""
    errors, used, _ = _measured(readout, None)
    assert used.source == "estimated" and used.flights >= 4
    assert abs(used.fraction - readout) < 0.05
    assert np.isfinite(errors).sum() >= 4
    assert np.nanmax(np.abs(errors)) < 0.005


def test_without_the_readout_the_high_arcs_read_fast():
    """The bias the correction removes: half a period read top to bottom, every
    point taken at its frame's time, reads the high arcs 1.5 % fast or more, and
    a given readout of 0.5 puts them right."""
    errors, used, pitches = _measured(0.5, 0.0)
    high = [e for e, p in zip(errors, pitches, strict=True) if p > 45 and math.isfinite(e)]
    assert used.source == "given" and len(high) >= 3
    assert min(high) > 0.015
    errors, used, _ = _measured(0.5, 0.5)
    assert used.source == "given" and np.nanmax(np.abs(errors)) < 0.005


def test_the_report_and_the_provenance_say_which_readout(tmp_path):
    """The readout used and how it was found, in the lines printed and in the
    provenance beside the measured CSV."""
    measurement, _ = _measurement(0.5, None)
    lines = report_lines(measurement, tmp_path / "measured.csv")
    used = measurement.readout  # 0.505 +- 0.012: printed 0.50 or 0.51 as the touches move
    assert abs(used.fraction - 0.5) < 0.02 and used.se < 0.02
    said = (
        f"rolling shutter readout: {used.fraction:.2f} +- {used.se:.2f} of the frame period "
        "(estimated over 6 flights)"
    )
    assert any(line.strip() == said for line in lines)
    video = tmp_path / "drawn.mp4"
    video.write_bytes(b"pixels")
    measurement = Measurement(
        VideoInfo(video, FPS, WIDTH, HEIGHT, len(measurement.track.present)),
        *(measurement.pose, measurement.track, measurement.shots, measurement.readout),
    )
    readout = provenance(measurement, {}, camera_file=False)["readout"]
    assert readout["source"] == "estimated" and readout["flights"] == 6
    assert readout["fraction"] == readout["estimate"] and abs(readout["fraction"] - 0.5) < 0.05


def test_flights_too_short_leave_the_readout_undetermined():
    """Steep low shots show 8-10 flight frames: no flight to estimate from, so the
    readout is taken as 0 and the report asks for it."""
    measurement, _ = _measurement(0.5, None, shots=[(-30.0, 28.0), (-25.0, -28.0)])
    assert measurement.readout.source == NO_FLIGHTS and measurement.readout.fraction == 0
    assert all(s.x_mm == s.x_mm for s in measurement.shots)  # the touches are still measured
    assert any("give --readout" in line for line in report_lines(measurement, "measured.csv"))


def test_a_flight_that_cannot_be_fitted_is_left_out_of_the_estimate():
    """The flights before each touch (the touch's centre and time known), and one
    of three frames that no path can be fitted to: the readout is estimated from
    the others."""
    pose, rng = _pose(), np.random.default_rng(2)
    tracks = []
    for where, t_c, _ in flights(SHOTS, SPEEDS):
        frames = np.arange(2, int(t_c * FPS)) / FPS
        tracks.append(FlightTrack(frames, _seen(pose, where, frames, 0.5, rng), where(t_c), t_c))
    first = tracks[0]
    tracks.append(
        FlightTrack(first.frame_times_s[:3], first.pixels[:3], first.touch_centre_mm, 0.1)
    )
    readout = estimate_readout(pose, tracks, FPS, HEIGHT)
    assert readout.source == "estimated" and readout.flights == len(SHOTS)
    assert abs(readout.fraction - 0.5) < 0.05


@pytest.mark.parametrize("value", ["1.5", "-2", "fast"])
def test_a_readout_out_of_range_is_refused(value, capsys):
    code = main(["measure", "shots.mp4", "--angles", "a.csv", "--out", "m.csv", "--readout", value])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "--readout" in err and "from -1 to 1" in err and "estimate" in err


#: A tripod 1.8 m from the landings, 75 deg above the board and 60 deg to the side
#: (scripts/real_toy_grid.py's place): the bale's fall runs mostly along the line
#: of sight.
ABOVE = Camera((403.5, -112.9, 1738.7), (0.0, 120.0, 0.0), 60.0, (WIDTH, HEIGHT))


@pytest.mark.slow
def test_from_high_above_the_readout_is_not_measurable(monkeypatch):
    """The same six flights seen from high above barely change their misfit with
    the readout: the measurement says it cannot tell it from this view, prints no
    number for it, times the points as a global shutter's, and still measures
    every touch and speed."""
    monkeypatch.setattr(sys.modules[__name__], "CAMERA", ABOVE)
    measurement, _ = _measurement(0.5, None)
    used = measurement.readout
    assert used.source == NOT_MEASURABLE and used.fraction == 0 and used.flights == 6
    assert used.se is not None and used.se > MAX_READOUT_SE
    line = next(s for s in report_lines(measurement, "m.csv") if "readout" in s)
    assert "not measurable from this view" in line and "give --readout" in line
    assert "0.00" not in line
    assert all(math.isfinite(s.speed_mm_s) for s in measurement.shots)


@pytest.mark.slow
def test_a_best_fit_at_the_end_of_the_range_is_no_estimate():
    """Flights that would fit best past the range searched (rows read over 1.1
    periods, which no phone does: something else bends them) give a best value at
    its end: no minimum, so no estimate, however sharp the misfit's slope there."""
    measurement, _ = _measurement(1.1, None)
    used = measurement.readout
    assert used.source == NOT_MEASURABLE and used.at_edge and used.fraction == 0
    assert used.estimate == pytest.approx(1.0, abs=0.01)
    line = next(s for s in report_lines(measurement, "m.csv") if "readout" in s)
    assert "end of the range searched (1)" in line
