"""A film from a tripod near the board and to one side of it (0.6 m from the
landings, 25 deg above the board, 30 deg from straight behind: a place ``piggy
film``'s plan approves), where the high arcs leave the top of the picture for a
while and come back down into it: each is still one shot, and every flight is
checked against its angles row (a row out of order or a wrong pitch is refused by
name, nothing written). Slow: a few hundred 960x540 frames of PyBullet shots."""

from __future__ import annotations

import csv
import math

import pytest

from sim.cli import main
from tests.helpers import said_lines

pytestmark = pytest.mark.slow

ANGLES = "pitch_deg,yaw_deg\n8,-28\n64,-28\n70,-28\n"
FILM = ["--camera-at=271.9,-350.9,253.6", "--look-at=0,120,0", "--fov", "60"]


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("side")
    (folder / "angles.csv").write_text(ANGLES)
    args = ["film", "--design", "stock", "--angles", str(folder / "angles.csv"), *FILM]
    args += ["--size", "960x540", "--seed", "3", "--out", str(folder / "shots.mp4")]
    assert main([*args, "--truth", str(folder / "truth.csv"), "--json"]) == 0
    with open(folder / "truth.csv") as handle:
        # empty cells (a rest or second touch the shot did not have) as NaN
        rows = csv.DictReader(handle)
        truth = [{k: float(v) if v else math.nan for k, v in row.items()} for row in rows]
    return folder, truth


def _measure(folder, angles_text: str, name: str):
    angles, out = folder / f"{name}.csv", folder / f"{name}-measured.csv"
    angles.write_text(angles_text)
    code = main(["measure", str(folder / "shots.mp4"), "--angles", str(angles), "--out", str(out)])
    return code, out


def test_high_arcs_out_of_the_top_of_the_picture_are_one_shot_each(filmed, capsys):
    """Three shots found (the old cut found five: each high arc split where it
    left the picture), all three measured, first touches within 4 mm."""
    folder, truth = filmed
    code, out = _measure(folder, ANGLES, "right")
    assert code == 0, capsys.readouterr().err
    with open(out) as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3
    for row, true in zip(rows, truth, strict=True):
        miss = math.hypot(float(row["x_mm"]) - true["x_mm"], float(row["y_mm"]) - true["y_mm"])
        assert miss < 4.0


@pytest.mark.parametrize(
    ("angles", "shot", "says"),
    [
        ("pitch_deg,yaw_deg\n64,-28\n8,-28\n70,-28\n", 1, "pitch 64"),  # rows out of order
        ("pitch_deg,yaw_deg\n8,-28\n64,-28\n45,-28\n", 3, "pitch 45"),  # a wrong pitch
    ],
)
def test_a_flight_that_disagrees_with_its_row_is_refused_by_name(
    filmed, capsys, angles, shot, says
):
    """One line naming the shot, its flight's pitch and the row's; exit 2, no
    file written."""
    folder, _ = filmed
    code, out = _measure(folder, angles, f"wrong{shot}")
    err = capsys.readouterr().err.strip()
    assert code == 2 and not out.exists()
    assert len(said_lines(err)) == 1
    assert f"shot {shot}: its flight leaves the barrel at about pitch" in err
    assert f"row {shot + 1} says {says}" in err
