"""The physical shot resolver: what a Go Piggy Go! tractor shot knocks out, decided
by one PyBullet shot (referee.shots describes the protocol).

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
from sim.physics.engines import make_world
from sim.physics.results import ShotResult
from sim.physics.world import World


class PhysicalResolver:
    """Shots resolved in PyBullet. One world per board, built on the first shot.

    ``last`` holds the most recent :class:`~sim.physics.world.ShotResult` (``None`` after
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
        self._world: World | None = None
        self.last: ShotResult | None = None

    def _world_for(self, board: Board) -> World:
        if self._world is None or self._world.board != board:
            if self._world is not None:
                self._world.close()
            self._world = make_world(board, self.design, hit_rule=self.hit_rule)
        return self._world

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
        result = shoot.fire(world, shot_aim, seed=seed, aimer=self.aimer)
        self.last = result
        return [(tuple(result.knocked), 1.0)]

    def close(self) -> None:
        if self._world is not None:
            self._world.close()
            self._world = None
