"""A hit map fired in looks (``piggy hitmap --budget``): a budget stops it at the last
look that fits and keeps its parts, and the map resumed to its precision is the file
a straight run writes; parts of one precision serve another."""

import json
from pathlib import Path

import pytest

from models.aimer import load_aimer
from models.errors import InputError
from sim.studies.maps import hitmap, map_looks
from sim.studies.running.budget import Budget
from sim.studies.running.parts import parts_folder
from sim.studies.shots.space_firing import run_space
from sim.studies.shots.space_shots import SweepSpec

#: Two spaces whose P is far from 0 and 1 for a child (seed 3): ±0.1 takes them 80
#: and 60 shots, three and two looks after the first.
SPACES = ("r0c3", "r5c1")


def spec(**changes) -> SweepSpec:
    settings = {
        "board": "stock",
        "design": "stock",
        "stacks": {},
        "spaces": SPACES,
        "shots": 1000,
        "seed": 3,
        "aimer": load_aimer("child"),
        "precision": 0.1,
    }
    return SweepSpec(**(settings | changes))


class FakeTime:
    """A budget's clock that moves only as the test says: ``space_s`` seconds each
    space fired (the progress callback), and a probe's space said to take as long."""

    def __init__(self, monkeypatch, space_s: float):
        self.now = 0.0
        self.space_s = space_s
        timed = lambda *job: (map_looks.look_space(*job), space_s)  # noqa: E731
        monkeypatch.setattr(map_looks, "timed_look_space", timed)

    def clock(self) -> float:
        return self.now

    def progress(self, done, fired=0) -> None:
        if fired:
            self.now += self.space_s

    def budget(self, seconds: float) -> Budget:
        return Budget(seconds, self.clock, began=self.now)


def files(out) -> tuple[bytes, dict]:
    """A map's bytes and what made it (its sidecar)."""
    return out.read_bytes(), json.loads(out.with_name(out.name + ".json").read_text())


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """The map a straight ±0.1 run writes (space by space, no budget)."""
    out = tmp_path_factory.mktemp("straight") / "map.csv"
    hitmap.sweep(spec(), out, "csv")
    return files(out)


@pytest.mark.slow
def test_a_budget_stops_at_the_last_look_that_fits_and_resumed_is_the_straight_file(
    straight, tmp_path, monkeypatch
):
    """100 s a space, 250 s given: the first look's two spaces fit (200 s), the second
    look's would not. The map is written with 20 shots a space and says the budget
    cut it; its parts are kept, and resumed to ±0.1 it is the straight run's file, byte
    for byte (and what made it)."""
    time = FakeTime(monkeypatch, space_s=100.0)
    out = tmp_path / "map.csv"
    outcome, reached = map_looks.run_looks(
        hitmap.Output.of(spec(), out), "csv", 1, time.budget(250), time.progress
    )
    assert (reached.looks, reached.finished) == (1, False)
    assert [r["shots"] for r in outcome.rows] == [20, 20]
    assert files(out)[1]["stopped_by_budget"] == {"budget_s": 250, "looks": 1}
    assert sorted(p.name for p in parts_folder(out).iterdir()) == ["r0c3.json", "r5c1.json"]
    resumed, _ = map_looks.run_map(spec(), out, "csv", 1, Budget(None), (True, False, False))
    assert files(out) == straight
    assert (resumed.reused, resumed.gone_on) == (0, 40)
    assert not parts_folder(out).exists()


@pytest.mark.slow
def test_a_finer_precisions_parts_are_cut_where_a_coarser_one_stops_and_the_reverse_goes_on():
    """A space's shots come in the same steps at every precision: ±0.05's shots cut
    where ±0.1 stops are ±0.1's own shots, and ±0.1's are where ±0.05 goes on from."""
    fine, coarse = spec(precision=0.05), spec()
    fine_part, coarse_part = run_space(fine, "r0c3"), run_space(coarse, "r0c3")
    assert len(fine_part.shots) > len(coarse_part.shots)
    assert map_looks.replayed(coarse, fine_part) == (coarse_part, True)
    assert map_looks.replayed(fine, coarse_part) == (coarse_part, False)
    assert hitmap.looks_key(fine) == hitmap.looks_key(coarse)
    assert hitmap.looks_key(spec(precision=None)) != hitmap.looks_key(coarse)


def test_a_budget_that_cannot_hold_the_first_look_says_so_and_keeps_its_shots(
    tmp_path, monkeypatch
):
    """The first space fired took 50 s of the 30 given: the look's 40 shots would take
    about 100 s, refused in words before the second space is fired; its shots kept."""
    time = FakeTime(monkeypatch, space_s=50.0)
    out = tmp_path / "map.csv"
    one = spec(shots=20, precision=None)  # one look of 20 shots a space: quick
    with pytest.raises(InputError) as refused:
        map_looks.run_looks(hitmap.Output.of(one, out), "csv", 1, time.budget(30), time.progress)
    assert str(refused.value) == (
        "--budget 30 cannot hold even the first look here: its 40 shots, at the 0.4 shots a "
        "second its first space was fired at just now, take about 100 s, and 0 s are left "
        "for it; give --budget 100 or more at this load (the shots fired are kept: add "
        "--resume to the same command to go on from them)"
    )
    assert [p.name for p in parts_folder(out).iterdir()] == ["r0c3.json"]
    assert not out.exists()


def test_the_budget_a_refusal_names_holds_the_start_up_too(tmp_path, monkeypatch):
    """20 s gone before the first shot (a busy machine's start-up), then 25 s for the
    first space: the look's other 20 shots need 25 s more, past the 60 s given; the
    budget named is the 70 s the whole command would take, not the look's 50."""
    time = FakeTime(monkeypatch, space_s=25.0)
    budget = time.budget(60)
    time.now = 20.0
    one = spec(shots=20, precision=None)
    with pytest.raises(InputError, match=r"take about 50 s, .* give --budget 70 or more"):
        map_looks.run_looks(
            hitmap.Output.of(one, tmp_path / "m.csv"), "csv", 1, budget, time.progress
        )


def test_what_a_budget_reached_is_said_with_the_time_the_rest_would_take():
    """±0.08 at the worst space after 40 shots: ±0.05 needs about 40 x (0.08/0.05)²
    = 103 shots there, 63 more, at 7 shots a second about 9 s; a space already within
    ±0.05 needs none."""
    from sim.cli.hitmap_budget import budget_words, reached

    rows = [
        {"space": "r0c3", "reachable": True, "shots": 40,
         "p_target_ci_low": 0.40, "p_target_ci_high": 0.56},
        {"space": "r5c1", "reachable": True, "shots": 40,
         "p_target_ci_low": 0.90, "p_target_ci_high": 0.98},
        {"space": "r9c9", "reachable": False, "shots": 0,
         "p_target_ci_low": None, "p_target_ci_high": None},
    ]  # fmt: skip
    said = reached(spec(precision=0.05), rows, map_looks.Reached(2, False, 7.0), 30)
    assert said == {
        "budget_s": 30,
        "looks": 2,
        "finished": False,
        "precision_aimed": 0.05,
        "precision_reached": 0.08,
        "precision_reached_at": "r0c3",
        "more_seconds": 9,
    }
    assert budget_words(said, Path("m.csv")) == (
        "--budget 30 s: ±0.08 at the board's worst space (r0c3) after 2 looks; about 9 more "
        "seconds for ±0.05 (its shots are kept in m.csv.parts: the same command with "
        "--precision 0.05 --resume and no --budget goes on from them)"
    )
