"""P on grazing shots, the engine's speed changes against the references (scripts/bench.py
--only grazing).

Grazing (docs/physics.md, "Fidelity on grazing shots"): --grazing-shots shots at
each of the 12 piggies, aimed by the solver at a point 15 mm beside it (square to
the line of fire, in the board plane), with the design's noise and seeds fixed per
shot, so that P(the piggy is knocked out) lies between 0 and 1, where a hit map
carries information. The same shots are fired by the naive reference (the first
--grazing-reference-shots of each piggy's: it is the costly part), by the
reference with every aim 0.01 degree off (its self-agreement), by the engine as
it was before tuning for speed, by each speed change alone and all together, by
issue 10's engine and by each of issue 18's changes to it, by the engine as the
design file has it, as hit maps use it, and by the same with a new bale made for
every shot (the engine before issue 31, which reuses the bale). For each, against
the reference, against the engine before tuning and against issue 10's engine: the
largest |dP| over the 12 piggies and the largest that "no difference" leaves 95 %
of the time (what these shots resolve), an exact McNemar test on
target-knocked-out over all shots, and the share of shots with the same verdicts;
and its speed against the engine before tuning and against issue 10's, timed
interleaved target by target.
A change passes when no McNemar test is significant at 5 % and no largest |dP|
exceeds what the shots resolve. The engine as hit maps use it is also compared with
the engine before issue 31 on its own (``grazing_bale_reused``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np
from bench_shots import AIM_NUDGE_DEG, BEFORE_TUNING, NewBaleEachShot, time_naive, with_physics
from bench_stats import hits, paired, passes

from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, load_layout
from models.stats import wilson_interval
from sim.physics import aim
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.registry import installed

#: The engine as issue 10 left it, what issue 18's speed changes are compared with.
ISSUE_10 = "issue 10's engine"
#: The engine as hit maps use it, before issue 31: a new bale made for every shot.
NEW_BALE = "as hit maps, a new bale each shot"
#: The MuJoCo engine as hit maps use it (fired when MuJoCo is installed).
MUJOCO = "MuJoCo, as hit maps use it"
#: Grazing aims: this far beside each piggy's centre, mm, square to the line of fire in
#: the board plane (to the left, seen from the tractor), where P(knocked out) is
#: neither 0 nor 1.
GRAZING_OFFSET_MM = 15.0
#: Target k's shot j has seed GRAZING_SEED * (k + 1) + j: a shorter run fires the
#: first shots of a longer one.
GRAZING_SEED = 1_000_000
#: The speed changes tried on the engine as it was before tuning, one at a time and
#: together; the engine as the design file has it is compared too.
CHANGES: list[tuple[str, dict[str, Any]]] = [
    ("10 solver iterations", {"solver_iterations": 10}),
    ("early verdict", {"early_verdict": True}),
    ("0.03 s rest", {"rest_time_s": 0.03}),
]


def grazing_aims(
    world: BulletWorld, per_target: int, piggies: tuple[str, ...] = ALL_PIGGIES
) -> list[list[tuple[float, float, int]]]:
    """For each of ``piggies``, ``per_target`` shots (yaw, pitch, seed) aimed by the
    solver (low arc) at the point GRAZING_OFFSET_MM beside it."""
    rows = []
    for k, piggy in enumerate(piggies):
        centre = world.piggy_centre_mm(piggy)
        along = centre[:2] / math.hypot(*centre[:2])
        point = centre + GRAZING_OFFSET_MM * np.array([-along[1], along[0], 0.0])
        solution = aim.solve(world.design, point, piggy)[0]
        rows.append(
            [
                (solution.yaw_deg, solution.pitch_deg, GRAZING_SEED * (k + 1) + j)
                for j in range(per_target)
            ]
        )
    return rows


def grazing_variants(design, since_issue_10: bool = False) -> tuple[dict, str]:
    """Label -> (physics, bale_to_rest, engine): the engine before tuning, each change
    alone, all together (unless ``since_issue_10``); issue 10's engine, and issue 18's
    changes to it (rigid obstacles; the bale's early verdict, which hit maps use); the
    design as hit maps use it, then the same with a new bale every shot (before issue
    31); and the label of the design as hit maps use it."""
    variants: dict[str, tuple[Any, bool, Any]] = {}
    if not since_issue_10:
        before = with_physics(design, **BEFORE_TUNING)
        variants["before tuning"] = (before.physics, True, BulletWorld)
        for label, change in CHANGES:
            variants[label] = (with_physics(before, **change).physics, True, BulletWorld)
        variants["all three"] = (
            with_physics(before, **{k: v for _, c in CHANGES for k, v in c.items()}).physics,
            True,
            BulletWorld,
        )
    variants[ISSUE_10] = (with_physics(design, rigid_obstacles=False).physics, True, BulletWorld)
    variants["rigid obstacles"] = (
        with_physics(design, rigid_obstacles=True).physics,
        True,
        BulletWorld,
    )
    variants["both"] = (with_physics(design, rigid_obstacles=True).physics, False, BulletWorld)
    engine_label = f"design '{design.name}', as hit maps use it"
    variants[engine_label] = (design.physics, False, BulletWorld)
    variants[NEW_BALE] = (design.physics, False, NewBaleEachShot)
    if installed("mujoco"):
        variants[MUJOCO] = (design.physics, False, MujocoWorld)
    return variants, engine_label


def fire_variants(board, design, layout, variants: dict, aims_by_target: list) -> tuple:
    """Every variant's world fires the same shots: ``(verdicts [target][shot] ->
    frozenset, CPU seconds, simulated seconds)`` by label.

    Timed shot by shot, the variants in turn (each goes first as often), in CPU time
    of this process: on a shared machine, wall time per block of shots, or even
    CPU time per block, moved by 10-20 % between two worlds of the same design."""
    worlds = {
        label: engine(
            board, dataclasses.replace(design, physics=physics), layout, bale_to_rest=to_rest
        )
        for label, (physics, to_rest, engine) in variants.items()
    }
    labels = list(variants)
    cpu, simulated = dict.fromkeys(labels, 0.0), dict.fromkeys(labels, 0.0)
    verdicts: dict[str, list[list[frozenset[str]]]] = {
        label: [[] for _ in aims_by_target] for label in labels
    }
    turn = 0
    for k, shots in enumerate(aims_by_target):
        for yaw, pitch, seed in shots:
            turn += 1
            for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
                start = time.process_time()
                result = worlds[label].shoot(AimedShot(yaw, pitch, seed=seed))
                cpu[label] += time.process_time() - start
                verdicts[label][k].append(frozenset(result.knocked))
                simulated[label] += result.sim_time_s
    for world in worlds.values():
        world.close()
    return verdicts, cpu, simulated


def bench_grazing(
    per_target: int,
    reference_per_target: int,
    quiet: bool,
    since_issue_10: bool = False,
    targets: int = len(ALL_PIGGIES),
) -> dict:
    """Fidelity on grazing shots, and the speed changes compared on them (module
    docstring); the naive reference fires the first ``reference_per_target`` of each
    piggy's shots (it costs some 30 engine shots a shot). ``targets``: the first so
    many of the crowded layout's 12 piggies (a quick run; the same shots at each)."""
    piggies = ALL_PIGGIES[:targets]
    board, design = load_board("stock"), load_design("stock")
    layout = load_layout("crowded", board)
    with BulletWorld(board, design, layout) as world:
        aims_by_target = grazing_aims(world, per_target, piggies)
    variants, engine_label = grazing_variants(design, since_issue_10)
    results, cpu, simulated = fire_variants(board, design, layout, variants, aims_by_target)
    m = reference_per_target
    reference = [
        [frozenset(k) for k in time_naive(board, design, layout, shots[:m])[1]]
        for shots in aims_by_target
    ]
    nudged = [
        [
            frozenset(k)
            for k in time_naive(
                board, design, layout, [(y + AIM_NUDGE_DEG, p, s) for y, p, s in shots[:m]]
            )[1]
        ]
        for shots in aims_by_target
    ]
    shots = len(piggies) * per_target
    rows = []
    for label in variants:
        against_ref = paired([row[:m] for row in results[label]], reference)
        # against the engine before tuning: None when it was not fired
        against_before = results.get("before tuning") and paired(
            results[label], results["before tuning"]
        )
        against_issue_10 = paired(results[label], results[ISSUE_10])
        rows.append(
            {
                "variant": label,
                "shots_per_cpu_s": round(shots / cpu[label], 2),
                "speed_vs_before": against_before and round(cpu["before tuning"] / cpu[label], 3),
                "speed_vs_issue_10": round(cpu[ISSUE_10] / cpu[label], 3),
                "sim_s_per_shot": round(simulated[label] / shots, 4),
                "vs_reference": against_ref,
                "vs_before": against_before,
                "vs_issue_10": against_issue_10,
                "passes": all(
                    passes(x) for x in (against_ref, against_before, against_issue_10) if x
                ),
            }
        )
    engine_shots = [row[:m] for row in results[engine_label]]
    engine = paired(engine_shots, reference)
    per_piggy = [
        {
            "piggy": p,
            "p_reference": round(r / m, 3),
            "p_reference_ci": [round(x, 3) for x in wilson_interval(r, m)],
            "p_engine": round(e / m, 3),
            "p_engine_ci": [round(x, 3) for x in wilson_interval(e, m)],
        }
        for p, r, e in zip(piggies, hits(reference), hits(engine_shots), strict=True)
    ]
    figures = {
        "grazing_shots_per_target": per_target,
        "grazing_reference_shots_per_target": m,
        "grazing_engine": engine_label,
        "grazing_max_abs_dp": engine["max_abs_dp"],
        "grazing_max_abs_dp_resolvable": engine["max_abs_dp_resolvable"],
        "grazing_mcnemar_p": engine["mcnemar_p"],
        "grazing_agreement": engine["agreement"],
        "grazing_self_agreement": paired(reference, nudged)["agreement"],
        "grazing_targets": per_piggy,
        "grazing_variants": rows,
        "grazing_bale_reused": {
            "speed_vs_new_bale": round(cpu[NEW_BALE] / cpu[engine_label], 3),
            **paired(results[engine_label], results[NEW_BALE]),
        },
    }
    if MUJOCO in results:
        mujoco_shots = [row[:m] for row in results[MUJOCO]]
        figures["grazing_mujoco"] = {
            "vs_bullet": paired(results[MUJOCO], results[engine_label]),
            "vs_reference": paired(mujoco_shots, reference),
            "p_bullet": [round(h / per_target, 3) for h in hits(results[engine_label])],
            "p_mujoco": [round(h / per_target, 3) for h in hits(results[MUJOCO])],
        }
    if not quiet:
        print_grazing(figures, design)
    return figures


