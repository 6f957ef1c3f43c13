"""The check (``piggy calibrate --check``): does the sandbox knock out what the toy
knocks out?

Each measured shot's launch (the angles set, and the speed where the shot has one)
is fired ``refires`` times in the sandbox with the design's noise at the layout, and
each piggy's share of knock-outs over those re-fires is its P for that shot; the
statistics set them against what the video shows
(sim/studies/calibrating/toy_check_stats.py).

- **Noise.** The launcher's spread only: the angles are the ones the toy was set to
  (no aimer's error). A re-fire draws its yaw and pitch deviates, and its speed
  deviate unless the shot's speed was measured: then its speed is that one.
- **Where.** One job a shot, on the study pool (``workers`` local processes, or a
  Dask cluster: sim/studies/running/workers.py ``pool_for``), each worker with its
  world from the process's cache. A shot's re-fires are seeded by the seed and the
  shot's number alone, so the same seed gives the same result whatever the workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import dataclass

import numpy as np

from models.board import Board
from models.design import Design
from models.design_checks import check_angles
from models.errors import InputError
from models.layout import Layout
from models.seeds import split_seed
from sim.defaults import CHECK_REFIRES
from sim.studies.calibrating.knocked_csv import KnockedShots
from sim.studies.calibrating.toy_check_stats import CheckStatistics, check_statistics
from sim.studies.running.cluster import StudyWorkers
from sim.studies.running.workers import pool_for


@dataclass(frozen=True)
class CheckSpec:
    """What every shot's re-fires are made with: the scene, how many, the root seed."""

    board: Board
    design: Design
    layout: Layout
    refires: int = CHECK_REFIRES
    seed: int = 0


@dataclass(frozen=True)
class SetLaunch:
    """A measured shot's launch: the angles set (degrees), its speed (mm/s; NaN: not
    measured, the design's is drawn)."""

    yaw_deg: float
    pitch_deg: float
    speed_mm_s: float = math.nan


@dataclass(frozen=True)
class ToyCheck:
    """The check's outcome: its settings, the piggies in order, the P's (shots,
    piggies), what the film shows, the sd of each shot's count of seen piggies
    knocked out over its re-fires (shots,), and the statistics."""

    spec: CheckSpec
    source: str
    piggies: tuple[str, ...]
    predicted: np.ndarray
    observed: np.ndarray
    seen: np.ndarray
    count_sd: np.ndarray
    statistics: CheckStatistics

    def to_dict(self) -> dict:
        return {
            "design": self.spec.design.name,
            "layout": self.spec.layout.to_dict(),
            "measured": self.source,
            "refires_per_shot": self.spec.refires,
            "seed": self.spec.seed,
            "piggies": list(self.piggies),
            "predicted": np.round(self.predicted, 4).tolist(),
            "observed": self.observed.tolist(),
            "seen": self.seen.tolist(),
        } | self.statistics.to_dict()


def launches_of(shots: KnockedShots, design: Design) -> list[SetLaunch]:
    """The shots' launches, refused on one line (naming the row) where the design's
    tractor cannot be set so, or a speed is measured and the design has no speed
    spread to place it in."""
    launches = []
    for i in range(len(shots)):
        launch = SetLaunch(
            float(shots.yaw_deg[i]), float(shots.pitch_deg[i]), float(shots.speed_mm_s[i])
        )
        try:
            check_angles(design, launch.yaw_deg, launch.pitch_deg)
        except InputError as exc:
            raise InputError(f"{shots.source} row {i + 2}: {exc}") from None
        if not math.isnan(launch.speed_mm_s) and design.launcher.speed_sd_mm_s <= 0:
            raise InputError(
                f"{shots.source} row {i + 2}: a measured speed, and design "
                f"'{design.name}' has no speed spread (speed_sd_mm_s 0) to fire it in: "
                "empty the speed_mm_s column, or give the design a spread"
            )
        launches.append(launch)
    return launches


