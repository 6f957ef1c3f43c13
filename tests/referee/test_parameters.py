"""Game parameters: every parameter of every game is checked when the game is loaded,
and a bad one is a one-line InputError naming it, the value and what is allowed."""

import pytest

import referee
from models.errors import InputError
from referee.validate import parse_params

HUGE_DIGITS = "9" * 5000
#: The parameters that are true or false.
FLAGS = {("go_piggy_go", "checkpoints_stick"), ("pig_out", "cards")}


def refused(name, **params) -> str:
    with pytest.raises(InputError) as caught:
        referee.load_game(name, **params)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400, message
    return message


def every_parameter():
    return [
        (name, key)
        for name in sorted(referee.GAMES)
        for key in sorted(referee.GAMES[name].defaults)
    ]


@pytest.mark.parametrize(("name", "key"), every_parameter())
def test_every_parameter_refuses_values_of_the_wrong_kind(name, key):
    """No parameter takes an object, a list, a 40-digit number, text with a newline in
    it or text of thousands of digits; none but the true/false ones takes true."""
    bad = [{"a": 1}, [1, 2], 10**40, "1\n2", HUGE_DIGITS]
    if (name, key) not in FLAGS:
        bad.append(True)
    for value in bad:
        message = refused(name, **{key: value})
        assert f"'{key}'" in message, message


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("pig_out", {"max_turns": "x"}, "'max_turns' must be a whole number 1-1000000000, got 'x'"),
        ("pig_out", {"max_turns": 0}, "'max_turns' must be a whole number 1-1000000000, got 0"),
        (
            "go_piggy_go",
            {"max_turns": -1},
            "'max_turns' must be a whole number 1-1000000000, got -1",
        ),
        ("woolfy", {"max_turns": 2.5}, "'max_turns' must be a whole number"),
        ("by_golly", {"players": True}, "'players' must be a whole number 2-6, got true"),
        ("pig_out", {"target": "400"}, "'target' must be a whole number 1-100000"),
        (
            "go_piggy_go",
            {"hit_rule": "bounce"},
            "'hit_rule' must be one of touches-line, cleared, got 'bounce'",
        ),
        (
            "go_piggy_go",
            {"checkpoints_stick": "yes"},
            "'checkpoints_stick' must be true or false, got 'yes'",
        ),
        ("go_piggy_go", {"checkpoints_stick": 1}, "'checkpoints_stick' must be true or false"),
        ("go_piggy_go", {"die_faces": HUGE_DIGITS}, "'die_faces' must be a comma-separated list"),
        ("go_piggy_go", {"die_faces": "1,1,tractor"}, "'die_faces' must list distinct faces"),
        ("go_piggy_go", {"first_player": 3}, "'first_player' must be a seat 0-1, got 3"),
        ("go_piggy_go", {"board": ""}, "'board' must be text"),
        ("pig_out", {"first_player": "last"}, "'first_player' must be roll or a seat number"),
        ("pig_out", {"pig_faces": "7"}, "'pig_faces' must be a comma-separated list"),
        ("woolfy", {"brick_parts": -1}, "'brick_parts' must be a whole number 0-10, got -1"),
        ("woolfy", {"brick_capacity": 2}, "'brick_capacity' must be 3"),
        (
            "woolfy",
            {"same_piglet_exception": "never"},
            "'same_piglet_exception' must be one of sheet, pot-or-house",
        ),
        (
            "by_golly",
            {"optional_steps": "sometimes"},
            "'optional_steps' must be one of choice, compulsory",
        ),
    ],
)
def test_types_ranges_and_choices(name, params, expected):
    assert expected in refused(name, **params)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"straw_square": 0}, "'straw_square' puts square 0 where 'start_square' is"),
        ({"pot_exits": "0,16"}, "'pot_exits' puts square 0 where 'start_square' is"),
        ({"start_square": 4}, "'pot_exits' puts square 4 where 'start_square' is"),
        ({"stick_square": 7}, "'stick_square' puts square 7 where 'straw_square' is"),
        ({"pot_exits": "4,10"}, "'pot_exits' puts square 10 where 'brick_square' is"),
        ({"pot_exits": "4,4"}, "'pot_exits' = '4,4' must be distinct squares 0-23"),
        ({"wolf_squares": "2,5,5"}, "'wolf_squares' = '2,5,5' must be distinct squares"),
        ({"straw_square": 99}, "'straw_square' = 99 must be distinct squares 0-23"),
        (
            {"track_length": 12},
            "'wolf_squares' = '2,5,8,11,14,17,20,23' must be distinct squares 0-11",
        ),
        ({"wolf_start": 3}, "'wolf_start' = 3 must be one of the wolf squares"),
    ],
)
def test_woolfy_squares_must_fit_the_track_and_differ(params, expected):
    assert expected in refused("woolfy", **params)


def test_a_resolver_must_be_a_resolver():
    assert "'resolver' must be a shot resolver" in refused("go_piggy_go", resolver="x")


def test_unknown_parameters_are_named_with_the_allowed_ones():
    message = refused("by_golly", colour="red")
    assert message == (
        "by_golly: unknown parameter 'colour' (allowed: max_turns, optional_steps, players)"
    )
    assert "unknown parameter 'max\\nturns'" in refused("woolfy", **{"max\nturns": 5})


def test_unknown_games_are_named_safely():
    with pytest.raises(InputError, match="unknown game 'chess\\\\x1b\\[31m'"):
        referee.load_game("chess\x1b[31m")
    with pytest.raises(InputError, match="unknown game 7"):
        referee.load_game(7)


# --- --param name=value, as the command line gives them --------------------------------------
def test_param_values_parse_as_json_or_stay_text():
    assert parse_params(["target=50", "cards=false", "pig_faces=1,6", "first_player=roll"]) == {
        "target": 50,
        "cards": False,
        "pig_faces": "1,6",
        "first_player": "roll",
    }


@pytest.mark.parametrize(
    ("items", "name", "expected"),
    [
        (["max_turns=x"], "pig_out", "'max_turns' must be a whole number 1-1000000000, got 'x'"),
        (["max_turns=true"], "woolfy", "'max_turns' must be a whole number 1-1000000000, got true"),
        (["resolver=x"], "go_piggy_go", "'resolver' must be a shot resolver"),
        (["hit_rule=bounce"], "go_piggy_go", "'hit_rule' must be one of touches-line, cleared"),
    ],
)
def test_param_strings_are_checked_by_the_game(items, name, expected):
    options = parse_params(items)
    with pytest.raises(InputError, match=expected):
        referee.load_game(name, **options)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (f"die_faces={HUGE_DIGITS}", "--param die_faces='99999"),
        (f"die_faces={HUGE_DIGITS}", "a number of 5000 digits (at most 30)"),
        ("target=" + "[" * 100_000, "nested too deeply"),
        ("no equals sign", "must look like name=value"),
        ("a\nb=1", "must look like name=value"),
    ],
)
def test_malformed_param_items_are_one_line_errors(item, expected):
    with pytest.raises(InputError) as caught:
        parse_params([item])
    assert expected in str(caught.value) and "\n" not in str(caught.value)
