"""The check's false-rejection rate on real sandbox films (docs/real-toy.md,
"Checking the sandbox's knock-outs"): films of the stock design, each fired with
seeds of its own, checked against the stock sandbox.

    python scripts/toy_check_round_trips.py [--films 30] [--shots 40] [--refires 200]
        [--workers 2]

The films' speeds are left out (as a film without a chronograph's reading), so
every film has the same launches (the angles of scripts/toy_check_study.py) and
one set of re-fires serves them all; each film's own shots are fresh.
"""

import argparse
import json

import numpy as np

from models.board import load_board
from models.design import load_design
from models.layout import load_layout
from sim.studies.calibrating.knocked_csv import parse_knocked_shots
from sim.studies.calibrating.knocked_shots import aimed_angles, sandbox_film_csv
from sim.studies.calibrating.toy_check import CheckSpec, fire_refires, judged, launches_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--films", type=int, default=30)
    parser.add_argument("--shots", type=int, default=40)
    parser.add_argument("--refires", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    board, layout, stock = load_board("stock"), load_layout("crowded"), load_design("stock")
    angles = aimed_angles(board, stock, layout, args.shots)
    piggies = sorted(layout.piggies)
    spec = CheckSpec(board, stock, layout, args.refires, seed=0)
    films = [
        parse_knocked_shots(
            sandbox_film_csv(stock, board, layout, angles, seed=100 + k, chronograph=False),
            piggies,
            source=f"film {100 + k}",
        )
        for k in range(args.films)
    ]
    fired = fire_refires(spec, launches_of(films[0], stock), args.workers)
    rows = []
    for film in films:
        stats = judged(film, spec, fired).statistics
        lo, hi = stats.delta_p_interval
        rows.append((film.source, stats.p_value, stats.delta_p, lo, hi, stats.rejected))
    rejected = sum(r[-1] for r in rows)
    print(json.dumps({"films": rows, "rejected": rejected, "of": len(rows)}, indent=1))
    print(f"rejected {rejected} of {len(rows)} films of the same design at 5 %")
    print(f"p-values: {np.round(sorted(r[1] for r in rows), 3).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
