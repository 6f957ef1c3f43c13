"""``piggy calibrate --video``: the angles file is checked against what a calibration
needs before the video is read, and every refusal names a file the user gave; the
example angles file the README's video lines use is one a calibration accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli import main
from sim.real_toy.angles import read_angles
from sim.studies.calibrating.checks import check_settings
from sim.studies.calibrating.sandbox_shots import angles_csv, example_settings

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def test_the_example_angles_file_is_what_a_calibration_needs():
    """docs/examples/angles.csv: the 5 pitches x 8 shots of the example measurement,
    as the script writes them, and accepted by the calibration's check."""
    angles = read_angles(EXAMPLES / "angles.csv")
    assert len(angles) == 40 and sorted(set(angles.pitch_deg)) == [-30, -25, 8, 64, 70]
    check_settings(angles.pitch_deg, angles.source)
    assert (EXAMPLES / "angles.csv").read_text() == angles_csv(example_settings())
    measured = read_angles(EXAMPLES / "measured-shots.csv")
    assert (measured.pitch_deg, measured.yaw_deg) == (angles.pitch_deg, angles.yaw_deg)


def _refusal(capsys, args) -> str:
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines  # refused before any work: no start or progress line
    return lines[0]


def test_too_few_shots_set_are_refused_before_the_video_is_read(tmp_path, capsys, monkeypatch):
    """A 6-shot trial film: refused naming the angles file given, before the video is
    opened (here it is not even a video: reading it would be refused otherwise)."""
    import sim.cli.measure

    def never(*args, **kwargs):
        raise AssertionError("the video was measured")

    monkeypatch.setattr(sim.cli.measure, "run_measure", never)
    video = tmp_path / "shots.mp4"
    video.write_text("not a video\n")
    angles = tmp_path / "trial-angles.csv"
    angles.write_text("pitch_deg,yaw_deg\n-30,28\n-30,-28\n8,28\n8,-28\n64,28\n64,-28\n")
    line = _refusal(capsys, ["calibrate", "--video", str(video), "--angles", str(angles)])
    assert "trial-angles.csv: 6 shots; a calibration needs at least 10" in line
    angles.write_text("pitch_deg,yaw_deg\n" + "30,0\n" * 12)
    line = _refusal(capsys, ["calibrate", "--video", str(video), "--angles", str(angles)])
    assert "trial-angles.csv: all 12 shots were fired at pitch 30 deg" in line


@pytest.mark.parametrize("keep", [False, True])
def test_shots_lost_in_the_measurement_are_refused_naming_a_file_given(
    tmp_path, capsys, monkeypatch, keep
):
    """40 shots set, 9 measured (the rest skipped): the refusal names the video (the
    measured CSV, when it is a temporary file), or --measured's file when given."""
    import sim.cli.measure

    rows = (EXAMPLES / "measured-shots.csv").read_text().splitlines()[:10]

    def measured(args, out, bars, what):
        Path(out).write_text("\n".join(rows) + "\n")

    monkeypatch.setattr(sim.cli.measure, "run_measure", measured)
    args = ["calibrate", "--video", str(tmp_path / "shots.mp4"), "--json"]
    args += ["--angles", str(EXAMPLES / "angles.csv")]
    if keep:
        args += ["--measured", str(tmp_path / "kept.csv")]
    line = _refusal(capsys, args)
    said = "kept.csv" if keep else "the shots measured from "
    assert f"{said}" in line and "9 shots; a calibration needs at least 10" in line
    assert keep or "shots.mp4" in line
