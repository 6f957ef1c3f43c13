"""piggy hitmap: intervals, seeding, workers, resuming, the table resolver."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import referee
from models.errors import InputError
from models.stats import wilson_interval
from models.tables import read_table
from referee.match import sample_chance
from referee.shots import TableResolver
from sim.cli import main
from sim.studies.maps import hitmap
from sim.studies.maps.hitmap import parts_folder, run_sweep, sweep
from sim.studies.running.cluster import Cluster
from sim.studies.running.parts import write_part
from sim.studies.shots.space_firing import run_space
from sim.studies.shots.space_shots import SweepSpec, shot_seed
from tests.helpers import cli_spec
from tests.referee.positions import position

SPACES = ("r8c3", "r9c5", "r10c0", "r2c1")


def spec(**changes):
    return SweepSpec(
        **{
            "board": "stock",
            "design": "stock",
            "stacks": {},
            "spaces": SPACES,
            "shots": 3,
            "seed": 7,
            "sampler": "mc",
            **changes,
        }
    )


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
    def seeds(root, space):
        return [shot_seed(root, space, i) for i in range(4)]

    assert seeds(5, (2, 1)) == seeds(5, (2, 1)) != seeds(6, (2, 1))
    assert seeds(5, (2, 1)) != seeds(5, (1, 2))
    assert len(set(seeds(5, (2, 1)))) == 4


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_one_worker_or_two_give_identical_files(tmp_path, fmt):
    one = tmp_path / f"one.{fmt}"
    two = tmp_path / f"two.{fmt}"
    sweep(spec(), one, fmt, workers=1, per_shot=True)
    sweep(spec(), two, fmt, workers=2, per_shot=True)
    assert one.read_bytes() == two.read_bytes()
    assert (tmp_path / f"one.shots.{fmt}").read_bytes() == (
        tmp_path / f"two.shots.{fmt}"
    ).read_bytes()
    rows = read_table(one)
    assert [r["space"] for r in rows] == list(SPACES)
    assert all(r["shots"] == 3 and 0 <= r["p_target"] <= 1 for r in rows)
    assert not (tmp_path / f"one.{fmt}.parts").exists()  # cleaned up when done


@pytest.mark.slow
def test_the_order_of_spaces_does_not_change_a_space_s_result(tmp_path):
    forward = {r["space"]: r for r in sweep(spec(), tmp_path / "a.csv", "csv")}
    backward = {r["space"]: r for r in sweep(spec(spaces=SPACES[::-1]), tmp_path / "b.csv", "csv")}
    assert forward == backward


def interrupted(out, made_spec, names):
    """The parts an interrupted sweep into ``out`` leaves: ``names`` finished."""
    folder = parts_folder(out)
    folder.mkdir()
    for name in names:
        write_part(folder, made_spec.key(), run_space(made_spec, name))
    return folder


@pytest.mark.slow
def test_resume_reuses_the_finished_spaces_and_measures_only_the_rest(tmp_path, monkeypatch):
    whole = tmp_path / "whole.csv"
    sweep(spec(), whole, "csv")
    out = tmp_path / "cut.csv"
    interrupted(out, spec(), SPACES[:2])
    with pytest.raises(InputError, match="unfinished sweep"):  # no silent overwrite
        sweep(spec(), out, "csv")
    measured = []

    def run_and_note(made_spec, name):
        measured.append(name)
        return run_space(made_spec, name)

    monkeypatch.setattr(hitmap, "run_space", run_and_note)  # workers=1: in this process
    outcome = run_sweep(spec(), out, "csv", resume=True)
    assert (outcome.reused, outcome.computed) == (2, 2)
    assert measured == list(SPACES[2:])  # finished spaces are not fired at again
    assert out.read_bytes() == whole.read_bytes()
    assert not parts_folder(out).exists()


def test_resume_is_reported_on_stderr_and_in_json(tmp_path, capsys):
    out = tmp_path / "cut.csv"
    argv = [
        "hitmap",
        "--spaces",
        "r8c3,r9c5,r10c0",
        "--shots",
        "2",
        "--seed",
        "3",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    interrupted(out, cli_spec(argv), ["r9c5"])
    assert main([*argv, "--resume", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert (summary["reused_spaces"], summary["measured_spaces"]) == (1, 2)
    assert captured.err == (
        f"piggy: resumed: 1 of 3 spaces reused from {out}.parts, 2 measured now\n"
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("flip", "was changed after it was written (its checksum does not match)"),
        ("other seed", "was made by a sweep with other settings"),
        ("truncate", "is corrupted (not valid JSON"),
        ("not a part", "is corrupted (not a part of this version of piggy)"),
    ],
)
def test_resume_refuses_a_damaged_part_naming_it(tmp_path, capsys, damage, message):
    out = tmp_path / "cut.csv"
    argv = [
        "hitmap",
        "--spaces",
        "r8c3,r9c5",
        "--shots",
        "2",
        "--seed",
        "3",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    made_with = cli_spec(
        [*argv[:-4], "--seed", "4", *argv[-4:]] if damage == "other seed" else argv
    )
    folder = interrupted(out, made_with, ["r8c3", "r9c5"])
    part = folder / "r9c5.json"
    record = json.loads(part.read_text())
    if damage == "flip":  # one shot's outcome edited by hand
        shot = record["chunk"]["shots"][0]
        shot["target_knocked"] = not shot["target_knocked"]
        part.write_text(json.dumps(record))
    elif damage == "truncate":
        part.write_text(part.read_text()[:-40])
    elif damage == "not a part":
        part.write_text(json.dumps(record["chunk"]))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code = main([*argv, "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (
        f"part file {folder / ('r8c3.json' if damage == 'other seed' else 'r9c5.json')}" in err
        and message in err
        and "delete it" in err
    )
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing lost
    assert not out.exists()


def workers_of_process(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (Linux /proc)."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            children.add(int(stat.parent.name))
    return children


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's record is left


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_killing_a_sweep_leaves_no_worker_running(tmp_path):
    """SIGKILL to a 2-worker hitmap: its workers exit with it instead of going on
    firing shots for nobody (each space here takes them far longer than 5 s)."""
    out = tmp_path / "killed.csv"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sim.cli",
            "hitmap",
            "--workers",
            "2",
            "--spaces",
            "r8c3,r9c5,r10c0,r2c1",
            "--shots",
            "2000",
            "--out",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        workers = set()
        while len(workers) < 2 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.1)
            workers = workers_of_process(run.pid)
        assert len(workers) == 2, "the workers never started"
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    deadline = time.monotonic() + 120  # a cap: the wait ends as the last worker goes
    while time.monotonic() < deadline and any(alive(w) for w in workers):
        time.sleep(0.1)
    still = [w for w in workers if alive(w)]
    for worker in still:  # leave nothing behind, whatever the verdict
        os.kill(worker, signal.SIGKILL)
    assert not still, "workers outlived the killed sweep by 120 s"


@pytest.mark.slow
def test_table_resolver_knocks_out_at_the_measured_rate(tmp_path):
    rows = sweep(spec(spaces=("r8c3", "r9c5")), tmp_path / "map.parquet", "parquet")
    table = TableResolver.from_rows(read_table(tmp_path / "map.parquet"), "map").probabilities
    assert table == {r["space"]: r["p_target"] for r in rows}
    game = referee.load_game(
        "go_piggy_go", players=2, resolver=TableResolver({"r8c3": 0.3}, "test")
    )
    rng = np.random.default_rng(1)
    knocked = 0
    trials = 3000
    state = position(game, {"gold-1": "r8c3"}, die="tractor")
    state.apply_action("fire gold-1")
    for _ in range(trials):
        knocked += sample_chance(state, rng) == "knock gold-1"
    assert abs(knocked / trials - 0.3) < 3 * np.sqrt(0.3 * 0.7 / trials)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("space,reachable,p_target\nr8c3,True,0.4\nr8c3,True,0.5\n", "listed twice"),
        ("space,reachable,p_target\nr8c3,true,0.4\n", "reachable 'true' is not true or false"),
        ("space,reachable,p_target\nr8c3,True,\n", "is not a number in [0, 1]"),
        ("space,reachable,p_target\neight-three,True,0.4\n", "is not a space name"),
    ],
    ids=["a space twice", "reachable in lower case", "no p_target", "not a space"],
)
def test_the_game_and_the_command_line_read_a_hit_map_alike(tmp_path, capsys, table, message):
    """One reader of hit maps: what ``piggy tournament --shots table:FILE`` refuses,
    the OpenSpiel game's ``shots=table:FILE`` refuses with the same words."""
    from referee.openspiel.params import make_resolver

    path = tmp_path / "map.csv"
    path.write_text(table)
    with pytest.raises(InputError, match="hit map") as caught:
        make_resolver(f"table:{path}")
    assert message in str(caught.value)
    argv = ["tournament", "go-piggy-go", "--seats", "greedy,random", "--shots", f"table:{path}"]
    assert main(argv) == 2
    assert str(caught.value) in capsys.readouterr().err


