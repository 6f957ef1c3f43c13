"""The sequential paired rule of ``design compare`` measured: its error rates on
synthetic comparisons, and on the physics, replayed on shots already fired.

    python scripts/paired_rule_study.py synthetic [--reps 400]
    python scripts/paired_rule_study.py physics A_SHOTS B_SHOTS [--reference A_REF B_REF]
        [--delta 0.05] [--cap 1000]

``synthetic``: family-wise false flags where nothing differs (near-identical
designs, 5 % of pairs discordant, and very different ones, 40 %), with the rule and
with one that tests every look uncorrected; the reported intervals' coverage, all
and flagged, where spaces differ by 0 to 4δ; the power at 2δ; the pairs a space
took (models/sequential.py ``simulate``).

``physics``: A_SHOTS and B_SHOTS are two designs' per-shot files of RQMC hit maps
fired without ``--precision`` at the same seed (``piggy hitmap --design A --sampler
rqmc --shots 1280 --per-shot``: 10 scrambles of 128 points a space). The rule fires
the first points of every scramble, so its run is replayed exactly by truncating
them: per space the pairs it took, why it stopped, its difference and interval, and
the flags (Holm). With ``--reference`` (the same, at another seed), each space's
reference difference over all its pairs: whether each flag's sign agrees, and how
often the intervals hold it. Also the assumption the rule makes of RQMC's points:
the variance of the paired difference over the scrambles against independent
pairs', at 16 to 128 points a scramble.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections import defaultdict

import numpy as np

from models.sequential import (
    PairedRule,
    coverage,
    false_flag_rate,
    pair_chances,
    simulate,
)
from models.stats import Z_95, holm, tango_interval

#: Spaces compared together in the synthetic comparisons: the stock board's.
SPACES = 68


class Uncorrected(PairedRule):
    """Every look tested as if it were the only one."""

    @property
    def z(self) -> float:
        return Z_95

    @property
    def flag_level(self) -> float:
        return self.alpha / self.spaces

    def p_value(self, p_values: list[float]) -> float:
        return min(p_values)


def synthetic(reps: int, delta: float, cap: int) -> dict:
    rule = PairedRule(cap=cap, delta=delta, spaces=SPACES)
    naive = Uncorrected(cap=cap, delta=delta, spaces=SPACES)
    out: dict = {"looks": list(rule.looks()), "z": rule.z, "flag_level": rule.flag_level}
    for name, disc in (("near-identical, 5 % discordant", 0.05), ("very different, 40 %", 0.4)):
        chances = [pair_chances(0.5, disc, 0.0)] * SPACES
        for label, r in (("rule", rule), ("uncorrected", naive)):
            results = simulate(r, chances, reps, seed=1)
            out[f"false flags, {name}, {label}"] = false_flag_rate(results, [0.0] * SPACES)
            if label == "rule":
                pairs = [s.last.shots for c in results for s in c]
                out[f"pairs a space, {name}"] = float(np.mean(pairs))
    for disc in (0.05, 0.1, 0.3):
        diffs = [d for d in (0.0, delta / 2, delta, 2 * delta, 4 * delta) if d <= disc] * 8
        r = PairedRule(cap=cap, delta=delta, spaces=len(diffs))
        results = simulate(r, [pair_chances(0.5, disc, d) for d in diffs], reps // 4, seed=2)
        out[f"coverage, {disc:g} discordant"] = coverage(results, diffs)
        out[f"coverage of flags, {disc:g} discordant"] = coverage(results, diffs, True)
    for disc in (2 * delta, 0.2, 0.3):  # a space 2δ apart is discordant on 2δ at least
        chances = [pair_chances(0.5, disc, 2 * delta)]
        chances += [pair_chances(0.5, 0.05, 0.0)] * (SPACES - 1)
        results = simulate(rule, chances, reps // 4, seed=3)
        found = [c[0].flagged and c[0].last.diff > 0 for c in results]
        out[f"power at 2 delta, {disc:g} discordant"] = float(np.mean(found))
        out[f"pairs to it at 2 delta, {disc:g} discordant"] = float(
            np.mean([c[0].last.shots for c in results])
        )
    return out


def read_hits(path: str) -> dict[str, np.ndarray]:
    """A per-shot CSV's target_knocked by space, as (scrambles, points)."""
    rows: dict[str, list[dict]] = defaultdict(list)
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            rows[row["space"]].append(row)
    out = {}
    for space, shots in rows.items():
        scrambles = 1 + max(int(r["scramble"]) for r in shots)
        hits = np.zeros((scrambles, len(shots) // scrambles), bool)
        for r in shots:
            hits[int(r["scramble"]), int(r["point"])] = r["target_knocked"] in ("True", "true")
        out[space] = hits
    return out


def replay(rule: PairedRule, a: np.ndarray, b: np.ndarray):
    """The rule's looks at two designs' (scrambles, points) outcomes at a space."""
    scrambles, p_values = a.shape[0], []
    for pairs in rule.looks():
        x, y = a[:, : pairs // scrambles].ravel(), b[:, : pairs // scrambles].ravel()
        both, a_only, b_only = int(np.sum(x & y)), int(np.sum(x & ~y)), int(np.sum(~x & y))
        at = rule.look(both, a_only, b_only, x.size - both - a_only - b_only)
        p_values.append(at.p_value)
        stop = rule.stop(at)
        if stop:
            return stop, at, rule.p_value(p_values)
    raise ValueError("fewer points than the rule's cap: fire more, or lower --cap")


def variance_ratio(a: np.ndarray, b: np.ndarray, points: int) -> float | None:
    """The paired difference's variance over the scrambles (its mean's) against
    independent pairs' (the paired binomial's), at ``points`` a scramble."""
    x, y = a[:, :points], b[:, :points]
    means = y.mean(axis=1) - x.mean(axis=1)
    discordant = float(np.mean(x != y))
    diff = float(means.mean())
    independent = (discordant - diff * diff) / x.size
    return float(means.var(ddof=1) / len(means)) / independent if independent > 0 else None


def physics(args) -> dict:
    a_hits, b_hits = read_hits(args.a), read_hits(args.b)
    spaces = [s for s in a_hits if s in b_hits]
    rule = PairedRule(cap=args.cap, delta=args.delta, spaces=len(spaces), streams=10)
    replayed = {s: replay(rule, a_hits[s], b_hits[s]) for s in spaces}
    adjusted = dict(zip(spaces, holm([replayed[s][2] for s in spaces]), strict=True))
    stops: dict[str, int] = defaultdict(int)
    for stop, _, _ in replayed.values():
        stops[stop] += 1
    pairs = [at.shots for _, at, _ in replayed.values()]
    out: dict = {
        "delta": args.delta,
        "cap": args.cap,
        "spaces": len(spaces),
        "pairs_a_space": float(np.mean(pairs)),
        "shots_both_designs": 2 * int(np.sum(pairs)),
        "stops": dict(stops),
        "discordant_median": float(np.median([np.mean(a_hits[s] != b_hits[s]) for s in spaces])),
        "flags": {
            s: [round(at.diff, 4), round(at.diff_ci_low, 4), round(at.diff_ci_high, 4), at.shots]
            for s, (_, at, _) in replayed.items()
            if adjusted[s] < rule.alpha
        },
    }
    ratios = {}
    for points in (16, 32, 64, 128):
        found = [variance_ratio(a_hits[s], b_hits[s], points) for s in spaces]
        kept = [r for r in found if r is not None]
        if kept and a_hits[spaces[0]].shape[1] >= points:
            ratios[points] = [round(float(np.median(kept)), 3), round(float(np.mean(kept)), 3)]
    out["rqmc_variance_ratio_median_mean"] = ratios
    if args.reference:
        out["reference"] = against_reference(args, spaces, replayed, adjusted, rule.alpha)
    return out


def against_reference(args, spaces, replayed, adjusted, alpha) -> dict:
    """Each space's difference over every pair of the reference files (another seed):
    its 95 % interval (Tango's); whether each flag's sign is the reference's, and how
    often the rule's intervals hold the reference difference."""
    a_ref, b_ref = read_hits(args.reference[0]), read_hits(args.reference[1])
    agree, against, held, reference_flags = 0, [], 0, []
    for space in spaces:
        x, y = a_ref[space].ravel(), b_ref[space].ravel()
        a_only, b_only = int(np.sum(x & ~y)), int(np.sum(~x & y))
        diff = (b_only - a_only) / x.size
        low, high = tango_interval(a_only, b_only, x.size)
        if low > 0 or high < 0:
            reference_flags.append(space)
        _, at, _ = replayed[space]
        held += at.diff_ci_low <= diff <= at.diff_ci_high
        if adjusted[space] < alpha:
            if math.copysign(1, at.diff) == math.copysign(1, diff) and (low > 0 or high < 0):
                agree += 1
            else:
                against.append([space, round(at.diff, 4), round(diff, 4), [low, high]])
    return {
        "flags_the_reference_confirms": agree,
        "flags_it_does_not": against,
        "reference_spaces_apart_at_95": len(reference_flags),
        "intervals_holding_the_reference_difference": held / len(spaces),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("synthetic", "physics"))
    parser.add_argument("a", nargs="?")
    parser.add_argument("b", nargs="?")
    parser.add_argument("--reference", nargs=2, metavar=("A_REF", "B_REF"))
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--cap", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    if args.what == "synthetic":
        result = synthetic(args.reps, args.delta, args.cap)
    else:
        if not (args.a and args.b):
            parser.error("physics needs A_SHOTS and B_SHOTS")
        result = physics(args)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
