"""Shots measured on the real toy, as a CSV file (docs/real-toy.md, "The CSV").

One row per shot fired on an empty board: ``pitch_deg``, ``yaw_deg`` (the settings
used), ``x_mm``, ``y_mm`` (where the bale first touched the board, board frame),
and optionally ``speed_mm_s`` (a chronograph's reading) and ``pivot_height_mm``;
an optional cell may be left empty. ``piggy measure`` also writes where the bale came
to rest (``rest_x_mm``, ``rest_y_mm``: empty where it left the board or the picture)
and the bounce's second touch of the board (``second_x_mm``, ``second_y_mm``: empty
where there was none or it was not seen), which ``piggy calibrate --contact`` fits
the bale's contact physics to (sim/studies/calibrating/contact_fit.py). A ``quality``
column (``piggy measure``'s words on each shot) and the piggies it read with
``--layout`` (``knocked``, ``moved_mm``, ``unseen``: ``piggy calibrate --check``
reads them) may be there and are not read here. Rows are numbered as a spreadsheet
shows them: the header is row 1.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models import file_kinds
from models.design import RANGES
from models.errors import InputError
from models.files import read_text
from models.numbers import ascii_decimal
from models.text import shown

REQUIRED = ("pitch_deg", "yaw_deg", "x_mm", "y_mm")
OPTIONAL = ("speed_mm_s", "pivot_height_mm")
#: Where the bale came to rest and where it touched the board the second time, each
#: point a pair of columns whose cells are both given or both empty.
CONTACT = ("rest_x_mm", "rest_y_mm", "second_x_mm", "second_y_mm")
#: Columns read past: ``piggy measure``'s per-shot quality, words for a person, and
#: the piggies it read with ``--layout`` (``piggy film --truth`` writes ``knocked``).
NOTES = ("quality", "knocked", "moved_mm", "unseen")
#: Allowed values of each column: the pitch within any design's reach, a yaw as the
#: CLI takes it, landings within 5 m, speeds and pivots as in design files.
_RANGES = {
    "pitch_deg": (-60.0, 85.0),
    "yaw_deg": (-180.0, 180.0),
    "x_mm": (-5000.0, 5000.0),
    "y_mm": (-5000.0, 5000.0),
    "speed_mm_s": RANGES["launcher.muzzle_speed_mm_s"],
    "pivot_height_mm": RANGES["launcher.pivot_height_mm"],
    **{name: (-5000.0, 5000.0) for name in CONTACT},
}


@dataclass(frozen=True)
class MeasuredShots:
    """The shots as arrays (n,); an optional column's missing values are NaN. The
    rest and second-touch points are (n, 2) arrays, NaN where a cell is empty or the
    file has no such columns; ``columns`` are the header's names."""

    pitch_deg: np.ndarray
    yaw_deg: np.ndarray
    x_mm: np.ndarray
    y_mm: np.ndarray
    speed_mm_s: np.ndarray
    pivot_height_mm: np.ndarray
    source: str = "shots"
    rest_mm: np.ndarray | None = None
    second_mm: np.ndarray | None = None
    columns: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.pitch_deg)


def read_shots(path) -> MeasuredShots:
    """Read and check a shots CSV; anything wrong is one :class:`InputError` line
    naming the row and the column."""
    path = Path(path)
    text = read_text(path, "shots")  # a regular UTF-8 file within the cap
    try:
        return parse_shots(text, source=path.name)
    except InputError:  # a design, a layout or a hit map given as shots is told so
        source = f"shots file {shown(str(path))}"
        file_kinds.refuse_other(file_kinds.kind_of_text(text), "shots", source)
        raise


