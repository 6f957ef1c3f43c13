"""The design report page (design compare --html), the words for what a shot did and
the provenance a designer can check (the difference map's own tests:
tests/sim/views/test_design_pictures.py)."""

import hashlib
import json
import re

import pytest

from models.design import DESIGNS_DIR
from sim.studies.dead_zones import FEW_SHOTS, dead_zone, first_struck, shot_outcome
from tests.browser import Browser
from tests.helpers import run

SPACES = "r7c3,r2c3"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """stock against fast-spring at two spaces, 20 shots each (plain Monte Carlo, whose
    shots the figures below were read from), as a page and as JSON."""
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
    ]
    assert main([*argv, "--json"]) == 0
    return page


def page_data(page) -> dict:
    text = page.read_text()
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


@pytest.mark.slow
def test_the_report_is_one_self_contained_file(report):
    text = report.read_text()
    assert not re.search(r"(src|href)=[\"']?https?://", text), "the page must work offline"
    assert "<script src" not in text and "<link" not in text
    assert text.count("data:image/png;base64,") == 3  # the difference map, both hit maps
    assert "fast-spring knocks out more than stock on" in text  # the verdict
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
