"""Cheaper MuJoCo steps (issue 41 part 4): what each candidate change to the MuJoCo
scene saves a step and a shot, and whether it stays P-equivalent.

    python scripts/bench_mujoco_steps.py [--grazing-shots 60] [--child-shots 20]
                                         [--only LABEL,LABEL] [--json]

Every variant is MuJoCo as the engine has it (shot by shot: the batch steps the
same model) with one thing changed: a solver or collision option set on the
compiled model, a coarser piggy (its convex parts merged), contacts filtered, or a
coarser time step. All fire the same shots, the variants taking turns shot by shot
(each goes first as often), timed in CPU time of this process; what is reported is
each one's CPU time against today's (a ratio: the machine is shared).

- *Speed*: the child's shots of ``bench.py --only child`` (a lone piggy on six
  stock spaces, the hit map's seeds): CPU per shot and per simulated step, each
  against today's; and the grazing shots' CPU per shot against today's.
- *P*: the grazing bench's shots (the crowded layout's 12 piggies, each aimed
  15 mm beside its centre, :mod:`bench_grazing`), where P lies between 0 and 1 and a
  change of contact model shows first; each variant is paired with today's MuJoCo
  (which was judged against the naive reference: docs/physics.md) and with Bullet
  as hit maps use it (fired once). The child's shots are paired with today's too.

A variant passes when, against today's MuJoCo on the grazing shots and on the
child's, the exact McNemar test is not significant at 5 % and the largest |dP| over
targets is within what the shots resolve (``bench_stats.passes``, the grazing
bench's adoption rule).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass, field

import mujoco
import numpy as np
from bench_child import SPACES, stepping_alone
from bench_grazing import grazing_aims
from bench_stats import hits, paired, passes
from scipy.spatial import ConvexHull

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.layout import ALL_PIGGIES, Layout, layout_from_dict, load_layout
from sim.physics import shoot
from sim.physics.bullet.world import BulletWorld
from sim.physics.geometry import BodyPose, PiggyModel
from sim.physics.launch import AimedShot, launch_state
from sim.physics.materials import Materials
from sim.physics.mujoco.mjcf import SETTINGS
from sim.physics.mujoco.scene import MujocoScene
from sim.physics.mujoco.world import MujocoWorld
from sim.studies.shots.space_shots import TARGET, shot_seed

#: The stock piggy's convex parts by index: 0 body, 1 head, 2 snout, 3-4 ears, 5 tail,
#: 6-9 legs (6-7 front, 8-9 back). Each coarser piggy is a list of groups, each
#: group's parts merged into their convex hull.
PIGGY_GROUPS = {
    "7 parts": [[0, 5], [1, 3, 4], [2], [6], [7], [8], [9]],
    "4 parts": [[0, 5], [1, 2, 3, 4], [6, 7], [8, 9]],
    "1 hull": [list(range(10))],
}
#: The piggy parts that touch the board while it stands: its legs.
PIGGY_LEGS = (6, 7, 8, 9)


@dataclass(frozen=True)
class Variant:
    """One change to today's MuJoCo scene: ``options`` set on the compiled model's
    ``opt`` (name -> value), ``disable``/``enable`` flags (MuJoCo's mjtDisableBit /
    mjtEnableBit names), the piggy's parts merged (a :data:`PIGGY_GROUPS` key), only
    the legs touching the board, and ``steps_per_s`` (the time step: the contacts'
    time constant stays 4 ms)."""

    options: dict = field(default_factory=dict)
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    piggy: str | None = None
    legs_only_on_board: bool = False
    steps_per_s: int | None = None


VARIANTS: dict[str, Variant] = {
    "today": Variant(),
    "iterations 10 ls 5": Variant(options={"iterations": 10, "ls_iterations": 5}),
    "tolerance 1e-6": Variant(options={"tolerance": 1e-6}),
    "ccd 10 iterations tol 1e-4": Variant(options={"ccd_iterations": 10, "ccd_tolerance": 1e-4}),
    "pyramidal cone": Variant(options={"cone": mujoco.mjtCone.mjCONE_PYRAMIDAL}),
    "no multiccd": Variant(disable=("mjDSBL_MULTICCD",)),
    "libccd (no nativeccd)": Variant(disable=("mjDSBL_NATIVECCD",)),
    "no midphase": Variant(disable=("mjDSBL_MIDPHASE",)),
    "no warmstart": Variant(disable=("mjDSBL_WARMSTART",)),
    "sleep tolerance 1e-2": Variant(options={"sleep_tolerance": 1e-2}),
    "piggy 7 parts": Variant(piggy="7 parts"),
    "piggy 4 parts": Variant(piggy="4 parts"),
    "piggy 1 hull": Variant(piggy="1 hull"),
    "legs only on board": Variant(legs_only_on_board=True),
    "2 ms step": Variant(steps_per_s=500),
}
#: The options that passed alone (first run, docs/physics.md), together.
HARMLESS_OPTIONS = {
    "tolerance": 1e-6,
    "ccd_iterations": 10,
    "ccd_tolerance": 1e-4,
    "sleep_tolerance": 1e-2,
}
VARIANTS["combined options"] = Variant(options=HARMLESS_OPTIONS)
VARIANTS["combined options + legs only"] = Variant(
    options=HARMLESS_OPTIONS, legs_only_on_board=True
)


def coarser_piggy(model: PiggyModel, groups: list[list[int]]) -> PiggyModel:
    """The piggy with each group of its parts merged into their convex hull (its mass,
    moments and frame unchanged)."""
    parts = []
    for group in groups:
        points = np.vstack([model.parts_mm[i] for i in group])
        parts.append(points[ConvexHull(points).vertices])
    return dataclasses.replace(model, parts_mm=tuple(parts))


class VariantScene(MujocoScene):
    """Today's MuJoCo scene with a :class:`Variant`'s change (the judge still reads
    the true piggy: only the collision shapes are coarser)."""

    variant = Variant()

    def build(self, poses: dict[str, BodyPose], materials: Materials) -> None:
        variant, true_model = self.variant, self.model
        if variant.piggy:
            self.model = coarser_piggy(true_model, PIGGY_GROUPS[variant.piggy])
        try:
            super().build(poses, materials)
        finally:
            self.model = true_model
        m = self.mj_model
        for name, value in variant.options.items():
            setattr(m.opt, name, value)
        for name in variant.disable:
            m.opt.disableflags |= int(getattr(mujoco.mjtDisableBit, name))
        for name in variant.enable:
            m.opt.enableflags |= int(getattr(mujoco.mjtEnableBit, name))
        if variant.legs_only_on_board:
            # contype 2 on the legs, affinity 2 on the board: a piggy's other parts
            # then meet the other piggies, the fences, the tractor, never the board
            legs = {f"{name}:{i}" for name in poses for i in PIGGY_LEGS}
            for g in range(m.ngeom):
                name = m.geom(g).name
                if name in legs:
                    m.geom_contype[g] = 3
                elif name.startswith("board"):
                    m.geom_conaffinity[g], m.geom_contype[g] = 2, 2
        mujoco.mj_forward(m, self.data)


def variant_world(label: str, variant: Variant, board, design, layout=None) -> MujocoWorld:
    """MuJoCo as hit maps use it (the bale's early verdict), shot by shot, with the
    variant's change."""
    scene_class = type(f"Scene {label}", (VariantScene,), {"variant": variant})

    class World_(MujocoWorld):
        batched = False

        def _make_scene(self, board, design, layout, hit_rule):
            layout = layout or Layout(board=board, stacks={})
            return scene_class(board, design, layout, hit_rule, self.settings)

    if variant.steps_per_s:
        physics = dataclasses.replace(design.physics, steps_per_s=variant.steps_per_s)
        design = dataclasses.replace(design, physics=physics)
        World_.settings = dataclasses.replace(
            SETTINGS, timeconst_steps=SETTINGS.timeconst_steps * variant.steps_per_s / 1000
        )
    return World_(board, design, layout, bale_to_rest=False)


def fire_in_turn(worlds: dict, shots: list, cpu: dict, turn: int, aimer=None):
    """Each world fires ``shots`` ((yaw, pitch, seed)), the worlds taking turns shot by
    shot; CPU time added to ``cpu``. Returns each world's results and the turn."""
    labels = list(worlds)
    fired: dict[str, list] = {label: [] for label in labels}
    for yaw, pitch, seed in shots:
        turn += 1
        for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
            start = time.process_time()
            world = worlds[label]
            fired[label].append(
                world.shoot(AimedShot(yaw, pitch, seed=seed, aimer=aimer))
                if aimer
                else world.shoot(AimedShot(yaw, pitch, seed=seed))
            )
            cpu[label] += time.process_time() - start
    return fired, turn


def child_speed(variants: dict, per_space: int) -> dict:
    """The child's shots (bench_child's spaces and seeds) in every variant: CPU
    seconds, simulated steps, the CPU seconds of the same steps alone (the stepping
    ceiling, ``bench_child.stepping_alone``) and verdicts by label."""
    board, design = load_board("stock"), load_design("stock")
    aimer = load_aimer("child")
    worlds = {label: variant_world(label, v, board, design) for label, v in variants.items()}
    cpu, steps, alone = (
        dict.fromkeys(worlds, 0.0),
        dict.fromkeys(worlds, 0),
        dict.fromkeys(worlds, 0.0),
    )
    verdicts: dict[str, list[list[frozenset]]] = {label: [] for label in worlds}
    turn = 0
    for name in SPACES:
        layout = layout_from_dict({"stacks": {name: [TARGET]}}, board=board, source="bench")
        for world in worlds.values():
            world.set_layout(layout)
        aim = shoot.solve_aim(worlds["today"], TARGET, "low")
        shots = [
            (aim.yaw_deg, aim.pitch_deg, shot_seed(0, board.parse_space(name), i))
            for i in range(per_space)
        ]
        fired, turn = fire_in_turn(worlds, shots, cpu, turn, aimer)
        for label, results in fired.items():
            steps[label] += sum(round(r.sim_time_s / worlds[label].scene.dt) for r in results)
            verdicts[label].append([frozenset(r.knocked) for r in results])
            for (yaw, pitch, seed), result in zip(shots, results, strict=True):
                launch = launch_state(
                    worlds[label].design, AimedShot(yaw, pitch, seed=seed, aimer=aimer)
                )
                alone[label] += stepping_alone(worlds[label], launch, result.sim_time_s)
    for world in worlds.values():
        world.close()
    return {"cpu": cpu, "steps": steps, "alone": alone, "verdicts": verdicts}


def grazing(variants: dict, per_target: int) -> dict:
    """The grazing shots in every variant and in Bullet as hit maps use it: CPU
    seconds and verdicts ([target][shot]) by label."""
    board, design = load_board("stock"), load_design("stock")
    layout = load_layout("crowded", board)
    with BulletWorld(board, design, layout, bale_to_rest=False) as bullet:
        aims = grazing_aims(bullet, per_target)
        bullet_verdicts = [
            [
                frozenset(bullet.shoot(AimedShot(yaw, pitch, seed=seed)).knocked)
                for yaw, pitch, seed in row
            ]
            for row in aims
        ]
    worlds = {
        label: variant_world(label, v, board, design, layout) for label, v in variants.items()
    }
    cpu = dict.fromkeys(worlds, 0.0)
    verdicts: dict[str, list[list[frozenset]]] = {label: [] for label in worlds}
    turn = 0
    for row in aims:
        fired, turn = fire_in_turn(worlds, row, cpu, turn)
        for label, results in fired.items():
            verdicts[label].append([frozenset(r.knocked) for r in results])
    for world in worlds.values():
        world.close()
    return {"cpu": cpu, "verdicts": verdicts, "bullet": bullet_verdicts}


def child_paired(a: list[list[frozenset]], b: list[list[frozenset]]) -> dict:
    """``bench_stats.paired`` on the child's shots: each space's target stands in for
    one of the grazing bench's piggies (the test counts by ``ALL_PIGGIES``)."""

    def as_piggies(rows):
        return [
            [frozenset({ALL_PIGGIES[k]}) if TARGET in x else frozenset() for x in row]
            for k, row in enumerate(rows)
        ]

    # the piggies no space stands in for, as many empty verdicts: never discordant
    # (they inflate the agreement: read the largest |dP| and McNemar)
    padding: list[list[frozenset[str]]] = [[frozenset()] * len(a[0])] * (len(ALL_PIGGIES) - len(a))
    return paired(as_piggies(a) + padding, as_piggies(b) + padding)


def bench_mujoco_steps(variants: dict, child_shots: int, grazing_shots: int) -> list[dict]:
    child = child_speed(variants, child_shots)
    graze = grazing(variants, grazing_shots)
    base = "today"
    rows = []
    for label in variants:
        vs_today = paired(graze["verdicts"][label], graze["verdicts"][base])
        vs_bullet = paired(graze["verdicts"][label], graze["bullet"])
        child_vs_today = child_paired(child["verdicts"][label], child["verdicts"][base])
        per_step = child["cpu"][label] / child["steps"][label]
        rows.append(
            {
                "variant": label,
                "child_cpu_per_shot_vs_today": round(child["cpu"][label] / child["cpu"][base], 3),
                "child_cpu_per_step_vs_today": round(
                    per_step / (child["cpu"][base] / child["steps"][base]), 3
                ),
                "child_us_per_step": round(1e6 * per_step, 1),
                "stepping_alone_per_shot_vs_today": round(
                    child["alone"][label] / child["alone"][base], 3
                ),
                "stepping_alone_us_per_step": round(
                    1e6 * child["alone"][label] / child["steps"][label], 2
                ),
                "child_steps_per_shot": round(child["steps"][label] / (6 * child_shots), 1),
                "grazing_cpu_per_shot_vs_today": round(graze["cpu"][label] / graze["cpu"][base], 3),
                "grazing_vs_today": vs_today,
                "grazing_vs_bullet": vs_bullet,
                "grazing_p": [round(h / grazing_shots, 3) for h in hits(graze["verdicts"][label])],
                "child_vs_today": child_vs_today,
                "passes": passes(vs_today) and passes(child_vs_today),
            }
        )
    return rows


def print_rows(rows: list[dict], child_shots: int, grazing_shots: int) -> None:
    print(
        f"MuJoCo variants: {6 * child_shots} child's shots ({', '.join(SPACES)}), "
        f"{12 * grazing_shots} grazing shots (crowded); CPU time against today's"
    )
    print(
        f"  {'variant':28s} {'child/shot':>10s} {'/step':>6s} {'us/step':>7s} {'steps':>6s} "
        f"{'graze/shot':>10s} {'alone/shot':>10s} {'us':>5s} | "
        "grazing vs today: max|dP| resolv McN p (a:b) | vs Bullet: "
        "max|dP| McN p (a:b) | child vs today: max|dP| McN p"
    )
    for r in rows:
        t, b, c = r["grazing_vs_today"], r["grazing_vs_bullet"], r["child_vs_today"]
        print(
            f"  {r['variant']:28s} {r['child_cpu_per_shot_vs_today']:9.3f}x "
            f"{r['child_cpu_per_step_vs_today']:5.3f}x {r['child_us_per_step']:7.1f} "
            f"{r['child_steps_per_shot']:6.1f} {r['grazing_cpu_per_shot_vs_today']:9.3f}x "
            f"{r['stepping_alone_per_shot_vs_today']:9.3f}x "
            f"{r['stepping_alone_us_per_step']:5.1f} | "
            f"{t['max_abs_dp']:.3f} {t['max_abs_dp_resolvable']:.3f} {t['mcnemar_p']:.3f} "
            f"({t['a_only']}:{t['b_only']}) | {b['max_abs_dp']:.3f} {b['mcnemar_p']:.3f} "
            f"({b['a_only']}:{b['b_only']}) | {c['max_abs_dp']:.3f} {c['mcnemar_p']:.3f}  "
            f"{'passes' if r['passes'] else 'FAILS'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grazing-shots", type=int, default=60)
    parser.add_argument("--child-shots", type=int, default=20)
    parser.add_argument("--only", help="variants to fire besides today's, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    variants = dict(VARIANTS)
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in VARIANTS]
        if unknown:
            parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
        variants = {label: VARIANTS[label] for label in ["today", *wanted]}
    rows = bench_mujoco_steps(variants, args.child_shots, args.grazing_shots)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print_rows(rows, args.child_shots, args.grazing_shots)


if __name__ == "__main__":
    main()
