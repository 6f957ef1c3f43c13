"""The picture of a design search: over one or two fields, the objective against each
field (a slice per field, its search range marked, the note where the best lies at
its edge); over more, the objective against the trial and the fields' importances
(one field's importance is always all of it: no bar to show). The Pareto front
beside either when there are several objectives."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib import ticker

from sim.studies.optimising.optimise import MIN_IMPORTANCE_TRIALS
from sim.studies.optimising.search_settings import at_edge, edge_words

#: The most fields a search is drawn as slices for (one panel each).
MAX_SLICES = 2


def search_figure(
    rows: list[dict],
    objectives: list[str],
    maximise: list[bool],
    importances: tuple[dict[str, float] | None, int],
    front: list[int],
    title: str,
    *,
    params: Sequence,
):
    """``rows``: one per trial (its number, each field's value, objectives and
    ``<name>_ci_low/high``, ``feasible``, ``base``: BASE's own values, ``design``: its
    name); ``front``: the best trials' numbers, the first the one chosen;
    ``importances``: field -> its share of the objective's importance (None: not
    shown), and the feasible trials they rest on; ``params``: the fields searched
    (``SearchParam``: field, low, high, log)."""
    if len(params) <= MAX_SLICES:
        return _slices_figure(rows, objectives, maximise, front, title, params)
    panels = 3 if len(objectives) > 1 else 2
    fig, axes = plt.subplots(
        1,
        panels,
        figsize=(5.6 * panels, 4.6),
        gridspec_kw={"width_ratios": [1.4] + [1] * (panels - 1)},
    )
    _objective_panel(axes[0], rows, objectives[0], maximise[0], front)
    _importance_panel(axes[1], importances, objectives[0])
    if panels == 3:
        _front_panel(axes[2], rows, objectives[:2], front)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _slices_figure(rows, objectives, maximise, front, title, params):
    """One panel per field searched, the objective against it; the Pareto front beside
    them with several objectives."""
    panels = len(params) + (len(objectives) > 1)
    fig, axes = plt.subplots(1, panels, figsize=(5.6 * panels, 4.6), squeeze=False)
    for ax, param in zip(axes[0], params, strict=False):
        _slice_panel(ax, rows, param, objectives[0], maximise[0], front)
    if len(objectives) > 1:
        _front_panel(axes[0][-1], rows, objectives[:2], front)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _slice_panel(ax, rows, param, objective, maximise, front) -> None:
    """Each trial's objective against the field's value, with its interval (pruned
    hollow and grey, at full precision a diamond), the search range's ends dashed,
    the chosen starred; over the panel, the note when the chosen lies at an end."""
    field = param.field
    feasible = [r for r in rows if r["feasible"]]
    raced = [r for r in feasible if not r.get("pruned")]
    for group, style in (
        (raced, {"fmt": "o", "color": "#1f77b4", "label": "feasible (95 % interval)"}),
        (
            [r for r in feasible if r.get("pruned")],
            {"fmt": "o", "mfc": "none", "color": "#999999", "label": "pruned (estimate)"},
        ),
        (
            [r for r in feasible if r.get(f"{objective}_full") is not None],
            {"fmt": "D", "color": "#ff7f0e", "label": "at full precision", "suffix": "_full"},
        ),
    ):
        if group:
            _with_intervals(ax, group, objective, x=field, **style)
    for end in (param.low, param.high):
        ax.axvline(
            end, color="#555555", ls="--", lw=1, label="search range" if end == param.low else None
        )
    chosen = [r for r in feasible if r["trial"] in front]
    ax.plot(
        [r[field] for r in chosen],
        [_figure(r, objective) for r in chosen],
        "*",
        color="#d62728",
        markersize=14,
        label="chosen" if len(chosen) == 1 else "Pareto front",
    )
    for r in feasible:
        if r["base"]:
            ax.annotate(
                "BASE",
                (r[field], r[objective]),
                textcoords="offset points",
                xytext=(6, -12),
                fontsize=8,
            )
    infeasible = [r for r in rows if not r["feasible"]]
    if infeasible:
        low = ax.get_ylim()[0] if feasible else 0.0
        ax.plot(
            [r[field] for r in infeasible],
            [low] * len(infeasible),
            "x",
            color="#d62728",
            label="infeasible (no score)",
        )
    first = [r for r in chosen if front and r["trial"] == front[0]]  # the one chosen
    edges = [e for r in first for e in at_edge([param], {field: r[field]})]
    if edges:
        said = edge_words(edges[0]).replace("range: ", "range:\n", 1)
        ax.set_title(said, fontsize=9, color="#d62728")
    if param.log:
        ax.set_xscale("log")
        # plain numbers: the log axis's default labels are mathtext ("$10^{2}$"), which
        # the pictures leave unparsed (sim/views/pictures.py) and would print raw
        ax.xaxis.set_major_formatter(ticker.LogFormatter())
        ax.xaxis.set_minor_formatter(ticker.LogFormatter())
    ax.set_xlabel(field)
    ax.set_ylabel(f"{objective} ({'higher' if maximise else 'lower'} is better)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _objective_panel(ax, rows, objective, maximise, front) -> None:
    """Each trial's objective at the search's fidelity with its interval (a pruned
    trial's, an estimate, hollow and grey); the few measured again at full precision
    beside it (a diamond); the best so far over the unpruned trials; the chosen."""
    feasible = [r for r in rows if r["feasible"]]
    infeasible = [r for r in rows if not r["feasible"]]
    raced = [r for r in feasible if not r.get("pruned")]
    pruned = [r for r in feasible if r.get("pruned")]
    for group, style in (
        (raced, {"fmt": "o", "color": "#1f77b4", "label": "feasible (95 % interval)"}),
        (pruned, {"fmt": "o", "mfc": "none", "color": "#999999", "label": "pruned (estimate)"}),
        (
            [r for r in feasible if r.get(f"{objective}_full") is not None],
            {"fmt": "D", "color": "#ff7f0e", "label": "at full precision", "suffix": "_full"},
        ),
    ):
        if group:
            _with_intervals(ax, group, objective, **style)
    if raced:
        best, line = None, []
        for r in rows:  # the best unpruned feasible value so far, trial by trial
            if r in raced and (
                best is None or (r[objective] > best if maximise else r[objective] < best)
            ):
                best = r[objective]
            line.append(best)
        ax.step(
            [r["trial"] for r in rows], line, where="post", color="#2ca02c", label="best so far"
        )
    for r in rows:
        if r["base"] and r["feasible"]:
            ax.annotate(
                "BASE",
                (r["trial"], r[objective]),
                textcoords="offset points",
                xytext=(6, -12),
                fontsize=8,
            )
    chosen = [r for r in feasible if r["trial"] in front]
    ax.plot(
        [r["trial"] + (0.25 if r.get(f"{objective}_full") is not None else 0) for r in chosen],
        [_figure(r, objective) for r in chosen],
        "*",
        color="#d62728",
        markersize=14,
        label="chosen" if len(chosen) == 1 else "Pareto front",
    )
    if infeasible:
        low = ax.get_ylim()[0] if feasible else 0.0
        ax.plot(
            [r["trial"] for r in infeasible],
            [low] * len(infeasible),
            "x",
            color="#d62728",
            label="infeasible (no score)",
        )
    ax.set_xlabel("trial")
    ax.set_ylabel(f"{objective} ({'higher' if maximise else 'lower'} is better)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _with_intervals(ax, rows, objective, suffix: str = "", x: str = "trial", **style) -> None:
    """The rows' ``objective`` (or its figures at full precision, ``suffix``
    "_full") with their 95 % intervals against ``x`` (the trial, those drawn a little
    right of it; or a field)."""
    key = objective + suffix
    values = [r[key] for r in rows]
    ax.errorbar(
        [r[x] + (0.25 if suffix and x == "trial" else 0.0) for r in rows],
        values,
        yerr=[
            [v - r[f"{key}_ci_low"] for v, r in zip(values, rows, strict=True)],
            [r[f"{key}_ci_high"] - v for v, r in zip(values, rows, strict=True)],
        ],
        capsize=3,
        **style,
    )


def _figure(row: dict, objective: str) -> float:
    """A trial's objective as chosen on: at full precision where it was measured so."""
    full = row.get(f"{objective}_full")
    return row[objective] if full is None else full