def refire(spec: CheckSpec, index: int, launch: SetLaunch) -> tuple[int, np.ndarray]:
    """A job: shot ``index``'s launch fired ``spec.refires`` times; (index, knocked),
    knocked (refires, piggies) bool in the layout's order of piggies, sorted."""
    from sim.physics.launch import AimedShot
    from sim.physics.noise import Deviates
    from sim.physics.world_cache import WORLDS

    # the check counts verdicts: a shot may end once the bale can strike nothing more
    world = WORLDS.world(spec.board, spec.design, bale_to_rest=False)
    world.set_layout(spec.layout)
    deviates = np.random.default_rng(split_seed(spec.seed, index)).standard_normal(
        (spec.refires, 3)
    )
    launcher = spec.design.launcher
    if not math.isnan(launch.speed_mm_s):  # the measured speed, as a deviate of the design's
        deviates[:, 2] = (launch.speed_mm_s - launcher.muzzle_speed_mm_s) / launcher.speed_sd_mm_s
    results = world.fire(
        [
            AimedShot(
                launch.yaw_deg, launch.pitch_deg, deviates=Deviates(float(y), float(p), float(s))
            )
            for y, p, s in deviates
        ]
    )
    piggies = sorted(spec.layout.piggies)
    return index, np.array([[r.piggies[p].knocked for p in piggies] for r in results], bool)


def fire_refires(
    spec: CheckSpec,
    launches: list[SetLaunch],
    workers: StudyWorkers = 1,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Every shot's re-fires (shots, refires, piggies) on the study pool; ``progress``
    is called with the shots done."""
    fired = np.zeros((len(launches), spec.refires, len(spec.layout.piggies)), bool)
    job = _Job(spec, launches)
    with pool_for(workers, len(launches)) as pool:
        if pool is None:
            parts = (job(i) for i in range(len(launches)))
        else:
            futures = [pool.executor.submit(job, i) for i in range(len(launches))]
            parts = (future.result() for future in as_completed(futures))
        for done, (index, knocked) in enumerate(parts, start=1):
            fired[index] = knocked
            if progress:
                progress(done)
    return fired


@dataclass(frozen=True)
class _Job:
    """Shot i's re-fires, as the pool's jobs are called (with the shot's number)."""

    spec: CheckSpec
    launches: list[SetLaunch]

    def __call__(self, index: int) -> tuple[int, np.ndarray]:
        return refire(self.spec, index, self.launches[index])


def toy_check(
    shots: KnockedShots,
    spec: CheckSpec,
    workers: StudyWorkers = 1,
    progress: Callable[[int], None] | None = None,
) -> ToyCheck:
    """The check of ``spec``'s sandbox against the measured ``shots``."""
    launches = checked_launches(shots, spec)
    return judged(shots, spec, fire_refires(spec, launches, workers, progress))


def checked_launches(shots: KnockedShots, spec: CheckSpec) -> list[SetLaunch]:
    """:func:`launches_of`, once the check has piggies to judge: refused on one line
    for a layout without piggies, or a film on which none was seen."""
    if not spec.layout.piggies:
        raise InputError("the layout has no piggies: the check needs piggies to knock out")
    if not shots.outcomes(sorted(spec.layout.piggies))[1].any():
        raise InputError(f"{shots.source}: every piggy is unseen in every shot")
    return launches_of(shots, spec.design)


def judged(shots: KnockedShots, spec: CheckSpec, fired: np.ndarray) -> ToyCheck:
    """The check of ``shots`` once their re-fires (shots, refires, piggies) are fired."""
    piggies = sorted(spec.layout.piggies)
    observed, seen = shots.outcomes(piggies)
    return ToyCheck(
        spec=spec,
        source=shots.source,
        piggies=tuple(piggies),
        predicted=fired.mean(axis=1),
        observed=observed,
        seen=seen,
        count_sd=(fired & seen[:, None, :]).sum(axis=2).std(axis=1, ddof=1),
        statistics=check_statistics(fired, observed, seen, seed=spec.seed),
    )
