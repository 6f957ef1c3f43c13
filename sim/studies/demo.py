"""The demo's studies (``piggy demo``, scripts/gallery.py): its scene, one
solver-aimed shot at a stack, a small seeded hit map and a short bots-only game,
each returned as data (and the hit map and the game's record written where asked)
for the command line or a notebook to draw. The scene and settings are fixed, so
that the demo's files are the same on every machine for a seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from models.aimer import load_aimer
from models.board import Board, load_board
from models.design import Design, load_design
from models.layout import Layout, layout_from_dict

if TYPE_CHECKING:
    from sim.physics.results import ShotResult
    from sim.physics.shoot import Aim

#: The embedded scene: a stack, a lone piggy behind it, neighbours.
DEMO_LAYOUT = {
    "stacks": {
        "r8c3": ["gold-2", "pink-1"],
        "r8c2": ["green-1"],
        "r9c3": ["blue-1"],
        "r2c1": ["green-2"],
        "r7c5": ["pink-3"],
    }
}
DEMO_TARGET = "gold-2"
#: The GIF's camera: behind and above the tractor, framed on the action (sim/views/framing.py).
DEMO_CAMERA = "overview"
#: The hit map's spaces (near, far, behind fences, beside the tractor) and shots each.
HITMAP_SPACES = ["r1c1", "r2c5", "r3c3", "r6c0", "r7c1", "r8c3", "r9c5", "r10c0", "r10c6", "r7c3"]
HITMAP_SHOTS = 6
#: The game's seats: greedy against random.
GAME_BOTS = ["greedy", "random"]


def demo_stacks(board: Board) -> dict[str, list[str]]:
    """The demo's piggies on ``board`` where they fit (the sandbox server's first
    scene); none where they do not."""
    from models.errors import InputError

    try:
        return layout_from_dict(DEMO_LAYOUT, board=board, source="the demo layout").to_dict()[
            "stacks"
        ]
    except InputError:
        return {}


@dataclass
class DemoShot:
    """The demo's shot on the stock board and design, fired at the demo's layout."""

    board: Board
    design: Design
    layout: Layout
    aim: Aim
    result: ShotResult  # recorded, for the pictures and videos
    report: dict  # the shot's JSON (shoot.report)


def demo_shot(seed: int = 0) -> DemoShot:
    """The solver-aimed shot at :data:`DEMO_TARGET`, recorded, with its report."""
    from sim.physics import shoot
    from sim.physics.launch import AimedShot
    from sim.physics.registry import make_world, resolve

    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict(DEMO_LAYOUT, board=board, source="demo layout")
    with make_world(board, resolve(design, None), layout) as world:
        shot_aim = shoot.solve_aim(world, DEMO_TARGET)
        shot = AimedShot(shot_aim.yaw_deg, shot_aim.pitch_deg, seed)
        result = shoot.fire(world, shot, record=True)
        data = shoot.report(world, shot_aim, shot, result)
    return DemoShot(board, design, layout, shot_aim, result, data)


def demo_hitmap(out: Path, seed: int = 0) -> list[dict]:
    """The small hit map (a child aiming at a lone piggy on each of
    :data:`HITMAP_SPACES`), written to ``out`` as CSV; its rows."""
    from sim.studies.maps import hitmap
    from sim.studies.shots import space_shots

    spec = space_shots.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=tuple(HITMAP_SPACES),
        shots=HITMAP_SHOTS,
        seed=seed,
        aimer=load_aimer("child"),
        sampler="mc",  # the demo's seeded files as they were before RQMC was the default
    )
    return hitmap.sweep(spec, out, fmt="csv", resume=True)


def demo_game(record: Path, seed: int = 0):
    """The short bots-only game of :data:`GAME_BOTS`, its record written to
    ``record``; returns the game, its final state and the states replayed from the
    record (what the replay GIF shows)."""
    from referee.bots import make_bot
    from referee.go_piggy_go import GoPiggyGoGame
    from referee.match import play
    from referee.records import read_record, replay, write_record

    game = GoPiggyGoGame(players=2)
    bots = [make_bot(GAME_BOTS[0], game, seed), make_bot(GAME_BOTS[1], game, seed + 1)]
    final = play(game, bots, seed=seed)
    write_record(final, record)
    name, params, actions = read_record(record)
    return game, final, replay(name, params, actions)
