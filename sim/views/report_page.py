"""The design report page: one self-contained HTML file that a designer can send to
a colleague (``piggy design compare A B --html report.html``; its contents are
gathered by sim/studies/comparing/report.py, and drawn here: the pictures, and the recorded
shots as the 3D viewer's data).

No network and no server: the pictures are PNG data URIs, the table's rows and the
recorded shots are JSON inside the page, and its script is inline. The table sorts
by any column (click its head); clicking a space (or opening ``report.html#r2c3``)
shows its recorded shots, each in the project's 3D viewer (sim/views/viewer.py's
page, in a frame of its own).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import TYPE_CHECKING

from models.files import write_text_atomic
from sim.studies.comparing import compare, verdict_words
from sim.studies.shots import rqmc
from sim.views import viewer
from sim.views.design_pictures import difference_figure
from sim.views.hitmap_picture import heatmap_figure
from sim.views.pictures import figure_png
from sim.views.sensitivity_picture import sensitivity_section

if TYPE_CHECKING:
    from models.board import Board
    from models.design import Design
    from sim.studies.comparing.report import Report


def _json(value) -> str:
    """JSON safe inside a ``<script>`` element."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")


def _provenance_rows(made_by: dict) -> str:
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


def _test_words(data: dict) -> tuple[str, str]:
    """The p column's head and what the interval and p are, for the test actually run:
    the paired rule's sequential McNemar, else the per-map rule's test for the sampler
    (a t-test over RQMC's scrambles, McNemar's with plain Monte Carlo)."""
    if data.get("rule") in ("mean", "spaces"):
        return _TESTS[data["rule"]]
    return _TESTS["rqmc" if data["provenance"].get("sampler") == "rqmc" else "mc"]


def _with_delta(text: str, delta: float | None) -> str:
    """``text`` with δ's value where the comparison has one."""
    return text if delta is None else text.replace("±δ", f"±{delta:g}")


def _verdict(data: dict) -> str:
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


def _rows(data: dict) -> list[dict]:
    """The table's rows, each with why the paired rule stopped there in words (and,
    with several engines, what they found there)."""
    engines = {r["space"]: _engine_words(r) for r in data.get("engines", {}).get("spaces", [])}
    return [
        r
        | {"stopped": verdict_words.stop_words(r.get("stop"), r["significant"], data["delta"])}
        | ({"engines": engines.get(r["space"], "")} if engines else {})
        for r in data["rows"]
    ]


def page_data(report: Report) -> dict:
    """The page's data (what :func:`report_html` writes out): the report's contents,
    each recorded shot drawn for the 3D viewer in place of its ``ShotResult``, and the
    pictures as PNG data URIs: the difference map and each design's hit map."""
    board = report.board
    shots = {
        name: shot
        | {
            side: _drawn(board, design, shot[side])
            for side, design in zip("ab", report.designs, strict=True)
        }
        for name, shot in report.contents["shots"].items()
    }
    title_tail = compare.study_title(report.made_by)
    pictures = {
        "difference": figure_png(
            difference_figure(board, report.comparison, report.made_by, report.scale, report.across)
        )
    }
    for side, design, measured in zip("ab", report.designs, report.maps, strict=True):
        pictures[side] = figure_png(
            heatmap_figure(
                board,
                [m.row.to_dict() for m in measured],
                f"{design.name}: P(target knocked out)\n{title_tail}",
                interval=rqmc.interval_of(report.made_by),
            )
        )
    return report.contents | {"shots": shots, "pictures": pictures}


def write_report_page(path: str | Path, report: Report) -> Path:
    """The page (:func:`page_data`, :func:`report_html`) written atomically to ``path``."""
    return write_text_atomic(path, report_html(page_data(report)))


def _drawn(board: Board, design: Design, side: dict) -> dict:
    """One design's side of a recorded shot as the page holds it: the shot drawn for
    the 3D viewer (``data``, first, where its ``ShotResult`` stood), then the rest."""
    drawn = {"data": viewer.shot_data(board, design, side["result"])}
    return drawn | {k: v for k, v in side.items() if k != "result"}


