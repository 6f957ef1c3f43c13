"""design compare's sequential paired rule on the physics: the designs fire the same
points, a pair stops as the rule says, the verdict leads with the board mean, and a
warm cache answers with no shot."""

import dataclasses
import json
import tomllib

import pytest

from models.aimer import load_aimer
from models.board import load_board
from models.design import design_from_dict, design_toml, load_design
from models.sequential import PairedRule
from sim.physics.bullet.world import BulletWorld
from sim.physics.world_cache import WORLDS
from sim.studies.comparing import cached_maps, design_tools, paired
from sim.studies.comparing.compare import compare_parts
from sim.studies.comparing.comparison_rule import PER_MAP, ComparisonRule, comparison_rule
from sim.studies.shots.records import ShotRow, SpaceShots
from sim.studies.shots.space_shots import SweepSpec
from tests.helpers import run


def spec(**changes) -> SweepSpec:
    settings = {
        "board": "stock",
        "design": "stock",
        "stacks": {},
        "spaces": ("r2c3", "r9c2", "r0c0"),
        "shots": 160,
        "aimer": load_aimer("child"),
        "precision": 0.1,
        "sampler": "rqmc",
    }
    return SweepSpec(**(settings | changes))


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """stock against fast-spring by the paired rule at three spaces: its outputs."""
    cache = tmp_path_factory.mktemp("cache")
    designs = [load_design("stock"), load_design("fast-spring")]
    result = design_tools.compare_designs(
        spec(), load_board("stock"), designs, 1, cache, rule=comparison_rule(spec(), "spaces", 0.1)
    )
    return cache, designs, result


@pytest.mark.slow
def test_pairs_are_the_same_points_and_each_stops_where_the_rule_says(compared):
    cache, designs, (_, comparisons, _) = compared
    full = comparison_rule(spec(), "spaces", 0.1)
    rule = full.spaces
    maps = cached_maps.paired_maps(spec(), designs, full, 1, cache)
    for a, b, row in zip(maps[0], maps[1], comparisons[0].spaces, strict=True):
        shots_a, shots_b = a.part.shots, b.part.shots
        assert len(shots_a) == len(shots_b) == row.shots  # two designs: A stops with B
        assert [(r.scramble, r.point) for r in shots_a] == [(r.scramble, r.point) for r in shots_b]
        assert row.shots in rule.looks()
        # the first look at which the rule stops, counted here from the shots themselves
        assert (row.shots, row.stop) == _first_stop(rule, shots_a, shots_b)
        assert row.stop in ("sign", "equivalent", "cap")
        if row.stop == "sign":
            assert row.significant
        if row.stop == "equivalent":
            assert -0.1 <= row.diff_ci_low <= row.diff_ci_high <= 0.1


def _first_stop(rule, shots_a, shots_b) -> tuple[int, str]:
    """The pairs at the rule's first look that stops, and why: each look counts the
    pairs of the first points of every scramble (a point a scramble is a round),
    paired by scramble and point."""
    b_by_point = {(r.scramble, r.point): r.target_knocked for r in shots_b}
    for pairs in rule.looks():
        pair = [
            (r.target_knocked, b_by_point[(r.scramble, r.point)])
            for r in shots_a
            if r.point < pairs // rule.streams
        ]
        assert len(pair) == pairs
        counts = [sum(p == wanted for p in pair) for wanted in ((1, 1), (1, 0), (0, 1), (0, 0))]
        stop = rule.stop(rule.look(*counts))
        if stop is not None:
            return pairs, stop
    raise AssertionError("the rule never stopped, not even at its cap")


@pytest.mark.slow
def test_a_warm_cache_answers_with_no_shot(compared, monkeypatch):
    """A comparison asked again is read from its cache: no shot, no physics world
    built (a re-read is quick: docs/optimise.md), each design's map read once."""
    cache, designs, first = compared

    def no_shot(*args, **kwargs):
        raise AssertionError("a shot was fired")

    def no_world(*args, **kwargs):
        raise AssertionError("a physics world was built")

    monkeypatch.setattr(BulletWorld, "shoot", no_shot)
    monkeypatch.setattr(BulletWorld, "__init__", no_world)
    monkeypatch.setattr(WORLDS, "world", no_world)
    reads = []
    read_cached = cached_maps.read_cached
    monkeypatch.setattr(
        cached_maps, "read_cached", lambda *a: reads.append(a[1]) or read_cached(*a)
    )
    again = design_tools.compare_designs(
        spec(), load_board("stock"), designs, 1, cache, rule=comparison_rule(spec(), "spaces", 0.1)
    )
    assert [c.to_dict() for c in again[1]] == [c.to_dict() for c in first[1]]
    assert again[2] == first[2]  # the maps' rows as they were measured
    assert len(reads) == len(set(reads)) == len(designs)  # each cached map read once


@pytest.mark.slow
def test_a_design_against_itself_flags_nothing_and_is_within_delta(tmp_path):
    """The same design twice: every pair agrees, the board mean is 0 and within ±δ,
    every space stops as equivalent, none flagged."""
    stock = load_design("stock")
    twin = design_from_dict(tomllib.loads(design_toml(stock)) | {"name": "twin"}, source="test")
    _, comparisons, _ = design_tools.compare_designs(
        spec(),
        load_board("stock"),
        [stock, twin],
        1,
        tmp_path,
        rule=comparison_rule(spec(), "spaces", 0.1),
    )
    comparison = comparisons[0]
    assert comparison.on_average == "within_delta"
    assert comparison.mean_diff[0] == 0.0
    assert all(r.stop == "equivalent" and not r.significant for r in comparison.spaces)
    assert comparison.verdict.startswith(
        "On average twin and stock are practically the same: +0.000 ["
    )


