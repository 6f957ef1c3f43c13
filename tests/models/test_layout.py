import json

import pytest

from models.board import load_board
from models.errors import InputError
from models.layout import ALL_PIGGIES, check_piggy, layout_from_dict, load_layout


def test_layout_round_trip(board):
    layout = layout_from_dict(
        {"stacks": {"r8c3": ["gold-2", "pink-1"], "r5c1": ["green-1"]}}, board=board
    )
    assert layout.space_of("pink-1") == (8, 3)
    assert layout.level_of("pink-1") == 1 and layout.level_of("gold-2") == 0
    assert layout.to_dict() == {
        "board": "stock",
        "stacks": {"r5c1": ["green-1"], "r8c3": ["gold-2", "pink-1"]},
    }


def test_twelve_piggies_in_four_colours():
    assert len(ALL_PIGGIES) == 12 and "blue-3" in ALL_PIGGIES
    with pytest.raises(InputError, match="unknown piggy 'purple-1'"):
        check_piggy("purple-1")
    with pytest.raises(InputError, match="unknown piggy 'gold-4'"):
        check_piggy("gold-4")


@pytest.mark.parametrize(
    ("stacks", "message"),
    [
        ({"r8c3": ["gold-1", "gold-2", "gold-3"]}, "at most 2 may stack"),
        ({"r8c3": ["gold-1"], "r9c3": ["gold-1"]}, "stands on two spaces"),
        ({"r5c3": ["gold-1"]}, "is a hole"),
        ({"r99c3": ["gold-1"]}, "off board"),
        ({"r8c3": ["wolf-1"]}, "unknown piggy"),
    ],
)
def test_bad_layouts_are_refused(board, stacks, message):
    with pytest.raises(InputError, match=message):
        layout_from_dict({"stacks": stacks}, board=board)


def test_layout_files(tmp_path, board):
    assert load_layout("empty", board=board).stacks == {}
    good = tmp_path / "layout.json"
    good.write_text(json.dumps({"board": "stock", "stacks": {"r1c1": ["blue-1"]}}))
    assert load_layout(good).piggies == ["blue-1"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_layout(bad)
    with pytest.raises(InputError, match="does not exist"):
        load_layout(tmp_path / "missing.json")


# --- the layout's own board key ------------------------------------------------------------
SMALL_TOML = """name = "small"
space_mm = 55.0
rows = 9
cols = 5
holes = [[3, 1], [3, 2], [3, 3], [4, 1], [4, 2], [4, 3], [5, 1], [5, 2], [5, 3]]
tractor = [137.5, 247.5]
fences = []
checkpoints = [3, 6]
pit_left_rows = [6]
pit_right_rows = [2]
"""


@pytest.fixture
def small_board_folder(tmp_path):
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "small.toml").write_text(SMALL_TOML)
    return tmp_path


def write_layout(folder, data) -> str:
    path = folder / "layout.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_layouts_board_key_is_used_when_no_board_is_given(small_board_folder):
    """A relative path is taken from the layout file's folder, not the current one."""
    path = write_layout(
        small_board_folder, {"board": "boards/small.toml", "stacks": {"r8c4": ["pink-1"]}}
    )
    layout = load_layout(path)
    assert layout.board.name == "small" and layout.board.rows == 9
    assert layout.space_of("pink-1") == (8, 4)
    # no board key and no board given: stock
    assert load_layout(write_layout(small_board_folder, {"stacks": {}})).board.name == "stock"


def test_the_same_board_given_twice_is_no_conflict(small_board_folder, board):
    path = write_layout(small_board_folder, {"board": "stock", "stacks": {"r8c4": ["pink-1"]}})
    assert load_layout(path, board=board).board == board
    small = load_board(small_board_folder / "boards" / "small.toml")
    path = write_layout(small_board_folder, {"board": "boards/small.toml", "stacks": {}})
    assert load_layout(path, board=small).board == small


def test_a_board_given_that_is_not_the_layouts_is_refused(small_board_folder, board):
    path = write_layout(
        small_board_folder, {"board": "boards/small.toml", "stacks": {"r8c4": ["pink-1"]}}
    )
    with pytest.raises(
        InputError,
        match=r"the layout is for board 'small', not for the board "
        r"given \('stock'\)",
    ):
        load_layout(path, board=board)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("nope", "'board': unknown board 'nope': known boards are stock"),
        ("boards/missing.toml", "'board': board file '.*missing.toml' does not exist"),
        (7, "'board': a board must be named by a string"),
        ("x" * 5000, "'board': board name or path 'x{10,}.* is too long"),
        ("stock\n", r"'board': unknown board 'stock\\n'"),
    ],
    ids=["unknown", "missing", "number", "long", "newline"],
)
def test_a_bad_board_key_is_refused_even_when_a_board_is_given(
    small_board_folder, board, key, message
):
    path = write_layout(small_board_folder, {"board": key, "stacks": {}})
    for given in (None, board):
        with pytest.raises(InputError, match=message) as excinfo:
            load_layout(path, board=given)
        assert "\n" not in str(excinfo.value)


def test_choose_board_for_a_command_line(small_board_folder, board):
    """What the command line does: --board if given, else the layout's key, else stock."""
    from models.layout import choose_board, layout_board

    data = {"board": "boards/small.toml", "stacks": {}}
    assert layout_board({"stacks": {}}) is None
    assert layout_board(data, base_dir=small_board_folder).name == "small"
    assert choose_board(data, None, base_dir=small_board_folder).name == "small"
    assert choose_board({"stacks": {}}, None) == board
    with pytest.raises(InputError, match="not for the board given"):
        choose_board(data, board, base_dir=small_board_folder)
