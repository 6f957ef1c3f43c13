"""Our games as pyspiel Python games: one generic Game and State around referee.api.

The pyspiel state holds our state (``state.referee_state``) and forwards to it:
actions go through the game's :class:`~referee.openspiel.codec.ActionCodec`, and
every action is checked by our ``apply_action`` (an illegal one raises
:class:`~referee.api.IllegalAction` and changes nothing).

OpenSpiel copies a Python state by deep-copying its attributes and serializes it
by pickling them; our state travels as :class:`_Live`, which copies as our
``State.clone`` does (the game stays shared) and pickles as the game's string
and our ``state.to_json()``, so a serialized state loads in another process.
"""

from __future__ import annotations

import json
import pickle

import pyspiel

import referee
from models.errors import InputError
from referee.api import CHANCE, TERMINAL
from referee.by_golly_terms import DEAL, RUN_CARDS
from referee.openspiel import observers
from referee.openspiel.codec import ActionCodec, codec_for
from referee.openspiel.params import SPECS, to_referee

#: By Golly!: the most player moves in one turn: 19 turn-overs, 20 plays (a card is
#: played before each turn-over, and once more when none is left), 4 penalty draws,
#: 18 swaps and ``done``.
BY_GOLLY_MOVES_PER_TURN = 19 + 20 + 4 + 18 + 1
#: pig_out: roll-off rounds counted in the longest history; more ties in a row than
#: this have a probability far below 1e-10.
PIG_ROLL_OFF_ROUNDS = 20

_LONG_NAMES = {
    "go_piggy_go": "Go Piggy Go! (referee)",
    "pig_out": "Pig-Out 2 and Pig (referee)",
    "woolfy": "Woolfy (referee)",
    "by_golly": "By Golly! (referee)",
}
_PLAYERS = {"go_piggy_go": (2, 4), "pig_out": (2, 12), "woolfy": (1, 6), "by_golly": (2, 6)}
#: Contexts by game string, so that a pickled state finds its game again.
_CONTEXTS: dict[str, _Context] = {}


def short_name(name: str) -> str:
    return f"python_{name}"


class _Context:
    """One loaded game: our game, its encoding and the adapter's options."""

    def __init__(self, name: str, params: dict):
        ours, options = to_referee(name, params)
        resolver = {"resolver": options["resolver"]} if "resolver" in options else {}
        self.game = referee.load_game(name, **ours, **resolver)
        self.codec: ActionCodec = codec_for(self.game)
        self.horizon: int | None = options.get("horizon")
        self.short_name = short_name(name)
        self.game_string = ""  # set once OpenSpiel has made the game


