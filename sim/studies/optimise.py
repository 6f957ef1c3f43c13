"""``piggy design optimise``: a search over design fields with Optuna, constrained by
safety and reach, every trial measured with the same shots.

- **Trials.** Each trial is a design (sim/studies/design_search.py). Its safety
  figures (sim/studies/safety.py) are checked first: a design over a limit is
  recorded as infeasible and fires no shot. Otherwise its hit map is measured by
  :func:`sim.studies.design_tools.compare_designs`, as ``design compare`` measures
  one (cached, the same root seed: every trial fires the same shots, common random
  numbers), and its objectives are computed with their intervals; a design that
  reaches fewer spaces than required is infeasible too. The reason is kept.
- **Search.** Optuna: TPE (seeded) for one objective, NSGA-II (seeded) for
  several; the constraints set on each trial (``Trial.set_constraint``: a value
  above 0 breaks one), which both samplers take into account. When BASE's own
  values lie in the ranges it is trial 0, so the search always knows the design
  it must beat.
- **Storage.** Any storage URL Optuna takes (default: an SQLite file in the user's
  cache folder); the study keeps the search's settings, and a study resumed under
  other settings is refused. Several processes or machines may add trials to one
  study through a shared database.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.board import Board
from models.design import Design, design_toml
from models.errors import InputError
from models.text import shown
from sim.studies import datafiles, design_search, design_tools, hitmap
from sim.studies.safety import SafetyLimits, safety_report

#: Random trials TPE draws before it models the results (a design search has tens of
#: trials, not thousands), and NSGA-II's population.
TPE_STARTUP = 5
NSGA_POPULATION = 8
#: The constraints of a trial, in the order of its ``constraints`` (each above 0 when
#: broken): energy over its limit (J), energy per area over its limit (J/m²), spaces
#: short of the reach required.
CONSTRAINTS = ("kinetic_energy_j", "kinetic_energy_per_area_j_m2", "reach")


@dataclass(frozen=True)
class Search:
    """Everything a search measures with, checked before any shot."""

    base: Design
    params: list
    objectives: list
    spec: hitmap.SweepSpec
    board: Board
    limits: SafetyLimits
    min_reach: int

    def settings(self) -> dict:
        """What a study's trials depend on: a study resumed must have the same."""
        return {
            "base_sha256": datafiles.sha256_text(design_toml(self.base)),
            "params": [p.to_dict() for p in self.params],
            "objectives": self.objectives,
            "hitmaps": json.loads(self.spec.key()) | {"design": ""},
            "limits": [self.limits.kinetic_energy_j, self.limits.kinetic_energy_per_area_j_m2],
            "min_reach": self.min_reach,
        }

    def default_study(self) -> str:
        return "optimise-" + datafiles.sha256_text(json.dumps(self.settings(), sort_keys=True))[:16]


def optuna_module():
    """Optuna, or a one-line error saying how to install it."""
    try:
        import optuna
    except ImportError:
        raise InputError(
            "piggy design optimise needs Optuna, an optional extra: pip install "
            "'go-piggy-go-sandbox[optimise]'"
        ) from None
    optuna.logging.set_verbosity(logging.WARNING)
    return optuna


def default_storage() -> str:
    """An SQLite file in the user's cache folder (platformdirs)."""
    from platformdirs import user_cache_path

    folder = user_cache_path("go-piggy-go")
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'optimise.sqlite3'}"


