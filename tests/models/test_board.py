import numpy as np
import pytest

from models.board import board_from_dict, load_board, space_name
from models.errors import InputError
from tests.helpers import SMALL_BOARD


def test_stock_board_has_what_the_rules_need(board):
    assert board.name == "stock"
    assert (board.rows, board.cols, board.space_mm) == (11, 7, 55.0)
    assert len(board.fences) >= 6
    assert board.checkpoints == (3, 7)
    assert board.pit_left_rows and board.pit_right_rows
    # the tractor's hole is in the middle, and the pivot is the board frame's origin
    assert (5, 3) in board.holes and not board.is_space((5, 3))
    assert np.allclose(board.space_center_mm((5, 3)), [0.0, 0.0])


def test_board_frame_follows_design_md(board):
    """+y toward the trough (higher rows), +x toward the right (higher columns)."""
    assert board.space_center_mm((10, 3))[1] > 0 > board.space_center_mm((0, 3))[1]
    assert board.space_center_mm((0, 6))[0] > 0 > board.space_center_mm((0, 0))[0]
    assert board.space_at_mm(board.space_center_mm((8, 1))) == (8, 1)


def test_fence_segments_lie_on_the_shared_edge(board):
    centres = {
        f: (board.space_center_mm(a) + board.space_center_mm(b)) / 2
        for f in board.fences
        for a, b in [tuple(f)]
    }
    for a, b in board.fence_segments_mm():
        mid = (a + b) / 2
        assert any(np.allclose(mid, c) for c in centres.values())
        assert np.isclose(np.linalg.norm(b - a), board.space_mm)


def test_text_map_shows_piggies_holes_and_fences(board):
    text = board.text_map({"r8c3": ["gold-2", "pink-1"], "r2c1": ["green-1"]})
    assert "Y2/P1" in text and "G1" in text
    assert "#####" in text and "=======" in text and "|" in text
    assert "TROUGH" in text.splitlines()[0]


def test_parse_space_errors_name_the_problem(board):
    assert board.parse_space("r5c1") == (5, 1)
    with pytest.raises(InputError, match="not a space name"):
        board.parse_space("5,1")
    with pytest.raises(InputError, match="off board"):
        board.parse_space("r11c0")
    with pytest.raises(InputError, match="is a hole"):
        board.parse_space("r5c3")
    assert space_name((3, 4)) == "r3c4"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"fences": [[[0, 0], [2, 0]]]}, "not orthogonally adjacent"),
        ({"fences": [[[0, 0], [1, 1]]]}, "not orthogonally adjacent"),
        ({"holes": [[9, 0]]}, "'holes' has r9c0 outside the 9x5 grid"),
        ({"checkpoints": [6, 3]}, "'checkpoints' must be"),
        ({"space_mm": 5}, "'space_mm' = 5 is out of range"),
        ({"rows": "nine"}, "'rows' must be an integer"),
        ({"color": "red"}, "unknown key 'color'"),
        ({"forward": {"r0c0": "sideways"}}, "allowed directions are up, down, left, right"),
        ({"pit_left_rows": [12]}, "'pit_left_rows' has row 12"),
        ({"tractor": [9999, 0]}, "'tractor'"),
        ({"fences": [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]}, "listed twice"),
    ],
)
def test_bad_board_files_are_refused_with_the_key_named(change, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        board_from_dict(dict(SMALL_BOARD, **change))


def test_a_forward_space_off_the_grid_is_told_once():
    with pytest.raises(InputError) as refused:
        board_from_dict(dict(SMALL_BOARD, forward={"r9c0": "up"}))
    assert str(refused.value) == "board board: 'forward' has r9c0 outside the 9x5 grid"


def test_missing_key_is_named():
    data = dict(SMALL_BOARD)
    del data["fences"]
    with pytest.raises(InputError, match="missing key 'fences'"):
        board_from_dict(data)


def test_board_by_path_and_bad_files(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\nspace_mm = 50\nrows = 4\ncols = 3\nholes = []\n'
        "tractor = [75, 100]\nfences = []\ncheckpoints = [1, 2]\n"
        "pit_left_rows = [2]\npit_right_rows = [1]\n"
    )
    assert load_board(path).rows == 4
    (tmp_path / "broken.toml").write_text("name = [unclosed\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_board(tmp_path / "broken.toml")
    with pytest.raises(InputError, match="does not exist"):
        load_board(tmp_path / "nothing.toml")
    with pytest.raises(InputError, match="unknown board 'nope': known boards are stock"):
        load_board("nope")
