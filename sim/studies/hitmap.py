"""Hit maps: for each space, stand a piggy there (on its own, or in a layout with
its neighbours), aim at it with the aim solver and fire shots with the launcher's
noise and the aimer's error; count what happens, per space, with 95 % intervals.

One space's measurement (its seeds, its precision, its shots and its row) is
:mod:`sim.studies.space_shots`; this module runs it over many spaces.

- **Parts.** The unit of work is one space, and its shots are its part
  (sim/studies/records.py). Each finished space is written at
  once to ``<output>.parts/<space>.json`` (atomically, with the checksums of the
  sweep's settings and of its shots: sim/studies/parts.py), so an interrupted sweep
  keeps what it finished and ``resume`` checks and reuses it, reporting how many
  spaces it reused; the final file is written from the parts in the order of the
  spaces, whole or not at all, with what made it (sim/studies/datafiles.py).
- **Executors.** ``run_parts`` is the one seam: local worker processes (which die
  with their parent: sim/studies/workers.py), or a Dask distributed cluster
  (``scheduler``); either way each worker process builds its PyBullet world once.
  Another engine would be one more branch there.
- **Bounds.** The final file is assembled one part at a time.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path

from models.board import Board, load_board, space_name
from models.errors import InputError
from models.layout import check_piggy
from models.text import shown
from sim.studies import datafiles, owner, parts
from sim.studies.records import SpaceShots
from sim.studies.space_shots import (
    ARCS,
    BATCH,
    MAX_SHOTS,
    SweepSpec,
    check_targets,
    expected_part,
    provenance,
    run_space,
    summarise,
)
from sim.studies.workers import process_pool

#: What callers take from here: the sweep, and the settings and the one space it runs
#: (defined in sim/studies/space_shots.py).
__all__ = [
    "ARCS",
    "BATCH",
    "MAX_SHOTS",
    "SweepOutcome",
    "SweepSpec",
    "check_spaces",
    "check_targets",
    "parts_folder",
    "per_shot_path",
    "run_parts",
    "run_space",
    "run_sweep",
    "shots_fired",
    "summarise",
    "sweep",
]


# --- executors -------------------------------------------------------------------------------
def run_parts(
    spec: SweepSpec,
    names: list[str],
    workers: int,
    on_part: Callable[[SpaceShots], None],
    scheduler: str | None = None,
) -> None:
    """Run the spaces' parts with ``workers`` local processes (1: in this process) or
    on the Dask cluster at ``scheduler``, calling ``on_part`` here as each one
    finishes, in whatever order."""
    if scheduler:
        _run_on_dask(spec, names, scheduler, on_part)
        return
    if workers <= 1 or len(names) <= 1:
        for name in names:
            on_part(run_space(spec, name))
        return
    with process_pool(min(workers, len(names))) as pool:
        futures = [pool.submit(run_space, spec, name) for name in names]
        for future in as_completed(futures):
            on_part(future.result())


def _run_on_dask(
    spec: SweepSpec, names: list[str], scheduler: str, on_part: Callable[[SpaceShots], None]
) -> None:
    """Parts as Dask tasks. Start the workers with one thread each
    (``dask worker ADDRESS --nthreads 1``): a PyBullet world is not shared by threads."""
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise InputError(
            "--scheduler needs Dask, an optional extra: pip install 'go-piggy-go-sandbox[cluster]'"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
    try:
        futures = client.map(run_space, [spec] * len(names), names, pure=False)
        for future in dask_completed(futures):
            on_part(future.result())
    finally:
        client.close()


# --- a whole sweep --------------------------------------------------------------------------
parts_folder = parts.parts_folder


@dataclass(frozen=True)
class SweepOutcome:
    """A finished sweep: the hit map's rows, and how many spaces were taken from the
    parts of an earlier run (``reused``) or measured now (``computed``)."""

    rows: list
    reused: int
    computed: int


def sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: int = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> list[dict]:
    """:func:`run_sweep`, returning only the hit map's rows."""
    return run_sweep(spec, out, fmt, workers, resume, per_shot, progress, scheduler).rows


def run_sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: int = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> SweepOutcome:
    """Run a sweep into ``out`` (and ``<stem>.shots.<ext>`` with ``per_shot``), each
    file with what made it. Finished spaces are kept in ``<out>.parts/``
    (sim/studies/parts.py); with ``resume`` the parts there are checked, all of them
    before a shot is fired, and used. ``progress`` is called with the number of
    spaces finished."""
    with owner.owned(out):
        return _owned_sweep(
            spec, out, datafiles.format_of(out, fmt), workers, resume, per_shot, progress, scheduler
        )


def _owned_sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str,
    workers: int,
    resume: bool,
    per_shot: bool,
    progress: Callable[[int], None] | None,
    scheduler: str | None,
) -> SweepOutcome:
    """:func:`run_sweep`, once this run owns ``out``."""
    folder = parts_folder(out)
    key = spec.key()
    found = parts.part_files(folder)
    if found and not resume:
        raise InputError(
            f"{shown(str(folder))} holds an unfinished sweep: add --resume to "
            "finish it, or remove the folder"
        )
    for path in found:
        if path.stem not in spec.spaces:
            raise InputError(
                f"part file {shown(str(path))} is for a space this sweep does "
                f"not measure: delete it, or resume with the same --spaces"
            )
    done = {parts.read_part(p, key, expected_part(spec, p.stem)).space for p in found}
    made_by = provenance(spec)
    folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in spec.spaces if s not in done]
    finished = len(done)
    if progress:
        progress(finished)

    def keep(part: SpaceShots) -> None:
        nonlocal finished
        parts.write_part(folder, key, part)
        finished += 1
        if progress:
            progress(finished)

    try:
        run_parts(spec, todo, workers, keep, scheduler)
    finally:
        if not parts.part_files(folder):  # nothing kept: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
    board = load_board(spec.board)
    rows: list[dict] = []
    shots: list[dict] = []
    for name in spec.spaces:  # one part in memory at a time, unless its shots are wanted
        part = parts.read_part(folder / f"{name}.json", key, expected_part(spec, name))
        rows.append(summarise(part, board).to_dict())
        if per_shot:
            shots.extend(r.to_dict() for r in part.shots)
    made_by["shots_fired"] = shots_fired(rows)
    datafiles.write_table(rows, out, fmt, made_by)
    if per_shot:
        datafiles.write_table(shots, per_shot_path(out), fmt, made_by)
    shutil.rmtree(folder)
    return SweepOutcome(rows, reused=len(done), computed=len(todo))


def shots_fired(rows: list[dict]) -> dict:
    """The shots a hit map fired per space in reach: fewest, most and in all."""
    fired = [int(r["shots"]) for r in rows if r["reachable"]] or [0]
    return {"min": min(fired), "max": max(fired), "total": sum(fired)}


def per_shot_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.shots{out.suffix}")


def check_spaces(board: Board, text: str | None, stacks: dict) -> tuple[str, ...]:
    """The spaces to measure: a comma-separated list, or every space of the board."""
    if text is None:
        return tuple(space_name(s) for s in board.spaces)
    names = [t.strip(" ") for t in text.split(",") if t.strip(" ")]  # "r8c3, r9c5"
    if not names:
        raise InputError("--spaces names no space")
    for index, name in enumerate(names):
        board.parse_space(name)
        if name in names[:index]:
            raise InputError(f"--spaces names {name} twice")
    for pigs in stacks.values():
        for piggy in pigs:
            check_piggy(piggy)
    return tuple(names)
