"""The parts of a sweep: one file per finished space in ``<output>.parts/``, so that
an interrupted sweep keeps what it finished and ``--resume`` does the rest.

A part file holds its space's part (sim/studies/shots/records.py: the space, whether it
is in reach, and its shots) with two checksums: the sha256 of the settings of the sweep that made it
(:meth:`~sim.studies.shots.space_shots.SweepSpec.key`: the board and design by content
(models/identity.py), the layout's stacks, spaces, shots, seed, aimer, ``--vary``,
precision, hit rule) and the sha256 of its own part. A
resumed sweep uses a part only if both match, and it is read back through its type
(:meth:`~sim.studies.shots.records.SpaceShots.read`: fields, types, counts, seeds) and is
the part of the space its file is named for; a part that is not JSON, was made with
other settings, or was changed since it was written is refused, naming the file,
before a shot is fired.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from models.errors import InputError
from models.files import read_json, write_text_atomic
from models.text import shown
from sim.studies.shots.records import Expected, ShapeError, SpaceShots

#: The largest part file read: a space's shots at the cap, with room to spare.
MAX_PART_BYTES = 64 * 1024 * 1024
#: The version of the part format (a part of another version is refused).
PART_FORMAT = 1
#: A part file's keys; "chunk" holds the part (its old name, kept so that the part
#: files of an interrupted sweep stay readable).
_KEYS = {"piggy_part", "settings_sha256", "content_sha256", "chunk"}


def parts_folder(out: Path) -> Path:
    """Where the parts of a sweep into ``out`` are kept."""
    return out.with_name(out.name + ".parts")


def settings_hash(spec_key: str) -> str:
    """The sha256 of a sweep's settings (``SweepSpec.key()``)."""
    return hashlib.sha256(spec_key.encode()).hexdigest()


def content_hash(part: dict) -> str:
    """The sha256 of a part as written, canonically (sorted keys, no spaces)."""
    text = json.dumps(part, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def part_files(folder: Path) -> list[Path]:
    """The part files in a parts folder, sorted by name (none if there is no folder);
    a parts folder that is something else (a file, a link) is refused on one line."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InputError(
            f"{shown(os.fspath(folder))} is not a folder, and a sweep keeps its "
            "finished spaces there: move it away or choose another output"
        )
    return sorted(folder.glob("r*c*.json")) if folder.is_dir() else []


def write_part(folder: Path, spec_key: str, part: SpaceShots) -> Path:
    """Write one finished space's part, atomically."""
    data = part.to_dict()
    record = {
        "piggy_part": PART_FORMAT,
        "settings_sha256": settings_hash(spec_key),
        "content_sha256": content_hash(data),
        "chunk": data,
    }
    return write_text_atomic(folder / f"{part.space}.json", json.dumps(record, allow_nan=False))


def read_part(path: Path, spec_key: str, expected: Expected) -> SpaceShots:
    """The part in a part file made by a sweep with these settings, unchanged since and of
    the shape ``expected``; else an :class:`InputError` naming the file and what to
    do."""
    where = f"part file {shown(os.fspath(path))}"
    fix = (
        f"delete it (its space is measured again) or delete {shown(os.fspath(path.parent))}"
        " and rerun without --resume"
    )
    try:
        record = read_json(path, "part", MAX_PART_BYTES)
    except InputError as exc:
        reason = str(exc).removeprefix(f"{where}: ")
        raise InputError(f"{where} is corrupted ({reason}): {fix}") from None
    if (
        not isinstance(record, dict)
        or set(record) != _KEYS
        or record["piggy_part"] != PART_FORMAT
        or not isinstance(record["chunk"], dict)
    ):
        raise InputError(f"{where} is corrupted (not a part of this version of piggy): {fix}")
    if record["settings_sha256"] != settings_hash(spec_key):
        raise InputError(f"{where} was made by a sweep with other settings: {fix}")
    data = record["chunk"]
    if record["content_sha256"] != content_hash(data):
        raise InputError(
            f"{where} was changed after it was written (its checksum does not match): {fix}"
        )
    if path.stem != expected.space:
        named = f"it is named for {shown(path.stem)}, not {expected.space}"
        raise InputError(f"{where} is corrupted ({named}): {fix}")
    try:
        return SpaceShots.read(data, expected)
    except ShapeError as exc:
        raise InputError(f"{where} is corrupted ({exc}): {fix}") from None
