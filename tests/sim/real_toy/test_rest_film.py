"""The bale followed to rest, round trip: ``piggy film`` fires three low shots of a
design whose bale grips the board (friction 0.9, restitution 0.7: the stock
bale's 0.5 slides off the board's end after every shot of the example's angles)
and films them from a tripod beside the board; ``piggy measure`` finds each rest
point within 3 mm of the truth's, and gives no second touch the truth does not
have. Slow: a few hundred 720p frames drawn."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from sim.cli import main
from tests.helpers import film_with_truth, stock_with_bale

pytestmark = pytest.mark.slow

ANGLES = "pitch_deg,yaw_deg\n-30,28\n-25,-28\n-25,28\n"
#: To the left of the start end, 1.3 m from the landings, 40 deg above the board.
FILM = ["--camera-at=-480,-700,850", "--look-at=0,150,0", "--size", "1280x720"]
#: Each rest point measured within this of the shot record's, mm (0.2-1.9 mm when
#: written).
REST_MM = 3.0
#: A second touch, where one is given, within this of the record's, mm: these low
#: shots' hops are too low to show (none given when written), and a break of their
#: tumble or slide taken for one lands 10-20 mm off.
SECOND_MM = 5.0


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rest")
    design = stock_with_bale(folder, "gripping", friction=0.9, restitution=0.7)
    truth = film_with_truth(folder, design, ANGLES, FILM, seed=3)
    return folder, truth


def test_the_rest_points_measure_to_the_truth(filmed, capsys):
    folder, truth = filmed
    assert all(row["rest_x_mm"] for row in truth)  # every bale rested on the board
    capsys.readouterr()
    out = folder / "measured.csv"
    args = ["measure", str(folder / "shots.mp4"), "--angles", str(folder / "angles.csv")]
    args += ["--design", str(folder / "gripping.toml"), "--out", str(out), "--json"]
    assert main(args) == 0, capsys.readouterr().err
    shots = json.loads(capsys.readouterr().out)["shots"]
    assert len(shots) == len(truth)
    for shot, row in zip(shots, truth, strict=True):
        assert shot["rest_mm"] is not None, shot["no_rest"]
        miss = np.subtract(shot["rest_mm"], [float(row["rest_x_mm"]), float(row["rest_y_mm"])])
        assert np.linalg.norm(miss) < REST_MM, (shot["shot"], miss)
        if shot["second_touch_mm"] is not None:
            assert row["second_x_mm"], shot
            truth_second = [float(row["second_x_mm"]), float(row["second_y_mm"])]
            assert np.linalg.norm(np.subtract(shot["second_touch_mm"], truth_second)) < SECOND_MM
    with open(out) as handle:
        rows = list(csv.DictReader(handle))
    measured = [s for s in shots if not s["skipped"]]
    assert [float(r["rest_x_mm"]) for r in rows] == pytest.approx(
        [s["rest_mm"][0] for s in measured], abs=0.06
    )
