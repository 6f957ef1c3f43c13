"""``design compare``'s board-mean rule at work (models/mean_rule.py): every space
fires the same number of pairs, look by look, until the board mean's question is
answered, and each design's shots are a hit map of its own.

- **Looks.** Each look is one job per space (that space's next rounds for every
  design still compared, common random numbers as in sim/studies/comparing/paired.py), run
  through the study's workers (sim/studies/running/workers.py's ``pool_for``: local
  processes or a cluster, as ``--workers`` and ``--scheduler`` say). When every
  space has its rounds, the rule looks at the board and stops or goes on.
- **Parts.** After each job the space's parts are written at once (as a hit map's:
  sim/studies/running/parts.py), so a killed run keeps what it fired and the next run goes
  on from there; the same looks give the same shots whatever the worker count or
  the order the spaces finish in. A space one design does not reach is measured
  alone by its hit map's rule at the first look, as the paired rule does.
- **Budget.** Given seconds, the run stops before a look it predicts would not fit,
  the prediction being the look's shots at the throughput measured so far: the looks
  are fixed, the budget only chooses how many are taken. Before any throughput is
  measured, a tenth of the look's spaces are fired and timed (:func:`timed_space`), and a
  look that cannot fit even so is refused in words before the rest is fired. One
  budget is kept over a command: several runs (engines) share it (:meth:`Budget.share`).
  What each look said is not stored: :func:`replay` looks again at the shots.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from models.mean_rule import BoardMean, MeanRule
from sim.studies.running.budget import Budget  # noqa: F401  (the comparisons' name for it)
from sim.studies.shots.records import SpaceShots
from sim.studies.shots.space_firing import advance, aim_at_space, fire_rounds, hits_of
from sim.studies.shots.space_shots import SweepSpec


def fire_space(
    specs: tuple[SweepSpec, ...],
    live: tuple[bool, ...],
    rounds: int,
    name: str,
    fired: tuple[SpaceShots | None, ...],
) -> tuple[SpaceShots, ...]:
    """One look's job at space ``name``: every design whose comparison is ``live``
    (design A, the first, always) fired on from its shots ``fired`` (None: none yet)
    to ``rounds`` rounds; where A, or every other design, does not reach, each
    design measured alone by its hit map's rule."""
    from sim.physics.world_cache import WORLDS
    from sim.studies.shots.space_shots import world_for

    with WORLDS.room_for(len(specs)):
        worlds = [world_for(spec) for spec in specs]
        aimed = [aim_at_space(w, spec, name) for w, spec in zip(worlds, specs, strict=True)]
        reach = [aim is not None for _, aim in aimed]
        if not reach[0] or not any(reach[1:]):
            return tuple(advance(spec, name)[0] for spec in specs)
        out = []
        for i, (spec, world, (target, aim)) in enumerate(zip(specs, worlds, aimed, strict=True)):
            before = fired[i]
            rows = list(before.shots) if before is not None else []
            if aim is None:
                out.append(SpaceShots(name, False, None, target, ()))
                continue
            if live[i] and len(rows) < rounds * _streams(spec):
                rows = fire_rounds(spec, world, aim, name, target, rows, rounds)
            out.append(SpaceShots(name, True, aim.arc, target, tuple(rows)))
        return tuple(out)


def timed_space(
    specs: tuple[SweepSpec, ...],
    live: tuple[bool, ...],
    rounds: int,
    name: str,
    fired: tuple[SpaceShots | None, ...],
) -> tuple[tuple[SpaceShots, ...], float]:
    """:func:`fire_space`, and the seconds its shots took, the worker's first worlds
    built before the clock starts (a budget's probe: the look's rate, not a new
    worker's start)."""
    from sim.physics.world_cache import WORLDS
    from sim.studies.shots.space_shots import world_for

    with WORLDS.room_for(len(specs)):
        for spec in specs:
            world_for(spec)
        began = time.perf_counter()
        return fire_space(specs, live, rounds, name, fired), time.perf_counter() - began


def _streams(spec: SweepSpec) -> int:
    from sim.studies.shots import rqmc

    return rqmc.plan(spec.shots, spec.precision)[0] if spec.sampler == "rqmc" else 1


def compared(a: SpaceShots, b: SpaceShots) -> bool:
    """Whether a space is in the board mean: both designs reach it."""
    return a.reachable and b.reachable


