"""The difference map of two designs fired with the same shots (design compare --plot):
one colour for one difference on every map, the board mean first, and what each
space's look and mark say under each rule. Comparisons are made of rows, without
physics."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from models.board import load_board
from sim.studies.comparing import compare
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.views.difference_map import difference_figure
from tests.helpers import comparison_row


@pytest.fixture(scope="module")
def board():
    return load_board("stock")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def comparison(diffs: dict[str, tuple[float, bool, int]]) -> compare.Comparison:
    rows = [comparison_row(s, d, sig, n) for s, (d, sig, n) in diffs.items()]
    return compare.Comparison("A", "B", rows, "B knocks out more than A on 1 space", (0, 0, 0))


def paired(rows, mean=(0.04, 0.03, 0.05), delta=0.05, rule="spaces") -> compare.Comparison:
    """A comparison of ``rows`` whose board mean is ``mean`` (the verdict sentence is
    the text output's, not drawn from here)."""
    return compare.Comparison(
        "stock", "wide-bale", rows, "(text verdict)", mean, ComparisonRule(rule, delta)
    )


def cell_colours(fig, board) -> dict:
    ax, s = fig.axes[0], board.space_mm
    out = {}
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_zorder() == 2:
            centre = (patch.get_x() + s / 2, patch.get_y() + s / 2)
            out[board.space_at_mm(centre)] = patch.get_facecolor()[:3]
    return out


def outlines(fig, board) -> dict:
    """Each outlined space: (its outline's colour, dashed or not)."""
    ax, s = fig.axes[0], board.space_mm
    out = {}
    for patch in ax.patches:
        if (
            isinstance(patch, Rectangle)
            and patch.get_zorder() >= 2
            and not patch.get_hatch()
            and patch.get_edgecolor()[3] > 0
            and patch.get_linewidth() > 0
            and abs(patch.get_width() - s) < 1e-6
        ):
            centre = (patch.get_x() + s / 2, patch.get_y() + s / 2)
            dashed = patch.get_linestyle() not in ("-", "solid")
            out[board.space_at_mm(centre)] = (tuple(patch.get_edgecolor()[:3]), dashed)
    return out


def texts_top_down(fig) -> list[Text]:
    """Every text drawn on the figure, the highest on the page first."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    shown = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return sorted(shown, key=lambda t: -t.get_window_extent(renderer).y1)


def test_the_scale_is_chosen_from_the_data_and_a_given_scale_is_the_same_on_every_map(board):
    """No --scale: the smallest of ±0.05, ±0.1, ±0.2, ±0.5 that holds every difference,
    the colour bar saying it was chosen; --scale: one difference, one colour."""
    few_points = comparison({"r8c3": (0.04, True, 100)})
    small = comparison({"r8c3": (0.2, True, 100)})
    large = comparison({"r8c3": (0.2, True, 100), "r9c3": (0.5, True, 100)})
    for data, scale in ((few_points, 0.05), (small, 0.2), (large, 0.5)):
        fig = difference_figure(board, data)
        assert fig.axes[1].get_ylim() == pytest.approx((-scale, scale))  # the colour bar
        assert f"±{scale:g} (chosen from the data" in fig.axes[1].get_ylabel()
    fixed = [difference_figure(board, data, scale=0.5) for data in (small, large)]
    assert cell_colours(fixed[0], board)[(8, 3)] == cell_colours(fixed[1], board)[(8, 3)]
    assert "set by --scale" in fixed[0].axes[1].get_ylabel()


@pytest.mark.slow
def test_the_difference_map_fades_noise_and_stays_readable(board):
    made_by = {
        "aimer": "child",
        "vary": {"friction": 0.2},
        "precision": 0.1,
        "shots_cap": 1000,
        "seed": 0,
    }
    fig = difference_figure(
        board,
        comparison(
            {"r8c3": (0.5, False, 20), "r9c3": (0.2, True, 200), "r2c3": (-0.45, True, 300)}
        ),
        made_by,
    )
    colours = cell_colours(fig, board)
    # the not-significant +50 is paler than the significant +20: the eye goes to the signal
    assert np.mean(colours[(8, 3)]) > np.mean(colours[(9, 3)])
    texts = {t.get_text(): t for t in fig.axes[0].texts}
    assert "20 pairs" in texts and "200 pairs" not in texts  # few pairs said
    assert texts["-45*"].get_color() == "white"  # dark red: white numbers
    assert texts["+20*"].get_color() == "black"
    title = fig.axes[0].get_title()
    assert all(
        w in title for w in ("child aiming", "friction ±20 %", "to ±0.1", "plain Monte Carlo")
    )
    fig = difference_figure(
        board, comparison({"r8c3": (0.2, True, 100)}), {**made_by, "sampler": "rqmc"}, scale=0.25
    )
    assert "randomised quasi-Monte Carlo" in fig.axes[0].get_title()
    assert fig.axes[1].get_ylim() == pytest.approx((-0.25, 0.25))


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["spaces", "per-map"])
def test_a_board_of_faded_spaces_still_leads_with_the_board_mean(board, rule):
    """The issue's case: a wider bale that moves every space a little, none flagged, and
    the mean difference +0.04 [+0.03, +0.05]. The first and biggest words on the map say
    so, above the count of spaces: a faded map must not read as "no effect"."""
    stop = "cap" if rule == "spaces" else None
    rows = [comparison_row(f"r{r}c0", 0.04, False, 1000, stop) for r in range(11)]
    fig = difference_figure(board, paired(rows, rule=rule, delta=0.02 if stop else None))
    texts = texts_top_down(fig)
    first = texts[0]
    words = " ".join(first.get_text().split())
    assert words.startswith("On average wide-bale knocks out more than stock")
    assert "+0.040 [+0.030, +0.050]" in words  # three decimals: the mean is under 0.05
    assert first.get_fontsize() == max(t.get_fontsize() for t in texts)
    red, _, blue = to_rgb(first.get_color())
    assert blue > red + 0.3  # the colour bar's blue: B knocks out more
    spaces = " ".join(texts[1].get_text().split())
    assert spaces.startswith("Space by space, wide-bale knocks out more on 0 spaces, fewer on 0")
    expected = (
        "undecided at the cap on 11 (family-wise 95 %, Holm)"
        if rule == "spaces"
        else "no detectable difference on 11 (95 %, Holm)"
    )
    assert expected in spaces


@pytest.mark.parametrize(
    ("mean", "delta", "headline"),
    [
        ((-0.11, -0.12, -0.10), 0.05, "On average wide-bale knocks out fewer than stock"),
        (
            (0.0, -0.02, 0.02),
            0.05,
            "On average wide-bale and stock are practically the same",
        ),
        (
            (0.01, -0.02, 0.04),
            0.01,
            "On average no detectable difference between wide-bale and stock",
        ),
    ],
)
def test_the_headline_says_each_board_mean_verdict(board, mean, delta, headline):
    fig = difference_figure(
        board, paired([comparison_row("r8c3", mean[0], False, 1000, "cap")], mean, delta)
    )
    biggest = max(fig.findobj(Text), key=lambda t: t.get_fontsize())  # the headline
    assert " ".join(biggest.get_text().split()).startswith(headline)


@pytest.mark.slow
def test_the_paired_map_marks_decided_equivalent_and_undecided_spaces(board):
    rows = [
        comparison_row("r8c3", 0.30, True, 80, "sign"),  # the sign decided: flagged
        comparison_row("r2c3", 0.01, False, 640, "equivalent"),  # within ±0.05
        comparison_row("r9c2", 0.04, False, 1000, "cap"),  # undecided at the cap
    ]
    fig = difference_figure(board, paired(rows))
    numbers = {t.get_text() for t in fig.axes[0].texts}
    assert {"+30*", "+1≈", "+4?"} <= numbers
    colours = cell_colours(fig, board)
    assert np.mean(colours[(2, 3)]) > np.mean(colours[(8, 3)])  # faded
    assert np.mean(colours[(9, 2)]) > np.mean(colours[(8, 3)])
    edges = outlines(fig, board)
    assert edges[(8, 3)] == ((0.0, 0.0, 0.0), False)  # a solid black outline
    assert edges[(2, 3)][1]  # a dashed one
    assert (9, 2) not in edges  # none
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    assert "* full colour, outlined: the sign is decided" in legend
    assert "≈ faded, dashed outline: the same within ±0.05" in legend
    assert "? faded: undecided at the cap" in legend
    # the same rows measured by the per-map rule: flagged or not, nothing else
    fig = difference_figure(board, paired(rows, rule="per-map", delta=None))
    numbers = {t.get_text() for t in fig.axes[0].texts}
    assert {"+30*", "+1", "+4"} <= numbers
    assert set(outlines(fig, board)) == {(8, 3)}
    legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
    assert "faded: no detectable difference" in legend and "≈" not in legend