def report_html(data: dict) -> str:
    """The page's text, from :func:`page_data`'s dict."""
    a, b = html.escape(data["design_a"]), html.escape(data["design_b"])
    p_head, tests = _test_words(data)
    paired = data.get("rule") == "spaces"
    stop_head = '<th data-key="stopped" data-type="text">stopped</th>' if paired else ""
    pictures = data["pictures"]
    page = (
        _PAGE.replace("__A__", a)
        .replace("__B__", b)
        .replace("__VERDICT__", _verdict(data))
        .replace("__TESTS__", html.escape(_with_delta(tests, data["delta"])))
        .replace("__P_HEAD__", html.escape(p_head))
        .replace("__STOP_HEAD__", stop_head)
        .replace(
            "__ENGINES_HEAD__",
            '<th data-key="engines" data-type="text">engines</th>' if "engines" in data else "",
        )
        .replace("__DIFF__", pictures["difference"])
        .replace("__MAP_A__", pictures["a"])
        .replace("__MAP_B__", pictures["b"])
        .replace("__GUESSES__", sensitivity_section(data.get("sensitivity") or {}))
        .replace("__MAX__", str(data["max_recorded"]))
        .replace("__FEW__", str(data["few_pairs"]))
        .replace("__PROVENANCE__", _provenance_rows(data["provenance"]))
    )
    payload = {
        "rows": _rows(data),
        "paired": paired,
        "engines": "engines" in data,
        "shots": data["shots"],
        "a": data["design_a"],
        "b": data["design_b"],
        "viewer": viewer.template(),
    }
    return page.replace("__DATA__", _json(payload)).replace("__SCRIPT__", _SCRIPT)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>__B__ against __A__: a design report</title>
