"""The design report page (design compare --html), the words for what a shot did and
the provenance a designer can check (the difference map's own tests:
tests/sim/views/test_design_pictures.py)."""

import dataclasses
import hashlib
import html
import json
import re

import pytest

from models.design import DESIGNS_DIR
from sim.studies.comparing import compare
from sim.studies.comparing import report as contents
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.studies.shots.dead_zones import FEW_SHOTS, dead_zone, first_struck, shot_outcome
from sim.views.report_page import report_html
from tests.browser import Browser
from tests.helpers import cli_spec, comparison_row, run

SPACES = "r7c3,r2c3"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """stock against fast-spring at two spaces, 20 shots each (plain Monte Carlo, whose
    shots the figures below were read from), by the spaces rule (each space's stop in
    the table), as a page and as JSON."""
    from sim.cli import main

    folder = tmp_path_factory.mktemp("report")
    page = folder / "report.html"
    argv = [
        "design",
        "compare",
        "stock",
        "fast-spring",
        "--spaces",
        SPACES,
        "--shots",
        "20",
        "--cache",
        str(folder / "cache"),
        "--workers",
        "1",
        "--html",
        str(page),
        "--sampler",
        "mc",
        "--rule",
        "spaces",
    ]
    assert main([*argv, "--json"]) == 0
    return page


def page_data(page) -> dict:
    return page_data_of(page.read_text())


def page_data_of(text: str) -> dict:
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


@pytest.mark.slow
def test_the_report_is_one_self_contained_file(report):
    text = report.read_text()
    assert not re.search(r"(src|href)=[\"']?https?://", text), "the page must work offline"
    assert "<script src" not in text and "<link" not in text
    assert text.count("data:image/png;base64,") == 3  # the difference map, both hit maps
    # the verdict: the board mean first (r7c3 +0.80 and r2c3 +0.00 over 20 pairs each)
    assert text.index("On average fast-spring knocks out more than stock: +0.40") < text.index(
        "Space by space, fast-spring knocks out more on 1 space, fewer on 0, undecided at the "
        "cap on 1 (family-wise 95 %, Holm)"
    )
    # what made it: the spaces rule with its looks; no --precision, no δ
    assert "spaces (sequential)" in text and "none (no space stops as the same)" in text
    assert re.search(r"<th>looks \(pairs a space\)</th><td>20; family-wise 0.05 over 2", text)
    for name in ("stock", "fast-spring"):
        path = DESIGNS_DIR / f"{name}.toml"  # each design's file, with the hash of its bytes
        assert str(path) in text and hashlib.sha256(path.read_bytes()).hexdigest() in text
    assert report.stat().st_size < 3_000_000


@pytest.mark.slow
def test_the_report_shows_the_same_seed_fired_by_both_designs(report):
    data = page_data(report)
    assert [r["space"] for r in data["rows"]] == SPACES.split(",")
    # r7c3: stock's piggy stays behind its fence, fast-spring's flatter arc knocks it out
    # (docs/hitmap.md): the page shows a pair where only fast-spring knocked it out
    shot = data["shots"]["r7c3"]
    assert "discordant" in shot["reason"] and "only B" in shot["reason"]
    assert shot["a"]["knocked"] == "nobody" and shot["b"]["knocked"] == "gold-1"
    assert all(s[side]["as_recorded"] for s in data["shots"].values() for side in "ab")
    for side in "ab":  # each shot in the project's 3D viewer, with its recorded frames
        assert len(shot[side]["data"]["bale"]["p"]) > 20
    assert data["viewer"].count("__SHOT__") == 1  # one renderer for every shot
    rows = {r["space"]: r for r in data["rows"]}
    assert FEW_SHOTS > 20 and rows["r7c3"]["few_pairs"]
    assert rows["r7c3"]["why_a"]["outcomes"].startswith("stayed")  # struck, held by the fence


