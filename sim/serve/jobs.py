"""What the sandbox's worker processes do: stand a layout, solve an aim, fire a
shot, measure how likely a hit is. Plain functions of plain values (they travel
to the workers); each worker keeps its worlds in its world cache
(sim/physics/world_cache.py), shared with the hit-map estimates it measures.

A shot is :mod:`sim.physics.shoot`'s, as ``piggy shoot`` fires it: the same aim,
seed and noise give the same shot JSON and the same words. An estimate is one look
of the hit map's own rule at a space (:func:`sim.studies.shots.space_firing.advance`),
going on from the shots already fired.
"""

from __future__ import annotations

import functools
import os
import signal

from models.aimer import aimed_by, load_aimer
from models.board import load_board
from models.design import load_design
from models.design_checks import check_angles
from models.errors import InputError
from models.layout import layout_from_dict
from sim.studies.running.workers import die_with_parent
from sim.studies.shots.records import ShotRow
from sim.studies.shots.space_firing import advance, summarise
from sim.studies.shots.space_shots import SweepSpec


def start_worker(parent_pid: int) -> None:
    """Run in each worker as it starts: die with the server; leave Ctrl-C to it (the
    server stops its workers itself, so they need not print a traceback each)."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _world(
    board: str, design: str, stacks: dict, engine: str | None, hit_rule: str = "touches-line"
):
    """The worker's world for ``board`` and ``design`` on ``engine`` (None: the
    design's own, resolved here: the job is where it is built), its layout set to
    ``stacks``."""
    from sim.physics.registry import resolve
    from sim.physics.world_cache import WORLDS

    world = WORLDS.world(load_board(board), resolve(load_design(design), engine), hit_rule=hit_rule)
    world.set_layout(
        layout_from_dict({"stacks": stacks}, board=world.board, source="the sandbox's layout")
    )
    return world


def plain_errors(job):
    """A job whose refusals reach the server as plain :class:`InputError` (some of its
    subclasses take arguments that would not come back through pickling)."""

    @functools.wraps(job)
    def run(*args):
        try:
            return job(*args)
        except InputError as exc:
            raise InputError(str(exc)) from None

    return run


@plain_errors
def look(board: str, design: str, stacks: dict, aim: dict, engine: str | None = None) -> dict:
    """What the page draws between shots: the piggies' resting poses on the layout
    (name -> [position mm, quaternion]) and the aim as yaw and pitch, or why the
    aim cannot be taken (``aim_error``)."""
    world = _world(board, design, stacks, engine)
    poses = {name: list(pose) for name, pose in world.rest_poses_mm().items()}
    try:
        return {"poses": poses, "solved": _aim(world, aim).to_dict(), "aim_error": None}
    except InputError as exc:
        return {"poses": poses, "solved": None, "aim_error": str(exc)}


def _aim(world, aim: dict):
    from sim.physics import shoot

    if "at" in aim:
        arc = aim.get("arc")
        return shoot.solve_aim(world, aim["at"], arc or "low", strict=arc is not None)
    check_angles(world.design, aim["yaw_deg"], aim["pitch_deg"])
    return shoot.Aim(aim["yaw_deg"], aim["pitch_deg"])


@plain_errors
def fire(
    board: str,
    design: str,
    stacks: dict,
    aim: dict,
    seed: int,
    noise: bool,
    aimer: str,
    engine: str | None = None,
) -> dict:
    """One shot as ``piggy shoot`` fires it: its JSON, its words and its replay (the
    frames of :func:`sim.views.viewer.shot_data`, without the scene)."""
    from sim.physics import shoot
    from sim.physics.launch import AimedShot
    from sim.views.viewer import shot_data

    world = _world(board, design, stacks, engine)
    shot_aim = _aim(world, aim)
    shot_aimer = load_aimer(aimer)
    shot = AimedShot(shot_aim.yaw_deg, shot_aim.pitch_deg, seed, noise=noise, aimer=shot_aimer)
    result = shoot.fire(world, shot, record=True)
    data = shoot.report(world, shot_aim, shot, result)
    replay = shot_data(world.board, world.design, result, with_scene=False)
    return {
        "shot": data,
        "text": f"{aimed_by(shot_aimer)}\n{shoot.describe(shot_aim, result, world.board)}",
        "replay": replay,
        "pid": os.getpid(),
    }


@plain_errors
def estimate(spec: SweepSpec, space: str, fired: tuple[ShotRow, ...], target: str) -> dict:
    """One look of the hit map's rule at ``space`` and its ``target`` (:func:`advance`:
    the piggy aimed at, or the one stood alone on an empty space), going on from
    the shots ``fired`` at earlier looks: the shots it added (``rows``), and what the
    hit map would say of the space now: the shots so far, P(target knocked out) and
    its 95 % interval (:func:`summarise`, RQMC's interval with the RQMC sampler).
    ``done``: the rule has stopped (the precision or the cap reached, or the space out
    of reach)."""
    part, stopped = advance(spec, space, fired, looks=1, target=target)
    row = summarise(part, load_board(spec.board))
    return {
        "rows": part.shots[len(fired) :],
        "space": space,
        "target": part.target,
        "reachable": part.reachable,
        "arc": part.arc,
        "shots": row.shots,
        "p": row.p_target,
        "interval": None if row.p_target is None else [row.p_target_ci_low, row.p_target_ci_high],
        "done": stopped,
    }
