"""Hit maps: for each space, stand a piggy there (on its own, or in a layout with
its neighbours), aim at it with the aim solver and fire shots with the launcher's
noise and the aimer's error; count what happens, per space, with 95 % intervals.

One space's measurement (its seeds, its precision, its shots and its row) is
:mod:`sim.studies.shots.space_shots`; this module runs it over many spaces.

- **Parts.** The unit of work is one space, and its shots are its part
  (sim/studies/shots/records.py). Each finished space is written at
  once to ``<output>.parts/<space>.json`` (atomically, with the checksums of the
  sweep's settings and of its shots: sim/studies/running/parts.py), so an interrupted sweep
  keeps what it finished and ``resume`` checks and reuses it, reporting how many
  spaces it reused; the final file is written from the parts in the order of the
  spaces, whole or not at all, with what made it (sim/studies/shots/datafiles.py).
- **Executors.** ``run_parts`` is the one seam: local worker processes (which die
  with their parent: sim/studies/running/workers.py), or a Dask distributed cluster
  (``workers`` a :class:`~sim.studies.running.cluster.Cluster`); either way each worker
  process builds its world (Bullet's or MuJoCo's) once.
- **Bounds.** The final file is assembled one part at a time.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from concurrent.futures import as_completed
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from models.board import load_board
from models.errors import InputError
from models.text import shown
from sim.studies.running import owner, parts
from sim.studies.running.cluster import StudyWorkers
from sim.studies.running.workers import Pool, pool_for
from sim.studies.shots import datafiles
from sim.studies.shots.records import Expected, SpaceShots
from sim.studies.shots.space_firing import run_space, summarise
from sim.studies.shots.space_shots import SweepSpec, expected_part, provenance

# --- executors -------------------------------------------------------------------------------
#: A sweep's unit of work: a space's name -> its parts, one per file the sweep writes.
Job = Callable[[str], tuple[SpaceShots, ...]]


def run_parts(
    job: Job,
    names: list[str],
    workers: StudyWorkers,
    on_parts: Callable[[tuple[SpaceShots, ...]], None],
    started: Callable[[], None] | None = None,
) -> None:
    """Run ``job`` on every space with ``workers`` local processes (1: in this
    process) or on a Dask cluster (sim/studies/running/cluster.py), calling ``on_parts`` here
    as each space finishes, in whatever order (and ``started`` once the workers are
    there). ``job`` must pickle (a module-level function, or a
    :func:`functools.partial` of one)."""
    with pool_for(workers, len(names)) as pool:
        if started:
            started()
        run_on(pool, job, names, on_parts)


def run_on(
    pool: Pool | None,
    job: Job,
    names: list[str],
    on_parts: Callable[[tuple[SpaceShots, ...]], None],
) -> None:
    """:func:`run_parts` on a pool already open (None: in this process), for a study
    that runs several sets of spaces on one."""
    if pool is None:
        for name in names:
            on_parts(job(name))
        return
    futures = [pool.executor.submit(job, name) for name in names]
    for future in as_completed(futures):
        on_parts(future.result())


def one_space(spec: SweepSpec, name: str) -> tuple[SpaceShots]:
    """A hit map's job: the space's part (:func:`run_space`)."""
    return (run_space(spec, name),)


# --- a whole sweep --------------------------------------------------------------------------
parts_folder = parts.parts_folder


def looks_key(spec: SweepSpec) -> str:
    """The key a hit map's parts are kept under: every precision's the same (a space's
    shots come in the same steps whatever the precision: only where they stop depends
    on it; sim/studies/maps/map_looks.py), apart from a map of a fixed number of shots."""
    if spec.precision is None:
        return spec.key()
    return "looks|" + dataclasses.replace(spec, precision=None).key()


@dataclass(frozen=True)
class SweepOutcome:
    """A finished sweep: the hit map's rows, and how many spaces were taken from the
    parts of an earlier run (``reused``) or measured now (``computed``); its parts,
    where they were asked to be kept (a study of its shots:
    sim/studies/maps/sensitivity.py); the shots of unfinished spaces an earlier run
    left and this one went on from (``gone_on``: a budget's, another precision's)."""

    rows: list
    reused: int
    computed: int
    parts: tuple[SpaceShots, ...] = ()
    gone_on: int = 0


@dataclass(frozen=True)
class Output:
    """One hit map a sweep writes (and its per-shot file): its settings, its file, the
    key its parts are checked against, what its parts must say and what made it."""

    spec: SweepSpec
    path: Path
    key: str
    expected: Callable[[str], Expected]
    made_by: dict

    @classmethod
    def of(cls, spec: SweepSpec, path: Path) -> Output:
        """A hit map's output, measured by the map's own rule, its parts kept under a
        key every precision shares (:func:`looks_key`)."""
        return cls(spec, path, looks_key(spec), partial(expected_part, spec), provenance(spec))


def sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: StudyWorkers = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[..., None] | None = None,
) -> list[dict]:
    """:func:`run_sweep`, returning only the hit map's rows."""
    return run_sweep(spec, out, fmt, workers, resume, per_shot, progress).rows


