"""A child's shots, timed: the engine's speed changes of issue 18 on the shots a hit map
fires (docs/physics.md, "Speed").

Each of :data:`SPACES` of the stock board holds one piggy alone, aimed at by the
solver (low arc) as ``piggy hitmap`` aims, fired at by the ``child`` aimer with the
design's noise and the hit map's seeds. Every variant fires the same shots, the
variants taking turns shot by shot (each goes first as often), timed in CPU time
of this process (wall time on a shared machine measures the other work too).
Against issue 10's engine, each variant's verdicts and strikes are compared shot
by shot: the strikes leaving out the bale's last touches of the board, which the
bale's early verdict may cut short (the hit map counts none of them).

Issue 31's change, the bale reused from shot to shot, is timed against the engine
before it (a new bale made for every shot), both as hit maps use them: its speed,
and whether every shot is the same bytes (the whole shot's JSON).

With MuJoCo installed, MuJoCo as hit maps use it fires the same shots too (issue 32):
``child_mujoco_vs_bullet`` is Bullet's CPU time over MuJoCo's, both as hit maps use
them. Its verdicts are not expected to match Bullet's shot by shot (shots are chaotic
at the knife edge): the engines are compared by their P (docs/physics.md). The
stepping-only ceiling (issue 41) is MuJoCo's CPU time for each shot's steps alone:
from the shot's start, as many steps as the shot took, in one call with no Python
between; ``child_mujoco_of_ceiling`` is that time over the shot's own (1: every CPU
second spent stepping), ``child_ceiling_vs_bullet`` Bullet's over it.

MuJoCo as hit maps use it fires each space's shots as one batch
(:meth:`MujocoWorld.fire`, issue 41), timed as a whole, halfway through the space's
shots; MuJoCo shot by shot fires them one at a time, taking turns with the others.
``child_mujoco_batch`` says how much faster the batch is and on how many shots the
two gave the same bytes (the whole shot's JSON).
"""

from __future__ import annotations

import dataclasses
import json
import time

from bench_shots import NewBaleEachShot

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot, launch_state
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.registry import installed
from sim.studies.shots.space_shots import TARGET, shot_seed

#: Stock spaces: open ones (r0c3, r10c6, r2c1, r4c1) and fence-held ones (r7c3, r9c2).
SPACES = ("r0c3", "r7c3", "r9c2", "r10c6", "r2c1", "r4c1")
#: The stock design as hit maps use it (the bale's early verdict, the bale reused).
AS_HIT_MAPS = "bale verdict (as hit maps)"
#: The same before issue 31: a new bale made for every shot.
NEW_BALE = "a new bale each shot"
#: MuJoCo as hit maps use it (the bale's early verdict, a space's shots as one
#: batch), where it is installed.
MUJOCO = "MuJoCo (as hit maps)"
#: The same shots fired by MuJoCo one by one.
MUJOCO_SINGLE = "MuJoCo shot by shot"
#: Label -> (rigid obstacles, bale followed to rest, the engine); the first is what
#: the others are compared with.
VARIANTS: dict[str, tuple[bool, bool, type[BulletWorld] | type[MujocoWorld]]] = {
    "issue 10's engine": (False, True, BulletWorld),
    "rigid obstacles": (True, True, BulletWorld),
    "both": (True, False, BulletWorld),
    AS_HIT_MAPS: (False, False, BulletWorld),
    NEW_BALE: (False, False, NewBaleEachShot),
}


def child_variants() -> dict:
    """:data:`VARIANTS`, and MuJoCo's where it is installed."""
    if not installed("mujoco"):
        return VARIANTS
    return {
        **VARIANTS,
        MUJOCO_SINGLE: (False, False, MujocoWorld),
        MUJOCO: (False, False, MujocoWorld),
    }


def strikes(result) -> list[str]:
    """What the bale struck, less its last touches of the board."""
    contacts = list(result.contacts)
    while contacts and contacts[-1] == "board":
        contacts.pop()
    return contacts


