"""Our ``pig_out`` with ``preset=pig`` against OpenSpiel's own ``pig``: the same game?

Four checks (scripts/pig_crosscheck.py runs them and prints the figures):

1. the same chance distribution (the same numbers, strings and probabilities);
2. the same scores, turn totals, players to move, ends and returns when the same
   dice are fed to both, step by step (:func:`same_dice_games`);
3. the same win rates for fixed policies (:func:`win_rates`, simulated in both
   games and computed exactly by :func:`win_probability`);
4. our optimal policy against hold-at-20 inside OpenSpiel's game, against the rate
   our policy evaluation predicts.

The two games differ in two details that these policies never meet: OpenSpiel's
Pig lets a player stop before the first roll of a turn (ours makes that roll
compulsory, so a turn there starts with a "roll" move that is our chance node),
and lets nobody roll once a hold would win (ours allows it). Its ``horizon`` also
counts each turn's first roll as a move.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from itertools import accumulate

import numpy as np
import pyspiel

import referee
import referee.openspiel  # registers python_pig_out
from models.seeds import split_seed
from referee.bots import HoldAtBot, PigOptimalBot
from referee.match import play
from referee.pig_solver import optimal_policy

OS_ROLL, OS_STOP = 0, 1
_OS_STATE = re.compile(r"Scores: ([\d ]+), Turn total: (\d+)")


def openspiel_pig(target: int = 100) -> pyspiel.Game:
    return pyspiel.load_game("pig", {"players": 2, "winscore": target})


def our_pig(target: int = 100):
    return referee.load_game("pig_out", preset="pig", target=target)


def os_scores(state) -> tuple[list[int], int]:
    """Scores and turn total of an OpenSpiel Pig state (read from its string)."""
    found = _OS_STATE.match(str(state))
    if found is None:
        raise ValueError(f"not an OpenSpiel Pig state: {str(state)!r}")
    scores, total = found.groups()
    return [int(s) for s in scores.split()], int(total)


# --- policies as tables: roll[mine, theirs, turn total] -------------------------------------
def hold_at_table(target: int, hold_at: int) -> np.ndarray:
    i, k = np.arange(target)[:, None, None], np.arange(target)[None, None, :]
    return np.broadcast_to((k < hold_at) & (i + k < target), (target,) * 3).copy()


def optimal_table(game) -> np.ndarray:
    return np.asarray(optimal_policy(game))


def choose(table: np.ndarray, mine: int, theirs: int, total: int, target: int) -> int:
    """OpenSpiel's action for a policy table: stop once a hold wins or the table holds."""
    if total == 0:
        return OS_ROLL  # the first roll of a turn (compulsory in ours)
    if mine + total >= target or not table[mine, theirs, total]:
        return OS_STOP
    return OS_ROLL


# --- exact: two fixed policies ----------------------------------------------------------------
def win_probability(
    game, roll_a: np.ndarray, roll_b: np.ndarray, tolerance: float = 1e-10, max_sweeps: int = 10_000
) -> tuple[float, float]:
    """P(policy A wins) against policy B, moving first and moving second.

    Policy evaluation by value iteration, as referee.pig_out's solver does it
    (Gauss-Seidel over the turn total, downward). ``roll_x[mine, theirs, k]``:
    whether that policy rolls; a player holds once a hold would win.
    """
    goal = game.params["target"]
    gains: dict[int, float] = {}
    for _, probability, pigs, spots in game.rolls.values():
        if not pigs:
            gains[spots] = gains.get(spots, 0.0) + probability
    pig = 1.0 - sum(gains.values())
    shape = (goal, goal, goal)
    # x[k, i, j]: A to move holding i, B holding j, k this turn; y[k, j, i]: B to move.
    reach = np.broadcast_to(  # the mover's score plus the turn total reaches the goal
        np.arange(goal)[:, None, None] + np.arange(goal)[None, :, None] >= goal, shape
    )
    x, y = np.where(reach, 1.0, 0.0), np.zeros(shape)
    ones, zeros = np.ones((goal, goal)), np.zeros((goal, goal))
    for _ in range(max_sweeps):
        x_start, y_start = x[0].copy(), y[0].copy()
        a_holds = np.vstack([y_start.T, np.ones((goal, goal))])  # B to move at [j, i + k]
        for k in range(goal - 1, -1, -1):
            roll = pig * y_start.T + sum(
                p * (x[k + g] if k + g < goal else ones) for g, p in gains.items()
            )
            rolls = roll_a[:, :, k] | (k == 0)
            x[k] = np.where(reach[k], 1.0, np.where(rolls, roll, a_holds[k : k + goal]))
        b_holds = np.vstack([x[0].T, np.zeros((goal, goal))])  # A to move at [i, j + k]
        for k in range(goal - 1, -1, -1):
            roll = pig * x[0].T + sum(
                p * (y[k + g] if k + g < goal else zeros) for g, p in gains.items()
            )
            rolls = roll_b[:, :, k] | (k == 0)
            y[k] = np.where(reach[k], 0.0, np.where(rolls, roll, b_holds[k : k + goal]))
        change = max(np.max(np.abs(x[0] - x_start)), np.max(np.abs(y[0] - y_start)))
        if change < tolerance:
            return float(x[0, 0, 0]), float(y[0, 0, 0])
    raise RuntimeError(f"policy evaluation did not converge in {max_sweeps} sweeps")


