"""Launcher-design testing: compare designs by their hit maps, shot for shot
(sim/studies/comparing/compare.py), or sweep one design parameter
(sim/studies/designs/design_sweep.py) and watch the figures move.

Hit maps are cached under a cache folder (default: the user's cache folder, see
:func:`cache_folder`), keyed by everything that makes them, so comparing again
reads instead of shooting.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from models.board import Board
from models.design import Design, design_identity, design_toml
from models.files import write_text_atomic
from sim.physics.aim import reach_mm
from sim.studies.comparing import board_mean, compare, mean_run, paired, shared_looks
from sim.studies.comparing.cached_maps import read_cached
from sim.studies.comparing.comparison_rule import ComparisonRule, comparison_rule
from sim.studies.maps import hitmap
from sim.studies.maps.hitmap import looks_key
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import datafiles, space_shots
from sim.studies.shots.records import MeasuredSpace

#: The cached files' layout: raised when the columns change, so that files made by
#: an older version are measured again rather than read.
CACHE_FORMAT = 2


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


def cached_hitmap_path(spec: space_shots.SweepSpec, design: Design, cache: Path) -> Path:
    """Where the cache keeps a design's hit map measured with ``spec``'s settings (a
    hit map file: ``--shots table:FILE`` reads it). The key leaves out ``spec.design``
    (the first design named, which the sweep replaces): a design's map is found
    whatever the order the designs are given in."""
    settings = dataclasses.replace(spec, design="").key()
    key = datafiles.sha256_text(f"{CACHE_FORMAT}|{settings}|{design_toml(design)}")[:16]
    return cache / f"hitmap-{key}.csv"


def design_parts(
    spec: space_shots.SweepSpec,
    design: Design,
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
) -> list[MeasuredSpace]:
    """One design's hit map, per space its part and its row, measured with
    ``spec``'s settings; from the cache when it is there. ``progress`` is called with
    the number of spaces finished (and ``fired=``, the shots fired for the last)."""
    found = cached_parts(spec, design, cache)
    if found is not None:
        if progress:
            progress(len(spec.spaces))
        return found
    out = cached_hitmap_path(spec, design, cache)
    cache.mkdir(parents=True, exist_ok=True)
    design_file = out.with_name(out.name.replace("hitmap-", "design-").replace(".csv", ".toml"))
    write_text_atomic(design_file, design_toml(design))
    hitmap.sweep(
        dataclasses.replace(spec, design=str(design_file)),
        out,
        "csv",
        workers=workers,
        resume=True,
        per_shot=True,
        progress=progress,
    )
    measured = cached_parts(spec, design, cache)
    assert measured is not None
    return measured


def cached_parts(
    spec: space_shots.SweepSpec, design: Design, cache: Path
) -> list[MeasuredSpace] | None:
    """A design's hit map from the cache (None when it has not been measured)."""
    out = cached_hitmap_path(spec, design, cache)
    return read_cached(spec, out, partial(space_shots.expected_part, spec), design)


# --- the sequential rules' maps (board mean, spaces) -----------------------------------------
def paired_outputs(
    spec: space_shots.SweepSpec, designs: list[Design], rule: ComparisonRule, cache: Path
) -> list[hitmap.Output]:
    """Each design's hit map of a comparison fired together (the mean or the spaces
    rule): cached under a key of everything that made them (the settings, the rule,
    every design of the comparison: a design's shots there depend on its partners),
    with the design's file (written now) beside it; its parts checked against that
    key too."""
    if rule.mean is not None:  # every precision's and δ's looks shared (shared_looks.py)
        shots_key = shared_looks.mean_key(spec, rule)
    else:
        shots_key = f"{rule.cache_key()}|{dataclasses.replace(spec, design='').key()}"
    designs_text = "|".join(design_toml(d) for d in designs)
    key = datafiles.sha256_text(f"{CACHE_FORMAT}|{shots_key}|{designs_text}")
    stem = "paired" if rule.name == "spaces" else rule.name
    outputs = []
    cache.mkdir(parents=True, exist_ok=True)
    for index, design in enumerate(designs):
        out = cache / f"{stem}-{key[:16]}-{index}.csv"
        design_file = write_text_atomic(out.with_suffix(".toml"), design_toml(design))
        design_spec = dataclasses.replace(spec, design=str(design_file))
        made_by = (
            space_shots.provenance(design_spec)
            | rule.provenance()
            | {"paired_with": [d.name for d in designs if d is not design][: 1 if index else None]}
        )
        outputs.append(
            hitmap.Output(
                design_spec,
                out,
                f"{looks_key(design_spec) if rule.mean else design_spec.key()}|{key}",
                partial(paired.expected, design_spec),
                made_by,
            )
        )
    return outputs


