"""Speed: physical shots per second, and complete games per second.

    python scripts/bench.py [--only shots|games] [--shots 240] [--naive-shots 240]
                            [--games 200] [--json]

Shots, on the stock board's crowded layout (12 piggies, two stacks), the same
solver-aimed shots and seeds for every variant, timed in the same run (these
machines are noisy: compare the ratios, not the absolute figures):
- the naive reference: the same physical model, but a fresh World per shot, a
  fixed 2-second horizon, every piggy awake and no early stop;
- our engine, one process: one World, idle piggies static stand-ins until
  something comes near, resting piggies frozen again, stopping when everything
  is at rest;
- our engine with every piggy awake all the shot (what the stand-ins buy);
- our engine with 2 worker processes (worlds built before the clock starts).
It reports how often the naive reference and each engine agree on who was
knocked out (on the first --naive-shots shots), and, to show what agreement
means for these shots, how often the reference model agrees with itself when
every aim moves by 0.01 degree (a 0.05 mm shift at 300 mm; run with every
piggy awake, which gives the naive reference's verdicts). With the defaults a
run takes about 6 minutes, most of it the naive reference.

Games: complete games of each module with its bots (Go Piggy Go! with scripted
shots, no physics), in one process: the referee's own speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import referee
from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, load_layout
from referee.bots import make_bot
from referee.match import play
from sim.physics import aim
from sim.physics.world import World

#: How far every aim is moved to see how sensitive the reference's verdicts are, degrees.
AIM_NUDGE_DEG = 0.01


def aims(world: World, count: int) -> list[tuple[float, float, int]]:
    """``count`` shots at the piggies in turn: (yaw, pitch, seed)."""
    targets = [aim.solve(world.design, world.piggy_centre_mm(p))[0] for p in ALL_PIGGIES]
    return [(targets[i % 12].yaw_deg, targets[i % 12].pitch_deg, i) for i in range(count)]


def naive_design(design):
    """The same model, run the way a first attempt would: 2 s every shot, all awake."""
    return dataclasses.replace(design, physics=dataclasses.replace(
        design.physics, max_time_s=2.0, rest_time_s=5.0, sleep_at_rest=False))


def time_naive(board, design, layout, shots) -> tuple[float, list]:
    start = time.perf_counter()
    results = []
    for yaw, pitch, seed in shots:
        with World(board, naive_design(design), layout) as world:
            results.append(world.shoot(yaw, pitch, seed=seed).knocked)
    return time.perf_counter() - start, results


def time_engine(board, design, layout, shots) -> tuple[float, list]:
    world = World(board, design, layout)
    start = time.perf_counter()
    results = [world.shoot(yaw, pitch, seed=seed).knocked for yaw, pitch, seed in shots]
    elapsed = time.perf_counter() - start
    world.close()
    return elapsed, results


_WORKER_WORLD: list[World] = []


def _start_worker() -> None:
    board = load_board("stock")
    _WORKER_WORLD.append(World(board, load_design("stock"),
                               load_layout("crowded", board)))


def _worker_ready(_) -> None:
    time.sleep(0.5)  # long enough for every worker to take one and start


def _engine_part(shots) -> list:
    return [_WORKER_WORLD[0].shoot(yaw, pitch, seed=seed).knocked for yaw, pitch, seed in shots]


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
    with World(board, design, layout) as world:
        shots = aims(world, count)
    awake = dataclasses.replace(design, physics=dataclasses.replace(design.physics,
                                                                    sleep_at_rest=False))
    naive_s, naive = time_naive(board, design, layout, shots[:naive_count])
    engine_s, engine = time_engine(board, design, layout, shots)
    awake_s, engine_awake = time_engine(board, awake, layout, shots)
    two_s, two = time_engine_workers(shots, 2)
    nudged = [(yaw + AIM_NUDGE_DEG, pitch, seed) for yaw, pitch, seed in shots[:naive_count]]
    _, awake_nudged = time_engine(board, awake, layout, nudged)

    def agreement(a: list, b: list) -> float:
        return round(sum(x == y for x, y in zip(a, b, strict=False)) / len(naive), 3)

    figures = {
        "shots": count, "naive_shots": naive_count,
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
    print(f"stock board, crowded layout (12 piggies), design '{design.name}', the same "
          f"{count} shots ({naive_count} for the naive reference)")
    for key, label in (("naive_shots_per_s", "naive reference (fresh world, 2 s, awake)"),
                       ("engine_shots_per_s", "engine, one process"),
                       ("engine_awake_shots_per_s", "engine, every body awake"),
                       ("engine_2w_shots_per_s", "engine, 2 worker processes")):
        print(f"  {label:44s} {figures[key]:8.2f} shots/s")
    print(f"  engine / naive: {figures['engine_vs_naive']:.1f}x;  2 workers / 1: "
          f"{figures['two_workers_vs_one']:.2f}x")
    print(f"  same verdicts as the naive reference: engine "
          f"{100 * figures['verdict_agreement']:.1f} %, engine every body awake "
          f"{100 * figures['verdict_agreement_awake']:.1f} %; 2 workers vs 1: "
          f"{'all the same' if figures['two_workers_same_verdicts'] else 'NOT all the same'}")
    print(f"  the reference model against itself with every aim {AIM_NUDGE_DEG} degree off: "
          f"{100 * figures['reference_agreement_aim_nudged']:.1f} %")
    return figures


#: Games timed, with sensible bots: (label, game, parameters, seats).
GAME_BENCHES = [
    ("go_piggy_go, 4 random bots, scripted shots", "go_piggy_go", {"players": 4},
     ["random"] * 4),
    ("go_piggy_go, 4 greedy bots, scripted shots", "go_piggy_go", {"players": 4},
     ["greedy"] * 4),
    ("pig_out (Pig-Out 2), hold-at-25 x 2", "pig_out", {}, ["hold-at-25"] * 2),
    ("pig_out (classic Pig), optimal vs hold-at-20", "pig_out", {"preset": "pig"},
     ["optimal", "hold-at-20"]),
    ("woolfy, careful x 2", "woolfy", {}, ["careful"] * 2),
    ("by_golly, memory vs forgetful", "by_golly", {}, ["memory", "forgetful"]),
]


def bench_games(games: int) -> list[dict]:
    """Complete games per second for each module with its bots (one process)."""
    rows = []
    for label, name, params, seats in GAME_BENCHES:
        game = referee.load_game(name, **params)
        bots = [make_bot(b, game, i) for i, b in enumerate(seats)]  # warm: solves optimal
        start = time.perf_counter()
        turns = 0
        for seed in range(games):
            bots = [make_bot(b, game, seed * 8 + i) for i, b in enumerate(seats)]
            turns += play(game, bots, seed=seed).turn
        elapsed = time.perf_counter() - start
        rows.append({"bench": label, "game": name, "games": games,
                     "games_per_s": round(games / elapsed, 1),
                     "mean_turns": round(turns / games, 1)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("shots", "games"), help="run one section only")
    parser.add_argument("--shots", type=int, default=240, help="engine shots (default 240)")
    parser.add_argument("--naive-shots", type=int, default=240,
                        help="naive-reference shots, the first of the same (default 240)")
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    report = {}
    if args.only in (None, "shots"):
        report.update(bench_shots(args.shots, min(args.naive_shots, args.shots), args.json))
    if args.only in (None, "games"):
        report["games"] = bench_games(args.games)
        if not args.json:
            print(f"complete games, {args.games} each, one process")
            for row in report["games"]:
                print(f"  {row['bench']:48s} {row['games_per_s']:8.1f} games/s "
                      f"({row['mean_turns']:.0f} turns a game)")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