# --- simulation -----------------------------------------------------------------------------
def _sample(state, u: float) -> int:
    outcomes = state.chance_outcomes()
    edges = list(accumulate(p for _, p in outcomes))
    return outcomes[min(bisect_right(edges, u * edges[-1]), len(outcomes) - 1)][0]


def play_openspiel(tables: list[np.ndarray], games: int, seed: int, target: int = 100):
    """Games of OpenSpiel's Pig between two policy tables (seat 0 = tables[0]).
    Returns (wins of seat 0, wins of seat 1, undecided)."""
    game, rng = openspiel_pig(target), np.random.default_rng(seed)
    wins = [0, 0, 0]
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(_sample(state, rng.random()))
                continue
            seat = state.current_player()
            scores, total = os_scores(state)
            state.apply_action(choose(tables[seat], scores[seat], scores[1 - seat], total, target))
        returns = state.returns()
        wins[0 if returns[0] > 0 else 1 if returns[1] > 0 else 2] += 1
    return tuple(wins)


def play_ours(bots: list[str], games: int, seed: int, target: int = 100):
    """The same with our referee and bots (``hold-at-N``, ``optimal``)."""
    game = our_pig(target)
    wins = [0, 0, 0]
    for g in range(games):
        game_seed = split_seed(seed, g)
        seats = [_bot(name, game, game_seed + 1 + i) for i, name in enumerate(bots)]
        returns = play(game, seats, seed=game_seed).returns()
        wins[0 if returns[0] > 0 else 1 if returns[1] > 0 else 2] += 1
    return tuple(wins)


def _bot(name: str, game, seed: int):
    if name == "optimal":
        return PigOptimalBot(game, seed)
    return HoldAtBot(game, seed, int(name.removeprefix("hold-at-")))


def rate(wins: int, games: int) -> tuple[float, float]:
    """A proportion and its standard error."""
    p = wins / games
    return p, math.sqrt(max(p * (1 - p), 1e-12) / games)


# --- the same dice, step by step ---------------------------------------------------------------
def same_dice_games(
    games: int, seed: int, roll_probability: float = 0.75, target: int = 100
) -> int:
    """Drive OpenSpiel's Pig and our python_pig_out(preset=pig) with the same dice and
    the same decisions (random, from ``seed``), comparing after every step.

    Returns the number of steps compared; raises AssertionError at the first
    difference, naming it.
    """
    os_game = openspiel_pig(target)
    our_game = pyspiel.load_game(f"python_pig_out(preset=pig,target={target})")
    rng = np.random.default_rng(seed)
    steps = 0
    for number in range(games):
        theirs, ours = os_game.new_initial_state(), our_game.new_initial_state()
        while True:
            turn_start = not theirs.is_chance_node() and os_scores(theirs)[1] == 0
            if turn_start and not theirs.is_terminal():
                theirs.apply_action(OS_ROLL)  # the turn's first roll, compulsory in ours
            _compare(theirs, ours, f"game {number}, step {steps}")
            steps += 1
            if ours.is_terminal():
                break
            if ours.is_chance_node():
                die = int(rng.integers(6))
                theirs.apply_action(die)
                ours.apply_action(die)
                continue
            seat = ours.current_player()
            scores, total = os_scores(theirs)
            wins_now = scores[seat] + total >= target
            action = OS_STOP if wins_now or rng.random() >= roll_probability else OS_ROLL
            theirs.apply_action(action)
            ours.apply_action(action)
    return steps


