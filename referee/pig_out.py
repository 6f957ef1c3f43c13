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
from functools import lru_cache

from models.errors import InputError
from referee.api import CHANCE, TERMINAL, Game, State, winner_returns
from referee.validate import (
    FLAG,
    OBJECT,
    TURN_CAP,
    Fields,
    Spec,
    is_whole,
    list_items,
    list_of,
    listed,
    one_of,
    or_none,
    quoted,
    whole,
    whole_text,
)

# --- parameters -------------------------------------------------------------------------
PRESETS = {
    "pig-out-2": {
        "dice": 2,
        "pig_faces": "6",
        "cards": True,
        "target": 400,
        "first_player": "roll",
    },
    "pig": {"dice": 1, "pig_faces": "1", "cards": False, "target": 100, "first_player": 0},
}
DEFAULTS = {
    "preset": "pig-out-2",  # a whole set of the parameters below
    "players": 2,  # two or more
    "target": None,  # ruling 4: the score that wins when a player holds (400)
    "deck": "physical",  # ruling 1: physical (52 cards, reshuffled when empty) | infinite
    "dice": None,  # dice rolled each time (2)
    "pig_faces": None,  # faces that pig out, comma-separated ("6"; classic Pig "1")
    "cards": None,  # draw a card after each roll (true)
    "first_player": None,  # ruling 3: "roll" (everyone rolls two dice, highest starts,
    # tied leaders roll again) or a seat number
    "max_turns": 100_000,  # ours: a game this long ends undecided
}

#: Card ranks; A, K, Q, J pig out, 2-10 multiply the roll (ruling 1).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FACE_CARDS = frozenset("AJQK")
SUITS = 4
FACES = 6

#: The largest score or turn total a saved state may hold (far beyond any target).
MAX_POINTS = 10**9


def _is_pig_face(item: str) -> bool:
    return 1 <= (whole_text(item) or 0) <= FACES


PRESET_VALUE = "the preset's"
SPECS = {
    "preset": one_of(*PRESETS),
    "players": whole(2, 12),
    "target": or_none(whole(1, 100_000), PRESET_VALUE),
    "deck": one_of("physical", "infinite"),
    "dice": or_none(whole(1, 4), PRESET_VALUE),
    "pig_faces": or_none(listed(_is_pig_face, "6 or 1,6 (faces 1-6)"), PRESET_VALUE),
    "cards": or_none(FLAG, PRESET_VALUE),
    "first_player": or_none(
        Spec("roll or a seat number 0-11", lambda v: v == "roll" or (is_whole(v) and 0 <= v < 12)),
        PRESET_VALUE,
    ),
    "max_turns": TURN_CAP,
}

_ROLLOFF, _ROLL, _CARD, _DECIDE, _OVER = "rolloff", "roll", "card", "decide", "over"


@lru_cache(maxsize=16)
def dice_outcomes(dice: int) -> tuple[tuple[str, tuple[int, ...], float], ...]:
    """(string, sorted faces, probability) of every roll of ``dice`` dice."""
    counts = Counter(tuple(sorted(r)) for r in itertools.product(range(1, FACES + 1), repeat=dice))
    total = FACES**dice
    return tuple(
        (("dice " + " ".join(map(str, faces))), faces, n / total)
        for faces, n in sorted(counts.items())
    )


class PigOutGame(Game):
    """Pig-Out 2 and its family."""

    name = "pig_out"
    defaults = DEFAULTS
    specs = SPECS

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        for key, value in PRESETS[p["preset"]].items():
            if p[key] is None:
                p[key] = value
        players = p["players"]
        self.pig_faces = frozenset(int(f) for f in list_items(p["pig_faces"]))
        if len(self.pig_faces) == FACES:
            raise InputError(
                "pig_out: parameter 'pig_faces' must leave a face that scores, "
                f"got {quoted(p['pig_faces'])}"
            )
        first = p["first_player"]
        if first != "roll" and first >= players:
            raise InputError(
                f"pig_out: parameter 'first_player' must be roll or a seat "
                f"0-{players - 1}, got {first}"
            )
        # the least a successful roll (and its card) adds to a turn
        self.least_gain = (
            p["dice"] * min(set(range(1, FACES + 1)) - self.pig_faces) * (2 if p["cards"] else 1)
        )
        self.rolls = {
            s: (faces, prob, any(f in self.pig_faces for f in faces), sum(faces))
            for s, faces, prob in dice_outcomes(p["dice"])
        }
        self.roll_outcomes = [(s, prob) for s, _, prob in dice_outcomes(p["dice"])]
        #: The spots a roll without a pig face can make (what waits for a card).
        self.scoring_spots = frozenset(
            spots for _, _, pigs, spots in self.rolls.values() if not pigs
        )
        self.rolloff_outcomes = [(s, prob) for s, _, prob in dice_outcomes(2)]
        self.infinite_deck = [(f"card {r}", 1 / len(RANKS)) for r in RANKS]
        self.seats = [f"seat {i}" for i in range(players)]

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def new_initial_state(self) -> PigOutState:
        return PigOutState(self)


