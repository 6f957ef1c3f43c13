"""``piggy hitmap``: Monte-Carlo hit probabilities per space, and their sensitivity to
the aim spread."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from models.design import load_design
from models.errors import InputError
from models.grid import HIT_RULES
from models.layout import check_spaces
from sim.cli import hitmap_summary
from sim.cli.common import (
    aimer_args,
    board_reference,
    check_output,
    check_table_output,
    engine_arg,
    finite_number,
    json_out,
    load_aimer_args,
    load_layout_args,
    seed_arg,
    whole_number,
    workers_arg,
    world_args,
)
from sim.cli.hitmap_budget import (
    budget_options,
    budget_summary,
    check_budget_args,
    fire_map,
)
from sim.cli.sensitivity import check_sensitivity, sensitivity
from sim.defaults import MAX_SHOTS, PRECISION_CAP, SAMPLER, SAMPLERS, SWEEP_ARCS

if TYPE_CHECKING:
    from sim.studies.running.cluster import StudyWorkers


def check_precision(value: float | None, option: str = "--precision") -> float | None:
    if value is not None and not 0 < value < 0.5:
        raise InputError(
            f"{option} {value:g} is out of range: it is the half-width of "
            "the 95 % interval of a probability, between 0 and 0.5 (e.g. 0.05)"
        )
    return value


def sweep_spec(args, layout):
    """The :class:`~sim.studies.shots.space_shots.SweepSpec` of the options shared by ``hitmap`` and
    the design studies, on ``layout`` and its board; everything checked before a shot
    is fired, and what needs no study module checked before one is imported."""
    from sim.physics.materials import parse_vary
    from sim.physics.registry import resolve

    if args.arc not in SWEEP_ARCS:
        raise InputError(f"unknown arc '{args.arc}': allowed are {', '.join(SWEEP_ARCS)}")
    if args.sampler not in SAMPLERS:
        raise InputError(f"unknown sampler '{args.sampler}': allowed are {', '.join(SAMPLERS)}")
    precision = check_precision(args.precision)
    aimer = load_aimer_args(args)
    vary = parse_vary(args.vary)
    spaces = check_spaces(layout.board, args.spaces, layout.stacks)
    # numpy and SciPy (the studies' samplers) once the plain input is read: a fast start
    from sim.studies.shots import space_shots

    shots = args.shots if args.shots is not None else (PRECISION_CAP if precision else 50)
    spec = space_shots.SweepSpec(
        board=board_reference(args),
        design=first_design(args.design),
        stacks=layout.to_dict()["stacks"],
        spaces=spaces,
        shots=shots,
        seed=args.seed,
        arc=args.arc,
        aimer=aimer,
        vary=vary,
        precision=precision,
        hit_rule=args.hit_rule,
        layout=args.layout,
        sampler=args.sampler,
        engine=args.engine or None,
    )
    space_shots.check_targets(spec)
    resolve(load_design(spec.design), spec.engine)  # the engine's one check: heavy, last
    return spec


def first_design(given) -> str:
    """The design a sweep measures: ``--design`` once (a name), or the first of a list
    (``hitmap --design`` may be repeated for --aim-sd-scan), or stock when not given."""
    if isinstance(given, list):
        return given[0] if given else "stock"
    return given or "stock"


def workers_of(args) -> StudyWorkers:
    """Where the study runs: the Dask cluster of ``--scheduler``, or ``--workers``
    local processes (default: every core)."""
    from sim.studies.running.cluster import Cluster

    if args.scheduler:
        if args.workers:
            raise InputError("--workers and --scheduler: give one (the cluster has its own)")
        return Cluster(args.scheduler)
    return args.workers or os.cpu_count() or 1


def cmd_hitmap(args) -> int:
    workers = workers_of(args)
    designs = args.design or ["stock"]
    check_budget_args(args)
    out, fmt = _check_outputs(args, designs)
    design = load_design(args.design)
    layout = load_layout_args(args)
    spreads = _scan_spreads(args, designs)
    spec = sweep_spec(args, layout)
    check_sensitivity(args, spec)

    if spreads is not None:
        from sim.cli.scan import scan

        return scan(args, spec, designs, spreads, out, fmt, workers)
    outcome, done = fire_map(args, spec, (out, fmt), workers, design.name)
    rows = outcome.rows
    if args.resume:
        hitmap_summary.print_resumed(outcome, out)
    reachable = [r for r in rows if r["reachable"]]
    if not reachable:
        return hitmap_summary.none_in_reach(args, design.name, rows, out)
    summary = hitmap_summary.summary(spec, out, outcome, reachable) | budget_summary(
        args, spec, rows, done
    )
    sampling = hitmap_summary.sampling_words(spec, summary)
    if args.plot:
        _plot(args.plot, layout.board, rows, design.name, summary, sampling)
    summary |= _added(args, spec, out, outcome)
    if args.json:
        json_out(summary)
        return 0
    hitmap_summary.print_summary(summary, sampling, args.plot)
    return 0


def _added(args, spec, out: Path, outcome) -> dict:
    """What the summary adds where asked: the per-shot file, which guesses matter."""
    from sim.studies.maps import hitmap

    per_shot = {"per_shot_file": str(hitmap.per_shot_path(out))} if args.per_shot else {}
    return per_shot | (
        {"sensitivity": sensitivity(spec, outcome.parts)} if args.sensitivity else {}
    )


def _scan_spreads(args, designs: list[str]):
    """``--aim-sd-scan``'s spreads, its options and every design checked before the
    studies are imported; None without it."""
    if not args.aim_sd_scan:
        return None
    from sim.cli.scan import check_scan

    spreads = check_scan(args, designs)
    for name in designs[1:]:
        load_design(name)  # each checked before any shot
    return spreads


def _plot(path: str, board, rows: list[dict], design: str, summary: dict, sampling: str) -> None:
    from sim.views.hitmap_picture import save_heatmap

    title = f"design '{design}', aimer {summary['aimer']}: P(target knocked out), {sampling}"
    save_heatmap(board, rows, path, title, interval=summary["interval"])


def _check_outputs(args, designs: list[str]) -> tuple[Path, str]:
    """The hit map's file and format, and every file to be written checked before
    any shot; one design (``args.design`` set to it) unless ``--aim-sd-scan``."""
    from sim.studies.shots import datafiles

    if len(designs) > 1 and not args.aim_sd_scan:
        raise InputError(
            "--design is given once for a hit map (more than once only with "
            "--aim-sd-scan, which overlays the designs)"
        )
    args.design = designs[0]
    out = Path(args.out or default_out(args))
    fmt = datafiles.format_of(out, args.format)
    check_table_output(out, "--out", fmt)
    if args.per_shot:
        from sim.studies.maps import hitmap

        check_table_output(hitmap.per_shot_path(out), "--per-shot file", fmt)
    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    return out, fmt


def default_out(args) -> str:
    """The output file when ``--out`` is not given; one that exists is never overwritten
    (the user did not name it)."""
    name = "aim-sd-scan.csv" if args.aim_sd_scan else f"hitmap.{args.format or 'parquet'}"
    if Path(name).exists() and not args.resume:
        raise InputError(
            f"{name} exists and --out was not given: name the output file with "
            "--out (a file the command named itself is never overwritten)"
        )
    return name


def sweep_options(p, *, shots_help: str) -> None:
    """The options of a sweep, shared by ``hitmap`` and the design studies."""
    p.add_argument("--spaces", help="comma-separated spaces (default: every space)")
    p.add_argument(
        "--shots", type=whole_number(1, MAX_SHOTS), help=f"{shots_help}; at most {MAX_SHOTS}"
    )
    p.add_argument(
        "--precision",
        type=finite_number(),
        metavar="HALF_WIDTH",
        help="fire at each space in batches until its 95 %% interval of P(target) is "
        f"within ±HALF_WIDTH (e.g. 0.05); --shots is then the cap (default "
        f"{PRECISION_CAP}). What it costs on the stock board: ±0.1 about 4,600 shots for a "
        "hit map, 1,400 for a design compare; ±0.05 about 11,800 and 2,700 (about a "
        "minute and under half a minute on 2 idle cores); ±0.02 about 41,000 and 43,000 "
        '(about 4 minutes): docs/hitmap.md, "What a precision costs"',
    )
    p.add_argument(
        "--arc", default="best", help="low, high or best (low where it exists; the default)"
    )
    sampler_arg(p)
    seed_arg(p, "root seed, split per space and shot")
    p.add_argument(
        "--hit-rule",
        default="touches-line",
        choices=HIT_RULES,
        help="knocked out when touching the outline (default) or wholly outside",
    )
    aimer_args(p, default="child", vary=True)
    engine_arg(p)


def sampler_arg(p) -> None:
    """``--sampler``: how a space's shots are drawn."""
    p.add_argument(
        "--sampler",
        default=SAMPLER,
        help="rqmc (default): scrambled Sobol points, the error from independent "
        "scrambles, fewer shots for the same precision; mc: plain Monte Carlo, "
        "every shot drawn on its own (what hit maps were before)",
    )


