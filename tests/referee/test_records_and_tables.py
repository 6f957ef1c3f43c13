"""Game records and hit-map tables from files: anything malformed is a one-line
InputError naming the file, the line or row, and the problem."""

import pytest

import referee
from models.errors import InputError
from referee import records
from referee.records import read_record, replay
from referee.shots import TableResolver, parse_shots

HEAD = '{"game": "pig_out", "params": {"preset": "pig"}}'


def record_error(tmp_path, text: str) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_record(path)
    message = str(caught.value)
    assert "\n" not in message and "game.jsonl" in message, message
    return message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"game": 5, "params": {}}\n', "line 1: 'game' must be a game's name, got 5"),
        ('{"game": ["pig_out"]}\n', "line 1: 'game' must be a game's name, got ['pig_out']"),
        (
            '{"game": "pig_out", "params": [1, 2]}\n',
            "line 1: 'params' must be an object of game parameters, got [1, 2]",
        ),
        ('{"game": "pig_out", "params": "target=50"}\n', "'params' must be an object"),
        ('["pig_out", {}]\n', 'line 1 must be {"game": <name>, "params": {...}}'),
        ('{"game": "pig_out", "parms": {}}\n', "line 1: unknown key 'parms'"),
        (HEAD + '\n"roll"\n\n"hold"\n7\n', "line 5 must be an action string, got 7"),
        (HEAD + '\n"roll"\n{"roll": 1}\n', "line 3 must be an action string, got {'roll': 1}"),
        (HEAD + '\n"roll"\nroll\n', "line 3: not valid JSON"),
        (HEAD + "\n" + "9" * 5000 + "\n", "line 2: an integer has 5000 digits"),
        (HEAD + "\n" + "[" * 100_000 + "\n", "line 2: nested more than"),
        ("\n\n", "is empty"),
    ],
)
def test_malformed_records_name_the_line(tmp_path, text, expected):
    assert expected in record_error(tmp_path, text)


def test_a_record_must_be_a_regular_file_of_modest_size(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="does not exist or is not a regular file"):
        read_record(tmp_path)
    with pytest.raises(InputError, match="is not a regular file"):
        read_record("/dev/zero")
    path = tmp_path / "big.jsonl"
    path.write_text(HEAD + "\n" + '"roll"\n' * 100)
    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 200)
    with pytest.raises(InputError, match="is over 0 MiB: not a game record"):
        read_record(path)


def test_a_record_with_bad_parameters_or_actions_fails_on_replay(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text('{"game": "pig_out", "params": {"max_turns": "x"}}\n')
    name, params, actions = read_record(path)
    with pytest.raises(InputError, match="'max_turns' must be a whole number"):
        list(replay(name, params, actions))
    path.write_text(HEAD + '\n"dice 3"\n"roll\\u001b[2J"\n')
    with pytest.raises(InputError, match=r"record action 2 \('roll\\x1b\[2J'\)") as caught:
        list(replay(*read_record(path)))
    assert "\x1b" not in str(caught.value)


# --- hit-map tables for the table shot resolver -----------------------------------------------
ROWS = [
    {"space": "r8c3", "reachable": True, "p_target": 0.4},
    {"space": "r9c1", "reachable": False, "p_target": None},
    {"space": "r9c3", "reachable": True, "p_target": 1},
]


def table_error(rows) -> str:
    with pytest.raises(InputError) as caught:
        TableResolver.from_rows(rows, source="hit map map.csv")
    message = str(caught.value)
    assert message.startswith("hit map map.csv: ") and "\n" not in message, message
    return message


def test_a_hit_map_table_gives_the_probabilities_of_the_spaces_in_reach():
    assert TableResolver.from_rows(ROWS, "t").probabilities == {"r8c3": 0.4, "r9c3": 1.0}
    no_reachable_column = [{"space": "r8c3", "p_target": 0.25}]
    assert TableResolver.from_rows(no_reachable_column, "t").probabilities == {"r8c3": 0.25}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"p_target": "x"}, "row 1: p_target 'x' is not a number in [0, 1]"),
        ({"p_target": 1.5}, "row 1: p_target 1.5 is not a number in [0, 1]"),
        ({"p_target": -0.1}, "p_target -0.1 is not a number in [0, 1]"),
        ({"p_target": float("nan")}, "p_target nan is not"),
        ({"p_target": True}, "p_target true is not"),
        ({"p_target": None}, "p_target null is not"),
        ({"reachable": "yes"}, "row 1: reachable 'yes' is not true or false"),
        ({"space": "r08c3"}, "row 1: 'r08c3' is not a space name like r8c3"),
        ({"space": "r8c3\n"}, "row 1: 'r8c3\\n' is not a space name"),
        ({"space": "r" + "9" * 5000 + "c3"}, "(5003 characters) is not a space name"),
        ({"space": "r9c3"}, "space r9c3 is listed twice (row 3)"),
    ],
)
def test_malformed_hit_map_tables_are_refused(change, expected):
    assert expected in table_error([{**ROWS[0], **change}, *ROWS[1:]])


def test_a_hit_map_table_needs_its_columns():
    assert "no 'space' column" in table_error([{"where": "r8c3", "p_target": 0.5}])
    assert "no 'p_target' column" in table_error([{"space": "r8c3", "p": 0.5}])
    assert "no space in reach" in table_error([])


def test_a_hit_map_of_another_board_is_refused_when_the_game_is_loaded():
    resolver = TableResolver({"r8c3": 0.5, "r40c2": 0.5}, "hit map big.csv")
    with pytest.raises(
        InputError,
        match=r"hit map big\.csv: r40c2 is off board 'stock' "
        r"\(rows 0-10, columns 0-6\): the hit map was made "
        "for another board",
    ):
        referee.load_game("go_piggy_go", resolver=resolver)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("physics", ("physics", None)),
        ("scripted", ("scripted", 0.5)),
        ("scripted:0.8", ("scripted", 0.8)),
        ("scripted: 1", ("scripted", 1.0)),
        ("scripted:", ("scripted", None)),  # names no P
        ("scripted:1.5", ("scripted", None)),
        ("scripted:nan", ("scripted", None)),
        ("scripted:٠.٥", ("scripted", None)),  # other scripts' digits
        ("table:hits.csv", ("table", "hits.csv")),
        ("table:", ("table", "")),  # the caller says what is missing
        ("table", None),
        ("physics:2", None),
        ("dice", None),
    ],
)
def test_one_grammar_names_a_resolver(text, named):
    """The command line's --shots and the OpenSpiel games' shots= read this grammar."""
    assert parse_shots(text) == named
