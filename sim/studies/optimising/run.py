"""A whole design search, as ``piggy design optimise`` runs it: the study opened (or
resumed), its trials run, the best measured again at full precision, their design
files written, the chosen one verified against BASE on new shots, the fields'
importances, and a summary. A plain function, so that a notebook runs the same
search as the command line (sim/studies/notebook.py: with its defaults, docs/optimise.md,
"From Python"); the command line only parses, calls this and prints.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from models.design import load_design
from models.seeds import SEED_MAX
from models.text import shown
from sim.defaults import IN_FLIGHT_ON_CLUSTER, OBJECTIVES, PRECISION_CAP
from sim.studies.optimising import racing
from sim.studies.optimising.search_settings import Search, at_edge
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import space_shots


@dataclass
class SearchRun:
    """What a search run found: ``summary`` is what ``--json`` prints; the rest is
    what the picture of the search and the printed summary need besides."""

    summary: dict
    search: Search
    rows: list[dict]  # one per trial (the table's)
    best: list  # the best trials (Optuna's FrozenTrial), the chosen one among them
    chosen: int | None  # its index in ``best``; None when no trial was feasible
    importances: tuple[dict[str, float] | None, int]  # and the trials they rest on


def make_search(
    search: Search, fidelity: int | None, verify_precision: float | None
) -> tuple[Search, space_shots.SweepSpec]:
    """``search`` at its fidelity (``--fidelity``, checked against its spaces), and
    the settings of the final comparison with BASE: new shots (the search's seed + 1)
    at ``verify_precision``, or at the search's precision when not given."""
    spec = search.spec
    search = dataclasses.replace(
        search, fidelity=racing.check_fidelity(fidelity, spec, len(search.fired_spaces))
    )
    verify_spec = dataclasses.replace(
        spec,
        seed=(spec.seed + 1) % (SEED_MAX + 1),
        precision=verify_precision or spec.precision,
        shots=max(spec.shots, PRECISION_CAP) if verify_precision else spec.shots,
    )
    return search, verify_spec


def _in_flight(in_flight: int | None, workers: StudyWorkers) -> int:
    """Trials measured at once: as asked, else 1 locally and
    :data:`~sim.defaults.IN_FLIGHT_ON_CLUSTER` on a cluster."""
    if in_flight is not None:
        return in_flight
    return 1 if isinstance(workers, int) else IN_FLIGHT_ON_CLUSTER


def run_search(
    search: Search,
    verify_spec: space_shots.SweepSpec,
    *,
    trials: int = 20,
    in_flight: int | None = None,
    workers: StudyWorkers = 1,
    cache: str | Path | None = None,
    out: str | Path = "best-design.toml",
    storage: str | None = None,
    study: str | None = None,
    search_seed: int | None = None,
    table: str | None = None,
    bars=None,
    report=None,
) -> SearchRun:
    """Add ``trials`` trials to the study (named after the search's settings unless
    ``study`` is given; resumed when there), measure the best again, write their
    design files (the chosen one at ``out``), verify it against BASE and write the
    trials' ``table`` when asked. ``bars(total, unit, label)`` makes a progress
    callback (none by default); ``report`` is told that a study is resumed."""
    from sim.studies.comparing.cached_maps import cache_folder
    from sim.studies.optimising import optimise
    from sim.studies.optimising import trial as optimise_trial
    from sim.studies.optimising.study_storage import losing_storage
    from sim.studies.running.workers import pool_for

    bars = bars or (lambda total, unit, label=None: lambda done, total=None, note=None: None)
    cache = Path(cache) if cache else cache_folder(None)
    name = study or search.default_study()
    storage = storage or optimise.default_storage()
    in_flight = _in_flight(in_flight, workers)
    # the workers first: a cluster refused leaves no study made for nothing
    with (
        pool_for(workers if in_flight == 1 else _at_least_two(workers)) as pool,
        losing_storage(storage),
    ):
        opened = optimise.open_study(
            search, storage, name, search.spec.seed if search_seed is None else search_seed
        )
        before = len(optimise.finished(opened))
        if before and report:
            report(f"resuming study {shown(name)}: {before} trials already")
        progress = bars(trials, "trial", f"{in_flight} trials in flight" if in_flight > 1 else None)
        fired = optimise.run(search, opened, trials, pool, cache, progress, in_flight)
        progress(None)
        done = optimise.finished(opened)
        again = bars(None, "trial", "full precision")
        full = optimise_trial.remeasure(
            search, opened, optimise.ranked(search, done), fired, pool, cache, again
        )
        again(None)
    measured = _Measured(search, opened, done, fired, full)
    made_by = _made_by(search, name, storage)
    with losing_storage(storage):
        return _finish(
            measured, made_by, Path(out), in_flight, (workers, cache, verify_spec, bars), table
        )


@dataclass
class _Measured:
    """A search's trials once measured: the study, its finished trials (others' too,
    in a shared study), the shots this run fired a trial and those measured again."""

    search: Search
    study: object
    trials: list
    fired: dict
    full: dict[int, dict]


def _made_by(search: Search, name: str, storage: str) -> dict:
    """What made the design files and the table: the study and the search's inputs."""
    from sim.studies.optimising.study_storage import redacted

    return {
        "study": name,
        "storage": redacted(storage),
        "base": search.base.name,
        "aimer": search.spec.aimer.name,
        "seed": search.spec.seed,
        "objectives": search.objectives,
    }


def _finish(m: _Measured, made_by: dict, out: Path, in_flight: int, verifying, table) -> SearchRun:
    """The best trials' files, the verification, the importances, the table and the
    summary; ``verifying`` is (workers, cache, settings, bars) of the verification."""
    from sim.studies.optimising import optimise
    from sim.studies.shots import datafiles

    search = m.search
    best = optimise.best_trials(search, m.trials, m.full)
    rows = optimise.trial_rows(search, m.trials, m.full)
    chosen = chosen_trial(search, best, m.full) if best else None
    entries = _write_designs(search, best, m.full, out, made_by, chosen)
    verification = _verify(search, best, chosen, entries, verifying)
    importances = optimise.importances(m.study, search, m.trials)
    if table:
        datafiles.write_table(
            rows,
            table,
            datafiles.format_of(table),  # the suffix says which
            made_by
            | {"params": [p.to_dict() for p in search.params], "hitmaps": _provenance(search.spec)},
        )
    summary = _summary(m, made_by, rows, in_flight, entries, verification) | {
        "importances": importances[0],
        "importance_trials": importances[1],
    }
    return SearchRun(summary, search, rows, best, chosen, importances)


def _verify(search: Search, best: list, chosen, entries: list[dict], verifying) -> dict | None:
    """The chosen design against BASE on new shots, paired; None without one."""
    from sim.studies.optimising import check as optimise_check

    if not best:
        return None
    workers, cache, verify_spec, bars = verifying
    check = bars(None, "space", "verifying")
    verification = optimise_check.verify(
        search,
        best[chosen],
        load_design(entries[chosen]["design_file"]),
        verify_spec,
        workers,
        cache,
        check,
    )
    check(None)
    return verification


def _summary(m: _Measured, made_by, rows, in_flight, entries, verification) -> dict:
    """The run in figures, up to the importances (``--json``'s, in its order)."""
    search = m.search
    infeasible = Counter(
        t.user_attrs.get("reason_key") for t in m.trials if not t.user_attrs.get("feasible")
    )
    return {
        "study": made_by["study"],
        "storage": made_by["storage"],
        "objectives": search.objectives,
        "trials": len(m.trials),
        "new_trials": len(m.fired),  # this run's: others may add to a shared study meanwhile
        "feasible_trials": sum(r["feasible"] for r in rows),
        "pruned_trials": sum(r["pruned"] for r in rows),
        "infeasible": dict(sorted(infeasible.items())),
        "fidelity": search.fidelity,
        "pruner": search.pruner if search.raced else "none",
        "in_flight": in_flight,
        "full_precision_trials": sorted(m.full),
        "shots": _shots(m, verification),
        "best": (entries if len(search.objectives) > 1 else entries[0]) if entries else None,
        "verification": verification,
    }


def _at_least_two(workers: StudyWorkers) -> StudyWorkers:
    """Trials in flight need worker processes, even where ``--workers 1`` asks for
    one: each trial's thread here waits on them, and a world is not shared."""
    return max(2, workers) if isinstance(workers, int) else workers


def chosen_trial(search: Search, best: list, full: dict[int, dict]) -> int:
    """Of the best trials, the one best on the first objective (at full precision
    where measured so; the earliest of equals)."""
    sign = 1 if OBJECTIVES[search.objectives[0]][0] == "maximize" else -1
    return max(
        range(len(best)),
        key=lambda i: (sign * _figures(best[i], full)[search.objectives[0]][0], -best[i].number),
    )


def _figures(trial, full: dict[int, dict]) -> dict:
    """A trial's objectives with their intervals: at full precision where it was
    measured so, else at the search's fidelity."""
    measured = full.get(trial.number)
    return measured["objectives"] if measured else trial.user_attrs["objectives"]


def _shots(m: _Measured, verification: dict | None) -> dict:
    """The shots this run fired: the new trials' at low fidelity, the few best's at
    full precision beyond those (the ones measured now), and the verification's."""
    new = set(m.fired)  # the trials this run measured
    search = sum(t.user_attrs.get("shots") or 0 for t in m.trials if t.number in new)
    again = sum(
        figures["shots"] - sum(len(rows) for rows in m.fired.get(number, {}).values())
        for number, figures in m.full.items()
        if number in m.fired
    )
    checked = verification["shots_fired"] if verification else 0
    return {"search": search, "full_precision": again, "verification": checked}


def _write_designs(
    search: Search, best: list, full: dict, out: Path, made_by: dict, chosen: int | None
) -> list[dict]:
    """Each best trial's design file (the chosen one at ``out``, the others beside it
    as ``<stem>-trial<N>``), and its entry in ``best``."""
    from sim.studies.optimising import check as optimise_check
    from sim.studies.optimising import optimise

    entries = []
    for index, trial in enumerate(best):
        path = (
            out if index == chosen else out.with_name(f"{out.stem}-trial{trial.number}{out.suffix}")
        )
        design = optimise.trial_design(search, trial)
        figures = _figures(trial, full)
        optimise_check.write_best(path, design, made_by | _made_by_trial(trial, figures))
        entries.append(
            _entry(trial, figures, search, path)
            | {"design": design.name}
            | {"fidelity": "full precision" if trial.number in full else "search"}
        )
    return entries


def _entry(trial, figures: dict, search: Search, path: Path) -> dict:
    """A best trial as ``best`` lists it, with its fields at an end of their ranges
    (``at_edge``: the best may lie beyond)."""
    objectives, several = search.objectives, len(search.objectives) > 1
    if several:
        pick = {i: {o: figures[o][i] for o in objectives} for i in range(3)}
    else:
        pick = {i: figures[objectives[0]][i] for i in range(3)}
    return {
        "trial": trial.number,
        "params": dict(trial.params),
        "objective": pick[0],
        "objective_ci_low": pick[1],
        "objective_ci_high": pick[2],
        "design_file": str(path),
        "at_edge": at_edge(search.params, dict(trial.params)),
        "in_reach": trial.user_attrs.get("in_reach"),
        "safety": trial.user_attrs.get("safety"),
        "figures": figures,
    }


def _made_by_trial(trial, figures: dict) -> dict:
    return {
        "trial": trial.number,
        **{o: f"{v:.4g} [{lo:.4g}, {hi:.4g}] (95 %)" for o, (v, lo, hi) in figures.items()},
    }


def _provenance(spec: space_shots.SweepSpec) -> dict:
    """The table's record of the hit maps' settings, less the design (each trial's own)."""
    return {
        k: v
        for k, v in space_shots.provenance(spec).items()
        if k not in ("design", "design_file", "design_sha256")
    }
