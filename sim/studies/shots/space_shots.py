"""One space of a hit map: what a sweep measures (:class:`SweepSpec`), the seeds and
the noise plan of a space, and its target stood there; the space fired (its aim,
its shots, its row) is sim/studies/shots/space_firing.py.

- **Seeding.** Every shot's randomness comes from one root seed split per (space,
  shot) with numpy's SeedSequence (``sampler`` "mc"), or per (space, scramble) for
  the RQMC sampler (sim/studies/shots/rqmc.py), keyed by the space itself: a space's result
  depends only on the root seed, not on which process ran it, in what order, or
  which other spaces are measured. Shot i's seed is made on its own (no list of
  every seed up front), so the cap on shots costs no memory.
- **Precision.** With ``precision`` a space is fired at until the 95 % interval of
  P(target) is within ``±precision``, ``shots`` being the cap: in batches of
  :data:`BATCH` and Wilson's interval (mc), or scramble by scramble (rqmc).
- **Bounds.** At most :data:`MAX_SHOTS` shots a space: a space's shots are held in
  memory while it is measured.

The whole sweep over many spaces, in parallel and resumable, is
:mod:`sim.studies.maps.hitmap`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from models import identity
from models.aimer import Aimer
from models.board import load_board
from models.design import Design, design_identity, load_design
from models.errors import InputError
from models.grid import parse_space_name
from models.layout import LONE_TARGET, aimed_piggy
from models.seeds import split_seed
from sim.defaults import MAX_SHOTS, SWEEP_ARCS
from sim.physics.launch import AimedShot
from sim.physics.noise import Deviates, vary_dims
from sim.studies.shots import datafiles, rqmc
from sim.studies.shots.records import Expected, ShotRow

if TYPE_CHECKING:
    from sim.physics.shoot import Aim

#: The piggy that stands on each measured empty space in turn.
TARGET = LONE_TARGET
ARCS = SWEEP_ARCS
#: Shots fired at a space between two looks at its precision.
BATCH = 20


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep measures. Names and plain values, not objects, so that it can
    travel to workers and be written down next to the parts it produced.

    ``shots`` is the number of shots per space, or the cap with ``precision``;
    ``aimer`` is who aims (frozen, so it travels as it is); ``vary`` maps a physical
    parameter (``friction``, ``restitution``, ``mass``) to its relative half-range.
    """

    board: str
    design: str
    stacks: dict  # the base layout (space name -> piggies), may be empty
    spaces: tuple  # space names, in output order
    shots: int
    seed: int = 0
    arc: str = "best"
    aimer: Aimer = field(default_factory=Aimer)
    vary: dict = field(default_factory=dict)
    precision: float | None = None
    hit_rule: str = "touches-line"
    layout: str = ""  # what the user named for the layout, for the record
    sampler: str = "rqmc"  # piggy hitmap's default; or "mc": plain Monte Carlo (rqmc.py)
    engine: str | None = None  # the engine asked for (--engine; None: the design's own)

    def key(self) -> str:
        """The settings as text, the board and design by their content, not their
        names (models/identity.py): a file edited since makes another key, so no part,
        cached map or study made from the old file is reused. The layout is its stacks
        (its name is only for the record). Plain Monte Carlo leaves the sampler out, and
        the design's own engine the engine."""
        settings = asdict(self)
        for name in ("board", "design", "layout"):
            del settings[name]
        settings["inputs"] = identity.inputs(self.board, self.design)
        if self.sampler == "mc":
            del settings["sampler"]
        if self.engine is None:
            del settings["engine"]
        return json.dumps(settings, sort_keys=True)


def shot_seed(root_seed: int, space: tuple[int, int], index: int) -> int:
    """The seed of one space's shot ``index``, split from the root seed."""
    return split_seed(root_seed, *space, spawn_key=(index,))


@dataclass(frozen=True)
class PlannedShot:
    """One shot of a space's noise plan: its row's number, the seed its row records
    (its own, plain Monte Carlo; its scramble's, RQMC) with the scramble and point,
    and the shot asked of the engine (:class:`~sim.physics.launch.AimedShot`: the
    space's aim, the sweep's aimer and ``vary``, its errors drawn from its own seed
    or given as its scramble's point)."""

    index: int
    seed: int
    shot: AimedShot
    scramble: int | None = None
    point: int | None = None


