"""``piggy design optimise``: a search over design fields with Optuna, constrained by
safety and reach, ranked cheaply and verified properly.

- **Trials.** Each trial is a design (sim/studies/designs/search.py). What is known
  without physics is checked first: its safety figures (sim/studies/designs/safety.py) and
  its reach (the aim solver's, sim/studies/optimising/racing.py); a design over a limit or
  short of the reach required is recorded as infeasible and fires no shot. The
  others are measured at a low fidelity, every trial the same points a space
  (common random numbers), and raced against the best trial so far
  (sim/studies/optimising/racing.py: Optuna's Wilcoxon pruner over the spaces); the reason an
  infeasible trial is kept.
- **Search.** Optuna: TPE (seeded) for one objective, NSGA-II (seeded) for
  several (not raced); the constraints set on each trial (``Trial.set_constraint``:
  a value above 0 breaks one), which both samplers take into account. When BASE's
  own values lie in the ranges it is trial 0, so the search always knows the design
  it must beat.
- **Full precision.** The few best trials are measured again with the search's own
  hit-map rule (``--precision``), going on from their low-fidelity shots; the best
  is chosen on those figures (kept in the study: a resumed study does not measure
  them again).
- **Storage.** Any storage URL Optuna takes (default: an SQLite file in the user's
  cache folder); the study keeps the search's settings, and a study resumed under
  other settings is refused. Several processes or machines may add trials to one
  study through a shared database, and a trial whose process died is tried again
  (sim/studies/optimising/study_storage.py).
- **Best.** The feasible trial with the best value (one objective), or the
  feasible Pareto front (several).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from models.design import Design
from models.errors import InputError, install_hint
from models.files import make_folder
from models.text import shown
from sim.studies.designs import search as design_search
from sim.studies.optimising import racing, study_storage
from sim.studies.optimising import trial as optimise_trial
from sim.studies.optimising.search_settings import Search
from sim.studies.running.workers import Pool

#: The fewest feasible trials the importances are given for (fewer: not shown).
MIN_IMPORTANCE_TRIALS = 10
#: Random trials TPE draws before it models the results (a design search has tens of
#: trials, not thousands), and NSGA-II's population.
TPE_STARTUP = 5
NSGA_POPULATION = 8
#: The constraints of a trial, in the order of its ``constraints`` (each above 0 when
#: broken): energy over its limit (J), energy per area over its limit (J/m²), spaces
#: short of the reach required.
CONSTRAINTS = ("kinetic_energy_j", "kinetic_energy_per_area_j_m2", "reach")


def optuna_module():
    """Optuna, or a one-line error saying how to install it."""
    try:
        import optuna
    except ImportError:
        raise InputError(
            f"piggy design optimise needs Optuna, an optional extra: {install_hint('optimise')}"
        ) from None
    optuna.logging.set_verbosity(logging.ERROR)  # a trial cut short by Ctrl-C: no traceback
    return optuna


def default_storage() -> str:
    """An SQLite file in the user's cache folder (platformdirs)."""
    from platformdirs import user_cache_path

    folder = make_folder(user_cache_path("go-piggy-go"), "the user cache folder")
    return f"sqlite:///{folder / 'optimise.sqlite3'}"


def open_study(search: Search, storage_url: str, name: str, search_seed: int):
    """The study (made, or resumed when one of that name is there), its sampler seeded
    from ``search_seed``, its lost trials queued again (sim/studies/optimising/study_storage.py);
    refused, on one line, when the storage cannot be opened or the study was made
    with other settings."""
    optuna = optuna_module()
    storage_url = study_storage.with_driver(storage_url)
    with study_storage.creating(storage_url):
        storage, existing = study_storage.open_storage(optuna, storage_url)
        study = _study(optuna, search, storage, existing, name, search_seed)
        study_storage.retry_lost(optuna, study)
    return study


