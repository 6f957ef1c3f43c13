"""Shots per second, the naive reference against our engine (scripts/bench.py --only shots).

Shots, on the stock board's crowded layout (12 piggies, two stacks), the same
solver-aimed shots and seeds for every variant, timed in the same run (these
machines are noisy: compare the ratios, not the absolute figures):
- the naive reference: the same physical model, but a fresh BulletWorld per shot, a
  fixed 2-second horizon, every piggy awake, no early stop, and the solver
  iterations the model had before it was tuned for speed (20);
- our engine, one process: one BulletWorld, idle piggies static stand-ins until
  something comes near, resting piggies frozen again, stopping when everything
  is at rest;
- our engine with every piggy awake all the shot (what the stand-ins buy);
- our engine with 2 worker processes (worlds built before the clock starts).
It reports how often the naive reference and each engine agree on who was
knocked out (on the first --naive-shots shots), and, to show what agreement
means for these shots, how often the reference model agrees with itself when
every aim moves by 0.01 degree (a 0.05 mm shift at 300 mm; run with every
piggy awake, which gives the naive reference's verdicts).
"""

from __future__ import annotations

import dataclasses
import math
import time
from concurrent.futures import ProcessPoolExecutor

from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, load_layout
from sim.physics import aim
from sim.physics.bullet import pb
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot

#: How far every aim is moved to see how sensitive the reference's verdicts are, degrees.
AIM_NUDGE_DEG = 0.01


def aims(world: BulletWorld, count: int) -> list[tuple[float, float, int]]:
    """``count`` shots at the piggies in turn: (yaw, pitch, seed)."""
    targets = [aim.solve(world.design, world.piggy_centre_mm(p))[0] for p in ALL_PIGGIES]
    return [(targets[i % 12].yaw_deg, targets[i % 12].pitch_deg, i) for i in range(count)]


#: The engine's physics before it was tuned by the grazing test (docs/physics.md,
#: "Fidelity on grazing shots"); the naive reference keeps its solver iterations and
#: its fixed-base multibody board, fences and tractor.
BEFORE_TUNING = {
    "solver_iterations": 20,
    "rest_time_s": 0.1,
    "early_verdict": False,
    "rigid_obstacles": False,
}


def with_physics(design, **changes):
    """The design with some of its physics settings changed."""
    return dataclasses.replace(design, physics=dataclasses.replace(design.physics, **changes))


class NewBaleEachShot(BulletWorld):
    """The engine as it was before issue 31, for the benches to time the reused bale
    against: every shot removes the last shot's bale and makes a new one (BulletWorld's
    reset as it was then). Its shots are the same bytes as the engine's."""

    def _reset(self, tractor_yaw_deg: float = 0.0) -> None:
        scene = self.scene
        self.stand_ins.remove_made()
        scene.remove(scene.bale)
        self.stand_ins.reset()
        scene.call(
            pb.resetBasePositionAndOrientation,
            scene.tractor,
            [0, 0, 0],
            pb.getQuaternionFromEuler([0, 0, math.radians(tractor_yaw_deg)]),
        )
        scene.call(pb.stepSimulation)
        scene.make_bale()
        if not self.design.physics.sleep_at_rest:
            self.stand_ins.wake_all()


def naive_design(design):
    """The same model, run the way a first attempt would: 2 s every shot, all awake,
    the solver iterations the model had before any tuning for speed."""
    return with_physics(
        design,
        max_time_s=2.0,
        rest_time_s=5.0,
        sleep_at_rest=False,
        early_verdict=False,
        rigid_obstacles=False,
        solver_iterations=BEFORE_TUNING["solver_iterations"],
    )


def time_naive(board, design, layout, shots) -> tuple[float, list]:
    start = time.perf_counter()
    results = []
    for yaw, pitch, seed in shots:
        with BulletWorld(board, naive_design(design), layout) as world:
            results.append(world.shoot(AimedShot(yaw, pitch, seed=seed)).knocked)
    return time.perf_counter() - start, results


def time_engine(board, design, layout, shots) -> tuple[float, list]:
    world = BulletWorld(board, design, layout)
    start = time.perf_counter()
    results = [world.shoot(AimedShot(yaw, pitch, seed=seed)).knocked for yaw, pitch, seed in shots]
    elapsed = time.perf_counter() - start
    world.close()
    return elapsed, results


