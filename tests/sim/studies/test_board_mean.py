"""design compare's board-mean rule on the physics: every space fires the same pairs
look by look until the mean is answered; the same files whatever the workers, after
a kill and a resume, or after a budget cut short and a run that goes on; a design
against its own copy flags nothing; and the mean is the default everywhere."""

import dataclasses
import tomllib

import numpy as np
import pytest

from models.aimer import load_aimer
from models.board import load_board
from models.design import design_from_dict, design_toml, load_design
from models.errors import InputError
from models.mean_rule import BoardMean, MeanRule, board_chances
from sim.studies import notebook as plain
from sim.studies.comparing import board_mean, design_tools, engines_verdict, verdict_words
from sim.studies.comparing.comparison_rule import ComparisonRule, comparison_rule
from sim.studies.shots.space_shots import SweepSpec

#: Two spaces the designs part on (stock against fast-spring): the mean stops at
#: its second look, after 120 shots a run (every run here is one of the suite's
#: dearest, and a third space with no difference doubled them).
SPACES = ("r2c3", "r9c2")


def spec(**changes) -> SweepSpec:
    settings = {
        "board": "stock",
        "design": "stock",
        "stacks": {},
        "spaces": SPACES,
        "shots": 80,
        "aimer": load_aimer("child"),
        "precision": None,
        "sampler": "mc",
    }
    return SweepSpec(**(settings | changes))


def rule(delta=0.02, budget_s=None) -> ComparisonRule:
    """The mean rule with a small first look (30 pairs over the board, 15 a space: 15,
    30, 60, 80), so that the test fires a hundred-odd shots, not the board's 680 pairs."""
    mean = MeanRule(80, delta, len(SPACES), 1, board_first=30)
    return ComparisonRule("mean", delta, mean=mean, budget_s=budget_s)


def designs():
    return [load_design("stock"), load_design("fast-spring")]


def files(cache) -> dict[str, bytes]:
    """The comparison's hit maps and shot files, by name."""
    return {p.name: p.read_bytes() for p in sorted(cache.glob("mean-*.csv"))}


def compared(cache, workers=1, how=None, progress=None, budget=None):
    return design_tools.compare_designs(
        spec(), load_board("stock"), designs(), workers, cache, progress, how or rule(), budget
    )


class FakeTime:
    """A budget's clock that moves only as the test says: ``space_s`` seconds each
    space fired (the progress callback), and each space's shots said to take as long
    (board_mean.timed_space, whose seconds a budget's first look is sized by)."""

    def __init__(self, monkeypatch, space_s: float):
        self.now = 0.0
        self.space_s = space_s
        timed = lambda *job: (board_mean.fire_space(*job), space_s)  # noqa: E731
        monkeypatch.setattr(board_mean, "timed_space", timed)

    def clock(self) -> float:
        return self.now

    def progress(self, done, total, note=None, fired=None) -> None:
        if fired:
            self.now += self.space_s

    def budget(self, seconds: float) -> board_mean.Budget:
        return board_mean.Budget(seconds, self.clock, began=self.now)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """One run to the rule's stop, in one process: its files, its comparison and the
    notes its progress was given (the run is the dearest part of these tests: one
    serves them all)."""
    cache = tmp_path_factory.mktemp("clean")
    notes, fired = [], []

    def progress(done, total, note=None, fired_now=0):
        fired.append(fired_now)
        if note is not None:
            notes.append(note)

    _, comparisons, _ = compared(
        cache, progress=lambda d, t, note=None, fired=0: progress(d, t, note, fired)
    )
    return files(cache), comparisons[0], notes, sum(fired)


@pytest.mark.slow
def test_every_space_stops_at_the_same_look_and_says_so(clean):
    _, comparison, _, _ = clean
    stopped = comparison.stopped
    assert stopped is not None and stopped.stop in ("sign", "equivalent", "cap")
    pairs = {r.shots for r in comparison.spaces if r.diff is not None}
    assert (
        pairs == {stopped.pairs} and stopped.pairs == rule().mean.looks()[stopped.looks_taken - 1]
    )
    low, high = comparison.mean_diff[1:]
    said = comparison.to_dict()
    assert said["rule"] == "mean" and said["mean_rule"]["stop"] == stopped.stop
    assert said["mean_rule"]["looks"] == [15, 30, 60, 80]
    assert said["mean_diff_ci"] == [round(low, 6), round(high, 6)]
    assert verdict_words.undecided(stopped.stop) in comparison.verdict or all(
        r.significant for r in comparison.spaces
    )


