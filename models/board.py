"""Board files: reading one, key by key, into a checked :class:`~models.grid.Board`.

One file describes a board for both the referee and the physics (docs/formats.md,
"Board file"). Lengths are millimetres. The type, its spaces and their names are
in :mod:`models.grid` (imported here too, where most callers look for them); the
checks of a board as a whole in :mod:`models.board_checks`.
"""

from __future__ import annotations

import math
from pathlib import Path

from models.board_checks import check_board
from models.errors import InputError, check_label
from models.files import read_toml, resolve_named_file
from models.grid import (
    DIRECTIONS,
    OPTIONAL_MM,
    Board,
    Space,
    parse_space_name,
    space_name,
)
from models.text import shown

BOARDS_DIR = Path(__file__).parent / "boards"

#: Longest board name and description, characters.
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 500

# The allowed ranges of all the numbers, mm (the optional ones' defaults: OPTIONAL_MM).
_NUMBER_RANGES = {
    "space_mm": (10.0, 200.0),
    "line_mm": (0.0, 10.0),
    "fence_height_mm": (1.0, 200.0),
    "fence_thickness_mm": (0.5, 20.0),
    "side_pit_mm": (0.0, 300.0),
    "start_pit_mm": (0.0, 300.0),
    "trough_mm": (0.0, 300.0),
    "thickness_mm": (1.0, 50.0),
}
_REQUIRED = (
    "name",
    "space_mm",
    "rows",
    "cols",
    "holes",
    "tractor",
    "fences",
    "checkpoints",
    "pit_left_rows",
    "pit_right_rows",
)
_ALLOWED = set(_REQUIRED) | set(OPTIONAL_MM) | {"description", "forward"}


# --- loading ----------------------------------------------------------------------
def load_board(name_or_path: str | Path = "stock") -> Board:
    """Load and validate a board by name or path; bad files raise :class:`InputError`."""
    path = resolve_named_file(name_or_path, BOARDS_DIR, "board")
    return board_from_dict(read_toml(path, "board"), source=str(path))


