"""Speed and fidelity: physical shots per second, P on grazing shots, games per second.

    python scripts/bench.py [--only shots|grazing|child|games|answer] [--shots 240]
                            [--naive-shots 240] [--grazing-shots 20]
                            [--grazing-reference-shots N] [--child-shots 30]
                            [--games 200] [--json]

Shots, on the stock board's crowded layout (12 piggies, two stacks), the same
solver-aimed shots and seeds for every variant, timed in the same run (these
machines are noisy: compare the ratios, not the absolute figures):
- the naive reference: the same physical model, but a fresh World per shot, a
  fixed 2-second horizon, every piggy awake, no early stop, and the solver
  iterations the model had before it was tuned for speed (20);
- our engine, one process: one World, idle piggies static stand-ins until
  something comes near, resting piggies frozen again, stopping when everything
  is at rest;
- our engine with every piggy awake all the shot (what the stand-ins buy);
- our engine with 2 worker processes (worlds built before the clock starts).
It reports how often the naive reference and each engine agree on who was
knocked out (on the first --naive-shots shots), and, to show what agreement
means for these shots, how often the reference model agrees with itself when
every aim moves by 0.01 degree (a 0.05 mm shift at 300 mm; run with every
piggy awake, which gives the naive reference's verdicts).

Grazing (docs/physics.md, "Fidelity on grazing shots"): --grazing-shots shots at
each of the 12 piggies, aimed by the solver at a point 15 mm beside it (square to
the line of fire, in the board plane), with the design's noise and seeds fixed per
shot, so that P(the piggy is knocked out) lies between 0 and 1, where a hit map
carries information. The same shots are fired by the naive reference (the first
--grazing-reference-shots of each piggy's: it is the costly part), by the
reference with every aim 0.01 degree off (its self-agreement), by the engine as
it was before tuning for speed, by each speed change alone and all together, by
issue 10's engine and by each of issue 18's changes to it, and by the engine as
the design file has it, as hit maps use it. For each, against the reference,
against the engine before tuning and against issue 10's engine: the largest |dP|
over the 12 piggies and the largest that "no difference" leaves 95 % of the time
(what these shots resolve), an exact McNemar test on target-knocked-out over all
shots, and the share of shots with the same verdicts; and its speed against the
engine before tuning and against issue 10's, timed interleaved target by target.
A change passes when no McNemar test is significant at 5 % and no largest |dP|
exceeds what the shots resolve.

With the defaults a run takes about 12 minutes on an idle 2-core machine, most of
it the naive reference (twice 240 grazing shots, 240 solver-aimed shots).

A child's shots (scripts/bench_child.py): issue 18's speed changes on the shots a hit
map fires, a lone piggy on six stock spaces, the child aimer; CPU time per shot and
the verdicts and strikes against issue 10's engine.

Answer (scripts/bench_answer.py): the seconds and shots to the whole stock board's
hit map to ±0.05 with a child aiming, against plain Monte Carlo's shots; a paired
comparison's seconds; child-aimed shots a second on one core.

Games: complete games of each module with its bots (Go Piggy Go! with scripted
shots, no physics), in one process: the referee's own speed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
from bench_child import bench_child
from bench_stats import hits, paired, passes

import referee
from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, load_layout
from models.stats import wilson_interval
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


#: The engine's physics before it was tuned by the grazing test (docs/physics.md,
#: "Fidelity on grazing shots"); the naive reference keeps its solver iterations and
#: its fixed-base multibody board, fences and tractor.
BEFORE_TUNING = {
    "solver_iterations": 20,
    "rest_time_s": 0.1,
    "early_verdict": False,
    "rigid_obstacles": False,
}
#: The engine as issue 10 left it, what issue 18's speed changes are compared with.
ISSUE_10 = "issue 10's engine"


def with_physics(design, **changes):
    """The design with some of its physics settings changed."""
    return dataclasses.replace(design, physics=dataclasses.replace(design.physics, **changes))


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
    _WORKER_WORLD.append(World(board, load_design("stock"), load_layout("crowded", board)))


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


#: Grazing aims: this far beside each piggy's centre, mm, square to the line of fire in
#: the board plane (to the left, seen from the tractor), where P(knocked out) is
#: neither 0 nor 1.
GRAZING_OFFSET_MM = 15.0
#: Target k's shot j has seed GRAZING_SEED * (k + 1) + j: a shorter run fires the
#: first shots of a longer one.
GRAZING_SEED = 1_000_000
#: The speed changes tried on the engine as it was before tuning, one at a time and
#: together; the engine as the design file has it is compared too.
CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("10 solver iterations", {"solver_iterations": 10}),
    ("early verdict", {"early_verdict": True}),
    ("0.03 s rest", {"rest_time_s": 0.03}),
]


def grazing_aims(world: World, per_target: int) -> list[list[tuple[float, float, int]]]:
    """For each piggy, ``per_target`` shots (yaw, pitch, seed) aimed by the solver (low
    arc) at the point GRAZING_OFFSET_MM beside it."""
    rows = []
    for k, piggy in enumerate(ALL_PIGGIES):
        centre = world.piggy_centre_mm(piggy)
        along = centre[:2] / math.hypot(*centre[:2])
        point = centre + GRAZING_OFFSET_MM * np.array([-along[1], along[0], 0.0])
        solution = aim.solve(world.design, point, piggy)[0]
        rows.append(
            [
                (solution.yaw_deg, solution.pitch_deg, GRAZING_SEED * (k + 1) + j)
                for j in range(per_target)
            ]
        )
    return rows


def grazing_variants(design, since_issue_10: bool = False) -> tuple[dict, str]:
    """Label -> (physics, bale_to_rest): the engine before tuning, each change alone, all
    together (unless ``since_issue_10``); issue 10's engine, and issue 18's changes to it
    (rigid obstacles; the bale's early verdict, which hit maps use); the design as hit
    maps use it is the last; and its label."""
    variants = {}
    if not since_issue_10:
        before = with_physics(design, **BEFORE_TUNING)
        variants["before tuning"] = (before.physics, True)
        for label, change in CHANGES:
            variants[label] = (with_physics(before, **change).physics, True)
        variants["all three"] = (
            with_physics(before, **{k: v for _, c in CHANGES for k, v in c.items()}).physics,
            True,
        )
    variants[ISSUE_10] = (with_physics(design, rigid_obstacles=False).physics, True)
    variants["rigid obstacles"] = (with_physics(design, rigid_obstacles=True).physics, True)
    variants["both"] = (with_physics(design, rigid_obstacles=True).physics, False)
    engine_label = f"design '{design.name}', as hit maps use it"
    variants[engine_label] = (design.physics, False)
    return variants, engine_label


def fire_variants(board, design, layout, variants: dict, aims_by_target: list) -> tuple:
    """Every variant's world fires the same shots: ``(verdicts [target][shot] ->
    frozenset, CPU seconds, simulated seconds)`` by label.

    Timed shot by shot, the variants in turn (each goes first as often), in CPU time
    of this process: on a shared machine, wall time per block of shots, or even
    CPU time per block, moved by 10-20 % between two worlds of the same design."""
    worlds = {
        label: World(
            board, dataclasses.replace(design, physics=physics), layout, bale_to_rest=to_rest
        )
        for label, (physics, to_rest) in variants.items()
    }
    labels = list(variants)
    cpu, simulated = dict.fromkeys(labels, 0.0), dict.fromkeys(labels, 0.0)
    verdicts: dict[str, list[list[frozenset[str]]]] = {
        label: [[] for _ in aims_by_target] for label in labels
    }
    turn = 0
    for k, shots in enumerate(aims_by_target):
        for yaw, pitch, seed in shots:
            turn += 1
            for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
                start = time.process_time()
                result = worlds[label].shoot(yaw, pitch, seed=seed)
                cpu[label] += time.process_time() - start
                verdicts[label][k].append(frozenset(result.knocked))
                simulated[label] += result.sim_time_s
    for world in worlds.values():
        world.close()
    return verdicts, cpu, simulated


def bench_grazing(
    per_target: int, reference_per_target: int, quiet: bool, since_issue_10: bool = False
) -> dict:
    """Fidelity on grazing shots, and the speed changes compared on them (module
    docstring); the naive reference fires the first ``reference_per_target`` of each
    piggy's shots (it costs some 30 engine shots a shot)."""
    board, design = load_board("stock"), load_design("stock")
    layout = load_layout("crowded", board)
    with World(board, design, layout) as world:
        aims_by_target = grazing_aims(world, per_target)
    variants, engine_label = grazing_variants(design, since_issue_10)
    results, cpu, simulated = fire_variants(board, design, layout, variants, aims_by_target)
    m = reference_per_target
    reference = [
        [frozenset(k) for k in time_naive(board, design, layout, shots[:m])[1]]
        for shots in aims_by_target
    ]
    nudged = [
        [
            frozenset(k)
            for k in time_naive(
                board, design, layout, [(y + AIM_NUDGE_DEG, p, s) for y, p, s in shots[:m]]
            )[1]
        ]
        for shots in aims_by_target
    ]
    shots = 12 * per_target
    rows = []
    for label in variants:
        against_ref = paired([row[:m] for row in results[label]], reference)
        # against the engine before tuning: None when it was not fired
        against_before = results.get("before tuning") and paired(
            results[label], results["before tuning"]
        )
        against_issue_10 = paired(results[label], results[ISSUE_10])
        rows.append(
            {
                "variant": label,
                "shots_per_cpu_s": round(shots / cpu[label], 2),
                "speed_vs_before": against_before and round(cpu["before tuning"] / cpu[label], 3),
                "speed_vs_issue_10": round(cpu[ISSUE_10] / cpu[label], 3),
                "sim_s_per_shot": round(simulated[label] / shots, 4),
                "vs_reference": against_ref,
                "vs_before": against_before,
                "vs_issue_10": against_issue_10,
                "passes": all(
                    passes(x) for x in (against_ref, against_before, against_issue_10) if x
                ),
            }
        )
    engine_shots = [row[:m] for row in results[engine_label]]
    engine = paired(engine_shots, reference)
    targets = [
        {
            "piggy": p,
            "p_reference": round(r / m, 3),
            "p_reference_ci": [round(x, 3) for x in wilson_interval(r, m)],
            "p_engine": round(e / m, 3),
            "p_engine_ci": [round(x, 3) for x in wilson_interval(e, m)],
        }
        for p, r, e in zip(ALL_PIGGIES, hits(reference), hits(engine_shots), strict=True)
    ]
    figures = {
        "grazing_shots_per_target": per_target,
        "grazing_reference_shots_per_target": m,
        "grazing_engine": engine_label,
        "grazing_max_abs_dp": engine["max_abs_dp"],
        "grazing_max_abs_dp_resolvable": engine["max_abs_dp_resolvable"],
        "grazing_mcnemar_p": engine["mcnemar_p"],
        "grazing_agreement": engine["agreement"],
        "grazing_self_agreement": paired(reference, nudged)["agreement"],
        "grazing_targets": targets,
        "grazing_variants": rows,
    }
    if not quiet:
        print_grazing(figures, design)
    return figures


