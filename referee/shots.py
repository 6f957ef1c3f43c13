"""Shot resolvers: what a tractor shot knocks out, as a chance node's outcomes.

The referee decides what a shot *means*; a resolver decides what it *does*. A
resolver has one method::

    outcomes(board, stacks, shooter, target, shot_number)
        -> [(knocked piggies (sorted tuple), probability), ...]

``stacks`` is the position in the layout-file shape (space name -> piggies,
bottom first); ``shot_number`` counts the game's shots from 0, so a resolver
that uses randomness can seed it from the game and stay reproducible.

Here: :class:`ScriptedResolver` for tests and quick simulations. The physical
resolver (a PyBullet shot) is ``sim.resolver.PhysicalResolver``; the referee
never imports it.
"""

from __future__ import annotations

from typing import Protocol

from models.board import Board
from models.errors import InputError
from models.layout import check_piggy


class ShotResolver(Protocol):
    def outcomes(self, board: Board, stacks: dict[str, list[str]], shooter: int, target: str,
                 shot_number: int) -> list[tuple[tuple[str, ...], float]]: ...


class ScriptedResolver:
    """Outcomes given up front.

    Parameters
    ----------
    hit_probability : float
        Without a script: the target alone is knocked out with this probability,
        else nobody.
    script : list of lists of piggy ids
        The outcomes of the game's shots in order (shot k gets ``script[k]``,
        cycling); each is certain. ``[]`` in it means nobody is knocked out.
    """

    def __init__(self, hit_probability: float = 0.5, script: list[list[str]] | None = None):
        if not 0.0 <= hit_probability <= 1.0:
            raise InputError(f"hit probability {hit_probability} is out of range [0, 1]")
        for outcome in script or []:
            for piggy in outcome:
                check_piggy(piggy)
        self.hit_probability = hit_probability
        self.script = script

    def outcomes(self, board, stacks, shooter, target, shot_number):
        if self.script:
            return [(tuple(sorted(self.script[shot_number % len(self.script)])), 1.0)]
        p = self.hit_probability
        return [(o, q) for o, q in (((target,), p), ((), 1.0 - p)) if q > 0]


class TableResolver:
    """Shots decided by a hit map: the target is knocked out with the probability
    measured for the space it stands on (``piggy hitmap``), else nobody.

    ``probabilities`` maps space names to P(target knocked out); the physics ran
    once, when the map was made, so thousands of games run at full speed.
    """

    def __init__(self, probabilities: dict[str, float], source: str = "table"):
        for space, p in probabilities.items():
            if not 0.0 <= p <= 1.0:
                raise InputError(f"{source}: P = {p} for {space} is out of range [0, 1]")
        if not probabilities:
            raise InputError(f"{source}: the hit map has no space in reach")
        self.probabilities, self.source = dict(probabilities), source

    def outcomes(self, board, stacks, shooter, target, shot_number):
        space = next((s for s, pigs in stacks.items() if target in pigs), None)
        if space not in self.probabilities:
            raise InputError(f"{self.source} has no probability for {space}, where {target} "
                             "stands: measure every space the game can use")
        p = self.probabilities[space]
        return [(o, q) for o, q in (((target,), p), ((), 1.0 - p)) if q > 0]
