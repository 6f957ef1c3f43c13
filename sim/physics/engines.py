"""The physics engines a shot can run on, and the registry that names them: Bullet
(:class:`sim.physics.bullet.world.World`, the default) and MuJoCo
(:class:`sim.physics.mujoco.world.MujocoWorld`, an optional extra). Every engine is
an adapter in its own folder, built from the same data (:mod:`sim.physics.bodies`),
firing the same :class:`~sim.physics.launch.Launch` and returning the same
:class:`~sim.physics.results.ShotResult` through the engine-neutral core
(:mod:`sim.physics.engine`); a design names its engine (``[physics] engine``) and
``--engine`` chooses another.

The registry names each engine's world by its module path, imported only when
that engine is asked for: nothing here imports PyBullet or MuJoCo, and an engine
that is not installed is refused on one line naming what installs it
(docs/architecture.md, "A third engine").
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from models.board import Board
from models.design import ENGINES, Design
from models.errors import InputError, install_hint
from models.layout import Layout
from models.text import shown

if TYPE_CHECKING:  # the engine core imports numpy: a bad --engine is told before it
    from sim.physics.engine import ShotEngine


@dataclass(frozen=True)
class Engine:
    """An engine of the registry: its name (a design's ``[physics] engine``), its
    world as ``module:class``, the module that imports what it needs (PyBullet is
    imported quietly by :mod:`sim.physics.bullet`) and what that is called in
    messages, and the optional extra that installs it (None: one of the project's
    own dependencies)."""

    name: str
    world: str
    needs: str
    called: str
    extra: str | None


#: The engines, one line each (their names are models.design.ENGINES, in this order).
REGISTRY = {
    engine.name: engine
    for engine in (
        Engine("bullet", "sim.physics.bullet.world:World", "sim.physics.bullet", "PyBullet", None),
        Engine("mujoco", "sim.physics.mujoco.world:MujocoWorld", "mujoco", "MuJoCo", "mujoco"),
        Engine(
            "mujoco-warp",
            "sim.physics.mujoco.warp_world:WarpWorld",
            "mujoco_warp",
            "MuJoCo Warp",
            "gpu",
        ),
    )
}


def check_engine(name: str) -> str:
    """An engine's name, refused on one line when it is unknown or not installed
    (with the command that installs it)."""
    if name not in ENGINES:
        raise InputError(f"unknown engine {shown(name)}: allowed are {', '.join(ENGINES)}")
    engine = REGISTRY[name]
    try:
        importlib.import_module(engine.needs)
    except ImportError:
        how = (
            f"an optional extra: {install_hint(engine.extra)}"
            if engine.extra
            else "a dependency of the project: pip install -e . in a checkout"
        )
        raise InputError(f"the {name} engine needs {engine.called}, {how}") from None
    return name


def installed(name: str) -> bool:
    """Whether the engine ``name`` can run here (MuJoCo is an optional extra)."""
    try:
        check_engine(name)
    except InputError:
        return False
    return True


def with_engine(design: Design, engine: str | None) -> Design:
    """``design`` simulated by ``engine`` (None: its own)."""
    if not engine or engine == design.physics.engine:
        return design
    return dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, engine=check_engine(engine))
    )


def make_world(
    board: Board,
    design: Design,
    layout: Layout | None = None,
    *,
    hit_rule: str = "touches-line",
    bale_to_rest: bool = True,
    engine: str | None = None,
) -> ShotEngine:
    """A shot engine on the design's engine (or ``engine``), built as each engine's
    world is: ``World(board, design, layout, hit_rule=..., bale_to_rest=...)``."""
    design = with_engine(design, engine)
    module, name = REGISTRY[check_engine(design.physics.engine)].world.split(":")
    world = getattr(importlib.import_module(module), name)
    built: ShotEngine = world(board, design, layout, hit_rule=hit_rule, bale_to_rest=bale_to_rest)
    return built
