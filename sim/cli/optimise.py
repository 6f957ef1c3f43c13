"""``piggy design optimise``: search design fields for the best design under safety
and reach constraints, then check it against BASE with the paired comparison."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import Counter
from pathlib import Path

from models.design import load_design
from models.errors import InputError, check_label
from models.seeds import SEED_MAX
from models.text import shown
from sim.cli.common import (
    check_output,
    check_output_folder,
    check_table_output,
    finite_number,
    json_out,
    load_layout_args,
    progress_bar,
    whole_number,
)
from sim.cli.hitmap import check_precision, sweep_spec, workers_of
from sim.defaults import MAX_SHOTS, OBJECTIVES, PRECISION_CAP

#: The precision of every trial's hit map when neither --shots nor --precision is given.
DEFAULT_PRECISION = 0.1
MAX_TRIALS = 10_000
#: Trials measured at once on a cluster unless --in-flight says otherwise; and at most.
DEFAULT_IN_FLIGHT_ON_CLUSTER = 2
MAX_IN_FLIGHT = 64
_LIMIT = finite_number(0, 1e9, above=True)


def cmd_design_optimise(args) -> int:
    load_design(args.base)  # first: a mistyped name is told at once, before Optuna loads
    from sim.studies import datafiles, design_search, optimise, optimise_check, optimise_trial
    from sim.studies.study_storage import redacted
    from sim.studies.workers import pool_for

    search, verify_spec, cache, out = _search_of(args)
    name = check_label(args.study, "--study", 100) if args.study else search.default_study()
    storage = args.storage or optimise.default_storage()
    study = optimise.open_study(
        search, storage, name, search.spec.seed if args.search_seed is None else args.search_seed
    )
    before = len(optimise.finished(study))
    if before and not args.json:
        print(f"piggy: resuming study {shown(name)}: {before} trials already", file=sys.stderr)
    workers = workers_of(args)
    in_flight = _in_flight(args, workers)
    with pool_for(workers if in_flight == 1 else _at_least_two(workers)) as pool:
        progress = progress_bar(
            args.trials,
            not args.json,
            unit="trial",
            label=f"{in_flight} trials in flight" if in_flight > 1 else None,
        )
        fired = optimise.run(search, study, args.trials, pool, cache, progress, in_flight)
        progress(None)
        trials = optimise.finished(study)
        again = progress_bar(None, not args.json, unit="trial", label="full precision")
        full = optimise_trial.remeasure(
            search, study, optimise.ranked(search, trials), fired, pool, cache, again
        )
        again(None)
    best = optimise.best_trials(search, trials, full)
    rows = optimise.trial_rows(search, trials, full)
    spec, objectives = search.spec, search.objectives
    made_by = {
        "study": name,
        "storage": redacted(storage),
        "base": search.base.name,
        "aimer": spec.aimer.name,
        "seed": spec.seed,
        "objectives": objectives,
    }
    entries = _write_designs(search, best, full, out, made_by)
    verification = None
    if best:
        check = progress_bar(None, not args.json, unit="space", label="verifying")
        chosen = best[_chosen(search, best, full)]
        verification = optimise_check.verify(
            search,
            chosen,
            load_design(entries[best.index(chosen)]["design_file"]),
            verify_spec,
            workers,
            cache,
            check,
        )
        check(None)
    importances, importance_trials = optimise.importances(study, search, trials)
    if args.table:
        datafiles.write_table(
            rows,
            args.table,
            datafiles.format_of(args.table),  # the suffix says which
            made_by
            | {"params": [p.to_dict() for p in search.params], "hitmaps": _hitmap_provenance(spec)},
        )
    if args.plot:
        from sim.views.optimise_pictures import search_figure
        from sim.views.pictures import save_figure

        maximise = [design_search.OBJECTIVES[o][0] == "maximize" for o in objectives]
        save_figure(
            search_figure(
                rows,
                objectives,
                maximise,
                (importances, importance_trials),
                [t.number for t in best],
                f"piggy design optimise {search.base.name}: study {name}, aimer {spec.aimer.name}"
                + (f"; best: {entries[_chosen(search, best, full)]['design']}" if best else ""),
            ),
            args.plot,
        )
    infeasible = Counter(
        t.user_attrs.get("reason_key") for t in trials if not t.user_attrs.get("feasible")
    )
    summary = {
        "study": name,
        "storage": redacted(storage),
        "objectives": objectives,
        "trials": len(trials),
        "new_trials": len(fired),  # this run's: others may add to a shared study meanwhile
        "feasible_trials": sum(r["feasible"] for r in rows),
        "pruned_trials": sum(r["pruned"] for r in rows),
        "infeasible": dict(sorted(infeasible.items())),
        "fidelity": search.fidelity,
        "pruner": search.pruner if search.raced else "none",
        "in_flight": in_flight,
        "full_precision_trials": sorted(full),
        "shots": _shots(trials, full, fired, verification),
        "best": (entries if len(objectives) > 1 else entries[0]) if entries else None,
        "verification": verification,
        "importances": importances,
        "importance_trials": importance_trials,
        "table": args.table,
        "plot": args.plot,
        "cache": str(cache),
    }
    if args.json:
        json_out(summary)
        return 0
    _print_summary(summary, search, best, verification)
    for path in [e["design_file"] for e in entries] + [args.table, args.plot]:
        if path:
            print(f"Wrote {shown(path)}")
    return 0


def _in_flight(args, workers) -> int:
    """``--in-flight``: trials measured at once (default 1; 2 on a cluster)."""
    if args.in_flight is not None:
        return args.in_flight
    return 1 if isinstance(workers, int) else DEFAULT_IN_FLIGHT_ON_CLUSTER


def _at_least_two(workers):
    """Trials in flight need worker processes, even where ``--workers 1`` asks for
    one: each trial's thread here waits on them, and a world is not shared."""
    return max(2, workers) if isinstance(workers, int) else workers


