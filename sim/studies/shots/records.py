"""The records of a sweep: a shot row, and a space's part (its shots), read back by
shape.

A **part** is what a sweep measures on one space (``sim.studies.shots.space_firing.run_space``):
the space, whether it is in reach, the arc, the target and its shots, one
:class:`ShotRow` each. A part is written to a part file for ``--resume``
(sim/studies/running/parts.py) and, as the rows of a per-shot file, to the design-compare
cache (sim/studies/comparing/design_tools.py). Dicts exist only at the file edge
(:meth:`SpaceShots.to_dict`, :meth:`ShotRow.to_dict`); whatever is read back comes
in through :meth:`SpaceShots.read`, which holds it to the fields below and to the
sweep that is reading it (:class:`Expected`) — a checksum alone only says the file
was not changed by someone who did not recompute it. What is wrong is said in a
few words naming the field (:class:`ShapeError`); the readers add the file.

The tables are the one place that says what a record holds: :data:`PART_FIELDS`,
:data:`SHOT_FIELDS` (with :data:`RQMC_FIELDS` for an RQMC sweep's rows) and
:data:`SHOT_RULES`, how a row's fields go with each other and with the sweep. A new
field of a shot row is one more field of :class:`ShotRow` and one more line in
:data:`SHOT_FIELDS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

from models.layout import ALL_PIGGIES
from sim.studies.shots.dead_zones import DEAD_ZONES, FIRST_STRUCK, OUTCOMES

Check = Callable[[object], bool]


class ShapeError(ValueError):
    """What is wrong with a record read back, in a few words naming the field."""


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


@dataclass(frozen=True, slots=True)
class ShotRow:
    """One shot of a sweep at a space: which shot, its seed (the scramble's with
    RQMC), the aim as fired (degrees; yaw in (-180, 180]), the muzzle speed (mm/s) and
    what it did. ``scramble`` and ``point`` only in an RQMC sweep (sim/studies/shots/rqmc.py)."""

    space: str
    shot: int
    seed: int
    target: str
    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float
    knocked: str  # the piggies knocked out, comma-separated ("" for none)
    target_knocked: bool
    collateral: int
    no_contact: bool
    outcome: str
    first_struck: str
    ricochets: int
    scramble: int | None = None
    point: int | None = None

    def to_dict(self) -> dict:
        """The row as a file holds it, its fields in order (no ``scramble`` and
        ``point`` for plain Monte Carlo)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.scramble is None:
            del out["scramble"], out["point"]
        return out

    @classmethod
    def read(cls, row: object, rqmc: bool) -> ShotRow:
        """A row read back from a file, held to :data:`SHOT_FIELDS` (and
        :data:`RQMC_FIELDS` with ``rqmc``); else a :class:`ShapeError`."""
        wanted = SHOT_FIELDS | RQMC_FIELDS if rqmc else SHOT_FIELDS
        if not isinstance(row, dict) or set(row) != set(wanted):
            raise ShapeError(f"a shot row has the keys {', '.join(wanted)}")
        for key, (allowed, check) in wanted.items():
            if not check(row[key]):
                raise ShapeError(f"its '{key}' must be {allowed}")
        return cls(**row)


