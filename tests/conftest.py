"""Shared fixtures: the stock toy, and small boards made for a test."""

import pytest

from models.board import board_from_dict, load_board
from models.design import load_design

#: A small board for physics tests: 5 x 9 spaces, the tractor in a 3 x 3 hole,
#: one tall fence straight ahead of it at the r6c2/r7c2 line.
SMALL_BOARD = {
    "name": "small", "space_mm": 55.0, "rows": 9, "cols": 5,
    "holes": [[r, c] for r in (3, 4, 5) for c in (1, 2, 3)],
    "tractor": [137.5, 247.5], "fences": [[[6, 2], [7, 2]]], "fence_height_mm": 80.0,
    "checkpoints": [3, 6], "pit_left_rows": [6], "pit_right_rows": [2],
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
