"""piggy design optimise: a search over design fields, constrained, verified."""

from __future__ import annotations

import json
import sys

import pytest

from models.design import load_design
from models.errors import InputError, install_hint
from models.tables import read_table
from sim.studies.designs.search import far_rows, parse_param, parse_params
from sim.studies.shots import datafiles
from tests.helpers import run

pytest.importorskip("optuna")

#: Two far-row spaces and one near the tractor: a search of a few seconds a trial.
SPACES = "r9c1,r10c3,r1c5"


def optimise(capsys, tmp_path, *extra, study_db="s.db"):
    argv = (
        "design",
        "optimise",
        "stock",
        "--spaces",
        SPACES,
        "--shots",
        "6",
        "--workers",
        "1",
        "--cache",
        str(tmp_path / "cache"),
        "--storage",
        f"sqlite:///{tmp_path / study_db}",
        "--out",
        str(tmp_path / "best.toml"),
        "--json",
        *extra,
    )
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_a_two_field_search_finds_a_feasible_design_and_verifies_it(capsys, tmp_path):
    data = optimise(
        capsys,
        tmp_path,
        "--param",
        "pivot_height=80:120",
        "--param",
        "muzzle_speed=1800:2600",
        "--trials",
        "3",
        "--table",
        str(tmp_path / "trials.csv"),
        "--plot",
        str(tmp_path / "search.png"),
    )
    assert data["trials"] == 3 and data["feasible_trials"] >= 1
    best = data["best"]
    assert set(best["params"]) == {"launcher.pivot_height_mm", "launcher.muzzle_speed_mm_s"}
    assert 80 <= best["params"]["launcher.pivot_height_mm"] <= 120
    assert best["objective_ci_low"] <= best["objective"] <= best["objective_ci_high"]
    verification = data["verification"]
    # named by what changed, the same in the verdict, the table and the design file
    name = best["design"]
    pivot = best["params"]["launcher.pivot_height_mm"]
    assert name.startswith("stock+") and f"+pivot{pivot:.4g}" in name
    assert name in verification["verdict"]
    assert verification["verdict"].startswith("On average ")
    assert (
        verification["mean_diff_ci_low"]
        <= verification["mean_diff"]
        <= verification["mean_diff_ci_high"]
    )
    assert verification["seed"] == 1  # new shots, not the ones that chose the best
    # the best design is a design file design check and compare accept, saying what made it
    text = (tmp_path / "best.toml").read_text()
    assert f"# study: {data['study']}" in text and "# base: stock" in text
    design = load_design(best["design_file"])
    assert design.launcher.pivot_height_mm == pytest.approx(
        best["params"]["launcher.pivot_height_mm"]
    )
    code, _, _ = run(capsys, "design", "check", best["design_file"])
    assert code == 0
    assert design.name == name
    rows = read_table(tmp_path / "trials.csv")
    assert [r["trial"] for r in rows] == [0, 1, 2]
    assert rows[best["trial"]]["design"] == name
    assert not any(r["base"] for r in rows)  # BASE's 70 mm lies outside the range searched
    assert {"mean-p", "mean-p_ci_low", "kinetic_energy_max_j", "feasible", "reason"} <= set(rows[0])
    assert datafiles.read_provenance(tmp_path / "trials.csv")["study"] == data["study"]
    assert (tmp_path / "search.png").stat().st_size > 10_000


@pytest.mark.slow
def test_an_energy_limit_keeps_the_faster_designs_out(capsys, tmp_path):
    limit = 0.0055  # stock's 2 m/s: 0.0046 J at its fastest; above about 2.2 m/s: over
    data = optimise(
        capsys,
        tmp_path,
        "--param",
        "muzzle_speed=1500:3500",
        "--trials",
        "4",
        "--limit-energy-j",
        str(limit),
        "--table",
        str(tmp_path / "t.csv"),
    )
    assert data["infeasible"].get("kinetic_energy_j", 0) >= 1
    assert data["best"]["safety"]["kinetic_energy_max_j"] <= limit
    for row in read_table(tmp_path / "t.csv"):
        if not row["feasible"]:  # an unsafe design is recorded with its reason, fires no shot
            assert row["reason"].startswith("kinetic energy") and row["shots"] == 0
            assert row["kinetic_energy_max_j"] > limit


