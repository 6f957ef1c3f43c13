"""Our games inside OpenSpiel (referee.openspiel): OpenSpiel's own tests and bots on them,
the action encoding, By Golly!'s hidden cards, and the cross-check against OpenSpiel's Pig."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from models.errors import InputError  # noqa: E402
from referee.openspiel import RefereeBot, crosscheck  # noqa: E402  (registers the games)
from referee.pig_solver import evaluate_hold_at, first_player_win_probability, solve  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WITH_OUR_CODE = {**os.environ, "PYTHONPATH": str(ROOT)}  # subprocesses import this checkout


def stock_hit_map(tmp_path, p_target=0.3):
    """A hit map file (CSV) with every stock-board space in reach."""
    from models.board import load_board, space_name

    path = tmp_path / "hitmap.csv"
    rows = [f"{space_name(s)},True,{p_target}" for s in load_board("stock").spaces]
    path.write_text("space,reachable,p_target\n" + "\n".join(rows) + "\n")
    return path


# --- OpenSpiel's random-simulation test: legal moves, clones, serialization, chance --------------
SIMULATED = [
    ("python_go_piggy_go", 3),
    pytest.param(  # four players' 300 turns: over a second
        "python_go_piggy_go(players=4,shots=scripted:0.8,max_turns=300)", 2, marks=pytest.mark.slow
    ),
    ("python_go_piggy_go(players=3,die_faces=1;3;tractor,checkpoints_stick=False)", 1),
    ("python_pig_out", 2),
    ("python_pig_out(preset=pig)", 3),
    ("python_pig_out(players=3,deck=infinite,first_player=1)", 1),
    ("python_pig_out(preset=pig,target=60,first_player=-2,horizon=40)", 3),  # the cap ends some
    ("python_woolfy", 3),
    ("python_woolfy(players=1,pot_exits=4;)", 2),
    ("python_woolfy(players=4,max_turns=25)", 2),
    ("python_by_golly(max_turns=60)", 1),
    ("python_by_golly(players=4,max_turns=30)", 1),
]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "sims"), SIMULATED)
def test_openspiel_random_simulation_test_passes(spec, sims):
    """OpenSpiel's own checks: sorted legal moves, unique action strings, clones equal to
    the original, serialize/deserialize, observations' sizes, returns within bounds and
    zero-sum (or identical), no game longer than max_game_length."""
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.slow
def test_openspiel_random_simulation_test_on_a_whole_by_golly_game():
    pyspiel.random_sim_test(
        pyspiel.load_game("python_by_golly"), num_sims=1, serialize=True, verbose=False
    )


def test_table_shots_come_from_a_hit_map(tmp_path):
    game = pyspiel.load_game(f"python_go_piggy_go(shots=table:{stock_hit_map(tmp_path, 0.25)})")
    state = game.new_initial_state()
    for text, chance in (
        ("die 2", True),
        ("move green-1 r1c3", False),
        ("die tractor", True),
        ("fire green-1", False),
    ):
        state.apply_action(game.codec.encode(text, chance))
    shot = {state.action_to_string(-1, a): p for a, p in state.chance_outcomes()}
    assert shot == {"knock green-1": 0.25, "knock none": 0.75}
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_adapter_never_imports_pybullet():
    code = (
        "import sys, pyspiel, referee.openspiel\n"
        "for name in ('go_piggy_go', 'pig_out', 'woolfy', 'by_golly'):\n"
        "    pyspiel.load_game(f'python_{name}').new_initial_state()\n"
        "assert 'pybullet' not in sys.modules\n"
    )
    subprocess.run(
        [sys.executable, "-c", code], check=True, timeout=600, cwd=ROOT, env=WITH_OUR_CODE
    )


# --- the encoding --------------------------------------------------------------------------------
def random_states(spec, games, seed):
    """States of random games of ``spec``, through OpenSpiel's API."""
    game = pyspiel.load_game(spec)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield game, state
            if state.is_chance_node():
                ids, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(ids, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        yield game, state


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    [
        "python_go_piggy_go(players=3)",
        "python_pig_out",
        "python_woolfy(players=3)",
        "python_by_golly(max_turns=40)",
    ],
)
def test_every_action_has_one_number_and_round_trips(spec):
    """Numbers decode to our canonical strings, in range; our strings encode back; the
    same string has the same number in every state; chance probabilities sum to 1."""
    numbers = {}
    for game, state in random_states(spec, games=3, seed=5):
        ours = state.referee_state
        if state.is_terminal():
            assert state.legal_actions() == [] and ours.is_terminal()
            continue
        chance = state.is_chance_node()
        if chance:
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            ids, texts = [a for a, _ in outcomes], [o for o, _ in ours.chance_outcomes()]
            limit = game.max_chance_outcomes()
        else:
            ids, texts, limit = (
                state.legal_actions(),
                ours.legal_actions(),
                game.num_distinct_actions(),
            )
        assert ids == sorted(ids) and all(0 <= a < limit for a in ids)
        player = pyspiel.PlayerId.CHANCE if chance else state.current_player()
        decoded = [state.action_to_string(player, a) for a in ids]
        assert sorted(decoded) == sorted(texts)
        for number, text in zip(ids, decoded, strict=True):
            assert numbers.setdefault((chance, text), number) == number
            assert state.string_to_action(text) == number
    assert len(numbers) > 10


