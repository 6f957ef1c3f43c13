"""scripts/rqmc_board_replay.py: stopping rules replayed on shots already fired give
the shots the samplers would have fired, and say what decided each stop."""

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "rqmc_board_replay", ROOT / "scripts" / "rqmc_board_replay.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


replay = _script()


def _write(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_a_certain_space_stops_where_plain_monte_carlo_does():
    """Every shot a hit: plain Monte Carlo's rule stops after 40 shots at ±0.05 (20
    all-hit shots give ±0.08), and RQMC's after its look at 4 points per scramble,
    on the Wilson interval of the shots fired."""
    assert replay.replay_mc([True] * 200, 0.05) == 40
    points, bound, estimate, half = replay.replay_rqmc(np.ones((10, 64), bool), 0.05)
    assert (points, estimate) == (4, 1.0) and half <= 0.05
    assert bound == "plain"


def test_a_file_too_short_for_the_rule_is_refused():
    rng = np.random.default_rng(3)
    with pytest.raises(SystemExit, match="past the shots"):
        replay.replay_rqmc(rng.random((10, 4)) < 0.5, 0.05)


def test_the_table_counts_the_shots_each_rule_fires(tmp_path, monkeypatch, capsys):
    """A space of independent coin flips: the replay fires no more shots than the
    files hold, and its JSON agrees with its table's totals."""
    rng = np.random.default_rng(7)
    hits = rng.random((10, 64)) < 0.5
    rqmc_rows = [
        {"space": "r0c3", "target_knocked": bool(hits[r, j]), "scramble": r, "point": j}
        for r in range(10)
        for j in range(64)
    ]
    mc_rows = [
        {"space": "r0c3", "shot": i, "target_knocked": bool(v)}
        for i, v in enumerate(rng.random(1000) < 0.5)
    ]
    _write(tmp_path / "rqmc.csv", rqmc_rows)
    _write(tmp_path / "mc.csv", mc_rows)
    out = tmp_path / "table.json"
    argv = ["x", str(tmp_path / "rqmc.csv"), str(tmp_path / "mc.csv"), "--json", str(out)]
    monkeypatch.setattr(sys, "argv", [*argv, "--precision", "0.1"])
    assert replay.main() == 0
    (space,) = json.loads(out.read_text())
    cell = space["0.1"]
    assert 20 <= cell["rqmc_shots"] <= 640 and cell["rqmc_shots"] % 10 == 0
    assert 20 <= cell["mc_shots"] <= 1000 and cell["mc_shots"] % 20 == 0
    assert cell["binding"] in ("t", "t/guard", "credit", "plain")
    printed = capsys.readouterr().out
    assert f"MC {cell['mc_shots']} shots" in printed
    assert f"RQMC {cell['rqmc_shots']} " in printed


def _coverage_script():
    spec = importlib.util.spec_from_file_location(
        "rqmc_coverage", ROOT / "scripts" / "rqmc_coverage.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(outcomes: np.ndarray) -> dict:
    """An earlier coverage study's record of one RQMC repetition, (R, n) outcomes."""
    scrambles, points = outcomes.shape
    where = [[7, r, j] for r in range(scrambles) for j in range(points)]
    return {
        "space": "r0c3",
        "sampler": "rqmc",
        "seed": 1000,
        "shots": outcomes.size,
        "outcomes": "".join("1" if outcomes[r, j] else "0" for _, r, j in where),
        "where": where,
    }


def test_the_coverage_study_replays_a_repetition_as_the_rule_would_have_stopped_it():
    """A repetition fired to 8 points per scramble, all hits: the rule now stops at
    2 (20 shots, Wilson's ±0.08 within ±0.1), and its record keeps those shots only;
    one the rule would take past its shots is refused."""
    coverage = _coverage_script()
    replayed = coverage.replay(_run(np.ones((10, 8), bool)), 0.1)
    assert (replayed["shots"], replayed["hits"], replayed["p"]) == (20, 20, 1.0)
    assert all(point < 2 for _, _, point in replayed["where"])
    assert replayed["high"] == 1.0 and 0.8 < replayed["low"] < 0.9
    coin_flips = np.random.default_rng(5).random((10, 4)) < 0.5
    with pytest.raises(SystemExit, match="past its shots"):
        coverage.replay(_run(coin_flips), 0.05)
