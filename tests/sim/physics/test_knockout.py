"""Ruling 7 of docs/rules/go-piggy-go.md on poses made by hand: no physics involved."""

import math

import numpy as np
import pytest

from models.errors import InputError
from models.meshes import load_parts
from sim.physics.knockout import FELL_OFF_DEPTH_MM, FURTHER_MM, transform, verdict_on

PARTS = [m.vertices for m in load_parts("piggy").values()]


def posed(board, space, shift=(0.0, 0.0, 0.0), yaw_deg=0.0, roll_deg=0.0):
    """The piggy's parts standing on ``space``, moved by ``shift`` mm and turned."""
    cy, sy = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    cr, sr = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
    yaw = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    roll = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    position = np.append(board.space_center_mm(space), 0.0) + np.asarray(shift)
    return [transform(v, position, yaw @ roll) for v in PARTS]


def verdict(board, parts, rule="touches-line", space=(8, 1)):
    return verdict_on(
        parts,
        board.space_center_mm(space),
        board.space_mm,
        board.line_mm,
        board.surface_extent_mm,
        rule,
    )


@pytest.mark.parametrize("rule", ["touches-line", "cleared"])
def test_standing_in_its_space_is_not_knocked(board, rule):
    assert not verdict(board, posed(board, (8, 1)), rule).knocked


@pytest.mark.parametrize("rule", ["touches-line", "cleared"])
def test_jostled_inside_its_space_is_not_knocked(board, rule):
    v = verdict(board, posed(board, (8, 1), shift=(2.0, 2.0, 0.0), yaw_deg=5.0), rule)
    assert not v.knocked and v.extent_mm < v.line_starts_mm


def test_touching_the_line_knocks_out_under_the_sheets_rule_only(board):
    # the snout end reaches 21.75 mm from the centre; the line starts at 26.5 mm
    parts = posed(board, (8, 1), shift=(0.0, 5.0, 0.0))
    touches = verdict(board, parts, "touches-line")
    assert touches.knocked and "touches the outline" in touches.reason
    assert not verdict(board, parts, "cleared").knocked


def test_just_short_of_the_line_is_not_knocked(board):
    assert not verdict(board, posed(board, (8, 1), shift=(0.0, 4.6, 0.0))).knocked


def test_crossing_the_line_but_partly_over_the_space(board):
    parts = posed(board, (8, 1), shift=(30.0, 0.0, 0.0))
    assert verdict(board, parts, "touches-line").knocked
    cleared = verdict(board, parts, "cleared")
    assert not cleared.knocked and "still" in cleared.reason


@pytest.mark.parametrize("rule", ["touches-line", "cleared"])
def test_wholly_outside_its_space_is_knocked(board, rule):
    # 27.5 mm to the edge plus 11.5 mm half width, sideways
    parts = posed(board, (8, 1), shift=(39.5, 0.0, 0.0))
    v = verdict(board, parts, rule)
    assert v.knocked


def test_tipped_onto_its_side_in_the_middle_counts_as_inside(board):
    on_side = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # 90 deg about y
    centre = np.append(board.space_center_mm((8, 1)), 11.5)
    parts = [transform(v, centre + np.array([-17.5, 0.0, 0.0]), on_side) for v in PARTS]
    v = verdict(board, parts)
    assert not v.knocked and v.extent_mm < v.line_starts_mm


@pytest.mark.parametrize("rule", ["touches-line", "cleared"])
def test_fallen_off_the_board_is_knocked(board, rule):
    x_max = board.surface_extent_mm[1]
    off = posed(board, (8, 6), shift=(x_max - board.space_center_mm((8, 6))[0] + 30, 0, -6))
    v = verdict(board, off, rule, space=(8, 6))
    assert v.knocked and v.reason == "fell off the board"


def test_unknown_hit_rule_is_refused(board):
    with pytest.raises(InputError, match="unknown hit rule 'nearby'"):
        verdict(board, posed(board, (8, 1)), "nearby")


# --- judged against where the piggy stood before the shot (ruling 7: "moved out") -----------
#: A space too small for a piggy: standing square in its middle, the piggy's snout and
#: tail already reach 2.8 mm onto the outline (the models refuse such a board; the
#: test itself must still get it right).
SMALL_SPACE_MM = 40.0


def small_space_verdict(parts, start, rule="touches-line"):
    return verdict_on(
        parts, (0.0, 0.0), SMALL_SPACE_MM, 2.0, (-1e4, 1e4, -1e4, 1e4), rule, start_parts_mm=start
    )


def at_origin(shift=(0.0, 0.0, 0.0), yaw_deg=0.0):
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    return [
        transform(v, np.asarray(shift, float), np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]))
        for v in PARTS
    ]


def test_a_piggy_nobody_moved_is_not_knocked_out_even_on_the_outline():
    standing = at_origin()
    alone = small_space_verdict(standing, None)
    assert alone.knocked and alone.extent_mm - alone.line_starts_mm == pytest.approx(2.8, abs=0.1)
    unmoved = small_space_verdict(standing, standing)
    assert not unmoved.knocked and "where it stood before the shot" in unmoved.reason
    jostled = small_space_verdict(at_origin(shift=(0.0, 0.3, 0.0)), standing)
    assert not jostled.knocked  # 0.3 mm further: within FURTHER_MM
    sideways = small_space_verdict(at_origin(shift=(3.0, 0.0, 0.0)), standing)
    assert not sideways.knocked  # pushed 3 mm, but no further over the line than before