@pytest.mark.slow
def test_a_report_of_rqmc_shots_replays_each_shot_from_its_scrambles_point(tmp_path):
    """With the RQMC sampler a shot is a scramble's point, not a seed: the page's shots
    are those points fired again, each with the hit map's outcome."""
    from sim.cli import main

    page = tmp_path / "report.html"
    assert (
        main(
            [
                "design",
                "compare",
                "stock",
                "fast-spring",
                "--spaces",
                "r7c3",
                "--shots",
                "20",
                "--cache",
                str(tmp_path / "cache"),
                "--workers",
                "1",
                "--html",
                str(page),
                "--sampler",
                "rqmc",
                "--json",
            ]
        )
        == 0
    )
    shots = page_data(page)["shots"]
    assert list(shots) == ["r7c3"]
    assert all(shots["r7c3"][side]["as_recorded"] for side in "ab")


@pytest.mark.slow
def test_the_report_in_a_browser_loads_sorts_and_shows_a_spaces_shots(report, tmp_path):
    with Browser(tmp_path / "profile", size=(1300, 1400)) as browser:
        browser.open(report.as_uri())
        browser.wait_for("document.querySelectorAll('#spaces tbody tr').length")
        order = "[...document.querySelectorAll('#spaces tbody tr')].map(t => t.dataset.space)"
        assert browser.run(order) == ["r7c3", "r2c3"]
        browser.run("document.querySelector('th[data-key=diff]').click()")
        ascending = browser.run(order)
        browser.run("document.querySelector('th[data-key=diff]').click()")
        assert browser.run(order) == ascending[::-1] and sorted(ascending) == ["r2c3", "r7c3"]
        browser.run("document.querySelector('tr[data-space=r7c3]').click()")
        sizes = (
            "[...document.querySelectorAll('#shots iframe')].map(f => "
            "(f.contentDocument.querySelector('#view canvas') || {}).width)"
        )
        browser.wait_for(f"{sizes}.filter(w => w > 100).length == 2")  # both viewers drawn
        assert "Shots at r7c3" in browser.run("document.getElementById('shots-title').textContent")
        # the board mean is read first, the biggest words of the verdict
        size = "parseFloat(getComputedStyle(document.getElementById('{}')).fontSize)"
        assert browser.run(size.format("board-mean")) > browser.run(size.format("spaces-line"))
        stopped = (
            "Object.fromEntries([...document.querySelectorAll('#spaces tbody tr')].map(t => "
            "[t.dataset.space, t.querySelector('td.stop').textContent]))"
        )
        assert browser.run(stopped) == {"r7c3": "sign decided", "r2c3": "undecided at the cap"}
        assert browser.errors == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["stock"], "--html reports one comparison: give two designs, not 1"),
        (["stock", "fast-spring", "spring-stock"], "give two designs, not 3"),
        (["stock", "fast-spring", "--scale", "0"], "--scale"),
    ],
)
def test_bad_report_requests_exit_2_before_any_shot(capsys, tmp_path, argv, message):
    html = ["--html", str(tmp_path / "r.html")] if "--scale" not in argv else []
    code, _, err = run(capsys, "design", "compare", *argv, *html, "--cache", str(tmp_path))
    assert code == 2 and message in err
    code, _, err = run(
        capsys,
        "design",
        "compare",
        "stock",
        "fast-spring",
        "--html",
        str(tmp_path / "report.png"),
        "--cache",
        str(tmp_path),
    )
    assert code == 2 and "must end in .html" in err
    assert not list(tmp_path.glob("hitmap-*"))  # nothing was fired


# --- the page made of rows, without physics ---------------------------------------------------
#: The issue's wider bale: every space a little better, none flagged on its own.
WIDER = [
    comparison_row("r2c3", 0.04, False, stop="cap"),
    comparison_row("r9c2", 0.01, False, stop="equivalent"),
    comparison_row("r7c3", 0.05, False, stop="cap"),
]


def per_map_rows(rows):
    """The same rows as the per-map rule gives them: no stop."""
    return [dataclasses.replace(r, stop=None) for r in rows]