def _search_of(args):
    """The search of the command line, the settings of the final comparison, the cache
    folder and the best design's file, everything checked before any shot."""
    from sim.studies import design_search, design_tools, optimise, racing
    from sim.studies.safety import SafetyLimits
    from sim.studies.search_settings import Search

    optimise.optuna_module()
    base = load_design(args.base)
    objectives = design_search.parse_objectives(args.objective)
    params = design_search.parse_params(args.param, base)
    out = _check_out(args.out, args.base)
    if args.table:
        check_table_output(args.table, "--table")
    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    cache = check_output_folder(design_tools.cache_folder(args.cache), "--cache")
    if args.precision is None and args.shots is None:
        args.precision = DEFAULT_PRECISION
    args.design = args.base
    layout = load_layout_args(args)
    spec = sweep_spec(args, layout)
    design_search.check_objectives(layout.board, spec.spaces, objectives)
    if args.min_reach and args.min_reach > len(spec.spaces):
        raise InputError(
            f"--min-reach {args.min_reach} is more than the {len(spec.spaces)} spaces searched"
        )
    limits = SafetyLimits(
        kinetic_energy_j=args.limit_energy_j or SafetyLimits.kinetic_energy_j,
        kinetic_energy_per_area_j_m2=(
            args.limit_energy_per_area_j_m2 or SafetyLimits.kinetic_energy_per_area_j_m2
        ),
    )
    search = Search(
        base,
        params,
        objectives,
        spec,
        layout.board,
        limits,
        args.min_reach or 0,
        pruner=racing.check_pruner(args.pruner),
        remeasure=args.remeasure,
    )
    fidelity = racing.check_fidelity(args.fidelity, spec, len(search.fired_spaces))
    search = dataclasses.replace(search, fidelity=fidelity)
    verify_spec = dataclasses.replace(  # new shots: the search's seed + 1
        spec,
        seed=(spec.seed + 1) % (SEED_MAX + 1),
        precision=check_precision(args.verify_precision, "--verify-precision") or spec.precision,
        shots=max(spec.shots, PRECISION_CAP) if args.verify_precision else spec.shots,
    )
    return search, verify_spec, cache, out


def _check_out(text: str, base: str) -> Path:
    """``--out``: a TOML file to write, and not BASE's own file (the design the search
    must beat would be overwritten)."""
    from models.design import DESIGNS_DIR
    from models.files import resolve_named_file

    out = check_output(text, "--out", (".toml",))
    if out.exists() and os.path.samefile(out, resolve_named_file(base, DESIGNS_DIR, "design")):
        raise InputError(
            f"--out {shown(text)} is BASE's own file: the best design would overwrite "
            "the design it is measured against; give another file name"
        )
    return out


