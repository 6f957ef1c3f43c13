"""Woolfy: the rule sheet's sentences and rulings 1-8 (stock positions: start 0, wolf
squares every 3rd from 2, wolf on 14, pot exits 4 and 16, straw house at 7 (1),
stick house at 19 (2), brick house at 10 (3))."""

import json

import pytest

import referee
from models.errors import InputError
from referee.woolfy import PIGLETS


def woolfy(piglets=None, players=2, params=None, **fields):
    """A Woolfy state set up through the public JSON loader."""
    game = referee.load_game("woolfy", players=players, **(params or {}))
    data = json.loads(game.new_initial_state().to_json())
    data["piglets"].update(piglets or {})
    data["left_start"] = [p for p in PIGLETS if data["piglets"][p] != 0]
    data.update(fields)
    return game.state_from_json(json.dumps(data))


def moves(state, piglet):
    return {a.split()[2] for a in state.legal_actions() if a.startswith(f"move {piglet} ")}


def rolled(state, piglet, face):
    state.apply_action(f"roll {piglet}")
    state.apply_action(f"die {face}")
    return state


def test_dice_have_1_2_3_wolf_wolf_house():
    state = rolled(woolfy(), "red", "1")
    fresh = woolfy()
    fresh.apply_action("roll red")
    assert dict(fresh.chance_outcomes()) == pytest.approx(
        {"die 1": 1 / 6, "die 2": 1 / 6, "die 3": 1 / 6, "die wolf": 1 / 3, "die house": 1 / 6}
    )
    assert state.current_player() == 0  # the roller now chooses where to go


def test_exactly_the_number_either_way():
    assert moves(rolled(woolfy({"red": 12}), "red", "3"), "red") == {"9", "15"}


def test_back_onto_the_start_square_until_all_three_have_left_it():
    """The sheet: "Once all 3 piglets have left the starting space, they may not return
    to it" — before that they may."""
    assert moves(rolled(woolfy({"red": 1}), "red", "1"), "red") == {"0", "2"}
    assert moves(rolled(woolfy({"red": 2, "yellow": 5}), "red", "2"), "red") == {"0", "4"}
    assert moves(rolled(woolfy({"red": 2, "yellow": 5, "blue": 8}), "red", "2"), "red") == {"4"}


def test_once_all_three_have_left_the_start_square_it_stays_closed():
    """A piglet that came back does not reopen it: what counts is having left."""
    state = woolfy({"red": 1, "yellow": 5}, left_start=["red", "yellow", "blue"])
    assert moves(rolled(state, "red", "1"), "red") == {"2"}
    state = woolfy({"red": 2, "yellow": 5})
    rolled(state, "red", "2").apply_action("move red 0")
    assert state.left_start == ["red", "yellow"]
    state = rolled(state, "blue", "1")
    state.apply_action("move blue 1")
    assert state.left_start == ["red", "yellow", "blue"] and state.start_closed()
    state = rolled(state, "red", "1")
    assert moves(state, "red") == {"1", "23"}


@pytest.mark.parametrize(
    ("piglets", "left_start"),
    [({"red": 3}, []), ({}, ["blue", "red"]), ({}, ["red", "red"]), ({}, ["green"])],
)
def test_a_saved_left_start_that_does_not_go_with_the_piglets_is_refused(piglets, left_start):
    with pytest.raises(InputError, match="left_start"):
        woolfy(piglets, left_start=left_start)


def test_entering_a_house_needs_the_exact_count():
    assert "straw" in moves(rolled(woolfy({"red": 5}), "red", "3"), "red")
    assert moves(rolled(woolfy({"red": 5}), "red", "2"), "red") == {"3", "7"}


def test_leaving_a_house_the_square_in_front_is_the_first_step():
    assert moves(rolled(woolfy({"red": "straw"}), "red", "1"), "red") == {"7"}
    assert moves(rolled(woolfy({"red": "straw"}), "red", "2"), "red") == {"6", "8"}


def test_the_straw_house_refuses_a_second_piglet():
    state = rolled(woolfy({"red": "straw", "yellow": 5}), "yellow", "3")
    assert "straw" not in moves(state, "yellow")


def test_the_stick_house_holds_two():
    assert "stick" in moves(rolled(woolfy({"red": "stick", "yellow": 17}), "yellow", "3"), "yellow")
    state = rolled(woolfy({"red": "stick", "blue": "stick", "yellow": 17}), "yellow", "3")
    assert "stick" not in moves(state, "yellow")


def test_the_brick_house_is_closed_until_built_by_four_landings():
    assert "brick" not in moves(rolled(woolfy({"red": 8}), "red", "3"), "red")
    for parts in range(4):  # 3 walls, then the roof
        state = rolled(woolfy({"red": 8}, brick_parts=parts), "red", "2")
        state.apply_action("move red 10")
        assert state.observation(0)["brick_parts"] == parts + 1
    built = woolfy({"red": 8}, brick_parts=4)
    assert "brick" in moves(rolled(built, "red", "3"), "red")


def test_the_house_face_puts_the_piglet_in_any_house_with_room_or_leaves_it():
    state = rolled(woolfy({"red": 12, "yellow": "straw"}), "red", "house")
    assert set(state.legal_actions()) == {"house red stick", "stay red"}
    state.apply_action("house red stick")
    assert state.observation(0)["piglets"]["red"] == "stick"
    built = rolled(woolfy({"red": 12}, brick_parts=4), "red", "house")
    assert "house red brick" in built.legal_actions()