@pytest.mark.slow
def test_a_search_with_no_feasible_design_says_so_and_fires_no_shot(capsys, tmp_path):
    data = optimise(
        capsys,
        tmp_path,
        "--param",
        "muzzle_speed=1500:3000",
        "--trials",
        "2",
        "--limit-energy-j",
        "0.0001",
    )
    assert data["feasible_trials"] == 0 and data["infeasible"] == {"kinetic_energy_j": 2}
    assert data["best"] is None and data["verification"] is None
    assert not (tmp_path / "cache").exists() and not (tmp_path / "best.toml").exists()
    code, out, _ = run(
        capsys,
        "design",
        "optimise",
        "stock",
        "--param",
        "muzzle_speed=1500:3000",
        "--trials",
        "1",
        "--limit-energy-j",
        "0.0001",
        "--storage",
        f"sqlite:///{tmp_path / 's.db'}",
        "--cache",
        str(tmp_path / "cache"),
    )
    assert code == 0 and "no feasible design found" in out


@pytest.mark.slow
def test_a_search_whose_best_is_base_says_nothing_better_was_found(capsys, tmp_path):
    data = optimise(
        capsys,
        tmp_path,
        "--param",
        "pivot_height=40:120",
        "--trials",
        "1",
        "--shots",
        "2",
        "--table",
        str(tmp_path / "t.csv"),
    )
    assert data["best"]["params"] == {"launcher.pivot_height_mm": 70.0}  # trial 0: BASE
    rows = read_table(tmp_path / "t.csv")
    assert rows[0]["base"] and rows[0]["launcher.pivot_height_mm"] == 70
    verification = data["verification"]
    assert (
        verification["conclusion"] == "nothing better found: the best trial is stock's own values"
    )
    assert verification["better"] is False and verification["mean_diff"] == 0.0
    assert not list((tmp_path / "cache").glob("hitmap-*"))  # no map fired to verify


@pytest.mark.slow
def test_resuming_a_study_adds_trials_and_the_same_seed_gives_the_same_trials(capsys, tmp_path):
    args = ("--param", "pivot_height=40:120", "--shots", "2", "--study", "mine")
    first = optimise(capsys, tmp_path, *args, "--trials", "2", "--table", str(tmp_path / "a.csv"))
    again = optimise(capsys, tmp_path, *args, "--trials", "1")
    assert (first["trials"], again["trials"], again["new_trials"]) == (2, 3, 1)
    other = optimise(
        capsys,
        tmp_path,
        *args,
        "--trials",
        "2",
        "--table",
        str(tmp_path / "b.csv"),
        study_db="other.db",
    )
    assert other["trials"] == 2
    same = [
        [r["launcher.pivot_height_mm"] for r in read_table(tmp_path / name)]
        for name in ("a.csv", "b.csv")
    ]
    assert same[0] == same[1]
    # a study resumed under other settings is refused before any shot
    code, _, err = run(
        capsys,
        "design",
        "optimise",
        "stock",
        "--spaces",
        SPACES,
        "--param",
        "pivot_height=40:100",
        "--study",
        "mine",
        "--storage",
        f"sqlite:///{tmp_path / 's.db'}",
        "--cache",
        str(tmp_path / "c2"),
    )
    assert code == 2 and "study 'mine' was made with other settings" in err
    assert not (tmp_path / "c2").exists()


@pytest.mark.slow
def test_several_objectives_give_a_pareto_front(capsys, tmp_path):
    data = optimise(
        capsys,
        tmp_path,
        "--param",
        "muzzle_speed=1600:3000",
        "--trials",
        "3",
        "--shots",
        "2",
        "--objective",
        "mean-p,energy",
    )
    assert isinstance(data["best"], list) and data["best"]
    for entry in data["best"]:
        assert set(entry["objective"]) == {"mean-p", "energy"}
        assert load_design(entry["design_file"])  # each member of the front is a design file
    assert data["verification"]["objective"] == "mean-p"


