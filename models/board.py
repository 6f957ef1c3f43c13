"""Board files: reading one, key by key, into a checked :class:`~models.grid.Board`.

One file describes a board for both the referee and the physics (docs/formats.md,
"Board file"). Lengths are millimetres. The type, its spaces and their names are
in :mod:`models.grid` (imported here too, where most callers look for them); the
checks of a board as a whole in :mod:`models.board_checks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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

    The keys are checked in the order of the file format (docs/formats.md), so a
    file with several problems is told the first. Beyond each key, the board as a
    whole must make sense for a game (spaces large enough for a piggy, the tractor
    over its hole, a way out of every pit and to the trough from every space): see
    :mod:`models.board_checks`.
    """
    where = f"board {shown(source)}"
    _check_keys(data, where)
    numbers = _numbers(data, where)
    grid = _Grid(*_grid_size(data, where), where)
    name = check_label(data["name"], f"{where}: 'name'", MAX_NAME_CHARS)
    description = check_label(
        data.get("description", ""), f"{where}: 'description'", MAX_DESCRIPTION_CHARS, empty_ok=True
    )
    holes = _holes(data["holes"], grid)
    tractor = _tractor(data["tractor"], where)
    fences = _fences(data["fences"], grid, holes)
    checkpoints = _checkpoints(data["checkpoints"], grid)
    pit_left_rows = _pit_rows(data["pit_left_rows"], "pit_left_rows", grid)
    pit_right_rows = _pit_rows(data["pit_right_rows"], "pit_right_rows", grid)
    forward = _forward(data.get("forward", {}), grid, holes)
    if len(holes) >= grid.rows * grid.cols:
        raise InputError(f"{where}: 'holes' leaves no space on the board")

    board = Board(
        name=name,
        rows=grid.rows,
        cols=grid.cols,
        holes=holes,
        tractor=tractor,
        fences=fences,
        checkpoints=checkpoints,
        pit_left_rows=pit_left_rows,
        pit_right_rows=pit_right_rows,
        forward=forward,
        description=description,
        **numbers,
    )
    check_board(board, where)
    return board


def _check_keys(data: object, where: str) -> None:
    """A table with every required key and no unknown one."""
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


def _numbers(data: dict, where: str) -> dict[str, float]:
    """The lengths (mm) of :data:`_NUMBER_RANGES`, each within its range; the
    optional ones default to :data:`~models.grid.OPTIONAL_MM`."""
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
    return numbers


def _grid_size(data: dict, where: str) -> tuple[int, int]:
    """(rows, cols), each a whole number 1-40."""
    rows, cols = data["rows"], data["cols"]
    for key, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 40:
            raise InputError(f"{where}: '{key}' must be an integer in [1, 40], got {shown(value)}")
    return rows, cols


@dataclass(frozen=True)
class _Grid:
    """The grid being read, to check that the spaces the file names lie on it."""

    rows: int
    cols: int
    where: str  # the file, for the errors

    def on_grid(self, space: Space, key: str) -> Space:
        if not (0 <= space[0] < self.rows and 0 <= space[1] < self.cols):
            raise InputError(
                f"{self.where}: '{key}' has {space_name(space)} outside the "
                f"{self.rows}x{self.cols} grid"
            )
        return space

    def pair(self, value: object, key: str) -> Space:
        """A ``[row, col]`` pair of the file that lies on the grid."""
        return self.on_grid(_int_pair(value, key, self.where), key)


def _holes(value: object, grid: _Grid) -> frozenset[Space]:
    if not isinstance(value, list):
        raise InputError(f"{grid.where}: 'holes' must be a list of [row, col] pairs")
    hole_list = [grid.pair(h, "holes") for h in value]
    holes = frozenset(hole_list)
    if len(holes) < len(hole_list):
        twice = next(h for h in hole_list if hole_list.count(h) > 1)
        raise InputError(f"{grid.where}: 'holes' lists {space_name(twice)} twice")
    return holes


def _tractor(value: object, where: str) -> tuple[float, float]:
    """The tractor's pivot (x, y), mm: two finite numbers."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(f"{where}: 'tractor' must be [x_mm, y_mm], got {shown(value)}")
    if not all(math.isfinite(v) for v in value):
        raise InputError(f"{where}: 'tractor' must be finite numbers, got {shown(value)}")
    return float(value[0]), float(value[1])


def _fences(value: object, grid: _Grid, holes: frozenset[Space]) -> frozenset[frozenset[Space]]:
    """Each fence between two orthogonally adjacent spaces (not holes), once."""
    where = grid.where
    if not isinstance(value, list):
        raise InputError(f"{where}: 'fences' must be a list of [[row, col], [row, col]] pairs")
    fences: set[frozenset[Space]] = set()
    for fence in value:
        if not isinstance(fence, list) or len(fence) != 2:
            raise InputError(
                f"{where}: a fence must be [[row, col], [row, col]], got {shown(fence)}"
            )
        a, b = grid.pair(fence[0], "fences"), grid.pair(fence[1], "fences")
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
    return frozenset(fences)


def _checkpoints(value: object, grid: _Grid) -> tuple[int, int]:
    """The two checkpoint rows, in order, strictly inside the grid."""
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or not 0 < value[0] < value[1] < grid.rows
    ):
        raise InputError(
            f"{grid.where}: 'checkpoints' must be [row1, row2] with "
            f"0 < row1 < row2 < {grid.rows}, got {shown(value)}"
        )
    return value[0], value[1]


def _pit_rows(value: object, key: str, grid: _Grid) -> tuple[int, ...]:
    """The rows beside a side Mud Pit: some, each on the grid once; sorted."""
    where = grid.where
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError(f"{where}: '{key}' must be a non-empty list of row numbers")
    for row in value:
        if not 0 <= row < grid.rows:
            raise InputError(
                f"{where}: '{key}' has row {shown(row)} outside rows 0-{grid.rows - 1}"
            )
    if len(set(value)) < len(value):
        raise InputError(
            f"{where}: '{key}' lists row {next(r for r in value if value.count(r) > 1)} twice"
        )
    return tuple(sorted(value))


def _forward(value: object, grid: _Grid, holes: frozenset[Space]) -> dict[Space, str]:
    """The spaces whose triangle points another way than up, and where it points."""
    where = grid.where
    if not isinstance(value, dict):
        raise InputError(f"{where}: 'forward' must be a table of space = direction")
    forward = {}
    for key, direction in value.items():
        try:
            named = parse_space_name(key)
        except InputError as exc:
            raise InputError(f"{where}: 'forward': {exc}") from None
        space = grid.on_grid(named, "forward")
        if space in holes:
            raise InputError(f"{where}: 'forward' names {key}, which is a hole")
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise InputError(
                f"{where}: 'forward.{key}' = {shown(direction)}: allowed "
                f"directions are {', '.join(DIRECTIONS)}"
            )
        forward[space] = direction
    return forward
