"""Layout files: who stands where for a shot (docs/formats.md, "Layout file").

``{"board": "stock", "stacks": {"r5c1": ["green-1"], "r8c3": ["gold-2", "pink-1"]}}``
Each list is bottom first, at most two piggies. The file's own ``board`` (a board
name, or a path taken from the layout file's folder) is the layout's board unless
the caller gives one; when both are there they must be the same board.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path

from models import file_kinds
from models.board import BOARDS_DIR, Board, Space, board_from_dict, load_board, space_name
from models.errors import InputError
from models.files import read_json, read_toml, resolve_named_file
from models.text import shown

#: Seat colours in seat order (docs/architecture.md, "Names").
COLOURS = ("green", "gold", "pink", "blue")
PIGGIES_PER_COLOUR = 3
MAX_STACK = 2
ALL_PIGGIES = tuple(f"{c}-{n}" for c in COLOURS for n in range(1, PIGGIES_PER_COLOUR + 1))


def check_piggy(name: object) -> str:
    """Return ``name`` if it is exactly a piggy id like ``gold-2`` (no space, newline
    or other character around it), else raise :class:`InputError`."""
    if not isinstance(name, str) or name not in ALL_PIGGIES:
        raise InputError(
            f"unknown piggy '{shown(name)}': piggies are <colour>-<n> with colour "
            f"in {', '.join(COLOURS)} and n 1-{PIGGIES_PER_COLOUR}, e.g. gold-2"
        )
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
        if not self.piggies:  # the empty default layout: say where piggies come from
            raise InputError(
                f"piggy {piggy} is not on the board: the layout is empty (give a layout "
                "file with --layout, or --layout crowded for all 12 piggies)"
            )
        raise InputError(
            f"piggy {piggy} is not on the board (on the board: {', '.join(self.piggies)})"
        )

    def target(self, name: str) -> tuple[Space, str | None]:
        """The space a shot's target names and the piggy it names (None for a space
        name); :class:`InputError` for a malformed name, a space off the board or a
        piggy not on it. Needs no world: a command checks its target before one."""
        if "-" in name:
            piggy = check_piggy(name)
            return self.space_of(piggy), piggy
        return self.board.parse_space(name), None

    def level_of(self, piggy: str) -> int:
        """0 for a bottom (or lone) piggy, 1 for the top of a stack."""
        return self.stacks[self.space_of(piggy)].index(piggy)

    def to_dict(self) -> dict:
        """The layout-file shape, spaces sorted by row then column."""
        return {
            "board": self.board.name,
            "stacks": {space_name(s): list(self.stacks[s]) for s in sorted(self.stacks)},
        }


def layout_board(data: dict, source: str = "layout", base_dir: Path | None = None) -> Board | None:
    """The board a layout mapping names in its own ``board`` key, loaded and
    validated, or None when it names none.

    The key is a board name (models/boards/) or a path to a board file; a relative
    path is taken from ``base_dir`` (the layout file's folder). Anything else is an
    :class:`InputError` naming ``source``.
    """
    if not isinstance(data, dict) or "board" not in data:
        return None
    try:
        path = resolve_named_file(data["board"], BOARDS_DIR, "board", base_dir=base_dir)
        return board_from_dict(read_toml(path, "board"), source=os.fspath(path))
    except InputError as exc:
        raise InputError(f"{source}: 'board': {exc}") from None


def choose_board(
    data: dict, board: Board | None, source: str = "layout", base_dir: Path | None = None
) -> Board:
    """The board of a layout: ``board`` (the one the caller was given, e.g. by
    ``--board``) or else the layout's own ``board`` key or else stock. When both are
    given they must be the same board, else :class:`InputError`."""
    own = layout_board(data, source, base_dir)
    if board is None:
        return own if own is not None else load_board("stock")
    if own is not None and own != board:
        if own.name == board.name:  # one name, two boards: say which is which
            path = resolve_named_file(data["board"], BOARDS_DIR, "board", base_dir=base_dir)
            raise InputError(
                f"{source}: the layout is for board '{shown(own.name)}' of "
                f"{shown(os.fspath(path))}, and the board given is another of the same "
                f"name ({_first_difference(own, board)}): give one board, or the same"
            )
        raise InputError(
            f"{source}: the layout is for board '{shown(own.name)}', not for the "
            f"board given ('{shown(board.name)}'): give one board, or the same"
        )
    return board


def _first_difference(layouts: Board, given: Board) -> str:
    """The first field in which two different boards differ, as the layout's and the
    given one's."""
    name = next(f.name for f in fields(Board) if getattr(layouts, f.name) != getattr(given, f.name))
    theirs, ours = getattr(layouts, name), getattr(given, name)
    if isinstance(theirs, (frozenset, dict)):  # sets of spaces: not worth printing
        return f"their {name} differ"
    return f"{name} {shown(theirs)} in the layout's, {shown(ours)} in the one given"


def layout_from_dict(
    data: object, board: Board | None = None, source: str = "layout", base_dir: Path | None = None
) -> Layout:
    """Validate a layout mapping; its board is :func:`choose_board`'s.

    ``base_dir``: the folder a relative path in the ``board`` key is taken from.
    """
    if not isinstance(data, dict):
        raise InputError(f"{source}: a layout must be a JSON object with 'stacks'")
    unknown = sorted(set(data) - {"board", "stacks"})
    if unknown:
        raise InputError(f"{source}: unknown key '{shown(unknown[0])}' (allowed: board, stacks)")
    board = choose_board(data, board, source, base_dir)
    stacks_in = data.get("stacks", {})
    if not isinstance(stacks_in, dict):
        raise InputError(f"{source}: 'stacks' must map space names to lists of piggies")
    stacks: dict[Space, tuple[str, ...]] = {}
    seen: set[str] = set()
    for name, piggies in stacks_in.items():
        try:
            space = board.parse_space(name)
        except InputError as exc:
            raise InputError(f"{source}: {exc}") from None
        if not isinstance(piggies, list):
            raise InputError(f"{source}: stack on {name} must be a list of piggy names")
        if not piggies:
            continue
        if len(piggies) > MAX_STACK:
            raise InputError(
                f"{source}: stack on {name} has {len(piggies)} piggies; "
                f"at most {MAX_STACK} may stack"
            )
        for piggy in piggies:
            try:
                check_piggy(piggy)
            except InputError as exc:
                raise InputError(f"{source}: stack on {name}: {exc}") from None
            if piggy in seen:
                raise InputError(f"{source}: piggy {piggy} stands on two spaces")
            seen.add(piggy)
        stacks[space] = tuple(piggies)
    return Layout(board=board, stacks=stacks)


#: The ``crowded`` layout: all 12 piggies spread over the stock board, two stacks
#: among them (the speed benchmark's and the determinism tests' layout).
CROWDED_STACKS = {
    "r1c1": ["green-1"],
    "r2c4": ["green-2"],
    "r3c6": ["green-3", "gold-1"],
    "r6c0": ["gold-2"],
    "r7c2": ["gold-3"],
    "r7c5": ["pink-1"],
    "r8c3": ["pink-2", "pink-3"],
    "r9c0": ["blue-1"],
    "r9c6": ["blue-2"],
    "r10c3": ["blue-3"],
}


def load_layout(path_or_keyword: str | Path, board: Board | None = None) -> Layout:
    """Read a layout file, or ``empty`` for no piggies at all, or ``crowded`` for
    :data:`CROWDED_STACKS`.

    ``board``: the board the caller was given (``--board``), or None to take the
    layout file's own ``board`` key (else stock); a file naming another board than
    a given one is refused (:func:`choose_board`). The board is ``layout.board``.
    """
    if str(path_or_keyword) == "empty":
        return Layout(board=board or load_board("stock"), stacks={})
    if str(path_or_keyword) == "crowded":
        return layout_from_dict(
            {"stacks": CROWDED_STACKS},
            board=board or load_board("stock"),
            source="the crowded layout",
        )
    path = Path(path_or_keyword)
    data = read_json(path, "layout")
    try:
        return layout_from_dict(
            data, board=board, source=f"layout {shown(os.fspath(path))}", base_dir=path.parent
        )
    except InputError:  # a result's --json given as a layout is told so
        source = f"layout file {shown(os.fspath(path))}"
        file_kinds.refuse_other(file_kinds.kind_of_value(data), "layout", source)
        raise


#: The piggy that stands alone on each measured empty space in turn.
LONE_TARGET = "gold-1"


def aimed_piggy(stacks: dict, name: str, target: str | None = None) -> tuple[str, dict]:
    """The piggy aimed at on space ``name`` of ``stacks`` (space -> piggies, bottom
    first), and the stacks it is fired at: the space's top piggy, or
    :data:`LONE_TARGET` stood alone there when it is empty. ``target`` (the sandbox's
    "how likely?") names another: a piggy of the space's stack (the bottom one of
    two), or the piggy stood alone on an empty space."""
    stacks = {s: list(p) for s, p in stacks.items()}
    if stacks.get(name):
        if target is None:
            return stacks[name][-1], stacks
        if target not in stacks[name]:
            raise InputError(f"{target} is not on {name}: it has {', '.join(stacks[name])}")
        return target, stacks
    lone = target or LONE_TARGET
    if any(lone in pigs for pigs in stacks.values()):
        raise InputError(
            f"{name} is empty and {lone}, the piggy a sweep stands alone on an empty space, "
            f"is already on the board: measure spaces that have a piggy, or take {lone} "
            "off the layout"
        )
    stacks[name] = [lone]
    return lone, stacks


def check_spaces(board: Board, text: str | None, stacks: dict) -> tuple[str, ...]:
    """The spaces to measure (``--spaces``): a comma-separated list, each a space of
    ``board`` once, or every space of the board; the piggies of ``stacks`` (space ->
    piggies) checked, and on each space the piggy to aim at (:func:`aimed_piggy`)."""
    for pigs in stacks.values():
        for piggy in pigs:
            check_piggy(piggy)
    if text is None:
        names = [space_name(s) for s in board.spaces]
    else:
        names = [t.strip(" ") for t in text.split(",")]  # "r8c3, r9c5"
        if not any(names):
            raise InputError("--spaces names no space")
        if not all(names):
            raise InputError(
                f"--spaces {text!r} has an empty item: give the spaces separated by single commas"
            )
        for index, name in enumerate(names):
            board.parse_space(name)
            if name in names[:index]:
                raise InputError(f"--spaces names {name} twice")
    by_name = {space_name(s): pigs for s, pigs in stacks.items()}
    for name in names:
        aimed_piggy(by_name, name)
    return tuple(names)
