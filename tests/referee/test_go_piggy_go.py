"""Go Piggy Go!: one or more tests per rule sentence of the rulebook and per ruling,
on the small board of conftest.py (RULES_BOARD)."""

import pytest

import referee
from models.errors import InputError
from referee.api import CHANCE, IllegalAction
from referee.shots import ScriptedResolver
from tests.referee.positions import destinations, position

# --- the die, the order, the turn (rulings 1, 9) ---------------------------------------


def test_die_has_five_numbers_and_the_tractor(make_game):
    state = make_game().new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = dict(state.chance_outcomes())
    assert set(outcomes) == {"die 1", "die 2", "die 3", "die 4", "die 5", "die tractor"}
    assert all(p == pytest.approx(1 / 6) for p in outcomes.values())


def test_die_faces_is_a_parameter(make_game):
    state = make_game(die_faces="1,2,tractor").new_initial_state()
    assert [o for o, _ in state.chance_outcomes()] == ["die 1", "die 2", "die tractor"]


def test_seat_zero_first_then_seat_order(make_game):
    state = make_game(players=3).new_initial_state()
    for expected in (0, 1, 2, 0):
        state.apply_action("die 1")
        assert state.current_player() == expected
        state.apply_action("pass")


def test_first_player_is_a_parameter(make_game):
    state = make_game(players=3, first_player=2).new_initial_state()
    state.apply_action("die 4")
    assert state.current_player() == 2


def test_two_to_four_players(make_game):
    for n in (2, 3, 4):
        assert make_game(players=n).num_players == n
    with pytest.raises(InputError, match="'players' must be 2, 3 or 4, got 5"):
        make_game(players=5)


# --- moving (ruling 3) --------------------------------------------------------------------


def test_entering_from_the_start_pit_onto_the_first_row(make_game):
    state = position(make_game(), die="1")
    assert destinations(state, "green-1") == {f"r0c{c}" for c in range(5)}


def test_a_move_may_end_short_of_the_die(make_game):
    state = position(make_game(), die="3")
    reach = destinations(state, "green-1")
    assert {"r0c0", "r1c0", "r2c0"} <= reach and "r3c0" not in reach


def test_forward_sideways_and_diagonal_but_never_backward(make_game):
    state = position(make_game(), {"green-1": "r1c1"}, die="1")
    assert destinations(state, "green-1") == {"r2c1", "r1c0", "r1c2", "r2c0", "r2c2"}


def test_a_fence_straight_ahead_blocks_the_straight_step(make_game):
    state = position(make_game(), {"green-1": "r2c2"}, die="1")
    # up is fenced, and both diagonals pass a corner the fence touches (ruling 3)
    assert destinations(state, "green-1") == {"r2c1", "r2c3"}


def test_going_round_a_fence_takes_more_steps(make_game):
    state = position(make_game(), {"green-1": "r2c2"}, die="2")
    assert {"r3c1", "r3c3"} <= destinations(state, "green-1")
    assert "r3c2" not in destinations(state, "green-1")
    state = position(make_game(), {"green-1": "r2c2"}, die="3")
    assert "r3c2" in destinations(state, "green-1")  # sideways, up, sideways back


def test_a_diagonal_past_a_fence_corner_is_blocked(make_game):
    state = position(make_game(), {"green-1": "r2c1"}, die="1")
    assert destinations(state, "green-1") == {"r3c1", "r2c0", "r2c2", "r3c0"}


def test_diagonal_fences_parameter_allows_the_corner(make_game):
    state = position(make_game(diagonal_fences="allow"), {"green-1": "r2c2"}, die="1")
    assert destinations(state, "green-1") == {"r2c1", "r2c3", "r3c1", "r3c3"}


def test_hopping_over_piggies_but_not_ending_on_a_full_stack(make_game):
    stacks = {"r1c1": ["gold-1", "gold-2"], "r1c2": ["gold-3", "green-2"]}
    state = position(
        make_game(),
        {
            "green-1": "r0c2",
            "gold-1": "r1c1",
            "gold-2": "r1c1",
            "gold-3": "r1c2",
            "green-2": "r1c2",
        },
        die="2",
        stacks=stacks,
    )
    reach = destinations(state, "green-1")
    assert "r2c2" in reach and "r2c1" in reach  # over the stacks
    assert "r1c2" not in reach and "r1c1" not in reach  # never onto a stack of two


