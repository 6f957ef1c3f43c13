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
never imports it. :func:`parse_shots` reads the one grammar that names a resolver
(``--shots`` on the command line, ``shots=`` of the OpenSpiel games).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Protocol

from models.board import Board, parse_space_name
from models.errors import InputError
from models.layout import check_piggy
from models.numbers import ascii_decimal
from models.tables import read_table
from referee.validate import quoted

#: A space's name as the board writes it: no leading zeros, no more than 3 digits.
SPACE_NAME = re.compile(r"r(0|[1-9][0-9]{0,2})c(0|[1-9][0-9]{0,2})")


class ShotResolver(Protocol):
    def outcomes(
        self,
        board: Board,
        stacks: dict[str, list[str]],
        shooter: int,
        target: str,
        shot_number: int,
    ) -> list[tuple[tuple[str, ...], float]]: ...


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
        if not _is_probability(hit_probability):
            raise InputError(f"hit probability {quoted(hit_probability)} is not a number in [0, 1]")
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

    ``probabilities`` maps space names (``r8c3``, written as the board writes them)
    to P(target knocked out), each a number in [0, 1]; the physics ran once, when the
    map was made, so thousands of games run at full speed. Anything else is a
    one-line InputError naming ``source`` and the problem.
    """

    def __init__(self, probabilities: dict[str, float], source: str = "table"):
        if not isinstance(probabilities, dict) or not probabilities:
            raise InputError(f"{source}: the hit map has no space in reach")
        for space, p in probabilities.items():
            if not isinstance(space, str) or not SPACE_NAME.fullmatch(space):
                raise InputError(f"{source}: {quoted(space)} is not a space name like r8c3")
            if not _is_probability(p):
                raise InputError(f"{source}: P = {quoted(p)} for {space} is not a number in [0, 1]")
        self.probabilities, self.source = dict(probabilities), source

    @classmethod
    def from_file(cls, path: str | Path) -> TableResolver:
        """From a hit map file, CSV or Parquet (``piggy hitmap``; its rows read by
        :func:`models.tables.read_table`, held to :meth:`from_rows`): the one reader of
        hit maps, for the command line and the OpenSpiel game alike."""
        return cls.from_rows(read_table(path), source=f"hit map {quoted(os.fspath(path))}")

    @classmethod
    def from_rows(cls, rows: list[dict], source: str) -> TableResolver:
        """From a hit map file's rows (``piggy hitmap``: a ``space`` column, and
        ``p_target`` for the rows whose ``reachable`` is true; a table without a
        ``reachable`` column counts every row as in reach)."""
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise InputError(f"{source}: not a table of rows")
        for column in ("space", "p_target"):
            if rows and column not in rows[0]:
                raise InputError(
                    f"{source}: no '{column}' column (columns: "
                    f"{quoted(', '.join(map(str, rows[0])))})"
                )
        probabilities: dict[str, float] = {}
        seen = set()
        for number, row in enumerate(rows, start=1):
            space = row.get("space")
            if not isinstance(space, str) or not SPACE_NAME.fullmatch(space):
                raise InputError(
                    f"{source}: row {number}: {quoted(space)} is not a space name like r8c3"
                )
            if space in seen:
                raise InputError(f"{source}: space {space} is listed twice (row {number})")
            seen.add(space)
            if row.get("reachable", True) is True:
                if not _is_probability(row.get("p_target")):
                    raise InputError(
                        f"{source}: row {number}: p_target "
                        f"{quoted(row.get('p_target'))} is not a number in [0, 1]"
                    )
                probabilities[space] = float(row["p_target"])
            elif row.get("reachable") is not False and row.get("reachable") is not None:
                raise InputError(
                    f"{source}: row {number}: reachable "
                    f"{quoted(row.get('reachable'))} is not true or false"
                )
        return cls(probabilities, source)

    def check_board(self, board: Board) -> None:
        """Every space of the table lies on ``board``'s grid (the game calls this). A
        hole's entry is tolerated: no piggy ever stands there to be shot at."""
        for space in self.probabilities:
            row, col = parse_space_name(space)
            if not (row < board.rows and col < board.cols):
                raise InputError(
                    f"{self.source}: {space} is off board {quoted(board.name)} "
                    f"(rows 0-{board.rows - 1}, columns 0-{board.cols - 1}): "
                    "the hit map was made for another board"
                )

    def outcomes(self, board, stacks, shooter, target, shot_number):
        space = next((s for s, pigs in stacks.items() if target in pigs), None)
        if space not in self.probabilities:
            raise InputError(
                f"{self.source} has no probability for {space}, where {target} "
                "stands: measure every space the game can use"
            )
        p = self.probabilities[space]
        return [(o, q) for o, q in (((target,), p), ((), 1.0 - p)) if q > 0]


def _is_probability(p) -> bool:
    return (
        isinstance(p, int | float)
        and not isinstance(p, bool)
        and math.isfinite(p)
        and 0.0 <= p <= 1.0
    )


def parse_shots(text: str) -> tuple[str, str | float | None] | None:
    """What ``text`` names: ``("physics", None)``, ``("scripted", P)`` (``scripted``
    alone: 0.5; P None where ``scripted:P`` spells no number 0-1 in ASCII digits;
    ``scripted:`` names none) or ``("table", FILE)`` (FILE as written, maybe empty);
    None for none of these. Each caller words its own refusals: the command line's
    name its option, the OpenSpiel games' their parameter."""
    kind, colon, rest = text.partition(":")
    if text == "physics":
        return "physics", None
    if kind == "scripted":
        p = ascii_decimal(rest.strip()) if colon else 0.5
        return "scripted", p if p is not None and 0.0 <= p <= 1.0 else None
    if kind == "table" and colon:
        return "table", rest
    return None
