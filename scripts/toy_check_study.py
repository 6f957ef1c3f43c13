"""The figures of docs/real-toy.md, "Checking the sandbox's knock-outs": the check
on two sandbox films, and its error rates by simulation.

    python scripts/toy_check_study.py [--shots 40] [--refires 200] [--workers 2]
        [--trials 2000] [--out /tmp/toy-check]

1. Angles aimed at the crowded layout's piggies in turn, read to the degree; a film
   of the stock design and one of stock with 4x heavier piggies, fired with the same
   seeds (so the same launches: angles and speeds); both written as CSV to ``--out``.
2. The stock sandbox's re-fires at those launches (the check's own firing, timed:
   CPU seconds of this process and its workers), and the heavy toy's, as many: the
   true difference is the mean over piggy-shots of P(heavy) - P(stock).
3. The check of each film, and a simulation of the check's error rates with the
   sandbox's own outcome distributions at those launches (each shot's re-fires, its
   piggies falling together as they did): a film and re-fires drawn from the stock
   sandbox's give the false-rejection rate; a film from the heavy toy's gives the
   power and how often ΔP's interval holds the true difference.
"""

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

from models.board import load_board
from models.design import load_design
from models.layout import load_layout
from sim.studies.calibrating.knocked_csv import parse_knocked_shots
from sim.studies.calibrating.knocked_shots import aimed_angles, heavier_piggies, sandbox_film_csv
from sim.studies.calibrating.toy_check import CheckSpec, fire_refires, judged, launches_of
from sim.studies.calibrating.toy_check_report import format_check, verdict
from sim.studies.calibrating.toy_check_stats import check_statistics
from sim.views.toy_check_picture import save_check_plot


def cpu_s() -> float:
    """CPU seconds of this process and its finished workers."""
    own, workers = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def simulate(truth: np.ndarray, sandbox: np.ndarray, refires: int, trials: int, seed: int):
    """The check ``trials`` times with a film drawn from ``truth``'s re-fires and the
    sandbox's from ``sandbox``'s (shots, re-fires, piggies), each a draw with
    replacement of whole re-fires; (rejected, interval held the true difference)."""
    rng = np.random.default_rng(seed)
    shots, pool, piggies = sandbox.shape
    true_delta = float((truth.mean(axis=1) - sandbox.mean(axis=1)).mean())
    seen = np.ones((shots, piggies), bool)
    rows = np.arange(shots)[:, None]
    rejected, held = [], []
    for _ in range(trials):
        film = truth[np.arange(shots), rng.integers(0, truth.shape[1], shots)]
        fired = sandbox[rows, rng.integers(0, pool, (shots, refires))]
        stats = check_statistics(fired, film, seen)
        lo, hi = stats.delta_p_interval
        rejected.append(stats.rejected)
        held.append(lo <= true_delta <= hi)
    return float(np.mean(rejected)), float(np.mean(held)), true_delta


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=40)
    parser.add_argument("--refires", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--out", default="/tmp/toy-check")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    board, layout, stock = load_board("stock"), load_layout("crowded"), load_design("stock")
    heavy = heavier_piggies(stock, 4.0)
    angles = aimed_angles(board, stock, layout, args.shots)
    piggies = sorted(layout.piggies)
    films = {}
    for name, toy in (("stock", stock), ("heavy", heavy)):
        text = sandbox_film_csv(toy, board, layout, angles, seed=7)
        (out / f"film-{name}.csv").write_text(text)
        films[name] = parse_knocked_shots(text, piggies, source=f"film-{name}.csv")
    figures: dict = {}
    fired = {}
    for name, design in (("stock", stock), ("heavy", heavy)):
        spec = CheckSpec(board, design, layout, args.refires, seed=0)
        launches = launches_of(films["stock"], design)  # the same launches in both films
        cpu, wall = cpu_s(), time.perf_counter()
        fired[name] = fire_refires(spec, launches, args.workers)
        figures[f"refires_{name}"] = {
            "cpu_s": round(cpu_s() - cpu, 1),
            "wall_s": round(time.perf_counter() - wall, 1),
        }
        np.save(out / f"refires-{name}.npy", fired[name])
    for name, film in films.items():
        check = judged(film, CheckSpec(board, stock, layout, args.refires), fired["stock"])
        save_check_plot(check, out / f"check-{name}.png")
        (out / f"check-{name}.txt").write_text(format_check(check) + "\n")
        figures[f"check_{name}_film"] = check.statistics.to_dict() | {
            "verdict": verdict(check.statistics)
        }
    for name, truth in (("size", fired["stock"]), ("heavy", fired["heavy"])):
        rate, held, true_delta = simulate(truth, fired["stock"], args.refires, args.trials, 1)
        figures[f"simulated_{name}"] = {
            "trials": args.trials,
            "rejection_rate": rate,
            "interval_held_true_delta": held,
            "true_delta_p": true_delta,
        }
    (out / "figures.json").write_text(json.dumps(figures, indent=1, default=str))
    print(json.dumps(figures, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