@pytest.mark.parametrize("p_target", [0.0, 1.0])
def test_tournament_with_table_shots_follows_the_table(tmp_path, capsys, p_target):
    """A table where no shot ever knocks out, and one where every shot does: the
    tournament's shots knock out exactly as the table says."""
    path = tmp_path / "table.csv"
    path.write_text(
        "space,reachable,p_target\n"
        + "".join(f"r{r}c{c},True,{p_target}\n" for r in range(11) for c in range(7))
    )
    code = main(
        [
            "tournament",
            "go-piggy-go",
            "--seats",
            "greedy,random",
            "--games",
            "10",
            "--shots",
            f"table:{path}",
            "--json",
        ]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["games"] == 10
    assert result["tractor_shots_per_game"] > 0
    assert result["shots_knocking_out_fraction"] == p_target


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hitmap", "--shots", "0"], "argument --shots: 0 is out of range"),
        (["hitmap", "--spaces", "r42c0"], "off board"),
        (["hitmap", "--spaces", "r5c3"], "is a hole"),
        (["hitmap", "--arc", "lob"], "unknown arc"),
        (["hitmap", "--format", "xlsx"], "unknown format"),
        (
            [
                "tournament",
                "go-piggy-go",
                "--seats",
                "greedy,random",
                "--shots",
                "table:/no/file.csv",
            ],
            "does not exist",
        ),
    ],
)
def test_bad_hitmap_input_exits_2(capsys, tmp_path, argv, message):
    code = main([*argv, "--out", str(tmp_path / "x.csv")] if argv[0] == "hitmap" else argv)
    assert code == 2 and message in capsys.readouterr().err