class PigOutState(State):
    game: PigOutGame  # the concrete game, with its parameters read

    def __init__(self, game: PigOutGame):
        super().__init__(game)
        p = game.params
        self.scores = [0] * game.num_players
        self.turn_total = 0
        self.spots = 0  # the last roll's spots, waiting for its card
        self.deck = dict.fromkeys(RANKS, SUITS)  # cards left to draw (physical deck)
        self.turn = 0
        self.winner: int | None = None
        self.capped = False
        if p["first_player"] == "roll":
            self.phase = _ROLLOFF
            self.rollers = list(range(game.num_players))  # still rolling for the start
            self.rolloff: list[int] = []  # their totals so far this round
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
                self.deck.get(rank, 0) > 0
                if self.game.params["deck"] == "physical"
                else rank in self.deck
            )
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
        return {
            "scores": list(self.scores),
            "turn_total": self.turn_total,
            "spots": self.spots,
            "deck": dict(self.deck),
            "phase": self.phase,
            "player": self.player,
            "rollers": list(self.rollers),
            "rolloff": list(self.rolloff),
            "turn": self.turn,
            "winner": self.winner,
            "capped": self.capped,
        }

    def _load(self, data: dict) -> None:
        game, field = self.game, Fields("pig_out", data)
        p, n = game.params, game.num_players
        target, cap = p["target"], p["max_turns"]
        self.scores = field("scores", list_of(whole(0, MAX_POINTS), n, n))
        self.turn_total = field("turn_total", whole(0, MAX_POINTS))
        self.spots = field("spots", whole(0, FACES * p["dice"]))
        self.phase = field("phase", one_of(_ROLLOFF, _ROLL, _CARD, _DECIDE, _OVER))
        self.player = field("player", whole(0, n - 1))
        self.turn = field("turn", whole(0, cap))
        self.winner = field("winner", or_none(whole(0, n - 1), "no winner yet"))
        self.capped = field("capped", FLAG)
        deck = field("deck", OBJECT)
        field.require(set(deck) == set(RANKS), f"'deck' must count each rank {', '.join(RANKS)}")
        self.deck = {r: field.item(f"deck.{r}", deck[r], whole(0, SUITS)) for r in RANKS}
        field.require(
            any(self.deck.values())
            and ((p["deck"] == "physical" and p["cards"]) or min(self.deck.values()) == SUITS),
            "the deck holds no card, or cards are drawn from an unused deck",
        )
        phase, over = self.phase, self.phase == _OVER
        self._load_rolloff(field)
        field.require(phase != _CARD or p["cards"], "phase card in a game without cards")
        field.require((self.spots > 0) == (phase == _CARD), f"spots {self.spots} in phase {phase}")
        field.require(
            self.spots == 0 or self.spots in game.scoring_spots,
            f"spots {self.spots}: no roll of {p['dice']} dice without a pig face "
            f"({p['pig_faces']}) makes them",
        )
        field.require(
            self.winner is None or self.winner == self.player,
            f"winner {self.winner} while seat {self.player} moved last: the game is "
            "won by the player who banks",
        )
        field.require(
            self.turn_total == 0
            or (self.turn_total >= game.least_gain and phase in (_ROLL, _CARD, _DECIDE)),
            f"a turn total of {self.turn_total} in phase {phase}",
        )
        field.require(phase != _DECIDE or self.turn_total > 0, "phase decide before any roll")
        field.require(
            over == (self.capped or self.winner is not None)
            and not (self.capped and self.winner is not None)
            and self.capped == (self.turn >= cap),
            f"phase {phase}, winner {quoted(self.winner)}, capped {self.capped} and "
            f"turn {self.turn} of {cap} do not go together",
        )
        reached = [s for s, score in enumerate(self.scores) if score >= target]
        field.require(
            reached == ([] if self.winner is None else [self.winner]),
            f"scores {self.scores} reach the target {target} but the winner is "
            f"{quoted(self.winner)}",
        )

    def _load_rolloff(self, field: Fields) -> None:
        """The roll for the first player (ruling 3): only before the first turn."""
        n = self.game.num_players
        self.rollers = field("rollers", list_of(whole(0, n - 1), 0, n))
        self.rolloff = field("rolloff", list_of(whole(2, 2 * FACES), 0, n))
        if self.phase != _ROLLOFF:
            field.require(
                self.rollers == self.rolloff == [],
                "a roll for the first player after play has begun",
            )
            return
        field.require(
            self.game.params["first_player"] == "roll"
            and self.turn == 0
            and not any(self.scores)
            and self.turn_total == 0,
            "a roll for the first player in a game under way (or without one)",
        )
        field.require(
            self.rollers == sorted(set(self.rollers))
            and len(self.rollers) >= 2
            and len(self.rolloff) < len(self.rollers)
            and self.player == self.rollers[len(self.rolloff)],
            f"rollers {self.rollers}, their rolls {self.rolloff} and player "
            f"{self.player} do not go together",
        )

    def describe(self) -> str:
        scores = ", ".join(f"seat {s}: {v}" for s, v in enumerate(self.scores))
        if self.phase == _OVER:
            end = (
                f"seat {self.winner} wins"
                if self.winner is not None
                else f"no winner after {self.turn} turns"
            )
            return f"Scores: {scores}. Game over: {end}."
        return (
            f"Scores: {scores} (target {self.game.params['target']}). Seat {self.player}'s "
            f"turn, {self.turn_total} spots so far this turn."
        )


__all__ = ["PigOutGame", "PigOutState", "dice_outcomes"]
