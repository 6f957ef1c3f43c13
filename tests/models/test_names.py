"""One name per space and per piggy: the strict grammar everywhere models/ parses them."""

import json

import pytest

from models.board import board_from_dict, parse_space_name
from models.errors import InputError
from models.layout import check_piggy, layout_from_dict, load_layout
from tests.helpers import SMALL_BOARD


@pytest.mark.parametrize(
    ("name", "space"),
    [("r0c0", (0, 0)), ("r8c3", (8, 3)), ("r10c6", (10, 6)), ("r999999c0", (999999, 0))],
)
def test_canonical_space_names_parse(name, space):
    assert parse_space_name(name) == space


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("r08c3", "r8c3"),
        ("r8c03", "r8c3"),
        ("r00c0", "r0c0"),
        ("R8C3", "r8c3"),
        (" r8c3", "r8c3"),
        ("r8c3\n", "r8c3"),
        ("r８c３", "r8c3"),
        ("r\u0668c3", "r8c3"),
    ],
)
def test_other_spellings_are_refused_with_the_canonical_form(name, canonical):
    with pytest.raises(InputError, match=f"not a space name as written: write {canonical} "):
        parse_space_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "r" + "9" * 5000 + "c3",
        "r1c" + "0" * 100_000 + "1",
        "r1234567c0",
        "5,1",
        "r5",
        "",
        "gold-1",
        53,
        None,
    ],
    ids=lambda name: repr(name)[:12],
)
def test_garbage_and_huge_numbers_are_refused_in_one_short_line(name):
    with pytest.raises(InputError, match="is not a space name") as exc:
        parse_space_name(name)
    assert "\n" not in str(exc.value) and len(str(exc.value)) < 250


def test_board_parse_space_is_as_strict_and_names_the_ranges(board):
    assert board.parse_space("r8c3") == (8, 3)
    with pytest.raises(InputError, match="write r8c3"):
        board.parse_space("r08c3")
    with pytest.raises(InputError, match=r"rows 0-10, columns 0-6"):
        board.parse_space("8,3")


def test_one_space_cannot_be_given_twice_in_a_layout(board):
    """r8c3 and r08c3 were one space, and only the last stack was kept."""
    with pytest.raises(InputError, match="write r8c3"):
        layout_from_dict({"stacks": {"r8c3": ["gold-1"], "r08c3": ["pink-1"]}}, board=board)


def test_one_space_cannot_be_given_twice_in_a_layout_file(tmp_path, board):
    path = tmp_path / "twice.json"
    path.write_text('{"stacks": {"r8c3": ["gold-1"], "r8c3": ["pink-1"]}}')
    with pytest.raises(InputError, match="key 'r8c3' appears twice in one object"):
        load_layout(path, board=board)


def test_board_forward_keys_are_as_strict():
    with pytest.raises(InputError, match="'forward': 'r01c0' is not a space name as written"):
        board_from_dict(dict(SMALL_BOARD, forward={"r01c0": "left"}))


@pytest.mark.parametrize(
    "name",
    [
        "gold-1\n",
        " gold-1",
        "gold-01",
        "GOLD-1",
        "gold-１",
        "gold-" + "1" * 5000,
        "gold-1\x1b[0m",
        7,
        None,
    ],
    ids=lambda name: repr(name)[:12],
)
def test_piggy_names_are_exact(name):
    with pytest.raises(InputError, match="unknown piggy") as excinfo:
        check_piggy(name)
    assert "\n" not in str(excinfo.value) and "\x1b" not in str(excinfo.value)


def test_a_piggy_cannot_stand_on_two_spaces_by_a_trailing_newline(tmp_path, board):
    """ "gold-1\\n" passed the old check, so one piggy stood on two spaces."""
    path = tmp_path / "newline.json"
    path.write_text(json.dumps({"stacks": {"r8c3": ["gold-1"], "r9c3": ["gold-1\n"]}}))
    with pytest.raises(InputError, match=r"stack on r9c3: unknown piggy 'gold-1\\n'"):
        load_layout(path, board=board)
