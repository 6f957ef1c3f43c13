"""Bots: each chooses an action from what ``state.observation(player)`` shows and
the legal actions, never from the state itself. All are seeded.

    bot = make_bot("greedy", game, seed=1)
    action = bot.choose(state.observation(seat), state.legal_actions())
"""

from __future__ import annotations

import numpy as np

from models.errors import InputError
from referee.api import Game

#: A knock-out's chance the greedy bot assumes when it weighs a shot.
GREEDY_ASSUMED_HIT_PROBABILITY = 0.5


class Bot:
    """Base: a seeded random generator and the game (its public parameters)."""

    def __init__(self, game: Game, seed: int | None = 0):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def choose(self, observation: dict, legal: list[str]) -> str:
        raise NotImplementedError


class RandomBot(Bot):
    """Uniformly random among the legal actions."""

    def choose(self, observation, legal):
        return legal[int(self.rng.integers(len(legal)))]


class GoPiggyGoGreedyBot(Bot):
    """A sensible Go Piggy Go! heuristic, one move deep.

    A move is worth the rows it gains (entering the trough counts as the furthest
    row, plus a bonus); stacking on a rival's piggy is worth a little (the rival
    then carries it), carrying a rival's piggy costs a little. A shot is worth the
    progress it would cost its target's owner, times the chance of a hit, more if
    that owner is leading; the bot fires when that beats its best move.
    """

    TROUGH_BONUS = 3.0
    STACK_ON_RIVAL = 1.0
    CARRY_RIVAL = -1.0
    LEADER_FACTOR = 1.5

    def __init__(self, game: Game, seed: int | None = 0):
        super().__init__(game, seed)
        board = game.board
        self.rows = board.rows
        self.pit_rows = {"pit": 0.0, "pit-right": float(min(board.pit_right_rows)),
                         "pit-left": float(min(board.pit_left_rows))}

    def progress(self, where: str) -> float:
        """How far along a place is: rows from the start pit (trough: past the end)."""
        if where == "trough":
            return self.rows + 1.0
        if where in self.pit_rows:
            return self.pit_rows[where]
        return int(where[1:where.index("c")]) + 1.0

    def _knocked_to(self, piggy: str, observation: dict) -> str:
        passed = observation["passed_checkpoints"][piggy]
        return "pit-left" if passed >= 2 else "pit-right" if passed else "pit"

    def score(self, action: str, observation: dict) -> float:
        me = observation["player"]
        pieces, stacks = observation["pieces"], observation["stacks"]
        seat_of = self.game.seat_of
        if action == "pass":
            return -0.5
        if action.startswith("fire "):
            target = action[5:]
            owner = seat_of(target)
            loss = (self.progress(pieces[target])
                    - self.progress(self._knocked_to(target, observation)))
            value = GREEDY_ASSUMED_HIT_PROBABILITY * loss
            if owner == me:
                return -value
            totals = {}
            for piggy, where in pieces.items():
                totals[seat_of(piggy)] = totals.get(seat_of(piggy), 0.0) + self.progress(where)
            leader = max((s for s in totals if s != me), key=lambda s: totals[s])
            return value * (self.LEADER_FACTOR if owner == leader else 1.0)
        _, piggy, destination = action.split(" ")
        origin = pieces[piggy]
        unit = [piggy]
        if origin in stacks:
            stack = stacks[origin]
            unit = stack[stack.index(piggy):]
        gain = self.progress(destination) - self.progress(origin)
        value = gain + (self.TROUGH_BONUS if destination == "trough" else 0.0)
        for carried in unit[1:]:
            value += gain if seat_of(carried) == me else self.CARRY_RIVAL
        below = stacks.get(destination)
        if below and seat_of(below[0]) != me:
            value += self.STACK_ON_RIVAL
        return value

    def choose(self, observation, legal):
        scores = np.array([self.score(a, observation) for a in legal])
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return legal[int(best[self.rng.integers(len(best))])]


class HoldAtBot(Bot):
    """Pig-Out: keep rolling until the turn's spots reach N (or would win), then hold."""

    def __init__(self, game: Game, seed: int | None = 0, hold_at: int = 20):
        super().__init__(game, seed)
        self.hold_at = hold_at

    def choose(self, observation, legal):
        me = observation["player"]
        total = observation["turn_total"]
        reached = observation["scores"][me] + total >= self.game.params["target"]
        return "hold" if total >= self.hold_at or reached else "roll"


class PigOptimalBot(Bot):
    """Pig-Out with two players, no cards or an infinite deck: optimal play, from
    the value-iteration solution (Neller & Presser 2004)."""

    def __init__(self, game: Game, seed: int | None = 0):
        from referee.pig_out import _check_solvable

        super().__init__(game, seed)
        _check_solvable(game)

    def choose(self, observation, legal):
        from referee.pig_out import optimal_roll

        me = observation["player"]
        scores = observation["scores"]
        roll = optimal_roll(self.game, scores[me], scores[1 - me], observation["turn_total"])
        return "roll" if roll else "hold"


#: Bots by game and name; "random" works for every game. ``hold-at-N`` takes any N.
BOTS: dict[str, dict[str, type[Bot]]] = {
    "go_piggy_go": {"random": RandomBot, "greedy": GoPiggyGoGreedyBot},
    "pig_out": {"random": RandomBot, "hold-at-20": HoldAtBot, "optimal": PigOptimalBot},
}


def bot_names(game_name: str) -> list[str]:
    return sorted(BOTS.get(game_name, {"random": RandomBot}))


def make_bot(name: str, game: Game, seed: int | None = 0) -> Bot:
    """A bot by name for a game; an unknown name is refused with the known ones."""
    known = BOTS.get(game.name, {"random": RandomBot})
    if game.name == "pig_out" and name.startswith("hold-at-"):
        number = name[len("hold-at-"):]
        if not number.isdigit() or int(number) < 1:
            raise InputError(f"bot '{name}': hold-at-N takes a whole number N >= 1")
        return HoldAtBot(game, seed, int(number))
    if name not in known:
        raise InputError(f"unknown bot '{name}' for {game.name}: bots are "
                         f"{', '.join(sorted(known))} (or 'human' at the table)")
    return known[name](game, seed)
