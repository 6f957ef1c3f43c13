"""scripts/bench.py runs and reports what issues 5, 10 and 25 ask of it (no timing
asserted), and the maths of its paired tests by hand."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import trimesh

from models.layout import ALL_PIGGIES
from sim.physics.registry import installed

ROOT = Path(__file__).resolve().parents[2]


def bench(*argv: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """``python scripts/bench.py ARGV`` from the repository's root."""
    return subprocess.run(
        [sys.executable, "scripts/bench.py", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def bench_json(*argv: str, timeout: int = 300) -> dict:
    """The figures ``bench.py ARGV --json`` prints (it must succeed)."""
    run = bench(*argv, "--json", timeout=timeout)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow
def test_bench_shots_reports_every_figure_as_json():
    figures = bench_json("--only", "shots", "--shots", "4", "--naive-shots", "2")
    for key in (
        "naive_shots_per_s",
        "engine_shots_per_s",
        "engine_2w_shots_per_s",
        "verdict_agreement",
        "reference_agreement_aim_nudged",
    ):
        assert figures[key] > 0, key
    assert 0 <= figures["verdict_agreement"] <= 1
    assert figures["two_workers_same_verdicts"]


@pytest.mark.slow
def test_bench_child_compares_issue_18s_and_31s_changes_on_the_same_shots():
    """One child's shot a space: every variant's speed against issue 10's engine; the
    bale's early verdict alone keeps every verdict and every strike, and the reused
    bale (issue 31) fires every shot as a new bale did, byte for byte."""
    figures = bench_json("--only", "child", "--child-shots", "1")
    rows = {row["variant"]: row for row in figures["child_variants"]}
    assert list(rows) == [
        "issue 10's engine",
        "rigid obstacles",
        "both",
        "bale verdict (as hit maps)",
        "a new bale each shot",
        *(["MuJoCo shot by shot", "MuJoCo (as hit maps)"] if installed("mujoco") else []),
    ]
    shots = figures["child_shots"]
    assert shots == len(figures["child_spaces"])
    assert all(row["speed_vs_issue_10"] > 0 for row in rows.values())
    for label in ("bale verdict (as hit maps)", "a new bale each shot"):
        assert rows[label]["same_verdicts"] == rows[label]["same_strikes"] == shots
    assert figures["child_bale_reused"]["same_shots"] == shots
    assert figures["child_bale_reused"]["speed_vs_new_bale"] > 0
    if installed("mujoco"):  # MuJoCo fired the same shots, timed in the same run
        assert figures["child_mujoco_vs_bullet"] > 0
        assert figures["child_mujoco_of_ceiling"] > 0  # the steps alone, timed
        assert figures["child_ceiling_vs_bullet"] > 0
        batch = figures["child_mujoco_batch"]  # each space's shots as one batch
        assert batch["same_shots"] == shots and batch["speed_vs_shot_by_shot"] > 0


@pytest.mark.slow
def test_bench_own_piggy_times_a_given_piggy_mesh_against_the_stock_one(tmp_path):
    """One child's shot a space with a design's own piggy (a box: one convex part, no
    decomposition to wait for) and with the stock piggy: both timed on the same shots."""
    trimesh.creation.box(extents=(20.0, 30.0, 25.0)).export(tmp_path / "pig.stl")
    design = tmp_path / "box-piggy.toml"
    design.write_text('name = "box-piggy"\n[piggy]\nmesh = "pig.stl"\n')
    figures = bench_json(
        "--only", "own-piggy", "--own-piggy-shots", "1", "--own-piggy-design", str(design)
    )
    rows = {row["variant"]: row for row in figures["own_piggy_variants"]}
    assert list(rows) == ["stock piggy", "box-piggy as given"]
    assert figures["own_piggy_shots"] == len(figures["own_piggy_spaces"])
    assert rows["stock piggy"]["piggy_parts"] == 10
    assert (
        rows["box-piggy as given"]["piggy_parts"],
        rows["box-piggy as given"]["hull_vertices"],
    ) == (1, 8)
    assert rows["stock piggy"]["time_vs_stock"] == 1.0
    assert rows["box-piggy as given"]["time_vs_stock"] > 0
    assert all(row["shots_per_cpu_s"] > 0 for row in rows.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--own-piggy-shots", "0"], "--own-piggy-shots must be at least 1"),
        (["--own-piggy-design", "stock"], "--own-piggy-design: design 'stock' gives no piggy mesh"),
        (["--own-piggy-design", "no-such-design"], "no-such-design"),
        (["--answer-shots", "5"], "--answer-shots must be 10 to 1000, got 5"),
    ],
)
def test_bench_refuses_an_own_piggy_bench_it_cannot_run(args, message):
    run = bench("--only", "own-piggy", *args, timeout=600)
    assert run.returncode == 2
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("bench.py: error: ") and message in last, run.stderr


@pytest.mark.slow
def test_bench_answer_reports_every_figure_as_json():
    figures = bench_json(
        "--only",
        "answer",
        "--answer-spaces",
        "r8c3,r9c5",
        "--answer-precision",
        "0.25",
        "--optimise-trials",
        "2",
        "--answer-shots",  # 20 a space: 80 shots a comparison, not the mean rule's 1,360
        "20",
        timeout=900,
    )
    for key in (
        "answer_seconds",
        "answer_shots",
        "answer_mc_shots",
        "answer_max_half_width",
        "compare_seconds",
        "compare_shots",
        "shots_per_s_child",
    ):
        assert figures[key] > 0, key
    assert figures["answer_max_half_width"] <= 0.25
    for name in ("compare", "compare_budget", "compare_gain", "compare_null"):
        assert figures[f"{name}_shots"] > 0 and figures[f"{name}_width"] > 0, name
        assert figures[f"{name}_mean_rule"]["stop"] in ("sign", "equivalent", "cap", "budget")
    assert figures["compare_null_significant"] == {}  # a copy: nothing flagged
    for search in ("bale", "speed-pivot"):
        assert figures["optimise_seconds"][search] > 0
        found = figures["optimise_found"][search]
        assert figures["optimise_shots"][search] == sum(found["shots"].values())


@pytest.mark.slow
def test_bench_startup_reports_the_start_of_help_and_of_a_typo():
    """Issue 34: the median of 10 ``piggy --help`` runs, and the CPU of a typo'd
    ``design compare``; issue 43: of a bad input to each command that fires (each a
    figure; none asserted against a time)."""
    startup = bench_json("--only", "startup")["startup"]
    assert startup["runs"] == 10
    for key in ("help_s", "help_cpu_s", "typo_cpu_s", "bad_input_worst_cpu_s"):
        assert startup[key] > 0, key
    # issue 43: a bad input to each command that fires, each a figure
    assert set(startup["bad_input_cpu_s"]) == {
        "shoot",
        "play",
        "tournament",
        "hitmap",
        "design compare",
        "design optimise",
    }
    assert max(startup["bad_input_cpu_s"].values()) == startup["bad_input_worst_cpu_s"]


def load_bench_stats():
    spec = importlib.util.spec_from_file_location(
        "bench_stats", ROOT / "scripts" / "bench_stats.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_largest_difference_in_p_against_chance_by_hand():
    """Two targets, 10 shots each. Target 1 has 2 discordant pairs, both one way
    (|2B - d| is 0 or 2, each with chance 1/2), target 2 has one (|2B - d| = 1
    always). Under "no difference" max |2B - d| <= 1 has chance 1/2 and <= 2 chance 1:
    resolvable 2 / 10; the observed max is 2, p = P(max >= 2) = 1/2."""
    stats = load_bench_stats()
    resolvable, p_value = stats.max_dp_test([2, 1], [0, 0], 10)
    assert resolvable == pytest.approx(0.2)
    assert p_value == pytest.approx(0.5)
    # 6 of 6 one way on one target: P(|2B - 6| = 6) = 2 / 64; twelve such targets
    # (d = 6 each), one of them all one way: 1 - (62/64)^12
    resolvable, p_value = stats.max_dp_test([6] + [3] * 11, [0] + [3] * 11, 30)
    assert p_value == pytest.approx(1 - (62 / 64) ** 12)


@pytest.mark.slow
def test_bench_grazing_reports_every_figure_as_json():
    """Two grazing shots at each of four piggies: the keys issue 10 asks for, each a
    share or a p-value, and every variant's comparison."""
    figures = bench_json(
        *("--only", "grazing", "--grazing-shots", "2", "--grazing-reference-shots", "1"),
        *("--grazing-targets", "4"),
        timeout=900,
    )
    assert (figures["grazing_shots_per_target"], figures["grazing_reference_shots_per_target"]) == (
        2,
        1,
    )
    for key in (
        "grazing_max_abs_dp",
        "grazing_mcnemar_p",
        "grazing_agreement",
        "grazing_self_agreement",
    ):
        assert 0 <= figures[key] <= 1, key
    assert [t["piggy"] for t in figures["grazing_targets"]] == list(ALL_PIGGIES[:4])
    variants = [row["variant"] for row in figures["grazing_variants"]]
    assert variants[:5] == [
        "before tuning",
        "10 solver iterations",
        "early verdict",
        "0.03 s rest",
        "all three",
    ]
    assert all(row["speed_vs_before"] > 0 for row in figures["grazing_variants"])
    mujoco = installed("mujoco")  # MuJoCo fires the same shots, last, where installed
    assert variants[-3 if mujoco else -2 :] == [
        "design 'stock', as hit maps use it",
        "as hit maps, a new bale each shot",
        *(["MuJoCo, as hit maps use it"] if mujoco else []),
    ]
    reused = figures["grazing_bale_reused"]  # the same bytes, so no shot differs
    assert (reused["a_only"], reused["b_only"], reused["agreement"]) == (0, 0, 1.0)
    if mujoco:  # against Bullet and the reference, by P
        assert set(figures["grazing_mujoco"]) >= {"vs_bullet", "vs_reference", "p_mujoco"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["--grazing-shots", "0"],
        ["--grazing-shots", "3", "--grazing-reference-shots", "5"],
        ["--grazing-targets", "13"],
    ],
)
def test_bench_refuses_impossible_grazing_sizes(args):
    run = bench("--only", "grazing", *args, timeout=600)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith("bench.py: error: --grazing")


@pytest.mark.slow  # starts a process (about 1.5 s)
@pytest.mark.parametrize("spaces", ["r8c3, r9c5", "r8c3,r99c5"])
def test_bench_refuses_answer_spaces_that_are_not_the_boards(spaces):
    run = bench("--only", "answer", "--answer-spaces", spaces, timeout=600)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith("bench.py: error: --answer-spaces: ")


@pytest.mark.slow
def test_bench_measure_times_both_blob_variants_on_one_film_and_they_agree():
    figures = bench_json("--only", "measure", "--measure-shots", "2")
    assert figures["measure_shots"] == 2 and figures["measure_frames"] > 0
    assert figures["measure_cpu_s"] > 0 and figures["measure_whole_frame_cpu_s"] > 0
    assert figures["measure_same_shots"] is True


def test_bench_measure_refuses_more_shots_than_the_example_has():
    run = bench("--only", "measure", "--measure-shots", "41")
    assert run.returncode == 2
    assert "--measure-shots must be 1 to 40" in run.stderr.strip().splitlines()[-1]
