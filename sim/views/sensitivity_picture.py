"""Which guesses matter, drawn: each guessed parameter's change of the board mean for
+10 % of it, with its 95 % interval, one bar per design, the largest on top
(sim/studies/maps/sensitivity.py measures them); and the design report's section
with that picture and its table (sim/views/report_page.py places it).
"""

from __future__ import annotations

import html

from sim.studies.maps.sensitivity import Effect, Sensitivity
from sim.views.pictures import figure_png, plt

#: The designs' bar colours, in order (the report's A and B).
COLOURS = ("#1c4f8f", "#c05a16")


def sensitivity_figure(found: dict[str, Sensitivity], title: str = ""):
    """Horizontal bars: the board mean's change for +10 % of each parameter and its
    95 % interval, per design (the first on top), the parameter with the first design's
    largest share of the variance on top (the table's order)."""
    first = next(iter(found.values()))
    order = [e.name for e in sorted(first.effects, key=lambda e: e.share)]
    height = 0.8 / len(found)
    fig, ax = plt.subplots(
        figsize=(7.5, 1.3 + 0.3 * len(found) + 0.55 * len(order) * max(1, len(found) * 0.7))
    )
    for d, (design, sensitivity) in enumerate(found.items()):
        effects = {e.name: e for e in sensitivity.effects}
        rows = [i - (d - (len(found) - 1) / 2) * height for i in range(len(order))]
        values = [effects[n].per_step for n in order]
        low = [effects[n].per_step - effects[n].per_step_ci[0] for n in order]
        high = [effects[n].per_step_ci[1] - effects[n].per_step for n in order]
        ax.barh(
            rows,
            values,
            height=height * 0.9,
            xerr=[low, high],
            color=COLOURS[d % len(COLOURS)],
            alpha=0.85,
            capsize=3,
            label=f"{design} (guesses move the mean ±{sensitivity.board_sd:.3f}, 1 sd)",
        )
    ax.axvline(0.0, color="#444", linewidth=0.8)
    ax.set_yticks(range(len(order)))
    ranges = {e.name: e for e in first.effects}
    ax.set_yticklabels(
        [f"{ranges[n].label} (±{100 * ranges[n].half_range:g} %)" for n in order], fontsize=9
    )
    ax.set_xlabel("change of the board mean P for +10 % of the parameter (95 % interval)")
    ax.set_ylim(-0.6, len(order) - 0.4)
    ax.set_title(title or "Which guesses matter", fontsize=11)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.11))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def sensitivity_section(found: dict[str, dict]) -> str:
    """The design report's section: the picture and one table, a row per parameter
    and a pair of columns per design (or, for a design whose shots could not say,
    why). Empty without ``--vary``."""
    if not found:
        return ""
    read = {d: Sensitivity.from_dict(s) for d, s in found.items() if "null_reason" not in s}
    notes = "".join(
        f"<p>{html.escape(d)}: {html.escape(s['null_reason'])}</p>"
        for d, s in found.items()
        if "null_reason" in s
    )
    if not read:
        return f'<h2>Which guesses matter</h2><div id="guesses">{notes}</div>'
    picture = figure_png(sensitivity_figure(read))
    first = next(iter(read.values()))
    heads = "".join(
        f"<th>{html.escape(d)}: board mean, +10 %</th><th>{html.escape(d)}: share</th>"
        for d in read
    )
    rows = []
    for effect in first.effects:
        cells = "".join(_cells({e.name: e for e in s.effects}[effect.name]) for s in read.values())
        rows.append(
            f"<tr><th>{html.escape(effect.label)}</th>"
            f"<td>±{100 * effect.half_range:g} %</td>{cells}</tr>"
        )
    together = "".join(
        f"<td colspan=2>±{s.board_sd:.3f} [{s.board_sd_ci[0]:.3f}, {s.board_sd_ci[1]:.3f}]</td>"
        for s in read.values()
    )
    return (
        '<h2>Which guesses matter</h2><div id="guesses">'
        "<p>From the comparison's own shots, no shot fired for it: each shot drew its own "
        "factor for every guessed parameter (--vary), and its outcome is regressed on them "
        "(a linear probability model, one intercept a space, every space weighted alike). "
        "Board mean, +10 %: how much P, averaged over the spaces, changes for +10 % of the "
        "parameter; share: its part of the board mean's variance over the ranges (the "
        "first-order index of that model). 95 % intervals from a bootstrap of the shots "
        "within spaces. Assumed: the factors uniform and independent, P linear in them over "
        "the range, shots independent. A parameter whose interval holds 0 is not shown to "
        "matter at these shots; the one on top is the one most worth measuring.</p>"
        f'<figure><img alt="which guesses matter" src="{picture}" style="max-width:760px">'
        "</figure>"
        f'<table id="guesses-table"><tr><th>parameter</th><th>range</th>{heads}</tr>'
        + "".join(rows)
        + f"<tr><th>all together (1 sd)</th><td></td>{together}</tr></table>{notes}</div>"
    )


def _cells(effect: Effect) -> str:
    low, high = effect.per_step_ci
    s_low, s_high = effect.share_ci
    bold = ' style="font-weight:bold"' if effect.clear else ""
    return (
        f"<td{bold}>{effect.per_step:+.3f} [{low:+.3f}, {high:+.3f}]</td>"
        f"<td>{100 * effect.share:.0f} % [{100 * s_low:.0f}, {100 * s_high:.0f}]</td>"
    )
