"""Where a hit map's shots go: stopping rules replayed on shots already fired.

    python scripts/rqmc_board_replay.py RQMC_SHOTS MC_SHOTS [--precision 0.05,0.1]
        [--json FILE]

RQMC_SHOTS is the per-shot file of an RQMC hit map fired without ``--precision``
(``piggy hitmap --sampler rqmc --shots 1000 --per-shot``: 10 scrambles of 100
points a space); MC_SHOTS that of a plain Monte Carlo one with ``--precision`` at
the finest precision wanted (``--sampler mc --precision 0.05 --per-shot``). A
stopping rule that stops within those shots fires the first points of each scramble
(or the first shots, for plain Monte Carlo), so its run is replayed exactly by
truncating the rows: no new shot. For each space and precision it prints the shots
plain Monte Carlo's rule fired (and fires on average at that P, exact:
``sequential_bias``), the shots RQMC's rule (sim/studies/shots/rqmc.py) fires,
and what decided its stop: which bound of the interval was binding at the last look
(``t``: Student's t over the scramble means, ``t/guard`` where the spread guard set
the spread, ``credit``: the Wilson floor at the credited shots, ``plain``: the Wilson
ceiling at the shots fired) and the half-width it stopped at.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections import defaultdict

import numpy as np
from scipy import stats

from models.stats import precision_reached, sequential_bias, wilson_bounds
from sim.studies.shots import rqmc
from sim.studies.shots.space_shots import BATCH

#: Plain Monte Carlo's cap, for its expected shots (as ``piggy hitmap --precision``).
CAP = 1000


def read_shots(path: str) -> dict[str, list[dict]]:
    """A per-shot CSV's rows by space."""
    spaces: dict[str, list[dict]] = defaultdict(list)
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            spaces[row["space"]].append(row)
    return spaces


def knocked(row: dict) -> bool:
    return row["target_knocked"] in ("True", "true", "1")


def scramble_hits(rows: list[dict]) -> np.ndarray:
    """(R, n): :func:`knocked` of a space's per-shot CSV rows, by scramble and point
    (the file's text, as :func:`sim.studies.shots.rqmc.by_scramble` holds typed rows)."""
    scrambles = 1 + max(int(r["scramble"]) for r in rows)
    hits = np.zeros((scrambles, len(rows) // scrambles), bool)
    for row in rows:
        hits[int(row["scramble"]), int(row["point"])] = knocked(row)
    return hits


def binding(hits: np.ndarray) -> str:
    """Which bound set the width of :func:`rqmc.interval` on the (R, n) ``hits``."""
    scrambles, points = hits.shape
    estimate, low, high = rqmc.interval(hits)
    means = hits.mean(axis=1)
    now = means.std(ddof=1)
    first = hits[:, : points // 2].mean(axis=1).std(ddof=1) if points >= 2 else 0.0
    guarded = first / 2.0**rqmc.GUARD_RATE > now
    half_t = stats.t.ppf(0.975, scrambles - 1) * max(now, first / 2.0**rqmc.GUARD_RATE)
    half_t /= math.sqrt(scrambles)
    plain = wilson_bounds(estimate, hits.size)
    best = wilson_bounds(estimate, hits.size * rqmc.credit(points, estimate))
    width = high - low
    if math.isclose(width, plain[1] - plain[0], abs_tol=1e-12):
        return "plain"
    if math.isclose(width, best[1] - best[0], abs_tol=1e-12) and 2 * half_t <= width:
        return "credit"
    return "t/guard" if guarded else "t"


def replay_rqmc(hits: np.ndarray, precision: float) -> tuple[int, str, float, float]:
    """(points per scramble at the stop, the binding bound, estimate, half-width)."""
    most = hits.shape[1]
    points = rqmc.FIRST_POINTS
    while True:
        following = rqmc.next_points(hits[:, :points], precision, most)
        if following == points:
            estimate, low, high = rqmc.interval(hits[:, :points])
            if points == most and (high - low) / 2 > precision:
                raise SystemExit("the rule would fire past the shots in the file: fire more")
            return points, binding(hits[:, :points]), float(estimate), float(high - low) / 2
        points = following


def replay_mc(outcomes: list[bool], precision: float) -> int:
    """Shots plain Monte Carlo's rule fires on these outcomes (batches of BATCH)."""
    for shots in range(BATCH, len(outcomes) + BATCH, BATCH):
        fired = min(shots, len(outcomes))
        if precision_reached(sum(outcomes[:fired]), fired, precision):
            return fired
    return len(outcomes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rqmc_shots")
    parser.add_argument("mc_shots")
    parser.add_argument("--precision", default="0.05,0.1")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    precisions = [float(p) for p in args.precision.split(",")]
    rqmc_rows, mc_rows = read_shots(args.rqmc_shots), read_shots(args.mc_shots)
    table = []
    for space in sorted(rqmc_rows, key=lambda s: tuple(int(x) for x in s[1:].split("c"))):
        hits = scramble_hits(rqmc_rows[space])
        outcomes = [knocked(r) for r in sorted(mc_rows[space], key=lambda r: int(r["shot"]))]
        entry: dict = {"space": space, "p": float(hits.mean()), "shots_available": int(hits.size)}
        for precision in precisions:
            points, bound, estimate, half = replay_rqmc(hits, precision)
            entry[str(precision)] = {
                "mc_shots": replay_mc(outcomes, precision),
                "mc_expected": round(sequential_bias(entry["p"], precision, BATCH, CAP)[1]),
                "rqmc_shots": points * hits.shape[0],
                "binding": bound,
                "estimate": round(estimate, 4),
                "half_width": round(half, 4),
            }
        table.append(entry)
    header = "| space | P (1,000 RQMC shots) |"
    for precision in precisions:
        header += f" ±{precision:g}: MC shots (expected) | RQMC shots | RQMC stop decided by (±) |"
    print(header)
    print("|---" * (2 + 3 * len(precisions)) + "|")
    for entry in table:
        line = f"| {entry['space']} | {entry['p']:.3f} |"
        for precision in precisions:
            cell = entry[str(precision)]
            line += (
                f" {cell['mc_shots']} ({cell['mc_expected']}) | {cell['rqmc_shots']} |"
                f" {cell['binding']} ({cell['half_width']:.3f}) |"
            )
        print(line)
    for precision in precisions:
        cells = [e[str(precision)] for e in table]
        mc, ours = sum(c["mc_shots"] for c in cells), sum(c["rqmc_shots"] for c in cells)
        expected = sum(c["mc_expected"] for c in cells)
        worse = [
            e["space"] for e, c in zip(table, cells, strict=True) if c["rqmc_shots"] > c["mc_shots"]
        ]
        bounds = {
            b: sum(c["binding"] == b for c in cells) for b in ("t", "t/guard", "credit", "plain")
        }
        print(
            f"±{precision:g}: MC {mc} shots (expected {expected}), RQMC {ours} "
            f"({mc / ours:.2f}x fewer; {expected / ours:.2f}x fewer than MC's expected); "
            f"stops decided by {bounds}; RQMC above MC on {len(worse)} spaces {worse}"
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(table, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
