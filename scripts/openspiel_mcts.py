"""OpenSpiel's MCTS bot against our bots, in our games loaded through OpenSpiel.

    python scripts/openspiel_mcts.py GAME_STRING BOT [--games 20] [--simulations 50]
                                     [--seed 0] [--json]

e.g. ``python scripts/openspiel_mcts.py "python_pig_out(preset=pig)" hold-at-20``.
Needs the openspiel extra. Two players: OpenSpiel's MCTSBot (UCT, c = 2, random
rollouts, --simulations a move) in one seat, our bot BOT in the other, the seats
swapped every game; OpenSpiel's evaluate_bots plays the games (chance sampled by
its probabilities). Prints MCTS's win rate with a 95 % Wilson interval, undecided
games, and every move checked legal. In a cooperative game (Woolfy) both seats
win or lose together: the rate is the table's.

MCTS plans on the true state: in By Golly! it sees the face-down run and the
other player's cards (OpenSpiel's MCTS has no imperfect-information handling), so
its By Golly! figure is that of a player who can see through the cards.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from models.errors import InputError
from models.seeds import split_seed
from models.stats import wilson_interval
from referee.openspiel import RefereeBot

UCT_C = 2.0


def measure(spec: str, bot: str, games: int, simulations: int, seed: int) -> dict:
    game = pyspiel.load_game(spec)
    if game.num_players() != 2:
        raise InputError(f"{spec}: two players only, this game has {game.num_players()}")
    RefereeBot(game, bot)  # an unknown bot is refused before the games start
    wins = undecided = moves = 0
    start = time.perf_counter()
    for number in range(games):
        rng = np.random.RandomState(split_seed(seed, number))
        seat = number % 2
        searcher = mcts.MCTSBot(
            game, UCT_C, simulations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng
        )
        bots = [
            searcher if i == seat else RefereeBot(game, bot, seed=seed * 1000 + number)
            for i in range(2)
        ]
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, rng)
        replay = game.new_initial_state()
        for action in state.history():  # every move legal: OpenSpiel's own check
            replay.apply_action_with_legality_check(action)
        moves += len(state.history())
        wins += returns[seat] > 0
        undecided += all(r == 0 for r in returns)
    low, high = wilson_interval(wins, games)
    return {
        "game": spec,
        "mcts_simulations": simulations,
        "against": bot,
        "games": games,
        "mcts_wins": wins,
        "mcts_win_rate": round(wins / games, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "undecided": undecided,
        "actions_checked_legal": moves,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help='an OpenSpiel game string, e.g. "python_pig_out(preset=pig)"')
    parser.add_argument("bot", help="our bot in the other seat (piggy's bot names)")
    parser.add_argument("--games", type=int, default=20, help="games (default 20)")
    parser.add_argument(
        "--simulations", type=int, default=50, help="MCTS simulations per move (default 50)"
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    try:
        import referee.openspiel  # noqa: F401  (registers the games)

        if args.games < 1 or args.simulations < 1:
            raise InputError("--games and --simulations must be at least 1")
        result = measure(args.game, args.bot, args.games, args.simulations, args.seed)
    except (InputError, pyspiel.SpielError) as exc:
        print(f"openspiel_mcts: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{result['game']}: MCTS ({args.simulations} simulations a move) against {args.bot}, "
        f"{args.games} games: MCTS won {result['mcts_wins']} ({result['mcts_win_rate']:.0%}, "
        f"95 % interval {result['ci95'][0]:.0%}-{result['ci95'][1]:.0%}), "
        f"{result['undecided']} undecided; {result['actions_checked_legal']} actions, all "
        f"legal; {result['seconds']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
