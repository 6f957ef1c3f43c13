"""Board files: the grid of spaces, holes, fences, checkpoints and pits.

One file describes a board for both the referee and the physics (docs/formats.md,
"Board file"). Lengths are millimetres. The board frame has its origin at the
tractor's pivot on the board surface, +y toward the food trough, +x toward the
right side, +z up. Space ``r<row>c<col>``: row 0 next to the start Mud Pit,
column 0 on the left.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from models.errors import InputError
from models.files import read_toml, resolve_named_file
from models.text import check_label, shown

BOARDS_DIR = Path(__file__).parent / "boards"

#: Places that are not spaces (docs/architecture.md, "Names").
PLACES = ("pit", "pit-left", "pit-right", "trough")

#: Directions a space's triangle may point; "up" is toward the trough.
DIRECTIONS = {"up": (1, 0), "down": (-1, 0), "left": (0, -1), "right": (0, 1)}

#: Letters of the piggies' colours on text maps (gold is Y, for yellow: G is green).
PIGGY_LETTERS = {"green": "G", "gold": "Y", "pink": "P", "blue": "B"}

# A space name exactly as written: ASCII digits, no leading zeros, at most 6 digits
# (boards have at most 40 rows), nothing around it.
_SPACE_RE = re.compile(r"r(0|[1-9][0-9]{0,5})c(0|[1-9][0-9]{0,5})", re.ASCII)
# What a person may have meant by one: other digits (full width, say), leading zeros,
# capitals, spaces. Only to say the canonical form in the error.
_LOOSE_SPACE_RE = re.compile(r"\s*[rR]\s*0*(\d{1,6})\s*[cC]\s*0*(\d{1,6})\s*")

#: Longest board name and description, characters.
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 500

# Optional keys and their defaults (mm), with the allowed ranges for all numbers.
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
_DEFAULTS = {
    "line_mm": 2.0,
    "fence_height_mm": 20.0,
    "fence_thickness_mm": 3.0,
    "side_pit_mm": 60.0,
    "start_pit_mm": 60.0,
    "trough_mm": 60.0,
    "thickness_mm": 6.0,
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
_ALLOWED = set(_REQUIRED) | set(_DEFAULTS) | {"description", "forward"}

Space = tuple[int, int]


def space_name(space: Space) -> str:
    """The canonical name ``r<row>c<col>`` of a (row, col) pair."""
    return f"r{space[0]}c{space[1]}"


def parse_space_name(name: object, hint: str = "") -> Space:
    """The (row, col) of a space name written exactly ``r<row>c<col>``, in ASCII
    digits without leading zeros and with nothing around it, so that one space has
    one name (``r8c3`` and ``r08c3`` are not two spaces, nor silently one).

    Anything else raises :class:`InputError`; when the text is a recognisable
    variant (``r08c3``, ``R8C3``, full-width digits) the message gives the
    canonical form. ``hint`` is appended to the message of an unrecognisable name.
    """
    if isinstance(name, str):
        m = _SPACE_RE.fullmatch(name)
        if m:
            return int(m.group(1)), int(m.group(2))
        loose = _LOOSE_SPACE_RE.fullmatch(name)
        if loose:
            canonical = space_name((int(loose.group(1)), int(loose.group(2))))
            raise InputError(
                f"'{shown(name)}' is not a space name as written: write "
                f"{canonical} (ASCII digits, no leading zeros, no spaces)"
            )
    raise InputError(f"'{shown(name)}' is not a space name: expected r<row>c<col>, e.g. r5c1{hint}")


@dataclass(frozen=True)
class Board:
    """A validated board. Build it with :func:`load_board` or :func:`board_from_dict`."""

    name: str
    space_mm: float
    rows: int
    cols: int
    holes: frozenset[Space]
    tractor: tuple[float, float]  # pivot (x, y) in mm from the outer corner of r0c0
    fences: frozenset[frozenset[Space]]
    checkpoints: tuple[int, int]
    pit_left_rows: tuple[int, ...]
    pit_right_rows: tuple[int, ...]
    forward: dict[Space, str] = field(default_factory=dict, hash=False)
    description: str = ""
    line_mm: float = _DEFAULTS["line_mm"]
    fence_height_mm: float = _DEFAULTS["fence_height_mm"]
    fence_thickness_mm: float = _DEFAULTS["fence_thickness_mm"]
    side_pit_mm: float = _DEFAULTS["side_pit_mm"]
    start_pit_mm: float = _DEFAULTS["start_pit_mm"]
    trough_mm: float = _DEFAULTS["trough_mm"]
    thickness_mm: float = _DEFAULTS["thickness_mm"]

    # --- spaces -----------------------------------------------------------------
    def is_space(self, space: Space) -> bool:
        """True for a (row, col) on the grid that is not a hole."""
        r, c = space
        return 0 <= r < self.rows and 0 <= c < self.cols and space not in self.holes

    @property
    def spaces(self) -> list[Space]:
        """Every space, row by row from the start end."""
        return [
            (r, c) for r in range(self.rows) for c in range(self.cols) if (r, c) not in self.holes
        ]

    def parse_space(self, name: str) -> Space:
        """The (row, col) of a space of this board, named exactly as
        :func:`parse_space_name` requires, or an :class:`InputError` naming the problem."""
        space = parse_space_name(name, f" (rows 0-{self.rows - 1}, columns 0-{self.cols - 1})")
        if not (0 <= space[0] < self.rows and 0 <= space[1] < self.cols):
            raise InputError(
                f"space {name} is off board '{self.name}': rows 0-{self.rows - 1}, "
                f"columns 0-{self.cols - 1}"
            )
        if space in self.holes:
            raise InputError(f"{name} is a hole on board '{self.name}', not a space")
        return space

    def space_center_mm(self, space: Space) -> np.ndarray:
        """Centre (x, y) of a space in the board frame, mm; shape (2,)."""
        r, c = space
        return np.array(
            [
                (c + 0.5) * self.space_mm - self.tractor[0],
                (r + 0.5) * self.space_mm - self.tractor[1],
            ]
        )

    def space_at_mm(self, xy) -> Space | None:
        """The space whose square contains the board-frame point ``xy`` (mm), if any
        (None too for a point that is not finite)."""
        if not (math.isfinite(xy[0]) and math.isfinite(xy[1])):
            return None
        c = int(np.floor((xy[0] + self.tractor[0]) / self.space_mm))
        r = int(np.floor((xy[1] + self.tractor[1]) / self.space_mm))
        return (r, c) if self.is_space((r, c)) else None

    # --- fences -----------------------------------------------------------------
    def fence_between(self, a: Space, b: Space) -> bool:
        """True when a fence stands between two orthogonally adjacent spaces."""
        return frozenset((a, b)) in self.fences

    def fence_segments_mm(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each fence as the two end points (x, y) of its centre line, board frame, mm."""
        segments = []
        s = self.space_mm
        for fence in sorted(tuple(sorted(f)) for f in self.fences):
            (r1, c1), (r2, c2) = fence
            if r1 == r2:  # side by side: a wall along the column line
                x = max(c1, c2) * s
                ends = ((x, r1 * s), (x, (r1 + 1) * s))
            else:  # one behind the other: a wall along the row line
                y = max(r1, r2) * s
                ends = ((c1 * s, y), ((c1 + 1) * s, y))
            offset = np.array(self.tractor)
            segments.append((np.array(ends[0]) - offset, np.array(ends[1]) - offset))
        return segments

    # --- the whole board --------------------------------------------------------
    @property
    def grid_extent_mm(self) -> tuple[float, float, float, float]:
        """(x_min, x_max, y_min, y_max) of the grid of spaces, board frame, mm."""
        x0, y0 = -self.tractor[0], -self.tractor[1]
        return (x0, x0 + self.cols * self.space_mm, y0, y0 + self.rows * self.space_mm)

    @property
    def surface_extent_mm(self) -> tuple[float, float, float, float]:
        """(x_min, x_max, y_min, y_max) of the whole board top: grid, pits and trough, mm."""
        x_min, x_max, y_min, y_max = self.grid_extent_mm
        return (
            x_min - self.side_pit_mm,
            x_max + self.side_pit_mm,
            y_min - self.start_pit_mm,
            y_max + self.trough_mm,
        )

    def checkpoints_passed(self, space: Space) -> int:
        """How many checkpoint lines lie behind a space (0, 1 or 2)."""
        return sum(space[0] >= row for row in self.checkpoints)

    # --- text -------------------------------------------------------------------
    def text_map(self, stacks: dict[str, list[str]] | None = None) -> str:
        """A text picture of the board, trough at the top.

        Spaces show ``.`` when empty, holes ``##``, piggies by colour letter and
        number (:data:`PIGGY_LETTERS`: ``G1`` is green-1, ``Y2`` gold-2; a stack
        ``G1/P2``, bottom first). Fences are ``|`` and ``===``.
        """
        stacks = stacks or {}
        width = 7
        by_space = {self.parse_space(name): pigs for name, pigs in stacks.items()}

        def cell(space: Space) -> str:
            if space in self.holes:
                return "#" * (width - 2)
            pigs = by_space.get(space)
            if not pigs:
                return "."
            return "/".join(PIGGY_LETTERS[p.split("-")[0]] + p.split("-")[1] for p in pigs)

        lines = ["      " + "TROUGH".center(self.cols * (width + 1))]
        for r in reversed(range(self.rows)):
            if r < self.rows - 1:
                sep = [
                    "=" * width if self.fence_between((r, c), (r + 1, c)) else " " * width
                    for c in range(self.cols)
                ]
                lines.append("      " + " " + " ".join(sep))
            row = ""
            for c in range(self.cols):
                wall = "|" if c > 0 and self.fence_between((r, c - 1), (r, c)) else " "
                row += wall + cell((r, c)).center(width)
            left = "L" if r in self.pit_left_rows else " "
            right = "R" if r in self.pit_right_rows else " "
            note = (
                f"  checkpoint #{self.checkpoints.index(r) + 1} from here"
                if r in self.checkpoints
                else ""
            )
            lines.append(f"r{r:<3} {left}{row} {right}{note}".rstrip())
        lines.append("      " + " " + " ".join(f"c{c}".center(width) for c in range(self.cols)))
        lines.append("      " + "START MUD PIT".center(self.cols * (width + 1)))
        lines.append(
            "G green, Y gold, P pink, B blue; L, R: beside the left and right side Mud Pits"
        )
        return "\n".join(lines)


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
    from models.board_checks import check_board  # it imports this module

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
    optional ones default to :data:`_DEFAULTS`."""
    numbers = {}
    for key, (lo, hi) in _NUMBER_RANGES.items():
        value = data.get(key, _DEFAULTS.get(key))
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
