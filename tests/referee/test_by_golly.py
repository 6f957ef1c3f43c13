"""By Golly!: the rulebook's sentences and rulings 1-7."""

import json
from collections import Counter

import numpy as np
import pytest

import referee
from referee.bots import make_bot
from referee.by_golly_terms import ANIMALS
from referee.match import sample_chance

RUN = [
    "fox",
    "poop",
    "mouse",
    "shovel",
    "hen",
    "poop",
    "worm",
    "snail",
    "shovel",
    "raven",
    "goose",
    "drake",
    "bunny",
    "chick",
    "rooster",
    "butterfly",
    "caterpillar",
    "hedgehog",
    "marten",
]


#: A second player's hand (there are three cards of each animal).
RAVENS = ["raven", "raven", "raven", "rooster", "rooster"]


def table(hands, stacks, players=2, player=0, run=RUN, **params):
    """A By Golly! position after the deal, set up through the public JSON loader."""
    game = referee.load_game("by_golly", players=players, **params)
    data = json.loads(game.new_initial_state().to_json())
    data.update(run=list(run), hands=hands, stacks=stacks, phase="play", player=player)
    return game.state_from_json(json.dumps(data))


def play(state, *actions):
    for action in actions:
        state.apply_action(action)
    return state


@pytest.mark.parametrize(("players", "each"), [(2, 15), (3, 15), (4, 11), (5, 9), (6, 7)])
def test_the_deal_by_player_count(players, each):
    state = referee.load_game("by_golly", players=players).new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    view = state.observation(0)
    assert view["hand_sizes"] == [5] * players
    assert view["stack_sizes"] == [each - 5] * players
    data = json.loads(state.to_json())
    assert Counter(data["run"]) == Counter({**dict.fromkeys(ANIMALS, 1), "poop": 2, "shovel": 2})
    dealt = Counter(c for h, s in zip(data["hands"], data["stacks"], strict=True) for c in h + s)
    assert all(n <= 3 for n in dealt.values()) and sum(dealt.values()) == players * each


def test_a_match_discards_and_the_turn_goes_on():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["goose"], ["drake"]]),
        "play fox",
        "turn 0",
    )
    assert state.legal_actions() == ["keep fox"]  # the lucky break, with nothing to discard
    view = play(state, "keep fox").observation(0)
    assert "fox" not in view["hand"] and view["player"] == 0 and view["phase"] == "play"
    assert view["face_up"] == {0: "fox"}  # stays face up until the turn ends


def test_the_lucky_break_may_set_aside_every_matching_card():
    hands = [["fox", "fox", "fox", "worm", "snail"], RAVENS]
    state = play(table(hands, [["goose"], ["drake"]]), "play fox", "turn 0")
    assert state.legal_actions() == ["discard fox", "keep fox"]
    assert play(state.clone(), "discard fox").observation(0)["hand"] == ["snail", "worm"]
    kept = play(state, "keep fox").observation(0)
    assert kept["hand"] == ["fox", "fox", "snail", "worm"] and kept["phase"] == "play"


def test_the_lucky_break_is_offered_after_every_match_so_it_reveals_nothing():
    """Whether or not the hand holds another fox, the other player sees the same: the
    phase lucky, then the same table after "keep fox" (at a table keeping is silent)."""
    one = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["fox"], ["drake"]]),
        "play fox",
        "turn 0",
    )
    two = play(
        table([["fox", "fox", "hen", "worm", "snail"], RAVENS], [["mouse"], ["drake"]]),
        "play fox",
        "turn 0",
    )
    for action in (None, "keep fox"):
        if action:
            play(one, action)
            play(two, action)
        assert one.observation(1) == two.observation(1)
        assert one.observation(0)["phase"] == two.observation(0)["phase"]


def test_compulsory_steps_take_the_lucky_break_at_once():
    state = play(
        table(
            [["fox", "fox", "fox", "worm", "snail"], RAVENS],
            [["goose"], ["drake"]],
            optional_steps="compulsory",
        ),
        "play fox",
        "turn 0",
    )
    assert state.observation(0)["hand"] == ["snail", "worm"]
    assert "done" not in state.legal_actions()  # and the player must go on