<style>
body{margin:0 auto;max-width:1300px;padding:12px 20px;font:14px sans-serif;background:#f4f1ea;
color:#222}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:18px 0 6px}
.verdict{background:#fff;border-left:6px solid #777;padding:6px 14px}
.verdict.more{border-color:#1c4f8f}.verdict.fewer{border-color:#a3202a}
.verdict .mean{font-size:24px;font-weight:bold;margin:6px 0 2px}
.verdict.more .mean{color:#1c4f8f}.verdict.fewer .mean{color:#a3202a}
.verdict .mean-what{font-size:12px;color:#666;margin:0 0 8px}
.verdict .spaces{font-size:16px;margin:4px 0 6px}
.verdict .engines{font-size:16px;margin:8px 0 2px;font-weight:bold}
.verdict .engines.not-robust{color:#7b3294}
.maps{display:flex;gap:10px;flex-wrap:wrap}.maps figure{margin:0;flex:1;min-width:300px}
.maps img{width:100%;background:#fff}figcaption{font-size:12px;color:#555}
table{border-collapse:collapse;background:#fff;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
.tablebox{max-height:440px;overflow-y:auto;display:inline-block;border:1px solid #ccc}
#spaces th{cursor:pointer;background:#e8e2d4;user-select:none;position:sticky;top:0}
#spaces th.sorted-up::after{content:" \\25B2"}#spaces th.sorted-down::after{content:" \\25BC"}
#spaces tbody tr{cursor:pointer}#spaces tbody tr:hover{background:#fff6d8}
#spaces tr.chosen{background:#ffe9a8}td.why,td.stop{text-align:left;font-size:12px}
td.diff,td.stop{white-space:nowrap}
tr.sig td.diff{font-weight:bold}span.few{color:#a05000;font-style:italic}
.shots{display:flex;gap:10px}.shots>div{flex:1}
.shots iframe{width:100%;height:480px;border:1px solid #aaa;background:#fff}
#prov th{text-align:left;vertical-align:top}#prov td{text-align:left;font-size:12px}
.rec{color:#2a6db0}
</style></head><body>
<h1>__B__ against __A__, the same shots</h1>
__VERDICT__
<h2>The maps</h2>
<div class="maps">
<figure><img alt="difference map" src="__DIFF__"><figcaption>The difference, space by space,
on the scale its colour bar states.</figcaption></figure>
<figure><img alt="hit map of __A__" src="__MAP_A__"><figcaption>__A__</figcaption></figure>
<figure><img alt="hit map of __B__" src="__MAP_B__"><figcaption>__B__</figcaption></figure>
</div>
__GUESSES__
<h2>Space by space</h2>
<p>Click a column's head to sort; click a space to see its shots. P: the chance the target
is knocked out; __TESTS__ <span class="few">few</span>: fewer than __FEW__ pairs.
Dead: out of reach, blocked (the bale struck a fence, the tractor or another piggy first,
in most shots surely), missed (it struck nothing, in most shots surely), never out.
<span class="rec">&#9679;</span>: shots recorded in this page.</p>
<div class="tablebox"><table id="spaces"><thead><tr>
<th data-key="space" data-type="text">space</th><th data-key="p_a">P __A__</th>
<th data-key="p_b">P __B__</th><th data-key="diff">difference [95 %]</th>
<th data-key="p_value_adjusted">__P_HEAD__</th><th data-key="shots">pairs</th>__STOP_HEAD__
__ENGINES_HEAD__
<th data-key="dead_a" data-type="text">why __A__ fails</th>
<th data-key="dead_b" data-type="text">why __B__ fails</th></tr></thead>
<tbody></tbody></table></div>
<h2 id="shots-title">Shots</h2>
<p id="shots-note">Click a space in the table. The page records the shots of at most __MAX__
spaces when it is written (the significant ones first, then the largest differences): a page
sent to a colleague cannot fire shots.</p>
<div class="shots" id="shots"></div>
<h2>What made it</h2>
<table id="prov">__PROVENANCE__</table>
<script id="data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body></html>
"""

_SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const body = document.querySelector('#spaces tbody');
const fmt = (v, d) => v === null || v === undefined ? '–' : v.toFixed(d);
const signed = v => v === null ? '–' : (v >= 0 ? '+' : '') + v.toFixed(2);
const esc = t => String(t).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                                     '"': '&quot;'})[c]);
D.rows.forEach(r => { r.dead_a = r.why_a.dead; r.dead_b = r.why_b.dead; });
function cell(why) {
  return '<td class="why" title="' + esc(why.outcomes) + '">' +
    (why.dead ? '<b>' + esc(why.dead) + '</b><br>' : '') + esc(why.outcomes) + '</td>';
}
function render() {
  body.innerHTML = D.rows.map(r => {
    const diff = r.diff === null ? '–' : signed(r.diff) + ' [' + signed(r.diff_ci_low) + ', ' +
      signed(r.diff_ci_high) + ']' + (r.significant ? ' *' : '');
    const rec = D.shots[r.space] ? ' <span class="rec">&#9679;</span>' : '';
    return '<tr data-space="' + r.space + '" class="' + (r.significant ? 'sig' : '') + '">' +
      '<td>' + r.space + rec + '</td><td>' + fmt(r.p_a, 2) + '</td><td>' + fmt(r.p_b, 2) +
      '</td><td class="diff">' + diff + '</td><td>' + esc(r.p_text) + '</td><td>' +
      r.shots + (r.few_pairs ? ' <span class="few">few</span>' : '') + '</td>' +
      (D.paired ? '<td class="stop">' + esc(r.stopped) + '</td>' : '') +
      (D.engines ? '<td class="stop">' + esc(r.engines) + '</td>' : '') +
      cell(r.why_a) + cell(r.why_b) + '</tr>';
  }).join('');
}
let sortKey = null, sortUp = true;
function sortBy(key, text) {
  sortUp = key === sortKey ? !sortUp : true; sortKey = key;
  const value = r => r[key] === null || r[key] === undefined ? null : r[key];
  D.rows.sort((x, y) => {
    const u = value(x), v = value(y);
    if (u === v) return x.space < y.space ? -1 : 1;
    if (u === null) return 1;
    if (v === null) return -1;
    const order = text ? String(u).localeCompare(String(v)) : u - v;
    return sortUp ? order : -order;
  });
  document.querySelectorAll('#spaces th').forEach(th => {
    th.className = th.dataset.key === key ? (sortUp ? 'sorted-up' : 'sorted-down') : '';
  });
  render();
}
document.querySelectorAll('#spaces th').forEach(th => {
  th.onclick = () => sortBy(th.dataset.key, th.dataset.type === 'text');
});
function show(space) {
  document.querySelectorAll('#spaces tbody tr').forEach(tr => {
    tr.classList.toggle('chosen', tr.dataset.space === space);
  });
  const s = D.shots[space], box = document.getElementById('shots');
  document.getElementById('shots-title').textContent = 'Shots at ' + space;
  box.innerHTML = '';
  if (!s) {
    document.getElementById('shots-note').textContent = 'No shot of ' + space +
      ' is recorded in this page: it records the spaces that matter most (the ones marked ' +
      '\u25CF in the table).';
    return;
  }
  document.getElementById('shots-note').textContent = 'Shot ' + s.shot + ' (seed ' + s.seed +
    '), fired by both designs: ' + s.reason + '. Drag to turn, wheel to zoom.';
  for (const [side, name] of [['a', D.a], ['b', D.b]]) {
    const div = document.createElement('div'), frame = document.createElement('iframe');
    div.className = 'shot-' + side;
    div.innerHTML = '<b>' + esc(name) + '</b>: knocked out ' + esc(s[side].knocked) +
      '; the bale struck ' + esc(s[side].struck) +
      (s[side].as_recorded ? '' : ' <b>(not as in the hit map: the replay differs)</b>') +
      '<br>';
    frame.title = name + ' at ' + space;
    const shot = JSON.stringify(s[side].data).replace(/<\//g, '<\\/');
    frame.srcdoc = D.viewer.replace('__TITLE__', () => esc(s[side].title))
      .replace('__SHOT__', () => shot);
    div.appendChild(frame); box.appendChild(div);
  }
}
body.onclick = e => {
  const tr = e.target.closest('tr');
  if (!tr) return;
  show(tr.dataset.space);
  document.getElementById('shots-title').scrollIntoView({block: 'start'});
};
render();
// report.html#r2c3 opens on that space's shots: a link to one space
if (location.hash.length > 1) show(decodeURIComponent(location.hash.slice(1)));
"""
