"""The common game API (docs/architecture.md, "The game API"), shaped after OpenSpiel.

A game is loaded with :func:`referee.load_game`; ``game.new_initial_state()``
gives a :class:`State`. Actions are their canonical strings: every action,
chance outcomes included, is a ``str`` such as ``"die 3"`` or
``"move gold-1 r3c2"``; ``state.parse_action(text)`` returns the legal one with
that string or raises :class:`IllegalAction`, which lists what is legal.

Subclasses implement the ``_``-prefixed hooks; the public methods here check
legality and keep the history, so that every game behaves the same at its edges.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from typing import ClassVar, Self

from models.errors import InputError
from models.files import parse_json
from referee.validate import Spec, check_params, quoted

#: ``current_player()`` at a chance node, and at the end (OpenSpiel's values).
CHANCE = -1
TERMINAL = -4


def winner_returns(winner: int | None, players: int) -> list[float]:
    """Zero-sum returns: the winner +1, every other player -1/(n-1); all 0 without a
    winner (the game is not over, or ended undecided)."""
    if winner is None:
        return [0.0] * players
    return [1.0 if seat == winner else -1.0 / (players - 1) for seat in range(players)]


class IllegalAction(InputError):
    """An action that is not legal here; the message names it and lists what is."""

    def __init__(self, action: str, legal: list[str]):
        self.action, self.legal = action, legal
        listed = ", ".join(legal[:40]) + (f", ... ({len(legal)} in all)" if len(legal) > 40 else "")
        super().__init__(f"{quoted(action)} is not legal here; legal: {listed or 'nothing'}")


class Game(ABC):
    """A game with its parameters. ``params`` holds JSON-able values only."""

    name: str = ""
    #: parameter -> default; anything else given to load_game is refused.
    defaults: ClassVar[dict] = {}
    #: parameter -> what it accepts (each default is accepted); the game's __init__
    #: checks what depends on several parameters (a seat below ``players``, squares
    #: that must differ).
    specs: ClassVar[dict[str, Spec]] = {}
    #: everyone wins or loses together (returns all +1 or all -1)
    cooperative: ClassVar[bool] = False
    #: each seat's name as logs and results show it (set by each game's __init__)
    seats: list[str]

    def __init__(self, **params):
        check_params(self.name, self.specs, params)
        self.params = {**self.defaults, **params}

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    def is_public_chance(self, outcome: str) -> bool:
        """Whether everyone at the table sees this chance outcome (a game log may show
        it); By Golly!'s deal, for one, is hidden."""
        return True

    @abstractmethod
    def new_initial_state(self) -> State: ...

    def state_from_json(self, text: str) -> State:
        """The state that ``state.to_json()`` wrote (for this game and parameters).

        Anything else is refused with a one-line InputError: fields missing, unknown
        or of the wrong type, positions that break the game's rules (the game's
        ``_load`` checks them), and a history that does not lead to the state: a
        state with a history must be the one that history reaches from the start
        (as OpenSpiel restores states); a position set up by hand has an empty one.
        """
        where = f"{self.name} state"
        data = _parse_json(text, where)
        if not isinstance(data, dict) or data.get("game") != self.name:
            raise InputError(
                f'{where}: not a {self.name} state (its "game" is '
                f"{quoted(data.get('game') if isinstance(data, dict) else data)})"
            )
        state = self.new_initial_state()
        expected = {"game", "params", "history", *state._to_dict()}
        for key in sorted(set(data) ^ expected):
            raise InputError(
                f"{where}: {'unknown' if key in data else 'missing'} field {quoted(key)}"
            )
        self._check_state_params(data["params"], where)
        history = data["history"]
        if not isinstance(history, list) or not all(isinstance(a, str) for a in history):
            raise InputError(f"{where}: field 'history' must be a list of action strings")
        state._load(data)
        if not history:
            state._start = text  # a position set up by hand: play goes on from here
            return state
        return self._replayed(state, history, where)

    def _check_state_params(self, params, where: str) -> None:
        mine = json.loads(json.dumps(self.params))
        if params == mine:
            return
        if not isinstance(params, dict):
            raise InputError(f"{where}: field 'params' must be an object, got {quoted(params)}")
        key = min(set(params) ^ set(mine) or {k for k in mine if params[k] != mine[k]})
        raise InputError(
            f"{where}: saved with {key}={quoted(params.get(key))}, but this game "
            f"has {key}={quoted(mine.get(key))}"
        )

    def _replayed(self, loaded: State, history: list[str], where: str) -> State:
        """The state the history reaches, if it is ``loaded``."""
        state = self.new_initial_state()
        for number, action in enumerate(history, start=1):
            try:
                state.apply_action(action)
            except InputError as exc:
                raise InputError(
                    f"{where}: history action {number} {quoted(action)} cannot "
                    f"be played there ({exc})"
                ) from None
        replayed = json.loads(json.dumps(state._to_dict()))
        saved = loaded._to_dict()
        for key in sorted(replayed):
            if json.loads(json.dumps(saved[key])) != replayed[key]:
                raise InputError(
                    f"{where}: field '{key}' = {quoted(saved[key])} does not match "
                    f"the history, which gives {quoted(replayed[key])}"
                )
        return state

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"


