"""``piggy hitmap``: Monte-Carlo hit probabilities per space."""

from __future__ import annotations

import os
from pathlib import Path

from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.layout import load_layout
from sim.cli.common import check_writable, json_out, progress_bar, world_args
from sim.views.pictures import check_png_path


def cmd_hitmap(args) -> int:
    from sim.studies import hitmap

    if args.shots < 1:
        raise InputError(f"--shots must be at least 1, got {args.shots}")
    if args.arc not in hitmap.ARCS:
        raise InputError(f"unknown arc '{args.arc}': allowed are {', '.join(hitmap.ARCS)}")
    if args.format not in hitmap.FORMATS:
        raise InputError(f"unknown format '{args.format}': allowed are "
                         f"{', '.join(hitmap.FORMATS)}")
    workers = args.workers or os.cpu_count() or 1
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    out = Path(args.out or f"hitmap.{args.format}")
    check_writable(str(out))
    if args.plot:
        check_png_path(args.plot)
    board, design = load_board(args.board), load_design(args.design)
    layout = load_layout(args.layout, board=board)
    spec = hitmap.SweepSpec(board=args.board, design=args.design,
                            stacks=layout.to_dict()["stacks"],
                            spaces=hitmap.check_spaces(board, args.spaces, layout.stacks),
                            shots=args.shots, seed=args.seed, arc=args.arc)
    total = len(spec.spaces) * spec.shots
    progress = progress_bar(total, not args.json, unit="shot")
    rows = hitmap.sweep(spec, out, args.format, workers, args.resume, args.per_shot, progress,
                        scheduler=args.scheduler)
    progress(None)
    reachable = [r for r in rows if r["reachable"]]
    if not reachable:
        raise InputError("no selected space is in reach of design "
                         f"'{design.name}' (results written to {out})")
    if args.plot:
        hitmap.save_heatmap(board, rows, args.plot, f"design '{design.name}': P(target "
                            f"knocked out), {spec.shots} shots per space")
    summary = {"file": str(out), "spaces": len(rows), "in_reach": len(reachable),
               "shots_per_space": spec.shots, "seed": spec.seed,
               "mean_p_target": round(float(sum(r["p_target"] for r in reachable)
                                            / len(reachable)), 4),
               "worst": min(reachable, key=lambda r: r["p_target"])["space"]}
    if args.per_shot:
        summary["per_shot_file"] = str(hitmap.per_shot_path(out))
    if args.json:
        json_out(summary)
        return 0
    print(f"{len(rows)} spaces, {len(reachable)} in reach, {spec.shots} shots each: mean "
          f"P(target knocked out) {summary['mean_p_target']:.3f}, worst {summary['worst']}")
    for path in (str(out), summary.get("per_shot_file"), args.plot):
        if path:
            print(f"Wrote {path}")
    return 0


def add_hitmap(sub) -> None:
    """The ``hitmap`` command."""
    p = sub.add_parser("hitmap", help="Monte-Carlo hit probabilities per space, with intervals",
                       description="For each space, stand a piggy there, aim at it and fire "
                                   "shots with the design's noise: P(target knocked out), P(any), "
                                   "P(collateral), P(no contact), 95 % Wilson intervals, mean "
                                   "ricochets. Resumable: finished spaces are kept in "
                                   "<out>.parts/.")
    world_args(p)
    p.add_argument("--spaces", help="comma-separated spaces (default: every space)")
    p.add_argument("--shots", type=int, default=50, help="shots per space (default 50)")
    p.add_argument("--arc", default="best", help="low, high or best (low where it exists)")
    p.add_argument("--seed", type=int, default=0, help="root seed, split per space and shot")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask distributed cluster instead (tcp://host:8786; start "
                        "its workers with --nthreads 1)")
    p.add_argument("--out", help="output file (default hitmap.parquet or hitmap.csv)")
    p.add_argument("--format", default="parquet", help="parquet (default) or csv")
    p.add_argument("--per-shot", action="store_true",
                   help="also write <stem>.shots.<ext>: one row per shot (seeds, aim, outcome)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the heatmap over the board")
    p.add_argument("--resume", action="store_true", help="finish an interrupted sweep")
    p.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    p.set_defaults(func=cmd_hitmap)