def print_grazing(figures: dict, design) -> None:
    n, m = figures["grazing_shots_per_target"], figures["grazing_reference_shots_per_target"]
    print(
        f"grazing shots: {n} a piggy ({m} for the naive reference), {GRAZING_OFFSET_MM:g} mm "
        f"beside each of the crowded layout's 12, design '{design.name}' noise; the same "
        "shots for every variant"
    )
    print(f"  {'piggy':8s} {'P reference':>22s} {'P engine':>22s}")
    for row in figures["grazing_targets"]:
        (a, b), (c, d) = row["p_reference_ci"], row["p_engine_ci"]
        print(
            f"  {row['piggy']:8s} {row['p_reference']:6.3f} [{a:.3f}, {b:.3f}]  "
            f"{row['p_engine']:6.3f} [{c:.3f}, {d:.3f}]"
        )
    resolvable = figures["grazing_max_abs_dp_resolvable"]
    print(
        f"  engine ({figures['grazing_engine']}) vs naive reference: max |dP| "
        f"{figures['grazing_max_abs_dp']:.3f} (resolvable {resolvable:.3f}), McNemar p "
        f"{figures['grazing_mcnemar_p']:.3f}, same verdicts "
        f"{100 * figures['grazing_agreement']:.1f} % (the reference against itself with "
        f"every aim {AIM_NUDGE_DEG} degree off: {100 * figures['grazing_self_agreement']:.1f} %)"
    )
    print(
        f"  {'variant':36s} {'shots/cpu s':>11s} {'speed':>6s} {'vs i10':>6s} {'sim s':>6s} | "
        f"vs reference: {'max|dP|':>7s} {'resolv':>6s} {'McN p':>6s} {'same':>6s} | "
        f"vs before: {'McN p':>6s} {'same':>6s} | vs {ISSUE_10}: {'max|dP|':>7s} "
        f"{'resolv':>6s} {'McN p':>6s} {'same':>6s}"
    )
    for row in figures["grazing_variants"]:
        r, b, i = row["vs_reference"], row["vs_before"], row["vs_issue_10"]
        speed_before = "" if b is None else f"{row['speed_vs_before']:.2f}x"
        against_before = (
            "not fired" if b is None else f"{b['mcnemar_p']:.3f} {100 * b['agreement']:5.1f}%"
        )
        print(
            f"  {row['variant']:36s} {row['shots_per_cpu_s']:11.2f} {speed_before:>6s} "
            f"{row['speed_vs_issue_10']:5.2f}x {row['sim_s_per_shot']:6.3f} |"
            f" {r['max_abs_dp']:20.3f} {r['max_abs_dp_resolvable']:6.3f} {r['mcnemar_p']:6.3f}"
            f" {100 * r['agreement']:5.1f}% | {against_before:>24s}"
            f" | {i['max_abs_dp']:27.3f} {i['max_abs_dp_resolvable']:6.3f} {i['mcnemar_p']:6.3f}"
            f" {100 * i['agreement']:5.1f}%  {'passes' if row['passes'] else 'FAILS'}"
        )


