"""The picture of a design search: what each trial's marker says, and over one or two
fields the objective against each field."""

import matplotlib

from sim.studies.designs.search import SearchParam
from sim.views.optimise_pictures import search_figure

matplotlib.use("Agg")

PIVOT = SearchParam("launcher.pivot_height_mm", 5.0, 20.0)
SPEED = SearchParam("launcher.muzzle_speed_mm_s", 1800.0, 2600.0)
#: Three fields: the search drawn against the trial, with the importances.
THREE = [PIVOT, SPEED, SearchParam("bale.width_mm", 5.0, 9.0)]


def row(trial: int, value: float, **extra) -> dict:
    return {
        "trial": trial,
        "base": trial == 0,
        "feasible": True,
        "pruned": False,
        "mean-p": value,
        "mean-p_ci_low": value - 0.02,
        "mean-p_ci_high": value + 0.02,
        "mean-p_full": None,
        "mean-p_full_ci_low": None,
        "mean-p_full_ci_high": None,
    } | extra


def test_pruned_trials_and_figures_at_full_precision_are_told_apart():
    rows = [
        row(0, 0.60),
        row(1, 0.55, pruned=True),
        row(
            2,
            0.70,
            **{"mean-p_full": 0.66, "mean-p_full_ci_low": 0.65, "mean-p_full_ci_high": 0.67},
        ),
    ]
    figure = search_figure(rows, ["mean-p"], [True], (None, 3), [2], "a search", params=THREE)
    axes = figure.axes[0]
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert {"pruned (estimate)", "at full precision", "best so far", "chosen"} <= set(labels)
    best_so_far = next(line for line in axes.get_lines() if line.get_label() == "best so far")
    assert list(best_so_far.get_ydata()) == [0.60, 0.60, 0.70]  # the pruned trial never leads
    chosen = next(line for line in axes.get_lines() if line.get_label() == "chosen")
    assert list(chosen.get_ydata()) == [0.66]  # chosen on its figure at full precision


def test_the_importances_say_how_many_trials_they_rest_on_and_hide_below_the_minimum():
    from sim.studies.optimising.optimise import MIN_IMPORTANCE_TRIALS

    rows = [row(t, 0.5 + t / 100) for t in range(MIN_IMPORTANCE_TRIALS)]
    shares = {"bale.width_mm": 0.8, "launcher.pivot_height_mm": 0.2}
    figure = search_figure(rows, ["mean-p"], [True], (shares, 12), [9], "a search", params=THREE)
    panel = figure.axes[1]
    assert panel.get_title() == "from 12 feasible trials"
    assert [t.get_text() for t in panel.get_yticklabels()] == list(shares)[::-1]
    figure = search_figure(rows[:5], ["mean-p"], [True], (None, 5), [4], "a search", params=THREE)
    said = " ".join(t.get_text() for t in figure.axes[1].texts)
    assert "not shown" in said and "5 feasible trials" in " ".join(said.split())
    assert f"need {MIN_IMPORTANCE_TRIALS}" in said and not figure.axes[1].patches


def pivot_rows(values: list[float]) -> list[dict]:
    """Trials of a one-field search over PIVOT, mean-p rising with the pivot."""
    return [
        row(t, 0.5 + v / 100, **{PIVOT.field: v, SPEED.field: 2000.0 + 10 * t})
        for t, v in enumerate(values)
    ]


def test_a_one_field_search_is_drawn_against_its_field_with_no_importance_bar():
    """The objective against the field, not against the trial; the range's ends
    marked; no 100 % importance bar; the best at the top of 5:20 says "widen it?"."""
    rows = pivot_rows([6.0, 12.0, 17.5, 19.7])
    figure = search_figure(
        rows, ["mean-p"], [True], ({PIVOT.field: 1.0}, 4), [3], "a search", params=[PIVOT]
    )
    assert len(figure.axes) == 1 and not figure.axes[0].patches  # one panel, no bar
    panel = figure.axes[0]
    assert panel.get_xlabel() == PIVOT.field
    chosen = next(line for line in panel.get_lines() if line.get_label() == "chosen")
    assert list(chosen.get_xdata()) == [19.7]
    ends = [line.get_xdata()[0] for line in panel.get_lines() if line.get_linestyle() == "--"]
    assert ends == [5.0, 20.0]
    title = " ".join(panel.get_title().split())
    assert title == (
        "at the edge of the range: launcher.pivot_height_mm = 19.7, the top of 5:20: widen it?"
    )
    middle = search_figure(
        rows, ["mean-p"], [True], (None, 4), [1], "a search", params=[PIVOT]
    )  # the best at 12 mm: nothing to widen
    assert middle.axes[0].get_title() == ""


def test_a_two_field_search_has_a_slice_per_field():
    rows = pivot_rows([6.0, 12.0, 17.5])
    figure = search_figure(
        rows, ["mean-p"], [True], (None, 3), [1], "a search", params=[PIVOT, SPEED]
    )
    assert [ax.get_xlabel() for ax in figure.axes] == [PIVOT.field, SPEED.field]
    speeds = next(line for line in figure.axes[1].get_lines() if line.get_label() == "chosen")
    assert list(speeds.get_xdata()) == [2010.0]


def test_a_field_searched_on_a_log_scale_is_labelled_in_plain_numbers():
    """The log axis's ticks read 100, 200, 300, not mathtext printed raw
    ("$\\mathdefault{10^{2}}$": the pictures parse no mathtext)."""
    rate = SearchParam("launcher.spring_rate_n_m", 100.0, 500.0, log=True)
    rows = [row(t, 0.5, **{rate.field: v}) for t, v in enumerate([120.0, 250.0, 480.0])]
    figure = search_figure(rows, ["mean-p"], [True], (None, 3), [1], "a search", params=[rate])
    figure.canvas.draw()
    axis = figure.axes[0].xaxis
    labels = [t.get_text() for t in axis.get_ticklabels() + axis.get_ticklabels(minor=True)]
    shown = [text for text in labels if text]
    assert {"100", "200", "300"} <= set(shown) and all(text.isdigit() for text in shown), shown
