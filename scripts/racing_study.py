"""How ``design optimise``'s race prunes, replayed on shots already fired.

    python scripts/racing_study.py A_SHOTS B_SHOTS [--races 80] [--seed 1]

A_SHOTS and B_SHOTS are two designs' per-shot files of RQMC hit maps of the whole
board fired without ``--precision`` at one seed (``piggy hitmap --design A --sampler
rqmc --shots 1280 --per-shot``). Each race takes an incumbent (A at a block of the
search's fidelity on the whole board: a point of every scramble, 10 shots a space)
and a trial on the same points, reports the spaces in a shuffled order, and prunes as Optuna's
``WilcoxonPruner`` does with the search's threshold and start
(sim/studies/optimising/racing.py): the one-sided signed-rank test of the paired differences so
far, no prune while the trial's mean so far is at least the incumbent's. The trials:
A made worse by 0.06 and by 0.03 (each hit dropped with the chance that takes P down
so much, on the same points), and B as it is. Printed: for each trial and each
threshold, the share of races pruned and the spaces fired when they were.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from paired_rule_study import read_hits
from scipy import stats

from sim.studies.optimising import racing

#: (p-value threshold, spaces before a prune): the search's, and others for contrast.
SETTINGS = [(0.1, 2), (0.05, racing.PRUNE_AFTER), (racing.PRUNE_P, racing.PRUNE_AFTER)]


def race(incumbent: dict, trial: dict, order: list, threshold: float, after: int) -> int | None:
    """The spaces fired when the trial is pruned (None: never)."""
    diffs: list[float] = []
    best_mean = float(np.mean(list(incumbent.values())))
    for fired, space in enumerate(order, start=1):
        diffs.append(trial[space] - incumbent[space])
        if fired < max(2, after):
            continue
        p = stats.wilcoxon(diffs, alternative="less", zero_method="zsplit").pvalue
        if p < threshold and best_mean > np.mean([trial[s] for s in order[:fired]]):
            return fired
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--races", type=int, default=80)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    a_hits, b_hits = read_hits(args.a), read_hits(args.b)
    spaces = sorted(s for s in a_hits if s in b_hits)
    rng = np.random.default_rng(args.seed)
    width = 1  # the search's fidelity on the whole board: a point of every scramble
    blocks = a_hits[spaces[0]].shape[1] // width
    trials = {"A worse by 0.06": 0.06, "A worse by 0.03": 0.03, "B": None}
    out: dict = {}
    for threshold, after in SETTINGS:
        for label, shift in trials.items():
            pruned_at = []
            for _ in range(args.races):
                block = int(rng.integers(blocks))
                points = {s: a_hits[s][:, width * block : width * (block + 1)] for s in spaces}
                incumbent = {s: float(h.mean()) for s, h in points.items()}
                if shift is None:
                    trial = {
                        s: float(b_hits[s][:, width * block : width * (block + 1)].mean())
                        for s in spaces
                    }
                else:
                    trial = {
                        s: float(
                            (
                                h & (rng.random(h.shape) >= min(1.0, shift / max(h.mean(), 1e-9)))
                            ).mean()
                        )
                        for s, h in points.items()
                    }
                pruned_at.append(
                    race(incumbent, trial, list(rng.permutation(spaces)), threshold, after)
                )
            fired = [n for n in pruned_at if n is not None]
            out[f"p {threshold:g} after {after}: {label}"] = {
                "pruned": len(fired) / args.races,
                "spaces_fired_when_pruned": float(np.mean(fired)) if fired else None,
            }
    b_minus_a = float(np.mean([b_hits[s].mean() - a_hits[s].mean() for s in spaces]))
    out["B - A over all the shots"] = round(b_minus_a, 4)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
