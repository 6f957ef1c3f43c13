"""Whole-board checks (models/board_checks.py): deliberately bad boards are refused."""

import math
import tomllib

import numpy as np
import pytest

from models.board import board_from_dict, load_board
from models.board_checks import (
    MIN_CLEARANCE_MM,
    min_space_mm,
    piggy_extent_mm,
    spaces_cut_off_from_trough,
)
from models.errors import InputError
from models.meshes import load_parts
from tests.helpers import RULES_BOARD, SMALL_BOARD


def small(**change) -> dict:
    """The small test board (5 x 9 spaces of 55 mm, tractor in a 3 x 3 hole), changed."""
    return dict(SMALL_BOARD, **change)


def scaled(space_mm: float, **change) -> dict:
    """The small board with other spaces, its tractor still at the middle of its hole."""
    return small(space_mm=space_mm, tractor=[2.5 * space_mm, 4.5 * space_mm], **change)


def refused(data: dict) -> str:
    with pytest.raises(InputError) as excinfo:
        board_from_dict(data, source="bad.toml")
    text = str(excinfo.value)
    assert "\n" not in text and text.startswith("board bad.toml: ")
    return text


def test_the_shipped_and_test_boards_pass():
    assert load_board("stock").name == "stock"
    board_from_dict(small())
    board_from_dict(tomllib.loads(RULES_BOARD))


# --- spaces large enough for a piggy -------------------------------------------------
def test_piggy_reach_is_its_footprint_from_the_mesh():
    vertices = np.vstack([p.vertices for p in load_parts("piggy").values()])
    assert piggy_extent_mm() == pytest.approx(np.abs(vertices[:, :2]).max(), abs=1e-3)


def test_spaces_too_small_for_a_piggy_are_refused_with_the_minimum():
    """40 mm spaces: a piggy at rest already lay 2.8 mm onto the outline."""
    message = refused(scaled(40.0))
    assert "spaces of 40 mm are too small for a piggy" in message
    assert f"'space_mm' must be at least {math.ceil(min_space_mm(2.0) * 10) / 10:g}" in message
    assert "line_mm = 2" in message
    # a wider line needs larger spaces, and the minimum itself is accepted
    board_from_dict(scaled(math.ceil(min_space_mm(2.0) * 10) / 10))
    refused(scaled(math.ceil(min_space_mm(2.0) * 10) / 10, line_mm=6.0))


@pytest.mark.parametrize("line_mm", [0.0, 2.0, 6.0])
def test_the_minimum_space_keeps_a_centred_piggy_in_under_the_hit_rule(line_mm):
    """Against the knocked-out test itself: at the minimum a piggy standing in the
    middle of its space is inside it, MIN_CLEARANCE_MM clear; 2 mm less and it
    would count as knocked out before any shot."""
    from sim.physics.knockout import verdict_on

    parts = [p.vertices for p in load_parts("piggy").values()]
    extent = (-1e4, 1e4, -1e4, 1e4)
    size = min_space_mm(line_mm)
    verdict = verdict_on(parts, (0.0, 0.0), size, line_mm, extent)
    assert not verdict.knocked
    assert verdict.line_starts_mm - verdict.extent_mm == pytest.approx(MIN_CLEARANCE_MM)
    for turned in (np.rot90(np.eye(3)[:2, :2]),):  # facing left or right
        rotation = np.eye(3)
        rotation[:2, :2] = turned
        assert not verdict_on(
            [v @ rotation.T for v in parts], (0.0, 0.0), size, line_mm, extent
        ).knocked
    assert verdict_on(parts, (0.0, 0.0), size - 2 * MIN_CLEARANCE_MM - 0.1, line_mm, extent).knocked


# --- the tractor ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tractor", "message"),
    [
        ([27.5, 27.5], "'tractor' [27.5, 27.5] stands on r0c0, which is a space"),
        ([250.0, 247.5], "stands on r4c4, which is a space"),
        ([0.0, 247.5], "is not inside the grid (0-275 x 0-495 mm)"),
        ([137.5, 495.0], "is not inside the grid"),
        ([-5.0, 100.0], "is not inside the grid"),
    ],
)
def test_the_tractor_must_stand_over_its_hole_inside_the_grid(tractor, message):
    assert message in refused(small(tractor=tractor))
    board_from_dict(small(tractor=[60.0, 170.0]))  # off centre, but over the hole