def counts_at(a: SpaceShots, b: SpaceShots, rounds: int) -> tuple[int, int, int, int]:
    """(both, A only, B only, neither) over the first ``rounds`` rounds of a space's
    pairs."""
    hits_a = hits_of(a.shots)[:, :rounds].ravel()
    hits_b = hits_of(b.shots)[:, :rounds].ravel()
    both = int(np.sum(hits_a & hits_b))
    a_only, b_only = int(np.sum(hits_a & ~hits_b)), int(np.sum(~hits_a & hits_b))
    return both, a_only, b_only, hits_a.size - both - a_only - b_only


@dataclass(frozen=True)
class Replayed:
    """What the rule said of two designs' parts: why the mean stopped (``budget``
    where the shots end before it did), the last look taken (its board mean, its
    number counting from 1, each compared space's counts there)."""

    stop: str
    at: BoardMean | None
    looks: int
    counts: dict[str, tuple[int, int, int, int]]


def replay(rule: MeanRule, parts_a: list[SpaceShots], parts_b: list[SpaceShots]) -> Replayed:
    """The rule's looks at two designs' parts, as they were taken when the shots were
    fired (None for ``at`` where no space is in reach of both)."""
    pairs = [(a, b) for a, b in zip(parts_a, parts_b, strict=True) if compared(a, b)]
    if not pairs:
        return Replayed("cap", None, 0, {})
    fired = min(min(len(a.shots), len(b.shots)) for a, b in pairs) // rule.streams
    at, counts, taken = None, {}, 0
    for looked in rule.looks():
        rounds = looked // rule.streams
        if rounds > fired:
            break
        counts = {a.space: counts_at(a, b, rounds) for a, b in pairs}
        at, taken = rule.mean(np.array(list(counts.values()))), taken + 1
        stop = rule.stop(at)
        if stop is not None:
            return Replayed(stop, at, taken, counts)
    if at is None:  # shots made by another rule
        raise ValueError(f"{fired} rounds of pairs, short of the board-mean rule's first look")
    return Replayed("budget", at, taken, counts)


@dataclass
class Board:
    """A comparison's shots so far, per design per space, and which designs after
    the first are still compared (their mean not yet stopped)."""

    names: tuple[str, ...]
    shots: list[dict[str, SpaceShots]]
    live: list[bool]

    def done_at(self, name: str) -> bool:
        """A space measured alone (not in reach of A, or of every other design) is
        done at the first look."""
        parts = [s.get(name) for s in self.shots]
        return parts[0] is not None and (
            not parts[0].reachable or not any(p is not None and p.reachable for p in parts[1:])
        )

    def todo(self, rounds: int, streams: int) -> list[str]:
        """The spaces some live design has fewer than ``rounds`` rounds at."""
        out = []
        for name in self.names:
            if self.done_at(name):
                continue
            parts = [s.get(name) for s in self.shots]
            need = [0] + [i for i in range(1, len(parts)) if self.live[i - 1]]
            if any(_short(parts[i], rounds * streams) for i in need):
                out.append(name)
        return out


def _short(part: SpaceShots | None, shots: int) -> bool:
    """Whether a design's part at a space has fewer than ``shots`` (none: yes)."""
    return part is None or (part.reachable and len(part.shots) < shots)


def shots_to(board: Board, todo: list[str], rounds: int, streams: int) -> int:
    """The shots a look fires: every live design to ``rounds`` rounds at ``todo``."""
    total = 0
    for name in todo:
        for index, by_space in enumerate(board.shots):
            if index and not board.live[index - 1]:
                continue
            part = by_space.get(name)
            total += max(0, rounds * streams - (len(part.shots) if part else 0))
    return total


def pairs_needed(at: BoardMean, delta: float | None) -> int:
    """About how many pairs a space the mean would need to be decided, its sign or
    within ±δ, whichever comes first (its interval's half-width falls as one over the
    square root of the pairs; the estimate's own error is not counted)."""
    half = (at.high - at.low) / 2
    margin = max(abs(at.mean), (delta - abs(at.mean)) if delta is not None else 0.0)
    if margin <= 0:
        return at.pairs * 100  # a mean at 0 with no δ: never, in practice
    return max(at.pairs, math.ceil(at.pairs * (half / margin) ** 2))
