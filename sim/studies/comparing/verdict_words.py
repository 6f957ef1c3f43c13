"""The words of a design comparison, shared by its verdict line (text and JSON:
sim/studies/comparing/compare.py), its difference map and its report page
(sim/views/difference_map.py, sim/views/report_rows.py), so that all say the same
thing the same way.

First the board mean, the sentence a designer reads before anything else (is B
better on average?); then the spaces, counted by what the comparison says of each;
then what one space's outcome is called. A map of faded spaces with none flagged
must not read as "no effect" when the board mean differs: the headline says it.
"""

from __future__ import annotations

#: What the sequential paired rule's stop at a space is called (models/sequential.py);
#: "within" takes δ.
STOP_WORDS = {
    "sign": "sign decided",
    "equivalent": "within ±{delta:g}",
    "cap": "undecided at the cap",
}


#: The sequential rules: the designs fire together (the mean rule, the spaces rule).
SEQUENTIAL = ("mean", "spaces")
#: Said once under the designs' figures of a sequential comparison: each design's
#: shots stop with its partner's, so its figures are this comparison's.
PAIRED_FIGURES = (
    "(paired shots: each design fired until its comparison stopped, so {design}'s own "
    "figures above change with its partner)"
)


def p_test(rule: str, sampler: str) -> str:
    """The test behind a space's p-value, named by what was run: the sequential
    rules' exact McNemar test over the looks, else the per-map rule's test for the
    sampler (a t-test over RQMC's scrambles, McNemar's with plain Monte Carlo); Holm
    over the spaces either way."""
    if rule in SEQUENTIAL:
        return "McNemar, looks, Holm"
    return "t-test, Holm" if sampler == "rqmc" else "McNemar, Holm"


#: Below this a p-value is written as a bound: a test's p of 1e-9 is no more
#: meaningful than 0.0004, and a p rounded to 0 would claim certainty.
P_FLOOR = 0.001


def p_figure(p: float | None) -> str:
    """A p-value as every text and page writes it: "< 0.001" below :data:`P_FLOOR`,
    else to two significant figures ("0.045", "0.0012"); "–" where there is none."""
    if p is None:
        return "–"
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.2g}"


def p_words(p: float | None) -> str:
    """:func:`p_figure` after its name: "p < 0.001", "p = 0.045"."""
    said = p_figure(p)
    return f"p {said}" if said.startswith("<") else f"p = {said}"


def board_mean(
    design_a: str,
    design_b: str,
    on_average: str | None,
    mean_diff: tuple | list,
    delta: float | None,
    stop: str | None = None,
) -> str:
    """The board-mean verdict in one sentence: "On average B knocks out more than A:
    +0.04 [+0.03, +0.05] (95 %)" (``on_average``: :attr:`Comparison.on_average
    <sim.studies.comparing.compare.Comparison.on_average>`; ``mean_diff``: mean, low, high;
    ``stop``: why the board-mean rule stopped, :func:`undecided`)."""
    said, figures = board_mean_parts(design_a, design_b, on_average, mean_diff, delta, stop)
    return f"{said}: {figures}" if figures else said


def board_mean_parts(
    design_a: str,
    design_b: str,
    on_average: str | None,
    mean_diff: tuple | list,
    delta: float | None,
    stop: str | None = None,
) -> tuple[str, str]:
    """:func:`board_mean` in two parts, the words and the figures ("" with no space in
    reach of both), for a headline that puts them on lines of their own. Words that
    weigh the size: a mean wholly within ±δ is practically the same, whatever its
    sign; one the board-mean rule has not decided says so."""
    if on_average is None:
        return f"{design_b} and {design_a}: no space in reach of both", ""
    mean, low, high = mean_diff
    said = {
        "more": f"On average {design_b} knocks out more than {design_a}",
        "fewer": f"On average {design_b} knocks out fewer than {design_a}",
        "within_delta": f"On average {design_b} and {design_a} are practically the same",
        "not_detectable": f"On average no detectable difference between {design_b} and {design_a}",
        "undecided": f"On average {design_b} against {design_a} is {undecided(stop)}",
    }[on_average]
    figures = f"{figure(mean, mean)} [{figure(low, mean)}, {figure(high, mean)}] (95 %)"
    if on_average == "within_delta":
        figures += f", within ±{delta or 0:g}"
    return said, figures


#: What left a question of the board-mean rule open, by how the rule stopped
#: (models/mean_rule.py's ``STOPS``): the time given, or every look taken.
_UNDECIDED = {"budget": "not decided at this budget", "cap": "not decided at the cap"}


