"""``piggy solve``: optimal play of Pig-Out's family (referee/pig_solver.py), its
memory estimated and checked before the solve starts, its sweeps shown on a
terminal."""

from __future__ import annotations

import math
import sys
import time

from models.errors import InputError
from models.text import shown
from sim.cli.common import json_out, progress_bar, whole_number


def cmd_solve(args) -> int:
    from referee import pig_solver

    game = _game_of(args)
    note = pig_solver.solve_note(game.params["target"], "piggy solve")
    if note:
        print(f"piggy: note: {note}", file=sys.stderr)
    progress = progress_bar(None, not args.json, unit="sweep", label="solving")
    start = time.perf_counter()
    win, roll, iterations = pig_solver.solve(game, on_sweep=_sweep_progress(progress))
    progress(iterations, iterations)  # the estimate of the sweeps left ends exact
    progress(None)
    elapsed = time.perf_counter() - start
    result = {
        "game": "pig_out",
        "params": game.params,
        "first_player_win_probability": round(pig_solver.first_player_win_probability(win), 6),
        "policy_states": int(roll.size),
        "rolling_states": int(roll.sum()),
        "iterations": iterations,
        "solve_time_s": round(elapsed, 2),
    }
    del win, roll  # one table in memory at a time
    if args.hold_at:
        held = pig_solver.hold_at_win_probabilities(game, args.hold_at)
        result["hold_at_first_player_win_probability"] = {
            str(n): round(p, 6) for n, p in held.items()
        }
    if args.json:
        json_out(result)
        return 0
    _print_solved(result, game, elapsed)
    return 0


def _game_of(args):
    """The game of ``GAME``, ``--param`` and ``--preset``: Pig-Out, and solvable."""
    from referee import canonical_name
    from referee.pig_out import PigOutGame
    from referee.validate import parse_params

    if canonical_name(args.game) != "pig_out":
        raise InputError(f"piggy solve: only pig_out can be solved, not {shown(args.game)}")
    params = parse_params(args.param)
    if args.preset:
        params["preset"] = args.preset
    game = PigOutGame(**params)
    if game.params["cards"] and game.params["deck"] == "physical":
        raise InputError(
            "piggy solve: Pig-Out 2's physical deck cannot be solved (the cards "
            "left are part of the state): add --param deck=infinite to solve the "
            "same game with the cards drawn with replacement (minutes at target "
            "400), or use --preset pig for classic Pig (seconds)"
        )
    return game


def _print_solved(result: dict, game, elapsed: float) -> None:
    # Four decimals: these are exact values of the game, not estimates, and the
    # published ones (0.5306, 0.5347) differ in the third.
    print(
        f"pig_out {game.params['preset']} (target {game.params['target']}): optimal play by "
        f"both, the first player wins {result['first_player_win_probability']:.4f}"
    )
    print(
        f"  policy over {result['policy_states']:,} states ({result['rolling_states']:,} roll), "
        f"{result['iterations']} sweeps, {elapsed:.1f} s"
    )
    for n, p in result.get("hold_at_first_player_win_probability", {}).items():
        print(f"  both holding at {n}: the first player wins {p:.4f}")


def _sweep_progress(progress, tolerance: float = 1e-12):
    """Sweeps done, out of an estimate: the largest change falls about geometrically
    from 1 to ``tolerance``, so the fraction of its logarithm gone predicts the end."""

    def on_sweep(iteration: int, change: float) -> None:
        gone = math.log(max(change, tolerance)) / math.log(tolerance)
        progress(iteration, max(iteration + 1, round(iteration / gone)) if gone > 0.1 else None)

    return on_sweep


def add_solve(sub) -> None:
    """The ``solve`` command."""
    p = sub.add_parser(
        "solve",
        help="optimal play of Pig-Out's family by value iteration",
        description="Solve pig_out for two players (no cards, or an infinite "
        "deck): the first player's chance of winning under optimal "
        "play by both. A progress bar on a terminal; a note first "
        "when the solve takes minutes.",
    )
    p.add_argument("game", help="pig_out (or pig-out)")
    p.add_argument(
        "--preset",
        help="pig (classic Pig, seconds) or pig-out-2 (the default; "
        "it needs --param deck=infinite, and takes minutes)",
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a game parameter, e.g. --param target=50 (repeatable)",
    )
    p.add_argument(
        "--hold-at",
        type=whole_number(1, 100_000),
        action="append",
        metavar="N",
        help="also: the first player's chance when both hold at N (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_solve)
