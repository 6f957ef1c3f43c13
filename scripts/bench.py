"""Speed: physical shots per second, and complete games per second.

    python scripts/bench.py [--only shots|games] [--shots 48] [--games 200] [--json]

Shots: from one world, the stock board with 12 piggies.

Variants are timed in the same run, because these machines are noisy: compare
the ratios, not the absolute figures.
- reused world: one World, many shots (each starts from the settled layout),
  idle piggies asleep until touched (the designs' default);
- reused, all awake: the same with ``sleep_at_rest = false``;
- rebuilt world: a new World (board, meshes, settling) for every shot, all awake.
It also counts how often the variants agree on who was knocked out.

Games: complete games of each module with its bots (Go Piggy Go! with scripted
shots, no physics), in one process: the referee's own speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

import numpy as np

import referee
from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, layout_from_dict
from referee.bots import make_bot
from referee.match import play
from sim import aim
from sim.world import World

#: 12 piggies spread over the stock board, two stacks among them.
BENCH_STACKS = {
    "r1c1": ["green-1"], "r2c4": ["green-2"], "r3c6": ["green-3", "gold-1"],
    "r6c0": ["gold-2"], "r7c2": ["gold-3"], "r7c5": ["pink-1"], "r8c3": ["pink-2", "pink-3"],
    "r9c0": ["blue-1"], "r9c6": ["blue-2"], "r10c3": ["blue-3"],
}


def aims(world: World, count: int) -> list[tuple[float, float, int]]:
    """``count`` shots at the piggies in turn: (yaw, pitch, seed)."""
    targets = [aim.solve(world.design, world.piggy_centre_mm(p))[0] for p in ALL_PIGGIES]
    return [(targets[i % 12].yaw_deg, targets[i % 12].pitch_deg, i) for i in range(count)]


def time_reused(board, design, layout, shots) -> tuple[float, list]:
    world = World(board, design, layout)
    start = time.perf_counter()
    results = [world.shoot(yaw, pitch, seed=seed) for yaw, pitch, seed in shots]
    elapsed = time.perf_counter() - start
    world.close()
    return elapsed, results


def time_rebuilt(board, design, layout, shots) -> tuple[float, list]:
    start = time.perf_counter()
    results = []
    for yaw, pitch, seed in shots:
        with World(board, design, layout) as world:
            results.append(world.shoot(yaw, pitch, seed=seed))
    return time.perf_counter() - start, results


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
    parser.add_argument("--shots", type=int, default=48, help="shots per variant (default 48)")
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    report = {}
    if args.only in (None, "shots"):
        report["shots"] = bench_shots(args.shots, args.json)
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


def bench_shots(count: int, quiet: bool) -> dict:
    """Shots per second from one world, three variants (see the module docstring)."""
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict({"stacks": BENCH_STACKS}, board=board)
    with World(board, design, layout) as world:
        shots = aims(world, count)
    awake = dataclasses.replace(design, physics=dataclasses.replace(design.physics,
                                                                    sleep_at_rest=False))
    reused_s, reused = time_reused(board, design, layout, shots)
    awake_s, reused_awake = time_reused(board, awake, layout, shots)
    rebuilt_s, rebuilt = time_rebuilt(board, awake, layout, shots)

    def agreement(a, b):
        return sum(x.knocked == y.knocked for x, y in zip(a, b, strict=True)) / count

    figures = {
        "shots": count,
        "reused_shots_per_s": round(count / reused_s, 2),
        "reused_awake_shots_per_s": round(count / awake_s, 2),
        "rebuilt_shots_per_s": round(count / rebuilt_s, 2),
        "sleep_speedup": round(awake_s / reused_s, 2),
        "reuse_speedup": round(rebuilt_s / awake_s, 2),
        "mean_sim_time_s": round(float(np.mean([r.sim_time_s for r in reused])), 3),
        "sim_seconds_per_wall_second": round(sum(r.sim_time_s for r in reused) / reused_s, 2),
        "knockouts_per_shot": round(float(np.mean([len(r.knocked) for r in reused])), 2),
        "verdicts_agree_sleep_vs_awake": round(agreement(reused, reused_awake), 3),
        "verdicts_agree_reused_vs_rebuilt": round(agreement(reused_awake, rebuilt), 3),
    }
    if quiet:
        return figures
    print(f"stock board, 12 piggies, design '{design.name}', {count} shots per variant")
    print(f"  reused world, idle asleep: {figures['reused_shots_per_s']:8.2f} shots/s")
    print(f"  reused world, all awake  : {figures['reused_awake_shots_per_s']:8.2f} shots/s")
    print(f"  rebuilt world, all awake : {figures['rebuilt_shots_per_s']:8.2f} shots/s")
    print(f"  sleeping idle piggies is {figures['sleep_speedup']:.2f}x faster (same verdicts "
          f"in {100 * figures['verdicts_agree_sleep_vs_awake']:.0f} % of shots)")
    print(f"  reusing the world is {figures['reuse_speedup']:.2f}x faster (same verdicts "
          f"in {100 * figures['verdicts_agree_reused_vs_rebuilt']:.0f} % of shots)")
    print(f"  mean simulated time per shot {figures['mean_sim_time_s']:.3f} s "
          f"({figures['sim_seconds_per_wall_second']:.1f} simulated s per wall s); "
          f"{figures['knockouts_per_shot']:.2f} knock-outs per shot")
    return figures


if __name__ == "__main__":
    sys.exit(main())
