"""Which layout, and which piggy to aim at, an episode of ``piggy/Aim-v0`` has
(docs/gym.md, "Options").

Only the toy's data (:mod:`models`) is used here; the environment itself is
:mod:`sim.envs.aim`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.board import Board, space_name
from models.errors import InputError
from models.layout import ALL_PIGGIES, Layout, check_piggy, layout_from_dict, load_layout

#: The piggy stood alone on an empty target space: gold-1, as in the hit maps
#: (docs/hitmap.md), or the first piggy the layout does not use.
SPARE_ORDER = ("gold-1", *(p for p in ALL_PIGGIES if p != "gold-1"))
#: The ``target`` that draws one of the layout's own piggies each episode.
RANDOM_PIGGY = "random-piggy"


@dataclass(frozen=True)
class Episode:
    """One episode's board: the layout fired at, with the target standing on it."""

    layout: Layout
    target: str  # the piggy aimed at
    space: str  # the space it stands on, e.g. r8c3


def parse_layout(board: Board, layout) -> Layout:
    """A layout for ``board`` from a :class:`Layout`, a layout-file mapping
    (``{"stacks": {...}}``), a path to a layout file, or ``empty`` / ``crowded``."""
    if isinstance(layout, Layout):
        if layout.board != board:
            raise InputError(
                f"the layout is for board '{layout.board.name}', the environment's "
                f"board is '{board.name}'"
            )
        return layout
    if isinstance(layout, dict):
        return layout_from_dict(layout, board=board, source="layout option")
    if isinstance(layout, str | Path):
        return load_layout(layout, board=board)
    raise InputError(
        f"layout must be a Layout, a layout mapping, a file path, 'empty' or "
        f"'crowded', not {type(layout).__name__}"
    )


class TargetSampler:
    """Picks each episode's target on a base layout; every name is checked here,
    before any episode starts.

    Parameters
    ----------
    layout : the base layout.
    target : ``None``: a random empty space each episode, with the spare piggy
        (:data:`SPARE_ORDER`) standing alone on it; ``random-piggy``: one of the
        layout's piggies each episode, any of them alike; a piggy name (``pink-1``):
        that piggy of the layout; a space name (``r8c3``): the top piggy of its
        stack, or the spare piggy standing alone there if it is empty.
    spaces : with ``target=None``, the empty spaces to draw from (default: all).
    """

    def __init__(
        self, layout: Layout, target: str | None = None, spaces: Sequence[str] | None = None
    ):
        self.layout = layout
        board = layout.board
        if target is not None and spaces is not None:
            raise InputError("give either a target or spaces to draw targets from, not both")
        self._piggies = []
        if target is None:
            if spaces is None:
                self._candidates = [s for s in board.spaces if s not in layout.stacks]
            else:
                self._candidates = [self._empty_space(name) for name in _names(spaces, "spaces")]
                if len(set(self._candidates)) != len(self._candidates):
                    raise InputError("spaces names a space twice")
            if not self._candidates:
                raise InputError(
                    "no empty space to stand a random target on: the layout fills every space"
                )
            self._spare()  # an error now, not at the first reset, if no piggy is left
            self._fixed = None
        elif not isinstance(target, str):
            raise InputError(f"target must be a piggy or space name, not {type(target).__name__}")
        elif target == RANDOM_PIGGY:
            self._piggies, self._fixed = layout.piggies, None
            if not self._piggies:
                raise InputError(f"target {RANDOM_PIGGY}: the layout has no piggies")
        elif "-" in target:
            space = layout.space_of(check_piggy(target))
            self._fixed = Episode(layout, target, space_name(space))
        else:
            space = board.parse_space(target)
            stack = layout.stacks.get(space)
            self._fixed = Episode(layout, stack[-1], target) if stack else self._stand_spare(space)

    def _empty_space(self, name: str):
        space = self.layout.board.parse_space(name)
        if space in self.layout.stacks:
            raise InputError(
                f"spaces: {name} is not empty (random targets stand on empty "
                "spaces; aim at a layout's piggy with target=NAME)"
            )
        return space

    def _spare(self) -> str:
        on_board = set(self.layout.piggies)
        spare = next((p for p in SPARE_ORDER if p not in on_board), None)
        if spare is None:
            raise InputError(
                "every piggy is on the layout: none is left to stand on an empty target space"
            )
        return spare

    def _stand_spare(self, space) -> Episode:
        piggy = self._spare()
        stacks = {space_name(s): list(p) for s, p in self.layout.stacks.items()}
        stacks[space_name(space)] = [piggy]
        layout = layout_from_dict(
            {"stacks": stacks}, board=self.layout.board, source="target layout"
        )
        return Episode(layout, piggy, space_name(space))

    def sample(self, rng: np.random.Generator) -> Episode:
        """This episode's target: the fixed one, or a random one drawn with ``rng``."""
        if self._fixed is not None:
            return self._fixed
        if self._piggies:
            piggy = self._piggies[int(rng.integers(len(self._piggies)))]
            return Episode(self.layout, piggy, space_name(self.layout.space_of(piggy)))
        return self._stand_spare(self._candidates[int(rng.integers(len(self._candidates)))])


def _names(value, what: str) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    names = [str(v).strip() for v in value]
    if not names or not all(names):
        raise InputError(f"{what} must name at least one space, e.g. ['r8c3', 'r9c5']")
    return names


def occupancy(layout: Layout) -> np.ndarray:
    """Piggies standing on each space, (rows, cols) int64; 0 on holes."""
    board = layout.board
    grid = np.zeros((board.rows, board.cols), dtype=np.int64)
    for (row, col), stack in layout.stacks.items():
        grid[row, col] = len(stack)
    return grid