def page_of(rows, rule="spaces", delta=0.02, sampler=None, mean=(0.04, 0.03, 0.05)) -> str:
    """The report page of a comparison of ``rows`` (stock against wide-bale), as
    report.build and page_data would make it, with blank pictures and no shot recorded."""
    comparison = compare.Comparison(
        "stock", "wide-bale", rows, "(text verdict)", mean, ComparisonRule(rule, delta)
    )
    why = {"dead": "", "outcomes": "knocked 50 %, stayed 50 %"}
    made_by = {"aimer": "child", "seed": 0, "designs": []}
    if sampler:
        made_by["sampler"] = sampler
    if rule == "spaces":  # the spaces rule's constants, as design_tools records them
        looks = [40, 80, 160, 320, 640, 1000]
        made_by |= {
            "rule": "spaces",
            "paired_rule": {
                "cap": 1000,
                "delta": delta,
                "spaces": 3,
                "alpha": 0.05,
                "looks": looks,
            },
        }
    else:
        made_by["rule"] = "per-map"
    blank = "data:image/png;base64,"
    data = contents.verdict_data(comparison) | {
        "rows": [contents.table_row(r, why, why) for r in rows],
        "shots": {},
        "pictures": {"difference": blank, "a": blank, "b": blank},
        "provenance": made_by,
        "max_recorded": contents.MAX_SPACES_RECORDED,
        "few_pairs": FEW_SHOTS,
    }
    return report_html(data)


