"""Pig-Out 2 and classic Pig: the rulebook's sentences, rulings 1-5, the published
figures for Pig."""

import pytest

import referee
from models.errors import InputError
from referee import pig_out, pig_solver
from referee.api import IllegalAction
from referee.bots import make_bot


def start(**params):
    """A two-player game, seat 0 to start (skipping the roll-off)."""
    state = referee.load_game("pig_out", first_player=0, **params).new_initial_state()
    assert state.is_chance_node()  # the first roll is compulsory
    return state


def act(state, *actions):
    for action in actions:
        state.apply_action(state.parse_action(action))
    return state


def test_pats_three_turns_from_the_rulebook():
    """75 points, then 163, then a King: still 163 (other players' turns between)."""
    state = start()
    act(state, "dice 3 4", "card 3", "roll", "dice 1 5", "card 9")
    assert state.observation(0)["turn_total"] == 75
    act(state, "hold")
    assert state.observation(0)["scores"] == [75, 0]
    act(state, "dice 1 2", "card 2", "hold")  # the other player
    act(state, "dice 1 2", "card 6", "roll", "dice 5 5", "card 7")
    assert state.observation(0)["turn_total"] == 88
    act(state, "hold")
    assert state.observation(0)["scores"][0] == 163
    act(state, "dice 3 3", "card 10", "hold")  # the other player
    act(state, "dice 2 5", "card 9", "roll", "dice 3 5", "card K")
    assert state.observation(0)["scores"][0] == 163 and state.observation(0)["player"] == 1


def test_a_six_pigs_out_before_any_card():
    state = act(start(), "dice 2 3", "card 4", "roll", "dice 1 6")
    assert state.observation(0)["turn_total"] == 0 and state.observation(0)["player"] == 1
    assert state.is_chance_node() and all(o.startswith("dice") for o, _ in state.chance_outcomes())
    act(state, "dice 6 6")  # both dice sixes: the same
    assert state.observation(0)["player"] == 0


@pytest.mark.parametrize("card", ["A", "K", "Q", "J"])
def test_a_face_card_pigs_out(card):
    state = act(start(), "dice 2 3", "card 4", "roll", "dice 2 2", f"card {card}")
    assert state.observation(0)["scores"] == [0, 0] and state.observation(0)["player"] == 1


def test_number_cards_multiply_the_roll_not_the_turn():
    state = act(start(), "dice 2 3", "card 10", "roll", "dice 1 1", "card 2")
    assert state.observation(0)["turn_total"] == 5 * 10 + 2 * 2


def test_banking_never_loses_points():
    state = act(start(), "dice 4 5", "card 10", "hold", "dice 1 1", "card 2", "hold")
    act(state, "dice 1 2", "card 3", "roll", "dice 2 6")  # pigged out
    assert state.observation(0)["scores"] == [90, 4]


def test_reaching_the_target_when_holding_wins_at_once():
    state = start(target=50)
    act(state, "dice 4 5", "card 5", "roll", "dice 1 1", "card 3")
    assert not state.is_terminal()  # 51 spots, not yet held
    act(state, "hold")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    with pytest.raises(IllegalAction):
        state.apply_action("roll")


def test_rolloff_highest_total_starts_and_tied_leaders_roll_again():
    state = referee.load_game("pig_out", players=3).new_initial_state()
    act(state, "dice 4 5", "dice 3 6", "dice 1 2")  # seats 0 and 1 tie on 9
    assert state.is_chance_node() and state.observation(0)["rollers"] == [0, 1]
    act(state, "dice 1 1", "dice 2 3")
    assert state.observation(0)["player"] == 1 and state.observation(0)["phase"] == "roll"


def test_play_passes_to_the_left_in_seat_order():
    state = referee.load_game("pig_out", players=3, first_player=2).new_initial_state()
    act(state, "dice 6 6")
    assert state.observation(0)["player"] == 0


def test_physical_deck_runs_out_and_is_reshuffled():
    """Each draw comes from what is left (probability = cards left of that rank /
    cards left); after 52 draws the discards are shuffled back."""
    state = start(target=100_000)
    for drawn in range(52):
        while state.observation(0)["phase"] != "card":
            act(state, "roll" if state.current_player() >= 0 else "dice 1 1")
        deck = state.observation(0)["deck"]
        outcomes = dict(state.chance_outcomes())
        assert outcomes == pytest.approx(
            {f"card {r}": n / (52 - drawn) for r, n in deck.items() if n}
        )
        act(state, next(iter(outcomes)))
    assert state.observation(0)["deck"] == dict.fromkeys(pig_out.RANKS, 4)


def test_infinite_deck_draws_from_a_full_deck_every_time():
    state = act(start(deck="infinite"), "dice 1 1")
    assert dict(state.chance_outcomes())["card K"] == pytest.approx(1 / 13)


def test_classic_pig_preset():
    game = referee.load_game("pig_out", preset="pig")
    assert (
        game.params["dice"],
        game.params["pig_faces"],
        game.params["cards"],
        game.params["target"],
    ) == (1, "1", False, 100)
    state = game.new_initial_state()
    assert dict(state.chance_outcomes()) == pytest.approx({f"dice {f}": 1 / 6 for f in range(1, 7)})
    act(state, "dice 5", "roll", "dice 1")
    assert state.observation(0)["player"] == 1 and state.observation(0)["scores"] == [0, 0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"preset": "poker"}, "'preset' must be one of pig-out-2, pig, got 'poker'"),
        ({"deck": "tarot"}, "one of physical, infinite"),
        ({"pig_faces": "1,2,3,4,5,6"}, "must leave a face that scores"),
        ({"players": 1}, "2-12"),
        ({"first_player": 5}, "roll or a seat"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(InputError, match=message):
        referee.load_game("pig_out", **params)


@pytest.mark.slow
def test_published_optimal_pig_figure():
    """Neller & Presser (2004): optimal vs optimal, the first player wins 0.5306."""
    win, roll, _ = pig_solver.solve(referee.load_game("pig_out", preset="pig"))
    assert round(pig_solver.first_player_win_probability(win), 4) == 0.5306
    assert not roll[0, 0, 30] and roll[0, 0, 10]  # holds at 30 spots, rolls at 10


@pytest.mark.slow
def test_published_hold_at_20_figure():
    win, _, _ = pig_solver.evaluate_hold_at(referee.load_game("pig_out", preset="pig"), 20)
    assert round(pig_solver.first_player_win_probability(win), 4) == 0.5347


def test_the_solver_refuses_what_it_cannot_solve():
    with pytest.raises(InputError, match="infinite deck"):
        pig_solver.solve(referee.load_game("pig_out"))
    with pytest.raises(InputError, match="two players"):
        pig_solver.solve(referee.load_game("pig_out", preset="pig", players=3))


@pytest.mark.slow
def test_optimal_beats_hold_at_20_over_many_games():
    from referee.match import tournament

    game = referee.load_game("pig_out", preset="pig")
    result = tournament(
        game, lambda n, s: make_bot(n, game, s), ["optimal", "hold-at-20"], 600, seed=3
    )
    assert result.wins["optimal"] / 600 > 0.52