def noise_plan(
    spec: SweepSpec, space: tuple[int, int], fired: int, rounds: int, aim: Aim
) -> list[PlannedShot]:
    """The one noise plan of a space fired at with ``aim``: the shots that take it
    from ``fired`` shots to ``rounds`` rounds, in the order the hit map fires them
    (plain Monte Carlo's shot i from its own seed; RQMC's points scramble by scramble,
    each scramble's next points in order). The same shots whatever the looks
    between."""
    if spec.sampler != "rqmc":
        seeds = ((i, shot_seed(spec.seed, space, i)) for i in range(fired, rounds))
        return [PlannedShot(i, seed, _shot(spec, aim, seed, None)) for i, seed in seeds]
    scrambles, _, _ = rqmc.plan(spec.shots, spec.precision)
    done = fired // scrambles
    plan: list[PlannedShot] = []
    for r in range(scrambles):
        seed = rqmc.scramble_seed(spec.seed, space, r)
        for j, point in enumerate(_scramble_deviates(spec, seed, rounds)[done:], start=done):
            plan.append(PlannedShot(fired + len(plan), seed, _shot(spec, aim, None, point), r, j))
    return plan


def row_shot(spec: SweepSpec, space: tuple[int, int], row: ShotRow, aim: Aim) -> AimedShot:
    """The shot of hit-map row ``row`` (its :class:`PlannedShot`'s), fired at
    ``aim``: to fire it again."""
    return _shot(spec, aim, *row_draws(spec, space, row))


def row_draws(
    spec: SweepSpec, space: tuple[int, int], row: ShotRow
) -> tuple[int | None, Deviates | None]:
    """How the shot of hit-map row ``row`` drew its errors: its seed (plain Monte
    Carlo), or its scramble's point as deviates (RQMC)."""
    if spec.sampler != "rqmc":
        return shot_seed(spec.seed, space, row.shot), None
    assert row.scramble is not None and row.point is not None  # an RQMC sweep's row
    seed = rqmc.scramble_seed(spec.seed, space, row.scramble)
    return None, _scramble_deviates(spec, seed, row.point + 1)[row.point]


def _shot(spec: SweepSpec, aim: Aim, seed: int | None, deviates: Deviates | None) -> AimedShot:
    """A sweep's shot at ``aim``: its aimer and ``vary``, its errors drawn from
    ``seed`` or given as ``deviates``."""
    if deviates is not None:
        return AimedShot(
            aim.yaw_deg, aim.pitch_deg, aimer=spec.aimer, vary=spec.vary, deviates=deviates
        )
    return AimedShot(aim.yaw_deg, aim.pitch_deg, seed, aimer=spec.aimer, vary=spec.vary)


def _scramble_deviates(spec: SweepSpec, scramble_seed: int, points: int) -> list[Deviates]:
    """The first ``points`` points of one RQMC scramble as shots' deviates."""
    return _scramble_shots(scramble_seed, 3 + vary_dims(spec.vary)).first(points)


class _ScrambleShots:
    """One RQMC scramble's points drawn so far as shots' deviates, extended as a
    space's looks ask for more (each look would otherwise draw the scramble again
    from its first point)."""

    def __init__(self, scramble_seed: int, dims: int):
        self._points = rqmc.ScrambleStream(scramble_seed, dims)
        self._deviates: list[Deviates] = []

    def first(self, count: int) -> list[Deviates]:
        if count > len(self._deviates):
            z = rqmc.to_deviates(self._points.first(count)[len(self._deviates) :])
            self._deviates += [_deviates(point) for point in z]
        return self._deviates[:count]


#: The scrambles of the last few spaces this process fired at (a space's looks reuse
#: its own: :data:`~sim.studies.shots.rqmc.SCRAMBLES` of them a space).
_scramble_shots = functools.lru_cache(maxsize=4 * rqmc.SCRAMBLES)(_ScrambleShots)