def _study(optuna, search: Search, storage, existing: dict, name: str, search_seed: int):
    """:func:`open_study`'s study, under the storage's creation lock."""
    settings = search.settings()
    done = 0
    if name in existing:
        made_with = existing[name].user_attrs.get("settings")
        if made_with != json.loads(json.dumps(settings)):
            differ = sorted(k for k in settings if (made_with or {}).get(k) != settings[k])
            raise InputError(
                f"study '{shown(name)}' was made with other settings (they differ "
                f"in {', '.join(differ) or 'all'}): give another --study"
            )
        done = existing[name].n_trials
    directions = [design_search.OBJECTIVES[o][0] for o in search.objectives]
    seed = (search_seed + done) % 2**32  # a resumed study draws new points
    if len(directions) == 1:
        sampler = optuna.samplers.TPESampler(  # the liar: trials in flight are told apart
            seed=seed, n_startup_trials=TPE_STARTUP, constant_liar=True
        )
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=seed, population_size=NSGA_POPULATION)
    with warnings.catch_warnings():  # its note that it is experimental (since Optuna 3.6)
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        pruner = (
            optuna.pruners.WilcoxonPruner(
                p_threshold=racing.PRUNE_P, n_startup_steps=racing.PRUNE_AFTER
            )
            if search.raced
            else optuna.pruners.NopPruner()
        )
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        directions=directions,
        sampler=sampler,
        pruner=pruner,
        load_if_exists=True,
    )
    if name not in existing:
        study.set_user_attr("settings", settings)
        base_values = {p.field: _value_of(search.base, p.field) for p in search.params}
        if all(p.low <= base_values[p.field] <= p.high for p in search.params):
            study.enqueue_trial(base_values)
    return study


def _value_of(design: Design, field: str) -> float:
    section, key = field.split(".")
    return getattr(getattr(design, section), key)


def _suggest(trial, param: design_search.SearchParam) -> float:
    if param.integer:
        return trial.suggest_int(
            param.field, math.ceil(param.low), math.floor(param.high), log=param.log
        )
    return trial.suggest_float(param.field, param.low, param.high, log=param.log)


def run(
    search: Search,
    study,
    trials: int,
    pool: Pool | None,
    cache: Path,
    progress: Callable[[int, int], None] | None = None,
    in_flight: int = 1,
) -> dict[int, dict[str, tuple]]:
    """Add ``trials`` trials to ``study``, ``in_flight`` at a time, each trial's spaces
    on the worker ``pool`` (:func:`sim.studies.running.workers.pool_for`; None: in this
    process, one trial at a time). ``progress(done, total)`` counts trials. Returns
    each new trial's low-fidelity shots by space (to go on from).

    Optuna's ask and tell: a batch of ``in_flight`` trials is asked for at once (TPE's
    constant liar keeps them apart), measured together (a thread each here, their
    spaces on the pool) and told in their numbers' order when the batch is done, so
    what the sampler and the pruner see, and so the study, depends on the seed and
    ``in_flight`` alone, never on which trial finished first."""
    if in_flight > 1 and pool is None:
        raise ValueError("trials in flight need a worker pool: their worlds are not shared")
    fired: dict[int, dict[str, tuple]] = {}
    if progress:
        progress(0, trials)  # the search starts: a long run says so before its first trial
    while len(fired) < trials:
        batch = [_ask(search, study) for _ in range(min(in_flight, trials - len(fired)))]
        try:
            outcomes = _measure_together(search, batch, pool, cache)
        except BaseException:  # Ctrl-C, a worker's refusal: the batch is failed, kept
            for trial, _ in batch:
                study.tell(trial, state=optuna_module().trial.TrialState.FAIL)
            raise
        for (trial, _), (outcome, shots) in zip(batch, outcomes, strict=True):
            fired[trial.number] = shots
            _record(search, trial, outcome, [t.number for t, _ in batch])
            study.tell(trial, [outcome["objectives"][o][0] for o in search.objectives])
            if progress:
                progress(len(fired), trials)
    return fired