def paired_maps(
    spec: space_shots.SweepSpec,
    designs: list[Design],
    rule: ComparisonRule,
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
    found: list[list[MeasuredSpace] | None] | None = None,
    budget: board_mean.Budget | None = None,
) -> list[list[MeasuredSpace]]:
    """Every design's hit map of a comparison fired together, by the mean rule
    (sim/studies/comparing/board_mean.py) or the spaces rule (sim/studies/comparing/paired.py), from
    the
    cache when it is there (``found``: as :func:`read_cached` read it already);
    ``progress`` is called with the number of spaces finished (of each look, with
    the mean rule). ``budget``: the mean rule's time, kept (None: ``rule.budget_s``
    from now)."""
    outputs = paired_outputs(spec, designs, rule, cache)
    if found is None:
        found = [_read(o, d) for o, d in zip(outputs, designs, strict=True)]
    whole = [f for f in found if f is not None]
    short = shared_looks.short_alone(spec, whole) if rule.mean and len(whole) == len(found) else ()
    if len(whole) == len(found) and not short and not _mean_goes_on(rule, found):
        if progress:
            progress(len(spec.spaces))
        return _as_asked(spec, rule, whole)
    if rule.mean is not None:
        start = [
            {m.part.space: m.part for m in f if m.part.space not in short}
            if f is not None
            else mean_run.found_parts(o)
            for o, f in zip(outputs, found, strict=True)
        ]
        budget = budget or board_mean.Budget(rule.budget_s, began=time.monotonic())
        mean_run.run_looks(outputs, rule.mean, start, workers, budget, progress)
    else:
        assert rule.spaces is not None
        job = partial(paired.compare_space, tuple(o.spec for o in outputs), rule.spaces)
        hitmap.run_outputs(
            outputs, "csv", job, workers, resume=True, per_shot=True, progress=progress
        )
    measured = [_read(o, d) for o, d in zip(outputs, designs, strict=True)]
    return _as_asked(spec, rule, [m for m in measured if m is not None])


def _as_asked(
    spec: space_shots.SweepSpec, rule: ComparisonRule, maps: list[list[MeasuredSpace]]
) -> list[list[MeasuredSpace]]:
    """The maps as this rule fires them: a board-mean comparison's cut where this
    precision's mean stops (the cache may hold a finer one's looks)."""
    return shared_looks.as_asked(spec, rule.mean, maps) if rule.mean and len(maps) > 1 else maps


def _read(output: hitmap.Output, design: Design) -> list[MeasuredSpace] | None:
    """A comparison's cached map of ``design`` (:func:`read_cached`)."""
    return read_cached(output.spec, output.path, output.expected, design)


def comparison_maps(
    spec: space_shots.SweepSpec,
    designs: list[Design],
    rule: ComparisonRule,
    workers: StudyWorkers,
    cache: Path,
) -> list[list[MeasuredSpace]]:
    """The maps a comparison by ``rule`` was made of (from the cache, as it made
    them): the designs fired together, or each design's own map."""
    if rule.sequential:
        return paired_maps(spec, designs, rule, workers, cache)
    return [design_parts(spec, d, workers, cache) for d in designs]


def comparison_cached(
    spec: space_shots.SweepSpec, designs: list[Design], rule: ComparisonRule, cache: Path
) -> bool:
    """Whether a comparison by ``rule`` is in the cache already (it fires nothing)."""
    if not rule.sequential:
        return all(cached_parts(spec, d, cache) is not None for d in designs)
    outputs = paired_outputs(spec, designs, rule, cache)
    found = [_read(o, d) for o, d in zip(outputs, designs, strict=True)]
    return all(f is not None for f in found) and not _mean_goes_on(rule, found)


def _mean_goes_on(rule: ComparisonRule, found: list) -> bool:
    """Whether cached maps of the mean rule stopped short of its answer (a budget
    ran out) and some comparison can go on from them."""
    if rule.mean is None:
        return False
    parts_a = [m.part for m in found[0]]
    return any(
        board_mean.replay(rule.mean, parts_a, [m.part for m in f]).stop == "budget"
        for f in found[1:]
    )


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
        found = [_read(o, d) for o, d in zip(outputs, designs, strict=True)]
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


def cache_folder(text: str | None) -> Path:
    """``--cache``, else the user's cache folder (platformdirs: on Linux
    ``$XDG_CACHE_HOME/go-piggy-go/hitmaps``, ``~/.cache/...`` by default)."""
    if text:
        return Path(text)
    from platformdirs import user_cache_path

    return user_cache_path("go-piggy-go") / "hitmaps"
