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
from typing import ClassVar

from models.errors import InputError

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
        shown = ", ".join(legal[:40]) + (f", ... ({len(legal)} in all)" if len(legal) > 40 else "")
        super().__init__(f"'{action}' is not legal here; legal: {shown or 'nothing'}")


class Game(ABC):
    """A game with its parameters. ``params`` holds JSON-able values only."""

    name: str = ""
    #: parameter -> default; anything else given to load_game is refused.
    defaults: ClassVar[dict] = {}
    #: everyone wins or loses together (returns all +1 or all -1)
    cooperative: ClassVar[bool] = False

    def __init__(self, **params):
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise InputError(f"{self.name}: unknown parameter '{unknown[0]}' (allowed: "
                             f"{', '.join(sorted(self.defaults))})")
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
        """The state that ``state.to_json()`` wrote (for this game and parameters)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{self.name}: state is not valid JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("game") != self.name:
            raise InputError(f"{self.name}: not a {self.name} state")
        state = self.new_initial_state()
        state._load(data)
        return state

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"


class State(ABC):
    """A position of a game. Mutable; :meth:`clone` for an independent copy."""

    def __init__(self, game: Game):
        self.game = game
        self.history: list[str] = []
        self._legal_for = -1     # len(history) that _legal belongs to
        self._legal: list[str] = []

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
        """Set this state from :meth:`_to_dict`'s data (and ``history``)."""

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
        """Apply an action or chance outcome; an illegal one raises and changes nothing."""
        self.apply_known_legal(self.parse_action(action))

    def apply_known_legal(self, action: str) -> None:
        """Apply an action already known to be legal: one taken from
        ``legal_actions()`` or ``chance_outcomes()`` of this very position (the
        match runner's fast path). Anything else: use :meth:`apply_action`."""
        self._apply(action)
        self.history.append(action)

    def clone(self) -> State:
        """An independent copy; the game (and its shot resolver) stays shared."""
        return copy.deepcopy(self, memo={id(self.game): self.game})

    def observation(self, player: int) -> dict:
        """What ``player`` may see, with ``observer`` = that seat. Perfect-information
        games show everything."""
        view = self._to_dict()
        view["observer"] = player
        return view

    def to_json(self) -> str:
        return json.dumps({"game": self.game.name, "params": self.game.params,
                           "history": self.history, **self._to_dict()}, sort_keys=True)

    def __str__(self) -> str:
        return self.to_json()