def test_a_piggy_on_the_outline_is_knocked_out_when_pushed_further_past_it():
    standing = at_origin()
    pushed = small_space_verdict(at_origin(shift=(0.0, FURTHER_MM + 0.1, 0.0)), standing)
    assert pushed.knocked and "further past the outline" in pushed.reason
    turned = small_space_verdict(at_origin(yaw_deg=30.0), standing)
    assert not turned.knocked  # turned on the spot: its ends swing in from the line
    gone = small_space_verdict(at_origin(shift=(45.0, 0.0, 0.0)), standing, "cleared")
    assert gone.knocked and gone.reason == "wholly outside its space"


def test_a_piggy_that_stood_clear_is_knocked_out_when_it_touches_the_line(board):
    standing = posed(board, (8, 1))
    touching = verdict_on(
        posed(board, (8, 1), shift=(0.0, 5.0, 0.0)),
        board.space_center_mm((8, 1)),
        board.space_mm,
        board.line_mm,
        board.surface_extent_mm,
        start_parts_mm=standing,
    )
    assert touching.knocked and "touches the outline" in touching.reason


def test_more_than_a_millimetre_below_the_board_has_fallen_off_it(board):
    """The depth clause alone: the piggy's centre is over its space and, under the
    cleared rule, it is wholly over its space; only its depth decides."""
    sunk = verdict(
        board, posed(board, (8, 1), shift=(0.0, 0.0, -FELL_OFF_DEPTH_MM - 0.5)), "cleared"
    )
    assert sunk.knocked and sunk.reason == "fell off the board"
    grazing = verdict(
        board, posed(board, (8, 1), shift=(0.0, 0.0, -FELL_OFF_DEPTH_MM + 0.5)), "cleared"
    )
    assert not grazing.knocked


def test_a_piggy_on_one_side_pushed_onto_the_opposite_side_is_knocked_out():
    """Judged side by side: on the +y outline before the shot (reaching 2.8 mm onto it
    at both ends in a small space), pushed across onto a side it did not touch
    before, it is out, although it reaches no further past the outline than before."""
    standing = at_origin()
    across = small_space_verdict(at_origin(yaw_deg=90.0, shift=(0.0, 0.0, 0.0)), standing)
    before = small_space_verdict(standing, None)
    assert across.extent_mm <= before.extent_mm + FURTHER_MM  # no further, by one number
    assert across.knocked and "touches the outline of its space on its +x side" in across.reason


def test_a_piggy_on_one_side_pushed_across_its_space_is_knocked_out(board):
    """On a stock space: standing with its +y end on the outline, pushed so that its -y
    end reaches the opposite outline (no further past a line than before)."""
    centre = board.space_center_mm((8, 1))
    half_line = board.space_mm / 2 - board.line_mm / 2
    start = posed(board, (8, 1))
    length = max(float(np.max(np.abs(np.vstack(start)[:, 1] - centre[1]))), 1.0)
    on_plus = posed(board, (8, 1), shift=(0.0, half_line - length + 0.2, 0.0))
    on_minus = posed(board, (8, 1), shift=(0.0, -(half_line - length + 0.2), 0.0))
    v = verdict_on(
        on_minus,
        centre,
        board.space_mm,
        board.line_mm,
        board.surface_extent_mm,
        start_parts_mm=on_plus,
    )
    assert v.knocked and "-y side" in v.reason


# --- exact ties: on the line is on it ----------------------------------------------------------
def _box(x_low: float, x_high: float) -> list[np.ndarray]:
    """A block standing on the board, from ``x_low`` to ``x_high`` mm across and 10 mm
    either side of y = 0: its reach on +x exactly ``x_high`` (numbers exact in binary)."""
    corners = [(x, y, z) for x in (x_low, x_high) for y in (-10.0, 10.0) for z in (0.0, 10.0)]
    return [np.array(corners)]


def _tie_verdict(parts, rule="touches-line", before=None):
    """A 50 mm space at the origin, a 4 mm outline: the line starts 23 mm from the centre."""
    return verdict_on(parts, np.zeros(2), 50.0, 4.0, (-500.0, 500.0, -500.0, 500.0), rule, before)


def test_a_piggy_reaching_exactly_to_the_start_of_its_outline_touches_it():
    touching = _tie_verdict(_box(-10.0, 23.0))
    assert touching.knocked and touching.line_starts_mm == touching.extent_mm == 23.0
    assert (
        touching.reason
        == "touches the outline of its space on its +x side (0.0 mm onto or past the line)"
    )
    assert not _tie_verdict(_box(-10.0, 22.75)).knocked


def test_a_piggy_pushed_exactly_the_further_distance_past_its_outline_is_knocked_out():
    before = _box(-10.0, 24.0)
    pushed = _tie_verdict(_box(-10.0 + FURTHER_MM, 24.0 + FURTHER_MM), before=before)
    assert pushed.knocked and pushed.reason.startswith("pushed 0.5 mm further past the outline")
    assert not _tie_verdict(_box(-9.75, 24.25), before=before).knocked


def test_a_piggy_exactly_at_the_edge_of_its_space_has_cleared_it():
    """The space ends at 25 mm (its outline's centre): a block from 25 mm on is wholly
    outside it under the cleared rule; one 0.25 mm over is not."""
    assert _tie_verdict(_box(25.0, 40.0), "cleared").reason == "wholly outside its space"
    assert not _tie_verdict(_box(24.75, 40.0), "cleared").knocked