def print_grazing(figures: dict, design) -> None:
    n, m = figures["grazing_shots_per_target"], figures["grazing_reference_shots_per_target"]
    print(
        f"grazing shots: {n} a piggy ({m} for the naive reference), {GRAZING_OFFSET_MM:g} mm "
        f"beside each of {len(figures['grazing_targets'])} of the crowded layout's 12, design "
        f"'{design.name}' noise; the same "
        "shots for every variant"
    )
    print(f"  {'piggy':8s} {'P reference':>22s} {'P engine':>22s}")
    for row in figures["grazing_targets"]:
        (a, b), (c, d) = row["p_reference_ci"], row["p_engine_ci"]
        print(
            f"  {row['piggy']:8s} {row['p_reference']:6.3f} [{a:.3f}, {b:.3f}]  "
            f"{row['p_engine']:6.3f} [{c:.3f}, {d:.3f}]"
        )
    resolvable = figures["grazing_max_abs_dp_resolvable"]
    print(
        f"  engine ({figures['grazing_engine']}) vs naive reference: max |dP| "
        f"{figures['grazing_max_abs_dp']:.3f} (resolvable {resolvable:.3f}), McNemar p "
        f"{figures['grazing_mcnemar_p']:.3f}, same verdicts "
        f"{100 * figures['grazing_agreement']:.1f} % (the reference against itself with "
        f"every aim {AIM_NUDGE_DEG} degree off: {100 * figures['grazing_self_agreement']:.1f} %)"
    )
    print(
        f"  {'variant':36s} {'shots/cpu s':>11s} {'speed':>6s} {'vs i10':>6s} {'sim s':>6s} | "
        f"vs reference: {'max|dP|':>7s} {'resolv':>6s} {'McN p':>6s} {'same':>6s} | "
        f"vs before: {'McN p':>6s} {'same':>6s} | vs {ISSUE_10}: {'max|dP|':>7s} "
        f"{'resolv':>6s} {'McN p':>6s} {'same':>6s}"
    )
    for row in figures["grazing_variants"]:
        r, b, i = row["vs_reference"], row["vs_before"], row["vs_issue_10"]
        speed_before = "" if b is None else f"{row['speed_vs_before']:.2f}x"
        against_before = (
            "not fired" if b is None else f"{b['mcnemar_p']:.3f} {100 * b['agreement']:5.1f}%"
        )
        print(
            f"  {row['variant']:36s} {row['shots_per_cpu_s']:11.2f} {speed_before:>6s} "
            f"{row['speed_vs_issue_10']:5.2f}x {row['sim_s_per_shot']:6.3f} |"
            f" {r['max_abs_dp']:20.3f} {r['max_abs_dp_resolvable']:6.3f} {r['mcnemar_p']:6.3f}"
            f" {100 * r['agreement']:5.1f}% | {against_before:>24s}"
            f" | {i['max_abs_dp']:27.3f} {i['max_abs_dp_resolvable']:6.3f} {i['mcnemar_p']:6.3f}"
            f" {100 * i['agreement']:5.1f}%  {'passes' if row['passes'] else 'FAILS'}"
        )
    if "grazing_mujoco" in figures:
        piggies = [row["piggy"] for row in figures["grazing_targets"]]
        print_mujoco(figures["grazing_mujoco"], figures["grazing_shots_per_target"], piggies)
    reused = figures["grazing_bale_reused"]
    print(
        f"  the bale reused (issue 31) against a new bale each shot, as hit maps use them: "
        f"{reused['speed_vs_new_bale']:.3f}x; max |dP| {reused['max_abs_dp']:.3f} (resolvable "
        f"{reused['max_abs_dp_resolvable']:.3f}), McNemar p {reused['mcnemar_p']:.3f} "
        f"({reused['a_only']}:{reused['b_only']}), same verdicts {100 * reused['agreement']:.1f} %"
    )


def print_mujoco(figures: dict, per_target: int, piggies: list[str]) -> None:
    """MuJoCo against Bullet (both as hit maps use them) and against the reference."""
    print(f"  MuJoCo against Bullet, {per_target} shots a piggy: P per piggy")
    print("  " + " ".join(f"{p:>8s}" for p in ["", *piggies]))
    for engine in ("bullet", "mujoco"):
        print("  " + f"{engine:>8s} " + " ".join(f"{p:8.3f}" for p in figures[f"p_{engine}"]))
    for label, test in (
        ("Bullet", figures["vs_bullet"]),
        ("the reference", figures["vs_reference"]),
    ):
        print(
            f"  MuJoCo vs {label}: max |dP| {test['max_abs_dp']:.3f} (resolvable "
            f"{test['max_abs_dp_resolvable']:.3f}, p {test['max_abs_dp_p']:.3f}), McNemar p "
            f"{test['mcnemar_p']:.3f} ({test['a_only']}:{test['b_only']}), same verdicts "
            f"{100 * test['agreement']:.1f} %  {'passes' if passes(test) else 'FAILS'}"
        )