def add_hitmap(sub) -> None:
    """The ``hitmap`` command."""
    p = sub.add_parser(
        "hitmap",
        help="Monte-Carlo hit probabilities per space, with intervals",
        description="For each space, stand a piggy there, aim at it and fire "
        "shots with the launcher's spread and the aimer's error: "
        "P(target knocked out), P(any), P(collateral), P(no contact), "
        "95 % intervals (RQMC's over its scrambles; Wilson's with --sampler mc), "
        "mean ricochets. Resumable: finished spaces are kept in <out>.parts/. "
        "With --aim-sd-scan: P of the chosen spaces as the aim spread grows.",
    )
    world_args(
        p,
        design_help="launcher design name in models/designs/ or a path (default: "
        "stock); more than once with --aim-sd-scan, to overlay designs",
    )
    sweep_options(p, shots_help="shots per space (default 50; the cap with --precision)")
    p.add_argument(
        "--aim-sd-scan",
        metavar="START:STOP:COUNT",
        help="P(target) of --spaces at COUNT aim spreads from START to STOP degrees "
        "(yaw and pitch alike), e.g. 0:6:7: a table, --json, --plot",
    )
    workers_arg(p, "local worker processes (default: all cores)")
    p.add_argument("--out", help="output file: .parquet or .csv (default hitmap.parquet)")
    p.add_argument("--format", help="parquet or csv (default: from the --out suffix, else parquet)")
    p.add_argument(
        "--per-shot",
        action="store_true",
        help="also write <stem>.shots.<ext>: one row per shot (seeds, aim, outcome)",
    )
    p.add_argument("--plot", metavar="FILE.png", help="draw the heatmap over the board")
    p.add_argument(
        "--sensitivity", action="store_true", help="with --vary: which guesses matter most"
    )
    budget_options(p)
    p.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    p.set_defaults(func=cmd_hitmap)
