"""Shared fixtures: the stock toy, and small boards made for a test."""

import pytest

import referee
from models.board import board_from_dict, load_board
from models.design import load_design

#: A small board for physics tests: 5 x 9 spaces, the tractor in a 3 x 3 hole,
#: one tall fence straight ahead of it at the r6c2/r7c2 line.
SMALL_BOARD = {
    "name": "small",
    "space_mm": 55.0,
    "rows": 9,
    "cols": 5,
    "holes": [[r, c] for r in (3, 4, 5) for c in (1, 2, 3)],
    "tractor": [137.5, 247.5],
    "fences": [[[6, 2], [7, 2]]],
    "fence_height_mm": 80.0,
    "checkpoints": [3, 6],
    "pit_left_rows": [6],
    "pit_right_rows": [2],
}


@pytest.fixture(scope="session")
def board():
    return load_board("stock")


@pytest.fixture(scope="session")
def design():
    return load_design("stock")


@pytest.fixture(scope="session")
def small_board():
    return board_from_dict(dict(SMALL_BOARD), source="small test board")


@pytest.fixture(scope="session")
def open_small_board():
    """The small board without its fence."""
    return board_from_dict(dict(SMALL_BOARD, fences=[]), source="open test board")


#: 5 columns x 6 rows, no holes. A fence straight ahead of r2c2 (between r2c2 and
#: r3c2); r1c4's triangle points left. Checkpoints at rows 2 and 4; the right
#: side pit beside row 2, the left one beside row 4.
RULES_BOARD = """
name = "rules"
space_mm = 50.0
rows = 6
cols = 5
holes = []
tractor = [125.0, 150.0]
fences = [[[2, 2], [3, 2]]]
checkpoints = [2, 4]
pit_left_rows = [4]
pit_right_rows = [2]
[forward]
r1c4 = "left"
"""


@pytest.fixture(scope="session")
def rules_board_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("boards") / "rules.toml"
    path.write_text(RULES_BOARD)
    return str(path)


@pytest.fixture
def make_game(rules_board_path):
    def make(players=2, **params):
        return referee.load_game("go_piggy_go", players=players, board=rules_board_path, **params)

    return make


@pytest.fixture(autouse=True)
def _user_cache_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """Commands that cache in the user's cache folder (design compare and sweep without
    --cache) write under a temporary one, never the real one (platformdirs reads
    XDG_CACHE_HOME on Linux)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "user-cache"))
