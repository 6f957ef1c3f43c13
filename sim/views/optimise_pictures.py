"""The picture of a design search: the objective against the trial, the fields'
importances, and the Pareto front when there are several objectives."""

from __future__ import annotations

import matplotlib.pyplot as plt

from sim.studies.optimise import MIN_IMPORTANCE_TRIALS


def search_figure(
    rows: list[dict],
    objectives: list[str],
    maximise: list[bool],
    importances: tuple[dict[str, float] | None, int],
    front: list[int],
    title: str,
):
    """``rows``: one per trial (its number, objectives and ``<name>_ci_low/high``,
    ``feasible``, ``base``: BASE's own values, ``design``: its name); ``front``: the
    best trials' numbers, the first the one chosen; ``importances``: field -> its
    share of the objective's importance (None: not shown), and the feasible trials
    they rest on."""
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


def _with_intervals(ax, rows, objective, suffix: str = "", **style) -> None:
    """The rows' ``objective`` (or its figures at full precision, ``suffix``
    "_full") with their 95 % intervals, drawn a little right of the trial for those."""
    key = objective + suffix
    values = [r[key] for r in rows]
    ax.errorbar(
        [r["trial"] + (0.25 if suffix else 0.0) for r in rows],
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
