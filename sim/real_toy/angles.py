"""The angles a video's shots were fired at, in order: the CSV a person writes down
while filming (docs/real-toy.md, "The CSV"), before any landing is measured.

One row per shot, a header naming the columns: ``pitch_deg`` and ``yaw_deg`` are
required; the other columns of a measured-shots CSV (``x_mm``, ``y_mm``,
``speed_mm_s``, ``pivot_height_mm``) may be there and are not read, so a measured
file serves as its own angles file. Rows are numbered as a spreadsheet shows them
(the header is row 1); every error names its row and column.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from models.errors import InputError
from models.files import read_text
from models.numbers import ascii_decimal
from models.text import shown
from sim.studies.calibrating.shots_csv import OPTIONAL, REQUIRED, csv_rows, header_of, row_cells

ANGLES = ("pitch_deg", "yaw_deg")
#: The angles as the measured-shots CSV allows them, degrees.
RANGES = {"pitch_deg": (-60.0, 85.0), "yaw_deg": (-180.0, 180.0)}
#: The most shots one file may hold (an afternoon's filming is 40).
MAX_SHOTS = 1000


@dataclass(frozen=True)
class Angles:
    """The settings of each shot, in the order fired: degrees, one entry a shot."""

    pitch_deg: tuple[float, ...]
    yaw_deg: tuple[float, ...]
    source: str = "angles"

    def __len__(self) -> int:
        return len(self.pitch_deg)


def read_angles(path) -> Angles:
    """Read and check an angles CSV; anything wrong is one :class:`InputError` line."""
    path = Path(path)
    return parse_angles(read_text(path, "angles"), source=path.name)


def parse_angles(text: str, source: str = "angles") -> Angles:
    """:func:`read_angles` on the text of a file."""
    rows = csv_rows(text, source, ANGLES)
    allowed = (*REQUIRED, *OPTIONAL)
    header = header_of(
        rows[0],
        source,
        ANGLES,
        f"columns: {', '.join(ANGLES)}",
        known=allowed,
        unknown_hint=f"columns: {', '.join(ANGLES)}; may also have "
        f"{', '.join(c for c in allowed if c not in ANGLES)}",
    )
    if len(rows) < 2:
        raise InputError(f"{source}: no shots; one row a shot under the header")
    if len(rows) - 1 > MAX_SHOTS:
        raise InputError(f"{source}: {len(rows) - 1} shots, at most {MAX_SHOTS}")
    values: dict[str, list[float]] = {name: [] for name in ANGLES}
    for number, row in enumerate(rows[1:], start=2):
        cells = row_cells(header, row, number, source)
        for name in ANGLES:
            values[name].append(_angle(cells[name].strip(), name, number, source))
    return Angles(tuple(values["pitch_deg"]), tuple(values["yaw_deg"]), source)


def _angle(text: str, name: str, row: int, source: str) -> float:
    where = f"{source} row {row}, column '{name}'"
    if not text:
        raise InputError(f"{where}: empty (it is required)")
    value = ascii_decimal(text)
    if value is None:
        raise InputError(f"{where}: '{shown(text, 40)}' is not a number in ASCII digits")
    lo, hi = RANGES[name]
    if not lo <= value <= hi:
        raise InputError(f"{where}: {value:g} is out of range ({lo:g} to {hi:g})")
    return value