def _importance_panel(ax, importances, objective) -> None:
    shares, trials = importances
    if not shares:
        ax.text(
            0.5,
            0.5,
            f"importances not shown: they rest on\n{trials} feasible trial"
            f"{'' if trials == 1 else 's'}, and need {MIN_IMPORTANCE_TRIALS} that\n"
            "score differently",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.axis("off")
        return
    names = list(shares)[::-1]
    ax.barh(names, [shares[n] for n in names], color="#9467bd")
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"importance for {objective} (PED-ANOVA, share)")
    ax.set_title(f"from {trials} feasible trials", fontsize=9)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)


def _front_panel(ax, rows, objectives, front) -> None:
    first, second = objectives
    feasible = [r for r in rows if r["feasible"]]
    ax.plot(
        [r[first] for r in feasible],
        [r[second] for r in feasible],
        "o",
        color="#aaaaaa",
        label="feasible trials",
    )
    chosen = sorted((r for r in feasible if r["trial"] in front), key=lambda r: r[first])
    ax.plot(
        [r[first] for r in chosen],
        [r[second] for r in chosen],
        "*-",
        color="#d62728",
        markersize=12,
        label="Pareto front",
    )
    for r in chosen:
        ax.annotate(
            str(r["trial"]),
            (r[first], r[second]),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=7,
        )
    ax.set_xlabel(first)
    ax.set_ylabel(second)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