def _measure_together(search: Search, batch: list, pool: Pool | None, cache: Path) -> list:
    """Each trial of ``batch`` measured, a thread each when there are several (the
    threads only wait on the pool's workers); on an error the threads are left to end
    as the pool's jobs are stopped."""
    if len(batch) == 1:
        ((trial, values),) = batch
        return [_measured(search, trial, values, pool, cache)]
    threads = ThreadPoolExecutor(len(batch), thread_name_prefix="piggy-trial")
    try:
        measuring = [
            threads.submit(_measured, search, trial, values, pool, cache) for trial, values in batch
        ]
        return [m.result() for m in measuring]
    finally:
        threads.shutdown(wait=False, cancel_futures=True)


def _ask(search: Search, study) -> tuple:
    """A new trial and its values, suggested now (in the order trials are asked for:
    a batch's later trials see its earlier ones as running), its stale trials of dead
    processes failed first as Optuna's own loop does."""
    optuna = optuna_module()
    from optuna.storages._heartbeat import is_heartbeat_enabled  # what Optuna's loop asks

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        # its note that heartbeats are meant for its own loop: _measured beats them
        warnings.filterwarnings("ignore", "Heartbeat of storage", UserWarning)
        if is_heartbeat_enabled(study._storage):
            optuna.storages.fail_stale_trials(study)
        trial = study.ask()
    study_storage.claim(trial)
    return trial, {p.field: _suggest(trial, p) for p in search.params}


def _measured(search: Search, trial, values: dict, pool: Pool | None, cache: Path) -> tuple:
    """:func:`optimise_trial.measure`, beating the trial's heartbeat into the storage
    meanwhile (:func:`study_storage.beating`)."""
    with study_storage.beating(trial.study._storage, trial._trial_id):
        return optimise_trial.measure(search, values, trial, pool, cache)


def _record(search: Search, trial, outcome: dict, batch: list[int]) -> None:
    """A measured trial's figures, constraints and batch in the study."""
    for key, value in outcome.items():
        trial.set_user_attr(key, value)
    trial.set_user_attr("batch", batch)
    for key, value in zip(CONSTRAINTS, outcome["constraints"], strict=True):
        trial.set_constraint(key, value)  # above 0: broken; the samplers read them


# --- what the study found ---------------------------------------------------------------------
def finished(study) -> list:
    """The study's completed trials, in order."""
    optuna = optuna_module()
    return [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]


def best_trials(search: Search, trials: list, full: dict[int, dict] | None = None) -> list:
    """The feasible trial with the best value (one objective), or the feasible Pareto
    front in trial order (several); empty when no trial is feasible. A pruned trial
    is never among them. With one objective and trials measured at full precision
    (``full``: trial number -> its figures), the best of those on those figures."""
    feasible = [
        t for t in trials if t.user_attrs.get("feasible") and not t.user_attrs.get("pruned")
    ]
    sign = [1 if design_search.OBJECTIVES[o][0] == "maximize" else -1 for o in search.objectives]

    def score(t):  # larger is better, objective by objective
        return [s * v for s, v in zip(sign, t.values, strict=True)]

    if len(search.objectives) == 1:
        figures = full or {}
        first = search.objectives[0]

        def full_score(t) -> tuple[float, int]:
            return sign[0] * figures[t.number]["objectives"][first][0], -t.number

        measured = [t for t in feasible if t.number in figures]
        if measured:
            return [max(measured, key=full_score)]
        return [max(feasible, key=lambda t: (score(t)[0], -t.number))] if feasible else []
    scores = {t.number: score(t) for t in feasible}

    def dominated(a) -> bool:
        return any(
            all(x >= y for x, y in zip(scores[b.number], scores[a.number], strict=True))
            and scores[b.number] != scores[a.number]
            for b in feasible
        )

    return [t for t in feasible if not dominated(t)]


def ranked(search: Search, trials: list) -> list:
    """The trials worth measuring again, best first by the first objective at the
    search's fidelity: the feasible, unpruned trials (several objectives: the Pareto
    front's)."""
    if len(search.objectives) == 1:
        candidates = [
            t for t in trials if t.user_attrs.get("feasible") and not t.user_attrs.get("pruned")
        ]
    else:
        candidates = best_trials(search, trials)
    sign = 1 if design_search.OBJECTIVES[search.objectives[0]][0] == "maximize" else -1
    return sorted(candidates, key=lambda t: (-sign * t.values[0], t.number))


