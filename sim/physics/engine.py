"""What every shot engine is, written once: the scene the judge reads
(:class:`JudgedScene`, and :class:`ShotScene` the callers), the engine its callers
fire through (:class:`ShotEngine`), and what the engines share
(:class:`FiringEngine`: the scene's data for callers, and ``shoot`` and ``launch``
turned into a :class:`~sim.physics.launch.Launch` that the engine runs). The engines
are adapters, each in its own folder (sim/physics/bullet/, sim/physics/mujoco/),
named in the registry of :mod:`sim.physics.registry`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, Self

import numpy as np

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.geometry import BodyPose, PiggyModel
from sim.physics.launch import AimedShot, Launch, euler_turn, launch_from, launch_state
from sim.physics.materials import Materials
from sim.physics.results import ShotResult

#: A point or a velocity (3,): x, y, z.
Vector = Sequence[float] | np.ndarray


class JudgedScene(Protocol):
    """What the judge (:class:`sim.physics.judge.Judge`) reads of a scene: what it
    was made of, its piggies' bodies by name and their poses now."""

    board: Board
    layout: Layout
    hit_rule: str
    model: PiggyModel

    @property
    def piggy_bodies(self) -> Mapping[str, int]: ...

    def piggy_pose(self, piggy: str) -> BodyPose: ...


class ShotScene(JudgedScene, Protocol):
    """An engine's scene as the engine's callers read it: also its design, its
    present materials' factors, and letting it go."""

    design: Design
    materials: Materials

    def close(self) -> None: ...


class ShotEngine(Protocol):
    """A shot engine, as its callers use it (``make_world`` returns one)."""

    engine: str
    bale_to_rest: bool

    @property
    def board(self) -> Board: ...

    @property
    def design(self) -> Design: ...

    @property
    def layout(self) -> Layout: ...

    @property
    def hit_rule(self) -> str: ...

    def shoot(
        self,
        shot: AimedShot,
        *,
        record_every: int = 0,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult: ...

    def launch(
        self,
        position_mm: Vector,
        velocity_mm_s: Vector,
        orientation: Sequence[float] = (0, 0, 0, 1),
        *,
        record_every: int = 0,
        reset: bool = True,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult: ...

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]: ...

    def set_layout(self, layout: Layout) -> None: ...

    def reset(self, tractor_yaw_deg: float = 0.0) -> None: ...

    def rest_poses_mm(self) -> dict[str, tuple[list[float], list[float]]]: ...

    def piggy_centre_mm(self, piggy: str) -> np.ndarray: ...

    def piggy_pose_mm(self, piggy: str) -> tuple[np.ndarray, np.ndarray]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


class FiringEngine(ABC):
    """What the engines share: the constructor (``World(board, design, layout,
    hit_rule=..., bale_to_rest=...)``: the engine makes its scene and prepares the
    layout), the scene's data for callers, read from ``self.scene``, and the two ways
    to fire, each made a :class:`Launch` that the engine starts (:meth:`_start`:
    reset for the shot) and runs (:meth:`_run`).

    ``bale_to_rest=False`` makes a world for studies that count verdicts and strikes
    only: a shot may then end while the bale still slides, once nothing but the board
    is within its reach (it can strike nothing more, so every verdict and every
    strike but its last touches of the board are the same; ``rest_mm`` is then where
    it was, and ``sim_time_s`` shorter; docs/physics.md, "The bale's early verdict").
    """

    scene: ShotScene
    engine: str

    def __init__(
        self,
        board: Board,
        design: Design,
        layout: Layout | None = None,
        *,
        hit_rule: str = "touches-line",
        bale_to_rest: bool = True,
    ):
        self.bale_to_rest = bale_to_rest
        self.scene = self._make_scene(board, design, layout, hit_rule)
        self._prepare_layout()

    @abstractmethod
    def _make_scene(
        self, board: Board, design: Design, layout: Layout | None, hit_rule: str
    ) -> ShotScene:
        """The engine's scene of the board, design and layout."""

    @abstractmethod
    def _prepare_layout(self) -> None:
        """Settle the scene's layout, keep what every shot starts from, and judge the
        layout as it stands."""

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

    def shoot(
        self,
        shot: AimedShot,
        *,
        record_every: int = 0,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult:
        """Turn and tilt the tractor as ``shot`` asks, fire one bale with its noise
        drawn, and judge every piggy.

        ``record_every``: record every body's pose every this many of the engine's
        steps (0: not at all). ``on_step``: called after every step (the sandbox uses
        it to play in real time).
        """
        launch = self.aimed_launch(shot)
        self._start(launch)
        return self._run(launch, record_every, on_step)

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]:
        """Fire these shots (a space's, or a look's), their results in the same order:
        each the same as :meth:`shoot` gives it. Here one by one; an engine that
        steps shots together overrides this."""
        return [self.shoot(shot) for shot in shots]

    def aimed_launch(self, shot: AimedShot) -> Launch:
        """The launch :meth:`shoot` fires (for an engine that starts shots its own
        way: a batch)."""
        return launch_state(self.design, shot, self.turn)

    def launch(
        self,
        position_mm: Vector,
        velocity_mm_s: Vector,
        orientation: Sequence[float] = (0, 0, 0, 1),
        *,
        record_every: int = 0,
        reset: bool = True,
        on_step: Callable[[], None] | None = None,
    ) -> ShotResult:
        """Release the bale anywhere with any velocity (mm, mm/s), run, and judge.

        :meth:`shoot` is this with the bale at the muzzle; tests use it directly to
        fire from close range or under a piggy's belly. The result's aim is the
        velocity's heading (yaw 0 along +y, positive toward -x) and its climb.
        """
        if reset:
            self.reset()
        launch = launch_from(position_mm, velocity_mm_s, orientation, self.scene.materials)
        return self._run(launch, record_every, on_step)

    def turn(self, yaw_deg: float, pitch_deg: float) -> list[float]:
        """The bale's orientation (x, y, z, w) for an aim (Bullet: its own Euler
        quaternion, which rounds otherwise)."""
        return euler_turn(yaw_deg, pitch_deg)

    @abstractmethod
    def reset(self, tractor_yaw_deg: float = 0.0) -> None:
        """Back to the settled layout (what every shot starts from)."""

    @abstractmethod
    def _start(self, launch: Launch) -> None:
        """Back to the settled layout for this shot: its materials, the tractor turned."""

    @abstractmethod
    def _run(
        self, launch: Launch, record_every: int, on_step: Callable[[], None] | None
    ) -> ShotResult:
        """Release the bale, step until everything is at rest (or the cap), and judge."""

    def close(self) -> None:
        """Let the engine go (also done when the scene is garbage-collected)."""
        self.scene.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