def words(page: str) -> str:
    """What a reader sees of the page before its script runs: its text, in order."""
    body = re.sub(r"<script[^>]*>.*?</script>", " ", page[page.index("<body>") :], flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_the_report_leads_with_the_board_mean_then_the_spaces():
    """The issue's case: no space flagged, the mean +0.04 [+0.03, +0.05]. The first
    thing under the page's title says that B knocks out more on average."""
    text = words(page_of(WIDER))
    title = "wide-bale against stock, the same shots "
    assert text.index(title) == 0
    after = text[len(title) :]
    assert after.startswith(
        "On average wide-bale knocks out more than stock: +0.040 [+0.030, +0.050] (95 %)"
    )
    spaces = (
        "Space by space, wide-bale knocks out more on 0 spaces, fewer on 0, the same within "
        "±0.02 on 1, undecided at the cap on 2 (family-wise 95 %, Holm)"
    )
    assert after.index(spaces) < after.index("The maps")
    per_map = words(page_of(per_map_rows(WIDER), "per-map", None, mean=(-0.04, -0.05, -0.03)))
    assert per_map[len(title) :].startswith(
        "On average wide-bale knocks out fewer than stock: -0.040 [-0.050, -0.030] (95 %)"
    )
    assert "no detectable difference on 3 (95 %, Holm)" in per_map


def test_the_paired_reports_table_says_why_each_space_stopped():
    rows = [
        comparison_row("r8c3", 0.30, True, 80, "sign"),
        comparison_row("r0c0", 0.20, True, 1000, "cap"),  # significant by Holm at the cap
        *WIDER,
    ]
    page = page_of(rows)
    heads = re.findall(r"<th data-key=\"(\w+)\"", page)
    assert heads.index("stopped") == heads.index("shots") + 1  # beside the pairs
    shown = {r["space"]: r["stopped"] for r in page_data_of(page)["rows"]}
    assert shown == {
        "r8c3": "sign decided",
        "r0c0": "at the cap",
        "r2c3": "undecided at the cap",
        "r9c2": "within ±0.02",
        "r7c3": "undecided at the cap",
    }
    per_map = page_of(per_map_rows(rows), "per-map", None)
    assert 'data-key="stopped"' not in per_map
    assert not page_data_of(per_map)["paired"]


def test_a_p_value_too_small_to_print_is_a_bound_never_zero():
    """p-values print as "p < 0.001", never "p = 0" (the text) or "0.000" (the
    page's table), through one formatter."""
    from sim.studies.comparing.verdict_words import p_words

    ps = (0.0, 4e-7, 0.00099, 0.001, 0.0123, 0.5)
    assert [p_words(p) for p in ps] == [
        "p < 0.001",
        "p < 0.001",
        "p < 0.001",
        "p = 0.001",
        "p = 0.012",
        "p = 0.5",
    ]
    rows = [
        dataclasses.replace(comparison_row("r8c3", 0.30, True, 80, "sign"), p_value_adjusted=0.0),
        *WIDER,
    ]
    shown = {r["space"]: r["p_text"] for r in page_data_of(page_of(rows))["rows"]}
    assert shown == {"r8c3": "< 0.001", "r2c3": "0.9", "r9c2": "0.9", "r7c3": "0.9"}


@pytest.mark.slow
def test_the_pages_table_shows_a_tiny_p_value_as_a_bound(tmp_path):
    rows = [
        dataclasses.replace(comparison_row("r8c3", 0.30, True, 80, "sign"), p_value_adjusted=0.0),
        *WIDER,
    ]
    page = tmp_path / "report.html"
    page.write_text(page_of(rows))
    with Browser(tmp_path / "profile", size=(1300, 1400)) as browser:
        browser.open(page.as_uri())
        browser.wait_for("document.querySelectorAll('#spaces tbody tr').length")
        cell = "document.querySelector('tr[data-space=r8c3]').children[4].textContent"
        assert browser.run(cell) == "< 0.001"
        assert browser.errors == []


@pytest.mark.parametrize(
    ("rule", "sampler", "head", "said", "unsaid"),
    [
        (
            "spaces",
            "rqmc",
            "p (McNemar, looks, Holm)",
            "Tango's score interval at the paired rule's level (the intervals of all its looks "
            "hold together with 95 %); p: the exact McNemar test at each look, Bonferroni over "
            "the looks, then Holm over all the spaces",
            "t-test",
        ),
        (
            "per-map",
            "rqmc",
            "p (t-test, Holm)",
            "Student's t over the RQMC scrambles' paired differences; p: the t-test over the "
            "scrambles, adjusted by Holm over all the spaces",
            "McNemar",
        ),
        (
            "per-map",
            None,
            "p (McNemar, Holm)",
            "Newcombe's for paired shots; p: McNemar's exact test, adjusted by Holm",
            "t-test",
        ),
    ],
)
def test_the_report_names_the_test_actually_run(rule, sampler, head, said, unsaid):
    """With --rule per-map and the RQMC sampler the p-value is a t-test over the
    scrambles, not McNemar's; the paired rule's is McNemar's at each look."""
    rows = WIDER if rule == "spaces" else per_map_rows(WIDER)
    page = page_of(rows, rule, 0.05 if rule == "spaces" else None, sampler)
    assert f'<th data-key="p_value_adjusted">{html.escape(head)}</th>' in page
    text = words(page)
    table = text[text.index("Space by space Click") : text.index("Shots Click")]
    assert said in table and unsaid not in table
    # design compare's text names each significant space's p-value by the same words
    from sim.studies.comparing.verdict_words import p_test

    assert head == f"p ({p_test(rule, sampler or 'mc')})"


def test_the_reports_provenance_names_the_rule_and_delta():
    text = words(page_of(WIDER))
    assert "rule spaces (sequential): the designs fire together at each space" in text
    assert "δ ±0.02" in text
    assert "looks (pairs a space) 40, 80, 160, 320, 640, 1000; family-wise 0.05 over 3" in text
    per_map = words(page_of(per_map_rows(WIDER), "per-map", None))
    assert "rule per-map: each design's hit map measured on its own" in per_map
    assert "δ" not in per_map[per_map.index("What made it") :]


def test_the_reports_rule_is_the_one_its_maps_were_made_with():
    """The page's provenance carries the paired rule as the paired maps record it."""
    from sim.studies.comparing.comparison_rule import PER_MAP, comparison_rule

    spec = cli_spec(["hitmap", "--spaces", "r2c3,r9c2", "--precision", "0.1"])
    rule = comparison_rule(spec, "spaces", 0.1)
    comparison = compare.Comparison("stock", "wide-bale", WIDER[:2], "", (0, 0, 0), rule)
    made = rule.provenance()
    assert made["rule"] == "spaces" and made["paired_rule"]["delta"] == 0.1
    assert made["paired_rule"]["looks"] == list(rule.spaces.looks())
    assert made["paired_rule"]["spaces"] == 2 and made["paired_rule"]["streams"] == 10
    per_map = dataclasses.replace(comparison, rule=PER_MAP)
    assert per_map.rule.provenance() == {"rule": "per-map"}


# --- one meaning for every word --------------------------------------------------------------
def test_a_shots_outcome_names_what_happened():
    assert shot_outcome("gold-1", ["gold-1"], ["fence", "gold-1"]) == "knocked"
    assert shot_outcome("gold-1", [], ["board", "gold-1", "fence"]) == "stayed"
    assert shot_outcome("gold-1", [], ["board", "fence", "gold-1"]) == "blocked"
    assert shot_outcome("gold-1", ["pink-1"], ["pink-1"]) == "blocked"
    assert shot_outcome("gold-1", [], ["board", "table"]) == "missed"
    assert shot_outcome("gold-1", [], []) == "missed"
    assert first_struck("gold-1", ["board", "tractor"]) == "tractor"
    assert first_struck("gold-1", ["blue-2"]) == "piggy"


def test_a_dead_zone_is_decided_by_its_interval():
    from models.stats import wilson_interval

    def row(shots, hits=0, blocked=0, missed=0):
        out = {"reachable": True, "shots": shots, "p_target": hits / shots}
        for key, k in (("p_target", hits), ("p_blocked", blocked), ("p_missed", missed)):
            out[f"{key}_ci_low"], out[f"{key}_ci_high"] = wilson_interval(k, shots)
        return out

    assert dead_zone({"reachable": False}) == "out_of_reach"
    assert dead_zone(row(20, blocked=12)) is None  # 60 % of 20: [0.39, 0.78], not surely most
    assert dead_zone(row(200, blocked=120)) == "blocked"
    assert dead_zone(row(200, missed=150)) == "missed"
    assert dead_zone(row(20)) is None  # 0/20 gives [0, 0.16]: too few to say never
    assert dead_zone(row(60)) == "never_out"


# --- provenance --------------------------------------------------------------------------------
def test_design_check_prints_the_files_own_hash(capsys):
    code, out, _ = run(capsys, "design", "check", "fast-spring", "--json")
    data = json.loads(out)
    path = DESIGNS_DIR / "fast-spring.toml"
    assert code == 0 and data["design_file"] == str(path.resolve())
    assert data["design_file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (
        len(data["design_sha256"]) == 64 and data["design_sha256"] != data["design_file_sha256"]
    )  # the normalised design: comments and layout left out


@pytest.mark.slow
def test_a_hit_map_names_its_dead_zones(capsys, tmp_path):
    # r7c3, straight ahead, behind its fence: a perfect aim never knocks it out
    argv = (
        "hitmap",
        "--spaces",
        "r7c3,r8c3",
        "--shots",
        "40",
        "--aimer",
        "perfect",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "h.csv"),
    )
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "dead zones (docs/hitmap.md): never out r7c3" in out
    code, out, _ = run(capsys, *argv[:-1], str(tmp_path / "h2.csv"), "--json")
    assert json.loads(out)["dead_zones"]["never_out"] == ["r7c3"]


