"""The fixed integer encoding of our canonical action strings, one per game and parameters.

OpenSpiel numbers actions; our games name them (``"move gold-1 r3c2"``). Each game
gets two tables, built from its parameters alone before any state exists, so the
same string has the same number in every state and every run:

- player actions, ``0 .. num_distinct_actions - 1``;
- chance outcomes, ``0 .. max_chance_outcomes - 1``.

Each table lists every string that can ever be legal in that game, in the order
written below (docs/ecosystem.md has them as a table). ``action_to_string`` is a
lookup in the table, ``string_to_action`` its inverse.
"""

from __future__ import annotations

from collections.abc import Iterable

from models.errors import InputError
from referee.api import Game
from referee.by_golly_terms import ANIMALS, RUN_CARDS
from referee.pig_out import RANKS, dice_outcomes
from referee.woolfy import HOUSES, PIGLETS


class ActionCodec:
    """Two string tables (player actions, chance outcomes) and their inverses."""

    def __init__(self, game_name: str, actions: Iterable[str], outcomes: Iterable[str]):
        self.game_name = game_name
        self.actions = tuple(actions)
        self.outcomes = tuple(outcomes)
        self._action_ids = {text: i for i, text in enumerate(self.actions)}
        self._outcome_ids = {text: i for i, text in enumerate(self.outcomes)}
        if len(self._action_ids) != len(self.actions) or len(self._outcome_ids) != len(
            self.outcomes
        ):
            raise AssertionError(f"{game_name}: an action string is listed twice")

    def encode(self, text: str, chance: bool) -> int:
        table = self._outcome_ids if chance else self._action_ids
        try:
            return table[text]
        except KeyError:
            kind = "chance outcome" if chance else "action"
            raise InputError(
                f"{self.game_name}: '{text}' is not a {kind} this game can "
                "ever have (see docs/ecosystem.md, the encoding)"
            ) from None

    def decode(self, number: int, chance: bool) -> str:
        table = self.outcomes if chance else self.actions
        if not 0 <= number < len(table):
            kind = "chance outcome" if chance else "action"
            raise InputError(
                f"{self.game_name}: {kind} number {number} is out of range 0-{len(table) - 1}"
            )
        return table[number]


def codec_for(game: Game) -> ActionCodec:
    """The encoding of one of our games (with its parameters)."""
    return _BUILDERS[game.name](game)


def _go_piggy_go(game) -> ActionCodec:
    """Player: ``pass``; then for each piggy in seat order (green-1, green-2, ...) a
    move to every board space in row-major order and to the trough; then ``fire``
    at each piggy. Chance: the die faces in the order of ``die_faces``; then
    ``knock ...`` for every set of piggies, numbered by its bit mask over the
    piggies in seat order (mask 0 is ``knock none``), so that any shot a resolver
    can report, however many it knocks out, has a number."""
    piggies = [p for seat in range(game.num_players) for p in game.piggies_of(seat)]
    spaces = sorted(game.geometry.names.items())
    actions = ["pass"]
    for piggy in piggies:
        actions += [f"move {piggy} {name}" for _, name in spaces]
        actions.append(f"move {piggy} trough")
    actions += [f"fire {piggy}" for piggy in piggies]
    outcomes = [f"die {face}" for face in game.faces]
    for mask in range(2 ** len(piggies)):
        knocked = sorted(p for bit, p in enumerate(piggies) if mask >> bit & 1)
        outcomes.append("knock " + (",".join(knocked) if knocked else "none"))
    return ActionCodec(game.name, actions, outcomes)


def _pig_out(game) -> ActionCodec:
    """Player: ``roll`` 0, ``hold`` 1 (OpenSpiel's Pig: roll 0, stop 1). Chance: the
    rolls of the game's dice in ascending order (one die: ``dice 1`` .. ``dice 6``
    are 0-5, OpenSpiel's Pig's numbers); the roll-off's two-dice rolls not already
    listed; the cards A, 2, ..., 10, J, Q, K when the game has cards."""
    p = game.params
    outcomes = [text for text, _, _ in dice_outcomes(p["dice"])]
    if p["first_player"] == "roll":
        outcomes += [t for t, _, _ in dice_outcomes(2) if t not in outcomes]
    if p["cards"]:
        outcomes += [f"card {rank}" for rank in RANKS]
    return ActionCodec(game.name, ["roll", "hold"], outcomes)


def _woolfy(game) -> ActionCodec:
    """Player: ``pass``; ``roll`` and ``rescue`` each piglet (red, yellow, blue); then
    per piglet its moves to squares 0 .. track_length-1 and to the houses (straw,
    stick, brick), ``house`` it into each house, ``stay``. Chance: the die's
    distinct faces in the order of ``die_faces``."""
    actions = ["pass"]
    actions += [f"roll {p}" for p in PIGLETS] + [f"rescue {p}" for p in PIGLETS]
    for piglet in PIGLETS:
        actions += [f"move {piglet} {square}" for square in range(game.length)]
        actions += [f"move {piglet} {house}" for house in HOUSES]
        actions += [f"house {piglet} {house}" for house in HOUSES]
        actions.append(f"stay {piglet}")
    return ActionCodec(game.name, actions, [text for text, _ in game.die])


def _by_golly(game) -> ActionCodec:
    """Player: ``done``; ``play`` each animal (alphabetical); ``turn`` each run
    position 0-18; ``draw`` from each seat; ``swap p q`` for every pair p < q,
    ordered by p then q; the lucky break's ``discard`` and then ``keep`` each animal
    (alphabetical; added last, so the numbers before them never moved). Chance:
    ``run`` each run card (alphabetical), ``deal`` each animal, ``start`` each seat."""
    positions = range(sum(RUN_CARDS.values()))
    seats = range(game.num_players)
    actions = ["done"]
    actions += [f"play {animal}" for animal in ANIMALS]
    actions += [f"turn {p}" for p in positions]
    actions += [f"draw {s}" for s in seats]
    actions += [f"swap {p} {q}" for p in positions for q in positions if p < q]
    actions += [f"{choice} {animal}" for choice in ("discard", "keep") for animal in ANIMALS]
    outcomes = [f"run {card}" for card in sorted(RUN_CARDS)]
    outcomes += [f"deal {animal}" for animal in ANIMALS]
    outcomes += [f"start {s}" for s in seats]
    return ActionCodec(game.name, actions, outcomes)


_BUILDERS = {
    "go_piggy_go": _go_piggy_go,
    "pig_out": _pig_out,
    "woolfy": _woolfy,
    "by_golly": _by_golly,
}
