"""A design search's trials measured as cheaply as the question allows: refused
before any shot where the answer is known without physics, ranked at a low
fidelity, raced against the best trial so far, and the few best measured again at
full precision (``piggy design optimise``, sim/studies/optimising/optimise.py).

- **Before any shot.** Safety is arithmetic (sim/studies/designs/safety.py) and reach is the
  aim solver's (sim/physics/aim.py): at the point where a space's piggy will stand,
  and, within :data:`REACH_MARGIN_MM` of the edge of reach, at the piggy settled in
  the physics (no shot); a trial short of the reach required fires nothing.
- **Low fidelity.** Each trial fires ``fidelity`` shots a space (RQMC: the first
  points of every scramble), the same points for every trial (common random
  numbers: a space's points depend on the seed and the space alone), on the spaces
  its objective is measured on.
- **Racing.** The spaces are fired in an order shuffled per trial (seeded), and
  each space's P is reported to the trial as one instance (its step: the space's
  index among the spaces searched). Optuna's ``WilcoxonPruner`` compares the
  instances so far with the best trial's, paired, and stops a trial surely worse.
  A stopped trial returns an estimate of its objective (the best trial's value
  plus its mean paired difference so far) instead of raising: TPE would take a
  pruned trial for a bad one, and so it is. Only one mean-type objective races
  (``mean-p``, ``far-rows``); several objectives (NSGA-II) are not raced.
- **Full precision.** The best few trials (by their low-fidelity value) are measured
  again with the search's own hit-map rule (``--precision``), each space going on
  from its low-fidelity shots (sim/studies/shots/space_shots.py, ``advance``): the first
  points of a map to ±precision are those shots, so nothing is fired twice.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import partial
from typing import TypeVar

import numpy as np

from models.board import Board
from models.design import Design
from models.errors import InputError
from models.layout import layout_from_dict
from models.stats import Z_95
from sim.physics.aim import OutOfReach, solve
from sim.physics.geometry import PiggyModel
from sim.studies.running.workers import Pool
from sim.studies.shots import rqmc
from sim.studies.shots.records import ShotRow, SpaceShots
from sim.studies.shots.space_firing import advance, aim_at_space, run_space
from sim.studies.shots.space_shots import SweepSpec, target_and_stacks, world_for

#: Within this distance of the edge of reach a space's reach is settled in the physics,
#: mm: a lone piggy comes to rest 0.2 mm below its drop pose, an upper piggy of a
#: stack up to about 2 mm from it.
REACH_MARGIN_MM = 3.0
#: A trial's shots at low fidelity, over the spaces it fires at: 10 a space on the
#: whole stock board (a point of each of RQMC's ten scrambles), more a space on fewer
#: spaces (30 on the far rows' 28), so that a trial's objective is known about as well
#: whatever the spaces. At 10 shots a space over 28 spaces a search followed its noise
#: to a design worse than BASE (docs/optimise.md, "Speed").
TRIAL_SHOTS = 680
#: The pruners: Optuna's Wilcoxon signed-rank pruner, or none.
PRUNERS = ("wilcoxon", "none")
#: The Wilcoxon pruner's p-value threshold and the spaces seen before it may prune:
#: on the stock board's shots at 10 a space, a trial 0.03 worse is pruned after 20 of
#: 68 spaces and one 0.006 better in 4 % of races (0.02: after 28, and 2.5 %;
#: scripts/racing_study.py).
PRUNE_P = 0.05
PRUNE_AFTER = 8
#: Trials measured again at full precision.
REMEASURE = 2

Result = TypeVar("Result")


#: The objectives a trial races on: one of the mean kind, a P a space averaged.
RACED_OBJECTIVES = ("mean-p", "far-rows")


def races(objectives: list[str]) -> bool:
    """Whether trials of these objectives race (one objective, of the mean kind)."""
    return len(objectives) == 1 and objectives[0] in RACED_OBJECTIVES


def check_pruner(name: str | None, objectives: list[str] | None = None) -> str:
    """The pruner ``--pruner`` names (None: not given, wilcoxon where trials race).
    The Wilcoxon pruner asked for by name where ``objectives`` do not race is refused,
    not ignored without a word."""
    if name is None:
        return "wilcoxon"
    if name not in PRUNERS:
        raise InputError(f"unknown pruner '{name}': allowed are {', '.join(PRUNERS)}")
    if name == "wilcoxon" and objectives is not None and not races(objectives):
        raise InputError(
            f"--pruner wilcoxon races one objective of the mean kind "
            f"({' or '.join(RACED_OBJECTIVES)}), and --objective {','.join(objectives)} "
            "does not race: leave --pruner out or give --pruner none"
        )
    return name


def check_fidelity(shots: int | None, spec: SweepSpec, spaces: int) -> int:
    """Low-fidelity shots a space at ``spaces`` spaces fired (None: about
    :data:`TRIAL_SHOTS` a trial, at most the search's shots a space): a whole number
    of rounds of the sampler (a point of each RQMC scramble, or one shot), at most the
    shots a space at full precision may take."""
    rounds = rqmc.plan(spec.shots, spec.precision)[0] if spec.sampler == "rqmc" else 1
    most = rounds * (spec.shots // rounds)
    if shots is None:
        wanted = rounds * math.ceil(TRIAL_SHOTS / max(1, spaces) / rounds)
        return max(rounds, min(wanted, most))
    if not (rounds <= shots <= spec.shots and shots % rounds == 0):
        raise InputError(
            f"--fidelity {shots} must be a multiple of {rounds} from {rounds} to "
            f"{spec.shots} (the shots a space at full precision, at most)"
        )
    return shots


# --- reach, before any shot ---------------------------------------------------------------
def reach_before_shots(
    design: Design, board: Board, spec: SweepSpec, pool: Pool | None
) -> list[str]:
    """The spaces of ``spec`` the design reaches, known before any shot: the aim
    solver's at the point its target will stand at (its drop pose) where that leaves
    no doubt; where the point is within :data:`REACH_MARGIN_MM` of the edge of reach
    (a piggy settles up to about 2 mm from its drop pose, in a stack), the solver's at
    the piggy as it settles in the physics, which fires nothing."""
    sure, borderline = [], []
    model = PiggyModel.for_design(design)
    for name in spec.spaces:
        target, stacks = target_and_stacks(spec, name)
        layout = layout_from_dict({"stacks": stacks}, board=board, source="reach")
        point = model.centre_at(model.drop_poses_mm(board, layout)[target])
        if _reaches(design, point):
            sure.append(name)
        elif any(_reaches(design, p) for p in _around(point, REACH_MARGIN_MM)):
            borderline.append(name)
    settled = set(name for name, part in _in_order(borderline, pool, partial(_aimed, spec)) if part)
    return [name for name in spec.spaces if name in sure or name in settled]


def _reaches(design: Design, point: np.ndarray) -> bool:
    try:
        solve(design, point)
    except OutOfReach:
        return False
    return True


def _around(point: np.ndarray, margin: float) -> list[np.ndarray]:
    """Points ``margin`` above and below ``point``, and as far nearer and farther
    from the tractor's pivot."""
    distance = math.hypot(point[0], point[1]) or 1.0
    out = []
    for dz in (-margin, margin):
        out.append(point + np.array([0.0, 0.0, dz]))
    for scale in (1 - margin / distance, 1 + margin / distance):
        out.append(np.array([point[0] * scale, point[1] * scale, point[2]]))
    return out


def _aimed(spec: SweepSpec, name: str) -> bool:
    """Whether the sweep's aim at a space exists, with its layout settled in the
    physics (no shot)."""
    return aim_at_space(world_for(spec), spec, name)[1] is not None


# --- one trial's spaces, raced ------------------------------------------------------------
@dataclass(frozen=True)
class Raced:
    """A trial's low-fidelity shots: the parts of the spaces fired (in the spaces'
    order), whether it was pruned, and against which trial."""

    parts: dict[str, SpaceShots]
    pruned: bool
    against: int | None


def shuffled(spaces: tuple[str, ...], seed: int, trial: int) -> list[str]:
    """The order a trial fires its spaces in: shuffled by the seed and the trial."""
    order = list(spaces)
    random.Random(f"{seed}:{trial}").shuffle(order)
    return order


def race(
    spec: SweepSpec,
    spaces: tuple[str, ...],
    index: dict[str, int],
    trial,
    pool: Pool | None,
    prune: bool,
) -> Raced:
    """Fire ``spaces`` at the spec's low fidelity in an order shuffled for
    ``trial``; with ``prune``, report each space's P to it as step ``index[space]``
    and stop when Optuna's pruner says so (a study of several objectives takes no
    reports). Spaces are handed to the pool's
    workers a few at a time, and their P reported in the shuffled order whatever
    order they finish in, so the decisions depend on the shots alone."""
    order = shuffled(spaces, spec.seed, trial.number)
    parts: dict[str, SpaceShots] = {}
    for name, part in _in_order(order, pool, partial(run_space, spec)):
        parts[name] = part
        if not prune:
            continue
        trial.report(p_target(part), index[name])
        if trial.should_prune():
            return Raced(parts, True, _best_number(trial))
    return Raced(parts, False, None)


def _best_number(trial) -> int | None:
    try:
        return trial.study.best_trial.number
    except ValueError:
        return None


def _in_order(
    names: list[str], pool: Pool | None, job: Callable[[str], Result]
) -> Iterator[tuple[str, Result]]:
    """``job`` of each name, yielded in the names' order; with a pool, as many in
    flight as it has workers, the rest not started until a caller asks for more
    (what a pruned trial leaves is never fired)."""
    if pool is None:
        for name in names:
            yield name, job(name)
        return
    waiting: dict[str, Future] = {}
    queue = iter(names)
    try:
        for name in names:
            while len(waiting) < pool.size and (following := next(queue, None)) is not None:
                waiting[following] = pool.executor.submit(job, following)
            yield name, waiting.pop(name).result()
    finally:
        for future in waiting.values():
            future.cancel()


def p_target(part: SpaceShots) -> float:
    """A space's P(target knocked out) as a trial reports it: its share of the
    shots, 0 out of reach (no piggy there can be knocked out)."""
    if not part.reachable or not part.shots:
        return 0.0
    return float(np.mean([r.target_knocked for r in part.shots]))


def pruned_estimate(trial, raced: Raced, index: dict[str, int]) -> tuple[float, float, float]:
    """A pruned trial's objective: the best trial's value plus the mean paired
    difference over the spaces fired, with a 95 % interval from those differences'
    spread (normal; the best trial's own error left out)."""
    best = trial.study.best_trial
    diffs = [
        p_target(part) - best.intermediate_values[index[name]]
        for name, part in raced.parts.items()
        if index[name] in best.intermediate_values
    ]
    mean = float(np.mean(diffs))
    half = Z_95 * float(np.std(diffs, ddof=1)) / math.sqrt(len(diffs)) if len(diffs) > 1 else 1.0
    value = best.values[0] + mean
    return value, value - half, value + half


# --- full precision --------------------------------------------------------------------
def full_parts(
    spec: SweepSpec, fired: dict[str, tuple[ShotRow, ...]], pool: Pool | None
) -> dict[str, SpaceShots]:
    """Every space of ``spec`` measured by its own hit-map rule, going on from the
    shots ``fired`` at low fidelity where a space has them."""
    job = partial(_full_space, spec, fired)
    return dict(_in_order(list(spec.spaces), pool, job))


def _full_space(spec: SweepSpec, fired: dict, name: str) -> SpaceShots:
    return advance(spec, name, fired.get(name, ()))[0]


def low_fidelity(spec: SweepSpec, fidelity: int) -> SweepSpec:
    """The search's settings at ``fidelity`` shots a space, every one fired."""
    return replace(spec, shots=fidelity, precision=None)