def test_directional_triangles_say_where_forward_is(make_game):
    state = position(make_game(), {"green-1": "r1c4"}, die="1")
    # r1c4's triangle points left: forward is left, so "down" (r0c4) is sideways
    assert destinations(state, "green-1") == {"r1c3", "r0c4", "r2c4", "r0c3", "r2c3"}


def test_the_trough_is_one_forward_step_from_the_last_row(make_game):
    game = make_game()
    assert "trough" in destinations(position(game, {"green-1": "r5c3"}, die="1"), "green-1")
    assert "trough" not in destinations(position(game, {"green-1": "r4c3"}, die="1"), "green-1")
    assert "trough" in destinations(position(game, {"green-1": "r4c3"}, die="2"), "green-1")


def test_a_piggy_in_the_trough_stays_there(make_game):
    state = position(make_game(), {"green-1": "trough"}, die="5")
    assert destinations(state, "green-1") == set()


def test_only_ones_own_piggies_move(make_game):
    state = position(make_game(), {"gold-1": "r1c1"}, die="1")
    assert not any("gold-" in a for a in state.legal_actions() if a.startswith("move"))


# --- stacking (ruling 4) -------------------------------------------------------------------


def test_landing_on_a_piggy_stacks_on_top(make_game):
    state = position(make_game(), {"green-1": "r0c1", "gold-1": "r1c1"}, die="1")
    state.apply_action("move green-1 r1c1")
    assert state.layout_stacks()["r1c1"] == ["gold-1", "green-1"]


def test_stacking_on_ones_own_piggy(make_game):
    state = position(make_game(), {"green-1": "r0c1", "green-2": "r1c1"}, die="1")
    assert "r1c1" in destinations(state, "green-1")


def test_the_top_piggy_moves_off_alone(make_game):
    state = position(
        make_game(),
        {"gold-1": "r1c1", "green-1": "r1c1"},
        die="1",
        stacks={"r1c1": ["gold-1", "green-1"]},
    )
    state.apply_action("move green-1 r2c1")
    assert state.layout_stacks() == {"r1c1": ["gold-1"], "r2c1": ["green-1"]}


def test_the_bottom_piggy_carries_the_top(make_game):
    state = position(
        make_game(),
        {"green-1": "r1c1", "gold-1": "r1c1"},
        die="1",
        stacks={"r1c1": ["green-1", "gold-1"]},
    )
    state.apply_action("move green-1 r2c1")
    assert state.layout_stacks() == {"r2c1": ["green-1", "gold-1"]}
    assert state.observation(0)["pieces"]["gold-1"] == "r2c1"


def test_a_carried_stack_cannot_land_on_a_third_piggy(make_game):
    state = position(
        make_game(),
        {"green-1": "r1c1", "gold-1": "r1c1", "gold-2": "r2c1"},
        die="1",
        stacks={"r1c1": ["green-1", "gold-1"]},
    )
    assert "r2c1" not in destinations(state, "green-1")
    assert "r2c0" in destinations(state, "green-1")


def test_the_bottom_carries_the_top_into_the_trough(make_game):
    state = position(
        make_game(),
        {"green-1": "r5c1", "gold-1": "r5c1"},
        die="1",
        stacks={"r5c1": ["green-1", "gold-1"]},
    )
    state.apply_action("move green-1 trough")
    pieces = state.observation(0)["pieces"]
    assert pieces["green-1"] == pieces["gold-1"] == "trough"


# --- passing (ruling 5) --------------------------------------------------------------------


def test_passing_is_always_legal(make_game):
    for die in ("1", "5", "tractor"):
        state = position(make_game(), {"green-1": "r3c3"}, die=die)
        assert "pass" in state.legal_actions()
    state = position(make_game(), die="2")
    state.apply_action("pass")
    assert state.current_player() == CHANCE and state.observation(0)["player"] == 1


# --- the tractor (ruling 6) ----------------------------------------------------------------


