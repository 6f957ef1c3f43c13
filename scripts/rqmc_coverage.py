"""Do the RQMC sampler's intervals cover on the real physics? (docs/hitmap.md)

    python scripts/rqmc_coverage.py [--spaces r7c3,r9c2,r0c3,r10c6,r2c1,r4c1]
        [--truth-shots 4000] [--repetitions 40] [--precision 0.1] [--workers 2]
        [--out coverage.json] [--first-seed 1000]
    python scripts/rqmc_coverage.py --replay EARLIER.json [--precision 0.1] [--out FILE]

For each space of the stock board (a lone piggy, a child aiming): the truth is a
plain Monte Carlo hit map of ``--truth-shots`` shots (its own Wilson interval given);
then the RQMC sampler measures the space to ``±precision`` ``--repetitions`` times,
each time with another root seed (so other scrambles), and the coverage is the
fraction of those intervals that hold the truth. Also the mean shots a repetition
took, against the mean plain Monte Carlo would take to the same precision (exact,
models/stats.py's sequential_bias at the truth's P). ``--out`` keeps every
run's outcomes shot by shot with where each shot's errors came from (its seed, and
for RQMC its scramble and point), for studies of other estimators on the same shots.

``--replay`` runs the sampler's current stopping rule (sim/studies/shots/rqmc.py) again on
an earlier ``--out``'s shots, with no new shot: a rule that stops at or before the
points each repetition fired sees exactly the shots it would have fired (the same
root seeds give the same scrambles), so its coverage and shots come from truncating
each repetition's scrambles. A repetition the rule would have taken further than it
was fired is an error (run the study anew).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import as_completed
from pathlib import Path

import numpy as np

from models.aimer import load_aimer
from models.files import write_text_atomic
from models.stats import sequential_bias, wilson_interval
from sim.studies.running.workers import process_pool
from sim.studies.shots import rqmc
from sim.studies.shots.rqmc import proportion
from sim.studies.shots.space_firing import run_space
from sim.studies.shots.space_shots import BATCH, SweepSpec

SPACES = "r7c3,r9c2,r0c3,r10c6,r2c1,r4c1"
#: Root seeds of the repetitions start here (the truth uses seed 0).
FIRST_SEED = 1000


def _spec(space: str, sampler: str, shots: int, seed: int, precision: float | None):
    return SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=(space,),
        shots=shots,
        seed=seed,
        aimer=load_aimer("child"),
        precision=precision,
        sampler=sampler,
    )


def _measure(space: str, sampler: str, shots: int, seed: int, precision: float | None):
    rows = run_space(_spec(space, sampler, shots, seed, precision), space).shots
    p, low, high = proportion(rows, lambda r: r.target_knocked)
    return {
        "space": space,
        "sampler": sampler,
        "seed": seed,
        "shots": len(rows),
        "hits": sum(bool(r.target_knocked) for r in rows),
        "p": p,
        "low": low,
        "high": high,
        "outcomes": "".join("1" if r.target_knocked else "0" for r in rows),
        "where": [
            [r.seed, -1 if r.scramble is None else r.scramble, -1 if r.point is None else r.point]
            for r in rows
        ],
    }


def write(args, spaces: list[str], results: list[dict], seconds: float) -> dict:
    """Write what is finished to ``--out``; return its summary (without the shots)."""
    table = []
    for space in spaces:
        truth = [r for r in results if r["space"] == space and r["sampler"] == "mc"]
        runs = [r for r in results if r["space"] == space and r["sampler"] == "rqmc"]
        if not truth or not runs:
            continue
        p = truth[0]["p"]
        _, mc_shots = sequential_bias(p, args.precision, BATCH, 1000)
        table.append(
            {
                "space": space,
                "p_truth": round(p, 4),
                "truth_ci": [
                    round(v, 4) for v in wilson_interval(truth[0]["hits"], truth[0]["shots"])
                ],
                "truth_shots": truth[0]["shots"],
                "repetitions": len(runs),
                "coverage": round(sum(r["low"] <= p <= r["high"] for r in runs) / len(runs), 4),
                "mean_half_width": round(
                    sum(r["high"] - r["low"] for r in runs) / 2 / len(runs), 4
                ),
                "max_half_width": round(max(r["high"] - r["low"] for r in runs) / 2, 4),
                "mean_shots": round(sum(r["shots"] for r in runs) / len(runs), 1),
                "mc_mean_shots": round(mc_shots, 1),
            }
        )
    covered = sum(t["coverage"] * t["repetitions"] for t in table)
    total = sum(t["repetitions"] for t in table)
    summary = {
        "precision": args.precision,
        "aimer": "child",
        "board": "stock",
        "workers": args.workers,
        "seconds": round(seconds, 1),
        "overall_coverage": round(covered / total, 4) if total else None,
        "rqmc_shots": sum(t["mean_shots"] for t in table),
        "mc_shots": round(sum(t["mc_mean_shots"] for t in table), 1),
        "spaces": table,
    }
    runs = sorted(results, key=lambda r: (r["space"], r["sampler"], r["seed"]))
    write_text_atomic(Path(args.out), json.dumps(summary | {"runs": runs}))
    return summary


def replay(run: dict, precision: float) -> dict:
    """An earlier repetition's record as the current stopping rule would have left it."""
    hits = np.zeros((rqmc.SCRAMBLES, run["shots"] // rqmc.SCRAMBLES), bool)
    for outcome, (_, scramble, point) in zip(run["outcomes"], run["where"], strict=True):
        hits[scramble, point] = outcome == "1"
    points, most = rqmc.FIRST_POINTS, hits.shape[1]
    while (following := rqmc.next_points(hits[:, :points], precision, most)) != points:
        points = following
    p, low, high = rqmc.interval(hits[:, :points])
    if points == most and (high - low) / 2 > precision:
        raise SystemExit(f"{run['space']} seed {run['seed']}: the rule would fire past its shots")
    kept = [(o, w) for o, w in zip(run["outcomes"], run["where"], strict=True) if w[2] < points]
    return run | {
        "shots": len(kept),
        "hits": sum(o == "1" for o, _ in kept),
        "p": float(p),
        "low": float(low),
        "high": float(high),
        "outcomes": "".join(o for o, _ in kept),
        "where": [w for _, w in kept],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spaces", default=SPACES)
    parser.add_argument("--truth-shots", type=int, default=4000)
    parser.add_argument("--repetitions", type=int, default=40)
    parser.add_argument("--precision", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="coverage.json")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=FIRST_SEED,
        help="root seed of the first repetition (more repetitions on other scrambles)",
    )
    parser.add_argument(
        "--truth-from",
        metavar="FILE",
        help="take the truths from an earlier --out (same spaces, seed 0)",
    )
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help="the current stopping rule on an earlier --out's shots (no new shot)",
    )
    args = parser.parse_args()
    if args.replay:
        with open(args.replay) as handle:
            earlier = json.load(handle)
        replayed = [
            r if r["sampler"] == "mc" else replay(r, args.precision) for r in earlier["runs"]
        ]
        spaces = [t["space"] for t in earlier["spaces"]]
        args.workers = earlier["workers"]
        print(json.dumps(write(args, spaces, replayed, earlier["seconds"]), indent=1))
        return 0
    spaces = args.spaces.split(",")
    results: list[dict] = []
    if args.truth_from:
        with open(args.truth_from) as handle:
            results = [
                r
                for r in json.load(handle)["runs"]
                if r["sampler"] == "mc" and r["space"] in spaces
            ]
    tasks = [
        (s, "mc", args.truth_shots, 0, None)
        for s in spaces
        if not any(r["space"] == s for r in results)
    ]
    tasks += [
        (s, "rqmc", 1000, args.first_seed + k, args.precision)
        for s in spaces
        for k in range(args.repetitions)
    ]
    start = time.perf_counter()
    with process_pool(args.workers) as pool:  # submitted space by space: usable when cut short
        futures = [
            pool.submit(_measure, *task)
            for task in sorted(tasks, key=lambda t: (spaces.index(t[0]), t[1] == "rqmc", t[3]))
        ]
        for future in as_completed(futures):
            results.append(future.result())
            write(args, spaces, results, time.perf_counter() - start)
    print(json.dumps(write(args, spaces, results, time.perf_counter() - start), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
