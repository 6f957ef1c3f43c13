"""``piggy hitmap``: Monte-Carlo hit probabilities per space, and their sensitivity to
the aim spread."""

from __future__ import annotations

import os
from pathlib import Path

from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.layout import load_layout
from sim.cli.common import (
    aimer_args,
    check_writable,
    json_out,
    load_aimer_args,
    progress_bar,
    world_args,
)
from sim.physics.knockout import HIT_RULES
from sim.views.hitmap_picture import save_heatmap
from sim.views.pictures import check_png_path, save_figure

#: Cap on shots per space when ``--precision`` is given without ``--shots``.
PRECISION_CAP = 1000


def check_precision(value: float | None) -> float | None:
    if value is not None and not 0 < value < 0.5:
        raise InputError(f"--precision {value:g} is out of range: it is the half-width of "
                         "the 95 % interval of a probability, between 0 and 0.5 (e.g. 0.05)")
    return value


def sweep_spec(args, board, layout):
    """The :class:`~sim.studies.hitmap.SweepSpec` of the options shared by ``hitmap`` and
    the design studies; everything checked before a shot is fired."""
    from sim.physics.materials import parse_vary
    from sim.studies import hitmap

    precision = check_precision(args.precision)
    shots = args.shots if args.shots is not None else (PRECISION_CAP if precision else 50)
    if shots < 1:
        raise InputError(f"--shots must be at least 1, got {shots}")
    if args.seed < 0:
        raise InputError(f"--seed must be 0 or more, got {args.seed}")
    return hitmap.SweepSpec(
        board=args.board, design=args.design, stacks=layout.to_dict()["stacks"],
        spaces=hitmap.check_spaces(board, args.spaces, layout.stacks), shots=shots,
        seed=args.seed, arc=args.arc, aimer=load_aimer_args(args).to_dict(),
        vary=parse_vary(args.vary), precision=precision, hit_rule=args.hit_rule,
        layout=args.layout)


def cmd_hitmap(args) -> int:
    from sim.studies import datafiles, hitmap

    if args.arc not in hitmap.ARCS:
        raise InputError(f"unknown arc '{args.arc}': allowed are {', '.join(hitmap.ARCS)}")
    workers = args.workers or os.cpu_count() or 1
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    out = Path(args.out or ("aim-sd-scan.csv" if args.aim_sd_scan else
                            f"hitmap.{args.format or 'parquet'}"))
    fmt = datafiles.format_of(out, args.format)
    check_writable(str(out))
    if args.plot:
        check_png_path(args.plot)
    board, design = load_board(args.board), load_design(args.design)
    layout = load_layout(args.layout, board=board)
    spec = sweep_spec(args, board, layout)
    if args.aim_sd_scan:
        return _scan(args, spec, out, fmt, workers)
    progress = progress_bar(len(spec.spaces), not args.json, unit="space")
    rows = hitmap.sweep(spec, out, fmt, workers, args.resume, args.per_shot, progress,
                        scheduler=args.scheduler)
    progress(None)
    reachable = [r for r in rows if r["reachable"]]
    if not reachable:
        raise InputError("no selected space is in reach of design "
                         f"'{design.name}' (results written to {out})")
    shots = [r["shots"] for r in reachable]
    sampling = (f"to ±{spec.precision:g} (95 %), {min(shots)}-{max(shots)} shots a space"
                if spec.precision else f"{spec.shots} shots a space")
    aimer = spec.aimer["name"]
    if args.plot:
        save_heatmap(board, rows, args.plot, f"design '{design.name}', aimer {aimer}: "
                            f"P(target knocked out), {sampling}")
    worst = min(reachable, key=lambda r: r["p_target"])
    summary = {"file": str(out), "spaces": len(rows), "in_reach": len(reachable),
               "shots": sum(shots), "shots_per_space": [min(shots), max(shots)],
               "precision": spec.precision, "seed": spec.seed, "aimer": aimer,
               "mean_p_target": round(sum(r["p_target"] for r in reachable) / len(reachable), 4),
               "worst": worst["space"], "worst_p_target": worst["p_target"],
               "worst_p_target_ci": [worst["p_target_ci_low"], worst["p_target_ci_high"]]}
    if args.per_shot:
        summary["per_shot_file"] = str(hitmap.per_shot_path(out))
    if args.json:
        json_out(summary)
        return 0
    print(f"{len(rows)} spaces, {len(reachable)} in reach, {sampling} ({sum(shots)} shots), "
          f"aimer {aimer}: mean P(target knocked out) {summary['mean_p_target']:.2f}, worst "
          f"{worst['space']} {worst['p_target']:.2f} [{worst['p_target_ci_low']:.2f}, "
          f"{worst['p_target_ci_high']:.2f}]")
    for path in (str(out), summary.get("per_shot_file"), args.plot):
        if path:
            print(f"Wrote {path}")
    return 0


