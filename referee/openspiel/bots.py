"""Our bots (referee.bots) as OpenSpiel bots, so that OpenSpiel's tools can seat them."""

from __future__ import annotations

import pyspiel

from referee.bots import make_bot


class RefereeBot(pyspiel.Bot):
    """One of our bots, by name, playing one seat of an OpenSpiel game of ours.

    Like our match runner it sees only ``observation(seat)`` and the legal
    actions, and is not asked when just one action is legal.
    """

    def __init__(self, game, name: str, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.codec = game.codec
        self.bot = make_bot(name, game.referee_game, seed)
        self.name = name

    def step(self, state):
        ours = state.referee_state
        legal = ours.legal_actions()
        if len(legal) == 1:
            return self.codec.encode(legal[0], False)
        choice = self.bot.choose(ours.observation(state.current_player()), legal)
        return self.codec.encode(choice, False)

    def restart_at(self, state):
        pass

    def inform_action(self, state, player, action):
        pass
