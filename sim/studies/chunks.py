"""One space's chunk of a sweep, and its shot rows, checked by shape.

A chunk is what a sweep measures on one space (``sim.studies.hitmap.run_space``):
``{"space", "reachable", "arc", "target", "shots": [rows]}``. It is written to a
part file for ``--resume`` (sim/studies/parts.py) and, as the rows of a per-shot
file, to the design-compare cache (sim/studies/design_tools.py). Both are read
back through :func:`check_chunk`, which holds a chunk to the tables below and to
the sweep that is reading it — a checksum alone only says the file was not changed
by someone who did not recompute it.

The tables are the one place that says what a chunk holds: :data:`CHUNK_FIELDS`
its keys, :data:`SHOT_FIELDS` the keys of a shot row with the type of each, and
:data:`SHOT_RULES` how a row's fields go with each other and with the sweep (its
index, its seed as the seed splitting gives it, its target). A new field of a shot
row is one more line in :data:`SHOT_FIELDS` (and, if it must agree with something,
in :data:`SHOT_RULES`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from models.layout import ALL_PIGGIES
from sim.studies.dead_zones import FIRST_STRUCK, OUTCOMES

Check = Callable[[object], bool]


def _flag(v: object) -> bool:
    return isinstance(v, bool)


def _count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _finite(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _text(v: object) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 40


def knocked_piggies(text: str) -> list[str]:
    """The piggies of a row's ``knocked`` field (``"gold-1,pink-2"``; ``""``: none)."""
    return text.split(",") if text else []


def _knocked(v: object) -> bool:
    if not isinstance(v, str):
        return False
    piggies = knocked_piggies(v)
    return len(set(piggies)) == len(piggies) and all(p in ALL_PIGGIES for p in piggies)


#: A chunk's keys: (what is allowed, its check).
CHUNK_FIELDS: dict[str, tuple[str, Check]] = {
    "space": ("the space of the file", _text),
    "reachable": ("true or false", _flag),
    "arc": ("low, high or null", lambda v: v in (None, "low", "high")),
    "target": ("a piggy", lambda v: v in ALL_PIGGIES),
    "shots": ("a list of shot rows", lambda v: isinstance(v, list)),
}

#: A shot row's keys: (what is allowed, its check).
SHOT_FIELDS: dict[str, tuple[str, Check]] = {
    "space": ("a space name", _text),
    "shot": ("a whole number", _count),
    "seed": ("a whole number below 2^64", lambda v: _count(v) and v < 2**64),
    "target": ("a piggy", lambda v: v in ALL_PIGGIES),
    "yaw_deg": ("a finite number of degrees", _finite),
    "pitch_deg": ("a finite number of degrees", _finite),
    "speed_mm_s": ("a finite number of mm/s", _finite),
    "knocked": ("piggies, comma-separated, each once", _knocked),
    "target_knocked": ("true or false", _flag),
    "collateral": ("a whole number", _count),
    "no_contact": ("true or false", _flag),
    "outcome": (f"one of {', '.join(OUTCOMES)}", lambda v: v in OUTCOMES),
    "first_struck": ("what the bale struck first, or nothing", lambda v: v in FIRST_STRUCK),
    "ricochets": ("a whole number", _count),
}


@dataclass(frozen=True)
class Expected:
    """What a chunk read back by a sweep must say.

    ``space`` and ``target``: the space and the piggy the sweep aims at there;
    ``seed_of(i)``: the seed of shot ``i`` as the seed splitting gives it (root seed,
    space, index); ``shots``: the shots per space, or the cap when ``exact`` is false
    (a sweep to a precision stops early).
    """

    space: str
    target: str
    seed_of: Callable[[dict, int], int]
    shots: int
    exact: bool
    scrambles: int = 0


#: The keys an RQMC sweep's rows add (sim/studies/rqmc.py): a row's scramble and its
#: point in it; together they fill a grid of scrambles x points.
RQMC_FIELDS: dict[str, tuple[str, Check]] = {
    "scramble": ("a whole number", _count),
    "point": ("a whole number", _count),
}


#: How a row's fields go together and with the sweep: (what, check(row, expected, index)).
SHOT_RULES: list[tuple[str, Callable[[dict, Expected, int], bool]]] = [
    ("its space", lambda r, e, i: r["space"] == e.space),
    ("its index", lambda r, e, i: r["shot"] == i),
    ("its target", lambda r, e, i: r["target"] == e.target),
    ("its seed", lambda r, e, i: r["seed"] == e.seed_of(r, i)),
    (
        "target_knocked against knocked",
        lambda r, e, i: r["target_knocked"] == (r["target"] in knocked_piggies(r["knocked"])),
    ),
    (
        "collateral against knocked",
        lambda r, e, i: (
            r["collateral"] == sum(p != r["target"] for p in knocked_piggies(r["knocked"]))
        ),
    ),
    (
        "outcome against target_knocked",
        lambda r, e, i: (r["outcome"] == "knocked") == r["target_knocked"],
    ),
]


def check_chunk(chunk: object, expected: Expected) -> str | None:
    """What is wrong with ``chunk`` for a sweep expecting ``expected``, in a few
    words, or None when nothing is."""
    if not isinstance(chunk, dict) or set(chunk) != set(CHUNK_FIELDS):
        return f"a chunk has the keys {', '.join(sorted(CHUNK_FIELDS))}"
    for key, (allowed, check) in CHUNK_FIELDS.items():
        if not check(chunk[key]):
            return f"its '{key}' must be {allowed}"
    if chunk["space"] != expected.space or chunk["target"] != expected.target:
        return f"it is not the chunk of space {expected.space} aimed at {expected.target}"
    shots = chunk["shots"]
    assert isinstance(shots, list)
    if (chunk["arc"] is None) == chunk["reachable"] or (not chunk["reachable"] and shots):
        return "a space in reach has an arc and shots, one out of reach neither"
    if chunk["reachable"] and not (
        len(shots) == expected.shots if expected.exact else 1 <= len(shots) <= expected.shots
    ):
        want = expected.shots if expected.exact else f"1 to {expected.shots}"
        return f"{len(shots)} shots where this sweep makes {want}"
    for index, row in enumerate(shots):
        problem = check_row(row, expected, index)
        if problem:
            return f"shot {index}: {problem}"
    if expected.scrambles and shots:
        points = len(shots) // expected.scrambles
        if sorted((r["scramble"], r["point"]) for r in shots) != [
            (k, j) for k in range(expected.scrambles) for j in range(points)
        ]:
            return f"its shots do not fill {expected.scrambles} scrambles with the same points each"
    return None


def check_row(row: object, expected: Expected, index: int) -> str | None:
    """What is wrong with shot row ``index`` of a chunk, or None."""
    fields = SHOT_FIELDS | RQMC_FIELDS if expected.scrambles else SHOT_FIELDS
    if not isinstance(row, dict) or set(row) != set(fields):
        return f"a shot row has the keys {', '.join(fields)}"
    for key, (allowed, check) in fields.items():
        if not check(row[key]):
            return f"its '{key}' must be {allowed}"
    for what, rule in SHOT_RULES:
        if not rule(row, expected, index):
            return f"{what} does not go with this sweep"
    return None
