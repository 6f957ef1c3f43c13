"""One space of a hit map: what a sweep measures (:class:`SweepSpec`), and at one
space, its target stood there, the aim at it, its shots (its part) and its row.

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

import dataclasses
import functools
import json
from dataclasses import asdict, dataclass, field
from functools import partial

import numpy as np

from models import identity
from models.aimer import Aimer
from models.board import Board, load_board
from models.design import design_identity, load_design
from models.errors import InputError
from models.grid import parse_space_name
from models.layout import layout_from_dict
from models.seeds import split_seed
from models.stats import precision_reached
from sim.defaults import MAX_SHOTS, SWEEP_ARCS
from sim.physics.aim import OutOfReach
from sim.physics.launch import AimedShot
from sim.physics.noise import Deviates, vary_dims
from sim.studies.shots import datafiles, rqmc
from sim.studies.shots.dead_zones import dead_zone, first_struck, shot_outcome
from sim.studies.shots.records import Expected, ShotRow, SpaceShots, SpaceSummary

#: The piggy that stands on each measured empty space in turn.
TARGET = "gold-1"
ARCS = SWEEP_ARCS
#: Shots fired at a space between two looks at its precision.
BATCH = 20
#: Strikes that count as ricochets.
_RICOCHET_SURFACES = ("fence", "tractor")


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
    engine: str = ""  # the physics engine, where not the design's own (--engine)

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
        if not self.engine:
            del settings["engine"]
        return json.dumps(settings, sort_keys=True)


def shot_seed(root_seed: int, space: tuple[int, int], index: int) -> int:
    """The seed of one space's shot ``index``, split from the root seed."""
    return split_seed(root_seed, *space, spawn_key=(index,))


@dataclass(frozen=True)
class PlannedShot:
    """One shot of a space's noise plan: its row's number, the seed its row records
    (its own, plain Monte Carlo; its scramble's, RQMC) with the scramble and point,
    and how it draws its errors (:meth:`sim.physics.engine.FiringEngine.shoot`'s
    ``seed=`` or ``deviates=``)."""

    index: int
    seed: int
    noise: dict
    scramble: int | None = None
    point: int | None = None


def noise_plan(
    spec: SweepSpec, space: tuple[int, int], fired: int, rounds: int
) -> list[PlannedShot]:
    """The one noise plan of a space: the shots that take it from ``fired`` shots to
    ``rounds`` rounds, in the order the hit map fires them (plain Monte Carlo's shot
    i from its own seed; RQMC's points scramble by scramble, each scramble's next
    points in order). The same shots whatever the looks between."""
    if spec.sampler != "rqmc":
        seeds = ((i, shot_seed(spec.seed, space, i)) for i in range(fired, rounds))
        return [PlannedShot(i, seed, {"seed": seed}) for i, seed in seeds]
    scrambles, _, _ = rqmc.plan(spec.shots, spec.precision)
    done = fired // scrambles
    plan: list[PlannedShot] = []
    for r in range(scrambles):
        seed = rqmc.scramble_seed(spec.seed, space, r)
        for j, noise in enumerate(_scramble_noises(spec, seed, rounds)[done:], start=done):
            plan.append(PlannedShot(fired + len(plan), seed, noise, r, j))
    return plan


def shot_noise(spec: SweepSpec, space: tuple[int, int], row: ShotRow) -> dict:
    """How the shot of hit-map row ``row`` drew its errors (its
    :class:`PlannedShot`'s noise): its seed (plain Monte Carlo), or its scramble's
    point (RQMC)."""
    if spec.sampler != "rqmc":
        return {"seed": shot_seed(spec.seed, space, row.shot)}
    assert row.scramble is not None and row.point is not None  # an RQMC sweep's row
    seed = rqmc.scramble_seed(spec.seed, space, row.scramble)
    return _scramble_noises(spec, seed, row.point + 1)[row.point]


def _scramble_noises(spec: SweepSpec, scramble_seed: int, points: int) -> list[dict]:
    """The first ``points`` points of one RQMC scramble as shots' ``deviates=``."""
    z = rqmc.to_deviates(rqmc.scramble_points(scramble_seed, 3 + vary_dims(spec.vary), points))
    return [{"deviates": _deviates(point)} for point in z]


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


def engine_provenance(spec: SweepSpec) -> dict:
    """What a file records of its engine: nothing for Bullet (a file without
    ``engine`` was made by Bullet, as every file before there was a choice), else the
    engine's name and its settings."""
    engine = spec.engine or load_design(spec.design).physics.engine
    if engine == "bullet":
        return {}
    from sim.physics.mujoco.scene import SETTINGS

    return {"engine": engine, "engine_settings": dataclasses.asdict(SETTINGS)}