def _compare(theirs, ours, where: str) -> None:
    mine = ours.referee_state
    scores, total = os_scores(theirs)
    checks = {
        "scores": (scores, list(mine.scores)),
        "turn total": (total, mine.turn_total),
        "player to move": (theirs.current_player(), ours.current_player()),
        "game over": (theirs.is_terminal(), ours.is_terminal()),
        "returns": (theirs.returns(), ours.returns()),
    }
    if ours.is_chance_node():
        checks["chance outcomes"] = (theirs.chance_outcomes(), ours.chance_outcomes())
        checks["outcome names"] = (
            [
                theirs.action_to_string(-1, a).replace("Roll", "dice")
                for a, _ in theirs.chance_outcomes()
            ],
            [ours.action_to_string(-1, a) for a, _ in ours.chance_outcomes()],
        )
    elif not ours.is_terminal():  # OpenSpiel's Pig only stops once a hold wins
        seat = ours.current_player()
        wins_now = scores[seat] + total >= ours.get_game().referee_game.params["target"]
        checks["legal moves"] = (
            theirs.legal_actions(),
            [OS_STOP] if wins_now else ours.legal_actions(),
        )
    for name, (a, b) in checks.items():
        if a != b:
            raise AssertionError(f"{where}: {name} differ: OpenSpiel {a}, ours {b}")


# --- all of it ---------------------------------------------------------------------------------
#: Agreement: within this many standard errors.
Z_LIMIT = 3.0


def report(games: int, dice_games: int = 200, seed: int = 0) -> dict:
    """The whole cross-check: ``games`` games for each seating of each pairing.

    Each row compares simulated win rates of seat order ``first`` with the exact
    figure (and OpenSpiel's with ours); ``z`` is the difference in standard errors.
    """
    game = our_pig()
    outcomes_theirs = openspiel_pig().new_initial_state()
    outcomes_theirs.apply_action(OS_ROLL)
    ours = pyspiel.load_game("python_pig_out(preset=pig)").new_initial_state()
    chance_outcomes = {
        "openspiel": outcomes_theirs.chance_outcomes(),
        "ours": ours.chance_outcomes(),
    }
    same_dice: dict[str, int | str | None] = {"games": dice_games, "difference": None}
    rows: list[dict] = []
    try:
        same_dice["steps_compared"] = same_dice_games(dice_games, seed)
    except AssertionError as difference:
        same_dice["difference"] = str(difference)
    chance_outcomes["same"] = chance_outcomes["openspiel"] == chance_outcomes["ours"]
    tables = {
        "hold-at-20": hold_at_table(100, 20),
        "hold-at-25": hold_at_table(100, 25),
        "optimal": optimal_table(game),
    }
    for a, b, simulate_ours in (
        ("hold-at-20", "hold-at-25", True),
        ("optimal", "hold-at-20", False),
    ):
        exact_first, exact_second = win_probability(game, tables[a], tables[b])
        for order, exact in (((a, b), exact_first), ((b, a), exact_second)):
            row_seed = seed * 7919 + len(rows)
            wins = play_openspiel([tables[order[0]], tables[order[1]]], games, row_seed)
            p, se = rate(wins[0 if order[0] == a else 1], games)
            row = {
                "policy": a,
                "against": b,
                "moves_first": order[0] == a,
                "exact": round(exact, 5),
                "openspiel": round(p, 5),
                "openspiel_se": round(se, 5),
                "openspiel_z": round((p - exact) / se, 2),
                "undecided": wins[2],
            }
            if simulate_ours:
                mine = play_ours(list(order), games, row_seed)
                q, se_q = rate(mine[0 if order[0] == a else 1], games)
                row.update(
                    {
                        "ours": round(q, 5),
                        "ours_se": round(se_q, 5),
                        "ours_z": round((q - exact) / se_q, 2),
                        "openspiel_vs_ours_z": round((p - q) / math.hypot(se, se_q), 2),
                    }
                )
            row["agrees"] = all(abs(v) < Z_LIMIT for k, v in row.items() if k.endswith("_z"))
            rows.append(row)
    return {
        "chance_outcomes": chance_outcomes,
        "same_dice": same_dice,
        "games_per_row": games,
        "rows": rows,
        "agrees": (
            chance_outcomes["same"]
            and same_dice["difference"] is None
            and all(row["agrees"] for row in rows)
        ),
    }
