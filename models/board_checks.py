"""Whole-board checks, run by models.board.board_from_dict: what a board file must
satisfy beyond each key's own range for a game on it to make sense
(docs/formats.md, "Board file").

- A piggy standing in the middle of a space stays clear of its outline: else the
  rulebook's test ("touching the outside line") counts it knocked out before any
  shot (:func:`min_space_mm`).
- The tractor's pivot lies inside the grid, over a hole when the board has holes.
- The start Mud Pit and each side Mud Pit have a space beside them to re-enter
  the board from.
- From every space the trough can be reached under the movement rules of
  docs/rules/go-piggy-go.md, with the strictest reading of fences (ruling 3,
  ``diagonal_fences = "block"``): steps forward, sideways or diagonally forward
  (by the space's ``forward``), never across a fence, a diagonal never past a
  fence touching the corner it passes; the trough is one step from the last row.
  Fences and ``forward`` arrows can wall a space in, so a plain grid search would
  not do: this is the referee's own step rule, searched backward from the trough.

:func:`forward_steps` is that step rule, for anyone who needs it.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from models.errors import InputError
from models.grid import DIRECTIONS, Board, Space, space_name

#: The piggy's cached measurements (written by models/meshes.py, build_assets).
PIGGY_MASS_JSON = Path(__file__).parent / "assets" / "piggy_mass.json"

#: The least gap, mm, between a piggy standing in the middle of its space and the
#: space's outline: a dropped piggy settles a fraction of a millimetre off centre.
MIN_CLEARANCE_MM = 1.0


@lru_cache(maxsize=1)
def piggy_extent_mm() -> float:
    """How far a piggy standing in the middle of a space reaches from its centre
    toward the outline, mm: the larger of its half width and half length (piggies
    stand square to the grid, facing their space's forward direction)."""
    return float(max(json.loads(PIGGY_MASS_JSON.read_text())["footprint_half_mm"]))


def min_space_mm(line_mm: float) -> float:
    """The smallest ``space_mm`` whose piggies stand :data:`MIN_CLEARANCE_MM` clear
    of an outline ``line_mm`` wide (centred on the boundary), mm."""
    return 2 * (piggy_extent_mm() + MIN_CLEARANCE_MM) + line_mm


def forward_steps(
    board: Board, space: Space, diagonals_blocked_by_fences: bool = True
) -> tuple[Space, ...]:
    """The spaces one step from ``space`` may go to (docs/rules/go-piggy-go.md, "A
    turn"): forward, sideways or diagonally forward, never across a fence; with
    ``diagonals_blocked_by_fences`` (ruling 3, the default) a diagonal step is also
    blocked by a fence touching the corner it passes. Sorted."""
    fr, fc = DIRECTIONS[board.forward.get(space, "up")]
    sides = ((fc, fr), (-fc, -fr))
    out = []
    for dr, dc in ((fr, fc), *sides, *((fr + a, fc + b) for a, b in sides)):
        target = (space[0] + dr, space[1] + dc)
        if not board.is_space(target):
            continue
        if dr == 0 or dc == 0:
            if board.fence_between(space, target):
                continue
        elif diagonals_blocked_by_fences:
            a, b = (space[0] + dr, space[1]), (space[0], space[1] + dc)  # beside the corner
            if any(
                board.fence_between(x, y)
                for x, y in ((space, a), (space, b), (a, target), (b, target))
            ):
                continue
        out.append(target)
    return tuple(sorted(out))


def spaces_cut_off_from_trough(board: Board) -> list[Space]:
    """The spaces from which no sequence of steps (:func:`forward_steps`, fences
    blocking diagonals) reaches the trough, sorted."""
    leads_to: dict[Space, list[Space]] = {s: [] for s in board.spaces}
    for space in board.spaces:
        for target in forward_steps(board, space):
            leads_to[target].append(space)
    reaches = {s for s in board.spaces if s[0] == board.rows - 1}
    pending = list(reaches)
    while pending:
        for source in leads_to[pending.pop()]:
            if source not in reaches:
                reaches.add(source)
                pending.append(source)
    return sorted(set(board.spaces) - reaches)


def check_board(board: Board, where: str) -> None:
    """Raise :class:`InputError` (prefixed ``where``) for the first whole-board problem."""
    extent, line_starts = piggy_extent_mm(), board.space_mm / 2 - board.line_mm / 2
    if line_starts - extent < MIN_CLEARANCE_MM:
        raise InputError(
            f"{where}: spaces of {board.space_mm:g} mm are too small for a piggy: one standing "
            f"in the middle reaches {extent:g} mm from the centre and the outline begins "
            f"{line_starts:g} mm from it; with line_mm = {board.line_mm:g}, 'space_mm' must be "
            f"at least {math.ceil(min_space_mm(board.line_mm) * 10) / 10:g}"
        )

    x, y = board.tractor
    width, length = board.cols * board.space_mm, board.rows * board.space_mm
    if not (0 < x < width and 0 < y < length):
        raise InputError(
            f"{where}: 'tractor' [{x:g}, {y:g}] is not inside the grid "
            f"(0-{width:g} x 0-{length:g} mm)"
        )
    if board.holes:
        # every cell whose square holds the pivot (up to four, when it is on a corner)
        cols = {math.floor(x / board.space_mm), math.ceil(x / board.space_mm) - 1}
        rows = {math.floor(y / board.space_mm), math.ceil(y / board.space_mm) - 1}
        under = sorted((r, c) for r in rows for c in cols)
        spaces = [space_name(s) for s in under if s not in board.holes]
        if spaces:
            raise InputError(
                f"{where}: 'tractor' [{x:g}, {y:g}] stands on {spaces[0]}, "
                f"which is a space: the pivot must be over a hole"
            )

    if not any(board.is_space((0, c)) for c in range(board.cols)):
        raise InputError(f"{where}: row 0 has no space: nothing can leave the start Mud Pit")
    for key, col, side in (
        ("pit_left_rows", 0, "left"),
        ("pit_right_rows", board.cols - 1, "right"),
    ):
        rows = getattr(board, key)
        if not any(board.is_space((r, col)) for r in rows):
            raise InputError(
                f"{where}: '{key}' {list(rows)}: every cell beside the {side} side Mud Pit "
                f"({', '.join(space_name((r, col)) for r in rows)}) is a hole, so a piggy "
                f"sent there could never leave; put the pit beside a row with a space in "
                f"column {col}"
            )

    cut_off = spaces_cut_off_from_trough(board)
    if cut_off:
        names = ", ".join(space_name(s) for s in cut_off[:5])
        more = f" and {len(cut_off) - 5} more" if len(cut_off) > 5 else ""
        raise InputError(
            f"{where}: no way leads from {names}{more} to the trough (moves go "
            f"forward, sideways or diagonally forward, never across a fence; "
            f"check 'fences' and 'forward')"
        )
