"""How P(target) depends on the aimer: the same spaces measured at a range of aim
spreads (``piggy hitmap --spaces ... --aim-sd-scan 0:6:7``).

The aimer files are assumptions (docs/hitmap.md, "Who aims"); a conclusion that
holds only for some spreads shows here as curves that cross or bend. At each spread
the aimer's yaw and pitch spreads are both set to it, its bias kept; every point
uses the same shot seeds (with the RQMC sampler: the same points), so the curves
are smooth (common random numbers) rather than each point drawing fresh noise.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

import numpy as np

from models.design import load_design
from sim.studies.maps import hitmap
from sim.studies.running.cluster import StudyWorkers
from sim.studies.running.workers import Pool, pool_for
from sim.studies.shots import rqmc, space_shots
from sim.studies.shots.records import SpaceShots


def scan_designs(
    spec: space_shots.SweepSpec,
    designs: list[str],
    values: np.ndarray,
    out: Path,
    fmt: str,
    workers: StudyWorkers = 1,
    progress=None,
) -> tuple[list[dict], dict]:
    """Each design of ``designs`` scanned in turn (``spec``'s own design left aside),
    the rows written to ``out`` (one per design, space and spread) with what made
    them; returns the rows and that record. ``progress`` counts spreads over every
    design."""
    from sim.studies.running import owner
    from sim.studies.shots import datafiles

    made_by = space_shots.provenance(spec) | {"aim_sd_scan_deg": [float(v) for v in values]}
    if len(designs) > 1:
        made_by["designs"] = [
            space_shots.provenance(dataclasses.replace(spec, design=name))["design_file"]
            for name in designs
        ]
    rows = []
    with owner.owned(out):  # one run at a time writes an output
        if progress:
            progress(0)  # the scan starts, its output owned
        for k, name in enumerate(designs):
            rows += aim_sd_scan(
                dataclasses.replace(spec, design=name),
                values,
                workers,
                progress and partial(_offset, progress, k * len(values)),
            )
        if progress:
            progress(None)
        datafiles.write_table(rows, out, fmt, made_by)
    return rows, made_by


def _offset(progress, offset: int, done: int) -> None:
    """``progress`` of a count over every design, told one design's count."""
    progress(offset + done)


def aim_sd_scan(
    spec: space_shots.SweepSpec, values: np.ndarray, workers: StudyWorkers = 1, progress=None
) -> list[dict]:
    """One row per (space, spread): P(target) and its 95 % interval (Wilson's, or
    the RQMC sampler's: sim/studies/shots/rqmc.py)."""
    rows: list[dict] = []
    aimer = spec.aimer
    with pool_for(workers, len(spec.spaces)) as pool:  # one pool for every spread
        for step, sd in enumerate(values):
            rows += _spread(dataclasses.replace(spec, aimer=aimer.with_spread(sd, sd)), pool)
            if progress:
                progress(step + 1)
    return rows


def _spread(spec: space_shots.SweepSpec, pool: Pool | None) -> list[dict]:
    """One aim spread's rows, one per space."""
    rows: list[dict] = []
    design = load_design(spec.design).name
    sd = spec.aimer.yaw_sd_deg
    parts: dict[str, SpaceShots] = {}
    hitmap.run_on(pool, partial(hitmap.one_space, spec), list(spec.spaces), partial(_keep, parts))
    for name in spec.spaces:
        shots = parts[name].shots
        p, low, high = (
            rqmc.proportion(shots, lambda r: r.target_knocked) if shots else (None, None, None)
        )
        rows.append(
            {
                "design": design,
                "space": name,
                "aim_sd_deg": round(float(sd), 4),
                "reachable": parts[name].reachable,
                "shots": len(shots),
                "p_target": round(p, 6) if p is not None else None,
                "p_target_ci_low": None if low is None else round(low, 6),
                "p_target_ci_high": None if high is None else round(high, 6),
            }
        )
    return rows


def _keep(parts: dict[str, SpaceShots], measured: tuple[SpaceShots, ...]) -> None:
    (part,) = measured
    parts[part.space] = part