class _Live:
    """Our state inside a pyspiel state: copied as our ``clone`` copies it, pickled as
    JSON."""

    __slots__ = ("ctx", "state")

    def __init__(self, ctx: _Context, state):
        self.ctx, self.state = ctx, state

    def __deepcopy__(self, memo):
        """Our ``State.clone``, made faster: the state's attributes but its game go
        through pickle (3-10 times faster than ``copy.deepcopy`` on our states, and
        search clones a state for every simulation)."""
        state = self.state
        attributes = dict(state.__dict__)
        game = attributes.pop("game")
        try:
            copied = pickle.loads(pickle.dumps(attributes, pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            return _Live(self.ctx, state.clone())  # something pickle cannot copy: the slow way
        copy = object.__new__(type(state))
        copy.__dict__.update(copied)
        copy.game = game
        return _Live(self.ctx, copy)

    def __reduce__(self):
        return (_restore, (self.ctx.game_string, self.state.to_json()))


def _restore(game_string: str, text: str) -> _Live:
    if game_string not in _CONTEXTS:
        pyspiel.load_game(game_string)  # makes the context
    ctx = _CONTEXTS[game_string]
    return _Live(ctx, ctx.game.state_from_json(text))


class OpenSpielGame(pyspiel.Game):
    """One of our games as an OpenSpiel game (``pyspiel.load_game("python_<name>(...)")``);
    one subclass per game sets ``referee_name``."""

    referee_name = ""

    def __init__(self, params: dict | None = None):
        name = self.referee_name
        params = dict(params or {})
        ctx = _Context(name, params)
        game, codec = ctx.game, ctx.codec
        n = game.num_players
        identical = game.cooperative
        super().__init__(
            GAME_TYPES[name],
            pyspiel.GameInfo(
                num_distinct_actions=len(codec.actions),
                max_chance_outcomes=len(codec.outcomes),
                num_players=n,
                min_utility=-1.0 if identical or n == 1 else -1.0 / (n - 1),
                max_utility=1.0,
                utility_sum=None if identical else 0.0,
                max_game_length=_max_moves(ctx),
            ),
            params,
        )
        self._ctx = ctx
        ctx.game_string = self.to_string()
        _CONTEXTS.setdefault(ctx.game_string, ctx)

    @property
    def referee_game(self):
        """Our game (referee.api.Game) behind this one."""
        return self._ctx.game

    @property
    def codec(self) -> ActionCodec:
        return self._ctx.codec

    def new_initial_state(self):
        return OpenSpielState(self)

    def max_chance_nodes_in_history(self):
        return _max_chance_nodes(self._ctx)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return observers.make_observer(self._ctx, iig_obs_type, params)


class OpenSpielState(pyspiel.State):
    """A state of one of our games, in OpenSpiel's terms."""

    def __init__(self, game: OpenSpielGame):
        super().__init__(game)
        ctx = game._ctx
        self._live = _Live(ctx, ctx.game.new_initial_state())
        self._moves = 0  # player moves so far (pig_out's horizon counts them)
        self.recall = (
            observers.ByGollyRecall(ctx.game.num_players) if ctx.game.name == "by_golly" else None
        )

    @property
    def referee_state(self):
        """Our state (referee.api.State) behind this one; read it, do not change it."""
        return self._live.state

    def current_player(self):
        ctx = self._live.ctx
        if ctx.horizon is not None and self._moves >= ctx.horizon:
            return TERMINAL  # pig_out: the horizon ends the game undecided
        return self._live.state.current_player()

    def is_terminal(self):
        return self.current_player() == TERMINAL

    def _legal_actions(self, player):
        encode = self._live.ctx.codec.encode
        return sorted(encode(action, False) for action in self._live.state.legal_actions())

    def chance_outcomes(self):
        encode = self._live.ctx.codec.encode
        return sorted(
            (encode(outcome, True), p) for outcome, p in self._live.state.chance_outcomes()
        )

    def _apply_action(self, action):
        state, ctx = self._live.state, self._live.ctx
        if self.is_terminal():
            raise InputError(f"{ctx.short_name}: the game is over; no action is legal")
        chance = state.is_chance_node()
        text = ctx.codec.decode(int(action), chance)
        if self.recall is None:
            state.apply_action(text)
        else:
            events, hands = len(state.events), [list(h) for h in state.hands]
            state.apply_action(text)
            self.recall.record(ctx.game, state, text, events, hands)
        if not chance:
            self._moves += 1

    def _action_to_string(self, player, action):
        return self._live.ctx.codec.decode(int(action), player == CHANCE)

    def returns(self):
        return list(self._live.state.returns())

    def __str__(self):
        state = self._live.state
        text = json.dumps(state._to_dict(), sort_keys=True)
        return text if self._live.ctx.horizon is None else f"{text} moves={self._moves}"


def _max_moves(ctx: _Context) -> int:
    """The most player moves a game can have (OpenSpiel's max_game_length)."""
    game = ctx.game
    turns = game.params["max_turns"]
    return {
        "go_piggy_go": lambda: turns,  # one move a turn
        "pig_out": lambda: ctx.horizon,
        "woolfy": lambda: 2 * turns,  # choose a piglet, then move it
        "by_golly": lambda: BY_GOLLY_MOVES_PER_TURN * turns,
    }[game.name]()


def _max_chance_nodes(ctx: _Context) -> int:
    game = ctx.game
    turns = game.params["max_turns"]
    if game.name == "go_piggy_go":
        return 2 * turns  # the die, and a shot's outcome
    if game.name == "pig_out":  # dice then a card, at each turn's
        return 2 * (turns + ctx.horizon) + PIG_ROLL_OFF_ROUNDS * game.num_players  # start and roll
    if game.name == "woolfy":
        return turns
    return sum(RUN_CARDS.values()) + DEAL[game.num_players] * game.num_players + 1


def _game_type(name: str) -> pyspiel.GameType:
    low, high = _PLAYERS[name]
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=_LONG_NAMES[name],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(
            pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if name == "by_golly"
            else pyspiel.GameType.Information.PERFECT_INFORMATION
        ),
        utility=(
            pyspiel.GameType.Utility.IDENTICAL
            if name == "woolfy"
            else pyspiel.GameType.Utility.ZERO_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=SPECS[name],
    )


GAME_TYPES = {name: _game_type(name) for name in SPECS}


#: One OpenSpielGame subclass per game. OpenSpiel keeps what it registers until the
#: interpreter is gone; a class (unlike a plain function) is never freed then.
GAME_CLASSES = {
    name: type(f"OpenSpiel_{name}", (OpenSpielGame,), {"referee_name": name}) for name in SPECS
}


def register() -> None:
    """Register the four games with OpenSpiel (once; ``import referee.openspiel`` does it)."""
    registered = set(pyspiel.registered_names())
    for name, game_type in GAME_TYPES.items():
        if game_type.short_name not in registered:
            pyspiel.register_game(game_type, GAME_CLASSES[name])