class State(ABC):
    """A position of a game. Mutable; :meth:`clone` for an independent copy."""

    #: the turns played so far, from 0 (set by each game's initial state)
    turn: int

    def __init__(self, game: Game):
        self.game = game
        self.history: list[str] = []
        self._legal_for = -1  # len(history) that _legal belongs to
        self._legal: list[str] = []
        self._start: str | None = None  # the position the history starts from (None: the
        # initial state), to restore after a failed action

    # --- hooks for each game ---------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, :data:`CHANCE` at a chance node, :data:`TERMINAL` at the end."""

    @abstractmethod
    def _legal_actions(self) -> list[str]:
        """The legal player actions, in a fixed order (so that bots are reproducible)."""

    @abstractmethod
    def _chance_outcomes(self) -> list[tuple[str, float]]:
        """``(outcome, probability)`` at a chance node, probabilities summing to 1."""

    @abstractmethod
    def _apply(self, action: str) -> None:
        """Apply a legal action or chance outcome."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each seat's return; all zero until the game is over."""

    @abstractmethod
    def _to_dict(self) -> dict:
        """The state as JSON-able data (without ``game``, ``params``, ``history``)."""

    @abstractmethod
    def _load(self, data: dict) -> None:
        """Set this (initial) state from :meth:`_to_dict`'s data, checking every field
        and the rules the position must satisfy (ranges, capacities, pieces and cards
        conserved, fields that follow from others); anything wrong: a one-line
        InputError. ``state_from_json`` has already checked the keys, ``params`` and
        ``history``."""

    def _is_legal_chance_outcome(self, action: str) -> bool:
        """Chance outcomes a record may hold beyond those listed (e.g. a physical
        shot's result); by default only the listed ones."""
        return any(action == outcome for outcome, _ in self._chance_outcomes())

    # --- the API ------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[str]:
        """Legal actions of the player to act; [] at chance nodes and at the end.

        Computed once per position (a bot asks, then apply_action checks); the list
        is shared, so do not change it.
        """
        if self.current_player() < 0:
            return []
        if self._legal_for != len(self.history):
            self._legal = self._legal_actions()
            self._legal_for = len(self.history)
        return self._legal

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """``(outcome, probability)`` pairs at a chance node; [] elsewhere."""
        return self._chance_outcomes() if self.is_chance_node() else []

    def parse_action(self, text: str) -> str:
        """The legal action (or chance outcome) written ``text``; else :class:`IllegalAction`."""
        player = self.current_player()
        if player >= 0:
            legal = self.legal_actions()
            if text in legal:  # the usual case: a canonical string
                return text
            action = " ".join(str(text).split())
            if action in legal:
                return action
            raise IllegalAction(action, legal)
        action = " ".join(str(text).split())
        if player == TERMINAL:
            raise IllegalAction(action, [])
        if self._is_legal_chance_outcome(action):
            return action
        raise IllegalAction(action, [o for o, _ in self._chance_outcomes()])

    def apply_action(self, action: str) -> None:
        """Apply an action or chance outcome; an illegal one raises and changes nothing,
        and so does one that fails on the way (see :meth:`apply_known_legal`)."""
        self.apply_known_legal(self.parse_action(action))

    def apply_known_legal(self, action: str) -> None:
        """Apply an action already known to be legal: one taken from
        ``legal_actions()`` or ``chance_outcomes()`` of this very position (the
        match runner's fast path). Anything else: use :meth:`apply_action`.

        Atomic: if applying raises (an interrupt, a bug), the state is rebuilt from
        its start and history before the error goes on, so it is as it was."""
        try:
            self._apply(action)
        except BaseException:
            self._restore()  # whatever broke, the state stays as it was
            raise
        self.history.append(action)

    def _restore(self) -> None:
        """Rebuild this state from its start and history (after a failed action: no
        cost until something fails)."""
        game = self.game
        state = (
            game.new_initial_state() if self._start is None else game.state_from_json(self._start)
        )
        for action in self.history:
            state._apply(action)
            state.history.append(action)
        self.__dict__.clear()
        self.__dict__.update(state.__dict__)

    def clone(self) -> Self:
        """An independent copy; the game (and its shot resolver) stays shared."""
        return copy.deepcopy(self, memo={id(self.game): self.game})

    def observation(self, player: int) -> dict:
        """What ``player`` may see, with ``observer`` = that seat. Perfect-information
        games show everything."""
        view = self._to_dict()
        view["observer"] = player
        return view

    def to_json(self) -> str:
        return json.dumps(
            {
                "game": self.game.name,
                "params": self.game.params,
                "history": self.history,
                **self._to_dict(),
            },
            sort_keys=True,
        )

    def __str__(self) -> str:
        return self.to_json()


def _parse_json(text: str, where: str):
    """JSON text, or a one-line InputError (malformed, a key twice in one object, NaN,
    nested too deeply, numbers of thousands of digits)."""
    if not isinstance(text, str | bytes):
        raise InputError(f"{where}: expected JSON text, got {quoted(text)}")
    try:
        return parse_json(text if isinstance(text, str) else text.decode(), where)
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
