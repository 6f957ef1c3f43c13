"""The ``mujoco-warp`` engine: the MuJoCo engine whose :meth:`fire` (a hit map's
space, a look's shots) runs as one MuJoCo Warp batch
(:class:`~sim.physics.warp.batch.WarpBatch`), on the device Warp picks (a
CUDA GPU where there is one, else the CPU). Everything else is the CPU MuJoCo
engine's: a single shot (``piggy shoot``, a recording, ``on_step``) and a shot with
no batch form (:func:`no_batch_form`: ``--vary``, air drag) are fired by
:class:`~sim.physics.mujoco.world.MujocoWorld`, and a hit map's provenance says so
(:func:`batch_provenance`): never a silently different result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from models.design import Design
from sim.physics.launch import AimedShot
from sim.physics.mujoco.batch import no_batch_form
from sim.physics.mujoco.scene import SETTINGS
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.results import ShotResult


def batch_provenance(design: Design, vary: dict[str, float] | None) -> dict:
    """What a hit map on the ``mujoco-warp`` engine records of how its shots were
    fired: the Warp device of the batches, or why each shot was fired singly."""
    reason = no_batch_form(design, vary)
    if reason:
        return {"warp_batch": f"not used: {reason}; every shot fired singly by MuJoCo on the CPU"}
    from sim.physics.warp.batch import default_device

    return {
        "warp_batch": "each space's shots as one batch, island sleeping off",
        "warp_device": default_device(),
    }


def engine_provenance(design: Design, vary: dict[str, float] | None) -> dict:
    """What a hit map on the ``mujoco-warp`` engine records of it (the registry's
    answer): MuJoCo's settings, and the Warp batch's device or why it was not used."""
    settings = dataclasses.asdict(SETTINGS)
    return {"engine": "mujoco-warp", "engine_settings": settings} | batch_provenance(design, vary)


class WarpWorld(MujocoWorld):
    """The MuJoCo engine with its :meth:`fire` on a MuJoCo Warp batch (module
    docstring)."""

    engine = "mujoco-warp"
    _batch = None

    def fire(self, shots: Sequence[AimedShot]) -> list[ShotResult]:
        """Fire these shots as one batch of MuJoCo Warp worlds; shots with no batch
        form (:func:`no_batch_form`) one by one on the CPU engine."""
        if any(no_batch_form(self.design, shot.vary) for shot in shots):
            return super().fire(shots)
        if self._batch is None:
            from sim.physics.warp.batch import WarpBatch

            self._batch = WarpBatch(self)
        return self._batch.fire(shots)
