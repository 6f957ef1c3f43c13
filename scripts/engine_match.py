"""The physical quantities the contact model encodes, measured by the same scripted
experiments in both engines (Bullet and MuJoCo), against their closed forms.

    python scripts/engine_match.py [--json]

- **Drop**: the stock bale falls flat onto the board from 50 mm (990 mm/s at the
  board); its bounce's apex gives the restitution of bale on board, e = √(h₁/h₀'),
  against the design's product 0.5 × 0.5 = 0.25.
- **Slide**: the bale set down on the board moving at 400 mm/s slides to rest; its
  distance gives the friction of bale on board, μ = v² / (2 g d), against 0.5 × 0.5.
- **Strike**: the bale flies level at 1,000 mm/s into a lone piggy's middle; the
  piggy's top speed just after (in the next 10 ms: a soft contact pushes over a few
  steps) against the closed form of a free collision with the restitution of bale
  on piggy (0.5 × 0.3): v = (1 + e) m_b v_b / (m_b + m_p) (the piggy's friction and
  turning left out: an upper bound).
- **Release**: a solver-aimed shot at r9c3 with no noise: where the bale first
  comes down (its first contact), against the closed-form landing.
- **Settle**: a lone piggy put down on a space: how far it sinks and tilts.
- **Shots** (``--shots N``): N child's shots in each engine, at every piggy of the
  crowded layout (stacks among them) and at a lone piggy on every space in turn:
  how many went unstable (MuJoCo's bad accelerations, which it resets silently;
  Bullet has no such report) and how many did not come to rest within the cap.
- **Discordant** (``--discordant N --spaces r2c3,r9c2``): N child's shots at a lone
  piggy on each space, the hit map's seeds, fired by both engines as hit maps fire
  them: how often each engine alone knocked the piggy out, and what the bale struck
  first in those shots (which contact decides where the engines differ).

Each engine's figure is printed beside the closed form; the MuJoCo settings that
docs/physics.md gives were chosen with it.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter

import numpy as np

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import load_design
from models.layout import layout_from_dict, load_layout
from sim.physics import shoot
from sim.physics.aim import OutOfReach
from sim.physics.ballistics import GRAVITY_MM_S2, closed_form_landing
from sim.physics.bodies import pair_friction, pair_restitution
from sim.physics.launch import AimedShot
from sim.physics.registry import make_world, resolve
from sim.studies.shots.space_shots import TARGET, shot_seed

#: The drop's height (mm, the bale's bottom above the board) and the slide's speed.
DROP_MM = 50.0
SLIDE_MM_S = 400.0
STRIKE_MM_S = 1000.0


def drop(world) -> float:
    """The restitution of bale on board from one drop."""
    half = world.design.bale.height_mm / 2
    result = world.launch([120.0, 0.0, half + DROP_MM], [0.0, 0.0, 0.0], record_every=1)
    z = result.recording.bale_mm[:, 2] - half
    first = int(np.argmax(z < 0.5))  # the first touch
    apex = float(np.max(z[first:]))
    return math.sqrt(max(apex, 0.0) / DROP_MM)


def slide(world) -> float:
    """The friction of bale on board from one slide."""
    half = world.design.bale.height_mm / 2
    start = np.array([120.0, -100.0, half + 0.05])
    result = world.launch(start, [0.0, SLIDE_MM_S, 0.0], record_every=1)
    distance = float(np.linalg.norm(np.array(result.rest_mm[:2]) - start[:2]))
    return SLIDE_MM_S**2 / (2 * GRAVITY_MM_S2 * distance)


def strike(world, space: str = "r9c5") -> float:
    """A lone piggy's top speed (mm/s) in the 10 ms after the bale strikes it level."""
    board = world.board
    world.set_layout(layout_from_dict({"stacks": {space: ["gold-1"]}}, board=board))
    centre = world.piggy_centre_mm("gold-1")
    start = centre - np.array([0.0, 40.0, 0.0])  # clear of its tail (21.75 mm)
    result = world.launch(start, [0.0, STRIKE_MM_S, 0.0], record_every=1)
    recording = result.recording
    piggy = recording.piggies_mm["gold-1"]
    speed = np.linalg.norm(np.diff(piggy, axis=0), axis=1) / recording.dt_s
    first = int(np.argmax(speed > 20.0))  # the step it is struck (not its settling tremble)
    return float(np.max(speed[first : first + round(0.01 / recording.dt_s)]))


def release(world, space: str = "r9c3") -> float:
    """How far (mm) from the closed-form landing a solver-aimed, noiseless shot first
    comes down on an empty space."""
    target = shoot.solve_aim(world, space, "low")
    result = shoot.fire(world, AimedShot(target.yaw_deg, target.pitch_deg, noise=False))
    landing, _ = closed_form_landing(
        world.design, target.pitch_deg, 0.0 + world.design.bale.height_mm / 2
    )
    first = np.array(result.first_contact_centre_mm or result.rest_mm)
    return float(abs(math.hypot(first[0], first[1]) - landing))


def settle(world, space: str = "r8c3") -> tuple[float, float]:
    """How far a lone piggy's centre of mass lies below its drop pose (mm), and how
    much it tilts (degrees), once settled."""
    board = world.board
    layout = layout_from_dict({"stacks": {space: ["gold-1"]}}, board=board)
    world.set_layout(layout)
    model = world.scene.model
    dropped = model.drop_poses_mm(board, layout)["gold-1"]
    pose = world.scene.piggy_pose("gold-1")
    up = pose.rotation @ np.linalg.inv(dropped.rotation)
    tilt = math.degrees(math.acos(min(1.0, float(up[2, 2]))))
    return float(dropped.position_mm[2] - pose.position_mm[2]), tilt