def bench_child(per_space: int, quiet: bool) -> dict:
    """``per_space`` child's shots at each of :data:`SPACES`, fired by every variant."""
    board, design = load_board("stock"), load_design("stock")
    aimer = load_aimer("child")
    variants = child_variants()
    worlds = {
        label: engine(
            board,
            dataclasses.replace(
                design, physics=dataclasses.replace(design.physics, rigid_obstacles=rigid)
            ),
            bale_to_rest=to_rest,
        )
        for label, (rigid, to_rest, engine) in variants.items()
    }
    if MUJOCO in worlds:
        worlds[MUJOCO_SINGLE].batched = False
    labels, base = list(variants), next(iter(variants))
    cpu, simulated = dict.fromkeys(labels, 0.0), dict.fromkeys(labels, 0.0)
    same_verdicts, same_strikes = dict.fromkeys(labels, 0), dict.fromkeys(labels, 0)
    same_bytes = 0  # shots the reused bale fires as a new bale does, byte for byte
    same_batched = 0  # shots MuJoCo's batch fires as MuJoCo shot by shot does
    ceiling = 0.0  # MuJoCo's CPU time for the shots' steps alone
    hits = {label: dict.fromkeys(SPACES, 0) for label in labels}
    turn = 0
    for name in SPACES:
        layout = layout_from_dict({"stacks": {name: [TARGET]}}, board=board, source="bench layout")
        for world in worlds.values():
            world.set_layout(layout)
        aim = shoot.solve_aim(worlds[base], TARGET, "low")
        seeds = [shot_seed(0, board.parse_space(name), index) for index in range(per_space)]
        fired, turn = fire_space(worlds, aim, aimer, seeds, cpu, turn)
        for index, seed in enumerate(seeds):
            results = {label: fired[label][index] for label in labels}
            for label, result in results.items():
                simulated[label] += result.sim_time_s
                hits[label][name] += TARGET in result.knocked
                same_verdicts[label] += result.knocked == results[base].knocked
                same_strikes[label] += strikes(result) == strikes(results[base])
            same_bytes += json.dumps(results[AS_HIT_MAPS].to_dict()) == json.dumps(
                results[NEW_BALE].to_dict()
            )
            if MUJOCO in worlds:
                same_batched += json.dumps(results[MUJOCO].to_dict()) == json.dumps(
                    results[MUJOCO_SINGLE].to_dict()
                )
                launch = launch_state(
                    design, AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=aimer)
                )
                ceiling += stepping_alone(worlds[MUJOCO], launch, results[MUJOCO].sim_time_s)
    for world in worlds.values():
        world.close()
    shots = per_space * len(SPACES)
    figures = {
        "child_shots": shots,
        "child_spaces": list(SPACES),
        "child_variants": [
            {
                "variant": label,
                "shots_per_cpu_s": round(shots / cpu[label], 2),
                "speed_vs_issue_10": round(cpu[base] / cpu[label], 3),
                "sim_s_per_shot": round(simulated[label] / shots, 4),
                "same_verdicts": same_verdicts[label],
                "same_strikes": same_strikes[label],
                "p_target": {s: round(h / per_space, 3) for s, h in hits[label].items()},
            }
            for label in labels
        ],
        "child_bale_reused": {
            "speed_vs_new_bale": round(cpu[NEW_BALE] / cpu[AS_HIT_MAPS], 3),
            "same_shots": same_bytes,
        },
    }
    if MUJOCO in cpu:
        figures["child_mujoco_vs_bullet"] = round(cpu[AS_HIT_MAPS] / cpu[MUJOCO], 3)
        figures["child_mujoco_of_ceiling"] = round(ceiling / cpu[MUJOCO], 3)
        figures["child_ceiling_vs_bullet"] = round(cpu[AS_HIT_MAPS] / ceiling, 3)
        figures["child_mujoco_batch"] = {
            "speed_vs_shot_by_shot": round(cpu[MUJOCO_SINGLE] / cpu[MUJOCO], 3),
            "same_shots": same_batched,
            "fired_alone": worlds[MUJOCO].batch_refired,
        }
    if not quiet:
        print_child(figures)
    return figures


