"""scripts/bench.py runs and reports what issues 5 and 10 ask of it (no timing asserted),
and the maths of its paired tests by hand."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_shots_reports_every_figure_as_json():
    run = subprocess.run(
        [
            sys.executable,
            "scripts/bench.py",
            "--only",
            "shots",
            "--shots",
            "4",
            "--naive-shots",
            "2",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(run.stdout)
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
def test_bench_child_compares_issue_18s_changes_on_the_same_shots():
    """One child's shot a space: every variant's speed against issue 10's engine, and
    the bale's early verdict alone keeps every verdict and every strike."""
    run = subprocess.run(
        [sys.executable, "scripts/bench.py", "--only", "child", "--child-shots", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(run.stdout)
    rows = {row["variant"]: row for row in figures["child_variants"]}
    assert list(rows) == [
        "issue 10's engine",
        "rigid obstacles",
        "both",
        "bale verdict (as hit maps)",
    ]
    shots = figures["child_shots"]
    assert shots == len(figures["child_spaces"])
    assert all(row["speed_vs_issue_10"] > 0 for row in rows.values())
    as_hit_maps = rows["bale verdict (as hit maps)"]
    assert as_hit_maps["same_verdicts"] == as_hit_maps["same_strikes"] == shots


@pytest.mark.slow
def test_bench_answer_reports_every_figure_as_json():
    run = subprocess.run(
        [
            sys.executable,
            "scripts/bench.py",
            "--only",
            "answer",
            "--answer-spaces",
            "r8c3,r9c5",
            "--answer-precision",
            "0.25",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(run.stdout)
    for key in (
        "answer_seconds",
        "answer_shots",
        "answer_mc_shots",
        "answer_max_half_width",
        "compare_seconds",
        "shots_per_s_child",
    ):
        assert figures[key] > 0, key
    assert figures["answer_max_half_width"] <= 0.25


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
    """One grazing shot a piggy: the keys issue 10 asks for, each a share or a p-value,
    and every variant's comparison."""
    run = subprocess.run(
        [
            sys.executable,
            "scripts/bench.py",
            "--only",
            "grazing",
            "--grazing-shots",
            "2",
            "--grazing-reference-shots",
            "1",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    figures = json.loads(run.stdout)
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
    assert len(figures["grazing_targets"]) == 12
    variants = [row["variant"] for row in figures["grazing_variants"]]
    assert variants[:5] == [
        "before tuning",
        "10 solver iterations",
        "early verdict",
        "0.03 s rest",
        "all three",
    ]
    assert all(row["speed_vs_before"] > 0 for row in figures["grazing_variants"])


@pytest.mark.slow
@pytest.mark.parametrize(
    "args", [["--grazing-shots", "0"], ["--grazing-shots", "3", "--grazing-reference-shots", "5"]]
)
def test_bench_refuses_impossible_grazing_sizes(args):
    run = subprocess.run(
        [sys.executable, "scripts/bench.py", "--only", "grazing", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].startswith("bench.py: error: --grazing")
