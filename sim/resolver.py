"""The physical shot resolver: what a Go Piggy Go! tractor shot knocks out, decided
by one physics shot, in the design's engine (referee.shots describes the protocol).

For each shot: stand the game's current position on the board, aim at the target
with the aim solver (the low arc where there is one), fire one shot with the
launcher's noise and the aimer's error, and return what the physics knocked out.
The noise is seeded from the resolver's seed and the game's shot number, so a game
replays the same.
"""

from __future__ import annotations

from models.aimer import PERFECT, Aimer
from models.board import Board
from models.design import Design
from models.layout import layout_from_dict
from models.seeds import split_seed
from sim.physics import shoot
from sim.physics.aim import OutOfReach
from sim.physics.engine import ShotEngine
from sim.physics.launch import AimedShot
from sim.physics.registry import resolve
from sim.physics.results import ShotResult
from sim.physics.world_cache import WORLDS


class PhysicalResolver:
    """Shots resolved by the physics, in the process's world for the board and design
    (sim/physics/world_cache.py: built on the first shot, shared with whatever else
    in the process fires in it; every shot stands the game's position first).

    ``last`` holds the most recent :class:`~sim.physics.results.ShotResult` (``None`` after
    a target out of reach), for showing what happened.
    """

    def __init__(
        self,
        design: Design,
        hit_rule: str = "touches-line",
        seed: int = 0,
        arc: str = "low",
        aimer: Aimer = PERFECT,
    ):
        self.design, self.hit_rule, self.seed, self.arc = design, hit_rule, seed, arc
        self.aimer = aimer
        self._boards: set[Board] = set()  # the boards shot on, whose worlds close() lets go
        self.last: ShotResult | None = None

    def _world_for(self, board: Board) -> ShotEngine:
        self._boards.add(board)
        return WORLDS.world(board, self.design, hit_rule=self.hit_rule)

    def outcomes(
        self,
        board: Board,
        stacks: dict[str, list[str]],
        shooter: int,
        target: str,
        shot_number: int,
    ) -> list[tuple[tuple[str, ...], float]]:
        world = self._world_for(board)
        world.set_layout(layout_from_dict({"stacks": stacks}, board=board, source="game"))
        try:
            shot_aim = shoot.solve_aim(world, target, self.arc)
        except OutOfReach:
            self.last = None
            return [((), 1.0)]
        seed = split_seed(self.seed, shot_number)
        result = shoot.fire(
            world, AimedShot(shot_aim.yaw_deg, shot_aim.pitch_deg, seed, aimer=self.aimer)
        )
        self.last = result
        return [(tuple(result.knocked), 1.0)]

    def close(self) -> None:
        """Close the worlds this resolver shot in now, rather than when the cache lets
        them go (another user of one builds it again)."""
        for board in self._boards:
            WORLDS.discard(board, self.design, hit_rule=self.hit_rule)
        self._boards.clear()


def physical_resolver(
    design: Design, aimer: Aimer, hit_rule: str, seed: int
) -> tuple[PhysicalResolver, dict]:
    """``--shots physics``: the resolver of ``design`` aimed by ``aimer`` (both read
    by the command, before this module's physics is imported), and what decides its
    shots, for the output."""
    # the design's engine resolved as the resolver is built: refused before the game
    resolver = PhysicalResolver(resolve(design, None), hit_rule=hit_rule, seed=seed, aimer=aimer)
    return resolver, {
        "resolver": "physics",
        "design": design.name,
        "aimer": aimer.name,
        "hit_rule": hit_rule,
    }
