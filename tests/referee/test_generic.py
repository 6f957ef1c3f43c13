"""The generic checks of referee.checks, applied to every registered game."""

import pytest

import referee
from models.errors import InputError
from referee.bots import bot_names, make_bot
from referee.checks import check_game
from referee.match import play

GAME_SETUPS = [
    (name, params)
    for name in sorted(referee.GAMES)
    for params in ({"players": 2}, {"players": 3}, {"players": 4})
] + [
    ("by_golly", {"players": 2, "optional_steps": "compulsory"}),
    ("woolfy", {"players": 2, "same_piglet_exception": "pot-or-house"}),
]


def long_games(name: str, params: dict) -> bool:
    """Whether 15 random games take over a second: By Golly!'s (5 to 10 s) and
    Go Piggy Go!'s with four players do."""
    return name == "by_golly" or (name == "go_piggy_go" and params["players"] == 4)


SETUP_CASES = [
    pytest.param(name, params, marks=[pytest.mark.slow] if long_games(name, params) else [])
    for name, params in GAME_SETUPS
]


@pytest.mark.parametrize(("name", "params"), SETUP_CASES)
def test_random_playthroughs_clones_json_and_records(name, params):
    """Random games end; every 7th state round-trips through JSON, offers sorted legal
    actions and chance probabilities summing to 1; records replay; clones are
    independent; an illegal action changes nothing; saved states corrupted on purpose
    are refused with one line; an action that fails changes nothing."""
    check_game(referee.load_game(name, **params), games=15, seed=11)


def usable_bots(game):
    """The game's bots that can play this configuration (pig_out's optimal bot needs
    two players)."""
    usable = []
    for name in bot_names(game.name):
        try:
            make_bot(name, game)
        except InputError:
            continue
        usable.append(name)
    return usable


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_hundreds_of_bot_games_end_with_one_winner(name):
    game = referee.load_game(name, players=4)
    bots = usable_bots(game)
    for seed in range(300):
        seats = [make_bot(bots[(seed + i) % len(bots)], game, seed * 10 + i) for i in range(4)]
        state = play(game, seats, seed=seed)
        returns = state.returns()
        assert state.is_terminal()
        if game.cooperative:  # everyone wins or everyone loses
            assert returns in ([1.0] * 4, [-1.0] * 4)
        else:
            assert sorted(returns)[-1] == 1.0 and sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_same_seed_same_game(name):
    game = referee.load_game(name, players=3)
    histories = []
    for _ in range(2):
        seats = [make_bot(b, game, i) for i, b in enumerate(["random"] * 3)]
        histories.append(play(game, seats, seed=42).history)
    assert histories[0] == histories[1]
    seats = [make_bot("random", game, i) for i in range(3)]
    assert play(game, seats, seed=43).history != histories[0]