def run_sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: StudyWorkers = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[..., None] | None = None,
    keep_parts: bool = False,
) -> SweepOutcome:
    """Run a sweep into ``out`` (and ``<stem>.shots.<ext>`` with ``per_shot``), each
    file with what made it. Finished spaces are kept in ``<out>.parts/``
    (sim/studies/running/parts.py); with ``resume`` the parts there are checked, all of them
    before a shot is fired, and used. ``progress`` is called with the number of
    spaces finished (and ``fired=``, the shots the last one fired). With
    ``keep_parts`` the outcome holds every space's shots. (Parts an unfinished
    budget left are gone on from by sim/studies/maps/map_looks.py's ``run_map``.)"""
    outputs = [Output.of(spec, out)]
    job = partial(one_space, spec)
    return run_outputs(outputs, fmt, job, workers, resume, per_shot, progress, keep_parts)[0]


def run_outputs(
    outputs: list[Output],
    fmt: str,
    job: Job,
    workers: StudyWorkers = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[..., None] | None = None,
    keep_parts: bool = False,
) -> list[SweepOutcome]:
    """:func:`run_sweep` for several hit maps of the same spaces measured together,
    ``job`` giving each space's part of every one (a paired comparison's designs):
    each file owned, its parts kept and resumed as one hit map's are; a space is done
    when every file has its part."""
    with ExitStack() as owning:
        for output in outputs:
            owning.enter_context(owner.owned(output.path))
        fmt = datafiles.format_of(outputs[0].path, fmt)
        return _owned_sweep(outputs, fmt, job, workers, resume, per_shot, progress, keep_parts)


def _owned_sweep(
    outputs: list[Output],
    fmt: str,
    job: Job,
    workers: StudyWorkers,
    resume: bool,
    per_shot: bool,
    progress: Callable[..., None] | None,
    keep_parts: bool = False,
) -> list[SweepOutcome]:
    """:func:`run_outputs`, once this run owns every output."""
    spaces = outputs[0].spec.spaces
    done: set[str] = set(spaces)
    for output in outputs:
        done &= parts_found(output, resume)
    folders = [parts_folder(o.path) for o in outputs]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in spaces if s not in done]
    finished = len(done)

    def keep(measured: tuple[SpaceShots, ...]) -> None:
        nonlocal finished
        for output, folder, part in zip(outputs, folders, measured, strict=True):
            parts.write_part(folder, output.key, part)
        finished += 1
        if progress:
            progress(finished, fired=sum(len(part.shots) for part in measured))

    try:
        # the sweep starts (its progress from the spaces kept) once its workers are there
        run_parts(job, todo, workers, keep, progress and (lambda: progress(finished)))
    finally:
        for folder in folders:
            if not parts.part_files(folder):  # nothing kept: leave nothing behind
                shutil.rmtree(folder, ignore_errors=True)
    outcomes = [assemble(o, fmt, per_shot, len(done), len(todo), keep_parts) for o in outputs]
    for folder in folders:
        shutil.rmtree(folder)
    return outcomes


def parts_found(output: Output, resume: bool) -> set[str]:
    """The spaces whose parts an earlier run of ``output`` left, every one checked
    (refused on one line when resuming is not asked for, or a part is not this
    sweep's)."""
    folder = parts_folder(output.path)
    found = parts.part_files(folder)
    if found and not resume:
        raise InputError(
            f"{shown(str(folder))} holds an unfinished sweep: add --resume to "
            "finish it, or remove the folder"
        )
    for path in found:
        if path.stem not in output.spec.spaces:
            raise InputError(
                f"part file {shown(str(path))} is for a space this sweep does "
                f"not measure: delete it, or resume with the same --spaces"
            )
    return {parts.read_part(p, output.key, output.expected(p.stem)).space for p in found}


def assemble(
    output: Output, fmt: str, per_shot: bool, reused: int, computed: int, keep_parts: bool = False
) -> SweepOutcome:
    """The hit map's file (and its per-shot file) from its parts, one part in memory
    at a time unless its shots are wanted (``per_shot``, or kept in the outcome:
    ``keep_parts``), with what made it."""
    spec, folder = output.spec, parts_folder(output.path)
    board = load_board(spec.board)
    rows: list[dict] = []
    shots: list[dict] = []
    kept: list[SpaceShots] = []
    for name in spec.spaces:
        part = parts.read_part(folder / f"{name}.json", output.key, output.expected(name))
        rows.append(summarise(part, board).to_dict())
        if keep_parts:
            kept.append(part)
        if per_shot:
            shots.extend(r.to_dict() for r in part.shots)
    made_by = output.made_by | {"shots_fired": shots_fired(rows)}
    datafiles.write_table(rows, output.path, fmt, made_by)
    if per_shot:
        datafiles.write_table(shots, per_shot_path(output.path), fmt, made_by)
    return SweepOutcome(rows, reused=reused, computed=computed, parts=tuple(kept))


def shots_fired(rows: list[dict]) -> dict:
    """The shots a hit map fired per space in reach: fewest, most and in all."""
    fired = [int(r["shots"]) for r in rows if r["reachable"]] or [0]
    return {"min": min(fired), "max": max(fired), "total": sum(fired)}


def per_shot_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.shots{out.suffix}")
