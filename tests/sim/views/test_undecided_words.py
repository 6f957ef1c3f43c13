"""What the board-mean rule left open is said in the words of what stopped it: "not
decided at this budget" only where --budget stopped it, "at the cap" where every look
was taken, else "at this precision" (the mean decided, at the precision's looks) — in
the verdict, the difference map's headline and legend, and the report page."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from models.board import load_board
from sim.studies.comparing import compare, verdict_words
from sim.studies.comparing import report as contents
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.studies.shots.dead_zones import FEW_SHOTS
from sim.views.difference_map import difference_figure
from sim.views.report_page import report_html
from tests.helpers import comparison_row

SAID = {
    "sign": "not decided at this precision",
    "equivalent": "not decided at this precision",
    "cap": "not decided at the cap",
    "budget": "not decided at this budget",
}


@pytest.mark.parametrize("stop", sorted(SAID))
def test_the_verdicts_words_follow_what_stopped_the_mean(stop):
    counts = {"more": 1, "fewer": 0, "undecided": 3, "only_a": 0, "only_b": 0}
    spaces = verdict_words.spaces_line("stock", "wide-bale", counts, "mean", None, stop)
    assert spaces.endswith(f"(family-wise 95 % over the spaces and looks, Holm), {SAID[stop]} on 3")
    if stop in ("cap", "budget"):  # the mean itself left open
        mean = verdict_words.board_mean(
            "stock", "wide-bale", "undecided", (0, -0.1, 0.1), None, stop
        )
        assert mean.startswith(f"On average wide-bale against stock is {SAID[stop]}: ")


def _comparison(stop: str) -> compare.Comparison:
    rows = [comparison_row("r8c3", 0.30, True, 80), comparison_row("r9c2", 0.04, False, 80)]
    stopped = compare.MeanStop(stop, 1, (80, 160), 80, 320, 0)
    rule = ComparisonRule("mean", 0.05, budget_s=20.0 if stop == "budget" else None)
    return compare.Comparison(
        "stock", "wide-bale", rows, "(text)", (0.1, 0.05, 0.15), rule, stopped
    )


@pytest.mark.parametrize("stop", ["sign", "budget"])
def test_the_maps_legend_says_what_stopped_the_mean(stop):
    fig = difference_figure(load_board("stock"), _comparison(stop))
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    title = " ".join(fig.axes[0].get_title().split())
    plt.close(fig)
    assert f"? faded: {SAID[stop]} (its interval" in legend
    assert f"{SAID[stop]} on 1" in title
    assert "budget" not in legend + title or stop == "budget"


@pytest.mark.parametrize("stop", ["sign", "budget"])
def test_the_report_page_says_what_stopped_the_mean(stop):
    comparison = _comparison(stop)
    data = contents.verdict_data(comparison) | {
        "rows": [contents.table_row(r, {}, {}) for r in comparison.spaces],
        "shots": {},
        "pictures": {"difference": "", "a": "", "b": ""},
        "provenance": {"aimer": "child", "seed": 0, "designs": []} | comparison.rule.provenance(),
        "max_recorded": contents.MAX_SPACES_RECORDED,
        "few_pairs": FEW_SHOTS,
    }
    page = " ".join(report_html(data).split())
    assert f"{SAID[stop]} on 1." in page
