"""scripts/real_toy_grid.py: the plan of a place asked without filming, and the
films kept by ``--keep`` found again by their folders' names and measured again."""

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ANGLES = "docs/examples/measured-shots.csv"


def _script():
    spec = importlib.util.spec_from_file_location(
        "real_toy_grid", ROOT / "scripts" / "real_toy_grid.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


grid = _script()


def _keep(folder: Path, name: str, film: bool = True) -> Path:
    work = folder / name
    work.mkdir(parents=True)
    (work / "truth.csv").write_text("shot\n")
    if film:
        (work / "phone.mp4").write_bytes(b"")
    return work


def test_the_camera_is_as_far_and_as_high_as_the_place_says():
    """1.8 m, 25 deg above the board, 60 deg toward -x from straight behind."""
    x, y, z = grid.camera_at(1.8, 25, -60)
    tx, ty, tz = grid.TARGET_MM
    assert math.dist((x, y, z), grid.TARGET_MM) == pytest.approx(1800)
    assert math.degrees(math.asin((z - tz) / 1800)) == pytest.approx(25)
    assert math.degrees(math.atan2(x - tx, ty - y)) == pytest.approx(-60)


def test_kept_films_are_found_by_their_folders_names(tmp_path):
    """Each place comes back from its folder's name (tractor and a negative
    direction included); a folder without its film is not a place."""
    _keep(tmp_path, "1.2_50_-30_tractor_1920x1080_fov60_seed1_measured-shots")
    _keep(tmp_path, "0.6_25_30_1920x1080_fov60_seed1_measured-shots")
    _keep(tmp_path, "1.8_75_0_1920x1080_fov60_seed1_measured-shots", film=False)
    (tmp_path / "notes.txt").write_text("")
    found = grid.kept_places(tmp_path, ANGLES)
    assert [place for place, _ in found] == [(0.6, 25.0, 30.0, False), (1.2, 50.0, -30.0, True)]
    assert found[1][1].name.startswith("1.2_50_-30_tractor")
    assert grid.place_name((1.2, 50.0, -30.0, True)) == "1.2_50_-30_tractor"


def test_films_of_other_angles_or_none_at_all_are_refused(tmp_path, monkeypatch, capsys):
    """One line naming the problem, exit code 2, before anything is measured."""
    monkeypatch.setattr(grid, "measure", lambda *a: pytest.fail("measured a refused folder"))
    _keep(tmp_path / "other", "1.2_50_0_1920x1080_fov60_seed1_other-shots")
    (tmp_path / "empty").mkdir()
    for folder, why in [("other", "filmed with other-shots"), ("empty", "no kept film"),
                        ("missing", "not a folder")]:  # fmt: skip
        monkeypatch.setattr(
            sys, "argv", ["real_toy_grid.py", "--remeasure", str(tmp_path / folder)]
        )
        assert grid.main() == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert why in line


def test_remeasure_measures_every_kept_film_and_films_nothing(tmp_path, monkeypatch, capsys):
    """One row and one JSON line a kept place, measured from its own folder."""
    keep = tmp_path / "keep"
    _keep(keep, "1.8_25_-60_1920x1080_fov60_seed1_measured-shots")
    _keep(keep, "1.2_75_30_tractor_1920x1080_fov60_seed1_measured-shots")
    measured = []

    def fake_measure(work, angles):
        measured.append(work.name)
        figures = {"shots": 40, "first_touch_on_board": 40, "measured": 39, "speeds": 20}
        return figures | {"touch_rms_mm": 2.0, "touch_worst_mm": 4.0, "speed_rms_pct": 1.0,
                          "skipped": ""}  # fmt: skip

    monkeypatch.setattr(grid, "measure", fake_measure)
    monkeypatch.setattr(grid, "_film", lambda *a: pytest.fail("--remeasure filmed"))
    results = tmp_path / "results.jsonl"
    argv = ["real_toy_grid.py", "--remeasure", str(keep), "--results", str(results)]
    monkeypatch.setattr(sys, "argv", argv)
    assert grid.main() == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "39 of 40" in line]
    assert rows[0].startswith("| 1.2 m | 75° | +30° | yes |")
    assert rows[1].startswith("| 1.8 m | 25° | -60° | no |")
    assert measured == sorted(measured) and len(measured) == 2
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["place"]["tractor"] for line in lines] == [True, False]
    assert all(line["touch_rms_mm"] == 2.0 for line in lines)


@pytest.mark.slow
def test_plan_only_approves_or_names_what_is_missing(monkeypatch, capsys):
    """Near and steep the plan sees 2 markers and loses first touches; from 1.2 m
    behind at 50 deg it approves. Nothing is filmed."""
    monkeypatch.setattr(grid, "run_place", lambda *a: pytest.fail("--plan-only filmed"))
    argv = ["real_toy_grid.py", "--plan-only", "--places", "0.6,75,0", "1.2,50,0,tractor"]
    monkeypatch.setattr(sys, "argv", argv)
    assert grid.main() == 0
    steep, behind = capsys.readouterr().out.splitlines()[2:]
    assert "only 2 markers in the picture" in steep and "outside the picture" in steep
    assert behind.startswith("| 1.2 m | 50° | +0° | yes |") and behind.endswith("approved |")