def open_study(search: Search, storage_url: str, name: str, search_seed: int):
    """The study (made, or resumed when one of that name is there), its sampler seeded
    from ``search_seed`` and the trials it already holds; refused, on one line, when
    the storage cannot be opened or the study was made with other settings."""
    optuna = optuna_module()
    try:
        storage = optuna.storages.RDBStorage(storage_url)
        existing = {s.study_name: s for s in optuna.get_all_study_summaries(storage)}
    except Exception as exc:  # sqlalchemy's and the database drivers' own errors
        raise InputError(
            f"cannot open the study storage {shown(storage_url)}: "
            f"{shown(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)}"
        ) from None
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
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=TPE_STARTUP)
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=seed, population_size=NSGA_POPULATION)
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        directions=directions,
        sampler=sampler,
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
    workers: int,
    cache: Path,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Add ``trials`` trials to ``study``, one after another (each hit map uses
    ``workers`` processes). ``progress(done, total)`` counts spaces."""
    spaces = len(search.spec.spaces)
    total = trials * spaces
    count = [0]

    def objective(trial):
        offset = count[0] * spaces
        count[0] += 1
        values = {p.field: _suggest(trial, p) for p in search.params}
        step = progress and (lambda done, _t: progress(offset + done, total))
        outcome = measure(search, values, workers, cache, step)
        for key, value in outcome.items():
            trial.set_user_attr(key, value)
        for key, value in zip(CONSTRAINTS, outcome["constraints"], strict=True):
            trial.set_constraint(key, value)  # above 0: broken; the samplers read them
        if progress:
            progress(offset + spaces, total)
        return [outcome["objectives"][o][0] for o in search.objectives]

    study.optimize(objective, n_trials=trials)


def measure(
    search: Search,
    values: dict,
    workers: int,
    cache: Path,
    progress: Callable[[int, int], None] | None,
) -> dict:
    """One trial: what it is (its design's name), its safety figures, feasibility,
    the reason when infeasible, its constraint values and objectives."""
    name = design_search.trial_name(search.base, values)
    spaces = len(search.spec.spaces)
    out: dict[str, Any] = {  # the trial as its JSON line has it
        "design": name,
        "feasible": False,
        "reason": None,
        "reason_key": None,
        "safety": None,
        "in_reach": None,
        "shots": 0,
        "constraints": [1.0, 1.0, 1.0],
        "objectives": {o: [design_search.worst_value(o)] * 3 for o in search.objectives},
    }
    try:
        design = design_search.with_values(search.base, values, name)
    except InputError as exc:
        return out | {"reason": f"invalid design: {exc}", "reason_key": "invalid_design"}
    report = safety_report(design, search.limits)
    limits = search.limits
    out["safety"] = {
        "kinetic_energy_j": round(report.kinetic_energy_j, 6),
        "kinetic_energy_max_j": round(report.kinetic_energy_max_j, 6),
        "kinetic_energy_per_area_j_m2": round(report.kinetic_energy_per_area_j_m2, 1),
    }
    energy = report.kinetic_energy_j
    if "energy" in search.objectives:
        out["objectives"]["energy"] = [round(energy, 6)] * 3
    safety = [
        report.kinetic_energy_max_j - limits.kinetic_energy_j,
        report.kinetic_energy_per_area_j_m2 - limits.kinetic_energy_per_area_j_m2,
    ]
    if report.over_limits:
        key = report.over_limits[0]
        text = (
            f"kinetic energy {report.kinetic_energy_max_j:.4f} J over the limit "
            f"{limits.kinetic_energy_j:g} J"
            if key == "kinetic_energy_j"
            else f"energy per area {report.kinetic_energy_per_area_j_m2:.0f} J/m² over the "
            f"limit {limits.kinetic_energy_per_area_j_m2:g} J/m²"
        )
        return out | {"reason": text, "reason_key": key, "constraints": [*safety, 0.0]}
    results, _, maps = design_tools.compare_designs(
        search.spec, search.board, [design], workers, cache, progress
    )
    in_reach = results[0]["in_reach"]
    required = search.min_reach or spaces
    objectives = design_search.objective_values(search.board, maps[0], search.objectives, energy)
    out.update(
        {
            "in_reach": in_reach,
            "shots": sum(int(r["shots"] or 0) for r in maps[0]),
            "objectives": {k: list(v) for k, v in objectives.items()},
            "constraints": [*safety, float(required - in_reach)],
        }
    )
    if in_reach < required:
        return out | {
            "reason": f"{in_reach} of {spaces} spaces in reach, {required} required",
            "reason_key": "reach",
        }
    return out | {"feasible": True}


# --- what the study found ---------------------------------------------------------------------
def finished(study) -> list:
    """The study's completed trials, in order."""
    optuna = optuna_module()
    return [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]


def best_trials(search: Search, trials: list) -> list:
    """The feasible trial with the best value (one objective), or the feasible Pareto
    front in trial order (several); empty when no trial is feasible."""
    feasible = [t for t in trials if t.user_attrs.get("feasible")]
    sign = [1 if design_search.OBJECTIVES[o][0] == "maximize" else -1 for o in search.objectives]

    def score(t):  # larger is better, objective by objective
        return [s * v for s, v in zip(sign, t.values, strict=True)]

    if len(search.objectives) == 1:
        return [max(feasible, key=lambda t: (score(t)[0], -t.number))] if feasible else []
    scores = {t.number: score(t) for t in feasible}

    def dominated(a) -> bool:
        return any(
            all(x >= y for x, y in zip(scores[b.number], scores[a.number], strict=True))
            and scores[b.number] != scores[a.number]
            for b in feasible
        )

    return [t for t in feasible if not dominated(t)]


def trial_rows(search: Search, trials: list) -> list[dict]:
    """One row per trial: its fields, objectives with intervals, safety figures,
    reach, feasibility and reason."""
    rows = []
    for t in trials:
        a = t.user_attrs
        row = {"trial": t.number, "design": a.get("design"), "base": is_base(search, t)}
        row.update({p.field: t.params.get(p.field) for p in search.params})
        for name, (value, low, high) in a.get("objectives", {}).items():
            row.update({name: value, f"{name}_ci_low": low, f"{name}_ci_high": high})
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


def trial_design(search: Search, trial, name: str) -> Design:
    """The design of a trial, under ``name``, its description saying what it changes."""
    values = {p.field: trial.params[p.field] for p in search.params}
    design = design_search.with_values(search.base, values, name)
    changed = ", ".join(f"{k.split('.')[1]} = {v:.4g}" for k, v in values.items())
    return dataclasses.replace(
        design, description=f"{search.base.name[:64]} with {changed} (piggy design optimise)"
    )


def is_base(search: Search, trial) -> bool:
    """Whether a trial tried BASE's own values."""
    return all(trial.params[p.field] == _value_of(search.base, p.field) for p in search.params)


def importances(study, search: Search, trials: list) -> dict[str, float] | None:
    """Each field's share of the first objective's variance over the feasible trials
    (Optuna's PED-ANOVA evaluator, which needs no other package); None unless two
    feasible trials differ in it."""
    optuna = optuna_module()
    feasible = [t for t in trials if t.user_attrs.get("feasible")]
    if len({t.values[0] for t in feasible}) < 2:  # nothing to explain
        return None
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
        return None
    return {k: round(float(v), 4) for k, v in found.items()}