@pytest.mark.slow
def test_the_verdict_leads_with_the_board_mean_in_text_and_json(capsys, tmp_path):
    argv = (
        "design",
        "compare",
        "stock",
        "fast-spring",
        "--spaces",
        "r2c3,r9c2",
        "--precision",
        "0.2",
        "--workers",
        "1",
        "--cache",
        str(tmp_path),
        "--rule",
        "spaces",
    )
    code, text, _ = run(capsys, *argv)
    assert code == 0
    first = text.splitlines()[0]
    assert first.startswith("On average fast-spring knocks out more than stock: +")
    assert "pairs a space" in text
    code, out, _ = run(capsys, *argv, "--json")
    data = json.loads(out)
    assert data["verdict"] == first
    assert data["comparisons"][0]["on_average"] == "more"
    assert data["comparisons"][0]["rule"] == "spaces"
    assert data["comparisons"][0]["delta"] == 0.2
    assert {r["stop"] for r in data["spaces"]} <= {"sign", "equivalent", "cap"}


@pytest.mark.slow
def test_the_per_map_rule_keeps_todays_maps(tmp_path):
    """--rule per-map measures each design's map on its own: the cached maps are the
    ones piggy hitmap makes with the same settings, and its rows carry no stop."""
    designs = [load_design("stock"), load_design("fast-spring")]
    settings = spec(spaces=("r2c3",), shots=60)
    _, comparisons, maps = design_tools.compare_designs(
        settings, load_board("stock"), designs, 1, tmp_path, rule=PER_MAP
    )
    alone = cached_maps.design_parts(dataclasses.replace(settings), designs[1], 1, tmp_path)
    assert maps[1] == [m.row.to_dict() for m in alone]
    assert (
        comparisons[0].rule.name == "per-map" and "stop" not in comparisons[0].spaces[0].to_dict()
    )


@pytest.mark.slow
def test_more_designs_than_the_world_cache_keeps_are_each_fired_in_their_own_world(monkeypatch):
    """compare_space holds every design's world while the others fire: with room for
    one world only, none is closed under it, and the parts are those of a roomy cache."""
    specs = (spec(shots=20, sampler="mc"), spec(design="fast-spring", shots=20, sampler="mc"))
    rule = comparison_rule(specs[0], "spaces", 0.1).spaces
    WORLDS.clear()
    roomy = paired.compare_space(specs, rule, "r2c3")
    WORLDS.clear()
    monkeypatch.setattr(WORLDS, "bound", 1)
    assert paired.compare_space(specs, rule, "r2c3") == roomy
    assert len(WORLDS) == 1
    WORLDS.clear()


# --- the spaces rule's p-values, on shots made by hand (no physics) ---------------------------
def _part(space: str, hits: list[bool]) -> SpaceShots:
    """A space's plain Monte Carlo shots, the target knocked out where ``hits`` says."""
    rows = tuple(
        ShotRow(space, i, 0, "green-1", 0.0, 10.0, 5000.0, "green-1" if hit else "", hit, 0,
                False, "knocked" if hit else "missed", "green-1" if hit else "", 0)
        for i, hit in enumerate(hits)
    )  # fmt: skip
    return SpaceShots(space, True, "low", "green-1", rows)


def _spaces_rule(spaces: int) -> ComparisonRule:
    """Looks at 10 and 20 pairs (K = 2): a space's p-value is 2 x its least look's."""
    return ComparisonRule("spaces", None, spaces=PairedRule(20, None, spaces, first=10))


def test_a_space_s_p_value_is_corrected_over_the_looks_it_took():
    """A knocks out all 10 of the first pairs, B none: McNemar's p 2/2^10 at the first
    look, below its flag level 0.05/2, so the rule stops there; the space's p-value is
    twice that (Bonferroni over the K = 2 looks the data chose from), not the look's."""
    a, b = _part("r2c3", [True] * 20), _part("r2c3", [False] * 20)
    row = compare_parts("A", "B", [a], [b], _spaces_rule(1)).spaces[0]
    assert row.stop == "sign" and row.shots == 10 and row.a_only == 10
    assert row.p_value == pytest.approx(2 * 2 / 2**10, rel=1e-3)
    assert row.p_value_adjusted == row.p_value and row.significant


def test_the_spaces_p_values_are_adjusted_by_holm_over_the_spaces():
    """Three spaces alike: 7 of the first 10 pairs and none of the next 10 knocked out
    by A only (McNemar's p 2/2^7 at each look, over the flag level 0.05/6, so to the
    cap), each space's p 2 x 2/2^7 = 0.031 over its looks, under 0.05 on its own; Holm
    over the three spaces makes each 0.094, and none is flagged."""
    hits_a = [True] * 10 + [False] * 10
    hits_b = [False] * 7 + [True] * 3 + [False] * 10
    names = ("r2c3", "r9c2", "r5c1")
    rows = compare_parts(
        "A", "B", [_part(n, hits_a) for n in names], [_part(n, hits_b) for n in names],
        _spaces_rule(3),
    ).spaces  # fmt: skip
    assert [r.stop for r in rows] == ["cap"] * 3
    assert [r.p_value for r in rows] == [pytest.approx(2 * 2 / 2**7, rel=1e-3)] * 3
    assert [r.p_value_adjusted for r in rows] == [pytest.approx(3 * 2 * 2 / 2**7, rel=1e-3)] * 3
    assert not any(r.significant for r in rows)