def test_a_page_by_the_mean_rule_says_where_it_stopped_and_what_is_not_decided():
    """The board-mean rule cut short by its budget: the headline says the mean is not
    decided, the spaces not decided at this budget, and about how many more shots
    would decide it; the provenance names the rule, its δ, its looks and the budget."""
    from models.mean_rule import MeanRule

    rule = MeanRule(1000, 0.025, 3, 10)
    how = ComparisonRule("mean", 0.025, mean=rule, budget_s=20.0)
    stopped = compare.MeanStop("budget", 1, rule.looks(), 230, 1380, 900)
    rows = per_map_rows(WIDER)
    comparison = compare.Comparison(
        "stock", "wide-bale", rows, "", (0.01, -0.01, 0.03), how, stopped
    )
    blank = "data:image/png;base64,"
    why = {"dead": "", "outcomes": "knocked 50 %"}
    data = contents.verdict_data(comparison) | {
        "rows": [contents.table_row(r, why, why) for r in rows],
        "shots": {},
        "pictures": {"difference": blank, "a": blank, "b": blank},
        "provenance": {"aimer": "child", "seed": 0, "designs": []} | how.provenance(),
        "max_recorded": contents.MAX_SPACES_RECORDED,
        "few_pairs": FEW_SHOTS,
    }
    text = words(report_html(data))
    assert "On average wide-bale against stock is not decided at this budget: +0.010" in text
    assert "not decided at this budget on 3" in text
    assert (
        "Board mean: the budget spent at look 1 of 4, 230 pairs a space, 1,380 shots; not "
        "decided: about 900 pairs a space (about 4,020 more shots) would decide it"
    ) in text
    assert "rule mean (sequential)" in text and "budget 20 s" in text
    assert "looks (pairs a space) 230, 460, 920, 1000" in text