def test_the_documented_numbers():
    """docs/ecosystem.md's anchors: Pig's numbers are OpenSpiel's Pig's; each table
    opens as documented."""
    pig = pyspiel.load_game("python_pig_out(preset=pig)").codec
    assert pig.actions == ("roll", "hold")
    assert pig.outcomes == tuple(f"dice {face}" for face in range(1, 7))
    go = pyspiel.load_game("python_go_piggy_go").codec
    assert go.actions[:2] == ("pass", "move green-1 r0c0") and go.actions[-1] == "fire gold-3"
    assert go.outcomes[6:9] == ("knock none", "knock green-1", "knock green-2")
    assert len(go.outcomes) == 6 + 2**6
    golly = pyspiel.load_game("python_by_golly(players=3)").codec
    assert golly.actions[:2] == ("done", "play bunny") and golly.actions[-1] == "keep worm"
    assert "swap 17 18" in golly.actions
    assert golly.outcomes[-3:] == ("start 0", "start 1", "start 2")


def test_illegal_numbers_are_refused_and_change_nothing():
    game = pyspiel.load_game("python_go_piggy_go")
    state = game.new_initial_state()
    state.apply_action(game.codec.encode("die 2", True))
    with pytest.raises(InputError, match="not legal here"):
        state.apply_action(game.codec.encode("move green-1 r10c3", False))
    with pytest.raises(InputError, match="out of range"):
        state.apply_action(game.num_distinct_actions())
    assert state.history() == [1] and state.referee_state.history == ["die 2"]


def test_bad_parameters_name_the_problem():
    with pytest.raises(InputError, match="'players' must be 2, 3 or 4"):
        pyspiel.load_game("python_go_piggy_go(players=5)")
    with pytest.raises(InputError, match="physical shots need PyBullet"):
        pyspiel.load_game("python_go_piggy_go(shots=physics)")
    with pytest.raises(InputError, match="pig_faces"):
        pyspiel.load_game("python_pig_out(pig_faces=7)")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game("python_woolfy(colour=3)")


def test_parameters_reach_our_game_and_survive_the_game_string():
    game = pyspiel.load_game(
        "python_pig_out(preset=pig,target=50,pig_faces=16,cards=1,deck=infinite)"
    )
    ours = game.referee_game.params
    assert (ours["target"], ours["pig_faces"], ours["cards"], ours["dice"]) == (50, "1,6", True, 1)
    assert pyspiel.load_game(str(game)).referee_game.params == ours
    woolfy = pyspiel.load_game("python_woolfy(pot_exits=4;,wolf_squares=2;14)").referee_game
    assert woolfy.pot_exits == (4,) and woolfy.wolf_squares == (2, 14)


def play_on(state, moves):
    """``moves`` steps (or to the end): the first chance outcome, the last legal move."""
    for _ in range(moves):
        if state.is_terminal():
            return
        state.apply_action(
            state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[-1]
        )


def test_a_serialized_state_continues_the_same_game():
    game = pyspiel.load_game("python_woolfy(players=2)")
    state = game.new_initial_state()
    play_on(state, 40)
    _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert copy.history() == state.history() and str(copy) == str(state)
    assert copy.referee_state.to_json() == state.referee_state.to_json()
    play_on(state, 10_000)
    play_on(copy, 10_000)
    assert state.is_terminal() and copy.history() == state.history()
    assert copy.returns() == state.returns()