@pytest.mark.slow
def test_the_same_files_whatever_the_workers(clean, tmp_path):
    compared(tmp_path, workers=2)
    assert files(tmp_path) == clean[0]


@pytest.mark.slow
def test_a_killed_run_keeps_its_parts_and_the_next_goes_on_to_the_same_files(clean, tmp_path):
    notes = []

    def killed(done, total, note=None, fired=0):
        if notes and fired:  # a space of the second look fired, the other not yet
            raise KeyboardInterrupt
        if note is not None:  # a look's end
            notes.append(note)

    with pytest.raises(KeyboardInterrupt):
        compared(tmp_path, progress=killed)
    assert list(tmp_path.glob("mean-*.csv.parts/*.json"))
    compared(tmp_path)
    assert files(tmp_path) == clean[0]
    assert not list(tmp_path.glob("*.parts"))


@pytest.mark.slow
def test_a_budget_chooses_how_many_looks_never_which_data(clean, tmp_path, monkeypatch):
    """A budget spent by the first look: the answer is that look's, its interval
    wider, the mean's stop "budget" with what more it would need; a run without the
    budget goes on from those shots to the clean run's files. (5 s a space, 12 s
    given: the first look's 2 spaces fit, the second look's 10 s do not.)"""
    time = FakeTime(monkeypatch, space_s=5.0)
    how = rule(budget_s=12)
    _, short = compared(tmp_path, how=how, progress=time.progress, budget=time.budget(12))[:2]
    stopped = short[0].stopped
    assert stopped.stop == "budget" and stopped.looks_taken == 1 and stopped.pairs == 15
    assert stopped.more_pairs > 15
    full = clean[1]
    assert short[0].mean_diff[2] - short[0].mean_diff[1] > full.mean_diff[2] - full.mean_diff[1]
    assert "not decided" in short[0].to_dict()["verdict"] or short[0].on_average != "undecided"
    compared(tmp_path)
    assert files(tmp_path) == clean[0]


@pytest.mark.slow
def test_a_budget_that_cannot_hold_the_first_look_says_so_before_firing_it(
    clean, tmp_path, monkeypatch
):
    """The first look sized by the rate its first space was fired at (5 s for its 30
    shots; 6 s given): refused in words before the second space is fired, the first
    kept; a run without the budget goes on from it to the clean run's files."""
    time = FakeTime(monkeypatch, space_s=5.0)
    with pytest.raises(InputError) as refused:
        compared(tmp_path, how=rule(budget_s=6), progress=time.progress, budget=time.budget(6))
    assert str(refused.value) == (
        "--budget 6 cannot hold even the first look here: its 60 shots, at the 6 shots a "
        "second its first space was fired at just now, take about 10 s, and 1 s are left "
        "for it; give --budget 10 or more at this load (the shots fired are kept: the same "
        "command goes on from them)"
    )
    kept = sorted(p.name for p in tmp_path.glob("mean-*.csv.parts/*.json"))
    assert kept == ["r2c3.json", "r2c3.json"]  # each design's first space, the second not
    compared(tmp_path)
    assert files(tmp_path) == clean[0]


def test_a_budget_spent_before_the_first_shot_says_so_and_fires_nothing(tmp_path, monkeypatch):
    """A command slow to start on a busy machine: 31 s gone of 30 before the first
    look, which is not even timed."""
    time = FakeTime(monkeypatch, space_s=5.0)
    budget = time.budget(30)
    time.now = 31.0
    with pytest.raises(InputError, match=r"^--budget 30 was spent before the first shot \(31 s"):
        compared(tmp_path, how=rule(budget_s=30), progress=time.progress, budget=budget)
    assert not list(tmp_path.glob("mean-*.csv.parts/*.json"))