def test_tractor_face_moves_up_to_two_or_fires_at_any_piggy_on_the_board(make_game):
    state = position(
        make_game(), {"green-1": "r0c0", "gold-1": "r3c3", "gold-2": "trough"}, die="tractor"
    )
    legal = state.legal_actions()
    assert {"fire green-1", "fire gold-1"} <= set(legal)  # own piggies too
    assert not any(a.startswith("fire ") and a[5:] not in ("green-1", "gold-1") for a in legal)
    assert "r2c0" in destinations(state, "green-1") and "r3c0" not in destinations(state, "green-1")


def test_fire_is_offered_only_on_the_tractor_face(make_game):
    state = position(make_game(), {"gold-1": "r3c3"}, die="5")
    assert not any(a.startswith("fire") for a in state.legal_actions())


def test_no_fire_with_nobody_on_the_board(make_game):
    state = position(make_game(), {"gold-1": "trough"}, die="tractor")
    assert not any(a.startswith("fire") for a in state.legal_actions())
    assert "pass" in state.legal_actions() and destinations(state, "green-1")


def test_tractor_move_is_a_parameter(make_game):
    state = position(make_game(tractor_move=1), {"green-1": "r0c0"}, die="tractor")
    assert "r2c0" not in destinations(state, "green-1")


def test_a_shot_is_a_chance_node_of_knock_outcomes(make_game):
    state = position(make_game(), {"gold-1": "r1c3"}, die="tractor")
    state.apply_action("fire gold-1")
    assert state.is_chance_node()
    assert state.chance_outcomes() == [("knock gold-1", 0.5), ("knock none", 0.5)]
    state.apply_action("knock gold-1")
    assert state.observation(0)["pieces"]["gold-1"] == "pit"
    assert state.current_player() == CHANCE and state.observation(0)["player"] == 1


def test_any_piggies_on_the_board_may_be_knocked_out_by_ricochet(make_game):
    state = position(
        make_game(), {"gold-1": "r3c3", "green-1": "r1c1", "green-2": "trough"}, die="tractor"
    )
    state.apply_action("fire gold-1")
    assert state.parse_action("knock gold-1,green-1") == "knock gold-1,green-1"  # own too
    for bad in ("knock green-1,gold-1", "knock green-2", "knock gold-1,gold-1", "knock pink-1"):
        with pytest.raises(IllegalAction):
            state.parse_action(bad)


# --- knocked out, checkpoints and pits (rulings 7, 8) ---------------------------------------


def fire_and_knock(state, target, knocked):
    state.apply_action(f"fire {target}")
    state.apply_action("knock " + (",".join(sorted(knocked)) or "none"))
    return state.observation(0)


@pytest.mark.parametrize(
    ("row", "passed", "pit"), [(1, 0, "pit"), (3, 1, "pit-right"), (4, 2, "pit-left")]
)
def test_knocked_out_piggies_go_to_the_pit_their_checkpoints_say(make_game, row, passed, pit):
    state = position(make_game(), {"gold-1": f"r{row}c3"}, die="tractor", passed={"gold-1": passed})
    assert fire_and_knock(state, "gold-1", ["gold-1"])["pieces"]["gold-1"] == pit


def test_moving_past_a_checkpoint_is_remembered(make_game):
    state = position(make_game(), {"green-1": "r1c0"}, die="1")
    state.apply_action("move green-1 r2c0")
    assert state.observation(0)["passed_checkpoints"]["green-1"] == 1


def test_checkpoints_stick_is_a_parameter(make_game):
    for stick, pit in ((True, "pit-left"), (False, "pit")):
        state = position(
            make_game(checkpoints_stick=stick),
            {"gold-1": "r1c3"},
            die="tractor",
            passed={"gold-1": 2},
        )
        assert fire_and_knock(state, "gold-1", ["gold-1"])["pieces"]["gold-1"] == pit


def test_a_piggy_in_a_side_pit_re_enters_next_to_that_pit(make_game):
    game = make_game()
    assert destinations(position(game, {"green-1": "pit-right"}, die="1"), "green-1") == {"r2c4"}
    assert destinations(position(game, {"green-1": "pit-left"}, die="1"), "green-1") == {"r4c0"}


@pytest.mark.parametrize(
    ("knocked", "left"),
    [
        (["green-1"], {"r3c3": ["gold-1"]}),  # only the top goes back
        (["gold-1"], {"r3c3": ["green-1"]}),  # the top stays, alone (ruling 8)
        (["gold-1", "green-1"], {}),  # both go back
    ],
)
def test_stacked_piggies_are_knocked_out_one_by_one(make_game, knocked, left):
    state = position(
        make_game(),
        {"gold-1": "r3c3", "green-1": "r3c3"},
        die="tractor",
        stacks={"r3c3": ["gold-1", "green-1"]},
    )
    assert fire_and_knock(state, "gold-1", knocked)["stacks"] == left