def _deviates(z: np.ndarray) -> Deviates:
    """One RQMC point's (3 + vary,) standard deviates as a shot's errors."""
    return Deviates(float(z[0]), float(z[1]), float(z[2]), vary=tuple(map(float, z[3:])))


def expected_part(spec: SweepSpec, name: str) -> Expected:
    """What the part of space ``name`` of this sweep must say, when read back.
    ``name`` is one of the sweep's spaces, checked on its board when it was made
    (the board is not read again for each part: a cached map is read quickly)."""
    space = parse_space_name(name)
    target = target_and_stacks(spec, name)[0]
    if spec.sampler == "rqmc":
        scrambles, _, most = rqmc.plan(spec.shots, spec.precision)
        # one seed per scramble, split once, not once per shot read back
        scramble_seed = functools.cache(partial(rqmc.scramble_seed, spec.seed, space))
        return Expected(
            name,
            target,
            lambda row, index: scramble_seed(row.scramble or 0),
            scrambles * most,
            exact=spec.precision is None,
            scrambles=scrambles,
        )
    return Expected(
        name,
        target,
        lambda row, index: shot_seed(spec.seed, space, index),
        spec.shots,
        exact=spec.precision is None,
    )


def provenance(spec: SweepSpec) -> dict:
    """What made a hit map: the object written with its files (``shots_fired``, the
    shots fired per space in reach, is added when the sweep is done)."""
    aimer = spec.aimer
    return (
        {
            "board": spec.board,
            "layout": spec.layout or None,
            "stacks": spec.stacks,
            **design_identity(spec.design),
            "aimer": aimer.name,
            "aim_sd_deg": [aimer.yaw_sd_deg, aimer.pitch_sd_deg],
            "aim_bias_deg": [aimer.yaw_bias_deg, aimer.pitch_bias_deg],
            "vary": spec.vary,
            "seed": spec.seed,
            "hit_rule": spec.hit_rule,
            "arc": spec.arc,
            "shots_cap": spec.shots,
            "precision": spec.precision,
            "batch": BATCH,
            "version": datafiles.package_version(),
        }
        | rqmc.provenance(spec.sampler)
        | engine_provenance(spec)
    )


def spec_design(spec: SweepSpec) -> Design:
    """The design a sweep fires, its engine the spec's (resolved where the spec was
    built: :func:`sim.physics.registry.resolve`)."""
    from sim.physics.registry import with_engine

    return with_engine(load_design(spec.design), spec.engine)


def engine_provenance(spec: SweepSpec) -> dict:
    """What a file records of its engine: the registry's answer
    (:func:`sim.physics.registry.provenance`; nothing for Bullet, else the engine's
    name, its settings and how its shots were fired)."""
    from sim.physics.registry import provenance

    return provenance(spec_design(spec), spec.vary)


# --- one part: one space ------------------------------------------------------------------
def world_for(spec: SweepSpec):
    """This process's world for the spec's board, design, hit rule and engine, from
    the process's world cache (sim/physics/world_cache.py): built once, reused by
    every space and shot that asks for it while it is kept."""
    from sim.physics.world_cache import WORLDS

    # a hit map counts verdicts and strikes: a shot may end once the bale can strike
    # nothing more (docs/physics.md, "Speed")
    return WORLDS.world(
        load_board(spec.board), spec_design(spec), hit_rule=spec.hit_rule, bale_to_rest=False
    )


def check_targets(spec: SweepSpec) -> None:
    """Refuse, before any shot, a sweep that could not stand its target on a space."""
    if not 1 <= spec.shots <= MAX_SHOTS:
        raise InputError(f"shots per space must be 1 to {MAX_SHOTS}, got {spec.shots}")
    for name in spec.spaces:
        target_and_stacks(spec, name)


def target_and_stacks(spec: SweepSpec, name: str, target: str | None = None) -> tuple[str, dict]:
    """The piggy aimed at on a space of the sweep's layout, and the layout it is fired
    at (:func:`models.layout.aimed_piggy`)."""
    return aimed_piggy(spec.stacks, name, target)
