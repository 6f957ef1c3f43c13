"""Bullet's results pinned whole: five seeded shots at a crowded corner of the stock
board, each one's whole record (``ShotResult.to_dict``: what the bale struck and
where, in order, every piggy's verdict and where it came to rest) against
golden_shots.json beside this file. A verdict alone misses a change such as the
strike gap the engines share (0.02 s to 0.025 s: two of these shots then log
fewer strikes, 4 to 3 and 6 to 4, with the same piggies knocked out).

Same seed, same result holds for one PyBullet build on one kind of processor (the
figures here are x86-64's, the pinned pybullet's). A change to the physics that is
meant changes this file too: remake it with
``python -c "from tests.sim.physics.test_golden_shots import write; write()"``
and say in the commit why every shot moved.
"""

import json
from pathlib import Path

from models.board import load_board
from models.design import load_design
from models.layout import layout_from_dict
from sim.physics import aim
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot

GOLDEN = Path(__file__).with_name("golden_shots.json")
#: A stack and two lone piggies: strikes of bale on piggy, piggy after piggy, the board.
STACKS = {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"], "r7c2": ["green-1"]}
#: Each shot: the piggy aimed at (the low arc) and the seed of its noise.
SHOTS = (("gold-2", 1), ("gold-2", 2), ("blue-1", 3), ("green-1", 4), ("pink-1", 5))


def fired() -> list[dict]:
    """The shots' records, fired in one world in order."""
    board, design = load_board("stock"), load_design("stock")
    records = []
    with BulletWorld(board, design, layout_from_dict({"stacks": STACKS}, board=board)) as world:
        for piggy, seed in SHOTS:
            centre = world.piggy_centre_mm(piggy)
            low = next(s for s in aim.solve(world.design, centre) if s.arc == "low")
            records.append(world.shoot(AimedShot(low.yaw_deg, low.pitch_deg, seed=seed)).to_dict())
    return records


def write() -> None:
    """Remake golden_shots.json (a physics change meant: see the module's docstring)."""
    GOLDEN.write_text(json.dumps(fired(), indent=1) + "\n")


def test_seeded_shots_give_their_whole_records_as_pinned():
    golden = json.loads(GOLDEN.read_text())
    records = json.loads(json.dumps(fired()))  # as the file holds them: lists, not tuples
    assert [r["bale"]["contacts"] for r in records] == [g["bale"]["contacts"] for g in golden]
    assert records == golden
