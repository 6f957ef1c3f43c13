"""``piggy hitmap --aim-sd-scan``: P(target) of the chosen spaces at each aim spread,
for one design or several overlaid (``--design`` more than once)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from models.errors import InputError
from models.text import shown
from sim.cli import start_lines
from sim.cli.common import json_out, progress_bar

if TYPE_CHECKING:
    import numpy as np

    from sim.studies.running.cluster import StudyWorkers


def check_scan(args, designs: list[str]) -> np.ndarray:
    """What ``--aim-sd-scan`` refuses, told before the studies and their libraries are
    imported: a range not ``START:STOP:COUNT`` or spreads out of bounds, no
    ``--spaces``, options of a single map, a design named twice. Returns the spreads."""
    from models.aimer import MAX_SD_DEG
    from sim.studies.designs.sweep import range_parts

    start, stop, count = range_parts(
        args.aim_sd_scan, "--aim-sd-scan", 50, "START:STOP:COUNT in degrees, e.g. 0:6:7"
    )
    if min(start, stop) < 0 or max(start, stop) > MAX_SD_DEG:
        raise InputError(f"--aim-sd-scan: spreads must lie in [0, {MAX_SD_DEG:g}] degrees")
    if not args.spaces:
        raise InputError(
            "--aim-sd-scan measures the spaces of --spaces (e.g. --spaces r8c3,r10c1): name a few"
        )
    if args.resume or args.per_shot or args.precision is not None:
        raise InputError("--aim-sd-scan takes none of --resume, --per-shot, --precision")
    if len(set(designs)) != len(designs):
        raise InputError("--design names the same design twice")
    import numpy as np

    return np.linspace(start, stop, count)


def scan(
    args, spec, designs: list[str], values: np.ndarray, out: Path, fmt: str, workers: StudyWorkers
) -> int:
    """Measure the spreads ``values`` (checked by :func:`check_scan`) and write the
    data file (sim/studies/maps/scan.py), draw, and print the table."""
    from models.design import load_design
    from sim.studies.maps import scan

    start = start_lines.scan(spec, designs, len(values), workers)
    maps = len(values) * len(designs)
    shots = start_lines.about_shots(spec, maps)
    start_lines.say_if_warp_on_cpu(spec, [load_design(d) for d in designs], shots)
    progress = progress_bar(maps, not args.json, "spread", "aim spread scan", start=start)
    rows, made_by = scan.scan_designs(spec, designs, values, out, fmt, workers, progress)
    if args.plot:
        title = (
            f"P(target knocked out) against the aim spread, {spec.shots} shots a point"
            f", seed {spec.seed}"
        )
        from sim.views.design_pictures import scan_figure
        from sim.views.pictures import save_figure

        save_figure(scan_figure(rows, title), args.plot)
    if args.json:
        json_out({"file": str(out), "aim_sd_deg": made_by["aim_sd_scan_deg"], "rows": rows})
        return 0
    for name in dict.fromkeys(r["design"] for r in rows):
        _print_table(
            name,
            [r for r in rows if r["design"] == name],
            list(spec.spaces),
            values,
            several=len(designs) > 1,
        )
    for path in (str(out), args.plot):
        if path:
            print(f"Wrote {shown(path)}")
    return 0


def _print_table(design: str, rows: list[dict], names: list[str], values, several: bool) -> None:
    if several:
        print(f"design {design}")
    print("aim sd (deg) " + "".join(f"{n:>19s}" for n in names))
    for sd in values:
        cells = []
        for name in names:
            row = next(r for r in rows if r["space"] == name and r["aim_sd_deg"] == round(sd, 4))
            cells.append(
                "out of reach"
                if row["p_target"] is None
                else f"{row['p_target']:.2f} [{row['p_target_ci_low']:.2f},"
                f"{row['p_target_ci_high']:.2f}]"
            )
        print(f"{sd:12.2f} " + "".join(f"{c:>19s}" for c in cells))