def test_a_mismatch_ends_the_turn_and_the_card_comes_back():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["goose"], ["drake"]]),
        "play fox",
        "turn 2",
    )
    view = state.observation(0)
    assert sorted(view["hand"]) == ["fox", "hen", "mouse", "snail", "worm"]
    assert view["player"] == 1 and view["face_up"] == {}


def test_a_shovel_turned_over_directly_is_a_mismatch():
    state = play(
        table([["fox", "worm", "worm", "worm", "snail"], RAVENS], [[], []]), "play fox", "turn 3"
    )
    assert state.observation(0)["player"] == 1


def test_after_a_match_the_player_may_stop():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["goose"], ["drake"]]),
        "play fox",
        "turn 0",
        "keep fox",
    )
    assert state.legal_actions()[0] == "done"
    view = play(state, "done").observation(0)
    assert view["player"] == 1 and view["hand_sizes"][0] == 5  # refilled with the goose


def test_after_chicken_poop_turning_another_card_is_a_choice():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["goose"], ["drake", "chick"]]),
        "play fox",
        "turn 1",
    )
    assert state.legal_actions()[0] == "done"
    view = play(state, "done").observation(0)  # no shovel, no penalty, no swaps: turn over
    assert view["player"] == 1 and view["stack_sizes"] == [1, 2] and view["hand_sizes"][0] == 5
    compulsory = play(
        table(
            [["fox", "mouse", "hen", "worm", "snail"], RAVENS],
            [["goose"], ["drake", "chick"]],
            optional_steps="compulsory",
        ),
        "play fox",
        "turn 1",
    )
    assert "done" not in compulsory.legal_actions()


def test_poop_then_shovel_costs_nothing():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [["goose"], ["drake", "chick"]]),
        "play fox",
        "turn 1",
    )
    assert state.observation(0)["phase"] == "poop-turn"
    play(state, "turn 3")
    view = state.observation(0)
    assert view["phase"] == "swap" and len(view["hand"]) == 5 and view["stack_sizes"][1] == 2


def test_poop_then_animal_draws_two_from_other_stacks():
    state = play(
        table(
            [["fox", "mouse", "hen", "worm", "snail"], RAVENS],
            [["goose"], ["drake", "chick", "bunny"]],
        ),
        "play fox",
        "turn 1",
        "turn 2",
    )
    assert state.legal_actions() == ["draw 1"]  # never from one's own stack
    play(state, "draw 1", "draw 1")
    view = state.observation(0)
    assert sorted(view["hand"]) == ["chick", "drake", "fox", "hen", "mouse", "snail", "worm"]
    assert view["stack_sizes"] == [1, 1] and view["phase"] == "swap"


def test_poop_then_poop_draws_four_from_any_other_players():
    stacks = [["goose"], ["drake", "chick"], ["bunny", "mouse", "hen"]]
    state = play(
        table([["fox", "worm"], ["raven"], ["snail"]], stacks, players=3),
        "play fox",
        "turn 1",
        "turn 5",
    )
    assert state.observation(0)["draws_left"] == 4
    play(state, "draw 2", "draw 1", "draw 2", "draw 2")
    assert state.observation(0)["stack_sizes"] == [1, 1, 0]
    assert len(state.observation(0)["hand"]) == 6  # 2 + 4 drawn (played card back)


def test_penalty_draws_stop_when_the_other_stacks_are_empty():
    state = play(
        table([["fox", "worm"], ["raven"]], [[], ["drake"]]),
        "play fox",
        "turn 1",
        "turn 5",
        "draw 1",
    )
    assert state.observation(0)["phase"] == "swap"  # 1 card was all there was