def parse_shots(text: str, source: str = "shots") -> MeasuredShots:
    """:func:`read_shots` on the text of a file."""
    allowed = (*REQUIRED, *OPTIONAL, *CONTACT)
    rows = csv_rows(text, source, REQUIRED)
    header = header_of(
        rows[0],
        source,
        REQUIRED,
        f"columns: {', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)}",
        known=(*allowed, *NOTES),
        unknown_hint=f"columns: {', '.join(REQUIRED)}; optional {', '.join((*OPTIONAL, *CONTACT))}",
    )
    columns: dict[str, list[float]] = {name: [] for name in allowed}
    for number, row in enumerate(rows[1:], start=2):
        cells = row_cells(header, row, number, source)  # NOTES columns are not read
        for name in allowed:
            columns[name].append(cell_number(cells.get(name, ""), name, number, source))
        _check_points({name: values[-1] for name, values in columns.items()}, number, source)
    arrays = {name: np.array(values, float) for name, values in columns.items()}
    return MeasuredShots(
        **{name: arrays[name] for name in (*REQUIRED, *OPTIONAL)},
        source=source,
        rest_mm=np.stack([arrays["rest_x_mm"], arrays["rest_y_mm"]], -1),
        second_mm=np.stack([arrays["second_x_mm"], arrays["second_y_mm"]], -1),
        columns=tuple(header),
    )


def csv_rows(text: str, source: str, required: Sequence[str]) -> list[list[str]]:
    """A CSV file's rows that are not blank, the header first; a file that is not
    CSV, or holds no row, is refused on one line (naming the columns its header
    must name, ``required``). Shared with the check's CSV and the angles CSV
    (sim/studies/calibrating/knocked_csv.py, sim/real_toy/angles.py), as are
    :func:`header_of` and :func:`row_cells`."""
    try:
        rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise InputError(f"{source}: not a valid CSV file ({exc})") from None
    if not rows:
        raise InputError(f"{source}: empty; the header must name {', '.join(required)}")
    return rows


def header_of(
    row: list[str],
    source: str,
    required: Sequence[str],
    missing_hint: str,
    known: Sequence[str] | None = None,
    unknown_hint: str = "",
) -> list[str]:
    """A CSV header's column names, stripped and checked: each one of ``known``
    (None: any), none named twice, each of ``required`` there; a bad one is refused
    on one line naming it, with what the file may hold (``unknown_hint``, or
    ``missing_hint`` for a column missing)."""
    header = [h.strip() for h in row]
    unknown = [name for name in header if known is not None and name not in known]
    if unknown:
        raise InputError(f"{source}: unknown column '{shown(unknown[0], 40)}' ({unknown_hint})")
    if len(set(header)) != len(header):
        raise InputError(f"{source}: a column is named twice in the header")
    for name in required:
        if name not in header:
            raise InputError(f"{source}: missing column '{name}' ({missing_hint})")
    return header


def row_cells(header: list[str], row: list[str], number: int, source: str) -> dict[str, str]:
    """Row ``number`` (as a spreadsheet numbers it) by its header's names; one with
    more or fewer values than the header is refused on one line."""
    if len(row) != len(header):
        raise InputError(f"{source} row {number}: {len(row)} values, the header has {len(header)}")
    return dict(zip(header, row, strict=True))


def _check_points(row: dict[str, float], number: int, source: str) -> None:
    """A row's points: a landing away from the pivot, each contact point whole."""
    if math.hypot(row["x_mm"], row["y_mm"]) < 1.0:
        raise InputError(
            f"{source} row {number}: the landing (x_mm, y_mm) is at the "
            "tractor's pivot; measure where the bale first touched the board"
        )
    for x_name, y_name in (CONTACT[:2], CONTACT[2:]):
        if math.isnan(row[x_name]) != math.isnan(row[y_name]):
            raise InputError(
                f"{source} row {number}: give both {x_name} and {y_name}, or leave both empty"
            )


def cell_number(text: str, name: str, row: int, source: str) -> float:
    """A CSV cell of column ``name`` (row ``row`` of ``source``) as a number in its
    range; NaN where an optional cell is empty. Shared with the check's CSV
    (sim/studies/calibrating/knocked_csv.py)."""
    text = text.strip()
    if not text:
        if name in REQUIRED:
            raise InputError(f"{source} row {row}, column '{name}': empty (it is required)")
        return math.nan
    value = ascii_decimal(text)
    if value is None:
        raise InputError(
            f"{source} row {row}, column '{name}': '{shown(text)}' is not a number in ASCII digits"
        )
    lo, hi = _RANGES[name]
    if not lo <= value <= hi:  # NaN fails this too
        raise InputError(
            f"{source} row {row}, column '{name}': {text} is out of range [{lo:g}, {hi:g}]"
        )
    return value