def test_parameters_are_checked_against_the_fields_ranges():
    stock = load_design("stock")
    assert parse_param("pivot_height=40:120", stock).field == "launcher.pivot_height_mm"
    solver = parse_param("solver_iterations=5:40", stock)
    assert solver.integer and not solver.log  # a whole-number field searches whole numbers
    assert parse_param("spring_rate=50:800:log", load_design("spring-stock")).log
    for bad, message in (
        ("wings=1:2", "unknown or ambiguous"),
        ("pivot_height=1:50", "allowed range"),
        ("pivot_height=50:40", "from low to high"),
        ("pivot_height=40", "must look like"),
        ("speed_sd=0:5:log", "above 0"),
        ("solver_iterations=5.2:5.8", "no whole number"),
    ):
        with pytest.raises(InputError, match=message):
            parse_param(bad, stock)
    with pytest.raises(InputError, match="at a corner of the --param ranges: give the launcher"):
        parse_params(["spring_rate=50:800"], stock)  # a speed design has no spring


def test_without_optuna_the_command_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna raises ImportError
    code, _, err = run(capsys, "design", "optimise", "stock", "--param", "pivot_height=40:80")
    assert code == 2 and err.count("\n") == 1
    assert f"needs Optuna, an optional extra: {install_hint('optimise')}" in err
    assert "pip install -e '.[optimise]' in a checkout" in err  # the one wording (issue 34)
    assert "(an installed copy: pip install 'go-piggy-go-sandbox[optimise]')" in err


def test_far_rows_are_the_two_outermost_rows_at_each_end(board):
    assert far_rows(board) == (0, 1, 9, 10)


@pytest.mark.slow
def test_the_best_few_are_measured_again_at_full_precision_once(capsys, tmp_path):
    """At low fidelity (10 shots a space), the two best trials measured again to ±0.2
    from their own shots; the best chosen on those figures; a resumed study measures
    them no more, and its table keeps their figures."""
    args = ("--param", "pivot_height=40:120", "--precision", "0.2", "--fidelity", "10")
    first = optimise(
        capsys,
        tmp_path,
        *args,
        "--shots",
        "100",
        "--trials",
        "3",
        "--table",
        str(tmp_path / "a.csv"),
    )
    assert first["fidelity"] == 10 and len(first["full_precision_trials"]) == 2
    assert first["best"]["trial"] in first["full_precision_trials"]
    assert first["best"]["fidelity"] == "full precision"
    assert first["shots"]["full_precision"] > 0
    rows = {r["trial"]: r for r in read_table(tmp_path / "a.csv")}
    for number in first["full_precision_trials"]:
        row = rows[number]
        assert row["mean-p_full_ci_low"] <= row["mean-p_full"] <= row["mean-p_full_ci_high"]
        assert row["shots_full"] > row["shots"] == 10 * row["spaces_fired"]
    again = optimise(capsys, tmp_path, *args, "--shots", "100", "--trials", "1")
    assert set(first["full_precision_trials"]) <= set(again["full_precision_trials"])
    assert again["trials"] == 4


@pytest.mark.slow
def test_a_trial_out_of_reach_fires_no_shot(capsys, tmp_path):
    """A pivot so low that the far rows are out of reach whatever the pitch: refused
    before any shot, with the aim solver's count."""
    data = optimise(capsys, tmp_path, "--param", "muzzle_speed=300:400", "--trials", "2")
    assert data["feasible_trials"] == 0 and data["infeasible"] == {"reach": 2}
    assert data["shots"] == {"search": 0, "full_precision": 0, "verification": 0}