# --- one part: one space ------------------------------------------------------------------
def world_for(spec: SweepSpec):
    """This process's world for the spec's board, design, hit rule and engine, from
    the process's world cache (sim/physics/world_cache.py): built once, reused by
    every space and shot that asks for it while it is kept."""
    from sim.physics.world_cache import WORLDS

    # a hit map counts verdicts and strikes: a shot may end once the bale can strike
    # nothing more (docs/physics.md, "Speed")
    return WORLDS.world(
        load_board(spec.board),
        load_design(spec.design),
        hit_rule=spec.hit_rule,
        bale_to_rest=False,
        engine=spec.engine or None,
    )


def check_targets(spec: SweepSpec) -> None:
    """Refuse, before any shot, a sweep that could not stand its target on a space."""
    if not 1 <= spec.shots <= MAX_SHOTS:
        raise InputError(f"shots per space must be 1 to {MAX_SHOTS}, got {spec.shots}")
    for name in spec.spaces:
        target_and_stacks(spec, name)


def target_and_stacks(spec: SweepSpec, name: str, target: str | None = None) -> tuple[str, dict]:
    """The piggy aimed at on a space, and the layout it is fired at: the base layout's
    top piggy there, or :data:`TARGET` added alone on an empty space. ``target``
    (the sandbox's "how likely?") names another: a piggy of the space's stack (the
    bottom one of two), or the piggy stood alone on an empty space."""
    stacks = {s: list(p) for s, p in spec.stacks.items()}
    if stacks.get(name):
        if target is None:
            return stacks[name][-1], stacks
        if target not in stacks[name]:
            raise InputError(f"{target} is not on {name}: it has {', '.join(stacks[name])}")
        return target, stacks
    lone = target or TARGET
    if any(lone in pigs for pigs in stacks.values()):
        raise InputError(f"the layout already has {lone}, the piggy a sweep stands on empty spaces")
    stacks[name] = [lone]
    return lone, stacks


def aim_at_space(world, spec: SweepSpec, name: str, target: str | None = None):
    """Set ``world`` up for a space's shots: its layout with the target there
    (:func:`target_and_stacks`). Returns the target and the aim the sweep fires with
    (None where the arc asked for does not reach)."""
    from sim.physics import shoot

    target, stacks = target_and_stacks(spec, name, target)
    world.set_layout(layout_from_dict({"stacks": stacks}, board=world.board, source="sweep layout"))
    try:
        aim = shoot.solve_aim(world, target, "low" if spec.arc == "best" else spec.arc)
    except OutOfReach:
        return target, None
    return target, None if spec.arc == "high" and aim.arc != "high" else aim


def run_space(spec: SweepSpec, name: str) -> SpaceShots:
    """Fire one space's shots: its part."""
    return advance(spec, name)[0]


def advance(
    spec: SweepSpec,
    name: str,
    fired: tuple[ShotRow, ...] = (),
    looks: int | None = None,
    target: str | None = None,
) -> tuple[SpaceShots, bool]:
    """One space's part measured by :class:`MapRule`, going on from the shots
    ``fired`` (the rule's own first shots at that space, from an earlier call) for at
    most ``looks`` more looks (None: until the rule stops), at ``target``
    (:func:`target_and_stacks`). Returns the part and whether the rule has stopped.
    Shot for shot the same as one call to the end."""
    world = world_for(spec)
    target, aim = aim_at_space(world, spec, name, target)
    if aim is None:
        return SpaceShots(name, False, None, target, ()), True
    rule = MapRule.of(spec)
    rows = list(fired)
    rounds = rule.next(hits_of(rows)) if rows else rule.first
    stopped = bool(rows) and rounds == rule.rounds_of(rows)
    taken = 0
    while not stopped and (looks is None or taken < looks):
        rows = fire_rounds(spec, world, aim, name, target, rows, rounds)
        taken += 1
        following = rule.next(hits_of(rows))
        stopped, rounds = following == rounds, following
    return SpaceShots(name, True, aim.arc, target, tuple(rows)), stopped


@dataclass(frozen=True)
class MapRule:
    """When a hit map stops firing at a space: the 95 % interval of P(target) within
    ±precision, or the cap. Shots come in rounds: a plain Monte Carlo shot, or a
    point of every RQMC scramble (``streams`` of them); ``first`` rounds before the
    first look, and :meth:`next` says how many to have after each look.

    Plain Monte Carlo looks every :data:`BATCH` shots at Wilson's interval; RQMC
    looks as :func:`sim.studies.shots.rqmc.next_points` says."""

    sampler: str
    precision: float | None
    streams: int
    first: int
    most: int

    @classmethod
    def of(cls, spec: SweepSpec) -> MapRule:
        if spec.sampler == "rqmc":
            scrambles, first, most = rqmc.plan(spec.shots, spec.precision)
            return cls("rqmc", spec.precision, scrambles, first, most)
        first = spec.shots if spec.precision is None else min(BATCH, spec.shots)
        return cls("mc", spec.precision, 1, first, spec.shots)

    def rounds_of(self, rows: list[ShotRow]) -> int:
        """The rounds the shots ``rows`` are."""
        return len(rows) // self.streams

    def next(self, hits: np.ndarray) -> int:
        """Rounds to have after a look at the (streams, rounds) ``hits``: as many as
        now to stop."""
        rounds = hits.shape[-1]
        if self.sampler == "rqmc":
            return rqmc.next_points(hits, self.precision, self.most)
        if rounds >= self.most or (
            self.precision is not None
            and precision_reached(int(hits.sum()), rounds, self.precision)
        ):
            return rounds
        return min(self.most, rounds + BATCH)