@dataclass(frozen=True, slots=True)
class SpaceShots:
    """A sweep's part: one space's shots, in the order they were fired. A space out
    of reach has no arc and no shots."""

    space: str
    reachable: bool
    arc: str | None  # "low", "high", or None out of reach
    target: str
    shots: tuple[ShotRow, ...]

    @property
    def rqmc(self) -> bool:
        """Whether the shots are an RQMC sweep's (they name their scramble)."""
        return bool(self.shots) and self.shots[0].scramble is not None

    def to_dict(self) -> dict:
        """The part as a part file holds it."""
        return {
            "space": self.space,
            "reachable": self.reachable,
            "arc": self.arc,
            "target": self.target,
            "shots": [r.to_dict() for r in self.shots],
        }

    @classmethod
    def read(cls, data: object, expected: Expected) -> SpaceShots:
        """A part read back for a sweep expecting ``expected``; a
        :class:`ShapeError` saying what is wrong when it is not the part this sweep
        makes (fields, counts, seeds, the scrambles' grid)."""
        if not isinstance(data, dict) or set(data) != set(PART_FIELDS):
            raise ShapeError(f"a part has the keys {', '.join(sorted(PART_FIELDS))}")
        for key, (allowed, check) in PART_FIELDS.items():
            if not check(data[key]):
                raise ShapeError(f"its '{key}' must be {allowed}")
        if data["space"] != expected.space or data["target"] != expected.target:
            raise ShapeError(
                f"it is not the part of space {expected.space} aimed at {expected.target}"
            )
        rows = data["shots"]
        if (data["arc"] is None) == data["reachable"] or (not data["reachable"] and rows):
            raise ShapeError("a space in reach has an arc and shots, one out of reach neither")
        if data["reachable"] and not (
            len(rows) == expected.shots if expected.exact else 1 <= len(rows) <= expected.shots
        ):
            want = expected.shots if expected.exact else f"1 to {expected.shots}"
            raise ShapeError(f"{len(rows)} shots where this sweep makes {want}")
        shots = tuple(_read_row(row, expected, index) for index, row in enumerate(rows))
        if expected.scrambles and shots:
            points = len(shots) // expected.scrambles
            if sorted((r.scramble, r.point) for r in shots) != [
                (k, j) for k in range(expected.scrambles) for j in range(points)
            ]:
                raise ShapeError(
                    f"its shots do not fill {expected.scrambles} scrambles with the same "
                    "points each"
                )
        return cls(data["space"], data["reachable"], data["arc"], data["target"], shots)


def _read_row(row: object, expected: Expected, index: int) -> ShotRow:
    """Shot row ``index`` of a part, held to the fields and to the sweep's rules."""
    try:
        shot = ShotRow.read(row, rqmc=bool(expected.scrambles))
        for what, rule in SHOT_RULES:
            if not rule(shot, expected, index):
                raise ShapeError(f"{what} does not go with this sweep")
    except ShapeError as exc:
        raise ShapeError(f"shot {index}: {exc}") from None
    return shot


@dataclass(frozen=True)
class Expected:
    """What a part read back by a sweep must say.

    ``space`` and ``target``: the space and the piggy the sweep aims at there;
    ``seed_of(row, i)``: the seed of shot ``i`` as the seed splitting gives it (root
    seed, space, index or scramble); ``shots``: the shots per space, or the cap when
    ``exact`` is false (a sweep to a precision stops early); ``scrambles``: RQMC's
    scrambles (0 for plain Monte Carlo).
    """

    space: str
    target: str
    seed_of: Callable[[ShotRow, int], int]
    shots: int
    exact: bool
    scrambles: int = 0


