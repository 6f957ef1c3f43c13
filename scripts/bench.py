"""Speed and fidelity: physical shots per second, P on grazing shots, games per second.

    python scripts/bench.py [--only shots|grazing|child|own-piggy|startup|games|answer|cluster|
                                    measure]
                            [--shots 240] [--naive-shots 240] [--grazing-shots 20]
                            [--grazing-reference-shots N] [--grazing-targets 12] [--child-shots 30]
                            [--own-piggy-shots 50] [--own-piggy-design DESIGN]
                            [--games 200] [--measure-shots 12] [--json]

Shots (scripts/bench_shots.py): physical shots per second, the naive reference
against our engine, on the crowded layout.

Grazing (scripts/bench_grazing.py): P on grazing shots, the engine's speed changes
against the naive reference and the engine before tuning.

With the defaults a run takes about 12 minutes on an idle 2-core machine, most of
it the naive reference (twice 240 grazing shots, 240 solver-aimed shots).

A child's shots (scripts/bench_child.py): issue 18's speed changes on the shots a hit
map fires, a lone piggy on six stock spaces, the child aimer; CPU time per shot and
the verdicts and strikes against issue 10's engine; issue 31's reused bale against a
new bale each shot (its speed, and every shot the same bytes).

Own piggies (scripts/bench_own_piggy.py): a child's shots with a piggy of our own
(a mesh split into up to 16 convex parts) against the stock piggy, the same seeded
shots for each: shots per CPU second, and each one's time a shot against the stock
piggy's (issue 25 allows up to 1.25x). About 15 s, and the first time about 20 s more
for CoACD to split the example finer (cached in the user cache after).

Answer (scripts/bench_answer.py): the seconds and shots to the whole stock board's
hit map to ±0.05 with a child aiming, against plain Monte Carlo's shots; a paired
comparison's seconds and shots; two design searches' seconds and shots, cold;
child-aimed shots a second on one core.

Startup (scripts/bench_startup.py): the median time and CPU time of ``piggy --help``
over 10 runs, and the CPU time of a typo'd ``design compare`` (a fast start).

Cluster (scripts/bench_cluster.py): each study that fires shots on a Dask
LocalCluster of 1 and of 2 single-threaded workers: seconds, speed-up, efficiency;
and the hit map on 2 local processes for what the cluster costs. About 3 minutes.

Measure (scripts/bench_measure.py): a 1080p film measured with the bale finder's
blobs labelled within the changed pixels' box, against the whole frame as before:
CPU seconds, the speed-up, and whether every shot measured the same. About a
minute and a half with the default 12 shots, most of it the whole-frame variant.

Games: complete games of each module with its bots (Go Piggy Go! with scripted
shots, no physics), in one process: the referee's own speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from bench_child import bench_child
from bench_grazing import bench_grazing
from bench_own_piggy import bench_own_piggy
from bench_shots import bench_shots
from bench_startup import bench_startup

import referee
from models.board import load_board, space_name
from models.design import load_design
from models.errors import InputError
from referee.bots import make_bot
from referee.match import play

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


def parse_args() -> argparse.Namespace:
    """The command line, checked (a bad value exits 2 with one line); the grazing
    reference's shots filled in."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        choices=tuple(SECTIONS),
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
        "--grazing-targets",
        type=int,
        default=12,
        help="the first so many of the crowded layout's 12 piggies (default 12: all)",
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
    parser.add_argument(
        "--own-piggy-shots",
        type=int,
        default=50,
        help="a child's shots a space for the own-piggy section (default 50)",
    )
    parser.add_argument(
        "--own-piggy-design",
        help="a design with a piggy mesh to time, as given (default: the wide-piggy "
        "example as shipped and split into 16 parts)",
    )
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument(
        "--measure-shots",
        type=int,
        default=12,
        help="shots in the film the measure section measures (1 to 40, default 12)",
    )
    parser.add_argument(
        "--answer-precision",
        type=float,
        default=0.05,
        help="the answer's half-width (default 0.05)",
    )
    parser.add_argument(
        "--answer-spaces", help="the answer's spaces, comma-separated (default: the whole board)"
    )
    parser.add_argument(
        "--answer-shots",
        type=int,
        default=1000,
        help="the answer's, comparisons' and searches' most shots a space (default 1000; "
        "fewer: a quick run, its figures not the product's)",
    )
    parser.add_argument(
        "--optimise-trials",
        type=int,
        default=20,
        help="trials of each timed design search (default 20)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    if not 1 <= args.measure_shots <= 40:
        parser.error(
            f"--measure-shots must be 1 to 40 (the example's rows), got {args.measure_shots}"
        )
    if args.child_shots < 1:
        parser.error(f"--child-shots must be at least 1, got {args.child_shots}")
    if args.optimise_trials < 1:
        parser.error(f"--optimise-trials must be at least 1, got {args.optimise_trials}")
    if not 10 <= args.answer_shots <= 1000:
        parser.error(f"--answer-shots must be 10 to 1000, got {args.answer_shots}")
    if args.own_piggy_shots < 1:
        parser.error(f"--own-piggy-shots must be at least 1, got {args.own_piggy_shots}")
    if args.own_piggy_design is not None:
        try:
            own = load_design(args.own_piggy_design)
        except InputError as error:
            parser.error(str(error))
        if own.piggy.mesh is None:
            parser.error(f"--own-piggy-design: design '{own.name}' gives no piggy mesh")
    _check_grazing(parser, args)
    if args.answer_spaces:
        board = load_board("stock")
        try:
            args.answer_spaces = tuple(
                space_name(board.parse_space(s)) for s in args.answer_spaces.split(",")
            )
        except InputError as error:
            parser.error(f"--answer-spaces: {error}")
    return args


def _check_grazing(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The grazing bench's sizes, checked; its reference's shots filled in."""
    if not 1 <= args.grazing_targets <= 12:
        parser.error(f"--grazing-targets must be 1 to 12, got {args.grazing_targets}")
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
    args.grazing_reference_shots = reference_shots


def games_section(args: argparse.Namespace) -> dict:
    """The games bench, printed unless ``--json``."""
    rows = bench_games(args.games)
    if not args.json:
        print(f"complete games, {args.games} each, one process")
        for row in rows:
            print(
                f"  {row['bench']:48s} {row['games_per_s']:8.1f} games/s "
                f"({row['mean_turns']:.0f} turns a game)"
            )
    return {"games": rows}


def answer_section(args: argparse.Namespace) -> dict:
    from bench_answer import bench_answer

    return bench_answer(
        args.answer_precision,
        spaces=args.answer_spaces,
        quiet=args.json,
        trials=args.optimise_trials,
        cap=args.answer_shots,
    )


def cluster_section(args: argparse.Namespace) -> dict:
    from bench_cluster import bench_cluster

    return bench_cluster(args.json)


def measure_section(args: argparse.Namespace) -> dict:
    from bench_measure import bench_measure

    return bench_measure(args.measure_shots, args.json)


#: Each section, in the order a whole run takes them: its figures from the arguments.
SECTIONS: dict[str, Callable[[argparse.Namespace], dict]] = {
    "shots": lambda a: bench_shots(a.shots, min(a.naive_shots, a.shots), a.json),
    "grazing": lambda a: bench_grazing(
        a.grazing_shots,
        a.grazing_reference_shots,
        a.json,
        a.grazing_since_issue_10,
        a.grazing_targets,
    ),
    "child": lambda a: bench_child(a.child_shots, a.json),
    "own-piggy": lambda a: bench_own_piggy(a.own_piggy_shots, a.own_piggy_design, a.json),
    "startup": lambda a: bench_startup(a.json),
    "games": games_section,
    "answer": answer_section,
    "cluster": cluster_section,
    "measure": measure_section,
}


def main() -> int:
    args = parse_args()
    report = {}
    for name, section in SECTIONS.items():
        if args.only in (None, name):
            report.update(section(args))
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