def test_a_look_is_timed_by_a_tenth_of_its_spaces_spread_over_the_board():
    """Near and far shots differ in cost: each wave of the probe (one space a worker)
    spans the board, and the probe is a tenth of it."""
    from sim.studies.running.budget import probe as _probe

    names = [f"s{i}" for i in range(68)]
    waves = _probe(names, 2)
    assert waves == [["s0", "s34"], ["s8", "s42"], ["s17", "s51"], ["s25", "s59"]]
    assert _probe(names[:2], 1) == [["s0"]] and _probe(names[:3], 4) == [["s0", "s1", "s2"]]


def test_one_budget_is_kept_over_every_engine(tmp_path, monkeypatch):
    """``--engines bullet,mujoco --budget 30``: each engine gets an even share of
    what is left when it starts, never a budget of its own (the first took 12 s of its
    15: the second gets the 18 left)."""
    time = FakeTime(monkeypatch, space_s=0.0)
    given = []

    class Second(Exception):
        pass

    def engine_run(*args):
        budget = args[-1]
        given.append((budget.seconds, budget.shared, budget.given))
        if len(given) == 2:
            raise Second
        time.now += 12.0
        return [], [], []

    monkeypatch.setattr(design_tools, "compare_designs", engine_run)
    with pytest.raises(Second):
        engines_verdict.compare_in_engines(
            spec(), load_board("stock"), designs(), ["stock", "fast-spring"],
            ("bullet", "mujoco"), 1, tmp_path, None, rule(budget_s=30), time.budget(30),
        )  # fmt: skip
    assert given == [(15.0, 2, 30), (18.0, 1, 30)]


def test_a_design_against_its_copy_flags_nothing_and_stops_at_once(tmp_path):
    """No discordant pair at all: the mean's interval is the pseudo-pairs' alone, about
    ±z²/(pairs over the board): ±0.21 over 30 pairs here, ±0.011 over the stock board's
    680 at its first look."""
    data = tomllib.loads(design_toml(load_design("stock"))) | {"name": "twin"}
    twin = design_from_dict(data, source="a copy of stock")
    _, comparisons, maps = design_tools.compare_designs(
        spec(), load_board("stock"), [load_design("stock"), twin], 1, tmp_path, None, rule(0.25)
    )
    comparison = comparisons[0]
    assert comparison.mean_diff[0] == 0.0 and comparison.on_average == "within_delta"
    assert comparison.stopped.stop == "equivalent" and comparison.stopped.looks_taken == 1
    assert not any(r.significant for r in comparison.spaces)
    assert comparison.verdict.startswith("On average twin and stock are practically the same")
    assert sum(r["shots"] for rows in maps for r in rows) == 2 * 15 * len(SPACES)


@pytest.mark.slow
def test_the_mean_is_the_default_rule_of_every_caller(tmp_path):
    """compare_in_engines and plain.compare, given no rule, compare by the mean (a cap
    of 20 pairs: one look)."""
    short = spec(spaces=("r2c3",), shots=20)
    assert comparison_rule(short).name == "mean"
    assert comparison_rule(short, "paired").name == "spaces"
    done = engines_verdict.compare_in_engines(
        short, load_board("stock"), designs(), ["stock", "fast-spring"], (None,), 1, tmp_path
    )
    assert done.made_by["rule"] == "mean" and done.runs[0][1][0].rule.name == "mean"
    _, comparisons, _ = plain.compare(
        ["stock", "fast-spring"], spaces=["r2c3"], shots=20, workers=1, cache=tmp_path
    )
    assert comparisons[0].rule == dataclasses.replace(comparisons[0].rule)
    assert comparisons[0].rule.name == "mean" and comparisons[0].stopped is not None


@pytest.mark.slow
def test_the_progress_shows_the_means_interval_shrinking_look_by_look(clean):
    _, comparison, notes, fired = clean
    stopped = comparison.stopped
    assert fired == stopped.shots  # the shots told as fired: every one, once
    assert len(notes) == stopped.looks_taken  # one after each look
    widths = []
    for note in notes:  # "mean +0.012 [-0.101, +0.125] at 10 pairs"
        low, high = (float(v) for v in note.split("[")[1].split("]")[0].split(", "))
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)
    assert notes[-1].endswith(f"at {stopped.pairs} pairs")


