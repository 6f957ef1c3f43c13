"""Data files of the studies (hit maps, per-shot tables, comparisons): CSV or
Parquet, written atomically, each saying what made it.

What made a file (its *provenance*: board, layout, design and the sha256 of its
full contents, aimer and aim spreads, ``--vary``, seed, hit rule, shots,
precision, package version) is one JSON object: under the key ``piggy`` in a
Parquet file's key-value metadata, and in a sidecar ``<file>.json`` beside a CSV
file. :func:`read_provenance` reads either.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from importlib import metadata
from pathlib import Path

from models.errors import InputError
from models.files import (
    check_input_file,
    parse_json,
    read_json,
    write_text_atomic,
)
from models.text import shown

FORMATS = ("parquet", "csv")
#: The suffixes a data file may have; the format follows the suffix (:func:`format_of`).
SUFFIXES = (".parquet", ".pq", ".csv")
#: The key of the provenance object in Parquet metadata.
METADATA_KEY = "piggy"
_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def package_version() -> str:
    try:
        return metadata.version("go-piggy-go-sandbox")
    except metadata.PackageNotFoundError:
        return "unknown"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def format_of(path: str | Path, fmt: str | None = None) -> str:
    """The file format: from ``fmt`` if given, else from the suffix; a suffix that
    says the other format is refused (a ``.csv`` file must hold CSV)."""
    suffix = Path(path).suffix.lower()
    implied = _SUFFIXES.get(suffix)
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}': allowed are {', '.join(FORMATS)}")
    if fmt and implied and fmt != implied:
        raise InputError(
            f"{path} ends in {suffix} but --format is {fmt}: name it *.{fmt} or drop --format"
        )
    return fmt or implied or "parquet"


def sidecar_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + ".json")


def write_table(
    rows: list[dict], path: str | Path, fmt: str, provenance: dict | None = None
) -> Path:
    """Rows to CSV or Parquet, atomically, with the provenance (if any) beside them;
    the format must agree with the suffix (:func:`format_of`)."""
    path = Path(path)
    fmt = format_of(path, fmt)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["space"])
        writer.writeheader()
        writer.writerows(rows)
        if provenance is not None:
            write_text_atomic(sidecar_path(path), json.dumps(provenance, indent=1) + "\n")
        return write_text_atomic(path, buffer.getvalue())
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    if provenance is not None:
        table = table.replace_schema_metadata({METADATA_KEY: json.dumps(provenance)})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        tmp.replace(path)
    except BaseException as exc:  # whatever failed (a full disk, ^C), no .tmp is left
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(
                f"cannot write {shown(os.fspath(path))}: {exc.strerror or exc}"
            ) from None
        raise
    return path


def read_provenance(path: str | Path) -> dict:
    """What made a data file: the ``piggy`` metadata object (Parquet) or the sidecar
    JSON (CSV); an empty dict for a file written without it."""
    path = Path(path)
    where = f"what made {shown(os.fspath(path))}"
    try:
        if format_of(path) == "csv":
            sidecar = sidecar_path(path)
            made_by = read_json(sidecar, "table") if sidecar.is_file() else {}
        else:
            import pyarrow.parquet as pq

            meta = pq.read_schema(check_input_file(path, "table")).metadata or {}
            text = meta.get(METADATA_KEY.encode())
            made_by = parse_json(text.decode("utf-8", "replace"), where) if text else {}
    except InputError:
        raise
    except Exception as exc:  # OSError, or pyarrow's own on a file that is not Parquet
        raise InputError(f"cannot read {where} ({exc})") from None
    if not isinstance(made_by, dict):
        raise InputError(f"{where}: not a JSON object")
    return made_by
