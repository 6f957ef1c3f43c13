"""A comparison made in several engines: what is robust (the same sign and
significance in every engine), on average and space by space, in its words, its
JSON, its difference map and its page; and ``design compare --engines``."""

import dataclasses
import json

import pytest

from sim.cli import main
from sim.studies.comparing import verdict_words
from sim.studies.comparing.compare import Comparison
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.studies.comparing.engines_verdict import AcrossEngines
from sim.views.difference_map import difference_figure
from sim.views.report_page import report_html
from tests.helpers import comparison_row


def comparison(rows, mean_diff, delta=0.02) -> Comparison:
    return Comparison("stock", "wide", rows, "", mean_diff, ComparisonRule("spaces", delta))


BULLET = comparison(
    [
        comparison_row("r1c1", 0.2, True, stop="sign"),
        comparison_row("r1c2", -0.2, True, stop="sign"),
        comparison_row("r1c3", 0.01, False, stop="equivalent"),
        comparison_row("r1c4", 0.15, True, stop="sign"),
    ],
    (0.04, 0.03, 0.05),
)


def test_the_same_verdicts_in_both_engines_are_robust():
    across = AcrossEngines(("bullet", "mujoco"), (BULLET, BULLET))
    assert across.on_average == "more" and across.robust_on_average
    assert across.counts() == {
        "more": 2,
        "fewer": 1,
        "within": 1,
        "undecided": 0,
        "not_detected": 0,
        "differ": 0,
    }
    assert across.differing() == []
    assert across.verdict.startswith(
        "Robust across bullet and mujoco: on average wide knocks out more than stock in "
        "every engine (bullet +0.040 [+0.030, +0.050] (95 %); mujoco +0.040"
    )
    assert "every engine finds wide more on 2, fewer on 1, the same within ±0.02 on 1" in (
        across.verdict
    )
    assert across.verdict.endswith("they differ on 0")


def test_a_sign_or_a_significance_one_engine_alone_gives_is_not_robust():
    rows = list(BULLET.spaces)
    rows[0] = comparison_row("r1c1", 0.04, False, stop="cap")  # undecided in MuJoCo
    rows[3] = comparison_row("r1c4", -0.15, True, stop="sign")  # the other sign
    mujoco = dataclasses.replace(BULLET, spaces=rows, mean_diff=(0.01, -0.005, 0.015))
    across = AcrossEngines(("bullet", "mujoco"), (BULLET, mujoco))
    assert across.on_average is None and not across.robust_on_average
    assert across.differing() == ["r1c1", "r1c4"]
    assert across.counts()["differ"] == 2 and across.counts()["fewer"] == 1
    assert across.verdict.startswith(
        "Not robust across bullet and mujoco: on average the engines differ "
        "(bullet more; mujoco the same within ±0.02)"
    )
    assert across.verdict.endswith("they differ on 2 (r1c1, r1c4)")
    spaces = {r["space"]: r for r in across.to_dict()["spaces"]}
    assert spaces["r1c4"]["verdicts"] == {"bullet": "more", "mujoco": "fewer"}
    assert not spaces["r1c4"]["robust"] and spaces["r1c2"]["robust"]
    json.dumps(across.to_dict())  # as JSON, whole


def test_the_difference_map_says_robust_or_not_and_marks_the_disagreements():
    from models.board import load_board

    rows = list(BULLET.spaces)
    rows[3] = comparison_row("r1c4", -0.15, True, stop="sign")
    mujoco = dataclasses.replace(BULLET, spaces=rows, mean_diff=(0.01, -0.005, 0.015))
    board = load_board("stock")
    robust = difference_figure(board, BULLET, None, 0.3, AcrossEngines(("b", "m"), (BULLET,) * 2))
    split = difference_figure(board, BULLET, None, 0.3, AcrossEngines(("b", "m"), (BULLET, mujoco)))
    texts = [t.get_text() for t in robust.axes[0].texts]
    assert any(t.startswith("Robust across b and m") for t in texts)
    purple = [p for p in split.axes[0].patches if type(p).__name__ == "Polygon"]
    assert len(purple) == 1  # r1c4's corner
    assert not [p for p in robust.axes[0].patches if type(p).__name__ == "Polygon"]
    assert any(t.get_text().startswith("Not robust") for t in split.axes[0].texts)


