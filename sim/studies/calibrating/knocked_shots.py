"""Measured shots at a layout made by the sandbox itself: a "toy" (any design) fired
at the angles a child would set, written as ``piggy measure --layout`` writes its CSV
(the angles set, the first touch, the speed, a quality word and the piggies knocked
out). The check's tests and its figures in docs/real-toy.md are made this way: a
film of the same design the check should pass, one of a design with other piggies
it should refuse.
"""

from __future__ import annotations

import csv
import dataclasses
import io

from models.board import Board
from models.design import Design
from models.layout import Layout
from models.seeds import split_seed
from sim.physics.launch import AimedShot

#: The columns written (``piggy measure --layout``'s that the check reads, and the
#: first touch and quality that it reads past).
COLUMNS = ("pitch_deg", "yaw_deg", "x_mm", "y_mm", "speed_mm_s", "quality", "knocked")


def heavier_piggies(design: Design, factor: float) -> Design:
    """``design`` with its piggies ``factor`` times as heavy (a toy the check should
    tell apart: 4x moves the stock board mean by about -0.33)."""
    piggy = dataclasses.replace(design.piggy, mass_g=design.piggy.mass_g * factor)
    return dataclasses.replace(design, name=f"{design.name}-piggies-x{factor:g}", piggy=piggy)


def aimed_angles(
    board: Board,
    design: Design,
    layout: Layout,
    shots: int,
    step_deg: float = 1.0,
) -> list[tuple[float, float]]:
    """``shots`` (pitch, yaw) settings in degrees, aimed at the layout's piggies in turn
    (sorted by name) on the low arc (sim/physics/aim.py), each read off the toy's
    scales to the nearest ``step_deg``: as a child sets them, near but not on the
    solver's aim, so that some shots knock out their piggy and some do not."""
    from sim.physics import shoot
    from sim.physics.world_cache import WORLDS

    world = WORLDS.world(board, design, bale_to_rest=False)
    world.set_layout(layout)
    piggies = sorted(layout.piggies)
    angles = []
    for k in range(shots):
        aim = shoot.solve_aim(world, piggies[k % len(piggies)])
        angles.append((_read(aim.pitch_deg, step_deg), _read(aim.yaw_deg, step_deg)))
    return angles


def _read(angle: float, step_deg: float) -> float:
    return round(angle / step_deg) * step_deg + 0.0  # + 0.0: no "-0" in the file


def sandbox_film_csv(
    toy: Design,
    board: Board,
    layout: Layout,
    angles: list[tuple[float, float]],
    seed: int = 0,
    chronograph: bool = True,
) -> str:
    """Fire the ``toy`` design at each (pitch, yaw) setting with its noise, shot k
    seeded by ``split_seed(seed, k)``, and write what the video would show as CSV
    text (:data:`COLUMNS`; with ``chronograph`` each shot's speed, else the column
    empty). Same seed, same file."""
    from sim.physics.world_cache import WORLDS

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    world = WORLDS.world(board, toy, bale_to_rest=False)
    world.set_layout(layout)
    for k, (pitch, yaw) in enumerate(angles):
        shot = world.shoot(AimedShot(yaw, pitch, seed=split_seed(seed, k)))
        touch = shot.first_contact_mm
        x, y = (f"{touch[0]:.1f}", f"{touch[1]:.1f}") if touch is not None else ("", "")
        speed = f"{shot.speed_mm_s:.0f}" if chronograph else ""
        writer.writerow([f"{pitch:g}", f"{yaw:g}", x, y, speed, "good", ";".join(shot.knocked)])
    return out.getvalue()
