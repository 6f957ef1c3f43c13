"""Where a Go Piggy Go! piggy may step on a board: the moves of ruling 3 in
docs/rules/go-piggy-go.md, precomputed once per board for referee.go_piggy_go."""

from __future__ import annotations

from functools import lru_cache

from models.board import Board, Space, space_name
from models.board_checks import forward_steps


class Steps:
    """Where a piggy may step on a board: precomputed once per board (ruling 3)."""

    def __init__(self, board: Board, diagonals_ignore_fences: bool):
        self.board = board
        self.steps: dict[Space, tuple[Space, ...]] = {
            s: forward_steps(board, s, not diagonals_ignore_fences) for s in board.spaces
        }
        rows, cols = board.rows, board.cols
        self.entries = {
            "pit": tuple(s for s in ((0, c) for c in range(cols)) if board.is_space(s)),
            "pit-left": tuple(
                s for s in ((r, 0) for r in board.pit_left_rows) if board.is_space(s)
            ),
            "pit-right": tuple(
                s for s in ((r, cols - 1) for r in board.pit_right_rows) if board.is_space(s)
            ),
        }
        self.last_row = frozenset(s for s in board.spaces if s[0] == rows - 1)
        self.names = {s: space_name(s) for s in board.spaces}
        self.by_name = {name: s for s, name in self.names.items()}
        self.reachable = lru_cache(maxsize=None)(self._reachable)

    @classmethod
    @lru_cache(maxsize=16)
    def of(cls, board: Board, diagonals_ignore_fences: bool) -> Steps:
        return cls(board, diagonals_ignore_fences)

    def _reachable(self, start: Space | str, n: int) -> tuple[tuple[Space, ...], bool]:
        """Spaces a path of 1..n steps from ``start`` (a space or a pit) can end on,
        and whether the trough can be reached.

        Paths may not revisit a space; that does not change what is reachable, since
        cutting a loop out of a walk leaves a shorter legal path to the same end.
        """
        if n <= 0:
            return (), False
        if isinstance(start, str):
            frontier, dist = set(self.entries[start]), 1
        else:
            frontier, dist = set(self.steps[start]), 1
        seen = {start} if not isinstance(start, str) else set()
        reached: set[Space] = set()
        trough = False
        while frontier and dist <= n:
            reached |= frontier - seen
            if dist < n and frontier & self.last_row:
                trough = True
            seen |= frontier
            frontier = {t for s in frontier for t in self.steps[s]} - seen
            dist += 1
        reached.discard(start)
        if start in self.last_row:
            trough = True
        return tuple(sorted(reached)), trough