def fire_space(worlds: dict, aim, aimer, seeds: list[int], cpu: dict, turn: int):
    """One space's shots (``seeds``) fired by every world, CPU time added to ``cpu``:
    one by one, the worlds taking turns (``turn`` goes on from space to space), but
    MuJoCo as hit maps, which fires them as one batch halfway through. Returns each
    world's results in the shots' order, and the turn."""
    one_by_one = [label for label in worlds if label != MUJOCO]
    fired: dict[str, list] = {label: [] for label in worlds}
    for index, seed in enumerate(seeds):
        if index == len(seeds) // 2 and MUJOCO in worlds:
            shots = [AimedShot(aim.yaw_deg, aim.pitch_deg, aimer=aimer, seed=s) for s in seeds]
            start = time.process_time()
            fired[MUJOCO] = worlds[MUJOCO].fire(shots)
            cpu[MUJOCO] += time.process_time() - start
        turn += 1
        for label in one_by_one[turn % len(one_by_one) :] + one_by_one[: turn % len(one_by_one)]:
            start = time.process_time()
            fired[label].append(
                worlds[label].shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=aimer))
            )
            cpu[label] += time.process_time() - start
    return fired, turn


def stepping_alone(world: MujocoWorld, launch, sim_time_s: float) -> float:
    """CPU seconds MuJoCo takes for a shot's steps alone: from the shot's start
    (``launch``), as many steps as the shot simulated, in one call."""
    scene = world.scene
    world.reset(launch.yaw_deg)
    scene.place(scene.bale, launch.release_mm, launch.orientation, launch.velocity_mm_s)
    scene.forward()
    start = time.process_time()
    scene.step(round(sim_time_s / scene.dt))
    return time.process_time() - start


def print_child(figures: dict) -> None:
    print(
        f"a child's shots: {figures['child_shots']} ({', '.join(figures['child_spaces'])}, a "
        "lone piggy each, solver-aimed, child aimer), the same shots for every variant, "
        "CPU time"
    )
    print(
        f"  {'variant':26s} {'shots/cpu s':>11s} {'speed':>6s} {'sim s':>6s} "
        f"{'same verdicts':>13s} {'same strikes':>12s}   P(target) by space"
    )
    for row in figures["child_variants"]:
        p = " ".join(f"{v:.2f}" for v in row["p_target"].values())
        print(
            f"  {row['variant']:26s} {row['shots_per_cpu_s']:11.2f} "
            f"{row['speed_vs_issue_10']:5.2f}x {row['sim_s_per_shot']:6.3f} "
            f"{row['same_verdicts']:13d} {row['same_strikes']:12d}   {p}"
        )
    reused = figures["child_bale_reused"]
    print(
        f"  the bale reused (issue 31) against {NEW_BALE}, both as hit maps: "
        f"{reused['speed_vs_new_bale']:.3f}x, the same bytes on {reused['same_shots']} of "
        f"{figures['child_shots']} shots"
    )
    if "child_mujoco_vs_bullet" in figures:
        print(
            f"  MuJoCo against Bullet, both as hit maps: {figures['child_mujoco_vs_bullet']:.2f}x "
            "the shots a CPU second"
        )
        print(
            f"  MuJoCo's steps alone (the ceiling): {figures['child_ceiling_vs_bullet']:.2f}x "
            f"Bullet; MuJoCo as hit maps runs at {figures['child_mujoco_of_ceiling']:.0%} of it"
        )
        batch = figures["child_mujoco_batch"]
        print(
            f"  MuJoCo's batch against MuJoCo shot by shot: {batch['speed_vs_shot_by_shot']:.2f}x, "
            f"the same bytes on {batch['same_shots']} of {figures['child_shots']} shots "
            f"({batch['fired_alone']} handed back to be fired alone)"
        )