def _chosen(search, best: list, full: dict[int, dict]) -> int:
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


def _shots(trials: list, full: dict, fired: dict, verification: dict | None) -> dict:
    """The shots this run fired: the new trials' at low fidelity, the few best's at
    full precision beyond those (the ones measured now), and the verification's."""
    new = set(fired)  # the trials this run measured
    search = sum(t.user_attrs.get("shots") or 0 for t in trials if t.number in new)
    again = sum(
        figures["shots"] - sum(len(rows) for rows in fired.get(number, {}).values())
        for number, figures in full.items()
        if number in fired
    )
    checked = verification["shots_fired"] if verification else 0
    return {"search": search, "full_precision": again, "verification": checked}


def _write_designs(search, best: list, full: dict, out: Path, made_by: dict) -> list[dict]:
    """Each best trial's design file (the one best on the first objective at ``out``,
    the others beside it as ``<stem>-trial<N>``), and its entry in ``best``."""
    from sim.studies import optimise, optimise_check

    chosen = _chosen(search, best, full) if best else None
    entries = []
    for index, trial in enumerate(best):
        path = (
            out if index == chosen else out.with_name(f"{out.stem}-trial{trial.number}{out.suffix}")
        )
        design = optimise.trial_design(search, trial)
        figures = _figures(trial, full)
        optimise_check.write_best(path, design, made_by | _made_by_trial(trial, figures))
        entries.append(
            _entry(trial, figures, search.objectives, path, len(search.objectives) > 1)
            | {"design": design.name}
            | {"fidelity": "full precision" if trial.number in full else "search"}
        )
    return entries


def _print_summary(summary: dict, search, best: list, verification: dict | None) -> None:
    reasons = ", ".join(f"{k} {v}" for k, v in summary["infeasible"].items()) or "none"
    print(
        f"study {summary['study']} ({summary['storage']}): {summary['trials']} trials "
        f"({summary['new_trials']} new), {summary['feasible_trials']} feasible; "
        f"infeasible: {reasons}"
    )
    if not best:
        print(
            "no feasible design found: nothing to verify (loosen a limit, --min-reach or the "
            "ranges)"
        )
        return
    entries = summary["best"] if isinstance(summary["best"], list) else [summary["best"]]
    print("Pareto front:" if len(entries) > 1 else "best:")
    for entry, trial in zip(entries, best, strict=True):
        fields = ", ".join(f"{k} = {v:g}" for k, v in entry["params"].items())
        figures = "; ".join(
            f"{o} {v:.4g} [{lo:.4g}, {hi:.4g}]" for o, (v, lo, hi) in entry["figures"].items()
        )
        print(
            f"  {entry['design']} (trial {trial.number}): {fields}\n"
            f"    {figures} ({entry['fidelity']})"
        )
    if verification:
        print(
            f"verification on new shots (seed {verification['seed']}, "
            f"{_sampling(verification)}), {len(verification['spaces'])} spaces:"
        )
        mean, low, high = (
            verification[k] for k in ("mean_diff", "mean_diff_ci_low", "mean_diff_ci_high")
        )
        if mean is not None:
            print(
                f"  mean difference in P, best - {search.base.name}: {mean:+.3f} "
                f"[{low:+.3f}, {high:+.3f}]"
            )
        print(f"  {verification['verdict']}")
        print(f"  {verification['conclusion']}")


def _sampling(verification: dict) -> str:
    precision = verification["precision"]
    return f"±{precision:g}" if precision else f"{verification['shots']} shots a space"


def _entry(trial, figures: dict, objectives: list[str], path: Path, several: bool) -> dict:
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
        "in_reach": trial.user_attrs.get("in_reach"),
        "safety": trial.user_attrs.get("safety"),
        "figures": figures,
    }


def _made_by_trial(trial, figures: dict) -> dict:
    return {
        "trial": trial.number,
        **{o: f"{v:.4g} [{lo:.4g}, {hi:.4g}] (95 %)" for o, (v, lo, hi) in figures.items()},
    }


def _hitmap_provenance(spec) -> dict:
    from sim.studies import space_shots

    return {
        k: v
        for k, v in space_shots.provenance(spec).items()
        if k not in ("design", "design_file", "design_sha256")
    }


