"""The physics engines a shot can run on: Bullet (:class:`sim.physics.world.World`,
the default) and MuJoCo (:class:`sim.physics.mujoco_world.MujocoWorld`, an optional
extra). Both are built from the same data (:mod:`sim.physics.bodies`), fire the same
shot and return the same :class:`~sim.physics.results.ShotResult`; a design names
its engine (``[physics] engine``) and ``--engine`` chooses another."""

from __future__ import annotations

import dataclasses
from typing import Any

from models.board import Board
from models.design import ENGINES, Design
from models.errors import InputError, install_hint
from models.layout import Layout
from models.text import shown


def check_engine(name: str) -> str:
    """An engine's name, refused on one line when it is unknown or, for MuJoCo, not
    installed (with the command that installs it)."""
    if name not in ENGINES:
        raise InputError(f"unknown engine {shown(name)}: allowed are {', '.join(ENGINES)}")
    if name == "mujoco":
        try:
            import mujoco  # noqa: F401
        except ImportError:
            raise InputError(
                f"the mujoco engine needs MuJoCo, an optional extra: {install_hint('mujoco')}"
            ) from None
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
) -> Any:
    """A shot engine on the design's engine (or ``engine``), built like
    :class:`sim.physics.world.World`."""
    design = with_engine(design, engine)
    if check_engine(design.physics.engine) == "mujoco":
        from sim.physics.mujoco_world import MujocoWorld

        return MujocoWorld(board, design, layout, hit_rule=hit_rule, bale_to_rest=bale_to_rest)
    from sim.physics.world import World

    return World(board, design, layout, hit_rule=hit_rule, bale_to_rest=bale_to_rest)
