"""A space's one noise plan (sim/studies/shots/space_shots.py): the same shots whatever the
looks between, each row's noise found again from the row, and a look's shots handed
to the engine together (ShotEngine.fire)."""

import dataclasses

import pytest

from models.aimer import load_aimer
from models.board import load_board
from sim.physics.launch import AimedShot
from sim.physics.registry import make_world, resolve
from sim.physics.shoot import Aim
from sim.studies.shots import rqmc, space_shots
from sim.studies.shots.space_firing import aim_at_space, fire_rounds
from sim.studies.shots.space_shots import SweepSpec, noise_plan, row_shot, shot_seed

SPACE = (2, 3)
#: An aim the plans' shots are fired at (the plan is the noise; the aim rides along).
AIM = Aim(4.0, 25.0)


def spec(sampler: str, shots: int = 40) -> SweepSpec:
    return SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=("r2c3",),
        shots=shots,
        seed=5,
        aimer=load_aimer("child"),
        sampler=sampler,
        vary={"friction": 0.1},
    )


@pytest.mark.parametrize("sampler", ["mc", "rqmc"])
def test_the_plan_is_the_same_whatever_the_looks_between(sampler):
    sweep = spec(sampler)
    streams = rqmc.plan(sweep.shots, None)[0] if sampler == "rqmc" else 1
    whole = noise_plan(sweep, SPACE, 0, 6, AIM)
    first = noise_plan(sweep, SPACE, 0, 2, AIM)
    assert len(first) == 2 * streams and len(whole) == 6 * streams
    rest = noise_plan(sweep, SPACE, len(first), 6, AIM)
    by_row = {p.index: p for p in first + rest}
    assert sorted(by_row) == list(range(6 * streams))

    # rows are numbered in firing order: the same shots, whichever the looks
    def shots(plan):
        return sorted((p.scramble or 0, p.point or 0, p.seed, repr(p.shot)) for p in plan)

    assert shots(first + rest) == shots(whole)
    if sampler == "mc":
        assert first + rest == whole


def test_rqmc_looks_draw_the_points_each_scramble_gives_at_once():
    sweep = spec("rqmc")
    space_shots._scramble_shots.cache_clear()
    looks = [
        *noise_plan(sweep, SPACE, 0, 2, AIM),
        *noise_plan(sweep, SPACE, 2 * rqmc.SCRAMBLES, 7, AIM),
    ]
    for scramble in range(rqmc.SCRAMBLES):
        seed = rqmc.scramble_seed(sweep.seed, SPACE, scramble)
        at_once = rqmc.to_deviates(rqmc.scramble_points(seed, 4, 7))
        drawn = [p.shot.deviates for p in looks if p.scramble == scramble]
        assert [[d.yaw, d.pitch, d.speed, *d.vary] for d in drawn if d] == at_once.tolist()
        assert len(drawn) == len(at_once)


def test_plain_monte_carlo_shots_draw_from_their_own_seeds():
    sweep = spec("mc")
    plan = noise_plan(sweep, SPACE, 3, 5, AIM)
    assert [(p.index, p.seed, p.shot) for p in plan] == [
        (
            i,
            shot_seed(5, SPACE, i),
            AimedShot(4.0, 25.0, shot_seed(5, SPACE, i), aimer=sweep.aimer, vary=sweep.vary),
        )
        for i in (3, 4)
    ]


@pytest.mark.parametrize("sampler", ["mc", "rqmc"])
def test_a_rows_shot_is_its_planned_shot(sampler):
    sweep = spec(sampler)
    for planned in noise_plan(sweep, SPACE, 0, 4, AIM):
        row = _Row(planned.index, planned.scramble, planned.point)
        assert row_shot(sweep, SPACE, row, AIM) == planned.shot


@dataclasses.dataclass
class _Row:
    shot: int
    scramble: int | None
    point: int | None


@pytest.mark.parametrize("engine", ["bullet", "mujoco"])
def test_a_look_hands_its_shots_to_the_engine_together(engine):
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    sweep = spec("rqmc", shots=20)
    world = make_world(load_board("stock"), resolve(_design(), engine), bale_to_rest=False)
    target, aim = aim_at_space(world, sweep, "r2c3")
    calls = []
    fire = world.fire

    def counted(shots):
        calls.append(len(shots))
        return fire(shots)

    world.fire = counted
    rows = fire_rounds(sweep, world, aim, "r2c3", target, [], 1)
    rows = fire_rounds(sweep, world, aim, "r2c3", target, rows, 2)
    streams = rqmc.plan(sweep.shots, None)[0]
    assert calls == [streams, streams]
    one_by_one = [world.shoot(p.shot) for p in noise_plan(sweep, SPACE, 0, 2, aim)]
    by_point = {(row.scramble, row.point): row for row in rows}
    assert len(by_point) == 2 * streams
    for p, shot in zip(noise_plan(sweep, SPACE, 0, 2, aim), one_by_one, strict=True):
        row = by_point[p.scramble, p.point]
        assert (row.knocked, row.speed_mm_s) == (",".join(shot.knocked), round(shot.speed_mm_s, 2))
    world.close()


def _design():
    from models.design import load_design

    return load_design("stock")
