"""The process's physics worlds, kept for reuse: one bounded cache for every caller
that fires many shots at one board and design (a hit map's spaces, the sandbox
server's shots and estimates, a game's physical shots).

Building a world takes about 40 ms and a world fires any number of shots, each the
same bytes as in a fresh world (every shot starts from the settled layout,
tests/sim/physics/test_world.py), so a world is built once and reused; a caller sets
its layout before each use. One process may serve several callers at once (a
sandbox server's worker fires shots and measures hit-map estimates), hence one
cache for them all, not one each.

- **Key.** What a world is built from, by content: the board (its value, which
  holds every field of its file), the design as its normalised text
  (:func:`models.design.design_content_sha256`, as :mod:`models.identity` keys a
  design), its engine resolved by the caller (:func:`sim.physics.registry.resolve`:
  the engine is in its text), the hit rule and ``bale_to_rest``. A file edited
  while the process lives makes another key, never the old world; the same content
  reached by another name or path shares a world.
- **Bound.** At most :data:`BOUND` worlds, the least recently used let go first.
- **Eviction.** A world let go is closed at once (a Bullet world's PyBullet
  connection disconnected), not when the garbage collector gets to it.

Not thread-safe, as a world itself is not: each process (a worker) has its own.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from models.board import Board
from models.design import Design, design_content_sha256
from sim.physics.registry import make_world

if TYPE_CHECKING:
    from sim.physics.engine import ShotEngine

#: Worlds kept per process. A Bullet world of the stock design holds about 28 MB
#: (its scene's bodies and meshes; measured as the process's resident memory per
#: world built), so four stay near 120 MB a process, times the workers. Four cover
#: what one process alternates between: the sandbox's board and design for shots,
#: the same for its hit-map estimates (``bale_to_rest`` off) and another engine or
#: design a page switches to; a design search measures a new design every trial, and
#: an old one never comes back, so more would only hold memory.
BOUND = 4


class WorldCache:
    """Worlds by what they are built from, at most ``bound`` of them, the least
    recently used closed first (see the module's docstring)."""

    def __init__(self, bound: int = BOUND):
        if bound < 1:
            raise ValueError(f"a world cache holds at least one world, not {bound}")
        self.bound = bound
        self._worlds: OrderedDict[tuple, ShotEngine] = OrderedDict()  # most recently used last

    def __len__(self) -> int:
        return len(self._worlds)

    def world(
        self,
        board: Board,
        design: Design,
        *,
        hit_rule: str = "touches-line",
        bale_to_rest: bool = True,
    ) -> ShotEngine:
        """The world for these, built as :func:`sim.physics.registry.make_world`
        builds it (on the design's engine, as resolved) unless one is kept already.
        Its layout is whatever its last user left: set it before a shot."""
        key = _key(board, design, hit_rule, bale_to_rest)
        if key in self._worlds:
            self._worlds.move_to_end(key)
            return self._worlds[key]
        # room first, so that no more than the bound are ever alive at once
        self._evict(self.bound - 1)
        self._worlds[key] = make_world(board, design, hit_rule=hit_rule, bale_to_rest=bale_to_rest)
        return self._worlds[key]

    def discard(
        self,
        board: Board,
        design: Design,
        *,
        hit_rule: str = "touches-line",
        bale_to_rest: bool = True,
    ) -> None:
        """Close the world for these, if one is kept (a caller done with it that
        would rather free it now than when it is the least recently used)."""
        key = _key(board, design, hit_rule, bale_to_rest)
        world = self._worlds.pop(key, None)
        if world is not None:
            world.close()

    def clear(self) -> None:
        """Close every world kept."""
        self._evict(0)

    @contextmanager
    def room_for(self, count: int) -> Iterator[None]:
        """Keep at least ``count`` worlds while inside: for a caller that holds that
        many at once (a paired comparison's designs, fired in turn), none of which
        may be closed under it by the others being built. Back to the bound after."""
        bound = self.bound
        self.bound = max(bound, count)
        try:
            yield
        finally:
            self.bound = bound
            self._evict(bound)

    def _evict(self, keep: int) -> None:
        """Close the least recently used worlds until ``keep`` are left."""
        while len(self._worlds) > keep:
            self._worlds.popitem(last=False)[1].close()


def _key(board: Board, design: Design, hit_rule: str, bale_to_rest: bool) -> tuple:
    """What a world is built from (``design`` with its engine resolved: the engine is
    in its text, unsaid for Bullet as in a design file)."""
    return board, design_content_sha256(design), hit_rule, bale_to_rest


#: This process's worlds.
WORLDS = WorldCache()
