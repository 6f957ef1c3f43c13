"""Playing games: one match between seats, and tournaments with win rates.

Chance outcomes are sampled from ``chance_outcomes()`` with a generator seeded
from the match seed, and each bot gets its own seed from it too, so a seed gives
the same game every time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from models.errors import InputError
from models.seeds import seed_sequence, split_seed
from models.stats import wilson_interval
from referee.api import CHANCE, TERMINAL, Game, State
from referee.bots import Bot


def sample_chance(state: State, rng: np.random.Generator) -> str:
    """One chance outcome, drawn by its probability (one uniform number per draw)."""
    outcomes = state.chance_outcomes()
    u = rng.random()  # the outcomes' probabilities sum to 1 (referee.checks)
    for outcome, p in outcomes:
        u -= p
        if u < 0:
            return outcome
    return outcomes[-1][0]  # rounding at the very top


#: The most actions one game may take: its history is kept in memory (about 100
#: bytes an action), and a game set to run for ever (``max_turns`` of 10^9 with a die
#: that never moves a piece far) is stopped here, on one line, rather than filling
#: the memory.
MAX_GAME_ACTIONS = 2_000_000


class GameTooLong(InputError):
    """A game that reached :data:`MAX_GAME_ACTIONS` actions without ending."""


def play(
    game: Game,
    seats: Sequence[Bot | Callable[[State], str]],
    seed: int = 0,
    on_action: Callable[[State, str], None] | None = None,
) -> State:
    """Play one game to the end (a :class:`GameTooLong` after
    :data:`MAX_GAME_ACTIONS` actions).

    ``seats[i]`` is a :class:`~referee.bots.Bot` (not asked when only one action
    is legal) or a function that takes the state and returns an action (a human
    at the terminal, who is always asked). ``on_action(state,
    action)`` is called before each action is applied.
    """
    rng = np.random.default_rng(seed_sequence(seed, 0xC4A2CE))
    state = game.new_initial_state()
    while (player := state.current_player()) != TERMINAL:
        if len(state.history) >= MAX_GAME_ACTIONS:
            raise GameTooLong(
                f"{game.name}: stopped after {MAX_GAME_ACTIONS:,} actions "
                f"(turn {getattr(state, 'turn', '?')}) without an end: the game "
                "is kept in memory; lower --param max_turns"
            )
        if player == CHANCE:
            action = sample_chance(state, rng)
            legal = True
        else:
            seat = seats[player]
            if isinstance(seat, Bot):
                options = state.legal_actions()
                if len(options) == 1:  # nothing to choose: the bot is not asked
                    action, legal = options[0], True
                else:
                    action = seat.choose(state.observation(player), options)
                    legal = action in options
            else:
                action, legal = seat(state), False
        if on_action:
            on_action(state, action)
        if legal:  # drawn from this position's own lists: no need to parse it again
            state.apply_known_legal(action)
        else:
            state.apply_action(action)
    return state


@dataclass
class TournamentResult:
    """Win rates by bot (not by seat: seats are rotated), and game statistics.

    In a cooperative game the table wins or loses together, so the games are
    counted, not the seats: ``team_wins`` of ``games``, and one interval over the
    games (a won game is one success, however many seats it had)."""

    games: int
    bots: list[str]
    wins: dict[str, int]
    seats_played: dict[str, int]
    undecided: int
    turns: list[int] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    cooperative: bool = False
    team_wins: int = 0

    def to_dict(self) -> dict:
        head = {"games": self.games, "seats": self.bots, "cooperative": self.cooperative}
        if self.cooperative:
            lo, hi = wilson_interval(self.team_wins, self.games)
            head["team"] = {
                "wins": self.team_wins,
                "games": self.games,
                "win_rate": round(self.team_wins / self.games, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        else:
            rates = {}
            for bot in sorted(set(self.bots)):
                n, k = self.seats_played[bot], self.wins[bot]
                lo, hi = wilson_interval(k, n)
                rates[bot] = {
                    "wins": k,
                    "seats_played": n,
                    "win_rate": round(k / n, 4) if n else None,
                    "ci95": [round(lo, 4), round(hi, 4)],
                }
            head["win_rates"] = rates
        return {
            **head,
            "undecided": self.undecided,
            "mean_turns": round(float(np.mean(self.turns)), 2) if self.turns else None,
            **self.extra,
        }


def tournament(
    game: Game,
    bot_factory: Callable[[str, int], Bot],
    bots: list[str],
    games: int,
    seed: int = 0,
    on_game: Callable[[int, State], None] | None = None,
) -> TournamentResult:
    """``games`` games, the seat order rotated each game so that no bot keeps the
    first move. ``bot_factory(name, seed)`` makes a bot."""
    n = len(bots)
    wins = dict.fromkeys(bots, 0)
    seats_played = dict.fromkeys(bots, 0)
    result = TournamentResult(
        games, list(bots), wins, seats_played, 0, cooperative=game.cooperative
    )
    for g in range(games):
        order = [bots[(i + g) % n] for i in range(n)]
        game_seed = split_seed(seed, g)
        seats = [bot_factory(name, game_seed + 1 + i) for i, name in enumerate(order)]
        state = play(game, seats, seed=game_seed)
        for name in order:
            seats_played[name] += 1
        returns = state.returns()
        if game.cooperative:  # the table wins or loses together: one game, one count
            result.team_wins += returns[0] > 0
        elif max(returns) > 0:
            wins[order[returns.index(max(returns))]] += 1
        else:
            result.undecided += 1
        result.turns.append(getattr(state, "turn", len(state.history)))
        if on_game:
            on_game(g, state)
    return result
