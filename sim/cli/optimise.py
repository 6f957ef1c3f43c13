"""``piggy design optimise``: search design fields for the best design under safety
and reach constraints, then check it against BASE with the paired comparison."""

from __future__ import annotations

import sys
from pathlib import Path

from models.design import load_design
from models.errors import InputError, check_label
from models.seeds import SEED_MAX
from models.text import shown
from sim.cli import start_lines
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
from sim.defaults import IN_FLIGHT_ON_CLUSTER, MAX_SHOTS, OBJECTIVES, SEARCH_PRECISION

MAX_TRIALS = 10_000
#: Most trials measured at once (--in-flight).
MAX_IN_FLIGHT = 64
_LIMIT = finite_number(0, 1e9, above=True)


def cmd_design_optimise(args) -> int:
    search, verify_spec, cache, out = _search_of(args)
    from sim.studies.optimising.run import run_search

    study = check_label(args.study, "--study", 100) if args.study else None
    workers = workers_of(args)
    bars = _bars(args, start_lines.optimise(search, args.trials, workers))
    shots = start_lines.about_shots(search.spec, args.trials, len(search.fired_spaces))
    start_lines.say_if_warp_on_cpu(search.spec, [search.base], shots)
    run = run_search(
        search,
        verify_spec,
        trials=args.trials,
        in_flight=args.in_flight,
        workers=workers,
        cache=cache,
        out=out,
        storage=args.storage,
        study=study,
        search_seed=args.search_seed,
        table=args.table,
        bars=bars,
        report=None if args.json else lambda line: print(f"piggy: {line}", file=sys.stderr),
    )
    if args.plot:
        _plot(run, args.plot)
    summary = run.summary | {"table": args.table, "plot": args.plot, "cache": str(cache)}
    if args.json:
        json_out(summary)
        return 0
    _print_summary(summary, search, run.best, summary["verification"])
    best = summary["best"] if isinstance(summary["best"], list) else [summary["best"]]
    for path in [e["design_file"] for e in best if e] + [args.table, args.plot]:
        if path:
            print(f"Wrote {shown(path)}")
    return 0


def _bars(args, start: str):
    """``bars(total, unit, label)`` of the search: its progress, the first (the
    trials') after the command's start line."""
    pending = [start]

    def bars(total, unit, label=None):
        named = f"design optimise{f', {label}' if label else ''}"
        first = pending.pop() if pending else None
        return progress_bar(total, not args.json, unit, named, start=first)

    return bars


def _plot(run, path: str) -> None:
    """The picture of the search (a view of its rows and importances)."""
    from sim.studies.designs import search as design_search
    from sim.views.optimise_pictures import search_figure
    from sim.views.pictures import save_figure

    search, summary = run.search, run.summary
    maximise = [design_search.OBJECTIVES[o][0] == "maximize" for o in search.objectives]
    best = summary["best"] if isinstance(summary["best"], list) else [summary["best"]]
    title = (
        f"piggy design optimise {search.base.name}: study {summary['study']}, "
        f"aimer {search.spec.aimer.name}"
    )
    if run.best:
        title += f"; best: {best[run.chosen]['design']}"
    save_figure(
        search_figure(
            run.rows,
            search.objectives,
            maximise,
            run.importances,
            [t.number for t in run.best],
            title,
            params=search.params,
        ),
        path,
    )


