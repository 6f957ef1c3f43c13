"""Layout files: who stands where for a shot (docs/formats.md, "Layout file").

``{"board": "stock", "stacks": {"r5c1": ["green-1"], "r8c3": ["gold-2", "pink-1"]}}``
Each list is bottom first, at most two piggies.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from models.board import Board, Space, load_board, space_name
from models.errors import InputError

#: Seat colours in seat order (docs/architecture.md, "Names").
COLOURS = ("green", "gold", "pink", "blue")
PIGGIES_PER_COLOUR = 3
MAX_STACK = 2
ALL_PIGGIES = tuple(f"{c}-{n}" for c in COLOURS for n in range(1, PIGGIES_PER_COLOUR + 1))

_PIGGY_RE = re.compile(r"^([a-z]+)-(\d+)$")


def check_piggy(name: str) -> str:
    """Return ``name`` if it is a piggy id like ``gold-2``, else raise :class:`InputError`."""
    m = _PIGGY_RE.match(name)
    if not m or m.group(1) not in COLOURS or not 1 <= int(m.group(2)) <= PIGGIES_PER_COLOUR:
        raise InputError(f"unknown piggy '{name}': piggies are <colour>-<n> with colour in "
                         f"{', '.join(COLOURS)} and n 1-{PIGGIES_PER_COLOUR}, e.g. gold-2")
    return name


@dataclass(frozen=True)
class Layout:
    """Who stands where: a board and its stacks (bottom piggy first)."""

    board: Board
    stacks: dict[Space, tuple[str, ...]]

    @property
    def piggies(self) -> list[str]:
        """Every piggy on the board, in the order of their spaces, bottom first."""
        return [p for space in sorted(self.stacks) for p in self.stacks[space]]

    def space_of(self, piggy: str) -> Space:
        """The space a piggy stands on, or :class:`InputError` if it is not on the board."""
        for space, stack in self.stacks.items():
            if piggy in stack:
                return space
        on_board = ", ".join(self.piggies) or "none"
        raise InputError(f"piggy {piggy} is not on the board (on the board: {on_board})")

    def level_of(self, piggy: str) -> int:
        """0 for a bottom (or lone) piggy, 1 for the top of a stack."""
        return self.stacks[self.space_of(piggy)].index(piggy)

    def to_dict(self) -> dict:
        """The layout-file shape, spaces sorted by row then column."""
        return {"board": self.board.name,
                "stacks": {space_name(s): list(self.stacks[s]) for s in sorted(self.stacks)}}


def layout_from_dict(data: dict, board: Board | None = None, source: str = "layout") -> Layout:
    """Validate a layout mapping; ``board`` overrides the file's ``board`` key."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: a layout must be a JSON object with 'stacks'")
    unknown = sorted(set(data) - {"board", "stacks"})
    if unknown:
        raise InputError(f"{source}: unknown key '{unknown[0]}' (allowed: board, stacks)")
    if board is None:
        board = load_board(data.get("board", "stock"))
    stacks_in = data.get("stacks", {})
    if not isinstance(stacks_in, dict):
        raise InputError(f"{source}: 'stacks' must map space names to lists of piggies")
    stacks: dict[Space, tuple[str, ...]] = {}
    seen: set[str] = set()
    for name, piggies in stacks_in.items():
        space = board.parse_space(name)
        if not isinstance(piggies, list) or not all(isinstance(p, str) for p in piggies):
            raise InputError(f"{source}: stack on {name} must be a list of piggy names")
        if not piggies:
            continue
        if len(piggies) > MAX_STACK:
            raise InputError(f"{source}: stack on {name} has {len(piggies)} piggies; "
                             f"at most {MAX_STACK} may stack")
        for piggy in piggies:
            check_piggy(piggy)
            if piggy in seen:
                raise InputError(f"{source}: piggy {piggy} stands on two spaces")
            seen.add(piggy)
        stacks[space] = tuple(piggies)
    return Layout(board=board, stacks=stacks)


#: The ``crowded`` layout: all 12 piggies spread over the stock board, two stacks
#: among them (the speed benchmark's and the determinism tests' layout).
CROWDED_STACKS = {
    "r1c1": ["green-1"], "r2c4": ["green-2"], "r3c6": ["green-3", "gold-1"],
    "r6c0": ["gold-2"], "r7c2": ["gold-3"], "r7c5": ["pink-1"], "r8c3": ["pink-2", "pink-3"],
    "r9c0": ["blue-1"], "r9c6": ["blue-2"], "r10c3": ["blue-3"],
}


def load_layout(path_or_keyword: str | Path, board: Board | None = None) -> Layout:
    """Read a layout file, or ``empty`` for no piggies at all, or ``crowded`` for
    :data:`CROWDED_STACKS`."""
    if str(path_or_keyword) == "empty":
        return Layout(board=board or load_board("stock"), stacks={})
    if str(path_or_keyword) == "crowded":
        return layout_from_dict({"stacks": CROWDED_STACKS}, board=board or load_board("stock"),
                                source="the crowded layout")
    path = Path(path_or_keyword)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"layout file '{path}' does not exist (or use 'empty')") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"layout file {path}: not valid JSON ({exc})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"layout file {path}: cannot be read ({exc})") from None
    return layout_from_dict(data, board=board, source=f"layout {path}")