@pytest.mark.slow
def test_a_serialized_by_golly_state_loads_in_another_process(tmp_path):
    game = pyspiel.load_game("python_by_golly(players=3,max_turns=20)")
    state = game.new_initial_state()
    play_on(state, 90)
    (tmp_path / "state.txt").write_text(pyspiel.serialize_game_and_state(game, state))
    code = (
        "import pyspiel, referee.openspiel\n"
        "_, state = pyspiel.deserialize_game_and_state(open('state.txt').read())\n"
        "print(str(state) + state.information_state_string(1))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        timeout=600,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=WITH_OUR_CODE,
    )
    assert run.stdout.rstrip("\n") == str(state) + state.information_state_string(1)


# --- By Golly!'s hidden cards --------------------------------------------------------------------
SEAT_0 = ["bunny", "butterfly", "caterpillar", "chick", "drake"] * 3


def by_golly_after_setup(seat_1_cards, run_tail):
    """A two-player By Golly! state after the set-up: the same run but its last two
    cards, the same cards for seat 0, ``seat_1_cards`` for seat 1; seat 0 starts."""
    game = pyspiel.load_game("python_by_golly")
    state = game.new_initial_state()
    run = [
        "fox",
        "goose",
        "bunny",
        "poop",
        "shovel",
        "hen",
        "marten",
        "mouse",
        "raven",
        "rooster",
        "snail",
        "worm",
        "poop",
        "shovel",
        "butterfly",
        "caterpillar",
        "chick",
    ]
    for text in (
        [f"run {c}" for c in run + run_tail]
        + [f"deal {c}" for pair in zip(SEAT_0, seat_1_cards, strict=True) for c in pair]
        + ["start 0"]
    ):
        state.apply_action(game.codec.encode(text, True))
    return game, state


def views(state, player):
    return (
        state.observation_string(player),
        list(state.observation_tensor(player)),
        state.information_state_string(player),
    )


def test_by_golly_observations_do_not_show_other_players_cards():
    """Two tables that differ only in seat 1's cards and in two face-down run cards look
    the same to seat 0, while seat 0 plays and turns cards over; seat 1 sees the
    difference (its own cards)."""
    game, a = by_golly_after_setup(
        ["fox", "goose", "hen", "marten", "mouse"] * 3, ["drake", "hedgehog"]
    )
    _, b = by_golly_after_setup(
        ["raven", "rooster", "snail", "worm", "hedgehog"] * 3, ["hedgehog", "drake"]
    )
    for action in ("play bunny", "turn 2", "keep bunny", "play drake", "turn 0"):
        assert views(a, 0) == views(b, 0)
        assert views(a, 1) != views(b, 1)
        for state in (a, b):
            state.apply_action(game.codec.encode(action, False))
    assert views(a, 0) == views(b, 0)
    assert "fox" in a.observation_string(0)  # what seat 0 turned over, it saw


def by_golly_table(cards_by_seat, run_tail):
    """A By Golly! state after the set-up, ``cards_by_seat[s]`` dealt to seat s (its
    first five are the hand), the run as in :func:`by_golly_after_setup`; seat 0 starts."""
    game = pyspiel.load_game(f"python_by_golly(players={len(cards_by_seat)})")
    state = game.new_initial_state()
    run = [
        "fox",
        "goose",
        "bunny",
        "poop",
        "shovel",
        "hen",
        "marten",
        "mouse",
        "raven",
        "rooster",
        "snail",
        "worm",
        "poop",
        "shovel",
        "butterfly",
        "caterpillar",
        "chick",
    ]
    deals = [c for cards in zip(*cards_by_seat, strict=True) for c in cards]
    for text in [f"run {c}" for c in run + run_tail] + [f"deal {c}" for c in deals] + ["start 0"]:
        state.apply_action(game.codec.encode(text, True))
    return game, state


#: Seat 0's cards two ways: the same 15 cards, a second bunny in the hand or in the stack.
ONE_BUNNY = SEAT_0
TWO_BUNNIES = [
    "bunny",
    "bunny",
    "caterpillar",
    "chick",
    "drake",
    "butterfly",
    "butterfly",
    "caterpillar",
    "chick",
    "drake",
    "butterfly",
    "bunny",
    "caterpillar",
    "chick",
    "drake",
]