def test_the_wolf_jumps_clockwise_and_pots_every_piglet_it_passes():
    state = woolfy({"red": 15, "yellow": 17, "blue": 18})
    rolled(state, "red", "wolf")
    view = state.observation(0)
    assert view["wolf"] == 17
    assert view["piglets"] == {"red": "pot", "yellow": "pot", "blue": 18}


def test_a_piglet_in_a_house_is_safe_from_the_wolf():
    state = woolfy({"red": "stick", "yellow": 19, "blue": 3}, wolf=17)
    rolled(state, "blue", "wolf")
    assert state.observation(0)["piglets"] == {"red": "stick", "yellow": "pot", "blue": 3}


def test_the_same_piglet_cannot_be_rolled_twice_in_a_row():
    state = rolled(woolfy({"red": 12, "yellow": 3, "blue": 21}), "red", "1")
    state.apply_action("move red 13")
    assert set(state.legal_actions()) == {"roll yellow", "roll blue"}


@pytest.mark.parametrize(
    "others", [{"yellow": "pot", "blue": "pot"}, {"yellow": "straw", "blue": "stick"}]
)
def test_unless_both_others_are_in_the_pot_or_in_houses(others):
    state = woolfy({"red": 12, **others}, last_die="red")
    assert "roll red" in state.legal_actions()


def test_one_in_the_pot_and_one_in_a_house_is_no_exception_on_the_sheet():
    """The sheet lists "both in the pot" and "both in houses"; the other reading, each
    in the pot or a house, is the parameter same_piglet_exception="pot-or-house"."""
    mixed = {"red": 12, "yellow": "pot", "blue": "straw"}
    assert woolfy(mixed, last_die="red").legal_actions() == ["roll blue"]
    either = woolfy(mixed, last_die="red", params={"same_piglet_exception": "pot-or-house"})
    assert either.legal_actions() == ["roll blue", "roll red"]


def test_landing_on_a_leave_the_pot_square_arms_a_rescue():
    state = rolled(woolfy({"red": 2, "yellow": "pot", "blue": 21}), "red", "2")
    state.apply_action("move red 4")
    assert state.legal_actions() == ["rescue yellow"]
    state.apply_action("rescue yellow")
    state.apply_action("die 2")
    assert moves(state, "yellow") == {"2", "6", "14", "18"}  # from 4 or 16, either way
    state.apply_action("move yellow 6")
    assert state.observation(0)["piglets"]["yellow"] == 6


def test_a_rescue_on_the_house_face_and_on_the_wolf_face():
    armed = {"red": 4, "yellow": "pot", "blue": 21}
    state = woolfy(armed, rescue_armed=True, last_die="red")
    state.apply_action("rescue yellow")
    state.apply_action("die house")
    assert set(state.legal_actions()) == {"house yellow straw", "house yellow stick"}
    state = woolfy(armed, rescue_armed=True, last_die="red", wolf=20)
    state.apply_action("rescue yellow")
    state.apply_action("die wolf")
    view = state.observation(0)
    assert view["piglets"]["yellow"] == "pot" and view["wolf"] == 23
    assert view["piglets"]["blue"] == "pot"  # on 21, in the wolf's path


def test_all_three_in_the_brick_house_everyone_wins():
    state = rolled(
        woolfy({"red": "brick", "yellow": "brick", "blue": 12}, brick_parts=4, players=3),
        "blue",
        "house",
    )
    state.apply_action("house blue brick")
    assert state.is_terminal() and state.returns() == [1.0, 1.0, 1.0]


def test_all_three_in_the_pot_everyone_loses():
    state = rolled(woolfy({"red": "pot", "yellow": "pot", "blue": 16}), "blue", "wolf")
    assert state.is_terminal() and state.returns() == [-1.0, -1.0]


def test_a_game_that_reaches_max_turns_is_lost():
    game = referee.load_game("woolfy", max_turns=2)
    state = game.new_initial_state()
    for piglet in ("red", "yellow"):
        state.apply_action(f"roll {piglet}")
        state.apply_action("die house")
        state.apply_action(f"stay {piglet}")
    assert state.is_terminal() and state.returns() == [-1.0, -1.0]


def test_positions_are_parameters():
    game = referee.load_game(
        "woolfy",
        track_length=12,
        wolf_squares="1,5,9",
        wolf_start=5,
        pot_exits="3",
        straw_square=2,
        stick_square=7,
        brick_square=10,
    )
    state = game.new_initial_state()
    state.apply_action("roll red")
    state.apply_action("die 3")
    assert {a.split()[2] for a in state.legal_actions()} == {"3", "9", "straw"}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"wolf_start": 3}, "one of the wolf squares"),
        ({"players": 0}, "1-6"),
        ({"pot_exits": "4,99"}, "squares 0-23"),
        ({"die_faces": "1,2,boar"}, "1-6, wolf, house"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(InputError, match=message):
        referee.load_game("woolfy", **params)


def test_careful_players_win_far_more_often_than_random_ones():
    from referee.bots import make_bot
    from referee.match import tournament

    game = referee.load_game("woolfy", players=2)
    rates = {}
    for bot in ("careful", "random"):
        result = tournament(game, lambda n, s: make_bot(n, game, s), [bot, bot], 80, seed=5)
        rates[bot] = result.team_wins / result.games  # cooperative: games won
    assert rates["careful"] > 0.15 > rates["random"]
