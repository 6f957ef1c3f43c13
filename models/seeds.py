"""Seed splitting: one root seed, many independent streams.

Every random thing piggy does (a hit map's shot, an RQMC scramble, a game of a
tournament, a sandbox shot) takes its seed from the root seed the user gave and the
numbers that say which thing it is (a space's row and column, a shot's index, a
game's number), through numpy's SeedSequence. A result then depends only on the
root seed and on what it is, not on which process made it or in what order.

The bound on a root seed (:data:`SEED_MAX`) lives here, beside the splitting it
feeds, so that every layer that takes a seed from a person (the command line's
``--seed``, the sandbox server's requests) checks it against the same number without
importing the other. The command line reads it while it builds its parser, before
any work (CONTRIBUTING.md, "A fast start"): numpy is imported by the first split, not
with the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: The largest root seed a person may give: seeds are written into data files as
#: 64-bit integers, and 2^63 - 1 is the largest that every reader (a signed 64-bit
#: column too) takes back as it was written.
SEED_MAX = 2**63 - 1


def seed_sequence(
    root_seed: int, *keys: int, spawn_key: tuple[int, ...] = ()
) -> np.random.SeedSequence:
    """The SeedSequence of the stream named by ``keys`` (and ``spawn_key``, numpy's
    child index) under ``root_seed``; for a generator: ``np.random.default_rng(...)``."""
    import numpy as np

    return np.random.SeedSequence([root_seed, *keys], spawn_key=spawn_key)


def split_seed(root_seed: int, *keys: int, spawn_key: tuple[int, ...] = ()) -> int:
    """The seed, 0 to 2^32 - 1, of the stream named by ``keys`` (and ``spawn_key``)
    under ``root_seed``: the first word of :func:`seed_sequence`'s state."""
    return int(seed_sequence(root_seed, *keys, spawn_key=spawn_key).generate_state(1)[0])
