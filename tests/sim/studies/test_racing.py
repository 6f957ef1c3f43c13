"""A design search's trials, measured as cheaply as the question allows: reach known
before any shot, spaces raced in a shuffled order and never fired past a prune,
the few best measured again from their low-fidelity shots."""

import pytest

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import design_toml, load_design
from models.errors import InputError
from sim.physics.bullet.world import BulletWorld
from sim.studies.designs import search as design_search
from sim.studies.optimising import racing
from sim.studies.shots.space_firing import advance, aim_at_space, run_space
from sim.studies.shots.space_shots import SweepSpec, world_for

BOARD = load_board("stock")


def spec(design: str = "stock", **changes) -> SweepSpec:
    settings = {
        "board": "stock",
        "design": design,
        "stacks": {},
        "spaces": ("r2c3", "r9c2", "r0c0", "r5c1"),
        "shots": 1000,
        "aimer": load_aimer("child"),
        "precision": 0.1,
        "sampler": "rqmc",
    }
    return SweepSpec(**(settings | changes))


class Study:
    """A study with no best trial yet."""

    @property
    def best_trial(self):
        raise ValueError("no trial is completed yet")


class Trial:
    """What a race asks of an Optuna trial: its number, its study, ``report`` and
    ``should_prune`` (here: after ``prune_after`` reports)."""

    def __init__(self, number: int, prune_after: int | None = None):
        self.number, self.prune_after, self.reports = number, prune_after, []
        self.study = Study()

    def report(self, value: float, step: int) -> None:
        self.reports.append((step, value))

    def should_prune(self) -> bool:
        return self.prune_after is not None and len(self.reports) >= self.prune_after


@pytest.fixture
def shots(monkeypatch):
    """Counts the shots fired in this process (one by one, or aimed: a look's)."""
    fired = []

    def counted(fire):
        def fire_counted(self, *args, **kwargs):
            fired.append(1)
            return fire(self, *args, **kwargs)

        return fire_counted

    monkeypatch.setattr(BulletWorld, "shoot", counted(BulletWorld.shoot))
    return fired


def test_a_race_reports_in_a_shuffled_order_and_fires_nothing_past_a_prune(shots):
    settings = racing.low_fidelity(spec(), 10)
    index = {s: i for i, s in enumerate(settings.spaces)}
    trial = Trial(3, prune_after=2)
    raced = racing.race(settings, settings.spaces, index, trial, None, prune=True)
    order = racing.shuffled(settings.spaces, settings.seed, 3)
    assert sorted(order) == sorted(settings.spaces)
    assert len({tuple(racing.shuffled(settings.spaces, 0, t)) for t in range(10)}) > 1
    assert [step for step, _ in trial.reports] == [index[s] for s in order[:2]]
    assert raced.pruned and list(raced.parts) == order[:2]
    reached = sum(p.reachable for p in raced.parts.values())
    assert len(shots) == 10 * reached  # the two spaces' shots, and no other
    unraced = Trial(5)  # another trial, whose order is another
    again = racing.race(settings, settings.spaces, index, unraced, None, prune=False)
    assert list(again.parts) == racing.shuffled(settings.spaces, settings.seed, 5) != order
    assert not again.pruned and not unraced.reports
    for name in order[:2]:  # the same points for the same space, whichever trial
        assert again.parts[name] == raced.parts[name]


@pytest.mark.slow  # a space to ±0.1 twice (about 3 s): optimise's measuring again, rarely changed
def test_full_precision_goes_on_from_the_low_fidelity_shots(shots):
    """A space measured to ±precision from its first 20 shots is the space measured
    to ±precision from nothing: the same shots, none fired twice."""
    full = spec(spaces=("r2c3",))
    low = run_space(racing.low_fidelity(full, 20), "r2c3")
    before = len(shots)
    parts = racing.full_parts(full, {"r2c3": low.shots}, None)
    assert len(shots) - before == len(parts["r2c3"].shots) - 20 > 0
    assert parts["r2c3"].shots[:20] == low.shots
    assert parts["r2c3"] == advance(full, "r2c3")[0]


@pytest.mark.slow
def test_reach_known_before_any_shot_is_the_physics_reach(tmp_path):
    """Over the whole board, for designs whose reach ends at different spaces (some
    within a fraction of a millimetre of the edge): the spaces counted in reach
    before any shot are those the physics' own aim reaches."""
    spaces = tuple(space_name(s) for s in BOARD.spaces)
    base = load_design("stock")
    for values in (
        {},
        {"launcher.pivot_height_mm": 88.22, "launcher.muzzle_speed_mm_s": 2317.3},
        {"launcher.muzzle_speed_mm_s": 1500.0},
        {"launcher.pivot_height_mm": 120.0, "launcher.muzzle_speed_mm_s": 2900.0},
    ):
        design = design_search.with_values(base, values, "trial")
        file = tmp_path / f"d{len(list(tmp_path.iterdir()))}.toml"
        file.write_text(design_toml(design))
        settings = spec(str(file), spaces=spaces)
        known = racing.reach_before_shots(design, BOARD, settings, None)
        world = world_for(settings)
        physics = [s for s in spaces if aim_at_space(world, settings, s)[1] is not None]
        assert known == physics, values


def test_fidelity_is_a_whole_number_of_rounds_about_680_shots_a_trial():
    assert racing.check_fidelity(None, spec(), 68) == 10  # the whole board
    assert racing.check_fidelity(None, spec(), 28) == 30  # the far rows
    assert racing.check_fidelity(None, spec(), 2) == 340
    assert racing.check_fidelity(None, spec(shots=6, precision=None), 68) == 6
    assert racing.check_fidelity(None, spec(sampler="mc", shots=6, precision=None), 4) == 6
    assert racing.check_fidelity(40, spec(), 68) == 40
    for bad in (5, 25, 2000):
        with pytest.raises(InputError, match="--fidelity"):
            racing.check_fidelity(bad, spec(), 68)
