"""The design report page's words and table rows (sim/views/report_page.py draws
the pictures and writes the page): the verdict box, the table's rows with why each
space stopped (and what every engine found there), what the interval and p-value
are for the test actually run, and the provenance's rows. Plain text and HTML
escaped here: no picture is drawn."""

from __future__ import annotations

import html

from sim.studies.comparing import verdict_words


def provenance_rows(made_by: dict) -> str:
    """The provenance table's rows (HTML): each design's file and sha256s and the
    shots it fired, the rule, then the settings that made the maps."""
    lines = []
    for design in made_by.get("designs", []):
        lines.append(
            (
                "design " + design["design"],
                f"{design['design_file']}<br>file sha256 <code>"
                f"{design['design_file_sha256']}</code><br>normalised sha256 <code>"
                f"{design['design_sha256']}</code><br>shots fired a space: "
                + ", ".join(f"{k} {v}" for k, v in design["shots_fired"].items()),
            )
        )
    vary = made_by.get("vary") or {}
    for label, value in (
        *_rule_rows(made_by),
        ("board", made_by.get("board")),
        ("layout", made_by.get("layout") or "empty"),
        (
            "aimer",
            f"{made_by.get('aimer')} (aim spread {made_by.get('aim_sd_deg')} deg, "
            f"bias {made_by.get('aim_bias_deg')} deg)",
        ),
        ("--vary", ", ".join(f"{k} ±{100 * v:g} %" for k, v in vary.items()) or "none"),
        ("precision", made_by.get("precision") or "none (fixed shots)"),
        ("shots a space, at most", made_by.get("shots_cap")),
        ("sampler", made_by.get("sampler") or "plain Monte Carlo"),
        ("seed", made_by.get("seed")),
        ("hit rule", made_by.get("hit_rule")),
        ("arc", made_by.get("arc")),
        ("version", made_by.get("version")),
    ):
        if value is not None:
            lines.append((label, html.escape(str(value))))
    return "\n".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in lines)


def _rule_rows(made_by: dict) -> list[tuple[str, object]]:
    """The provenance's rule: per-map, or the mean or the spaces rule with δ, its looks
    and its family-wise level (and the mean rule's budget)."""
    rule = made_by.get("rule")
    if rule is None:
        return []
    if rule == "mean":
        return _mean_rule_rows(made_by.get("mean_rule") or {})
    if rule not in ("spaces", "paired"):
        return [("rule", "per-map: each design's hit map measured on its own, then paired")]
    constants = made_by.get("paired_rule") or {}
    delta = constants.get("delta")
    looks = constants.get("looks") or []
    return [
        (
            "rule",
            "spaces (sequential): the designs fire together at each space until its sign is "
            "decided, its interval lies within ±δ, or the cap",
        ),
        ("δ", "none (no space stops as the same)" if delta is None else f"±{delta:g}"),
        (
            "looks (pairs a space)",
            f"{', '.join(str(n) for n in looks)}; family-wise {constants.get('alpha')} over "
            f"{constants.get('spaces')} spaces",
        ),
    ]


def _mean_rule_rows(constants: dict) -> list[tuple[str, object]]:
    """The mean rule's provenance: δ of the mean, its looks, the budget."""
    delta, budget = constants.get("delta"), constants.get("budget_s")
    looks = constants.get("looks") or []
    return [
        (
            "rule",
            "mean (sequential): the designs fire together at every space, look by look, until "
            "the board mean's sign is decided, its interval lies within ±δ, or the cap",
        ),
        ("δ (the mean's)", "none" if delta is None else f"±{delta:g}"),
        (
            "looks (pairs a space)",
            f"{', '.join(str(n) for n in looks)}; 95 % over the looks; spaces family-wise "
            f"{constants.get('alpha')} over {constants.get('spaces')} spaces and the looks",
        ),
        ("budget", "none" if budget is None else f"{budget:g} s"),
    ]


