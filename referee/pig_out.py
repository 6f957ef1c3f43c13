"""Pig-Out 2 (the rule sheet "Game Rules for Pig-Out 2") with our Pig-Out 2 rulings
1-5, and the family of dice games it belongs to: with one die, a 1 that pigs
out, no cards and a target of 100 it is classic Pig (``preset="pig"``), checked
against Neller & Presser's published figures. docs/rules/pig-out.md says it in
our words.

Actions (docs/rules/pig-out.md): chance ``dice 3 4`` (ascending), ``card 9``, ``card K``;
players ``roll``, ``hold``. The first roll of a turn is compulsory, so a turn
starts at a chance node.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from models.errors import InputError
from referee.api import CHANCE, TERMINAL, Game, State, winner_returns

# --- parameters -------------------------------------------------------------------------
PRESETS = {
    "pig-out-2": {"dice": 2, "pig_faces": "6", "cards": True, "target": 400,
                  "first_player": "roll"},
    "pig": {"dice": 1, "pig_faces": "1", "cards": False, "target": 100, "first_player": 0},
}
DEFAULTS = {
    "preset": "pig-out-2",       # a whole set of the parameters below
    "players": 2,                # two or more
    "target": None,              # ruling 4: the score that wins when a player holds (400)
    "deck": "physical",          # ruling 1: physical (52 cards, reshuffled when empty) | infinite
    "dice": None,                # dice rolled each time (2)
    "pig_faces": None,           # faces that pig out, comma-separated ("6"; classic Pig "1")
    "cards": None,               # draw a card after each roll (true)
    "first_player": None,        # ruling 3: "roll" (everyone rolls two dice, highest starts,
                                 # tied leaders roll again) or a seat number
    "max_turns": 100_000,        # ours: a game this long ends undecided
}

#: Card ranks; A, K, Q, J pig out, 2-10 multiply the roll (ruling 1).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FACE_CARDS = frozenset("AJQK")
SUITS = 4
FACES = 6

_ROLLOFF, _ROLL, _CARD, _DECIDE, _OVER = "rolloff", "roll", "card", "decide", "over"


@lru_cache(maxsize=16)
def dice_outcomes(dice: int) -> tuple[tuple[str, tuple[int, ...], float], ...]:
    """(string, sorted faces, probability) of every roll of ``dice`` dice."""
    counts = Counter(tuple(sorted(r)) for r in itertools.product(range(1, FACES + 1),
                                                                 repeat=dice))
    total = FACES ** dice
    return tuple((("dice " + " ".join(map(str, faces))), faces, n / total)
                 for faces, n in sorted(counts.items()))


class PigOutGame(Game):
    """Pig-Out 2 and its family."""

    name = "pig_out"
    defaults = DEFAULTS

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        if p["preset"] not in PRESETS:
            raise InputError(f"pig_out: unknown preset '{p['preset']}': allowed are "
                             f"{', '.join(PRESETS)}")
        for key, value in PRESETS[p["preset"]].items():
            if p[key] is None:
                p[key] = value
        players = p["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 12:
            raise InputError(f"pig_out: 'players' must be a whole number 2-12, got {players!r}")
        if not isinstance(p["target"], int) or not 1 <= p["target"] <= 100_000:
            raise InputError("pig_out: 'target' must be a whole number 1-100000")
        if p["deck"] not in ("physical", "infinite"):
            raise InputError("pig_out: 'deck' must be physical or infinite")
        if not isinstance(p["dice"], int) or not 1 <= p["dice"] <= 4:
            raise InputError("pig_out: 'dice' must be 1-4")
        try:
            self.pig_faces = frozenset(int(f) for f in str(p["pig_faces"]).split(",") if f)
        except ValueError:
            raise InputError("pig_out: 'pig_faces' must list die faces, e.g. 6 or 1") from None
        if not self.pig_faces <= set(range(1, FACES + 1)) or len(self.pig_faces) == FACES:
            raise InputError("pig_out: 'pig_faces' must be some (not all) of the faces 1-6")
        if not isinstance(p["cards"], bool):
            raise InputError("pig_out: 'cards' must be true or false")
        first = p["first_player"]
        if first != "roll" and not (isinstance(first, int) and 0 <= first < players):
            raise InputError(f"pig_out: 'first_player' must be roll or a seat 0-{players - 1}")
        self.rolls = {s: (faces, prob, any(f in self.pig_faces for f in faces), sum(faces))
                      for s, faces, prob in dice_outcomes(p["dice"])}
        self.roll_outcomes = [(s, prob) for s, _, prob in dice_outcomes(p["dice"])]
        self.rolloff_outcomes = [(s, prob) for s, _, prob in dice_outcomes(2)]
        self.infinite_deck = [(f"card {r}", 1 / len(RANKS)) for r in RANKS]
        self.seats = [f"seat {i}" for i in range(players)]

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def new_initial_state(self) -> PigOutState:
        return PigOutState(self)


class PigOutState(State):
    def __init__(self, game: PigOutGame):
        super().__init__(game)
        p = game.params
        self.scores = [0] * game.num_players
        self.turn_total = 0
        self.spots = 0               # the last roll's spots, waiting for its card
        self.deck = dict.fromkeys(RANKS, SUITS)  # cards left to draw (physical deck)
        self.turn = 0
        self.winner: int | None = None
        self.capped = False
        if p["first_player"] == "roll":
            self.phase = _ROLLOFF
            self.rollers = list(range(game.num_players))  # still rolling for the start
            self.rolloff: list[int] = []                  # their totals so far this round
            self.player = self.rollers[0]
        else:
            self.phase = _ROLL
            self.rollers, self.rolloff = [], []
            self.player = p["first_player"]

    def current_player(self) -> int:
        if self.phase == _DECIDE:
            return self.player
        return TERMINAL if self.phase == _OVER else CHANCE

    def returns(self) -> list[float]:
        return winner_returns(self.winner, self.game.num_players)

    def _legal_actions(self) -> list[str]:
        return ["hold", "roll"]

    def _chance_outcomes(self) -> list[tuple[str, float]]:
        if self.phase == _ROLL:
            return self.game.roll_outcomes
        if self.phase == _ROLLOFF:
            return self.game.rolloff_outcomes
        if self.game.params["deck"] == "infinite":
            return self.game.infinite_deck
        left = sum(self.deck.values())
        return [(f"card {r}", n / left) for r, n in self.deck.items() if n]

    def _is_legal_chance_outcome(self, action: str) -> bool:
        if self.phase == _ROLL:
            return action in self.game.rolls
        if self.phase == _CARD:
            rank = action[5:]
            return action.startswith("card ") and (
                self.deck.get(rank, 0) > 0 if self.game.params["deck"] == "physical"
                else rank in self.deck)
        return super()._is_legal_chance_outcome(action)

    def _apply(self, action: str) -> None:
        game = self.game
        if self.phase == _ROLLOFF:
            self._roll_off(sum(int(f) for f in action.split()[1:]))
        elif self.phase == _ROLL:
            _, _, pigs, spots = game.rolls[action]
            if pigs:  # a pig face: the turn's spots are lost, no card (ruling 2)
                self._end_turn(bank=False)
            elif game.params["cards"]:
                self.spots, self.phase = spots, _CARD
            else:
                self.turn_total += spots
                self._decide()
        elif self.phase == _CARD:
            rank = action.split()[1]
            if game.params["deck"] == "physical":
                self.deck[rank] -= 1
                if not any(self.deck.values()):  # the discards are shuffled back
                    self.deck = dict.fromkeys(RANKS, SUITS)
            if rank in FACE_CARDS:
                self._end_turn(bank=False)
            else:
                self.turn_total += self.spots * int(rank)
                self._decide()
        elif action == "roll":
            self.phase = _ROLL
        else:  # hold
            self._end_turn(bank=True)

    def _decide(self) -> None:
        self.spots = 0
        self.phase = _DECIDE

    def _roll_off(self, total: int) -> None:
        self.rolloff.append(total)
        if len(self.rolloff) < len(self.rollers):
            self.player = self.rollers[len(self.rolloff)]
            return
        best = max(self.rolloff)
        leaders = [s for s, t in zip(self.rollers, self.rolloff, strict=True) if t == best]
        if len(leaders) == 1:
            self.player, self.phase = leaders[0], _ROLL
            self.rollers, self.rolloff = [], []
        else:  # tied leaders roll again
            self.rollers, self.rolloff = leaders, []
            self.player = leaders[0]

    def _end_turn(self, bank: bool) -> None:
        if bank:
            self.scores[self.player] += self.turn_total
            if self.scores[self.player] >= self.game.params["target"]:
                self.winner, self.phase = self.player, _OVER
                self.turn_total = 0
                return
        self.turn_total = self.spots = 0
        self.turn += 1
        if self.turn >= self.game.params["max_turns"]:
            self.phase, self.capped = _OVER, True
            return
        self.player = (self.player + 1) % self.game.num_players
        self.phase = _ROLL

    def _to_dict(self) -> dict:
        return {"scores": list(self.scores), "turn_total": self.turn_total, "spots": self.spots,
                "deck": dict(self.deck), "phase": self.phase, "player": self.player,
                "rollers": list(self.rollers), "rolloff": list(self.rolloff),
                "turn": self.turn, "winner": self.winner, "capped": self.capped}

    def _load(self, data: dict) -> None:
        try:
            for key in ("scores", "turn_total", "spots", "deck", "phase", "player", "rollers",
                        "rolloff", "turn", "winner", "capped"):
                value = data[key]
                setattr(self, key, list(value) if isinstance(value, list) else
                        dict(value) if isinstance(value, dict) else value)
            self.history = list(data.get("history", []))
        except KeyError as exc:
            raise InputError(f"pig_out state: missing field {exc}") from None

    def describe(self) -> str:
        scores = ", ".join(f"seat {s}: {v}" for s, v in enumerate(self.scores))
        if self.phase == _OVER:
            end = (f"seat {self.winner} wins" if self.winner is not None
                   else f"no winner after {self.turn} turns")
            return f"Scores: {scores}. Game over: {end}."
        return (f"Scores: {scores} (target {self.game.params['target']}). Seat {self.player}'s "
                f"turn, {self.turn_total} spots so far this turn.")


# --- solving: optimal play for two players (Neller & Presser 2004) --------------------------
def solve(game: PigOutGame, tolerance: float = 1e-12, max_iterations: int = 10_000,
          on_sweep: Callable[[int, float], None] | None = None):
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


def evaluate_hold_at(game: PigOutGame, hold_at: int, tolerance: float = 1e-12,
                     max_iterations: int = 10_000):
    """The same tables for two players who both hold once a turn reaches ``hold_at``
    spots (or would reach the target)."""
    return _iterate(game, tolerance, max_iterations, hold_at=hold_at)


def _check_solvable(game: PigOutGame) -> None:
    p = game.params
    if p["players"] != 2:
        raise InputError("pig_out solve: two players only")
    if p["cards"] and p["deck"] == "physical":
        raise InputError("pig_out solve: with cards, only the infinite deck (--param "
                         "deck=infinite): a physical deck's cards are part of the state")


def _iterate(game: PigOutGame, tolerance: float, max_iterations: int, hold_at: int | None,
             on_sweep: Callable[[int, float], None] | None = None):
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
        start = win[0].copy()                       # turn-start values V[i, j]
        pigged = pig_probability * (1.0 - start.T)  # lose the turn: the opponent's V[j, i]
        # holding k: the opponent to move at V[j, i + k]; past the goal, a win
        after_hold = np.vstack([start.T, np.zeros((goal, goal))])
        for k in range(goal - 1, -1, -1):
            roll = pigged.copy()
            for gain, prob in gain_list:
                roll += prob * (win[k + gain] if k + gain < goal else ones)
            hold = 1.0 - after_hold[k:k + goal]
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


@lru_cache(maxsize=4)
def _solved(params_key: tuple):
    _, roll, _ = solve(PigOutGame(**dict(params_key)))
    return roll


def optimal_policy(game: PigOutGame):
    """``roll[i, j, k]``: whether optimal play rolls holding ``i`` against ``j`` with
    ``k`` spots this turn; solved once per parameters (refused if unsolvable)."""
    _check_solvable(game)
    return _solved(tuple(sorted(game.params.items())))
