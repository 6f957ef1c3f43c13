"""A piggy of our own against the stock one, timed (issue 25: a piggy of up to about
16 convex parts may not slow a child's shot by more than about 25 %).

Each of :data:`bench_child.SPACES` of the stock board holds one piggy alone, aimed at
by the solver (low arc) and fired at by the ``child`` aimer with the hit map's seeds,
as ``piggy hitmap`` fires (the bale's early verdict on). Every variant fires the same
seeded shots, taking turns shot by shot (each goes first as often), timed in CPU
time of this process; each own piggy's time a shot is reported against the stock
piggy's, with its convex parts and their hulls' vertices (both cost Bullet). The own
piggies' parts are made (CoACD, cached in the user cache) before any timing.

The own piggies: the example models/designs/wide-piggy.toml as shipped, and its
mesh split finer into :data:`PARTS_CAP` parts (``mesh_threshold``
:data:`FINE_THRESHOLD`); or ``--own-piggy-design``, any design with a piggy mesh,
as given (``scripts/make_wide_piggy.py --grid`` makes the example as a dense export).
"""

from __future__ import annotations

import dataclasses
import time

from bench_child import SPACES

from models.aimer import load_aimer
from models.board import load_board
from models.design import Design, load_design
from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.studies.shots.space_shots import TARGET, shot_seed

#: The example design with an own piggy.
EXAMPLE = "wide-piggy"
#: The most convex parts the issue's speed limit covers.
PARTS_CAP = 16
#: CoACD's concavity threshold that splits the example into PARTS_CAP parts.
FINE_THRESHOLD = 0.02
#: The slow-down per shot the issue allows a piggy of up to PARTS_CAP parts.
ALLOWED_SLOWDOWN = 0.25


def own_piggy_designs(design: str | None) -> dict[str, Design]:
    """Label -> design of every own-piggy variant (see the module's docstring)."""
    if design is not None:
        given = load_design(design)
        return {f"{given.name} as given": given}
    example = load_design(EXAMPLE)
    finer = dataclasses.replace(
        example.piggy, mesh_threshold=FINE_THRESHOLD, mesh_max_parts=PARTS_CAP
    )
    return {
        f"{EXAMPLE} as shipped": example,
        f"{EXAMPLE}, threshold {FINE_THRESHOLD:g}": dataclasses.replace(example, piggy=finer),
    }


def bench_own_piggy(per_space: int, design: str | None, quiet: bool) -> dict:
    """``per_space`` child's shots at each space, with the stock piggy and each own one."""
    board = load_board("stock")
    designs = {"stock piggy": load_design("stock"), **own_piggy_designs(design)}
    # as hit maps fire: the bale followed only until it can strike nothing more
    worlds = {label: BulletWorld(board, d, bale_to_rest=False) for label, d in designs.items()}
    try:
        cpu, simulated, hits = _fire(worlds, per_space)
        parts = {label: world.scene.model.parts_mm for label, world in worlds.items()}
    finally:
        for world in worlds.values():
            world.close()
    shots, base = per_space * len(SPACES), "stock piggy"
    figures = {
        "own_piggy_shots": shots,
        "own_piggy_spaces": list(SPACES),
        "own_piggy_variants": [
            {
                "variant": label,
                "piggy_parts": len(parts[label]),
                # Bullet's contact tests cost with the hulls' vertices as well as their number
                "hull_vertices": sum(len(part) for part in parts[label]),
                "shots_per_cpu_s": round(shots / cpu[label], 2),
                "time_vs_stock": round(cpu[label] / cpu[base], 3),
                "sim_s_per_shot": round(simulated[label] / shots, 4),
                "p_target": {s: round(h / per_space, 3) for s, h in hits[label].items()},
            }
            for label in worlds
        ],
    }
    if not quiet:
        print_own_piggy(figures)
    return figures


def _fire(
    worlds: dict[str, BulletWorld], per_space: int
) -> tuple[dict[str, float], dict[str, float], dict[str, dict[str, int]]]:
    """Every world fires the same child's shots, taking turns; each one's CPU time (s),
    simulated time (s) and hits on the target by space."""
    board, aimer, labels = load_board("stock"), load_aimer("child"), list(worlds)
    cpu, simulated = dict.fromkeys(labels, 0.0), dict.fromkeys(labels, 0.0)
    hits = {label: dict.fromkeys(SPACES, 0) for label in labels}
    turn = 0
    for name in SPACES:
        layout = layout_from_dict({"stacks": {name: [TARGET]}}, board=board, source="bench layout")
        aims = {}
        for label, world in worlds.items():
            world.set_layout(layout)
            aims[label] = shoot.solve_aim(world, TARGET, "low")
        for index in range(per_space):
            seed = shot_seed(0, board.parse_space(name), index)
            turn += 1
            for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
                aim = aims[label]
                start = time.process_time()
                result = worlds[label].shoot(
                    AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=aimer)
                )
                cpu[label] += time.process_time() - start
                simulated[label] += result.sim_time_s
                hits[label][name] += TARGET in result.knocked
    return cpu, simulated, hits


def print_own_piggy(figures: dict) -> None:
    print(
        f"own piggies: {figures['own_piggy_shots']} child's shots "
        f"({', '.join(figures['own_piggy_spaces'])}, a lone piggy each, solver-aimed, "
        "as hit maps fire), the same shots for every piggy, CPU time"
    )
    print(
        f"  {'piggy':36s} {'parts':>5s} {'vertices':>8s} {'shots/cpu s':>11s} {'time':>6s} "
        f"{'sim s':>6s}"
        "   P(target) by space"
    )
    for row in figures["own_piggy_variants"]:
        p = " ".join(f"{v:.2f}" for v in row["p_target"].values())
        print(
            f"  {row['variant']:36s} {row['piggy_parts']:5d} {row['hull_vertices']:8d} "
            f"{row['shots_per_cpu_s']:11.2f} "
            f"{row['time_vs_stock']:5.2f}x {row['sim_s_per_shot']:6.3f}   {p}"
        )
    print(
        f"  (time: CPU time a shot against the stock piggy's; the issue allows a piggy of "
        f"up to {PARTS_CAP} parts {1 + ALLOWED_SLOWDOWN:.2f}x)"
    )