#: What the table's p-value and interval are, by rule and sampler: (the p column's
#: head, the sentence above the table).
_TESTS = {
    "mean": (
        f"p ({verdict_words.p_test('mean', 'rqmc')})",
        "the difference's interval is Tango's score interval at the looks' level (the "
        "intervals of all the looks hold together with 95 %), at the look where the board "
        "mean stopped; p: the exact McNemar test there, Bonferroni over the looks, then Holm "
        "over all the spaces; a space not flagged is not decided (at this precision, the cap "
        "or the budget: what stopped the board mean).",
    ),
    "spaces": (
        f"p ({verdict_words.p_test('spaces', 'rqmc')})",
        "the difference's interval is Tango's score interval at the paired rule's level "
        "(the intervals of all its looks hold together with 95 %); p: the exact McNemar test "
        "at each look, Bonferroni over the looks, then Holm over all the spaces; stopped: why "
        "the paired rule stopped firing there (sign decided, family-wise; within ±δ: its "
        "interval lies inside; undecided at the cap: neither, at the most pairs).",
    ),
    "rqmc": (
        f"p ({verdict_words.p_test('per-map', 'rqmc')})",
        "the difference's interval is 95 % per space, Student's t over the RQMC scrambles' "
        "paired differences; p: the t-test over the scrambles, adjusted by Holm over all "
        "the spaces.",
    ),
    "mc": (
        f"p ({verdict_words.p_test('per-map', 'mc')})",
        "the difference's interval is 95 % per space, Newcombe's for paired shots; p: "
        "McNemar's exact test, adjusted by Holm over all the spaces.",
    ),
}


def test_words(data: dict) -> tuple[str, str]:
    """The p column's head and what the interval and p are, for the test actually run:
    the sequential rules' McNemar (mean, spaces), else the per-map rule's test for the sampler
    (a t-test over RQMC's scrambles, McNemar's with plain Monte Carlo)."""
    if data.get("rule") in ("mean", "spaces"):
        return _TESTS[data["rule"]]
    return _TESTS["rqmc" if data["provenance"].get("sampler") == "rqmc" else "mc"]


def with_delta(text: str, delta: float | None) -> str:
    """``text`` with δ's value where the comparison has one."""
    return text if delta is None else text.replace("±δ", f"±{delta:g}")


def verdict_box(data: dict) -> str:
    """The verdict box: the board mean, big, first; then the spaces counted."""
    a, b = data["design_a"], data["design_b"]
    stop = data.get("mean_rule", {}).get("stop")
    mean = verdict_words.board_mean(
        a, b, data["on_average"], data["mean_diff"], data["delta"], stop
    )
    spaces = verdict_words.spaces_line(
        a, b, data["space_counts"], data["rule"], data["delta"], stop
    )
    return (
        f'<div class="verdict {data["on_average"] or "none"}" id="verdict">'
        f'<p class="mean" id="board-mean">{html.escape(mean)}</p>'
        f'<p class="mean-what">The mean of P({html.escape(b)}) - P({html.escape(a)}) over the '
        "spaces both reach, with its 95 % interval.</p>"
        f'<p class="spaces" id="spaces-line">{html.escape(spaces)}.</p>{_stopped(data)}'
        f"{_engines(data)}</div>"
    )


def _stopped(data: dict) -> str:
    """Where the board-mean rule stopped, its shots and what more it would need."""
    if not data.get("mean_rule"):
        return ""
    spaces = len(data["rows"]) if "rows" in data else 0
    words = verdict_words.mean_stop_words(data["mean_rule"], data["delta"], spaces)
    return f'<p class="spaces" id="mean-stop">{html.escape(words[0].upper() + words[1:])}.</p>'


def _engines(data: dict) -> str:
    """Under the verdict, with several engines: whether it is robust (the same in every
    engine), and whose measurement the maps and the table show."""
    engines = data.get("engines")
    if not engines:
        return ""
    first = engines["engines"][0]
    robust = "robust" if engines["robust_on_average"] else "not-robust"
    return (
        f'<p class="engines {robust}" id="engines-line">{html.escape(engines["verdict"])}.</p>'
        f'<p class="mean-what">The maps, the figures and the table are {html.escape(first)}\'s; '
        "the last column says what every engine found at each space. Two engines agreeing "
        "is not the real toy: they share its shapes and coefficients.</p>"
    )


def _engine_words(row: dict) -> str:
    """What the engines found at a space: "agree: more" or each engine's word."""
    said = row["verdicts"]
    if row["robust"]:
        return "agree: " + next(iter(said.values())).replace("_", " ")
    return "; ".join(f"{e} {v.replace('_', ' ')}" for e, v in said.items())


def table_rows(data: dict) -> list[dict]:
    """The table's rows, each with why the spaces rule stopped there in words (and,
    with several engines, what they found there)."""
    engines = {r["space"]: _engine_words(r) for r in data.get("engines", {}).get("spaces", [])}
    return [
        r
        | {"stopped": verdict_words.stop_words(r.get("stop"), r["significant"], data["delta"])}
        | ({"engines": engines.get(r["space"], "")} if engines else {})
        for r in data["rows"]
    ]
