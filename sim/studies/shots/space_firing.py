"""One space fired: the aim at its target, its shots fired together by the engine in
rounds until the map's rule stops them (:class:`MapRule`), each shot's row, and
the space's row of the hit map (:func:`summarise`). What a sweep measures, the
space's seeds, its noise plan and its target stood there are
sim/studies/shots/space_shots.py's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from models.board import Board
from models.layout import layout_from_dict
from models.stats import precision_reached
from sim.physics.aim import OutOfReach
from sim.studies.shots import rqmc
from sim.studies.shots.dead_zones import dead_zone, first_struck, shot_outcome
from sim.studies.shots.records import ShotRow, SpaceShots, SpaceSummary
from sim.studies.shots.space_shots import BATCH, SweepSpec, noise_plan, target_and_stacks, world_for

#: Strikes that count as ricochets.
_RICOCHET_SURFACES = ("fence", "tractor")


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
    plan = noise_plan(spec, world.board.parse_space(name), len(rows), rounds, aim)
    results = world.fire([p.shot for p in plan])
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