def undecided(stop: str | None) -> str:
    """A question the board-mean rule left open, in the words of what stopped it
    (``stop``: :attr:`MeanStop.stop <sim.studies.comparing.compare.MeanStop>`):
    ``--budget``'s time ("not decided at this budget"), every look taken ("... at
    the cap"), else the precision's looks and the rule, the board mean decided
    before the space ("... at this precision")."""
    return _UNDECIDED.get(stop or "", "not decided at this precision")


def figure(value: float, mean: float) -> str:
    """A difference as the verdict prints it: signed, to two decimals, or three where
    the mean is under 0.05 (a mean of +0.005 [+0.001, +0.008] would read "+0.00
    [+0.00, +0.01]")."""
    return f"{value:+.3f}" if abs(mean) < 0.05 else f"{value:+.2f}"


def spaces_line(
    design_a: str,
    design_b: str,
    counts: dict[str, int],
    rule: str,
    delta: float | None,
    stop: str | None = None,
) -> str:
    """The spaces by what the comparison says of each (``counts``:
    :func:`sim.studies.comparing.verdict.space_counts`): under the mean rule more, fewer
    (family-wise over the spaces and looks) and not decided (:func:`undecided`, by the
    mean rule's ``stop``); under the
    spaces rule more, fewer, within ±δ and undecided at the cap (family-wise); under
    the per-map rule more, fewer and no detectable difference; then where only one
    design reaches."""
    more, fewer = counts["more"], counts["fewer"]
    text = (
        f"Space by space, {design_b} knocks out more on {more} space{'s' if more != 1 else ''}, "
        f"fewer on {fewer}"
    )
    if rule == "mean":
        text += (
            f" (family-wise 95 % over the spaces and looks, Holm), {undecided(stop)} "
            f"on {counts['undecided']}"
        )
    elif rule == "spaces":
        within = (
            f", the same within ±{delta:g} on {counts['within_delta']}" if delta is not None else ""
        )
        text += f"{within}, undecided at the cap on {counts['undecided']} (family-wise 95 %, Holm)"
    else:
        text += f", no detectable difference on {counts['undecided']} (95 %, Holm)"
    if counts["only_a"] or counts["only_b"]:
        text += (
            f"; only {design_a} reaches {counts['only_a']}, "
            f"only {design_b} reaches {counts['only_b']}"
        )
    return text


def stop_words(stop: str | None, significant: bool, delta: float | None) -> str:
    """Why the spaces rule stopped at a space, in words ("" for a space it did not
    compare): a space at the cap whose difference is significant after all (Holm over
    the spaces) is not undecided."""
    if stop is None:
        return ""
    if stop == "cap" and significant:
        return "at the cap"
    return STOP_WORDS[stop].format(delta=delta or 0)


def space_outcome(rule: str, significant: bool, stop: str | None, in_reach: bool) -> str:
    """What the comparison says of one space: "flagged" (significant), "within" (the
    spaces rule found it the same within ±δ), "undecided" (the spaces rule's cap
    came first; the mean rule's spaces not decided at this budget), "not_detected"
    (the per-map rule's not significant), or "out_of_reach" (of one design or
    both)."""
    if not in_reach:
        return "out_of_reach"
    if significant:
        return "flagged"
    if rule == "per-map":
        return "not_detected"
    return "within" if stop == "equivalent" else "undecided"


#: Why the board-mean rule stopped, in words (models/mean_rule.py's ``STOPS``).
MEAN_STOP_WORDS = {
    "sign": "its sign decided",
    "equivalent": "within ±{delta:g}",
    "cap": "at the cap",
    "budget": "the budget spent",
}


def mean_stop_words(stopped: dict, delta: float | None, spaces: int) -> str:
    """Where the board-mean rule stopped (``stopped``: sim/studies/comparing/compare.py's
    ``MeanStop.to_dict()``): why, at which of its looks, the pairs and shots; and for
    a mean not decided, about how many more shots would decide it."""
    why = MEAN_STOP_WORDS[stopped["stop"]].format(delta=delta or 0)
    text = (
        f"board mean: {why} at look {stopped['looks_taken']} of {len(stopped['looks'])}, "
        f"{stopped['pairs_a_space']} pairs a space, {stopped['shots']:,} shots"
    )
    needed = stopped["more_pairs_a_space_needed"]
    if needed:
        more = (needed - stopped["pairs_a_space"]) * spaces * 2
        text += (
            f"; not decided: about {needed} pairs a space (about {more:,} more shots) "
            "would decide it"
        )
    return text
