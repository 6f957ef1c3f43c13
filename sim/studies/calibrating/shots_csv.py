"""Shots measured on the real toy, as a CSV file (docs/real-toy.md, "The CSV").

One row per shot fired on an empty board: ``pitch_deg``, ``yaw_deg`` (the settings
used), ``x_mm``, ``y_mm`` (where the bale first touched the board, board frame),
and optionally ``speed_mm_s`` (a chronograph's reading) and ``pivot_height_mm``;
an optional cell may be left empty. A ``quality`` column (``piggy measure``'s
words on each shot) and the bale's rest point and second touch (``rest_x_mm``,
``rest_y_mm``, ``second_x_mm``, ``second_y_mm``: ``piggy measure``'s and
``piggy film --truth``'s) may be there and are not read. Rows are numbered as a spreadsheet shows
them: the header is row 1.
"""

from __future__ import annotations

import csv
import io
import math
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
#: Columns read past: ``piggy measure``'s per-shot quality, words for a person, and
#: where the bale came to rest and touched the board again, and the piggies it read
#: with ``--layout`` (``piggy film --truth`` writes ``knocked``); the launcher's fit
#: does not use them.
NOTES = (
    "quality",
    "rest_x_mm",
    "rest_y_mm",
    "second_x_mm",
    "second_y_mm",
    "knocked",
    "moved_mm",
    "unseen",
)
#: Allowed values of each column: the pitch within any design's reach, a yaw as the
#: CLI takes it, landings within 5 m, speeds and pivots as in design files.
_RANGES = {
    "pitch_deg": (-60.0, 85.0),
    "yaw_deg": (-180.0, 180.0),
    "x_mm": (-5000.0, 5000.0),
    "y_mm": (-5000.0, 5000.0),
    "speed_mm_s": RANGES["launcher.muzzle_speed_mm_s"],
    "pivot_height_mm": RANGES["launcher.pivot_height_mm"],
}


@dataclass(frozen=True)
class MeasuredShots:
    """The shots as arrays (n,); an optional column's missing values are NaN."""

    pitch_deg: np.ndarray
    yaw_deg: np.ndarray
    x_mm: np.ndarray
    y_mm: np.ndarray
    speed_mm_s: np.ndarray
    pivot_height_mm: np.ndarray
    source: str = "shots"

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
    allowed = (*REQUIRED, *OPTIONAL)
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(f"{source}: not a valid CSV file ({exc})") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise InputError(f"{source}: empty; the header must name {', '.join(REQUIRED)}")
    header = [h.strip() for h in rows[0]]
    for name in header:
        if name not in allowed and name not in NOTES:
            raise InputError(
                f"{source}: unknown column '{name}' (columns: "
                f"{', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)})"
            )
    if len(set(header)) != len(header):
        raise InputError(f"{source}: a column is named twice in the header")
    for name in REQUIRED:
        if name not in header:
            raise InputError(
                f"{source}: missing column '{name}' (columns: "
                f"{', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)})"
            )
    columns: dict[str, list[float]] = {name: [] for name in allowed}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(
                f"{source} row {number}: {len(row)} values, the header has {len(header)}"
            )
        cells = dict(zip(header, row, strict=True))  # NOTES columns are not read
        for name in allowed:
            columns[name].append(_number(cells.get(name, ""), name, number, source))
        if math.hypot(columns["x_mm"][-1], columns["y_mm"][-1]) < 1.0:
            raise InputError(
                f"{source} row {number}: the landing (x_mm, y_mm) is at the "
                "tractor's pivot; measure where the bale first touched the board"
            )
    return MeasuredShots(
        **{name: np.array(values, float) for name, values in columns.items()}, source=source
    )


def _number(text: str, name: str, row: int, source: str) -> float:
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
