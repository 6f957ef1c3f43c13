"""One hit map space's shots fired as one MuJoCo Warp batch (the gpu extra,
:mod:`sim.physics.mujoco.warp_batch`; docs/gpu.md): the space's layout and aim as
``piggy hitmap`` sets them (:func:`sim.studies.space_shots.aim_at_space`), its
shots' noise as the hit map draws it (plain Monte Carlo's seeds, or RQMC's
scrambled points), every shot at once. A fixed number of shots (no ``precision``:
a batch is sized before it is fired), nominal materials (no ``vary``).

    from sim.studies.warp_space import fire_space
    part = fire_space(SweepSpec(board="stock", design="stock", stacks={}, spaces=("r0c3",),
                                shots=1024, aimer=load_aimer("child"), sampler="rqmc"), "r0c3")
    part.p_target  # P(target knocked out)
"""

from __future__ import annotations

from dataclasses import dataclass

from models.board import load_board
from models.design import load_design
from models.errors import InputError
from sim.physics.mujoco.warp_batch import BatchShot, WarpBatch
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.noise import vary_dims
from sim.studies import rqmc
from sim.studies.space_shots import SweepSpec, _deviates, aim_at_space, shot_seed


@dataclass(frozen=True)
class SpaceBatch:
    """One space's shots from a batch: its target, the aim (None: out of reach, no
    shot) and each shot's :class:`~sim.physics.mujoco.warp_batch.BatchShot`, in the hit
    map's order (shot i, or scramble by scramble, point by point)."""

    space: str
    target: str
    aim: object | None
    shots: tuple[BatchShot, ...]

    @property
    def p_target(self) -> float | None:
        if not self.shots:
            return None
        return sum(self.target in s.knocked for s in self.shots) / len(self.shots)


def space_noises(spec: SweepSpec, name: str) -> list[dict]:
    """The noise of each of a space's ``spec.shots`` shots, as
    :meth:`MujocoWorld.shoot`'s keyword arguments (``seed=`` or ``deviates=``), in the
    order the hit map fires them."""
    if spec.precision is not None:
        raise InputError("a warp batch fires a fixed number of shots: no precision")
    space = load_board(spec.board).parse_space(name)
    if spec.sampler != "rqmc":
        return [{"seed": shot_seed(spec.seed, space, i)} for i in range(spec.shots)]
    scrambles, _, points = rqmc.plan(spec.shots, None)
    dims = 3 + vary_dims(spec.vary)
    noises = []
    for r in range(scrambles):
        seed = rqmc.scramble_seed(spec.seed, space, r)
        z = rqmc.to_deviates(rqmc.scramble_points(seed, dims, points))
        noises += [{"deviates": _deviates(z[j])} for j in range(points)]
    return noises


def fire_space(
    spec: SweepSpec,
    name: str,
    *,
    device: str | None = None,
    batch: WarpBatch | None = None,
) -> SpaceBatch:
    """Fire one space's shots as one batch (``batch``: one made before, reused from
    space to space; else one on ``device``, "cuda" where present)."""
    if spec.vary:
        raise InputError("a warp batch fires nominal materials only: no --vary")
    if batch is None:
        world = MujocoWorld(
            load_board(spec.board),
            load_design(spec.design),
            hit_rule=spec.hit_rule,
            bale_to_rest=False,
        )
        batch = WarpBatch(world, device=device)
    target, aim = aim_at_space(batch.world, spec, name)
    if aim is None:
        return SpaceBatch(name, target, None, ())
    shots = batch.shoot(aim.yaw_deg, aim.pitch_deg, space_noises(spec, name), aimer=spec.aimer)
    return SpaceBatch(name, target, aim, tuple(shots))
