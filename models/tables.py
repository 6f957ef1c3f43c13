"""Data tables read back: the one reader of the files piggy writes as rows (hit maps,
per-shot tables, comparisons), CSV or Parquet. It sits below the referee because a
game's table resolver reads hit maps too (``--shots table:FILE``,
:meth:`referee.shots.TableResolver.from_file`); the studies write these files
(sim/studies/shots/datafiles.py).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from models.errors import InputError
from models.file_kinds import kind_of_bytes
from models.files import check_input_file, read_text
from models.numbers import ascii_decimal
from models.text import shown


def read_table(path: str | Path) -> list[dict]:
    """The rows of a data file (sim/studies/shots/datafiles.py writes them: hit maps, per-shot
    tables, comparisons), CSV (a ``.csv`` suffix: its cells typed back to booleans,
    numbers, text and None) or Parquet; a file that is neither is one InputError."""
    path = check_input_file(path, "table")  # a regular file within the cap, not /dev/zero
    where = f"data file {shown(os.fspath(path))}"
    try:
        if path.suffix.lower() == ".csv":
            text = read_text(path, "table")
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
            for number, row in enumerate(rows, start=2):
                if None in row or None in row.values():  # cells beyond or short of the header
                    raise InputError(
                        f"{where}: line {number} has not one cell per column (a cut or edited file)"
                    )
            return [_typed(r) for r in rows]
        with open(path, "rb") as handle:
            if kind_of_bytes(handle.read(4)) is None:  # told before pyarrow's import (2 s)
                raise InputError(f"{where} is neither CSV nor Parquet (no PAR1 at its start)")
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    except InputError:
        raise
    except (OSError, ValueError, csv.Error) as exc:
        raise InputError(f"{where} cannot be read ({exc})") from None
    except Exception as exc:  # pyarrow's own errors on a file that is not Parquet
        raise InputError(f"{where} cannot be read as Parquet ({exc})") from None


def _typed(row: dict[str, str]) -> dict[str, object]:
    """A CSV row's cells as the values written: None, booleans, numbers, else text."""
    out: dict[str, object] = {}
    for key, value in row.items():
        if value in ("", "None"):
            out[key] = None
        elif value in ("True", "False"):
            out[key] = value == "True"
        elif ascii_decimal(value) is None:  # text (other scripts' digits stay text too)
            out[key] = value
        else:
            out[key] = float(value) if "." in value or "e" in value.lower() else int(value)
    return out
