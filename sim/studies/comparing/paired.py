"""``design compare``'s sequential paired rule at work: at each space the designs
fire the same points, look together and stop as soon as the rule says
(models/sequential.py), and each design's shots are a hit map of its own.

- **Pairs.** Design A (the first) and each other design B fire the same shots at a
  space (plain Monte Carlo: shot i's seed; RQMC: each scramble's points), in the
  rule's looks. A pair (A, B) stops when its sign is decided, when its interval
  lies within ±δ, or at the cap; A fires on while any B does. A design that does
  not reach a space fires nothing there; where A does not reach, or no B does, each
  design that reaches is measured alone by its hit map's rule.
- **Records.** Each design's shots make a part per space, as a hit map's: the same
  rows, kept and resumed the same way (sim/studies/maps/hitmap.py, ``run_outputs``).
  What each look said is not stored: :func:`replay` looks again at the shots,
  which give the same looks, stops and p-values every time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from models.sequential import PairedRule
from models.stats import PairedDifference
from sim.studies.shots.records import Expected, SpaceShots
from sim.studies.shots.space_firing import advance, aim_at_space, fire_rounds, hits_of
from sim.studies.shots.space_shots import SweepSpec, expected_part, world_for


def expected(spec: SweepSpec, name: str) -> Expected:
    """What a design's part of a paired comparison must say: a hit map's, with any
    number of shots up to the cap (a pair stops when its question is answered)."""
    return dataclasses.replace(expected_part(spec, name), exact=False)


def compare_space(specs: tuple[SweepSpec, ...], rule: PairedRule, name: str) -> tuple:
    """Every design's part at space ``name``: ``specs[0]`` is design A's settings,
    the others each design B's (they differ in their design only)."""
    from sim.physics.world_cache import WORLDS

    # every design's world is held while the others fire: none may be let go (closed)
    # to make room for another, however many designs there are
    with WORLDS.room_for(len(specs)):
        return _compare_space(specs, rule, name)


def _compare_space(specs: tuple[SweepSpec, ...], rule: PairedRule, name: str) -> tuple:
    worlds = [world_for(spec) for spec in specs]
    aimed = [aim_at_space(w, spec, name) for w, spec in zip(worlds, specs, strict=True)]
    reach = [aim is not None for _, aim in aimed]
    if not reach[0] or not any(reach[1:]):
        return tuple(advance(spec, name)[0] for spec in specs)
    rows: list[list] = [[] for _ in specs]
    live = [i for i in range(1, len(specs)) if reach[i]]
    for pairs in rule.looks():
        rounds = pairs // rule.streams
        for i in [0, *live]:
            target, aim = aimed[i]
            rows[i] = fire_rounds(specs[i], worlds[i], aim, name, target, rows[i], rounds)
        live = [i for i in live if rule.stop(_look(rule, rows[0], rows[i], rounds)) is None]
        if not live:
            break
    return tuple(
        SpaceShots(name, True, aim.arc, target, tuple(shots))
        if aim is not None
        else SpaceShots(name, False, None, target, ())
        for (target, aim), shots in zip(aimed, rows, strict=True)
    )


def _look(rule: PairedRule, rows_a, rows_b, rounds: int) -> PairedDifference:
    """The look at the first ``rounds`` rounds of both designs' shots."""
    a = hits_of(rows_a)[:, :rounds].ravel()
    b = hits_of(rows_b)[:, :rounds].ravel()
    both, a_only, b_only = int(np.sum(a & b)), int(np.sum(a & ~b)), int(np.sum(~a & b))
    return rule.look(both, a_only, b_only, a.size - both - a_only - b_only)


@dataclass(frozen=True)
class Replayed:
    """What the rule said of one space's pairs: the last look (its difference,
    interval and McNemar p-value), why it stopped, and the space's p-value over its
    looks (models/sequential.py)."""

    last: PairedDifference
    stop: str
    p_value: float


def replay(rule: PairedRule, a: SpaceShots, b: SpaceShots) -> Replayed:
    """The rule's looks at two designs' parts of one space, as they were taken when
    the shots were fired."""
    fired = min(len(a.shots), len(b.shots)) // rule.streams
    p_values: list[float] = []
    at = None
    for pairs in rule.looks():
        rounds = pairs // rule.streams
        if rounds > fired:
            break
        at = _look(rule, list(a.shots), list(b.shots), rounds)
        p_values.append(at.p_value)
        stop = rule.stop(at)
        if stop is not None:
            return Replayed(at, stop, rule.p_value(p_values))
    if at is None:  # fewer pairs than a look: shots made by another rule
        raise ValueError(f"space {a.space}: {fired} rounds of pairs, short of the first look")
    return Replayed(at, "cap", rule.p_value(p_values))
