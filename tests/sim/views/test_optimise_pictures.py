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
    figure = search_figure(rows, ["mean-p"], [True], None, [2], "a search")
    axes = figure.axes[0]
    labels = [t.get_text() for t in axes.get_legend().get_texts()]
    assert {"pruned (estimate)", "at full precision", "best so far", "chosen"} <= set(labels)
    best_so_far = next(line for line in axes.get_lines() if line.get_label() == "best so far")
    assert list(best_so_far.get_ydata()) == [0.60, 0.60, 0.70]  # the pruned trial never leads
    chosen = next(line for line in axes.get_lines() if line.get_label() == "chosen")
    assert list(chosen.get_ydata()) == [0.66]  # chosen on its figure at full precision
