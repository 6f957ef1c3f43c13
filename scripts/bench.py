"""Shots per second from one world: the stock board with 12 piggies.

    python scripts/bench.py [--shots 40] [--json]

Variants are timed in the same run, because these machines are noisy: compare
the ratios, not the absolute figures.
- reused world: one World, many shots (each starts from the settled layout),
  idle piggies asleep until touched (the designs' default);
- reused, all awake: the same with ``sleep_at_rest = false``;
- rebuilt world: a new World (board, meshes, settling) for every shot, all awake.
It also counts how often the variants agree on who was knocked out.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

import numpy as np

from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, layout_from_dict
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=48, help="shots per variant (default 48)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict({"stacks": BENCH_STACKS}, board=board)
    with World(board, design, layout) as world:
        shots = aims(world, args.shots)
    awake = dataclasses.replace(design, physics=dataclasses.replace(design.physics,
                                                                    sleep_at_rest=False))
    reused_s, reused = time_reused(board, design, layout, shots)
    awake_s, reused_awake = time_reused(board, awake, layout, shots)
    rebuilt_s, rebuilt = time_rebuilt(board, awake, layout, shots)

    def agreement(a, b):
        return sum(x.knocked == y.knocked for x, y in zip(a, b, strict=True)) / args.shots

    figures = {
        "shots": args.shots,
        "reused_shots_per_s": round(args.shots / reused_s, 2),
        "reused_awake_shots_per_s": round(args.shots / awake_s, 2),
        "rebuilt_shots_per_s": round(args.shots / rebuilt_s, 2),
        "sleep_speedup": round(awake_s / reused_s, 2),
        "reuse_speedup": round(rebuilt_s / awake_s, 2),
        "mean_sim_time_s": round(float(np.mean([r.sim_time_s for r in reused])), 3),
        "sim_seconds_per_wall_second": round(sum(r.sim_time_s for r in reused) / reused_s, 2),
        "knockouts_per_shot": round(float(np.mean([len(r.knocked) for r in reused])), 2),
        "verdicts_agree_sleep_vs_awake": round(agreement(reused, reused_awake), 3),
        "verdicts_agree_reused_vs_rebuilt": round(agreement(reused_awake, rebuilt), 3),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"stock board, 12 piggies, design '{design.name}', {args.shots} shots per variant")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
