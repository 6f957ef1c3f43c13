"""The board-mean rule's looks run over a comparison's hit maps
(sim/studies/comparing/board_mean.py says what a look is): the outputs owned, each look's
jobs through the study's workers, each space's parts written as it finishes, the
rule asked after every look, and the maps written at the end."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial

import numpy as np

from models.mean_rule import MeanRule
from sim.studies.comparing import board_mean
from sim.studies.comparing.board_mean import Board
from sim.studies.maps import hitmap
from sim.studies.running import owner, parts
from sim.studies.running.budget import Budget, Look, not_spent, timed_start
from sim.studies.running.cluster import StudyWorkers
from sim.studies.running.workers import each_result, pool_for
from sim.studies.shots.records import SpaceShots


def found_parts(output: hitmap.Output) -> dict[str, SpaceShots]:
    """The parts an earlier, unfinished run of ``output`` left, every one checked."""
    folder = parts.parts_folder(output.path)
    return {
        p.stem: parts.read_part(p, output.key, output.expected(p.stem))
        for p in parts.part_files(folder)
        if p.stem in output.spec.spaces
    }


def run_looks(
    outputs: list[hitmap.Output],
    rule: MeanRule,
    start: list[dict[str, SpaceShots]],
    workers: StudyWorkers,
    budget: Budget,
    progress: Callable[..., None] | None = None,
) -> None:
    """Fire the rule's looks from the shots ``start`` (per design, per space: what an
    earlier run kept) until every comparison's mean stops, or the budget's next look
    would not fit; then write every output's map (and its per-shot file).
    ``progress(done, fired=shots)`` counts each look's spaces and the shots fired
    for each; after a look, ``progress(done,
    note=...)`` says the mean so far."""
    spaces = list(outputs[0].spec.spaces)
    board = Board(tuple(spaces), start, [True] * (len(outputs) - 1))
    with ExitStack() as owning:
        for output in outputs:
            owning.enter_context(owner.owned(output.path))
        folders = [parts.parts_folder(o.path) for o in outputs]
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
        _looks(outputs, rule, board, workers, budget, progress)
        for output, folder, by_space in zip(outputs, folders, board.shots, strict=True):
            for name in spaces:
                parts.write_part(folder, output.key, by_space[name])
            hitmap.assemble(output, "csv", True, 0, len(spaces))
            shutil.rmtree(folder)


def _looks(
    outputs: list[hitmap.Output],
    rule: MeanRule,
    board: Board,
    workers: StudyWorkers,
    budget: Budget,
    progress: Callable[..., None] | None,
) -> None:
    specs = tuple(o.spec for o in outputs)
    rate = None
    not_spent(budget, board.todo(rule.looks()[0] // rule.streams, rule.streams))
    with pool_for(workers, len(board.names)) as pool:
        for pairs in rule.looks():
            rounds = pairs // rule.streams
            todo = board.todo(rounds, rule.streams)
            shots = board_mean.shots_to(board, todo, rounds, rule.streams)
            if todo and not budget.fits(shots, rate):
                return
            began = budget.clock()
            job = partial(board_mean.fire_space, specs, (True, *board.live), rounds)
            if rate is None and budget.seconds is not None:
                timed = partial(board_mean.timed_space, specs, (True, *board.live), rounds)
                look = Look(
                    todo,
                    shots,
                    "the first look" if pairs == rule.looks()[0] else "one more look",
                    partial(board_mean.shots_to, board, rounds=rounds, streams=rule.streams),
                )
                fire_timed = partial(_fire_timed, pool, timed, board, outputs, progress)
                todo = timed_start(fire_timed, pool.size if pool else 1, budget, look)
            _fire(pool, job, todo, board, outputs, progress)
            if shots:
                rate = shots / max(budget.clock() - began, 1e-3)
            said = _ask(rule, board, rounds)
            if progress and said is not None:
                progress(len(board.names), note=said)
            if not any(board.live):
                return


def _fire(
    pool, job, todo: list[str], board: Board, outputs, progress, after: int = 0, timed=False
) -> list[float]:
    """One look's jobs (``after`` more spaces of it to fire after these), each space's
    parts written (and kept) as it finishes; a ``timed`` job's seconds
    (:func:`board_mean.timed_space`), returned."""
    finished = len(board.names) - len(todo) - after
    seconds: list[float] = []
    if progress:
        progress(finished)  # the look starts (the first: the comparison does)

    def keep(result) -> None:
        nonlocal finished
        if timed:
            result, took = result
            seconds.append(took)
        measured: tuple[SpaceShots, ...] = result
        fired = 0
        for output, by_space, part in zip(outputs, board.shots, measured, strict=True):
            parts.write_part(parts.parts_folder(output.path), output.key, part)
            before = by_space.get(part.space)
            fired += len(part.shots) - (len(before.shots) if before else 0)
            by_space[part.space] = part
        finished += 1
        if progress:
            progress(finished, fired=fired)

    each_result(pool, job, todo, partial(_fired, board), keep)
    return seconds


def _fire_timed(pool, job, board: Board, outputs, progress, todo: list[str], after: int):
    """:func:`_fire` of a timed job (a look's probe): each space's seconds."""
    return _fire(pool, job, todo, board, outputs, progress, after, True)


def _fired(board: Board, name: str) -> tuple[SpaceShots | None, ...]:
    return tuple(by_space.get(name) for by_space in board.shots)


def _ask(rule: MeanRule, board: Board, rounds: int) -> str | None:
    """The rule after a look, for each comparison still live: stopped or not; the
    first comparison's mean in words, for the progress bar (its interval shrinking
    look by look)."""
    shots_a = board.shots[0]
    said = None
    for index in range(len(board.live)):
        if not board.live[index]:
            continue
        shots_b = board.shots[index + 1]
        counts = [
            board_mean.counts_at(shots_a[n], shots_b[n], rounds)
            for n in board.names
            if board_mean.compared(shots_a[n], shots_b[n])
        ]
        at = rule.mean(np.array(counts)) if counts else None
        if at is not None and said is None:
            said = f"mean {at.mean:+.3f} [{at.low:+.3f}, {at.high:+.3f}] at {at.pairs} pairs"
        if at is None or rule.stop(at) is not None:
            board.live[index] = False
    return said
