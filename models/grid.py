"""The board as a type: its grid of spaces and their names, holes, fences,
checkpoints and pits (:class:`Board`). A board file becomes one through
:func:`models.board.load_board`, which checks it (:mod:`models.board_checks`).

Lengths are millimetres. The board frame has its origin at the tractor's pivot on
the board surface, +y toward the food trough, +x toward the right side, +z up.
Space ``r<row>c<col>``: row 0 next to the start Mud Pit, column 0 on the left.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from models.errors import InputError
from models.text import shown

if TYPE_CHECKING:
    import numpy as np

#: Places that are not spaces (docs/architecture.md, "Names"): the Mud Pits, then the
#: food trough.
PITS = ("pit", "pit-left", "pit-right")
TROUGH = "trough"
PLACES = (*PITS, TROUGH)

#: Directions a space's triangle may point; "up" is toward the trough.
DIRECTIONS = {"up": (1, 0), "down": (-1, 0), "left": (0, -1), "right": (0, 1)}

#: Ruling 7's readings of "knocked out" (docs/rules/go-piggy-go.md): a piggy that
#: touches its space's outline is out ("touches-line"), or only one that has cleared
#: it ("cleared"). The physics' knock-out test applies one; a game names it.
HIT_RULES = ("touches-line", "cleared")

#: Letters of the piggies' colours on text maps (gold is Y, for yellow: G is green).
PIGGY_LETTERS = {"green": "G", "gold": "Y", "pink": "P", "blue": "B"}

# A space name exactly as written: ASCII digits, no leading zeros, at most 6 digits
# (boards have at most 40 rows), nothing around it.
_SPACE_RE = re.compile(r"r(0|[1-9][0-9]{0,5})c(0|[1-9][0-9]{0,5})", re.ASCII)
# What a person may have meant by one: other digits (full width, say), leading zeros,
# capitals, spaces. Only to say the canonical form in the error.
_LOOSE_SPACE_RE = re.compile(r"\s*[rR]\s*0*(\d{1,6})\s*[cC]\s*0*(\d{1,6})\s*")

#: The optional lengths of a board file and their defaults, mm.
OPTIONAL_MM = {
    "line_mm": 2.0,
    "fence_height_mm": 20.0,
    "fence_thickness_mm": 3.0,
    "side_pit_mm": 60.0,
    "start_pit_mm": 60.0,
    "trough_mm": 60.0,
    "thickness_mm": 6.0,
}

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
    """A validated board. Build it with :func:`models.board.load_board` or
    :func:`models.board.board_from_dict`."""

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
    line_mm: float = OPTIONAL_MM["line_mm"]
    fence_height_mm: float = OPTIONAL_MM["fence_height_mm"]
    fence_thickness_mm: float = OPTIONAL_MM["fence_thickness_mm"]
    side_pit_mm: float = OPTIONAL_MM["side_pit_mm"]
    start_pit_mm: float = OPTIONAL_MM["start_pit_mm"]
    trough_mm: float = OPTIONAL_MM["trough_mm"]
    thickness_mm: float = OPTIONAL_MM["thickness_mm"]

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
        import numpy as np  # here: the command line starts without it

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
        c = math.floor((xy[0] + self.tractor[0]) / self.space_mm)
        r = math.floor((xy[1] + self.tractor[1]) / self.space_mm)
        return (r, c) if self.is_space((r, c)) else None

    # --- fences -----------------------------------------------------------------
    def fence_between(self, a: Space, b: Space) -> bool:
        """True when a fence stands between two orthogonally adjacent spaces."""
        return frozenset((a, b)) in self.fences

    def fence_segments_mm(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each fence as the two end points (x, y) of its centre line, board frame, mm."""
        import numpy as np

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
