"""Simulated flight against closed-form ballistics, as a table.

    python scripts/validate_physics.py [--design stock] [--pitches 12]

Exit 1 if any row is outside both 1 % and the integrator bound (see
sim/physics/bullet/validation.py for the derivation).
tests/sim/physics/test_validation.py checks the same.
"""

import argparse
import sys

from models.board import load_board
from models.design import load_design
from sim.physics.bullet.validation import default_pitches, format_table, range_table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", default="stock")
    parser.add_argument("--board", default="stock")
    parser.add_argument("--pitches", type=int, default=12, help="how many pitches to fire at")
    args = parser.parse_args()
    design = load_design(args.design)
    rows = range_table(load_board(args.board), design, default_pitches(design, args.pitches))
    print(
        f"design '{design.name}': {design.launcher.muzzle_speed_mm_s:g} mm/s, "
        f"{design.physics.steps_per_s:g} steps/s, no drag"
    )
    print(format_table(rows))
    failed = [r for r in rows if not r.passes]
    print(f"{len(rows) - len(failed)}/{len(rows)} within 1 % or the integrator bound")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
