"""The difference map of two designs fired with the same shots: the board coloured
by P_B - P_A, each space marked by what the comparison says of it, under a headline
that leads with the board-mean verdict, and a legend that says what the marks mean
(``piggy design compare A B --plot``, and the report page's first picture). The
comparison is made in sim/studies/comparing/compare.py; its words are
sim/studies/comparing/verdict_words.py's.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.patches import Patch, Polygon, Rectangle

from models.board import Board
from sim.defaults import DIFFERENCE_SCALES
from sim.studies.comparing import verdict, verdict_words
from sim.studies.comparing.compare import Comparison, study_title
from sim.studies.comparing.engines_verdict import AcrossEngines
from sim.studies.shots.dead_zones import FEW_SHOTS
from sim.studies.shots.records import ComparisonRow
from sim.views.pictures import draw_board


def difference_figure(
    board: Board,
    comparison: Comparison,
    made_by: dict | None = None,
    scale: float | None = None,
    across: AcrossEngines | None = None,
):
    """The board coloured by P_B - P_A on a scale of ``±scale`` (None: chosen from the
    data, :func:`difference_scale`, and the colour bar says so; diverging colours:
    blue where B knocks out more, red where fewer), under a headline that leads with
    the board-mean verdict (sim/studies/comparing/verdict_words.py) and then counts the spaces.

    Each space shows what the comparison says of it: significant spaces are drawn
    full, outlined and starred; under the spaces rule a space found the same within
    ±δ is faded with a dashed outline and "≈", one undecided at the cap faded with
    "?"; under the per-map rule the others are faded. A space with fewer than
    :data:`~sim.studies.shots.dead_zones.FEW_SHOTS` pairs says how many under its number;
    spaces out of reach of either design are hatched; a legend under the board says
    what the marks mean. ``made_by`` (the provenance) names the aimer, ``--vary``, the
    precision and the sampler in the title. With ``across`` (the same comparison in
    several engines, ``comparison`` the first's) the headline says whether the
    board-mean verdict is robust, and a purple corner marks each space the engines
    disagree on."""
    fig, ax = plt.subplots(figsize=(6.5, 9.2))
    draw_board(ax, board, labels=True)
    chosen = "set by --scale" if scale is not None else "chosen from the data"
    scale = scale if scale is not None else difference_scale(comparison)
    cmap, norm = colormaps["RdBu"], Normalize(vmin=-scale, vmax=scale, clip=True)
    for row in comparison.spaces:
        outcome = verdict_words.space_outcome(
            comparison.rule.name, row.significant, row.stop, row.diff is not None
        )
        _draw_space(ax, board, row, outcome, cmap(norm(row.diff or 0.0)))
    for space in across.differing() if across else []:
        _mark_disagreement(ax, board, space)
    mappable = plt.cm.ScalarMappable(cmap=cmap, norm=norm)
    fig.colorbar(
        mappable,
        ax=ax,
        shrink=0.6,
        extend="both",
        label=f"P({comparison.design_b}) - P({comparison.design_a}), ±{scale:g} ({chosen}; "
        "numbers: percentage points)",
    )
    _headline(ax, comparison, made_by, across)
    _legend(ax, comparison, cmap, norm, across)
    ax.axis("off")
    return fig


def difference_scale(comparison: Comparison) -> float:
    """The smallest of :data:`~sim.defaults.DIFFERENCE_SCALES` that holds every compared
    space's difference (the largest with none)."""
    largest = max((abs(r.diff) for r in comparison.spaces if r.diff is not None), default=1.0)
    return next((s for s in DIFFERENCE_SCALES if largest <= s), DIFFERENCE_SCALES[-1])


#: How each outcome of a space is drawn: (faded, outline colour, outline style, the mark
#: after its number, bold).
_LOOKS: dict[str, tuple[bool, str, object, str, bool]] = {
    "flagged": (False, "black", "solid", "*", True),
    "within": (True, "#3a3a3a", (0, (2.5, 1.5)), "≈", False),
    "undecided": (True, "none", "solid", "?", False),
    "not_detected": (True, "none", "solid", "", False),
}


def _faded(colour) -> tuple:
    """A colour mixed with white, so that the eye goes to the significant spaces."""
    return tuple(0.3 * c + 0.7 for c in colour[:3])


def _draw_space(ax, board: Board, row: ComparisonRow, outcome: str, colour) -> None:
    """One space: its difference's colour (hatched out of reach), outline, number and
    mark, and the pairs under it when they are few."""
    s = board.space_mm
    x, y = board.space_center_mm(board.parse_space(row.space)) - s / 2
    if outcome == "out_of_reach" or row.diff is None:
        ax.add_patch(
            Rectangle((x, y), s, s, facecolor="none", edgecolor="#555555", hatch="///", zorder=2)
        )
        return
    faded, edge, style, mark, bold = _LOOKS[outcome]
    shown = _faded(colour) if faded else colour
    # zorder 2: over the spaces, under the board's names, checkpoints and fences; the
    # outline a little above, so that no neighbouring space covers half of it
    ax.add_patch(Rectangle((x, y), s, s, facecolor=shown, edgecolor="none", zorder=2))
    if edge != "none":
        ax.add_patch(
            Rectangle(
                (x, y),
                s,
                s,
                facecolor="none",
                edgecolor=edge,
                linewidth=2.0 if bold else 1.3,
                linestyle=style,
                zorder=2.1,
            )
        )
    dark = 0.299 * shown[0] + 0.587 * shown[1] + 0.114 * shown[2] < 0.5
    ink = "white" if dark else "black"
    few = row.shots < FEW_SHOTS
    ax.text(
        x + s / 2,
        y + s / 2 + (5 if few else 0),
        f"{100 * row.diff:+.0f}{mark}",
        ha="center",
        va="center",
        fontsize=7,
        color=ink,
        weight="bold" if bold else "normal",
        zorder=6,
    )
    if few:
        ax.text(
            x + s / 2,
            y + s / 2 - 7,
            f"{row.shots} pairs",
            ha="center",
            va="center",
            fontsize=5.5,
            color=ink,
            style="italic",
            zorder=6,
        )


#: The colour of what the engines disagree on.
_DISAGREE = "#7b3294"


def _mark_disagreement(ax, board: Board, space: str) -> None:
    """A purple corner (top right) on a space whose verdict differs between engines."""
    s = board.space_mm
    x, y = board.space_center_mm(board.parse_space(space)) + s / 2
    corner = s * 0.32
    ax.add_patch(
        Polygon([(x, y), (x - corner, y), (x, y - corner)], closed=True, color=_DISAGREE, zorder=6)
    )


def _wrap(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, a design's name never split at
    its hyphens ("wide-piggy")."""
    return textwrap.fill(text, width, break_on_hyphens=False, break_long_words=False)


#: The headline's colour by the board-mean verdict: the colour bar's blue where B
#: knocks out more, its red where fewer.
_HEADLINE_COLOURS = {"more": "#1c4f8f", "fewer": "#a3202a"}


def _headline(
    ax, comparison: Comparison, made_by: dict | None, across: AcrossEngines | None
) -> None:
    """The title: the board-mean verdict, big, first (its words, then its figures; with
    several engines, whether it is robust and each engine's mean); the spaces counted
    under it; then what was compared and what made it, small."""
    a, b = comparison.design_a, comparison.design_b
    said, figures = (
        across.headline()
        if across
        else verdict_words.board_mean_parts(
            a,
            b,
            comparison.on_average,
            comparison.mean_diff,
            comparison.delta,
            comparison.mean_stop,
        )
    )
    colour = _HEADLINE_COLOURS.get(comparison.on_average or "", "black")
    if across and not across.robust_on_average:
        colour = _DISAGREE
    # right above the title, whatever its height: the first thing read
    ax.annotate(
        "\n".join([_wrap(said, 52), *([figures] if figures else [])]),
        xy=(0.5, 1.0),
        xycoords=ax.title,
        xytext=(0, 6),
        textcoords="offset points",
        ha="center",
        va="bottom",
        fontsize=13,
        weight="bold",
        color=colour,
    )
    spaces = verdict_words.spaces_line(
        a,
        b,
        verdict.space_counts(comparison.spaces),
        comparison.rule.name,
        comparison.delta,
        comparison.mean_stop,
    )
    rule = f"{comparison.rule.name} rule" + (
        f", δ {comparison.delta:g}" if comparison.delta is not None else ""
    )
    if comparison.stopped is not None:
        spaces += (
            ". "
            + verdict_words.mean_stop_words(
                comparison.stopped.to_dict(), comparison.delta, len(comparison.spaces)
            ).capitalize()
        )
        if comparison.rule.budget_s is not None:
            rule += f", budget {comparison.rule.budget_s:g} s"
    drawn = f", as {across.engines[0]} measured it" if across else ""
    small = [
        f"P({b}) - P({a}) space by space, the same shots ({rule}){drawn}",
        *([study_title(made_by)] if made_by else []),
    ]
    ax.set_title(
        _wrap(spaces, 80) + "\n\n" + "\n".join(_wrap(line, 105) for line in small),
        fontsize=8,
    )


def _legend(ax, comparison: Comparison, cmap, norm, across: AcrossEngines | None) -> None:
    """What each space's look and mark mean, under the board."""
    delta = comparison.delta
    full, light = cmap(norm(0.3)), _faded(cmap(norm(0.3)))
    b = comparison.design_b
    if comparison.rule.name == "mean":
        entries = [
            (
                Patch(facecolor=full, edgecolor="black", linewidth=2.0),
                f"* full colour, outlined: the sign is decided where the board mean stopped, "
                f"{b} knocks out more (blue) or fewer (red): family-wise 95 % over the spaces "
                "and looks, Holm",
            ),
            (
                Patch(facecolor=light, edgecolor="none"),
                f"? faded: {verdict_words.undecided(comparison.mean_stop)} (its interval in "
                "the table and the JSON; never 'no difference')",
            ),
        ]
    elif comparison.rule.name == "spaces":
        entries = [
            (
                Patch(facecolor=full, edgecolor="black", linewidth=2.0),
                f"* full colour, outlined: the sign is decided, {b} knocks out more (blue) "
                "or fewer (red): family-wise 95 %, Holm",
            ),
            (
                Patch(facecolor=light, edgecolor="#3a3a3a", linewidth=1.3, linestyle="--"),
                f"≈ faded, dashed outline: the same within ±{delta or 0:g} (the "
                "interval lies inside)",
            ),
            (
                Patch(facecolor=light, edgecolor="none"),
                f"? faded: undecided at the cap (neither its sign nor ±{delta or 0:g} settled)",
            ),
        ]
    else:
        entries = [
            (
                Patch(facecolor=full, edgecolor="black", linewidth=2.0),
                "* full colour, outlined: significant (95 %, Holm)",
            ),
            (Patch(facecolor=light, edgecolor="none"), "faded: no detectable difference"),
        ]
    entries.append(
        (
            Patch(facecolor="none", edgecolor="#555555", hatch="///"),
            f'hatched: out of reach of one design; "n pairs": fewer than {FEW_SHOTS} pairs',
        )
    )
    if across:
        entries.append(
            (
                Patch(facecolor="white", edgecolor=_DISAGREE, linewidth=2.0),
                f"purple corner: the engines' verdicts differ here ({', '.join(across.engines)}"
                "): not robust",
            )
        )
    handles, labels = zip(*entries, strict=True)
    ax.legend(
        handles,
        [_wrap(label, 100) for label in labels],
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        fontsize=7,
        frameon=False,
        handlelength=1.6,
        handleheight=1.4,
    )
