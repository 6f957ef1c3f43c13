"""What a file is, told by what it holds, not by its name: the project's files kinds
(a design, a board, an aimer, a layout, a table of measured shots, a hit map, the
``--json`` of a shot, a comparison or a hit map, a game record), so that a file
given to the wrong option is told what it is and which option takes it, on one line
("layout file 'stock.toml' is a design file: use --design"), where the parser alone
would say "not valid JSON".

Only the loaders' error paths ask (models/files.py, models/layout.py,
models/design.py, the shots reader of ``piggy calibrate``, referee/records.py): a file that reads as
what was asked for is never second-guessed here, and a file recognised as nothing
keeps the loader's own message.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass

from models.errors import InputError


@dataclass(frozen=True)
class FileKind:
    """One kind of file: its name as the loaders word it (``kind`` of
    models/files.py's readers), what it is called in a sentence, and what to do
    with it."""

    name: str
    called: str
    use: str


#: What each kind's content holds (a parsed JSON or TOML object, or a CSV header).
_Test = Callable[[object], bool]


def _keys(value: object) -> set[str]:
    return set(value) if isinstance(value, dict) else set()


def _tables(value: object) -> set[str]:
    return (
        {k for k, v in value.items() if isinstance(v, dict)} if isinstance(value, dict) else set()
    )


#: The kinds a parsed JSON or TOML object can be, the first that matches winning.
OBJECT_KINDS: tuple[tuple[FileKind, _Test], ...] = (
    (  # before the design: a shot's JSON holds a "bale" table too
        FileKind("shot", "a shot's JSON (piggy shoot --json)", "it is a result, read by no option"),
        lambda v: {"aim", "knocked", "piggies"} <= _keys(v),
    ),
    (
        FileKind("record", "a game record (piggy play --record)", "use piggy replay"),
        lambda v: "game" in _keys(v) and _keys(v) <= {"game", "params"},
    ),
    (
        FileKind("design", "a design file", "use --design (or piggy design check)"),
        lambda v: bool(_tables(v) & {"launcher", "bale"}),
    ),
    (
        FileKind("board", "a board file", "use --board"),
        lambda v: {"space_mm", "rows", "cols"} <= _keys(v),
    ),
    (
        FileKind("aimer", "an aimer file", "use --aimer"),
        lambda v: {"yaw_sd_deg", "pitch_sd_deg"} <= _keys(v) and not _tables(v),
    ),
    (
        FileKind("layout", "a layout file", "use --layout"),
        lambda v: "stacks" in _keys(v),
    ),
    (
        FileKind(
            "comparison", "the --json of a design comparison", "it is a result, read by no option"
        ),
        lambda v: {"verdict", "comparisons"} <= _keys(v),
    ),
    (
        FileKind("hit map summary", "the --json of a hit map", "it is a result, read by no option"),
        lambda v: {"in_reach", "mean_p_target"} <= _keys(v),
    ),
    (
        FileKind(
            "provenance",
            "the record of what made a table (its sidecar)",
            "give the table beside it instead",
        ),
        lambda v: {"design_sha256", "seed", "version"} <= _keys(v),
    ),
)

#: The kinds a CSV file can be, by the columns of its header.
TABLE_KINDS: tuple[tuple[FileKind, set[str]], ...] = (
    (
        FileKind("shots", "a table of shots measured on the toy", "use piggy calibrate"),
        {"pitch_deg", "yaw_deg", "x_mm", "y_mm"},
    ),
    (
        FileKind("hit map", "a hit map table (piggy hitmap's output)", "it is a result"),
        {"space", "p_target", "p_target_ci_low"},
    ),
    (
        FileKind(
            "per-shot table",
            "a hit map's per-shot table (piggy hitmap --per-shot)",
            "it is a result",
        ),
        {"space", "shot", "seed", "target_knocked"},
    ),
)

PARQUET = FileKind("table", "a Parquet table", "it is a result (read it with pyarrow)")


def kind_of_value(value: object) -> FileKind | None:
    """The kind of a parsed JSON or TOML object, or None when it is none of
    :data:`OBJECT_KINDS`."""
    return next((kind for kind, test in OBJECT_KINDS if test(value)), None)


def kind_of_text(text: str) -> FileKind | None:
    """The kind of a file's text: JSON or TOML by its parsed object, else JSON lines
    (a game record) by its first line's object, else a CSV table by its header's
    columns; None when it is none the project knows."""
    first_line = text.lstrip().split("\n", 1)[0]
    for parse, given in ((json.loads, text), (tomllib.loads, text), (json.loads, first_line)):
        try:
            value = parse(given)
        except (ValueError, RecursionError):  # not this syntax (both errors are ValueErrors)
            continue
        return kind_of_value(value)
    header = {cell.strip() for cell in first_line.split(",")}
    return next((kind for kind, columns in TABLE_KINDS if columns <= header), None)


def kind_of_bytes(data: bytes) -> FileKind | None:
    """The kind of a file that is not text: a Parquet table (it starts with
    ``PAR1``), or None."""
    return PARQUET if data[:4] == b"PAR1" else None


def refuse_other(kind: FileKind | None, expected: str, source: str) -> None:
    """Raise :class:`InputError` when a file read as ``expected`` (a loader's kind:
    ``layout``, ``design``...) is recognisably another kind: "layout file 'x.toml' is
    a design file: use --design". Nothing when it is that kind, or none known."""
    if kind is not None and kind.name != expected:
        raise InputError(f"{source} is {kind.called}, not a {expected} file: {kind.use}")
