"""Optimal play of Pig-Out for two players, by value iteration (Neller & Presser
2004), and the win chances of fixed "hold at N" strategies; for referee.pig_out's
games without cards or with an infinite deck (docs/rules/pig-out.md)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from models.errors import InputError
from referee.pig_out import FACE_CARDS, RANKS, PigOutGame


def solve(
    game: PigOutGame,
    tolerance: float = 1e-12,
    max_iterations: int = 10_000,
    on_sweep: Callable[[int, float], None] | None = None,
):
    """Value iteration over (my score, opponent's score, turn total) for two players.

    Returns ``(win, roll, iterations)``: ``win[i, j, k]`` the probability that the
    player to move wins, holding ``i``, the opponent ``j``, with ``k`` spots this
    turn, under optimal play by both; ``roll[i, j, k]`` whether rolling is optimal;
    shapes (target, target, target).
    Only games whose state is those three numbers: two players, and no cards or
    an infinite deck (a physical deck's cards would be part of the state).
    ``on_sweep(iteration, change)`` is called after each sweep with the largest
    change of a turn-start value (the solve stops when it is below ``tolerance``).
    """
    return _iterate(game, tolerance, max_iterations, hold_at=None, on_sweep=on_sweep)


def evaluate_hold_at(
    game: PigOutGame, hold_at: int, tolerance: float = 1e-12, max_iterations: int = 10_000
):
    """The same tables for two players who both hold once a turn reaches ``hold_at``
    spots (or would reach the target)."""
    return _iterate(game, tolerance, max_iterations, hold_at=hold_at)


#: Memory the solver needs per state (my score, opponent's, turn total), bytes: the
#: value table (8), the policy (1) and the sweep's temporaries, measured with
#: tracemalloc at 10.5 for targets 60 and 120.
SOLVER_BYTES_PER_STATE = 12


def solve_memory_bytes(target: int) -> int:
    """The memory a solve of a game to ``target`` points needs, bytes: one table of
    ``target**3`` states at a time."""
    return SOLVER_BYTES_PER_STATE * target**3


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def check_memory(target: int, who: str) -> int:
    """The memory a solve to ``target`` needs, bytes; an InputError (one line, with the
    largest target that fits) when the system has less available. ``who`` names the
    asker (``piggy solve``, the optimal bot)."""
    needed, free = solve_memory_bytes(target), available_memory_bytes()
    if free is not None and needed > free:
        largest = round((free / SOLVER_BYTES_PER_STATE) ** (1 / 3))
        while solve_memory_bytes(largest) > free:
            largest -= 1
        raise InputError(
            f"{who}: a target of {target} needs about {gib(needed)} of "
            f"memory ({target}^3 states), and {gib(free)} is available: choose "
            f"a target of at most {largest}"
        )
    return needed


#: Above this many states (target cubed) a solve takes minutes: say so first.
SOLVE_WARN_STATES = 10_000_000


def solve_note(target: int, who: str) -> str | None:
    """:func:`check_memory`, then what a long solve will cost, in words (None for a
    quick one)."""
    needed = check_memory(target, who)
    if target**3 <= SOLVE_WARN_STATES:
        return None
    return (
        f"target {target} means {target**3:.1e} states: the solve takes minutes and "
        f"about {gib(needed)} of memory (Ctrl-C stops it)"
    )


def _check_solvable(game: PigOutGame) -> None:
    p = game.params
    if p["players"] != 2:
        raise InputError("pig_out solve: two players only")
    if p["cards"] and p["deck"] == "physical":
        raise InputError(
            "pig_out solve: with cards, only the infinite deck (--param "
            "deck=infinite): a physical deck's cards are part of the state"
        )


def _iterate(
    game: PigOutGame,
    tolerance: float,
    max_iterations: int,
    hold_at: int | None,
    on_sweep: Callable[[int, float], None] | None = None,
):
    """Sweeps of value iteration. Within a turn a value depends only on larger turn
    totals, so each sweep runs k downward and uses the values it has just made
    (Gauss-Seidel); what is left to converge is the turn-start values."""
    import numpy as np

    _check_solvable(game)
    goal = game.params["target"]
    # Each successful roll (and card) adds one of these gains with these probabilities.
    gains: Counter = Counter()
    card_values = [int(r) for r in RANKS if r not in FACE_CARDS] if game.params["cards"] else [1]
    card_p = 1 / len(RANKS) if game.params["cards"] else 1.0
    for _, prob, pigs, spots in game.rolls.values():
        if not pigs:
            for value in card_values:
                gains[spots * value] += prob * card_p
    pig_probability = 1.0 - sum(gains.values())  # a pig face, or a face card
    gain_list = sorted(gains.items())
    # win[k, i, j]: the player to move holds i, the opponent j, the turn has k spots.
    # Turn totals that reach the goal (i + k >= goal) are wins: the player holds.
    win = np.zeros((goal, goal, goal))
    i_plus_k = np.arange(goal)[None, :, None] + np.arange(goal)[:, None, None]
    win[np.broadcast_to(i_plus_k >= goal, win.shape)] = 1.0
    chooses_roll = np.zeros(win.shape, dtype=bool)
    ones = np.ones((goal, goal))
    for iteration in range(1, max_iterations + 1):
        start = win[0].copy()  # turn-start values V[i, j]
        pigged = pig_probability * (1.0 - start.T)  # lose the turn: the opponent's V[j, i]
        # holding k: the opponent to move at V[j, i + k]; past the goal, a win
        after_hold = np.vstack([start.T, np.zeros((goal, goal))])
        for k in range(goal - 1, -1, -1):
            roll = pigged.copy()
            for gain, prob in gain_list:
                roll += prob * (win[k + gain] if k + gain < goal else ones)
            hold = 1.0 - after_hold[k : k + goal]
            if hold_at is None:
                take_roll = roll > hold
            else:
                below_goal = (np.arange(goal) + k < goal)[:, None]
                take_roll = np.broadcast_to((k < hold_at) & below_goal, roll.shape)
            if k == 0:
                take_roll = np.ones_like(take_roll)  # the first roll of a turn is compulsory
            chooses_roll[k] = take_roll
            win[k] = np.where(take_roll, roll, hold)
        delta = float(np.max(np.abs(win[0] - start)))
        if on_sweep:
            on_sweep(iteration, delta)
        if delta < tolerance:
            return np.moveaxis(win, 0, 2), np.moveaxis(chooses_roll, 0, 2), iteration
    raise RuntimeError(f"value iteration did not converge in {max_iterations} iterations")


def first_player_win_probability(win) -> float:
    return float(win[0, 0, 0])


def hold_at_win_probabilities(game: PigOutGame, holds: list[int]) -> dict[int, float]:
    """For each ``hold_at`` of ``holds``, the first player's win probability when both
    players hold at it; one table in memory at a time."""
    found = {}
    for n in holds:
        held, _, _ = evaluate_hold_at(game, n)
        found[n] = first_player_win_probability(held)
        del held
    return found


@lru_cache(maxsize=4)
def _solved(params_key: tuple):
    _, roll, _ = solve(PigOutGame(**dict(params_key)))
    return roll


def optimal_policy(game: PigOutGame):
    """``roll[i, j, k]``: whether optimal play rolls holding ``i`` against ``j`` with
    ``k`` spots this turn; solved once per parameters (refused if unsolvable, or if
    the solve would not fit in the memory available)."""
    _check_solvable(game)
    check_memory(game.params["target"], "the optimal bot")
    return _solved(tuple(sorted(game.params.items())))
