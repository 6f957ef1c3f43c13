"""The physics engines a shot can run on, and the registry that names them: Bullet
(:class:`sim.physics.bullet.world.BulletWorld`, the default) and MuJoCo
(:class:`sim.physics.mujoco.world.MujocoWorld`, an optional extra). Every engine is
an adapter in its own folder, built from the same data (:mod:`sim.physics.bodies`),
firing the same :class:`~sim.physics.launch.Launch` and returning the same
:class:`~sim.physics.results.ShotResult` through the engine-neutral core
(:mod:`sim.physics.engine`); a design names its engine (``[physics] engine``) and
``--engine`` chooses another.

The engine is resolved once, where a spec, a scene or a serve job is built
(:func:`resolve`: the design's own, None, or the one asked for, checked there); from
then on it is the design's ``[physics] engine``, and what a file records of it is
the registry's answer (:func:`provenance`), so no study asks which engine it is.

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
    messages, the optional extra that installs it (None: one of the project's own
    dependencies), and, as ``module:function`` of the design and ``vary``, what a hit
    map records of the engine (None: nothing, Bullet's: a file without ``engine``
    was made by Bullet, as every file before there was a choice)."""

    name: str
    world: str
    needs: str
    called: str
    extra: str | None
    provenance: str | None


#: The engines, one line each (their names are models.design.ENGINES, in this order).
REGISTRY = {
    engine.name: engine
    for engine in (
        Engine(
            "bullet",
            "sim.physics.bullet.world:BulletWorld",
            "sim.physics.bullet",
            "PyBullet",
            None,
            None,
        ),
        Engine(
            "mujoco",
            "sim.physics.mujoco.world:MujocoWorld",
            "mujoco",
            "MuJoCo",
            "mujoco",
            "sim.physics.mujoco.batch:engine_provenance",
        ),
        Engine(
            "mujoco-warp",
            "sim.physics.warp.world:WarpWorld",
            "mujoco_warp",
            "MuJoCo Warp",
            "gpu",
            "sim.physics.warp.world:engine_provenance",
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


def resolve(design: Design, name: str | None) -> Design:
    """``design`` as it is simulated: on the engine ``name`` (None: the design's own),
    that engine refused here on one line when unknown or not installed. Applied once,
    where a spec, a scene or a serve job is built; from then on the engine is the
    design's ``[physics] engine``."""
    return with_engine(design, check_engine(name or design.physics.engine))


def with_engine(design: Design, engine: str | None) -> Design:
    """``design`` simulated by ``engine`` (None: its own), not checked: for an engine
    resolved already (a sweep's, told to its workers by name)."""
    if engine is None or engine == design.physics.engine:
        return design
    return dataclasses.replace(design, physics=dataclasses.replace(design.physics, engine=engine))


def provenance(design: Design, vary: dict[str, float] | None) -> dict:
    """What a hit map of ``design`` (its engine resolved) with ``vary`` records of
    its engine: the registry's answer (:attr:`Engine.provenance`)."""
    told = REGISTRY[design.physics.engine].provenance
    if told is None:
        return {}
    module, name = told.split(":")
    said: dict = getattr(importlib.import_module(module), name)(design, vary)
    return said


def make_world(
    board: Board,
    design: Design,
    layout: Layout | None = None,
    *,
    hit_rule: str = "touches-line",
    bale_to_rest: bool = True,
) -> ShotEngine:
    """A shot engine on the design's engine (as :func:`resolve` gives it), built as
    each engine's world is: ``BulletWorld(board, design, layout, hit_rule=...,
    bale_to_rest=...)``. An engine not installed that no boundary resolved is told
    here, on the same one line."""
    module, name = REGISTRY[design.physics.engine].world.split(":")
    try:
        world = getattr(importlib.import_module(module), name)
    except ImportError:
        check_engine(design.physics.engine)  # the refusal in words
        raise
    built: ShotEngine = world(board, design, layout, hit_rule=hit_rule, bale_to_rest=bale_to_rest)
    return built