_WORKER_WORLD: list[BulletWorld] = []


def _start_worker() -> None:
    board = load_board("stock")
    _WORKER_WORLD.append(BulletWorld(board, load_design("stock"), load_layout("crowded", board)))


def _worker_ready(_) -> None:
    time.sleep(0.5)  # long enough for every worker to take one and start


def _engine_part(shots) -> list:
    return [
        _WORKER_WORLD[0].shoot(AimedShot(yaw, pitch, seed=seed)).knocked
        for yaw, pitch, seed in shots
    ]


def time_engine_workers(shots, workers: int) -> tuple[float, list]:
    """The shots split between worker processes, each with its world built before
    the clock starts (as in a long sweep, where start-up is a fixed cost)."""
    chunks = [shots[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker) as pool:
        list(pool.map(_worker_ready, range(workers)))
        start = time.perf_counter()
        parts = list(pool.map(_engine_part, chunks))
        elapsed = time.perf_counter() - start
    results = [None] * len(shots)
    for i, part in enumerate(parts):
        results[i::workers] = part
    return elapsed, results


def bench_shots(count: int, naive_count: int, quiet: bool) -> dict:
    """Shots per second for each variant (see the module docstring)."""
    board, design = load_board("stock"), load_design("stock")
    layout = load_layout("crowded", board)
    with BulletWorld(board, design, layout) as world:
        shots = aims(world, count)
    awake = dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, sleep_at_rest=False)
    )
    naive_s, naive = time_naive(board, design, layout, shots[:naive_count])
    engine_s, engine = time_engine(board, design, layout, shots)
    awake_s, engine_awake = time_engine(board, awake, layout, shots)
    two_s, two = time_engine_workers(shots, 2)
    nudged = [(yaw + AIM_NUDGE_DEG, pitch, seed) for yaw, pitch, seed in shots[:naive_count]]
    _, awake_nudged = time_engine(board, awake, layout, nudged)

    def agreement(a: list, b: list) -> float:
        return round(sum(x == y for x, y in zip(a, b, strict=False)) / len(naive), 3)

    figures = {
        "shots": count,
        "naive_shots": naive_count,
        "naive_shots_per_s": round(naive_count / naive_s, 2),
        "engine_shots_per_s": round(count / engine_s, 2),
        "engine_awake_shots_per_s": round(count / awake_s, 2),
        "engine_2w_shots_per_s": round(count / two_s, 2),
        "engine_vs_naive": round((count / engine_s) / (naive_count / naive_s), 2),
        "two_workers_vs_one": round(engine_s / two_s, 2),
        "verdict_agreement": agreement(naive, engine),
        "verdict_agreement_awake": agreement(naive, engine_awake),
        "reference_agreement_aim_nudged": agreement(engine_awake, awake_nudged),
        "two_workers_same_verdicts": two == engine,
    }
    if quiet:
        return figures
    print(
        f"stock board, crowded layout (12 piggies), design '{design.name}', the same "
        f"{count} shots ({naive_count} for the naive reference)"
    )
    for key, label in (
        ("naive_shots_per_s", "naive reference (fresh world, 2 s, awake)"),
        ("engine_shots_per_s", "engine, one process"),
        ("engine_awake_shots_per_s", "engine, every body awake"),
        ("engine_2w_shots_per_s", "engine, 2 worker processes"),
    ):
        print(f"  {label:44s} {figures[key]:8.2f} shots/s")
    print(
        f"  engine / naive: {figures['engine_vs_naive']:.1f}x;  2 workers / 1: "
        f"{figures['two_workers_vs_one']:.2f}x"
    )
    print(
        f"  same verdicts as the naive reference: engine "
        f"{100 * figures['verdict_agreement']:.1f} %, engine every body awake "
        f"{100 * figures['verdict_agreement_awake']:.1f} %; 2 workers vs 1: "
        f"{'all the same' if figures['two_workers_same_verdicts'] else 'NOT all the same'}"
    )
    print(
        f"  the reference model against itself with every aim {AIM_NUDGE_DEG} degree off: "
        f"{100 * figures['reference_agreement_aim_nudged']:.1f} %"
    )
    return figures