def hits_of(rows: list[ShotRow] | tuple[ShotRow, ...]) -> np.ndarray:
    """(streams, rounds) bool: whether each shot knocked the target out, by RQMC
    scramble and point (one stream of shots for plain Monte Carlo)."""
    if rows and rows[0].scramble is not None:
        return rqmc.by_scramble(rows, _target_knocked)
    return np.array([[r.target_knocked for r in rows]], dtype=bool).reshape(1, len(rows))


def _target_knocked(row: ShotRow) -> bool:
    return row.target_knocked


def fire_rounds(
    spec: SweepSpec, world, aim, name: str, target: str, rows: list[ShotRow], rounds: int
) -> list[ShotRow]:
    """``rows`` with the shots added that make them ``rounds`` rounds (the space's
    :func:`noise_plan`), fired together by the engine (:meth:`ShotEngine.fire`: one
    batch where it has one, else shot by shot). A row names its scramble and point;
    its seed is the scramble's. The same shots in the same order whatever the looks
    between."""
    plan = noise_plan(spec, world.board.parse_space(name), len(rows), rounds)
    shots = [
        AimedShot(aim.yaw_deg, aim.pitch_deg, aimer=spec.aimer, vary=spec.vary, **p.noise)
        for p in plan
    ]
    results = world.fire(shots)
    fired = [
        _shot_row(name, p.index, p.seed, target, result, p.scramble, p.point)
        for p, result in zip(plan, results, strict=True)
    ]
    return [*rows, *fired]


def _shot_row(
    space: str,
    index: int,
    seed: int,
    target: str,
    result,
    scramble: int | None = None,
    point: int | None = None,
) -> ShotRow:
    piggies_struck = [c for c in result.contacts if "-" in c]
    return ShotRow(
        space=space,
        shot=index,
        seed=seed,
        target=target,
        yaw_deg=round(normalised_yaw(result.yaw_deg), 4),
        pitch_deg=round(result.pitch_deg, 4),
        speed_mm_s=round(result.speed_mm_s, 2),
        knocked=",".join(result.knocked),
        target_knocked=target in result.knocked,
        collateral=sum(p != target for p in result.knocked),
        no_contact=not piggies_struck,
        outcome=shot_outcome(target, result.knocked, result.contacts),
        first_struck=first_struck(target, result.contacts),
        ricochets=sum(c in _RICOCHET_SURFACES for c in result.contacts),
        scramble=scramble,
        point=point,
    )


def normalised_yaw(yaw_deg: float) -> float:
    """A yaw in (-180, 180] degrees."""
    yaw = yaw_deg % 360.0
    return yaw - 360.0 if yaw > 180.0 else yaw


def summarise(part: SpaceShots, board: Board) -> SpaceSummary:
    """One space's row of the hit map."""
    rows = part.shots
    n = len(rows)
    space = board.parse_space(part.space)
    x, y = (float(v) for v in board.space_center_mm(space))
    shares: dict[str, float | None] = {}
    for key, hit in (
        ("p_target", lambda r: r.target_knocked),
        ("p_any", lambda r: bool(r.knocked)),
        ("p_collateral", lambda r: r.collateral > 0),
        ("p_no_contact", lambda r: r.no_contact),
        ("p_blocked", lambda r: r.outcome == "blocked"),
        ("p_missed", lambda r: r.outcome == "missed"),
    ):
        p, lo, hi = rqmc.proportion(rows, hit) if n else (None, None, None)
        shares[key] = None if p is None else round(p, 6)
        shares[f"{key}_ci_low"] = None if lo is None else round(lo, 6)
        shares[f"{key}_ci_high"] = None if hi is None else round(hi, 6)
    summary = SpaceSummary(
        space=part.space,
        row=space[0],
        col=space[1],
        x_mm=round(x, 2),
        y_mm=round(y, 2),
        distance_mm=round(float(np.hypot(x, y)), 2),
        reachable=part.reachable,
        arc=part.arc,
        target=part.target,
        shots=n,
        **shares,
        mean_ricochets=round(float(np.mean([r.ricochets for r in rows])), 4) if n else None,
        dead_zone=None,
    )
    # the dead zone is read off the intervals (sim/studies/shots/dead_zones.py)
    return dataclasses.replace(summary, dead_zone=dead_zone(summary.to_dict()))