@pytest.mark.parametrize(
    "engines, message",
    [
        ("bullet", "two or more different engines"),
        ("bullet,bullet", "two or more different engines"),
        ("bullet,havok", "unknown engine havok"),
    ],
)
def test_bad_engines_exit_2_before_any_shot(capsys, tmp_path, engines, message):
    code = main(
        [
            "design",
            "compare",
            "stock",
            "fast-spring",
            "--engines",
            engines,
            "--cache",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing fired, nothing cached


def test_engines_and_engine_together_exit_2(capsys, tmp_path):
    argv = ["design", "compare", "stock", "fast-spring", "--cache", str(tmp_path)]
    assert main([*argv, "--engines", "bullet,mujoco", "--engine", "mujoco"]) == 2
    assert "--engine or --engines" in capsys.readouterr().err


@pytest.mark.slow
def test_design_compare_in_two_engines_says_what_is_robust(capsys, tmp_path):
    pytest.importorskip("mujoco")
    html = tmp_path / "page.html"
    argv = [
        "design",
        "compare",
        "stock",
        "fast-spring",
        "--engines",
        "bullet,mujoco",
        "--spaces",
        "r9c3,r2c3",
        "--rule",
        "per-map",
        "--shots",
        "12",
        "--sampler",
        "mc",
        "--cache",
        str(tmp_path / "cache"),
    ]
    assert main([*argv, "--json", "--html", str(html)]) == 0
    out = json.loads(capsys.readouterr().out)
    (across,) = out["across_engines"]
    assert across["engines"] == ["bullet", "mujoco"]
    assert set(out["by_engine"]) == {"bullet", "mujoco"}
    assert out["provenance"]["engines"] == ["bullet", "mujoco"]
    assert [s["space"] for s in across["spaces"]] == ["r9c3", "r2c3"]
    bullet, mujoco = out["by_engine"]["bullet"][0], out["by_engine"]["mujoco"][0]
    assert out["comparisons"][0] == bullet  # the maps and figures are the first engine's
    assert bullet["spaces"] != mujoco["spaces"]  # measured by another engine
    page = html.read_text()
    assert 'id="engines-line"' in page and ">engines</th>" in page
    # the same run again: every map from the cache, the same words
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith(across["verdict"])
    assert "  bullet: " in text and "  mujoco: " in text


def test_a_page_without_engines_has_no_engine_column():
    data = {
        "design_a": "stock",
        "design_b": "wide",
        "on_average": "more",
        "mean_diff": [0.04, 0.03, 0.05],
        "space_counts": {
            "more": 1,
            "fewer": 0,
            "within_delta": 0,
            "undecided": 0,
            "only_a": 0,
            "only_b": 0,
        },
        "rule": "spaces",
        "delta": 0.1,
        "rows": [],
        "shots": {},
        "pictures": {"difference": "", "a": "", "b": ""},
        "provenance": {},
        "max_recorded": 8,
        "few_pairs": 20,
    }
    assert ">engines</th>" not in report_html(data)
    across = AcrossEngines(("bullet", "mujoco"), (BULLET, BULLET)).to_dict()
    page = report_html(data | {"engines": across})
    assert ">engines</th>" in page and "Robust across bullet and mujoco" in page


def test_the_same_sign_at_sizes_whose_intervals_do_not_overlap_is_said_so():
    """Bullet +0.09 [+0.07, +0.11] against MuJoCo +0.046 [+0.029, +0.063]: both more,
    their intervals apart, not the same size; overlapping intervals stay robust (the
    issue's own Bullet interval, [+0.06, +0.11], touches MuJoCo's by 0.003)."""
    bullet = dataclasses.replace(BULLET, mean_diff=(0.09, 0.07, 0.11))
    mujoco = dataclasses.replace(BULLET, mean_diff=(0.046, 0.029, 0.063))
    across = AcrossEngines(("bullet", "mujoco"), (bullet, mujoco))
    assert across.robust_on_average and not across.same_size
    assert across.verdict.startswith(
        "Same sign, different size across bullet and mujoco: on average wide knocks out more"
    )
    assert across.to_dict()["same_size_on_average"] is False
    close = dataclasses.replace(BULLET, mean_diff=(0.06, 0.05, 0.07))
    assert AcrossEngines(("bullet", "mujoco"), (bullet, close)).verdict.startswith("Robust")


def test_a_mean_detectably_above_zero_but_within_delta_is_practically_the_same():
    """+0.005 [+0.001, +0.008] within ±0.05: never "B knocks out more"."""
    small = comparison(list(BULLET.spaces), (0.005, 0.001, 0.008), delta=0.05)
    assert small.on_average == "within_delta"
    said = verdict_words.board_mean("stock", "fast-spring", small.on_average, small.mean_diff, 0.05)
    assert said == (
        "On average fast-spring and stock are practically the same: +0.005 [+0.001, +0.008] "
        "(95 %), within ±0.05"
    )
    assert "knocks out more" not in said