def _int_pair(value, key: str, where: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(
            f"{where}: '{key}' entries must be [row, col] pairs of integers, got {shown(value)}"
        )
    return int(value[0]), int(value[1])


def board_from_dict(data: dict, source: str = "board") -> Board:
    """Validate a parsed board file; errors name the key and the problem.

    Beyond each key, the board as a whole must make sense for a game (spaces large
    enough for a piggy, the tractor over its hole, a way out of every pit and to
    the trough from every space): see :mod:`models.board_checks`.
    """
    where = f"board {shown(source)}"
    if not isinstance(data, dict):
        raise InputError(f"{where}: a board must be a table of keys, got {shown(data)}")
    unknown = sorted(set(data) - _ALLOWED)
    if unknown:
        raise InputError(
            f"{where}: unknown key '{shown(unknown[0])}' (allowed: {', '.join(sorted(_ALLOWED))})"
        )
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise InputError(f"{where}: missing key '{missing[0]}'")

    numbers = {}
    for key, (lo, hi) in _NUMBER_RANGES.items():
        value = data.get(key, OPTIONAL_MM.get(key))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(
                f"{where}: '{key}' must be a number of millimetres, got {shown(value)}"
            )
        if not lo <= value <= hi:
            raise InputError(f"{where}: '{key}' = {shown(value)} is out of range [{lo:g}, {hi:g}]")
        numbers[key] = float(value)

    rows, cols = data["rows"], data["cols"]
    for key, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 40:
            raise InputError(f"{where}: '{key}' must be an integer in [1, 40], got {shown(value)}")
    name = check_label(data["name"], f"{where}: 'name'", MAX_NAME_CHARS)
    description = check_label(
        data.get("description", ""), f"{where}: 'description'", MAX_DESCRIPTION_CHARS, empty_ok=True
    )

    def on_grid(space: Space, key: str) -> Space:
        if not (0 <= space[0] < rows and 0 <= space[1] < cols):
            raise InputError(
                f"{where}: '{key}' has {space_name(space)} outside the {rows}x{cols} grid"
            )
        return space

    if not isinstance(data["holes"], list):
        raise InputError(f"{where}: 'holes' must be a list of [row, col] pairs")
    hole_list = [on_grid(_int_pair(h, "holes", where), "holes") for h in data["holes"]]
    holes = frozenset(hole_list)
    if len(holes) < len(hole_list):
        twice = next(h for h in hole_list if hole_list.count(h) > 1)
        raise InputError(f"{where}: 'holes' lists {space_name(twice)} twice")

    tractor = data["tractor"]
    if (
        not isinstance(tractor, list)
        or len(tractor) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in tractor)
    ):
        raise InputError(f"{where}: 'tractor' must be [x_mm, y_mm], got {shown(tractor)}")
    if not all(math.isfinite(v) for v in tractor):
        raise InputError(f"{where}: 'tractor' must be finite numbers, got {shown(tractor)}")

    if not isinstance(data["fences"], list):
        raise InputError(f"{where}: 'fences' must be a list of [[row, col], [row, col]] pairs")
    fences = set()
    for fence in data["fences"]:
        if not isinstance(fence, list) or len(fence) != 2:
            raise InputError(
                f"{where}: a fence must be [[row, col], [row, col]], got {shown(fence)}"
            )
        a = on_grid(_int_pair(fence[0], "fences", where), "fences")
        b = on_grid(_int_pair(fence[1], "fences", where), "fences")
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise InputError(
                f"{where}: fence between {space_name(a)} and {space_name(b)}: "
                f"the spaces are not orthogonally adjacent"
            )
        for s in (a, b):
            if s in holes:
                raise InputError(f"{where}: fence touches {space_name(s)}, which is a hole")
        pair = frozenset((a, b))
        if pair in fences:
            raise InputError(
                f"{where}: fence between {space_name(a)} and {space_name(b)} is listed twice"
            )
        fences.add(pair)

    checkpoints = data["checkpoints"]
    if (
        not isinstance(checkpoints, list)
        or len(checkpoints) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in checkpoints)
        or not 0 < checkpoints[0] < checkpoints[1] < rows
    ):
        raise InputError(
            f"{where}: 'checkpoints' must be [row1, row2] with "
            f"0 < row1 < row2 < {rows}, got {shown(checkpoints)}"
        )

    pit_rows = {}
    for key in ("pit_left_rows", "pit_right_rows"):
        value = data[key]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise InputError(f"{where}: '{key}' must be a non-empty list of row numbers")
        for row in value:
            if not 0 <= row < rows:
                raise InputError(f"{where}: '{key}' has row {shown(row)} outside rows 0-{rows - 1}")
        if len(set(value)) < len(value):
            raise InputError(
                f"{where}: '{key}' lists row {next(r for r in value if value.count(r) > 1)} twice"
            )
        pit_rows[key] = tuple(sorted(value))

    forward = {}
    raw_forward = data.get("forward", {})
    if not isinstance(raw_forward, dict):
        raise InputError(f"{where}: 'forward' must be a table of space = direction")
    for key, direction in raw_forward.items():
        try:
            space = on_grid(parse_space_name(key), "forward")
        except InputError as exc:
            raise InputError(f"{where}: 'forward': {exc}") from None
        if space in holes:
            raise InputError(f"{where}: 'forward' names {key}, which is a hole")
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise InputError(
                f"{where}: 'forward.{key}' = {shown(direction)}: allowed "
                f"directions are {', '.join(DIRECTIONS)}"
            )
        forward[space] = direction

    if len(holes) >= rows * cols:
        raise InputError(f"{where}: 'holes' leaves no space on the board")

    board = Board(
        name=name,
        rows=rows,
        cols=cols,
        holes=holes,
        tractor=(float(tractor[0]), float(tractor[1])),
        fences=frozenset(fences),
        checkpoints=(checkpoints[0], checkpoints[1]),
        pit_left_rows=pit_rows["pit_left_rows"],
        pit_right_rows=pit_rows["pit_right_rows"],
        forward=forward,
        description=description,
        **numbers,
    )
    check_board(board, where)
    return board