def test_a_map_with_no_space_in_reach_is_a_result_and_exits_0(capsys, tmp_path):
    """It is written and says so; exit 0 (not exit 2 after writing, issue 21)."""
    weak = tmp_path / "weak.toml"
    weak.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 500.0\n')
    out = tmp_path / "w.csv"
    code = main(
        [
            "hitmap",
            "--design",
            str(weak),
            "--spaces",
            "r10c0,r0c6",
            "--shots",
            "2",
            "--format",
            "csv",
            "--out",
            str(out),
        ]
    )
    printed, err = capsys.readouterr()
    assert code == 0 and "none in reach of design 'weak'" in printed
    start, finished = err.splitlines()  # the signs of life only: no error, no warning
    assert start.startswith("piggy: a hit map of weak: 2 spaces, 2 shots a space")
    assert finished.startswith("piggy: hitmap: finished: 2/2 spaces in ")  # no shot fired
    assert [r["reachable"] for r in read_table(out)] == [False, False]


def test_an_unreadable_table_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_text("not parquet")
    with pytest.raises(InputError, match="is neither CSV nor Parquet"):
        read_table(junk)


@pytest.mark.slow  # pyarrow's import: 2 s
def test_a_damaged_parquet_table_is_a_clear_error(tmp_path):
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(b"PAR1" + b"not parquet after all")
    with pytest.raises(InputError, match=r"cannot be read .*Parquet magic bytes not found"):
        read_table(damaged)


@pytest.mark.slow
def test_a_sweep_on_a_dask_local_cluster_matches_the_local_run(tmp_path):
    from dask.distributed import LocalCluster

    local = tmp_path / "local.csv"
    on_dask = tmp_path / "dask.csv"
    sweep(spec(), local, "csv", workers=1)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        sweep(spec(), on_dask, "csv", workers=Cluster(cluster.scheduler_address))
    assert on_dask.read_bytes() == local.read_bytes()


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_clear_error_and_blocks_nothing(tmp_path):
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        sweep(spec(), tmp_path / "x.csv", "csv", workers=Cluster("tcp://127.0.0.1:9"))
    sweep(spec(spaces=("r8c3",)), tmp_path / "x.csv", "csv")  # a plain rerun is not refused
