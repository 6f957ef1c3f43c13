"""One hit map space's shots as a MuJoCo Warp batch fires them (the gpu extra,
:mod:`sim.physics.warp.batch`; docs/gpu.md): a fixed number of shots at the
space's aim (no ``precision``: a batch is sized before it is fired), from its
one noise plan (:func:`sim.studies.shots.space_shots.noise_plan`).

    batch = WarpBatch(world)
    target, aim = aim_at_space(batch.world, spec, "r0c3")
    results = batch.fire(space_shots(spec, "r0c3", aim))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.board import load_board
from models.errors import InputError
from sim.studies.shots import rqmc
from sim.studies.shots.space_shots import SweepSpec, noise_plan

if TYPE_CHECKING:
    from sim.physics.launch import AimedShot
    from sim.physics.shoot import Aim


def space_shots(spec: SweepSpec, name: str, aim: Aim) -> list[AimedShot]:
    """Each of a space's ``spec.shots`` shots fired at ``aim``, in the order the hit
    map fires them."""
    if spec.precision is not None:
        raise InputError("a warp batch fires a fixed number of shots: no precision")
    space = load_board(spec.board).parse_space(name)
    rounds = spec.shots if spec.sampler != "rqmc" else rqmc.plan(spec.shots, None)[2]
    return [planned.shot for planned in noise_plan(spec, space, 0, rounds, aim)]