def add_design_optimise(design_sub, design_test_options) -> None:
    """The ``design optimise`` action; ``design_test_options`` adds the options it
    shares with ``design compare``."""
    q = design_sub.add_parser(
        "optimise",
        help="search design fields for the best design, safely, and verify it",
        description="Search design fields (Optuna: TPE for one objective, NSGA-II for "
        "several) for the design that does best, every trial measured with the "
        "same shots at a stated precision (default ±0.1), within the safety limits "
        "of design check and in reach of every space (or --min-reach); then "
        "compare the best with BASE on new shots, paired. Objectives: "
        + "; ".join(f"{k}: {v[1]} ({v[0]})" for k, v in OBJECTIVES.items())
        + ".",
    )
    q.add_argument("base", help="the design to start from and beat (name or TOML file)")
    q.add_argument(
        "--param",
        action="append",
        metavar="FIELD=LOW:HIGH[:log|:int]",
        help="a field to search and its range, within the field's allowed range "
        "(design check --help lists them), e.g. pivot_height=40:120; repeat "
        "for more fields",
    )
    q.add_argument(
        "--objective",
        default="mean-p",
        metavar="NAME[,NAME]",
        help=f"{', '.join(OBJECTIVES)} (default mean-p); several: a Pareto front",
    )
    q.add_argument(
        "--trials",
        type=whole_number(1, MAX_TRIALS),
        default=20,
        help="trials to add to the study (default 20)",
    )
    q.add_argument(
        "--in-flight",
        type=whole_number(1, MAX_IN_FLIGHT),
        metavar="N",
        help="trials measured at once, asked for together (TPE's constant liar) and "
        "told in order, so that the study depends on N, not on timing (default 1; "
        f"{DEFAULT_IN_FLIGHT_ON_CLUSTER} with --scheduler)",
    )
    q.add_argument(
        "--min-reach",
        type=whole_number(1, 100_000),
        metavar="N",
        help="spaces that must be in reach (default: every space searched)",
    )
    q.add_argument(
        "--limit-energy-j",
        type=_LIMIT,
        metavar="J",
        help="limit of the bale's kinetic energy at its fastest, J (default 0.08)",
    )
    q.add_argument(
        "--limit-energy-per-area-j-m2",
        type=_LIMIT,
        metavar="J_M2",
        help="limit of that energy per area of its smallest face, J/m² (default 1600)",
    )
    q.add_argument(
        "--storage",
        metavar="URL",
        help="Optuna storage URL, e.g. postgresql://user@host/db for several "
        "machines (default: an SQLite file in the user's cache folder)",
    )
    q.add_argument(
        "--study",
        metavar="NAME",
        help="study name: an existing one is resumed, its trials added to (default: "
        "named after the search's settings)",
    )
    q.add_argument(
        "--search-seed",
        type=whole_number(0, SEED_MAX),
        help="seed of the search's sampler (default: --seed); give each machine its "
        "own when several work on one study",
    )
    q.add_argument(
        "--fidelity",
        type=whole_number(1, MAX_SHOTS),
        metavar="SHOTS",
        help="shots a space while searching, the same points for every trial (default: "
        "about 680 a trial, 10 a space on the whole board, 30 on the far rows; a "
        "multiple of 10 with RQMC)",
    )
    q.add_argument(
        "--pruner",
        default="wilcoxon",
        metavar="NAME",
        help="wilcoxon (default: a trial surely worse than the best so far stops, "
        "space by space) or none; one objective (mean-p, far-rows) only",
    )
    q.add_argument(
        "--remeasure",
        type=whole_number(0, 100),
        default=2,
        metavar="K",
        help="the K best trials measured again at full precision (--precision), the "
        "best chosen on those figures (default 2)",
    )
    q.add_argument(
        "--verify-precision",
        type=finite_number(),
        metavar="HALF_WIDTH",
        help="precision of the final comparison with BASE (default: the search's)",
    )
    q.add_argument(
        "--out",
        default="best-design.toml",
        metavar="BEST.toml",
        help="the best design's file (default best-design.toml)",
    )
    q.add_argument("--table", metavar="FILE", help="the trials: .parquet or .csv")
    design_test_options(
        q,
        plot_help="the search: objective per trial, the fields' "
        "importances, the Pareto front with several objectives",
    )
    q.set_defaults(func=cmd_design_optimise)
