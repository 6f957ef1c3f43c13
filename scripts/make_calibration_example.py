"""Write an example measurement CSV made by the sandbox itself (seeded).

    python scripts/make_calibration_example.py [--design stock] [--seed 6]
        [--out docs/examples/measured-shots.csv] [--chronograph]
    python scripts/make_calibration_example.py --angles [--out docs/examples/angles.csv]

PyBullet shots on an empty stock board, 5 pitches x 8 shots with the design's
noise, written as a person would measure them (sim/studies/calibrating/sandbox_shots.py);
docs/real-toy.md calibrates the committed example. Same seed, same file. With
``--angles``, only the settings, as a person filming writes them down (the angles
file ``piggy film``, ``piggy measure`` and ``piggy calibrate --video`` read): nothing
is fired.
"""

import argparse
import sys

from models.design import load_design
from models.files import write_text_atomic
from sim.studies.calibrating.sandbox_shots import angles_csv, example_settings, sandbox_shots_csv


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", default="stock", help="the design the shots are fired with")
    parser.add_argument("--seed", type=int, default=6, help="seeds every shot's noise")
    parser.add_argument("--out", help="default docs/examples/measured-shots.csv, or angles.csv")
    parser.add_argument(
        "--pitch-offset",
        type=float,
        default=0.0,
        help="degrees the barrel points above the pitch written down",
    )
    parser.add_argument(
        "--chronograph", action="store_true", help="add each shot's speed (speed_mm_s)"
    )
    parser.add_argument(
        "--angles", action="store_true", help="write only the settings (pitch_deg, yaw_deg)"
    )
    args = parser.parse_args()
    if args.angles:
        out = args.out or "docs/examples/angles.csv"
        write_text_atomic(out, angles_csv(example_settings()))
        print(f"{out}: {len(example_settings())} shots' settings")
        return 0
    args.out = args.out or "docs/examples/measured-shots.csv"
    text = sandbox_shots_csv(
        load_design(args.design),
        seed=args.seed,
        pitch_offset_deg=args.pitch_offset,
        chronograph=args.chronograph,
    )
    write_text_atomic(args.out, text)
    print(
        f"{args.out}: {text.count(chr(10)) - 1} shots with design '{args.design}', seed {args.seed}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