# --- winning (ruling 9) --------------------------------------------------------------------


@pytest.mark.parametrize(("players", "returns"), [(2, [1.0, -1.0]), (3, [1.0, -0.5, -0.5])])
def test_three_in_the_trough_wins_and_play_stops(make_game, players, returns):
    state = position(
        make_game(players=players),
        {"green-1": "trough", "green-2": "trough", "green-3": "r5c0"},
        die="1",
    )
    state.apply_action("move green-3 trough")
    assert state.is_terminal() and state.returns() == returns
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    with pytest.raises(IllegalAction):
        state.apply_action("die 1")


def test_two_in_the_trough_is_not_yet_a_win(make_game):
    state = position(make_game(), {"green-1": "trough", "green-2": "trough"}, die="1")
    state.apply_action("pass")
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


def test_max_turns_ends_a_game_undecided(make_game):
    state = make_game(max_turns=3).new_initial_state()
    for _ in range(3):
        state.apply_action("die 1")
        state.apply_action("pass")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# --- actions and their strings ---------------------------------------------------------


def test_illegal_actions_name_the_problem_and_change_nothing(make_game):
    state = position(make_game(), {"green-1": "r1c1"}, die="1")
    before = state.to_json()
    with pytest.raises(IllegalAction, match="'move green-1 r0c1' is not legal here; legal: "):
        state.apply_action("move green-1 r0c1")
    with pytest.raises(IllegalAction, match="move green-1 r2c1"):
        state.parse_action("fly away")
    assert state.to_json() == before


def test_parse_action_normalises_spaces(make_game):
    state = position(make_game(), {"green-1": "r1c1"}, die="1")
    assert state.parse_action("  move   green-1  r2c1 ") == "move green-1 r2c1"


def test_unknown_parameters_and_games_are_refused(make_game):
    with pytest.raises(InputError, match="unknown parameter 'colour'"):
        make_game(colour="red")
    with pytest.raises(InputError, match="unknown game 'chess'"):
        referee.load_game("chess")


def test_scripted_resolver_plays_its_script(make_game):
    game = make_game(resolver=ScriptedResolver(script=[["gold-1"], []]))
    state = position(game, {"gold-1": "r3c3", "gold-2": "r3c1"}, die="tractor")
    state.apply_action("fire gold-2")
    assert state.chance_outcomes() == [("knock gold-1", 1.0)]  # a ricochet, as scripted


def test_carrying_a_rivals_last_piggy_in_the_mover_wins(make_game):
    pieces = {
        "green-1": "trough",
        "green-2": "trough",
        "green-3": "r5c1",
        "gold-1": "trough",
        "gold-2": "trough",
        "gold-3": "r5c1",
    }
    state = position(make_game(), pieces, die="1", stacks={"r5c1": ["green-3", "gold-3"]})
    state.apply_action("move green-3 trough")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_carrying_a_rivals_last_piggy_in_the_mover_wins_from_any_seat(make_game):
    """Seat 1 carries seat 0's last piggy into the trough: both colours are complete,
    and the mover, seat 1, wins (not the lower seat)."""
    pieces = {
        "green-1": "trough",
        "green-2": "trough",
        "green-3": "r5c1",
        "gold-1": "trough",
        "gold-2": "trough",
        "gold-3": "r5c1",
    }
    state = position(
        make_game(players=3), pieces, die="1", player=1, stacks={"r5c1": ["gold-3", "green-3"]}
    )
    state.apply_action("move gold-3 trough")
    assert state.is_terminal() and state.returns() == [-0.5, 1.0, -0.5]


def test_a_carried_piggy_passes_checkpoints_too(make_game):
    state = position(
        make_game(),
        {"green-1": "r1c1", "gold-1": "r1c1"},
        die="1",
        stacks={"r1c1": ["green-1", "gold-1"]},
    )
    state.apply_action("move green-1 r2c1")
    assert state.observation(0)["passed_checkpoints"]["gold-1"] == 1