def shots(engine: str, count: int) -> dict:
    """``count`` child's shots (see the module docstring): unstable and unsettled."""
    board, design = load_board("stock"), load_design("stock")
    aimer = load_aimer("child")
    world = make_world(board, resolve(design, engine), bale_to_rest=False)
    crowded = load_layout("crowded", board=board)
    targets = [(crowded, piggy) for piggy in sorted(crowded.piggies)]
    targets += [
        (layout_from_dict({"stacks": {space: [TARGET]}}, board=board), TARGET)
        for space in map(space_name, board.spaces)
    ]
    fired = unstable = unsettled = 0
    aimed = []
    for layout, piggy in targets:
        world.set_layout(layout)
        try:
            aimed.append((layout, shoot.solve_aim(world, piggy, "low")))
        except OutOfReach:
            continue
    per_target = -(-count // len(aimed))
    for layout, aim in aimed:
        world.set_layout(layout)
        for index in range(min(per_target, count - fired)):
            fired += 1
            try:
                result = world.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=index, aimer=aimer))
            except RuntimeError:
                unstable += 1
                continue
            unsettled += not result.settled
    return {"shots": fired, "unstable": unstable, "not_at_rest": unsettled}


def discordant(count: int, space: str) -> dict:
    """``count`` child's shots at a lone piggy on ``space`` in both engines: the
    counts of (Bullet knocked it out, MuJoCo did) and, for the shots only one engine
    knocked it out in, what the bale struck first (up to three bodies) in each."""
    board, design, aimer = load_board("stock"), load_design("stock"), load_aimer("child")
    layout = layout_from_dict({"stacks": {space: [TARGET]}}, board=board)
    worlds = {
        engine: make_world(board, resolve(design, engine), layout, bale_to_rest=False)
        for engine in ("bullet", "mujoco")
    }
    aim = shoot.solve_aim(worlds["bullet"], TARGET, "low")
    outcomes: Counter = Counter()
    struck: Counter = Counter()
    for index in range(count):
        seed = shot_seed(0, board.parse_space(space), index)
        results = {
            engine: world.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=aimer))
            for engine, world in worlds.items()
        }
        knocked = tuple(TARGET in r.knocked for r in results.values())
        outcomes[knocked] += 1
        if knocked[0] != knocked[1]:
            firsts = " | ".join(
                f"{engine}: {' '.join(tuple(dict.fromkeys(r.contacts))[:3])}"
                for engine, r in results.items()
            )
            struck[("bullet only" if knocked[0] else "mujoco only") + " — " + firsts] += 1
    for world in worlds.values():
        world.close()
    return {
        "space": space,
        "shots": count,
        "both": outcomes[(True, True)],
        "bullet_only": outcomes[(True, False)],
        "mujoco_only": outcomes[(False, True)],
        "neither": outcomes[(False, False)],
        "first_struck": dict(struck.most_common(6)),
    }


def measure(engine: str) -> dict:
    board, design = load_board("stock"), load_design("stock")
    world = make_world(board, resolve(design, engine))
    out = {
        "drop_restitution": drop(world),
        "slide_friction": slide(world),
        "strike_piggy_mm_s": strike(world),
        "release_landing_miss_mm": release(make_world(board, resolve(design, engine))),
    }
    out["settle_sink_mm"], out["settle_tilt_deg"] = settle(world)
    return {k: round(v, 4) for k, v in out.items()}


def closed_forms() -> dict:
    design = load_design("stock")
    e_piggy = pair_restitution(design, "bale", "piggy")
    m_b, m_p = design.bale.mass_g, design.piggy.mass_g
    return {
        "drop_restitution": pair_restitution(design, "bale", "surface"),
        "slide_friction": pair_friction(design, "bale", "surface"),
        "strike_piggy_mm_s": round((1 + e_piggy) * m_b * STRIKE_MM_S / (m_b + m_p), 4),
        "release_landing_miss_mm": 0.0,
        "settle_sink_mm": 0.2,  # its drop clearance
        "settle_tilt_deg": 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--shots", type=int, default=0, help="also fire this many child's shots in each engine"
    )
    parser.add_argument(
        "--discordant", type=int, default=0, help="this many child's shots a space in both"
    )
    parser.add_argument("--spaces", default="r2c3,r9c2", help="the spaces for --discordant")
    args = parser.parse_args()
    if args.discordant:
        rows = [discordant(args.discordant, space) for space in args.spaces.split(",")]
        if args.json:
            print(json.dumps(rows, indent=1))
            return
        for row in rows:
            print(
                f"{row['space']}: {row['shots']} shots, knocked out by both {row['both']}, "
                f"Bullet only {row['bullet_only']}, MuJoCo only {row['mujoco_only']}, "
                f"neither {row['neither']}"
            )
            for what, n in row["first_struck"].items():
                print(f"  {n:4d}  {what}")
        return
    table = {
        "closed form": closed_forms(),
        "bullet": measure("bullet"),
        "mujoco": measure("mujoco"),
    }
    if args.shots:
        table["shots"] = {engine: shots(engine, args.shots) for engine in ("bullet", "mujoco")}
    if args.json:
        print(json.dumps(table, indent=1))
        return
    keys = list(table["closed form"])
    print(f"{'quantity':26s}" + "".join(f"{k:>14s}" for k in list(table)[:3]))
    for key in keys:
        print(f"{key:26s}" + "".join(f"{table[k][key]:14.4g}" for k in list(table)[:3]))
    for engine, counts in table.get("shots", {}).items():
        print(f"{engine}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
