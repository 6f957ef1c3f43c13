"""Launcher-design testing: compare designs by their hit maps, shot for shot
(sim/studies/comparing/compare.py), each design's figures beside them, or sweep one
design parameter (sim/studies/designs/sweep.py) and watch the figures move.

The hit maps come from the cache (sim/studies/comparing/cached_maps.py): comparing
again reads instead of shooting.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from models.board import Board
from models.design import Design, design_identity
from sim.physics.aim import reach_mm
from sim.studies.comparing import board_mean, compare
from sim.studies.comparing.cached_maps import (
    cached_parts,
    design_parts,
    paired_maps,
    paired_outputs,
    read_output,
)
from sim.studies.comparing.comparison_rule import ComparisonRule, comparison_rule
from sim.studies.maps import hitmap
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import space_shots
from sim.studies.shots.records import MeasuredSpace


def comparison_provenance(
    spec: space_shots.SweepSpec, names: list[str], maps: list[list[dict]]
) -> dict:
    """What made a comparison: the hit maps' settings, and per design (``names`` as
    given) its identity (:func:`design_identity`) and the shots it fired."""
    made_by = {
        k: v
        for k, v in space_shots.provenance(spec).items()
        if k not in ("design", "design_file", "design_file_sha256", "design_sha256")
    }
    made_by["designs"] = [
        design_identity(name) | {"shots_fired": hitmap.shots_fired(rows)}
        for name, rows in zip(names, maps, strict=True)
    ]
    return made_by


def figures(board: Board, design: Design, measured: list[MeasuredSpace]) -> dict:
    """One design's figures: reach, mean and worst P with intervals, dead zones
    (sim/studies/shots/dead_zones.py; out of reach split into too close and too far),
    collateral rate."""
    near, _ = reach_mm(design, design.bale.height_mm / 2)
    dead: dict[str, list[str]] = {
        "too_close": [],
        "too_far": [],
        "blocked": [],
        "missed": [],
        "never_out": [],
    }
    for space in measured:
        row = space.row
        kind = row.dead_zone
        if kind == "out_of_reach":
            kind = (
                "too_close" if row.distance_mm < (near if math.isfinite(near) else 0) else "too_far"
            )
        if kind:
            dead[kind].append(row.space)
    reachable = [m.row for m in measured if m.row.reachable]
    collateral = (
        round(float(np.mean([r.p_collateral or 0.0 for r in reachable])), 4) if reachable else None
    )
    return compare.summary(design.name, [m.part for m in measured]) | {
        "dead_zones": dead,
        "collateral_rate": collateral,
    }


def compare_designs(
    spec: space_shots.SweepSpec,
    board: Board,
    designs: list[Design],
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
    rule: ComparisonRule | None = None,
    budget: board_mean.Budget | None = None,
) -> tuple[list[dict], list[compare.Comparison], list[list[dict]]]:
    """Each design's figures, each design after the first compared with the first
    shot for shot, and the hit-map rows. ``rule``: the comparison's
    (sim/studies/comparing/comparison_rule.py; None: the default, the board-mean rule with its
    default δ). ``progress(done, total)`` counts spaces finished (the mean rule adds
    ``note=``, the mean so far, after each look). ``budget``: the mean rule's time
    as :func:`paired_maps` keeps it."""
    _cluster_checked(workers)
    rule = rule or comparison_rule(spec)
    if rule.sequential and len(designs) > 1:
        outputs = paired_outputs(spec, designs, rule, cache)
        # every cached map checked before any shot is fired, and read once
        found = [read_output(o, d) for o, d in zip(outputs, designs, strict=True)]
        total = len(spec.spaces)
        maps = paired_maps(
            spec,
            designs,
            rule,
            workers,
            cache,
            progress and (lambda d, **n: progress(d, total, **n)),
            found,
            budget,
        )
    else:
        maps = _maps_one_by_one(spec, designs, workers, cache, progress)
    results = [figures(board, d, m) for d, m in zip(designs, maps, strict=True)]
    parts = [[m.part for m in measured] for measured in maps]
    comparisons = [
        compare.compare_parts(designs[0].name, d.name, parts[0], p, rule)
        for d, p in zip(designs[1:], parts[1:], strict=True)
    ]
    return results, comparisons, [[m.row.to_dict() for m in measured] for measured in maps]


def _cluster_checked(workers: StudyWorkers) -> None:
    """A Dask cluster connected and checked now, before the cache is written (its
    design files): one refused (unreachable, without workers, of other code) leaves
    nothing there. The sweeps connect again; a local pool needs no check."""
    if not isinstance(workers, int):
        from sim.studies.running.workers import pool_for

        with pool_for(workers):
            pass


def _maps_one_by_one(
    spec: space_shots.SweepSpec,
    designs: list[Design],
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None,
) -> list[list[MeasuredSpace]]:
    """Each design's hit map measured on its own (``progress`` counts spaces over all
    the designs)."""
    total = len(spec.spaces) * len(designs)
    for design in designs:  # every cached map checked before any shot is fired
        cached_parts(spec, design, cache)
    maps: list[list[MeasuredSpace]] = []
    for index, design in enumerate(designs):
        offset = index * len(spec.spaces)
        maps.append(
            design_parts(
                spec,
                design,
                workers,
                cache,
                progress
                and (lambda done, offset=offset, **told: progress(offset + done, total, **told)),
            )
        )
    return maps
