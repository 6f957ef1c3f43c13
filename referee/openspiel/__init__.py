"""Our four games as OpenSpiel games (the optional extra ``openspiel``: ``pip install -e
'.[openspiel]'`` in a checkout, ``pip install 'go-piggy-go-sandbox[openspiel]'`` for an
installed copy).

    >>> import pyspiel
    >>> import referee.openspiel                 # registers the games
    >>> game = pyspiel.load_game("python_go_piggy_go(players=3,shots=scripted:0.4)")
    >>> state = game.new_initial_state()
    >>> state.action_to_string(-1, state.legal_actions()[0])
    'die 1'

Registered on import: ``python_go_piggy_go``, ``python_pig_out``,
``python_woolfy`` and ``python_by_golly``; parameters as in referee (see
:mod:`referee.openspiel.params` for the few written differently), action numbers
as in :mod:`referee.openspiel.codec`. docs/ecosystem.md has the whole story.
"""

from __future__ import annotations

from models.errors import install_hint

try:
    import pyspiel  # noqa: F401  (the adapter needs it; say how to get it if missing)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"referee.openspiel needs OpenSpiel (the open_spiel package): {install_hint('openspiel')}"
    ) from exc

from referee.openspiel.adapter import OpenSpielGame, OpenSpielState, register, short_name
from referee.openspiel.bots import RefereeBot
from referee.openspiel.codec import ActionCodec, codec_for

#: The registered OpenSpiel names, by our game name.
GAME_NAMES = {name: short_name(name) for name in ("go_piggy_go", "pig_out", "woolfy", "by_golly")}

register()

__all__ = [
    "GAME_NAMES",
    "ActionCodec",
    "OpenSpielGame",
    "OpenSpielState",
    "RefereeBot",
    "codec_for",
    "register",
]
