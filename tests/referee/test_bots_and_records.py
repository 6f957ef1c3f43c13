import json

import pytest

import referee
from models.errors import InputError
from models.stats import wilson_interval
from referee.bots import GoPiggyGoGreedyBot, make_bot
from referee.match import play, tournament
from referee.records import read_record, replay, write_record
from tests.referee.positions import position


def test_greedy_fires_at_the_leaders_most_advanced_piggy(make_game):
    # knocked out, gold-1 would lose 2 rows (r5c2 to the left pit, beside row 4), gold-2
    # one (r4c0, to the same pit); a move on the tractor face gains 1
    game = make_game(tractor_move=1)
    state = position(game, {"gold-1": "r5c2", "gold-2": "r4c0"}, die="tractor")
    bot = GoPiggyGoGreedyBot(game, seed=0)
    assert bot.choose(state.observation(0), state.legal_actions()) == "fire gold-1"


def test_greedy_moves_when_a_shot_is_worth_less(make_game):
    game = make_game()
    state = position(game, {"gold-1": "r0c2", "green-1": "r4c1"}, die="tractor")
    bot = GoPiggyGoGreedyBot(game, seed=0)
    choice = bot.choose(state.observation(0), state.legal_actions())
    assert choice.startswith("move green-1 ")


def test_greedy_takes_the_trough(make_game):
    game = make_game()
    state = position(game, {"green-1": "r5c3", "green-2": "r0c0"}, die="1")
    assert (
        make_bot("greedy", game).choose(state.observation(0), state.legal_actions())
        == "move green-1 trough"
    )


def test_greedy_stacks_on_a_rival_rather_than_beside_it(make_game):
    game = make_game()
    state = position(game, {"green-1": "r1c1", "gold-1": "r2c1"}, die="1")
    bot = make_bot("greedy", game, seed=3)
    assert bot.choose(state.observation(0), state.legal_actions()) == "move green-1 r2c1"


def test_greedy_beats_random_clearly():
    game = referee.load_game("go_piggy_go", players=2)
    result = tournament(game, lambda n, s: make_bot(n, game, s), ["greedy", "random"], 40, seed=1)
    lo, _ = wilson_interval(result.wins["greedy"], result.seats_played["greedy"])
    assert lo > 0.8


def test_bots_only_read_the_observation(make_game):
    """A bot given an observation dict alone (no state) still chooses."""
    game = make_game()
    state = position(game, {"green-1": "r1c1"}, die="2")
    observation = json.loads(json.dumps(state.observation(0)))
    for name in ("random", "greedy"):
        assert (
            make_bot(name, game, 1).choose(observation, state.legal_actions())
            in state.legal_actions()
        )


def test_unknown_bot_is_refused(make_game):
    with pytest.raises(InputError, match=r"unknown bot 'clever'.*greedy, random"):
        make_bot("clever", make_game())


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0


def test_a_record_replays_exactly(tmp_path):
    game = referee.load_game("go_piggy_go", players=3)
    final = play(game, [make_bot("random", game, i) for i in range(3)], seed=5)
    path = write_record(final, tmp_path / "game.jsonl")
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"game": "go_piggy_go", "params": game.params}
    assert all(isinstance(json.loads(line), str) for line in lines[1:])
    name, params, actions = read_record(path)
    *_, last = replay(name, params, actions)
    assert last.to_json() == final.to_json()


def test_bad_records_are_refused(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "go_piggy_go", "params": {}}\n"die 9"\n')
    name, params, actions = read_record(bad)
    with pytest.raises(InputError, match="record action 1 \\('die 9'\\)"):
        list(replay(name, params, actions))
    bad.write_text("not json\n")
    with pytest.raises(InputError, match="line 1"):
        read_record(bad)
    with pytest.raises(InputError, match="does not exist"):
        read_record(tmp_path / "missing.jsonl")


def test_a_cooperative_tournament_counts_each_game_once():
    """Woolfy's table wins or loses together: k won games of n are k of n, not
    k x seats of n x seats (which would narrow the interval)."""
    game = referee.load_game("woolfy", players=3)
    won = []
    result = tournament(
        game,
        lambda n, s: make_bot(n, game, s),
        ["careful"] * 3,
        15,
        seed=2,
        on_game=lambda i, state: won.append(state.returns()[0] > 0),
    )
    data = result.to_dict()
    assert data["cooperative"] and "win_rates" not in data
    assert data["team"]["wins"] == sum(won) and data["team"]["games"] == 15
    assert data["team"]["ci95"] == [round(v, 4) for v in wilson_interval(sum(won), 15)]
    assert 0 < sum(won) < 15  # a real test: some games won, some lost
