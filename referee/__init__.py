"""The rules: one module per game on one common API (referee.api), bots, records.

    >>> import referee
    >>> game = referee.load_game("go-piggy-go", players=3)
    >>> state = game.new_initial_state()

Pure Python and numpy; never imports PyBullet (physical shots come in through a
shot resolver, referee.shots).
"""

from __future__ import annotations

from models.errors import InputError
from referee.api import CHANCE, TERMINAL, Game, IllegalAction, State
from referee.by_golly import ByGollyGame
from referee.go_piggy_go import GoPiggyGoGame
from referee.pig_out import PigOutGame
from referee.validate import quoted
from referee.woolfy import WoolfyGame

#: Registered games by canonical name.
GAMES: dict[str, type[Game]] = {
    ByGollyGame.name: ByGollyGame,
    GoPiggyGoGame.name: GoPiggyGoGame,
    PigOutGame.name: PigOutGame,
    WoolfyGame.name: WoolfyGame,
}

__all__ = [
    "CHANCE",
    "GAMES",
    "TERMINAL",
    "Game",
    "IllegalAction",
    "State",
    "canonical_name",
    "load_game",
]


def canonical_name(name: str) -> str:
    """``go-piggy-go`` and ``go_piggy_go`` are the same game; unknown names (and names
    that are not text) are refused."""
    key = name.lower().replace("-", "_") if isinstance(name, str) else None
    if key not in GAMES:
        raise InputError(f"unknown game {quoted(name)}: games are {', '.join(sorted(GAMES))}")
    return key


def load_game(name: str, **params) -> Game:
    """A game by name, with parameters (the game's defaults for the rest).

    Options that are not game parameters (go_piggy_go's ``resolver``) are passed
    through to the game as well.
    """
    return GAMES[canonical_name(name)](**params)