@pytest.mark.slow
def test_the_wilcoxon_pruner_stops_a_surely_worse_trial_of_a_real_study(tmp_path):
    """A real study on real shots: BASE, then a launcher ten times as unsteady
    (``yaw_sd`` 10° against 0.8°), whose first 8 spaces all hit less often: raced
    against BASE, it stops there, short of the search's 9 spaces."""
    from models.board import load_board
    from sim.studies.designs.safety import SafetyLimits
    from sim.studies.notebook import plain_spec
    from sim.studies.optimising import optimise, racing
    from sim.studies.optimising.search_settings import Search

    spaces = ["r2c0", "r2c2", "r2c4", "r3c1", "r3c3", "r4c0", "r4c5", "r5c1", "r5c6"]
    base = load_design("stock")
    search = Search(
        base,
        parse_params(["yaw_sd=0:10"], base),
        ["mean-p"],
        plain_spec("stock", spaces, 10),
        load_board("stock"),
        SafetyLimits(),
        0,
    )
    assert search.raced and len(spaces) - 1 == racing.PRUNE_AFTER
    study = optimise.open_study(search, f"sqlite:///{tmp_path / 's.db'}", "raced", 0)
    study.enqueue_trial({"launcher.yaw_sd_deg": 10.0})
    optimise.run(search, study, 2, None, tmp_path / "cache")
    base_trial, unsteady = (t.user_attrs for t in study.get_trials())
    assert not base_trial["pruned"] and base_trial["spaces_fired"] == len(spaces)
    assert unsteady["pruned"] and unsteady["pruned_against"] == 0
    assert unsteady["spaces_fired"] == racing.PRUNE_AFTER < len(spaces)


def test_a_best_value_at_an_end_of_its_range_is_found_and_worded():
    """19.7 mm at the top of 5:20 is at the edge: the best may lie beyond."""
    from sim.studies.designs.search import SearchParam
    from sim.studies.optimising.search_settings import at_edge, edge_words

    pivot = SearchParam("launcher.pivot_height_mm", 5.0, 20.0)
    assert at_edge([pivot], {pivot.field: 12.0}) == []
    [top] = at_edge([pivot], {pivot.field: 19.7})
    assert edge_words(top) == (
        "at the edge of the range: launcher.pivot_height_mm = 19.7, the top of 5:20: widen it?"
    )
    assert [e["edge"] for e in at_edge([pivot], {pivot.field: 5.5})] == ["low"]
    mass = SearchParam("bale.mass_g", 1.0, 100.0, log=True)  # measured on its own scale
    assert at_edge([mass], {mass.field: 2.0}) == []  # 15 % of the way up a log range
    assert at_edge([mass], {mass.field: 1.2})[0]["edge"] == "low"


@pytest.mark.slow
def test_a_one_field_search_says_its_best_is_at_the_edge_and_plots_the_field(
    capsys, tmp_path, monkeypatch
):
    """Whole millimetres in 80:81: the best is at one end whichever it is; the text
    says "widen it?", the JSON lists it, and the picture is the objective against the
    pivot height, one panel."""
    from sim.views import pictures

    drawn = []
    monkeypatch.setattr(pictures, "save_figure", lambda fig, path: drawn.append(fig))
    argv = ["design", "optimise", "stock", "--spaces", SPACES, "--shots", "6"]
    argv += ["--workers", "1", "--cache", str(tmp_path / "cache"), "--trials", "2"]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", str(tmp_path / "b.toml")]
    argv += ["--param", "pivot_height=80:81:int", "--plot", str(tmp_path / "s.png")]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    said = [line.strip() for line in out.splitlines() if "edge of the range" in line]
    ends = ("the top of 80:81: widen it?", "the bottom of 80:81: widen it?")
    assert len(said) == 1 and said[0].endswith(ends)
    [panel] = drawn[0].axes
    assert panel.get_xlabel() == "launcher.pivot_height_mm" and said[0] in " ".join(
        panel.get_title().split()
    )
    code, out, _ = run(capsys, *argv, "--json")
    assert json.loads(out)["best"]["at_edge"][0]["field"] == "launcher.pivot_height_mm"
