"""Time to an answer: the bench's ``answer`` section (``scripts/bench.py --only answer``).

- ``answer_seconds``: the whole stock board, a child aiming, every space to ±precision
  (default 0.05), 2 workers, the default sampler (RQMC), cold (no cache, fresh worker
  processes, worlds built on the clock);
- ``answer_shots``: the shots it fired; ``answer_max_half_width``: its widest interval;
- ``answer_seconds_mujoco``, ``answer_shots_mujoco``: the same board in MuJoCo, in the
  same run, where it is installed (issue 32);
- ``answer_mc_shots``: what plain Monte Carlo's rule (batches of 20 until the Wilson
  interval is within ±precision) fires on average to the same precision at each
  space's measured P, summed (exact: models/stats.py, ``sequential_bias``);
- ``compare_seconds``, ``compare_shots``: stock against fast-spring by ``design
  compare``'s default rule (the board mean, δ half the precision), cold, with its
  verdict, the mean's interval's width (``compare_width``), where the rule stopped
  (``compare_mean_rule``) and the flagged spaces: P_A, P_B, the difference, its
  interval, the Holm-adjusted p; the same with ``--budget 20``
  (``compare_budget_seconds``, ``compare_budget_width``, ...), stock against
  docs/examples/wide-bale.toml (``compare_gain_*``: a clear gain) and against a copy
  of itself under another name (``compare_null_*``);
- ``optimise_seconds``, ``optimise_shots``: ``piggy design optimise stock``, cold (a
  process of its own, a new study and cache), 20 trials on the answer's spaces,
  ``mean-p``, 2 workers, its defaults otherwise (low fidelity, racing, two trials at
  full precision, the verification), for each search of :data:`SEARCHES`; the shots
  count the search's, the full precision's and the verification's, and
  ``optimise_found`` says what each found and whether the verification detected it;
- ``shots_per_s_child``: one core, a lone piggy at r0c3, a child aiming, plain Monte
  Carlo shots after a warm-up (the engine's speed, whatever the sampler).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import design_from_dict, design_toml, load_design
from models.stats import sequential_bias
from sim.physics.registry import installed
from sim.studies.comparing import design_tools
from sim.studies.comparing.comparison_rule import comparison_rule
from sim.studies.maps import hitmap
from sim.studies.shots import space_firing, space_shots

#: Shots a space at most (as ``piggy hitmap --precision`` without ``--shots``).
CAP = 1000
#: The design searches timed: two fields each (the bale's size; the spring's speed and
#: the pivot's height), within the fields' allowed ranges.
SEARCHES = {
    "bale": ["--param", "bale.width_mm=4:12", "--param", "bale.length_mm=8:16"],
    "speed-pivot": ["--param", "muzzle_speed=1500:3000", "--param", "pivot_height=40:120"],
}


def board_spec(
    precision: float, spaces: tuple | None = None, cap: int = CAP
) -> space_shots.SweepSpec:
    """The answer's sweep: ``spaces`` (default: every space of the stock board), at
    most ``cap`` shots a space."""
    board = load_board("stock")
    return space_shots.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=spaces or tuple(space_name(s) for s in board.spaces),
        shots=cap,
        aimer=load_aimer("child"),
        precision=precision,
        sampler="rqmc",
    )


def timed_board(spec: space_shots.SweepSpec, workers: int) -> tuple[float, list[dict]]:
    """The board's sweep, cold: (wall seconds, rows)."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        rows = hitmap.sweep(spec, Path(folder) / "board.csv", "csv", workers=workers)
        return time.perf_counter() - start, rows


def bench_answer(
    precision: float = 0.05,
    workers: int = 2,
    child_shots: int = 100,
    spaces: tuple | None = None,
    quiet: bool = False,
    trials: int = 20,
    cap: int = CAP,
) -> dict:
    """The answer section's figures (see the module's docstring); ``cap``: the most
    shots a space in every part (fewer than :data:`CAP` make a quick run whose
    figures are not the product's)."""
    spec = board_spec(precision, spaces, cap)
    answer_seconds, rows = timed_board(spec, workers)
    reached = [r for r in rows if r["reachable"]]
    mc_shots = sum(
        sequential_bias(r["p_target"], precision, space_shots.BATCH, cap)[1] for r in reached
    )
    figures = {
        "answer_seconds": round(answer_seconds, 1),
        "answer_shots": sum(r["shots"] for r in reached),
        "answer_mc_shots": round(mc_shots),
        "answer_max_half_width": round(
            max((r["p_target_ci_high"] - r["p_target_ci_low"]) / 2 for r in reached), 4
        ),
    }
    if not quiet:
        print(
            f"whole board to ±{precision:g}, {workers} workers, rqmc: "
            f"{figures['answer_seconds']} s, {figures['answer_shots']} shots "
            f"(plain Monte Carlo: {figures['answer_mc_shots']} expected), widest "
            f"±{figures['answer_max_half_width']}",
            flush=True,
        )
    if installed("mujoco"):
        seconds, mujoco_rows = timed_board(dataclasses.replace(spec, engine="mujoco"), workers)
        figures["answer_seconds_mujoco"] = round(seconds, 1)
        figures["answer_shots_mujoco"] = sum(r["shots"] for r in mujoco_rows if r["reachable"])
        if not quiet:
            print(
                f"the same in MuJoCo: {figures['answer_seconds_mujoco']} s, "
                f"{figures['answer_shots_mujoco']} shots",
                flush=True,
            )
    figures.update(bench_compare(spec, workers, quiet))
    figures.update(bench_optimise(trials, spec.spaces if spaces else None, workers, quiet, cap))
    child = space_shots.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=("r0c3",),
        shots=child_shots,
        aimer=load_aimer("child"),
        sampler="mc",  # the shots a second as measured before RQMC was the default
    )
    space_firing.run_space(child, "r0c3")  # the world built and warm
    start = time.perf_counter()
    space_firing.run_space(child, "r0c3")
    figures["shots_per_s_child"] = round(child_shots / (time.perf_counter() - start), 1)
    if not quiet:
        print(f"child-aimed shots, one core: {figures['shots_per_s_child']} a second")
    return figures