def test_a_pivot_on_a_corner_needs_a_hole_on_every_side():
    # (165, 220): the corner of r3c2, r3c3, r4c2, r4c3, all holes
    board_from_dict(small(tractor=[165.0, 220.0]))
    # (165, 165): the corner of holes r3c2, r3c3 and spaces r2c2, r2c3
    assert "stands on r2c2, which is a space" in refused(small(tractor=[165.0, 165.0]))


# --- the pits ----------------------------------------------------------------------------
def test_a_side_pit_beside_holes_only_is_refused():
    holes = [*SMALL_BOARD["holes"], [6, 0]]
    message = refused(small(holes=holes))
    assert (
        "'pit_left_rows' [6]: every cell beside the left side Mud Pit (r6c0) is a hole" in message
    )
    # another row beside the pit with a space is a way out
    board_from_dict(small(holes=holes, pit_left_rows=[6, 7]))
    assert "right side Mud Pit (r2c4)" in refused(small(holes=[*SMALL_BOARD["holes"], [2, 4]]))


def test_a_first_row_of_holes_is_refused():
    holes = [*SMALL_BOARD["holes"], *([0, c] for c in range(5))]
    assert "row 0 has no space" in refused(small(holes=holes))


# --- the way to the trough ---------------------------------------------------------------
def test_a_space_walled_in_by_fences_is_refused():
    """r7c0: a fence ahead and one beside it; the board's edge on the other side; the
    diagonal forward passes the corner the fence ahead touches."""
    fences = [*SMALL_BOARD["fences"], [[7, 0], [8, 0]], [[7, 0], [7, 1]]]
    message = refused(small(fences=fences))
    assert "no way leads from r7c0 to the trough" in message


def test_arrows_and_fences_can_wall_in_what_a_grid_search_would_call_open():
    """r7c4 points down and r6c4 up, each fenced on its left: they lead only to each
    other (and the column below, beside the tractor's hole, only to them), although
    r7c4 lies next to r8c4 in the last row."""
    fences = [*SMALL_BOARD["fences"], [[6, 3], [6, 4]], [[7, 3], [7, 4]]]
    data = small(fences=fences, forward={"r7c4": "down"})
    assert "no way leads from r3c4, r4c4, r5c4, r6c4, r7c4 to the trough" in refused(data)
    board_from_dict(small(fences=fences))  # without the arrow, r7c4 steps up


def test_many_cut_off_spaces_are_counted():
    """Fences ahead of r2c0 and r2c4, the hole ahead of r2c1-r2c3: rows 0-2 are shut in."""
    message = refused(small(fences=[[[2, 0], [3, 0]], [[2, 4], [3, 4]]]))
    assert "no way leads from r0c0, r0c1, r0c2, r0c3, r0c4 and 10 more to the trough" in message


@pytest.mark.parametrize("board_name", ["stock", "rules"])
def test_every_space_of_the_shipped_and_test_boards_reaches_the_trough(
    board_name, rules_board_path
):
    """The referee steps with the same rule (referee/board_steps.py calls forward_steps)."""
    board = load_board("stock" if board_name == "stock" else rules_board_path)
    assert spaces_cut_off_from_trough(board) == []


# --- other whole-board refusals ------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"holes": [*SMALL_BOARD["holes"], [3, 1]]}, "'holes' lists r3c1 twice"),
        ({"pit_left_rows": [6, 6]}, "'pit_left_rows' lists row 6 twice"),
        ({"name": "small\x1b[2J"}, "'name' small\\x1b[2J holds the control character \\x1b"),
        ({"name": "x" * 65}, "'name' is 65 characters long: at most 64"),
        ({"description": ["a"]}, "'description' must be a string"),
        ({"rows": True}, "'rows' must be an integer"),
        ({"space_mm": float("nan")}, "'space_mm' = nan is out of range"),
        ({"tractor": [float("inf"), 0.0]}, "'tractor' must be finite numbers"),
        ({"holes": [[10**80, 0]]}, "'holes' has r1000"),
        ({"forward": {"r0c0": ["up"]}}, "'forward.r0c0' = ['up']: allowed directions"),
    ],
)
def test_other_bad_values_are_refused(change, message):
    assert message in refused(small(**change))


def test_a_point_that_is_not_finite_is_on_no_space(board):
    assert board.space_at_mm((math.nan, 0.0)) is None
    assert board.space_at_mm((0.0, math.inf)) is None