def _search_of(args):
    """The search of the command line, the settings of the final comparison, the cache
    folder and the best design's file, everything checked before any shot."""
    from sim.studies.designs import search as design_search

    base = load_design(args.base)  # first: a mistyped name is told at once
    objectives = design_search.parse_objectives(args.objective)
    params = design_search.parse_params(args.param, base)
    out = _check_outputs(args)
    if args.precision is None and args.shots is None:
        args.precision = SEARCH_PRECISION
    args.design = args.base
    layout = load_layout_args(args)
    spec = sweep_spec(args, layout)
    # Optuna and the studies (numpy, SciPy) once the plain input is read: a fast start
    from sim.studies.comparing.cached_maps import cache_folder
    from sim.studies.optimising import optimise, racing
    from sim.studies.optimising.run import make_search
    from sim.studies.optimising.search_settings import Search

    optimise.optuna_module()
    cache = check_output_folder(cache_folder(args.cache), "--cache")
    design_search.check_objectives(layout.board, spec.spaces, objectives)
    _check_min_reach(args.min_reach, len(spec.spaces))
    search = Search(
        base,
        params,
        objectives,
        spec,
        layout.board,
        _limits(args),
        args.min_reach or 0,
        pruner=racing.check_pruner(args.pruner, objectives),
        remeasure=args.remeasure,
    )
    verify_precision = check_precision(args.verify_precision, "--verify-precision")
    return (*make_search(search, args.fidelity, verify_precision), cache, out)


def _check_min_reach(min_reach: int | None, spaces: int) -> None:
    if min_reach and min_reach > spaces:
        raise InputError(f"--min-reach {min_reach} is more than the {spaces} spaces searched")


def _limits(args):
    """The safety limits of ``--limit-energy-j`` and ``--limit-energy-per-area-j-m2``."""
    from sim.studies.designs.safety import SafetyLimits

    return SafetyLimits(
        kinetic_energy_j=args.limit_energy_j or SafetyLimits.kinetic_energy_j,
        kinetic_energy_per_area_j_m2=(
            args.limit_energy_per_area_j_m2 or SafetyLimits.kinetic_energy_per_area_j_m2
        ),
    )


def _check_outputs(args) -> Path:
    """``--table`` and ``--plot`` writable; ``--out``: a TOML file to write (never
    BASE's own file, as no output is an input: check_output)."""
    out = check_output(args.out, "--out", (".toml",))
    if args.table:
        check_table_output(args.table, "--table")
    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    return out


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
    _print_best(summary["best"] if isinstance(summary["best"], list) else [summary["best"]], best)
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


def _print_best(entries: list[dict], best: list) -> None:
    """The best design (or the Pareto front): its fields, its figures, and each field
    at an end of its range, where the best may lie beyond."""
    from sim.studies.optimising.search_settings import edge_words

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
        for edge in entry["at_edge"]:
            print(f"    {edge_words(edge)}")


def _sampling(verification: dict) -> str:
    precision = verification["precision"]
    return f"±{precision:g}" if precision else f"{verification['shots']} shots a space"


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
    _add_search_options(q)
    _add_constraint_options(q)
    _add_study_options(q)
    _add_precision_options(q)
    _add_output_options(q)
    design_test_options(
        q,
        plot_help="the search: over one or two fields the objective against each "
        "field, over more the objective per trial and the fields' importances; the "
        "Pareto front with several objectives",
    )
    q.set_defaults(func=cmd_design_optimise)


def _add_search_options(q) -> None:
    """The fields searched, the objectives and the trials."""
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
        f"{IN_FLIGHT_ON_CLUSTER} with --scheduler)",
    )


def _add_constraint_options(q) -> None:
    """What a design must meet: the spaces in reach, the safety limits."""
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


def _add_study_options(q) -> None:
    """Where the study is kept, its name and its sampler's seed."""
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


def _add_precision_options(q) -> None:
    """How precisely trials are measured, raced, measured again and verified."""
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
        metavar="NAME",
        help="wilcoxon (default: a trial surely worse than the best so far stops, "
        "space by space) or none; one objective (mean-p, far-rows) only: refused "
        "with others",
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


def _add_output_options(q) -> None:
    """The best design's file and the trials' table."""
    q.add_argument(
        "--out",
        default="best-design.toml",
        metavar="BEST.toml",
        help="the best design's file (default best-design.toml)",
    )
    q.add_argument("--table", metavar="FILE", help="the trials: .parquet or .csv")
