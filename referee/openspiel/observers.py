"""Observation and information-state strings and tensors, OpenSpiel's ``PyObserver`` shape.

- **Observation** (``perfect_recall=False``): the string is our
  ``state.observation(player)`` as JSON (sorted keys); the tensor is one flat
  float32 array whose named pieces are listed per game below (``observer.dict``).
- **Information state** (``perfect_recall=True``): a string only. For the three
  perfect-information games it is the history of canonical strings; for By Golly!
  the player's own record: every action as everyone saw it (the run and the
  deal as ``run ?`` and ``deal ?``), every public event, and their hand whenever it
  changed. No information-state tensor: a perfect-recall record of games thousands
  of moves long has no sensible fixed size.

By Golly!'s observation holds only what that player may see: their hand (left
out when ``private_info`` is NONE), everyone's card counts, the run cards face up
now and, from the public log, the last card seen at each face-down position
(swaps followed). Hands, stacks and face-down cards never enter it.
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

from referee.by_golly import remembered_run
from referee.by_golly_terms import ANIMALS, RUN_CARDS
from referee.by_golly_terms import PHASES as BY_GOLLY_PHASES
from referee.go_piggy_go import PITS, TROUGH
from referee.pig_out import RANKS, SUITS
from referee.woolfy import HOUSES, PIGLETS, POT

_GPG_PHASES = ("roll", "move", "shot", "over")
_PIG_PHASES = ("rolloff", "roll", "card", "decide", "over")
_WOOLFY_PHASES = ("choose", "die", "move", "house", "over")
_BY_GOLLY_PHASES = BY_GOLLY_PHASES  # every phase the game has, in its order
_RUN_CARDS = tuple(sorted(RUN_CARDS))
_RUN_LENGTH = sum(RUN_CARDS.values())


def make_observer(ctx, iig_obs_type, params):
    """The observer OpenSpiel asks ``make_py_observer`` for."""
    if params:
        raise ValueError(
            f"{ctx.short_name}: observation parameters are not supported, got {params}"
        )
    if iig_obs_type is None:
        iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
    private = iig_obs_type.private_info
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS and ctx.game.name == "by_golly":
        raise ValueError(
            "python_by_golly: an observation of every player's private cards is not offered"
        )
    if iig_obs_type.perfect_recall:
        return InfoStateObserver(iig_obs_type.public_info)
    return TensorObserver(ctx, private == pyspiel.PrivateInfoType.SINGLE_PLAYER)


class InfoStateObserver:
    """Perfect recall: a string, no tensor."""

    tensor = None

    def __init__(self, public_info: bool):
        self.public_info = public_info
        self.dict: dict[str, np.ndarray] = {}  # no named views

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        if not self.public_info:
            return ""
        recall = state.recall
        if recall is None:  # perfect information: the whole history is public
            return "\n".join(state.referee_state.history)
        return "\n".join(recall.seen[player])


class TensorObserver:
    """The observation: JSON string and a flat tensor with named views."""

    def __init__(self, ctx, private: bool):
        self.ctx, self.private = ctx, private
        pieces = _PIECES[ctx.game.name](ctx.game)
        if not private:
            pieces = [(name, shape) for name, shape in pieces if name != "hand"]
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict, offset = {}, 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[offset : offset + size].reshape(shape)
            offset += size

    def set_from(self, state, player):
        self.tensor.fill(0.0)
        _WRITERS[self.ctx.game.name](self.ctx.game, state.referee_state, player, self.dict)

    def string_from(self, state, player):
        view = state.referee_state.observation(player)
        if not self.private:
            view = {k: v for k, v in view.items() if k != "hand"}
        return json.dumps(view, sort_keys=True)


# --- Go Piggy Go! ------------------------------------------------------------------------
def _gpg_pieces(game):
    piggies, spaces = 3 * game.num_players, len(game.geometry.names)
    return [
        ("piggy_place", (piggies, spaces + len(PITS) + 1)),  # spaces, pits, trough
        ("piggy_on_top", (piggies,)),  # the top of a stack of two
        ("piggy_checkpoints", (piggies, len(game.board.checkpoints) + 1)),
        ("current_player", (game.num_players,)),
        ("observer", (game.num_players,)),
        ("die", (len(game.faces),)),
        ("phase", (len(_GPG_PHASES),)),
        ("target", (piggies,)),
        ("turns_left", (1,)),
    ]


def _gpg_write(game, state, player, views):
    piggies = [p for seat in range(game.num_players) for p in game.piggies_of(seat)]
    columns = {s: i for i, s in enumerate(sorted(game.geometry.names))}
    offboard = {name: len(columns) + i for i, name in enumerate((*PITS, TROUGH))}
    for row, piggy in enumerate(piggies):
        where = state.place[piggy]
        views["piggy_place"][
            row, columns[where] if isinstance(where, tuple) else offboard[where]
        ] = 1.0
        if isinstance(where, tuple) and state.stacks[where].index(piggy) == 1:
            views["piggy_on_top"][row] = 1.0
        views["piggy_checkpoints"][row, state.passed[piggy]] = 1.0
    if state.phase != "over":
        views["current_player"][state.player] = 1.0
    views["observer"][player] = 1.0
    if state.die is not None:
        views["die"][game.faces.index(state.die)] = 1.0
    views["phase"][_GPG_PHASES.index(state.phase)] = 1.0
    if state.target is not None:
        views["target"][piggies.index(state.target)] = 1.0
    views["turns_left"][0] = 1.0 - state.turn / game.params["max_turns"]


# --- Pig-Out -------------------------------------------------------------------------------
def _pig_pieces(game):
    n, bins = game.num_players, game.params["target"] + 1
    return [
        ("turn_total", (bins,)),
        ("scores", (n, bins)),  # one-hot, the last bin >= target
        ("current_player", (n,)),
        ("observer", (n,)),
        ("phase", (len(_PIG_PHASES),)),
        ("spots", (1,)),
        ("deck", (len(RANKS),)),  # fractions
        ("rollers", (n,)),
        ("rolloff", (n,)),
    ]


def _pig_write(game, state, player, views):
    top = game.params["target"]
    views["turn_total"][min(state.turn_total, top)] = 1.0
    for seat, score in enumerate(state.scores):
        views["scores"][seat, min(score, top)] = 1.0
    if state.phase != "over":
        views["current_player"][state.player] = 1.0
    views["observer"][player] = 1.0
    views["phase"][_PIG_PHASES.index(state.phase)] = 1.0
    views["spots"][0] = state.spots / (6 * game.params["dice"])
    if game.params["cards"]:
        views["deck"][:] = [state.deck[rank] / SUITS for rank in RANKS]
    for i, seat in enumerate(state.rollers):
        views["rollers"][seat] = 1.0
        if i < len(state.rolloff):  # this seat has rolled in the roll-off's round
            views["rolloff"][seat] = state.rolloff[i] / 12


# --- Woolfy -----------------------------------------------------------------------------------
def _woolfy_faces(game) -> list[str]:
    return [text.split()[1] for text, _ in game.die]


def _woolfy_pieces(game):
    n = game.num_players
    return [
        ("piglets", (len(PIGLETS), game.length + len(HOUSES) + 1)),  # squares, houses, pot
        ("wolf", (game.length,)),
        ("brick_parts", (game.params["brick_parts"] + 1,)),
        ("left_start", (len(PIGLETS),)),
        ("last_die", (len(PIGLETS),)),
        ("rescue_armed", (1,)),
        ("phase", (len(_WOOLFY_PHASES),)),
        ("current_player", (n,)),
        ("observer", (n,)),
        ("chosen", (len(PIGLETS),)),
        ("rolled", (len(_woolfy_faces(game)),)),
        ("rescuing", (1,)),
        ("turns_left", (1,)),
    ]


def _woolfy_write(game, state, player, views):
    places = {**{h: game.length + i for i, h in enumerate(HOUSES)}, POT: game.length + 3}
    for row, piglet in enumerate(PIGLETS):
        where = state.where[piglet]
        views["piglets"][row, where if isinstance(where, int) else places[where]] = 1.0
    views["wolf"][state.wolf] = 1.0
    views["brick_parts"][state.brick] = 1.0
    for piglet in state.left_start:
        views["left_start"][PIGLETS.index(piglet)] = 1.0
    if state.last_die is not None:
        views["last_die"][PIGLETS.index(state.last_die)] = 1.0
    views["rescue_armed"][0] = float(state.rescue_armed)
    views["phase"][_WOOLFY_PHASES.index(state.phase)] = 1.0
    if state.phase != "over":
        views["current_player"][state.player] = 1.0
    views["observer"][player] = 1.0
    if state.chosen is not None:
        views["chosen"][PIGLETS.index(state.chosen)] = 1.0
    if state.rolled is not None:
        views["rolled"][_woolfy_faces(game).index(state.rolled)] = 1.0
    views["rescuing"][0] = float(state.rescuing)
    views["turns_left"][0] = 1.0 - state.turn / game.params["max_turns"]


# --- By Golly! -------------------------------------------------------------------------------
def _by_golly_pieces(game):
    n = game.num_players
    return [
        ("hand", (len(ANIMALS),)),  # how many of each animal
        ("hand_sizes", (n,)),
        ("stack_sizes", (n,)),
        ("face_up", (_RUN_LENGTH, len(_RUN_CARDS))),
        ("remembered", (_RUN_LENGTH, len(_RUN_CARDS))),  # face down, last seen there
        ("played", (len(ANIMALS),)),
        ("phase", (len(_BY_GOLLY_PHASES),)),
        ("current_player", (n,)),
        ("observer", (n,)),
        ("draws_left", (1,)),
        ("swaps_left", (1,)),
        ("turns_left", (1,)),
    ]


def _by_golly_write(game, state, player, views):
    view = state.observation(player)  # only what this player may see
    if "hand" in views:
        for card in view["hand"]:
            views["hand"][ANIMALS.index(card)] += 1.0
    views["hand_sizes"][:] = view["hand_sizes"]
    views["stack_sizes"][:] = view["stack_sizes"]
    for position, card in view["face_up"].items():
        views["face_up"][position, _RUN_CARDS.index(card)] = 1.0
    down = set(view["face_down"])
    for position, card in remembered_run(view["events"]).items():
        if position in down:
            views["remembered"][position, _RUN_CARDS.index(card)] = 1.0
    if view["played"] is not None:
        views["played"][ANIMALS.index(view["played"])] = 1.0
    views["phase"][_BY_GOLLY_PHASES.index(view["phase"])] = 1.0
    if view["phase"] not in ("run", "deal", "start", "over"):
        views["current_player"][view["player"]] = 1.0
    views["observer"][player] = 1.0
    views["draws_left"][0] = view["draws_left"]
    views["swaps_left"][0] = view["swaps_left"]
    views["turns_left"][0] = 1.0 - view["turn"] / game.params["max_turns"]


class ByGollyRecall:
    """Each player's record of the game as they saw it (their information state)."""

    def __init__(self, players: int):
        self.seen: list[list[str]] = [[] for _ in range(players)]

    def __deepcopy__(self, memo):
        copy = ByGollyRecall(0)
        copy.seen = [list(record) for record in self.seen]  # the strings are immutable
        return copy

    def record(
        self, game, state, action: str, events_before: int, hands_before: list[list[str]]
    ) -> None:
        """After ``action`` was applied to ``state``: what each player saw of it."""
        verb = action.split()[0]
        hidden = verb in ("run", "deal") and not game.is_public_chance(action)
        public = verb + " ?" if hidden else action
        events = [" ".join(map(str, e)) for e in state.events[events_before:]]
        for player, record in enumerate(self.seen):
            record.append(public)
            record.extend(events)
            hand = sorted(state.hands[player])
            if hand != sorted(hands_before[player]):
                record.append("hand " + " ".join(hand))


_PIECES = {
    "go_piggy_go": _gpg_pieces,
    "pig_out": _pig_pieces,
    "woolfy": _woolfy_pieces,
    "by_golly": _by_golly_pieces,
}
_WRITERS = {
    "go_piggy_go": _gpg_write,
    "pig_out": _pig_write,
    "woolfy": _woolfy_write,
    "by_golly": _by_golly_write,
}