#: A part's keys: (what is allowed, its check).
PART_FIELDS: dict[str, tuple[str, Check]] = {
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
    "seed": ("a whole number below 2^64", lambda v: _count(v) and isinstance(v, int) and v < 2**64),
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

#: The keys an RQMC sweep's rows add (sim/studies/shots/rqmc.py): a row's scramble and its
#: point in it; together they fill a grid of scrambles x points.
RQMC_FIELDS: dict[str, tuple[str, Check]] = {
    "scramble": ("a whole number", _count),
    "point": ("a whole number", _count),
}

#: How a row's fields go together and with the sweep: (what, check(row, expected, index)).
SHOT_RULES: list[tuple[str, Callable[[ShotRow, Expected, int], bool]]] = [
    ("its space", lambda r, e, i: r.space == e.space),
    ("its index", lambda r, e, i: r.shot == i),
    ("its target", lambda r, e, i: r.target == e.target),
    ("its seed", lambda r, e, i: r.seed == e.seed_of(r, i)),
    (
        "target_knocked against knocked",
        lambda r, e, i: r.target_knocked == (r.target in knocked_piggies(r.knocked)),
    ),
    (
        "collateral against knocked",
        lambda r, e, i: r.collateral == sum(p != r.target for p in knocked_piggies(r.knocked)),
    ),
    (
        "outcome against target_knocked",
        lambda r, e, i: (r.outcome == "knocked") == r.target_knocked,
    ),
]


#: The shares a hit map gives per space, each with its 95 % interval.
SHARES = ("p_target", "p_any", "p_collateral", "p_no_contact", "p_blocked", "p_missed")


@dataclass(frozen=True, slots=True)
class SpaceSummary:
    """One space's row of a hit map (``sim.studies.shots.space_firing.summarise`` of its part):
    where it is (row, column; its centre in mm from the launcher), whether it is in
    reach and with which arc, the shots fired, each share of :data:`SHARES` with its
    95 % interval (None with no shot), the mean ricochets and its dead zone
    (sim/studies/shots/dead_zones.py; None where it is none)."""

    space: str
    row: int
    col: int
    x_mm: float
    y_mm: float
    distance_mm: float
    reachable: bool
    arc: str | None
    target: str
    shots: int
    p_target: float | None
    p_target_ci_low: float | None
    p_target_ci_high: float | None
    p_any: float | None
    p_any_ci_low: float | None
    p_any_ci_high: float | None
    p_collateral: float | None
    p_collateral_ci_low: float | None
    p_collateral_ci_high: float | None
    p_no_contact: float | None
    p_no_contact_ci_low: float | None
    p_no_contact_ci_high: float | None
    p_blocked: float | None
    p_blocked_ci_low: float | None
    p_blocked_ci_high: float | None
    p_missed: float | None
    p_missed_ci_low: float | None
    p_missed_ci_high: float | None
    mean_ricochets: float | None
    dead_zone: str | None

    def to_dict(self) -> dict:
        """The row as the hit-map file holds it, its columns in order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def read(cls, row: object) -> SpaceSummary:
        """A hit-map file's row read back, held to :data:`SUMMARY_FIELDS`; else a
        :class:`ShapeError` naming the field."""
        if not isinstance(row, dict) or set(row) != set(SUMMARY_FIELDS):
            raise ShapeError(f"a hit map row has the columns {', '.join(SUMMARY_FIELDS)}")
        for key, (allowed, check) in SUMMARY_FIELDS.items():
            if not check(row[key]):
                raise ShapeError(f"its '{key}' must be {allowed}")
        return cls(**row)


def _share(v: object) -> bool:
    return v is None or (isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1)


#: A hit-map row's columns: (what is allowed, its check).
SUMMARY_FIELDS: dict[str, tuple[str, Check]] = {
    "space": ("a space name", _text),
    "row": ("a whole number", _count),
    "col": ("a whole number", _count),
    "x_mm": ("a finite number of mm", _finite),
    "y_mm": ("a finite number of mm", _finite),
    "distance_mm": ("a finite number of mm", _finite),
    "reachable": ("true or false", _flag),
    "arc": ("low, high or null", lambda v: v in (None, "low", "high")),
    "target": ("a piggy", lambda v: v in ALL_PIGGIES),
    "shots": ("a whole number", _count),
    **{
        f"{share}{end}": ("a number in [0, 1] or null", _share)
        for share in SHARES
        for end in ("", "_ci_low", "_ci_high")
    },
    "mean_ricochets": ("a finite number or null", lambda v: v is None or _finite(v)),
    "dead_zone": (f"one of {', '.join(DEAD_ZONES)} or null", lambda v: v in (None, *DEAD_ZONES)),
}


@dataclass(frozen=True, slots=True)
class MeasuredSpace:
    """A space of a design's hit map as the design studies use it: its part and its
    row of the hit map (its summary)."""

    part: SpaceShots
    row: SpaceSummary


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    """Design B against design A at one space, on the shots both fired
    (sim/studies/comparing/compare.py): P_A, P_B and ``diff`` = P_B - P_A with its 95 % paired
    interval, the discordant pairs (``a_only``: A knocked the target out and B did
    not), the test's p-value and Holm's adjusted one, whether it is significant, and
    why the sequential paired rule stopped there (``stop``; None for two maps).
    Where one design does not reach, ``shots`` is 0 and the difference None."""

    space: str
    reachable_a: bool
    reachable_b: bool
    shots: int
    p_a: float | None
    p_b: float | None
    diff: float | None
    diff_ci_low: float | None
    diff_ci_high: float | None
    a_only: int
    b_only: int
    p_value: float | None
    p_value_adjusted: float | None
    significant: bool
    stop: str | None = None  # the spaces rule's: sign, equivalent or cap

    def to_dict(self) -> dict:
        """The row as JSON and the comparison's files hold it, its fields in order
        (``stop`` only where the spaces rule fired the pairs)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.stop is None:
            del out["stop"]
        return out
