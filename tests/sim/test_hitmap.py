"""piggy hitmap: intervals, seeding, workers, resuming, the table resolver."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import referee
from models.errors import InputError
from referee.match import sample_chance, wilson_interval
from referee.shots import TableResolver
from sim.cli import main
from sim.studies.datafiles import read_table
from sim.studies.hitmap import SweepSpec, shot_seeds, sweep
from tests.referee.positions import position

SPACES = ("r8c3", "r9c5", "r10c0", "r2c1")


def spec(**changes):
    return SweepSpec(**{"board": "stock", "design": "stock", "stacks": {}, "spaces": SPACES,
                        "shots": 3, "seed": 7, **changes})


def test_wilson_intervals_cover_the_truth_about_95_percent_of_the_time():
    """A simulated binomial check: 4,000 experiments for each p and n."""
    rng = np.random.default_rng(0)
    coverages = []
    for p in (0.05, 0.2, 0.5, 0.8, 0.97):
        for n in (10, 30, 100):
            hits = rng.binomial(n, p, size=4000)
            inside = [lo <= p <= hi for lo, hi in (wilson_interval(int(k), n) for k in hits)]
            coverages.append(np.mean(inside))
    assert np.mean(coverages) == pytest.approx(0.95, abs=0.015)
    assert min(coverages) > 0.88  # Wilson dips somewhat below 95 % at small n, extreme p


def test_seeds_depend_on_the_root_seed_and_the_space_only():
    assert shot_seeds(5, (2, 1), 4) == shot_seeds(5, (2, 1), 4) != shot_seeds(6, (2, 1), 4)
    assert shot_seeds(5, (2, 1), 4) != shot_seeds(5, (1, 2), 4)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_one_worker_or_two_give_identical_files(tmp_path, fmt):
    one = tmp_path / f"one.{fmt}"
    two = tmp_path / f"two.{fmt}"
    sweep(spec(), one, fmt, workers=1, per_shot=True)
    sweep(spec(), two, fmt, workers=2, per_shot=True)
    assert one.read_bytes() == two.read_bytes()
    assert (tmp_path / f"one.shots.{fmt}").read_bytes() == \
        (tmp_path / f"two.shots.{fmt}").read_bytes()
    rows = read_table(one)
    assert [r["space"] for r in rows] == list(SPACES)
    assert all(r["shots"] == 3 and 0 <= r["p_target"] <= 1 for r in rows)
    assert not (tmp_path / f"one.{fmt}.parts").exists()  # cleaned up when done


def test_the_order_of_spaces_does_not_change_a_space_s_result(tmp_path):
    forward = {r["space"]: r for r in sweep(spec(), tmp_path / "a.csv", "csv")}
    backward = {r["space"]: r for r in sweep(spec(spaces=SPACES[::-1]), tmp_path / "b.csv",
                                             "csv")}
    assert forward == backward


def test_a_killed_sweep_resumes_to_the_same_file(tmp_path):
    args = ["--spaces", "r8c3,r9c5,r10c0,r2c1,r1c5,r9c1", "--shots", "4", "--workers", "1",
            "--format", "csv", "--seed", "3"]
    whole = tmp_path / "whole.csv"
    assert main(["hitmap", *args, "--out", str(whole)]) == 0
    out = tmp_path / "cut.csv"
    parts = tmp_path / "cut.csv.parts"
    run = subprocess.Popen([sys.executable, "-m", "sim.cli", "hitmap", *args, "--out", str(out)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(parts.glob("r*c*.json"))) < 2:
        time.sleep(0.05)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    kept = list(parts.glob("r*c*.json"))
    assert 2 <= len(kept) < 6 and not out.exists()  # interrupted, finished spaces kept
    with pytest.raises(InputError, match="unfinished sweep"):  # no silent overwrite
        sweep(SweepSpec("stock", "stock", {}, ("r8c3",), 4, 3), out, "csv")
    assert main(["hitmap", *args, "--out", str(out), "--resume"]) == 0
    assert out.read_bytes() == whole.read_bytes()


def test_table_resolver_knocks_out_at_the_measured_rate(tmp_path):
    rows = sweep(spec(spaces=("r8c3", "r9c5")), tmp_path / "map.parquet", "parquet")
    table = TableResolver.from_rows(read_table(tmp_path / "map.parquet"), "map").probabilities
    assert table == {r["space"]: r["p_target"] for r in rows}
    game = referee.load_game("go_piggy_go", players=2,
                             resolver=TableResolver({"r8c3": 0.3}, "test"))
    rng = np.random.default_rng(1)
    knocked = 0
    trials = 3000
    state = position(game, {"gold-1": "r8c3"}, die="tractor")
    state.apply_action("fire gold-1")
    for _ in range(trials):
        knocked += sample_chance(state, rng) == "knock gold-1"
    assert abs(knocked / trials - 0.3) < 3 * np.sqrt(0.3 * 0.7 / trials)


def test_tournament_with_table_shots(tmp_path, capsys):
    path = tmp_path / "table.csv"
    path.write_text("space,reachable,p_target\n" + "".join(
        f"r{r}c{c},True,0.5\n" for r in range(11) for c in range(7)))
    code = main(["tournament", "go-piggy-go", "--seats", "greedy,random", "--games", "10",
                 "--shots", f"table:{path}", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["games"] == 10


@pytest.mark.parametrize(("argv", "message"), [
    (["hitmap", "--shots", "0"], "--shots must be at least 1"),
    (["hitmap", "--spaces", "r42c0"], "off board"),
    (["hitmap", "--spaces", "r5c3"], "is a hole"),
    (["hitmap", "--arc", "lob"], "unknown arc"),
    (["hitmap", "--format", "xlsx"], "unknown format"),
    (["tournament", "go-piggy-go", "--seats", "greedy,random", "--shots", "table:/no/file.csv"],
     "does not exist"),
])
def test_bad_hitmap_input_exits_2(capsys, tmp_path, argv, message):
    code = main([*argv, "--out", str(tmp_path / "x.csv")] if argv[0] == "hitmap" else argv)
    assert code == 2 and message in capsys.readouterr().err


def test_unreachable_only_selection_is_a_clear_error(capsys, tmp_path):
    weak = tmp_path / "weak.toml"
    weak.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 500.0\n')
    code = main(["hitmap", "--design", str(weak), "--spaces", "r10c0,r0c6", "--shots", "2",
                 "--format", "csv", "--out", str(tmp_path / "w.csv")])
    assert code == 2 and "no selected space is in reach" in capsys.readouterr().err


def test_an_unreadable_table_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(InputError, match="cannot be read"):
        read_table(junk)


@pytest.mark.slow
def test_a_sweep_on_a_dask_local_cluster_matches_the_local_run(tmp_path):
    from dask.distributed import LocalCluster

    local = tmp_path / "local.csv"
    on_dask = tmp_path / "dask.csv"
    sweep(spec(), local, "csv", workers=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        sweep(spec(), on_dask, "csv", scheduler=cluster.scheduler_address)
    assert on_dask.read_bytes() == local.read_bytes()


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error_and_blocks_nothing(tmp_path):
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        sweep(spec(), tmp_path / "x.csv", "csv", scheduler="tcp://127.0.0.1:9")
    sweep(spec(spaces=("r8c3",)), tmp_path / "x.csv", "csv")  # a plain rerun is not refused