def trial_rows(search: Search, trials: list, full: dict[int, dict] | None = None) -> list[dict]:
    """One row per trial: its fields, objectives with intervals (at the search's
    fidelity; for a pruned trial, its estimate), how it was measured (shots a space,
    spaces fired, pruned and against which trial, the first trial of its batch and
    how many trials were measured with it, itself included), the figures at full precision
    where it was measured again, safety figures, reach, feasibility and reason."""
    rows = []
    for t in trials:
        a = t.user_attrs
        row = {"trial": t.number, "design": a.get("design"), "base": is_base(search, t)}
        row.update({p.field: t.params.get(p.field) for p in search.params})
        for name, (value, low, high) in a.get("objectives", {}).items():
            row.update({name: value, f"{name}_ci_low": low, f"{name}_ci_high": high})
        row.update(
            {
                "fidelity": a.get("fidelity"),
                "spaces_fired": a.get("spaces_fired"),
                "pruned": bool(a.get("pruned")),
                "pruned_against": a.get("pruned_against"),
                "batch": min(a.get("batch") or [t.number]),
                "in_flight": len(a.get("batch") or [t.number]),
            }
        )
        measured = (full or {}).get(t.number)
        for name in search.objectives:
            value, low, high = measured["objectives"][name] if measured else (None, None, None)
            row.update({f"{name}_full": value, f"{name}_full_ci_low": low})
            row[f"{name}_full_ci_high"] = high
        row["shots_full"] = measured["shots"] if measured else None
        safety = a.get("safety") or {}
        for key in ("kinetic_energy_j", "kinetic_energy_max_j", "kinetic_energy_per_area_j_m2"):
            row[key] = safety.get(key)
        row.update(
            {
                "in_reach": a.get("in_reach"),
                "spaces": len(search.spec.spaces),
                "shots": a.get("shots"),
                "feasible": bool(a.get("feasible")),
                "reason": a.get("reason"),
            }
        )
        rows.append(row)
    return rows


def trial_design(search: Search, trial) -> Design:
    """The design of a trial, named by what it changes (the name its trial has in
    the table, :func:`design_search.trial_name`), its description saying so too."""
    values = {p.field: trial.params[p.field] for p in search.params}
    design = design_search.with_values(
        search.base, values, design_search.trial_name(search.base, values)
    )
    changed = ", ".join(f"{k.split('.')[1]} = {v:.4g}" for k, v in values.items())
    return dataclasses.replace(
        design, description=f"{search.base.name[:64]} with {changed} (piggy design optimise)"
    )


def is_base(search: Search, trial) -> bool:
    """Whether a trial tried BASE's own values."""
    return all(trial.params[p.field] == _value_of(search.base, p.field) for p in search.params)


def importances(study, search: Search, trials: list) -> tuple[dict[str, float] | None, int]:
    """Each field's share of the first objective's variance over the feasible trials
    (Optuna's PED-ANOVA evaluator, which needs no other package), and how many
    feasible trials that rests on; None below :data:`MIN_IMPORTANCE_TRIALS` of them
    (a share from a few trials says little), or unless two differ in it."""
    optuna = optuna_module()
    feasible = [t for t in trials if t.user_attrs.get("feasible")]
    if len(feasible) < MIN_IMPORTANCE_TRIALS or len({t.values[0] for t in feasible}) < 2:
        return None, len(feasible)
    only = optuna.create_study(directions=study.directions)  # in memory: feasible trials only
    only.add_trials(feasible)
    sign = -1 if design_search.OBJECTIVES[search.objectives[0]][0] == "maximize" else 1
    try:
        with warnings.catch_warnings():  # its note that it looks for low target values
            warnings.simplefilter("ignore", UserWarning)
            found = optuna.importance.get_param_importances(
                only,
                target=lambda t: sign * t.values[0],
                evaluator=optuna.importance.PedAnovaImportanceEvaluator(),
            )
    except (RuntimeError, ValueError):  # e.g. every feasible trial at one point
        return None, len(feasible)
    return {k: round(float(v), 4) for k, v in found.items()}, len(feasible)
