"""scripts/pig_crosscheck.py and scripts/openspiel_mcts.py: their JSON and their refusals."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

ROOT = Path(__file__).resolve().parents[2]
WITH_OUR_CODE = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(*args):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=WITH_OUR_CODE,
    )


@pytest.mark.slow
def test_bad_counts_and_names_are_refused_before_any_work():
    done = run("scripts/pig_crosscheck.py", "--games", "0")
    assert done.returncode == 2 and "--games" in done.stderr
    done = run("scripts/openspiel_mcts.py", "python_pig_out(preset=pig)", "hold-at-x")
    assert done.returncode == 2 and "hold-at-N takes a whole number" in done.stderr
    done = run("scripts/openspiel_mcts.py", "python_pig_out(players=3)", "random")
    assert done.returncode == 2 and "two players only" in done.stderr


def test_mcts_script_reports_a_legal_match_as_json():
    done = run(
        "scripts/openspiel_mcts.py",
        "python_pig_out(preset=pig,target=20)",
        "hold-at-10",
        "--games",
        "2",
        "--simulations",
        "3",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 2 and 0 <= result["mcts_wins"] <= 2
    assert result["actions_checked_legal"] > 0


@pytest.mark.slow
def test_pig_crosscheck_script_prints_every_row_as_json():
    done = run("scripts/pig_crosscheck.py", "--games", "300", "--dice-games", "3", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == (0 if result["agrees"] else 1)
    assert result["chance_outcomes"]["same"] and result["same_dice"]["difference"] is None
    assert [(r["policy"], r["moves_first"]) for r in result["rows"]] == [
        ("hold-at-20", True),
        ("hold-at-20", False),
        ("optimal", True),
        ("optimal", False),
    ]