@pytest.mark.parametrize(
    ("at", "delta", "pairs"),
    [
        # its sign: the half-width 0.02 must fall to the mean's 0.01, (0.02/0.01)^2 = 4x
        (BoardMean(0.01, -0.01, 0.03, 10), None, 40),
        # within ±0.02: the half-width 0.03 to the 0.02 left, (0.03/0.02)^2 = 2.25x
        (BoardMean(0.0, -0.03, 0.03, 20), 0.02, 45),
        # never fewer than the pairs fired already
        (BoardMean(0.01, -0.01, 0.03, 10), 0.05, 10),
    ],
)
def test_the_pairs_that_would_decide_the_mean_go_as_the_square_of_its_width(at, delta, pairs):
    assert board_mean.pairs_needed(at, delta) == pairs


@pytest.mark.parametrize(("delta", "gain"), [(None, 0.02), (0.02, 0.0)])
def test_firing_the_pairs_said_to_decide_the_mean_decides_it_half_the_time_or_more(delta, gain):
    """ "About N more pairs a space would decide it", by simulation: a stock-like board
    (68 spaces, P_A 0.2-0.9, 2-15 % of pairs discordant, a true gain of ``gain`` a
    space at most), undecided at its first look of 10 pairs a space, fired on to the
    pairs said (independent pairs, as the rule assumes; at most 10^5). The figure
    aims at a half-width equal to the distance to decide, so about half; it is
    measured here at 0.67-0.68 of about 290 comparisons each (±0.03), and at
    0.03-0.36 with the width's ratio unsquared. A seeded run, so the same every time."""
    rng = np.random.default_rng(1)
    p_a, discordant = rng.uniform(0.2, 0.9, 68), rng.uniform(0.02, 0.15, 68)
    chances = board_chances(p_a, discordant, np.minimum(discordant, gain))
    mean_rule = MeanRule(cap=10**5, delta=delta, spaces=68)
    decided = []
    for _ in range(300):
        counts = rng.multinomial(10, chances)
        at = mean_rule.mean(counts)
        if mean_rule.stop(at) is None:
            more = min(board_mean.pairs_needed(at, delta), 10**5) - 10
            decided.append(mean_rule.stop(mean_rule.mean(counts + rng.multinomial(more, chances))))
    assert len(decided) > 250
    assert sum(stop is not None for stop in decided) / len(decided) >= 0.5


def fired_by(run) -> int:
    """The shots a comparison fired now (its progress told them)."""
    fired = []
    run(lambda done, total, note=None, fired_now=0, **told: fired.append(told.get("fired", 0)))
    return sum(fired)


@pytest.mark.slow
def test_every_precision_shares_the_looks_a_finer_one_fired(tmp_path):
    """The mean's looks are fixed whatever the precision (δ only chooses where it
    stops). A design against its copy: ±0.1 (δ 0.05) goes to the cap, four looks;
    ±0.5 (δ 0.25) is the same within δ at the first. After ±0.1, ±0.5 fires no shot
    and answers as a run of its own would, its maps cut at its own stop; after ±0.5,
    ±0.1 fires only the looks it adds, and its files are the straight ±0.1 run's."""
    data = tomllib.loads(design_toml(load_design("stock"))) | {"name": "twin"}
    pair = [load_design("stock"), design_from_dict(data, source="a copy of stock")]

    def run(cache, precision, progress=None):
        return design_tools.compare_designs(
            spec(precision=precision), load_board("stock"), pair, 1, cache, progress,
            rule(precision / 2),
        )  # fmt: skip

    fine, coarse, straight = tmp_path / "fine", tmp_path / "coarse", tmp_path / "straight"
    fine_first = fired_by(lambda progress: run(fine, 0.1, progress))
    assert fired_by(lambda progress: run(fine, 0.5, progress)) == 0
    _, said, rows = run(fine, 0.5)
    _, said_alone, rows_alone = run(straight, 0.5)
    assert said_alone[0].stopped.looks_taken == 1 and rows_alone[0][0]["shots"] == 15
    assert said[0].to_dict() == said_alone[0].to_dict() and rows == rows_alone
    coarse_fired = fired_by(lambda progress: run(coarse, 0.5, progress))
    assert fired_by(lambda progress: run(coarse, 0.1, progress)) == fine_first - coarse_fired
    assert fine_first - coarse_fired > 0 and files(coarse) == files(fine)
