"""Measured shots made by the sandbox itself: simulated shots on an empty board,
written as a person with a tape measure would (the settings they used, where the
bale first touched the board). The calibration's test and the example file
docs/examples/measured-shots.csv are made this way.
"""

from __future__ import annotations

import csv
import io

from models.board import load_board
from models.design import Design
from models.errors import InputError
from models.seeds import split_seed
from sim.physics.launch import AimedShot
from sim.studies.calibrating.contact_stats import rest_on_board_mm, second_touch_mm
from sim.studies.calibrating.shots_csv import CONTACT, REQUIRED

#: The settings of the example measurement (docs/real-toy.md): five pitches, two
#: steep low shots (their landings show the pitch spread), one just above level and
#: two high arcs (theirs show the speed spread), landing 100-390 mm from the pivot
#: at the stock speed; fired 28 degrees either side of straight ahead, toward the
#: far corners of the stock board, clear of its fences (the nearest, 31 mm aside).
EXAMPLE_PITCHES_DEG = (-30.0, -25.0, 8.0, 64.0, 70.0)
EXAMPLE_YAWS_DEG = (28.0, -28.0)


def example_settings(
    pitches_deg=EXAMPLE_PITCHES_DEG, yaws_deg=EXAMPLE_YAWS_DEG, shots_per_pitch: int = 8
) -> list[tuple[float, float]]:
    """The (pitch, yaw) set for each shot, in the order fired: ``shots_per_pitch`` at
    each pitch, the yaws taken in turn."""
    return [
        (pitch, yaws_deg[k % len(yaws_deg)])
        for pitch in pitches_deg
        for k in range(shots_per_pitch)
    ]


def angles_csv(settings: list[tuple[float, float]]) -> str:
    """The angles file a person writes down while filming (sim/real_toy/angles.py):
    ``pitch_deg``, ``yaw_deg``, one row a shot; docs/examples/angles.csv is
    :func:`example_settings` written so."""
    rows = [",".join(REQUIRED[:2])] + [f"{pitch:g},{yaw:g}" for pitch, yaw in settings]
    return "\n".join(rows) + "\n"


def sandbox_shots_csv(
    design: Design,
    pitches_deg=EXAMPLE_PITCHES_DEG,
    yaws_deg=EXAMPLE_YAWS_DEG,
    shots_per_pitch: int = 8,
    seed: int = 0,
    pitch_offset_deg: float = 0.0,
    yaw_offset_deg: float = 0.0,
    board: str = "stock",
    chronograph: bool = False,
    contact: bool = False,
    settings: list[tuple[float, float]] | None = None,
) -> str:
    """Fire ``shots_per_pitch`` shots at each pitch (yaws taken in turn) with the
    design's noise, and write what was measured as CSV text.

    The barrel really points at the setting plus the offset (a tilt scale that
    reads off); the CSV has the settings. The landing is the first board contact
    of the bale. With ``chronograph`` each row also has the shot's speed. Same
    seed, same file. With ``contact`` each row also has where the bale came to rest on
    the board and its second touch of the board (:data:`CONTACT`; empty where it left
    the board, or did not come down on it a second time). Raises :class:`InputError`
    when a shot touches something else first (a fence, the tractor): choose other
    settings. ``settings`` (pitch, yaw pairs, in order) replaces the grid of pitches
    and yaws.
    """
    from sim.physics.registry import make_world

    columns = [*REQUIRED, *(["speed_mm_s"] if chronograph else []), *(CONTACT if contact else [])]
    board_shape = load_board(board)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    with make_world(board_shape, design) as world:
        fired = settings or example_settings(pitches_deg, yaws_deg, shots_per_pitch)
        for n, (pitch, yaw) in enumerate(fired):
            i, k = (n, 0) if settings else divmod(n, shots_per_pitch)
            shot_seed = split_seed(seed, i, k)
            shot = world.shoot(
                AimedShot(yaw + yaw_offset_deg, pitch + pitch_offset_deg, seed=shot_seed)
            )
            landing = shot.first_contact_mm
            if shot.first_contact_with != "board" or landing is None:
                raise InputError(
                    f"a sandbox shot at yaw {yaw:g}, pitch {pitch:g} deg first "
                    f"touched {shot.first_contact_with or 'nothing'}, not the board: "
                    "choose other settings"
                )
            x, y, _ = landing
            row = [f"{pitch:g}", f"{yaw:g}", f"{x:.1f}", f"{y:.1f}"]
            if chronograph:
                row.append(f"{shot.speed_mm_s:.0f}")
            if contact:
                for point in (rest_on_board_mm(shot, board_shape), second_touch_mm(shot)):
                    row += [f"{v:.1f}" for v in point[:2]] if point else ["", ""]
            writer.writerow(row)
    return out.getvalue()
