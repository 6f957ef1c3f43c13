"""MuJoCo Warp's batch against MuJoCo on the CPU (the GPU path; docs/gpu.md): shots per
second of a space's batch on whatever device Warp picks (``--device cpu|cuda``).

At each of a few spaces of the stock board, one piggy alone, aimed at by the solver
(low arc) as ``piggy hitmap`` aims and fired at by the ``child`` aimer with the hit
map's seeds (plain Monte Carlo): the same shots fired by
:class:`~sim.physics.mujoco.world.MujocoWorld` (as hit maps use it: the bale's early
verdict) and as one batch of :class:`~sim.physics.warp.batch.WarpBatch` worlds.
Per space: P(target) of each with Wilson's interval, the paired difference
(Newcombe's interval, exact McNemar) and each one's shots per second, wall and CPU
time of this process. Shot by shot the two are not expected to agree at the knife
edge (MuJoCo Warp computes in float32 and collides with its own code): they are
compared by P. Each space's batch is fired once untimed first (Warp compiles its
kernels on a batch's first steps, cached on disk after), so the figure is the
steady rate; the batch's shots carry the CPU engine's columns (strikes, first
struck, ricochets: the counts of shots with a strike are printed for each).

Runs on the CPU device where no GPU is present (small ``--shots``); with a GPU,
``--device cuda`` and a few thousand shots a space.

    python scripts/bench_warp.py --shots 64 --spaces r0c3,r2c1,r7c3 [--device cpu]

(``--sampler rqmc``: the hit map's RQMC points instead of its seeds; Wilson's
interval is then conservative.)
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.stats import paired_difference, wilson_interval
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.warp.batch import WarpBatch, default_device
from sim.studies.shots.space_firing import aim_at_space
from sim.studies.shots.space_shots import SweepSpec
from sim.studies.shots.warp_space import space_shots

SPACES = ("r0c3", "r2c1", "r7c3")


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def bench_space(
    world: MujocoWorld, batch: WarpBatch, name: str, shots: int, seed: int, sampler: str
) -> dict:
    """One space's shots by both engines, and how they compare."""
    aimer = load_aimer("child")
    spec = SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=(name,),
        shots=shots,
        seed=seed,
        aimer=aimer,
        sampler=sampler,
        engine="mujoco",
    )
    target, aim = aim_at_space(world, spec, name)
    if aim is None:
        return {"space": name, "reachable": False}
    noises = space_shots(spec, name, aim)
    start = _clock()
    cpu = [world.shoot(shot) for shot in noises]
    cpu_wall, cpu_cpu = _since(start)
    batch.fire(noises[:2])  # compiled, warm
    start = _clock()
    warp = batch.fire(noises)
    warp_wall, warp_cpu = _since(start)
    a = np.array([target in r.knocked for r in cpu])
    b = np.array([target in r.knocked for r in warp])
    diff = paired_difference(a, b)
    row: dict = {"space": name, "reachable": True, "shots": len(noises), "sampler": sampler}
    for label, hits, wall, used in (
        ("mujoco_cpu", a, cpu_wall, cpu_cpu),
        ("warp_batch", b, warp_wall, warp_cpu),
    ):
        low, high = wilson_interval(int(hits.sum()), len(noises))
        row[label] = {
            "p": round(float(hits.mean()), 4),
            "ci": [round(low, 4), round(high, 4)],
            "shots_per_s_wall": round(len(noises) / wall, 3),
            "shots_per_s_cpu": round(len(noises) / used, 3),
        }
    row["warp_settled"] = sum(r.settled for r in warp)
    row["struck_something"] = {
        "mujoco_cpu": sum(bool(r.contacts) for r in cpu),
        "warp_batch": sum(bool(r.contacts) for r in warp),
    }
    row["warp_mean_sim_time_s"] = round(float(np.mean([r.sim_time_s for r in warp])), 3)
    row["warp_batch_sim_time_s"] = round(max(r.sim_time_s for r in warp), 3)
    row["cpu_mean_sim_time_s"] = round(float(np.mean([r.sim_time_s for r in cpu])), 3)
    row["same_verdict"] = int(np.sum(a == b))
    row["difference"] = {
        "warp_minus_cpu": round(diff.diff, 4),
        "ci": [round(diff.diff_ci_low, 4), round(diff.diff_ci_high, 4)],
        "cpu_only": diff.a_only,
        "warp_only": diff.b_only,
        "mcnemar_p": round(diff.p_value, 4),
    }
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=64, help="shots a space (64)")
    parser.add_argument("--spaces", default=",".join(SPACES), help="stock spaces, comma separated")
    parser.add_argument("--seed", type=int, default=0, help="the hit map's root seed (0)")
    parser.add_argument("--sampler", default="mc", help="mc (the seeds) or rqmc (mc)")
    parser.add_argument(
        "--device", choices=("cpu", "cuda"), default=None, help="cpu or cuda (cuda where present)"
    )
    args = parser.parse_args()
    device = default_device(args.device)
    world = MujocoWorld(load_board("stock"), load_design("stock"), bale_to_rest=False)
    start = _clock()
    batch = WarpBatch(world, device=device)
    model_wall, _ = _since(start)
    rows = []
    for name in args.spaces.split(","):
        row = bench_space(world, batch, name, args.shots, args.seed, args.sampler)
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(
        json.dumps(
            {"device": device, "put_model_s": round(model_wall, 2), "spaces": rows}, indent=1
        )
    )


if __name__ == "__main__":
    main()