def test_after_poop_face_up_cards_may_be_swapped():
    state = play(
        table([["fox", "mouse", "hen", "worm", "snail"], RAVENS], [[], []]),
        "play fox",
        "turn 0",
        "keep fox",
        "play mouse",
        "turn 1",
        "turn 3",
    )
    assert state.legal_actions() == ["done", "swap 0 1", "swap 0 3", "swap 1 3"]
    play(state, "swap 0 3")
    data = json.loads(state.to_json())
    assert data["run"][0] == "shovel" and data["run"][3] == "fox"
    play(state, "swap 1 3", "done")  # at most (face-up cards - 1) swaps
    assert state.observation(0)["player"] == 1


def test_end_of_turn_refills_the_hand_to_five_from_ones_own_stack():
    state = play(
        table([["fox", "mouse", "hen"], RAVENS], [["goose", "drake", "chick"], ["bunny"]]),
        "play fox",
        "turn 0",
        "keep fox",
        "play mouse",
        "turn 9",
    )
    view = state.observation(0)
    assert view["hand"] == ["chick", "drake", "goose", "hen", "mouse"]
    assert view["stack_sizes"][0] == 0 and view["face_up"] == {} and view["player"] == 1


def test_a_short_stack_refills_what_it_can():
    state = play(
        table([["fox", "mouse"], RAVENS], [["goose"], []]),
        "play fox",
        "turn 0",
        "keep fox",
        "play mouse",
        "turn 9",
    )
    assert state.observation(0)["hand_sizes"][0] == 2  # mouse back, goose drawn


def test_an_empty_hand_and_stack_wins_at_once():
    state = play(
        table([["fox", "fox"], RAVENS], [[], ["drake"]]), "play fox", "turn 0", "discard fox"
    )
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_an_empty_hand_with_cards_in_the_stack_ends_the_turn():
    state = play(table([["fox"], RAVENS], [["goose"], []]), "play fox", "turn 0")
    assert not state.is_terminal() and state.observation(0)["hand_sizes"][0] == 1


def test_observations_hide_hands_stacks_and_face_down_cards():
    state = table([["fox", "mouse"], ["raven", "hen"]], [["goose"], ["drake"]])
    view = state.observation(1)
    text = json.dumps(view)
    assert view["hand"] == ["hen", "raven"] and "fox" not in text and "goose" not in text
    play(state, "play fox", "turn 2")
    assert state.observation(1)["events"][0] == ["reveal", 2, "mouse"]  # seen by all
    assert "fox" not in json.dumps(state.observation(1)["face_up"])


def test_the_memory_bot_goes_where_it_saw_its_animal():
    state = play(
        table([["fox", "mouse"], RAVENS], [["goose"], ["drake"]], player=1), "play raven", "turn 2"
    )  # seat 1 reveals the mouse at 2, a miss
    bot = make_bot("memory", state.game, seed=0)
    view = state.observation(0)
    assert bot.choose(view, state.legal_actions()) == "play mouse"
    play(state, "play mouse")
    assert bot.choose(state.observation(0), state.legal_actions()) == "turn 2"


def test_the_memory_bot_takes_the_lucky_break_and_risks_no_penalty():
    bot = make_bot("memory", referee.load_game("by_golly"), seed=0)
    state = play(
        table([["fox", "fox", "mouse", "worm", "snail"], RAVENS], [["goose"], ["hen"]]),
        "play fox",
        "turn 0",
    )
    assert bot.choose(state.observation(0), state.legal_actions()) == "discard fox"
    play(state, "discard fox", "play mouse", "turn 1")  # chicken poop, no shovel seen yet
    assert bot.choose(state.observation(0), state.legal_actions()) == "done"
    play(state, "done", "play raven", "turn 3")  # seat 1 shows everyone a shovel at 3
    play(state, "play worm", "turn 5")  # the other poop
    assert bot.choose(state.observation(0), state.legal_actions()) == "turn 3"


def test_memory_beats_forgetting():
    from referee.match import tournament

    game = referee.load_game("by_golly", players=2)
    result = tournament(
        game, lambda n, s: make_bot(n, game, s), ["memory", "forgetful"], 60, seed=4
    )
    assert result.wins["memory"] > result.wins["forgetful"]
