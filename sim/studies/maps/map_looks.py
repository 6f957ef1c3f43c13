"""A hit map fired in looks over the whole board: ``piggy hitmap --budget``, and a
hit map resumed from the parts another run left (a budget's, or a precision's).

- **Looks.** Each look fires one step of its map rule (sim/studies/shots/space_firing.py's
  :class:`~sim.studies.shots.space_firing.MapRule`) at every space whose rule has
  not stopped: every space gets its first shots at the first look, and the map's
  worst interval narrows look by look. A space's shots are the same shots, in the
  same order, whatever the looks between (``advance``), so a map fired in looks
  ends with the same file as one fired space by space.
- **Shared by every precision.** A space's shots come in the same steps whatever
  the precision asked for (the RQMC points 2, 4, 6, ... a scramble; plain Monte
  Carlo's batches of 20): only where they stop depends on it. So the parts are kept
  under a key without the precision (sim/studies/maps/hitmap.py's ``looks_key``), and a
  part made for another precision is replayed (:func:`replayed`): cut at the look
  where this precision stops, or gone on from where it ends.
- **Budget.** Given seconds (sim/studies/running/budget.py), a look is fired only if it
  fits at the rate the last look was fired at; the first is timed by a tenth of its
  spaces. The map is written with each space's interval as reached, and its parts are
  kept so that a later run goes on from them (``--resume``).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sim.studies.maps import hitmap
from sim.studies.running import owner, parts
from sim.studies.running.budget import Budget, Look, not_spent, timed_start
from sim.studies.running.cluster import StudyWorkers
from sim.studies.running.workers import each_result, pool_for
from sim.studies.shots import datafiles
from sim.studies.shots.records import SpaceShots
from sim.studies.shots.space_firing import MapRule, advance, hits_of
from sim.studies.shots.space_shots import SweepSpec


def replayed(spec: SweepSpec, part: SpaceShots) -> tuple[SpaceShots, bool]:
    """A space's part as ``spec``'s rule leaves it, and whether the rule has stopped
    there: the rule's looks taken again over the part's shots, the part cut at the
    look where it stops (a finer precision's shots hold a coarser one's), or whole
    where its shots end first (a coarser precision's, or a budget's: go on from them)."""
    if not part.reachable:
        return part, True
    rule = MapRule.of(spec)
    rows, rounds = part.shots, rule.first
    while rounds * rule.streams <= len(rows):
        taken = rows[: rounds * rule.streams]
        following = rule.next(hits_of(taken))
        if following == rounds:
            return dataclasses.replace(part, shots=taken), True
        rounds = following
    return part, False


def look_space(spec: SweepSpec, name: str, fired: tuple) -> tuple[SpaceShots, bool]:
    """One look's job at a space: its rule's next step fired on from the shots
    ``fired`` (none: its first), and whether the rule stopped after it."""
    return advance(spec, name, fired, looks=1)


def timed_look_space(
    spec: SweepSpec, name: str, fired: tuple
) -> tuple[tuple[SpaceShots, bool], float]:
    """:func:`look_space` and the seconds its shots took, the worker's world built
    before the clock starts (a budget's probe: the look's rate, not a new worker's
    start)."""
    from sim.studies.shots.space_shots import world_for

    world_for(spec)
    began = time.perf_counter()
    return look_space(spec, name, fired), time.perf_counter() - began


def next_shots(rule: MapRule, part: SpaceShots | None) -> int:
    """The shots a space's next look fires (its first look's where it has none yet)."""
    if part is None:
        return rule.first * rule.streams
    rounds = rule.rounds_of(list(part.shots))
    return (rule.next(hits_of(part.shots)) - rounds) * rule.streams


@dataclass(frozen=True)
class Reached:
    """How far a map fired in looks got: the looks fired now, whether every space's
    rule stopped (``finished``; else the budget stopped it first), and the shots a
    second the last look was fired at (None: no look fired now)."""

    looks: int
    finished: bool
    rate: float | None


@dataclass
class _Board:
    """The map's spaces, each one's shots so far and the spaces whose rule stopped."""

    names: tuple[str, ...]
    shots: dict[str, SpaceShots]
    stopped: set[str]
    done: int = 0  # the spaces the look counts as done: stopped before it, or fired in it

    def todo(self) -> list[str]:
        return [n for n in self.names if n not in self.stopped]


def run_map(
    spec: SweepSpec,
    out: Path,
    fmt: str,
    workers: StudyWorkers,
    budget: Budget,
    how: tuple[bool, bool, bool] = (False, False, False),
    progress: Callable[..., None] | None = None,
) -> tuple[hitmap.SweepOutcome, Reached | None]:
    """``piggy hitmap``'s map into ``out``: space by space (sim/studies/maps/hitmap.py's
    ``run_sweep``), or in looks over the board where a budget is given or parts an
    earlier run left are resumed (a budget's parts are unfinished spaces). ``how``:
    resume, the per-shot file, every space's shots kept in the outcome."""
    resume, per_shot, keep_parts = how
    output = hitmap.Output.of(spec, out)
    if budget.seconds is not None or (resume and parts.part_files(parts.parts_folder(out))):
        return run_looks(output, fmt, workers, budget, progress, per_shot, keep_parts, resume)
    return hitmap.run_sweep(spec, out, fmt, workers, resume, per_shot, progress, keep_parts), None


def run_looks(
    output: hitmap.Output,
    fmt: str,
    workers: StudyWorkers,
    budget: Budget,
    progress: Callable[..., None] | None = None,
    per_shot: bool = False,
    keep_parts: bool = False,
    resume: bool = False,
) -> tuple[hitmap.SweepOutcome, Reached]:
    """Fire ``output``'s map in looks, from the parts an earlier run left (every one
    read and replayed before a shot is fired), until every space's rule stops or the
    budget's next look would not fit; then write the map (and its per-shot file) with
    each space as reached. The parts folder is removed once every space stopped, and
    kept otherwise (a later run goes on from it: ``resume``, else parts found are
    refused). ``progress(done, fired=shots)`` counts the spaces done at each look
    (those stopped before it, then the look's own)."""
    spec = output.spec
    with owner.owned(output.path):
        fmt = datafiles.format_of(output.path, fmt)
        folder = parts.parts_folder(output.path)
        hitmap.parts_found(output, resume)  # every part checked, or refused, first
        board = _Board(tuple(spec.spaces), {}, set())
        for path in parts.part_files(folder):
            found = parts.read_part(path, output.key, output.expected(path.stem))
            part, stopped = replayed(spec, found)
            if part is not found:  # a finer precision's shots, cut: the part as this map's
                parts.write_part(folder, output.key, part)
            board.shots[part.space] = part
            if stopped:
                board.stopped.add(part.space)
        reused = len(board.stopped)
        folder.mkdir(parents=True, exist_ok=True)
        gone_on = sum(len(p.shots) for n, p in board.shots.items() if n not in board.stopped)
        reached = _looks(spec, output.key, folder, board, workers, budget, progress)
        if not reached.finished:  # the file says its intervals are a budget's, not ±precision
            cut = {"budget_s": budget.given or budget.seconds, "looks": reached.looks}
            output = dataclasses.replace(
                output, made_by=output.made_by | {"stopped_by_budget": cut}
            )
        outcome = hitmap.assemble(
            output, fmt, per_shot, reused, len(spec.spaces) - reused, keep_parts
        )
        outcome = dataclasses.replace(outcome, gone_on=gone_on)
        if reached.finished:
            shutil.rmtree(folder)
        return outcome, reached


def _looks(
    spec: SweepSpec,
    key: str,
    folder,
    board: _Board,
    workers: StudyWorkers,
    budget: Budget,
    progress: Callable[..., None] | None,
) -> Reached:
    rule = MapRule.of(spec)
    rate: float | None = None
    looks = 0
    not_spent(budget, board.todo())
    with pool_for(workers, len(board.names)) as pool:
        while todo := board.todo():
            shots = sum(next_shots(rule, board.shots.get(n)) for n in todo)
            if not budget.fits(shots, rate):
                return Reached(looks, False, rate)
            began = budget.clock()
            board.done = len(board.stopped)
            if rate is None and budget.seconds is not None:
                look = Look(
                    todo,
                    shots,
                    "the first look" if not board.shots else "one more look",
                    lambda rest: sum(next_shots(rule, board.shots.get(n)) for n in rest),
                    "add --resume to the same command to go on from them",
                )
                timed = partial(timed_look_space, spec)
                fire_timed = partial(_fire_wave, pool, timed, board, (key, folder), progress)
                todo = timed_start(fire_timed, pool.size if pool else 1, budget, look)
            _fire(pool, partial(look_space, spec), board, (key, folder), progress, False, todo)
            looks += 1
            if shots:
                rate = shots / max(budget.clock() - began, 1e-3)
    return Reached(looks, True, rate)


def _fire_wave(
    pool, job, board: _Board, kept, progress, wave: list[str], after: int
) -> list[float]:
    """A probe's wave of timed jobs (:func:`timed_start`'s; the ``after`` spaces still
    to fire are counted in ``board.done``): each space's seconds."""
    return _fire(pool, job, board, kept, progress, True, wave)


def _fire(pool, job, board: _Board, kept, progress, timed: bool, todo: list[str]) -> list[float]:
    """One look's jobs at ``todo``, each space's part written (``kept``: the key and
    the folder) as it finishes, counted in ``board.done``; a ``timed`` job's seconds,
    returned."""
    key, folder = kept
    seconds: list[float] = []
    if progress:
        progress(board.done)

    def keep(result) -> None:
        if timed:
            result, took = result
            seconds.append(took)
        part, stopped = result
        before = board.shots.get(part.space)
        parts.write_part(folder, key, part)
        board.shots[part.space] = part
        if stopped:
            board.stopped.add(part.space)
        board.done += 1
        if progress:
            progress(board.done, fired=len(part.shots) - (len(before.shots) if before else 0))

    each_result(pool, job, todo, partial(_fired, board), keep)
    return seconds


def _fired(board: _Board, name: str) -> tuple:
    part = board.shots.get(name)
    return part.shots if part is not None else ()
