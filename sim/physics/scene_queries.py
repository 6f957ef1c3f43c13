"""What a shot engine tells its callers about its scene, the same in every engine
(Bullet's :class:`sim.physics.world.World`, MuJoCo's
:class:`sim.physics.mujoco_world.MujocoWorld`): the board, design, layout and hit
rule it was made with, where a piggy is now, and letting the engine go."""

from __future__ import annotations

from typing import Protocol, Self

import numpy as np

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.geometry import BodyPose, PiggyModel


class _Scene(Protocol):
    board: Board
    design: Design
    layout: Layout
    hit_rule: str
    model: PiggyModel

    def piggy_pose(self, piggy: str) -> BodyPose: ...

    def close(self) -> None: ...


class SceneQueries:
    """The scene's data for callers, read from ``self.scene`` (set by the engine)."""

    scene: _Scene

    @property
    def board(self) -> Board:
        return self.scene.board

    @property
    def design(self) -> Design:
        return self.scene.design

    @property
    def layout(self) -> Layout:
        return self.scene.layout

    @property
    def hit_rule(self) -> str:
        return self.scene.hit_rule

    def piggy_centre_mm(self, piggy: str) -> np.ndarray:
        """The point to aim at on a piggy now (``PiggyModel.centre_at``); (3,), mm."""
        return self.scene.model.centre_at(self.scene.piggy_pose(piggy))

    def piggy_pose_mm(self, piggy: str) -> tuple[np.ndarray, np.ndarray]:
        """Position (3,), mm, and rotation (3, 3) of a piggy's own frame now."""
        return self.scene.model.own_frame(self.scene.piggy_pose(piggy))

    def close(self) -> None:
        """Let the engine go (also done when the scene is garbage-collected)."""
        self.scene.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
