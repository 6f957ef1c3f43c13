"""design compare's cached hit maps read back (sim/studies/comparing/design_tools.py
writes them): each held to the design that asks for it (its content, as the map's
provenance names it), each space's shots read through their type and its summary row
held to its shots; a map that is not is refused, naming it, on one line."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from models.board import load_board
from models.design import Design, design_content_sha256
from models.errors import InputError
from models.tables import read_table
from models.text import shown
from sim.studies.maps import hitmap
from sim.studies.shots import datafiles, space_firing, space_shots
from sim.studies.shots.records import Expected, MeasuredSpace, ShapeError, SpaceShots, SpaceSummary


def read_cached(
    spec: space_shots.SweepSpec, out: Path, expected: Callable[[str], Expected], design: Design
) -> list[MeasuredSpace] | None:
    """The hit map ``out`` of the cache (None when it is not there), made by
    ``design`` (its content, as its provenance names it, not its name only), each
    space's shots read back through their type (sim/studies/shots/records.py) as
    ``expected`` says, and its summary row held to its shots; a cache file that is
    not is refused, naming it, on one line."""
    shots_file = hitmap.per_shot_path(out)
    if not (out.exists() and shots_file.exists()):
        return None
    made_by = datafiles.read_provenance(out).get("design_sha256")
    if made_by != design_content_sha256(design):
        raise InputError(
            f"design-compare cache {shown(str(out))} holds another design's map than this "
            f"{shown(design.name)} (its design_sha256 is {shown(made_by)}): delete it and "
            f"{shown(shots_file.name)} (the map is measured again)"
        )
    board = load_board(spec.board)
    rows = read_table(out)
    by_space: dict[str, list[dict]] = {name: [] for name in spec.spaces}
    for shot in read_table(shots_file):
        for key in ("knocked", "first_struck"):  # none knocked out, nothing struck: empty
            if shot.get(key, "") is None:
                shot[key] = ""
        by_space.setdefault(str(shot.get("space")), []).append(shot)
    problem = None
    if [r.get("space") for r in rows] != list(spec.spaces) or list(by_space) != list(spec.spaces):
        problem = f"its spaces are not {', '.join(spec.spaces)}"
    found = []
    for row in rows if problem is None else []:
        name = row["space"]
        try:
            summary = SpaceSummary.read(row)
            data = {key: row[key] for key in ("space", "reachable", "arc", "target")}
            part = SpaceShots.read(data | {"shots": by_space[name]}, expected(name))
        except ShapeError as exc:
            problem = f"space {name}: {exc}"
            break
        if not _same_summary(summary, space_firing.summarise(part, board)):
            problem = f"space {name}: the row of {name} does not match its shots"
            break
        found.append(MeasuredSpace(part, summary))
    if problem:
        raise InputError(
            f"design-compare cache {shown(str(out))} is corrupted ({problem}): "
            f"delete it and {shown(shots_file.name)} (the map is measured again)"
        )
    return found


def _same_summary(read: SpaceSummary, made: SpaceSummary) -> bool:
    """A hit map row read back equals the one its shots make (numbers to 1e-9)."""

    def same(a: object, b: object) -> bool:
        if (
            isinstance(a, float | int)
            and isinstance(b, float | int)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
        ):
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
        return a == b and type(a) is type(b)

    row, made_row = read.to_dict(), made.to_dict()
    return all(same(row[k], made_row[k]) for k in made_row)
