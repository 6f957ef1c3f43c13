"""The measured shots the check reads (``piggy calibrate --check``): ``piggy measure
--layout``'s CSV, or one made by the sandbox (sim/studies/calibrating/knocked_shots.py).

Read per shot: ``pitch_deg``, ``yaw_deg`` (the angles set), ``speed_mm_s`` (optional,
may be empty), ``knocked`` (the piggies the video shows knocked out, names joined by
``;``, empty for none) and, where the file has it, ``unseen`` (piggies the camera
could not tell about in that shot: their piggy-shots are left out). Every other
column (first touch, rest, quality, ...) is read past: the check needs none. Rows
are numbered as a spreadsheet shows them: the header is row 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models import file_kinds
from models.errors import InputError
from models.files import read_text
from models.text import shown
from sim.studies.calibrating.shots_csv import cell_number, csv_rows, header_of, row_cells

REQUIRED = ("pitch_deg", "yaw_deg", "knocked")
OPTIONAL = ("speed_mm_s", "unseen")
#: The numbers read, each in the range a shots CSV allows (shots_csv.cell_number).
_NUMBERS = ("pitch_deg", "yaw_deg", "speed_mm_s")


@dataclass(frozen=True)
class KnockedShots:
    """The shots as arrays: angles (n,), speeds (n,; NaN where not measured), and
    for each shot the piggies knocked out and the piggies unseen."""

    pitch_deg: np.ndarray
    yaw_deg: np.ndarray
    speed_mm_s: np.ndarray
    knocked: tuple[frozenset[str], ...]
    unseen: tuple[frozenset[str], ...]
    source: str = "measured shots"

    def __len__(self) -> int:
        return len(self.pitch_deg)

    def outcomes(self, piggies: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(observed, seen), each (shots, piggies) bool, piggies in the given order."""
        observed = np.array([[p in k for p in piggies] for k in self.knocked], bool)
        seen = np.array([[p not in u for p in piggies] for u in self.unseen], bool)
        return observed.reshape(len(self), len(piggies)), seen.reshape(len(self), len(piggies))


def read_knocked_shots(path, piggies: list[str]) -> KnockedShots:
    """Read and check the measured CSV against the layout's ``piggies``; anything wrong
    is one :class:`InputError` line naming the row and the column."""
    path = Path(path)
    text = read_text(path, "measured shots")
    try:
        return parse_knocked_shots(text, piggies, source=path.name)
    except InputError:  # a design, a layout or a hit map given here is told so
        source = f"measured shots file {shown(str(path))}"
        file_kinds.refuse_other(file_kinds.kind_of_text(text), "shots", source)
        raise


def parse_knocked_shots(text: str, piggies: list[str], source: str = "shots") -> KnockedShots:
    """:func:`read_knocked_shots` on the text of a file."""
    rows = csv_rows(text, source, REQUIRED)
    header = header_of(
        rows[0],
        source,
        REQUIRED,
        f"the check needs {', '.join(REQUIRED)}; optional {', '.join(OPTIONAL)}; "
        "`piggy measure --layout` writes them",
    )
    if len(rows) < 3:
        raise InputError(f"{source}: {len(rows) - 1} shot(s); the check needs at least 2")
    numbers: dict[str, list[float]] = {name: [] for name in _NUMBERS}
    knocked, unseen = [], []
    for number, row in enumerate(rows[1:], start=2):
        cells = row_cells(header, row, number, source)
        for name in _NUMBERS:
            numbers[name].append(cell_number(cells.get(name, ""), name, number, source))
        knocked.append(_names(cells["knocked"], "knocked", piggies, number, source))
        unseen.append(_names(cells.get("unseen", ""), "unseen", piggies, number, source))
        if both := knocked[-1] & unseen[-1]:
            raise InputError(
                f"{source} row {number}: {', '.join(sorted(both))} is both knocked and unseen"
            )
    return KnockedShots(
        **{name: np.array(values, float) for name, values in numbers.items()},
        knocked=tuple(knocked),
        unseen=tuple(unseen),
        source=source,
    )


def _names(text: str, column: str, piggies: list[str], row: int, source: str) -> frozenset[str]:
    names = [n.strip() for n in text.split(";") if n.strip()]
    for name in names:
        if name not in piggies:
            raise InputError(
                f"{source} row {row}, column '{column}': '{shown(name)}' is not a piggy "
                f"of the layout (its piggies: {', '.join(sorted(piggies))})"
            )
    if len(set(names)) != len(names):
        raise InputError(f"{source} row {row}, column '{column}': a piggy is named twice")
    return frozenset(names)
