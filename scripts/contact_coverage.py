"""How often the contact fit's 95 % intervals hold a hidden bale's values.

    python scripts/contact_coverage.py [--hidden 0.7,0.3 0.8,0.6 ...] [--seeds 1-8]
        [--shots-per-pitch 8 | --angles ANGLES.csv] [--hops-seen 0.3]

For each hidden (restitution, friction) of the bale and each seed: 40 sandbox
shots at the example's settings (5 pitches, ``--shots-per-pitch`` 8 each), or
one at each row of ``--angles`` (sim/studies/calibrating/sandbox_shots.py, with
the rest and second-touch columns), each second touch kept with the chance
``--hops-seen`` (a camera that misses bounces; 0: the rests alone) and none by a
marker (where ``piggy measure`` gives none), the launcher fitted, then the contact
(sim/studies/calibrating/contact_fit.py, its sandbox seeded apart from the shots').
One JSON line a fit (flushed: a long study can be read as it goes), then a summary:
how many intervals held the hidden value, their mean and largest half-widths, and
the CPU time of a fit. docs/real-toy.md, "Fitting the contact physics", quotes it.
About 45 s of CPU a fit.
"""

import argparse
import csv
import dataclasses
import io
import json
import sys

import numpy as np

from models.board import load_board
from models.design import load_design
from sim.real_toy.angles import read_angles
from sim.real_toy.markers import landing_blind_spots, marker_layout
from sim.studies.calibrating.calibration import calibrate
from sim.studies.calibrating.contact_fit import COEFFICIENTS, fit_contact
from sim.studies.calibrating.contact_stats import in_boxes
from sim.studies.calibrating.sandbox_shots import sandbox_shots_csv
from sim.studies.calibrating.shots_csv import parse_shots


def missing_hops(text: str, seen: float, seed: int, blind_spots) -> str:
    """The shots' CSV text with each second touch blanked with the chance 1 - ``seen``,
    and wherever it lies in one of the ``blind_spots``."""
    rng = np.random.default_rng(seed)
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        missed = rng.random() >= seen
        if row["second_x_mm"]:
            point = np.array([[float(row["second_x_mm"]), float(row["second_y_mm"])]])
            missed |= bool(in_boxes(point, blind_spots)[0])
        if missed:
            row["second_x_mm"] = row["second_y_mm"] = ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", nargs="+", default=["0.7,0.3", "0.8,0.6", "0.4,0.8"])
    parser.add_argument("--seeds", default="1-4", help="first-last, inclusive")
    parser.add_argument("--shots-per-pitch", type=int, default=8)
    parser.add_argument("--angles", help="an angles CSV (pitch_deg, yaw_deg): its shots")
    parser.add_argument("--hops-seen", type=float, default=1.0, help="the share kept")
    args = parser.parse_args()
    settings = None
    if args.angles:
        angles = read_angles(args.angles)
        settings = list(zip(angles.pitch_deg, angles.yaw_deg, strict=True))
    first, last = (int(v) for v in args.seeds.split("-"))
    stock, board = load_design("stock"), load_board("stock")
    blind_spots = landing_blind_spots(marker_layout(board), stock.bale.length_mm / 2)
    held = {name: 0 for name in COEFFICIENTS}
    halves: dict[str, list[float]] = {name: [] for name in COEFFICIENTS}
    cpu = []
    for seed in range(first, last + 1):
        for pair in args.hidden:
            hidden = dict(zip(COEFFICIENTS, (float(v) for v in pair.split(",")), strict=True))
            bale = dataclasses.replace(
                stock.bale, restitution=hidden["restitution"], friction=hidden["friction"]
            )
            text = sandbox_shots_csv(
                dataclasses.replace(stock, bale=bale),
                shots_per_pitch=args.shots_per_pitch,
                seed=seed,
                contact=True,
                settings=settings,
            )
            text = missing_hops(text, args.hops_seen, seed, blind_spots)
            shots = parse_shots(text, source=f"hidden {pair} seed {seed}")
            launcher = calibrate(shots, stock)
            fit = fit_contact(shots, launcher, board, seed=seed + 1000, blind_spots=blind_spots)
            for name, e in fit.estimates.items():
                held[name] += e.low <= hidden[name] <= e.high
                halves[name].append((e.high - e.low) / 2)
            cpu.append(fit.cpu_s)
            print(
                json.dumps({"hidden": hidden, "seed": seed, "shots": len(shots), **fit.to_dict()}),
                flush=True,
            )
    for name in COEFFICIENTS:
        print(
            f"{name}: held {held[name]} of {len(cpu)}; half-width mean "
            f"{np.mean(halves[name]):.3f}, largest {np.max(halves[name]):.3f}"
        )
    print(f"CPU a fit: {np.mean(cpu):.0f} s mean, {np.max(cpu):.0f} s largest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
