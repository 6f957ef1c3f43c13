"""The picture of a design search: what each trial's marker says."""

import matplotlib

from sim.views.optimise_pictures import search_figure

matplotlib.use("Agg")


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
    figure = search_figure(rows, ["mean-p"], [True], (None, 3), [2], "a search")
    axes = figure.axes[0]
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert {"pruned (estimate)", "at full precision", "best so far", "chosen"} <= set(labels)
    best_so_far = next(line for line in axes.get_lines() if line.get_label() == "best so far")
    assert list(best_so_far.get_ydata()) == [0.60, 0.60, 0.70]  # the pruned trial never leads
    chosen = next(line for line in axes.get_lines() if line.get_label() == "chosen")
    assert list(chosen.get_ydata()) == [0.66]  # chosen on its figure at full precision


def test_the_importances_say_how_many_trials_they_rest_on_and_hide_below_the_minimum():
    from sim.studies.optimise import MIN_IMPORTANCE_TRIALS

    rows = [row(t, 0.5 + t / 100) for t in range(MIN_IMPORTANCE_TRIALS)]
    shares = {"bale.width_mm": 0.8, "launcher.pivot_height_mm": 0.2}
    figure = search_figure(rows, ["mean-p"], [True], (shares, 12), [9], "a search")
    panel = figure.axes[1]
    assert panel.get_title() == "from 12 feasible trials"
    assert [t.get_text() for t in panel.get_yticklabels()] == list(shares)[::-1]
    figure = search_figure(rows[:5], ["mean-p"], [True], (None, 5), [4], "a search")
    said = " ".join(t.get_text() for t in figure.axes[1].texts)
    assert "not shown" in said and "5 feasible trials" in " ".join(said.split())
    assert f"need {MIN_IMPORTANCE_TRIALS}" in said and not figure.axes[1].patches
