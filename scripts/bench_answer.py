"""Time to an answer: the bench's ``answer`` section (``scripts/bench.py --only answer``).

- ``answer_seconds``: the whole stock board, a child aiming, every space to ±precision
  (default 0.05), 2 workers, the default sampler (RQMC), cold (no cache, fresh worker
  processes, worlds built on the clock);
- ``answer_shots``: the shots it fired; ``answer_max_half_width``: its widest interval;
- ``answer_mc_shots``: what plain Monte Carlo's rule (batches of 20 until the Wilson
  interval is within ±precision) fires on average to the same precision at each
  space's measured P, summed (exact: models/stats.py, ``sequential_bias``);
- ``compare_seconds``: stock against fast-spring, paired, to the same precision, cold
  (with its verdict, and the significant spaces: P_A, P_B, the difference, its
  interval, the Holm-adjusted p);
- ``shots_per_s_child``: one core, a lone piggy at r0c3, a child aiming, plain Monte
  Carlo shots after a warm-up (the engine's speed, whatever the sampler).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import load_design
from models.stats import sequential_bias
from sim.studies import design_tools, hitmap

#: Shots a space at most (as ``piggy hitmap --precision`` without ``--shots``).
CAP = 1000


def board_spec(precision: float, spaces: tuple | None = None) -> hitmap.SweepSpec:
    """The answer's sweep: ``spaces`` (default: every space of the stock board)."""
    board = load_board("stock")
    return hitmap.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=spaces or tuple(space_name(s) for s in board.spaces),
        shots=CAP,
        aimer=load_aimer("child"),
        precision=precision,
        sampler="rqmc",
    )


def bench_answer(
    precision: float = 0.05,
    workers: int = 2,
    child_shots: int = 100,
    spaces: tuple | None = None,
    quiet: bool = False,
) -> dict:
    """The answer section's figures (see the module's docstring)."""
    spec = board_spec(precision, spaces)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        rows = hitmap.sweep(spec, Path(folder) / "board.csv", "csv", workers=workers)
        answer_seconds = time.perf_counter() - start
    reached = [r for r in rows if r["reachable"]]
    mc_shots = sum(sequential_bias(r["p_target"], precision, hitmap.BATCH, CAP)[1] for r in reached)
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
    board = load_board("stock")
    designs = [load_design("stock"), load_design("fast-spring")]
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        _, comparisons, _ = design_tools.compare_designs(
            spec, board, designs, workers, Path(folder)
        )
        figures["compare_seconds"] = round(time.perf_counter() - start, 1)
    figures["compare_verdict"] = comparisons[0].verdict
    figures["compare_significant"] = {
        r["space"]: [
            r["p_a"],
            r["p_b"],
            r["diff"],
            r["diff_ci_low"],
            r["diff_ci_high"],
            r["p_value_adjusted"],
        ]
        for r in (row.to_dict() for row in comparisons[0].spaces)
        if r["significant"]
    }
    if not quiet:
        print(
            f"stock against fast-spring, paired, to ±{precision:g}: {figures['compare_seconds']} s",
            flush=True,
        )
    child = hitmap.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=("r0c3",),
        shots=child_shots,
        aimer=load_aimer("child"),
    )
    hitmap.run_space(child, "r0c3")  # the world built and warm
    start = time.perf_counter()
    hitmap.run_space(child, "r0c3")
    figures["shots_per_s_child"] = round(child_shots / (time.perf_counter() - start), 1)
    if not quiet:
        print(f"child-aimed shots, one core: {figures['shots_per_s_child']} a second")
    return figures