#: The comparisons timed besides stock against fast-spring: a clear gain (the wider
#: bale, +0.04 on average) and a design against its own copy under another name.
GAIN = Path(__file__).resolve().parent.parent / "docs" / "examples" / "wide-bale.toml"
#: The budget of the budgeted comparison, seconds.
BUDGET_S = 20.0


def timed_compare(spec, designs, workers: int, budget_s: float | None = None) -> tuple:
    """One comparison by ``design compare``'s default rule, cold: (seconds, shots, the
    comparison)."""
    board = load_board("stock")
    rule = comparison_rule(spec, budget_s=budget_s)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        _, comparisons, maps = design_tools.compare_designs(
            spec, board, designs, workers, Path(folder), None, rule
        )
        seconds = round(time.perf_counter() - start, 1)
    return seconds, sum(int(r["shots"] or 0) for m in maps for r in m), comparisons[0]


def bench_compare(spec, workers: int, quiet: bool) -> dict:
    """stock against fast-spring by the default rule (and with a budget), against the
    wider bale, and against its own copy (see the module's docstring)."""
    stock = load_design("stock")
    twin = design_from_dict(
        tomllib.loads(design_toml(stock)) | {"name": "stock-copy"}, source="a copy"
    )
    runs = {
        "compare": timed_compare(spec, [stock, load_design("fast-spring")], workers),
        "compare_budget": timed_compare(
            spec, [stock, load_design("fast-spring")], workers, BUDGET_S
        ),
        "compare_gain": timed_compare(spec, [stock, load_design(str(GAIN))], workers),
        "compare_null": timed_compare(spec, [stock, twin], workers),
    }
    figures: dict = {}
    for name, (seconds, shots, comparison) in runs.items():
        _, low, high = comparison.mean_diff
        figures |= {
            f"{name}_seconds": seconds,
            f"{name}_shots": shots,
            f"{name}_verdict": comparison.verdict,
            f"{name}_width": round(high - low, 4),
            f"{name}_mean_rule": comparison.to_dict().get("mean_rule"),
            f"{name}_significant": {
                r.space: [r.p_a, r.p_b, r.diff, r.diff_ci_low, r.diff_ci_high, r.p_value_adjusted]
                for r in comparison.spaces
                if r.significant
            },
        }
        if not quiet:
            print(f"{name}: {seconds} s, {shots} shots; {comparison.verdict}", flush=True)
    return figures


def bench_optimise(
    trials: int, spaces: tuple | None, workers: int, quiet: bool, cap: int = CAP
) -> dict:
    """Each search of :data:`SEARCHES` as a user runs it, cold: its seconds, its
    shots, and what it found (see the module's docstring)."""
    out: dict = {"optimise_seconds": {}, "optimise_shots": {}, "optimise_found": {}}
    for name, params in SEARCHES.items():
        with tempfile.TemporaryDirectory() as folder:
            argv = [*params, "--trials", str(trials), "--workers", str(workers), "--json"]
            argv += ["--shots", str(cap)]
            argv += ["--storage", f"sqlite:///{folder}/study.db", "--cache", f"{folder}/cache"]
            argv += ["--out", f"{folder}/best.toml"]
            if spaces:
                argv += ["--spaces", ",".join(spaces)]
            start = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "sim.cli", "design", "optimise", "stock", *argv],
                capture_output=True,
                text=True,
                check=True,
            )
            seconds = round(time.perf_counter() - start, 1)
        data = json.loads(run.stdout)
        verification = data["verification"] or {}
        out["optimise_seconds"][name] = seconds
        out["optimise_shots"][name] = sum(data["shots"].values())
        out["optimise_found"][name] = {
            "best": (data["best"] or {}).get("params"),
            "pruned_trials": data["pruned_trials"],
            "infeasible": data["infeasible"],
            "shots": data["shots"],
            "verification": verification.get("conclusion"),
        }
        if not quiet:
            print(
                f"design optimise stock, {name}, {trials} trials: {seconds} s, "
                f"{out['optimise_shots'][name]} shots; {verification.get('conclusion')}",
                flush=True,
            )
    return out