#: Games timed, with sensible bots: (label, game, parameters, seats).
#: (label, game, its parameters, its seats' bots)
GAME_BENCHES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    ("go_piggy_go, 4 random bots, scripted shots", "go_piggy_go", {"players": 4}, ["random"] * 4),
    ("go_piggy_go, 4 greedy bots, scripted shots", "go_piggy_go", {"players": 4}, ["greedy"] * 4),
    ("pig_out (Pig-Out 2), hold-at-25 x 2", "pig_out", {}, ["hold-at-25"] * 2),
    (
        "pig_out (classic Pig), optimal vs hold-at-20",
        "pig_out",
        {"preset": "pig"},
        ["optimal", "hold-at-20"],
    ),
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
        rows.append(
            {
                "bench": label,
                "game": name,
                "games": games,
                "games_per_s": round(games / elapsed, 1),
                "mean_turns": round(turns / games, 1),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        choices=("shots", "grazing", "child", "games", "answer"),
        help="run one section only",
    )
    parser.add_argument("--shots", type=int, default=240, help="engine shots (default 240)")
    parser.add_argument(
        "--naive-shots",
        type=int,
        default=240,
        help="naive-reference shots, the first of the same (default 240)",
    )
    parser.add_argument(
        "--grazing-shots",
        type=int,
        default=20,
        help="grazing shots a piggy for the engine variants (default 20)",
    )
    parser.add_argument(
        "--grazing-reference-shots",
        type=int,
        help="the first so many of them for the naive reference, fired twice (default: all)",
    )
    parser.add_argument(
        "--grazing-since-issue-10",
        action="store_true",
        help="fire only issue 10's engine and the changes since (not the "
        "engine before tuning and its changes)",
    )
    parser.add_argument(
        "--child-shots",
        type=int,
        default=30,
        help="a child's shots a space for the child section (default 30)",
    )
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument(
        "--answer-precision",
        type=float,
        default=0.05,
        help="the answer's half-width (default 0.05)",
    )
    parser.add_argument(
        "--answer-spaces", help="the answer's spaces, comma-separated (default: the whole board)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    if args.child_shots < 1:
        parser.error(f"--child-shots must be at least 1, got {args.child_shots}")
    if args.grazing_shots < 1:
        parser.error(f"--grazing-shots must be at least 1, got {args.grazing_shots}")
    reference_shots = (
        args.grazing_shots if args.grazing_reference_shots is None else args.grazing_reference_shots
    )
    if not 1 <= reference_shots <= args.grazing_shots:
        parser.error(
            f"--grazing-reference-shots must be 1 to --grazing-shots "
            f"({args.grazing_shots}), got {reference_shots}"
        )
    report = {}
    if args.only in (None, "shots"):
        report.update(bench_shots(args.shots, min(args.naive_shots, args.shots), args.json))
    if args.only in (None, "grazing"):
        report.update(
            bench_grazing(
                args.grazing_shots, reference_shots, args.json, args.grazing_since_issue_10
            )
        )
    if args.only in (None, "child"):
        report.update(bench_child(args.child_shots, args.json))
    if args.only in (None, "games"):
        report["games"] = bench_games(args.games)
        if not args.json:
            print(f"complete games, {args.games} each, one process")
            for row in report["games"]:
                print(
                    f"  {row['bench']:48s} {row['games_per_s']:8.1f} games/s "
                    f"({row['mean_turns']:.0f} turns a game)"
                )
    if args.only in (None, "answer"):
        from bench_answer import bench_answer

        spaces = tuple(args.answer_spaces.split(",")) if args.answer_spaces else None
        report.update(bench_answer(args.answer_precision, spaces=spaces, quiet=args.json))
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
