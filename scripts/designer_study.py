"""The worked study of docs/hitmap.md: the stock board with a child aiming.

    python scripts/designer_study.py [--precision 0.05] [--compare-precision 0.1]
                                     [--workers 2] [--out study/] [--json]

1. The whole stock board's hit map at ``--precision``, timed: shots used and wall
   time, against the shots fixed-N sampling needs for the same precision
   everywhere (the worst case, P = 0.5).
2. stock against fast-spring, the same shots, by ``design compare``'s default
   rule (the sequential paired rule, RQMC, δ ``--compare-precision``).
3. stock with the guessed physics varied (``--vary friction=0.2,restitution=0.2,
   mass=0.1``) against stock as designed, the same shots: which spaces move.
4. The comparison of 2 as a report page (``design compare --html``), written in
   ``--out``, and its screenshot opened on r2c3's shots (docs/img/report.png; needs
   Chromium).
Pictures go to docs/img/ (``--pictures``); the hit maps are cached in ``--out`` so a
second run only reads.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import load_design
from models.stats import wilson_interval
from sim.studies.comparing import cached_maps, compare, design_tools, report, verdict
from sim.studies.shots import rqmc, space_shots
from sim.views.difference_map import difference_figure
from sim.views.hitmap_picture import heatmap_figure
from sim.views.pictures import save_figure
from sim.views.report_page import write_report_page

VARY = {"friction": 0.2, "restitution": 0.2, "mass": 0.1}


def fixed_n_for(precision: float) -> int:
    """Shots a space needs so that the Wilson interval is within ±precision at P = 0.5."""
    n = 1
    while True:
        low, high = wilson_interval(n // 2, n)
        if (high - low) / 2 <= precision:
            return n
        n += 1


def screenshot(page: Path, space: str, png: Path) -> None:
    """The report page opened on ``space``'s shots, in headless Chromium, 1000 pixels
    wide; left out with a message where Chromium is missing."""
    from PIL import Image

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print(f"no chromium here: {png} left as it was")
        return
    with tempfile.TemporaryDirectory() as profile:
        shot = Path(profile) / "page.png"
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--window-size=1300,2350",
                "--hide-scrollbars",
                "--virtual-time-budget=4000",
                f"--screenshot={shot}",
                page.resolve().as_uri() + f"#{space}",
            ],
            capture_output=True,
            timeout=180,
            check=True,
        )
        image = Image.open(shot).convert("RGB")
        image.resize(
            (1000, round(image.height * 1000 / image.width)), Image.Resampling.LANCZOS
        ).save(png, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--precision", type=float, default=0.05)
    parser.add_argument("--compare-precision", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="study", help="cache folder of the hit maps")
    parser.add_argument("--pictures", default="docs/img", help="folder for the pictures")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cache, pictures = Path(args.out), Path(args.pictures)
    board = load_board("stock")
    spec = space_shots.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=tuple(space_name(s) for s in board.spaces),
        shots=1000,
        seed=0,
        aimer=load_aimer("child"),
        precision=args.precision,
        sampler="mc",  # docs/hitmap.md's plain Monte Carlo figures (--sampler mc)
    )
    stock, fast = load_design("stock"), load_design("fast-spring")

    start = time.perf_counter()
    stock_map = cached_maps.design_parts(spec, stock, args.workers, cache)
    seconds = time.perf_counter() - start
    rows = [m.row.to_dict() for m in stock_map]
    shots = sum(r["shots"] for r in rows)
    fixed = fixed_n_for(args.precision) * sum(r["reachable"] for r in rows)
    save_figure(
        heatmap_figure(
            board,
            rows,
            f"stock design, a child aiming: P(target knocked out) to ±{args.precision:g}",
            interval=rqmc.INTERVALS[spec.sampler],
        ),
        pictures / "hitmap-child.png",
    )

    paired = dataclasses.replace(spec, precision=args.compare_precision, sampler="rqmc")
    _, comparisons, maps = design_tools.compare_designs(
        paired, board, [stock, fast], args.workers, cache
    )
    versus = comparisons[0]
    base_map, fast_map = cached_maps.paired_maps(
        paired, [stock, fast], versus.rule, args.workers, cache
    )
    made_by = (
        design_tools.comparison_provenance(paired, ["stock", "fast-spring"], maps)
        | versus.rule.provenance()
    )
    save_figure(difference_figure(board, versus, made_by), pictures / "compare.png")
    page = write_report_page(
        cache / "report.html",
        report.build(paired, board, [stock, fast], versus, [base_map, fast_map], made_by, None),
    )
    screenshot(page, "r2c3", pictures / "report.png")

    # the guesses varied against stock as designed: each map to ±precision on its own
    # (the two differ in their settings, not their design), plain Monte Carlo as before
    as_designed = dataclasses.replace(spec, precision=args.compare_precision)
    base_map = cached_maps.design_parts(as_designed, stock, args.workers, cache)
    vary_spec = dataclasses.replace(as_designed, vary=VARY)
    varied = cached_maps.design_parts(vary_spec, stock, args.workers, cache)
    robust = compare.compare_parts(
        "as designed", "guesses varied", [m.part for m in base_map], [m.part for m in varied]
    )
    vary_made_by = design_tools.comparison_provenance(
        vary_spec,
        ["stock", "stock"],
        [[m.row.to_dict() for m in base_map], [m.row.to_dict() for m in varied]],
    )
    save_figure(difference_figure(board, robust, vary_made_by), pictures / "compare-vary.png")

    ps = [r["p_target"] for r in rows if r["reachable"]]
    result = {
        "precision": args.precision,
        "spaces": len(rows),
        "in_reach": len(ps),
        "shots": shots,
        "shots_fixed_n": fixed,
        "shots_per_space": [
            min(r["shots"] for r in rows if r["reachable"]),
            max(r["shots"] for r in rows if r["reachable"]),
        ],
        "seconds": round(seconds, 1),
        "p_target_range": [min(ps), max(ps)],
        "spaces_above_0_95": sum(p > 0.95 for p in ps),
        "stock_vs_fast": {
            "verdict": versus.verdict,
            "mean_diff": [round(v, 4) for v in versus.mean_diff],
            "shots": sum(int(r["shots"] or 0) for m in maps for r in m),
            "space_counts": verdict.space_counts(versus.spaces),
        },
        "vary": {"verdict": robust.verdict, "mean_diff": [round(v, 4) for v in robust.mean_diff]},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"stock, child, ±{args.precision:g}: {shots} shots over {len(ps)} spaces "
        f"({result['shots_per_space'][0]}-{result['shots_per_space'][1]} a space) in "
        f"{seconds:.0f} s; fixed N for the same precision: {fixed} shots"
    )
    print(
        f"P(target) from {min(ps):.2f} to {max(ps):.2f}; above 0.95 on "
        f"{result['spaces_above_0_95']} spaces"
    )
    print(versus.verdict)
    print(robust.verdict)


if __name__ == "__main__":
    main()