def _scan(args, spec, out: Path, fmt: str, workers: int) -> int:
    """``--aim-sd-scan``: P(target) of the chosen spaces at each aim spread."""
    from sim.studies import datafiles, hitmap, scan

    values = scan.parse_scan(args.aim_sd_scan)
    if not args.spaces:
        raise InputError("--aim-sd-scan measures the spaces of --spaces (e.g. --spaces "
                         "r8c3,r10c1): name a few")
    if args.resume or args.per_shot or args.scheduler or spec.precision:
        raise InputError("--aim-sd-scan takes none of --resume, --per-shot, --scheduler, "
                         "--precision")
    progress = progress_bar(len(values), not args.json, unit="spread")
    rows = scan.aim_sd_scan(spec, values, workers, progress)
    progress(None)
    made_by = hitmap.provenance(spec) | {"aim_sd_scan_deg": [float(v) for v in values]}
    datafiles.write_table(rows, out, fmt, made_by)
    if args.plot:
        title = (f"design '{made_by['design']}': P(target knocked out) against the aim spread, "
                 f"{spec.shots} shots a point")
        save_figure(scan.scan_figure(rows, title), args.plot)
    if args.json:
        json_out({"file": str(out), "aim_sd_deg": made_by["aim_sd_scan_deg"], "rows": rows})
        return 0
    names = list(spec.spaces)
    print("aim sd (deg) " + "".join(f"{n:>19s}" for n in names))
    for sd in values:
        cells = []
        for name in names:
            row = next(r for r in rows if r["space"] == name and r["aim_sd_deg"] == round(sd, 4))
            cells.append("out of reach" if row["p_target"] is None else
                         f"{row['p_target']:.2f} [{row['p_target_ci_low']:.2f},"
                         f"{row['p_target_ci_high']:.2f}]")
        print(f"{sd:12.2f} " + "".join(f"{c:>19s}" for c in cells))
    for path in (str(out), args.plot):
        if path:
            print(f"Wrote {path}")
    return 0


def sweep_options(p, *, shots_help: str) -> None:
    """The options of a sweep, shared by ``hitmap`` and the design studies."""
    p.add_argument("--spaces", help="comma-separated spaces (default: every space)")
    p.add_argument("--shots", type=int, help=shots_help)
    p.add_argument("--precision", type=float, metavar="HALF_WIDTH",
                   help="fire at each space in batches until its 95 %% interval of P(target) is "
                        f"within ±HALF_WIDTH (e.g. 0.05); --shots is then the cap (default "
                        f"{PRECISION_CAP})")
    p.add_argument("--arc", default="best", help="low, high or best (low where it exists)")
    p.add_argument("--seed", type=int, default=0, help="root seed, split per space and shot")
    p.add_argument("--hit-rule", default="touches-line", choices=HIT_RULES,
                   help="knocked out when touching the outline (default) or wholly outside")
    aimer_args(p, default="child", vary=True)


def add_hitmap(sub) -> None:
    """The ``hitmap`` command."""
    p = sub.add_parser("hitmap", help="Monte-Carlo hit probabilities per space, with intervals",
                       description="For each space, stand a piggy there, aim at it and fire "
                                   "shots with the launcher's spread and the aimer's error: "
                                   "P(target knocked out), P(any), P(collateral), P(no contact), "
                                   "95 % Wilson intervals, mean ricochets. Resumable: finished "
                                   "spaces are kept in <out>.parts/. With --aim-sd-scan: P of "
                                   "the chosen spaces as the aim spread grows.")
    world_args(p)
    sweep_options(p, shots_help="shots per space (default 50; the cap with --precision)")
    p.add_argument("--aim-sd-scan", metavar="START:STOP:COUNT",
                   help="P(target) of --spaces at COUNT aim spreads from START to STOP degrees "
                        "(yaw and pitch alike), e.g. 0:6:7: a table, --json, --plot")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask distributed cluster instead (tcp://host:8786; start "
                        "its workers with --nthreads 1)")
    p.add_argument("--out", help="output file: .parquet or .csv (default hitmap.parquet)")
    p.add_argument("--format",
                   help="parquet or csv (default: from the --out suffix, else parquet)")
    p.add_argument("--per-shot", action="store_true",
                   help="also write <stem>.shots.<ext>: one row per shot (seeds, aim, outcome)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the heatmap over the board")
    p.add_argument("--resume", action="store_true", help="finish an interrupted sweep")
    p.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    p.set_defaults(func=cmd_hitmap)