@pytest.mark.parametrize("players", [2, 3])
def test_by_golly_the_lucky_break_shows_no_other_player_the_hand(players):
    """A match on the bunny at position 2: whether the mover holds another bunny is
    hidden, so every other player's observation (string and tensor) and information
    state are the same both ways, in the lucky break and after "keep bunny"."""
    others = [
        ["fox", "goose", "hen", "marten", "mouse"] * 3,
        ["raven", "rooster", "snail", "worm", "hedgehog"] * 3,
    ][: players - 1]
    game, a = by_golly_table([ONE_BUNNY, *others], ["drake", "hedgehog"])
    _, b = by_golly_table([TWO_BUNNIES, *others], ["drake", "hedgehog"])
    assert sorted(ONE_BUNNY) == sorted(TWO_BUNNIES)
    for action in ("play bunny", "turn 2", "keep bunny", "play drake", "turn 0"):
        for seat in range(1, players):
            assert views(a, seat) == views(b, seat), (action, seat)
        assert views(a, 0) != views(b, 0)
        for state in (a, b):
            state.apply_action(game.codec.encode(action, False))
    for seat in range(1, players):
        assert views(a, seat) == views(b, seat)


def test_by_golly_public_observer_leaves_out_the_hand():
    from open_spiel.python.observation import make_observation

    game, state = by_golly_after_setup(
        ["fox", "goose", "hen", "marten", "mouse"] * 3, ["drake", "hedgehog"]
    )
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    public.set_from(state, 0)
    assert "hand" not in public.dict and "bunny" not in public.string_from(state, 0)
    assert "bunny" in state.observation_string(0)


# --- OpenSpiel's MCTS against our bots -----------------------------------------------------------
MCTS_MATCHES = [
    ("python_go_piggy_go(max_turns=60)", "greedy"),
    ("python_pig_out(preset=pig,target=30)", "hold-at-20"),
    ("python_by_golly(max_turns=30)", "memory"),
    ("python_woolfy(max_turns=30)", "careful"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "bot"), MCTS_MATCHES)
def test_openspiel_mcts_plays_our_games_against_our_bots(spec, bot):
    """Two games each (MCTS moving first, then second): they end, and every move was
    legal (the history replays with OpenSpiel's legality checks)."""
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = pyspiel.load_game(spec)
    for seat in (0, 1):
        rng = np.random.RandomState(seat)
        searcher = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
        bots = [searcher if i == seat else RefereeBot(game, bot, seed=i) for i in range(2)]
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, rng)
        assert state.is_terminal() and returns == state.returns()
        replay = game.new_initial_state()
        for action in state.history():
            replay.apply_action_with_legality_check(action)
        assert replay.is_terminal() and str(replay) == str(state)


# --- the cross-check against OpenSpiel's Pig -----------------------------------------------------
def test_same_dice_give_the_same_pig_game_step_by_step():
    assert crosscheck.same_dice_games(25, seed=1) > 1000


def test_same_dice_comparison_notices_a_different_game(monkeypatch):
    """The step-by-step comparison can fail: against a Pig played to 90 it does."""
    monkeypatch.setattr(
        crosscheck, "openspiel_pig", lambda target=100: pyspiel.load_game("pig", {"winscore": 90})
    )
    with pytest.raises(AssertionError, match="differ"):
        crosscheck.same_dice_games(25, seed=1)


@pytest.mark.slow
def test_policy_evaluation_agrees_with_our_solver():
    game = crosscheck.our_pig(target=40)
    held, _, _ = evaluate_hold_at(game, 10)
    table = crosscheck.hold_at_table(40, 10)
    first, second = crosscheck.win_probability(game, table, table)
    assert first == pytest.approx(first_player_win_probability(held), abs=1e-8)
    assert second == pytest.approx(1 - first, abs=1e-8)
    win, roll, _ = solve(game)
    assert crosscheck.win_probability(game, roll, roll)[0] == pytest.approx(
        first_player_win_probability(win), abs=1e-8
    )


@pytest.mark.slow
def test_pig_win_rates_match_in_both_games_and_the_exact_figures():
    """1,500 games a row (docs/ecosystem.md has the 20,000-game figures): hold-at-20 vs
    hold-at-25 in OpenSpiel's Pig and in ours, and our optimal policy against hold-at-20
    in OpenSpiel's, each within 3 standard errors of the exact win probability."""
    result = crosscheck.report(games=1500, dice_games=10, seed=3)
    assert result["chance_outcomes"]["same"]
    assert len(result["rows"]) == 4 and result["agrees"], result["rows"]
