"""A whole film as ``piggy film`` makes it, for the command line and a notebook
alike: the shots fired, the video drawn, the truth written with what made it, and
what the setup shows (:mod:`sim.real_toy.plan`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from models.design import Design, design_identity
from models.errors import InputError
from models.grid import Board
from models.identity import board_sha256
from models.layout import Layout
from sim.real_toy.angles import Angles
from sim.real_toy.camera import Camera
from sim.real_toy.film import (
    FILM_STEPS_PER_S,
    FilmSettings,
    fire,
    frame_count,
    truth_rows,
    write_film,
)
from sim.real_toy.plan import plan

#: ``progress(total, unit, label)`` gives ``update(done)``, closed with ``update(None)``.
Progress = Callable[[int, str, str], Callable]


def check_pitches(angles: Angles, design: Design) -> None:
    """Refuse, naming the row, a pitch the design's barrel cannot be set to."""
    launcher = design.launcher
    for row, pitch in enumerate(angles.pitch_deg, start=2):
        if not launcher.pitch_min_deg <= pitch <= launcher.pitch_max_deg:
            raise InputError(
                f"{angles.source} row {row}, column 'pitch_deg': {pitch:g} is outside design "
                f"'{design.name}''s pitch range ({launcher.pitch_min_deg:g} to "
                f"{launcher.pitch_max_deg:g} deg)"
            )


def truth_provenance(
    board: str, design: str, angles: str, seed: int, layout: str | None = None
) -> dict:
    """What made a truth file: the board, the design (its file and sha256), the
    engine and its steps, the angles file, the seed, the layout (its file and
    sha256, or its keyword) and the package's version."""
    from sim.studies.shots.datafiles import package_version

    return {
        "made_by": "piggy film",
        "board": board,
        "board_sha256": board_sha256(board),
        **design_identity(design),
        "engine": "bullet",
        "steps_per_s": f"the design's, at least {FILM_STEPS_PER_S:g}",
        "angles": angles,
        "seed": seed,
        "first_touch": "the bale's first contact with the board, board frame, mm",
        "speed": "the launch speed drawn for the shot, mm/s",
        "rest": "rest_x_mm, rest_y_mm: the bale's centre at rest, board frame, mm; empty "
        "where it left the board or was still moving when the shot's time ran out",
        "second_touch": "second_x_mm, second_y_mm: the bale's next strike after its first "
        "touch, where both were of the board (a landing after a hop), mm; empty otherwise",
        "version": package_version(),
    } | ({} if layout is None else _layout_identity(layout))


def _layout_identity(layout: str) -> dict:
    """The layout a film's shots were fired at: its file and sha256 (a keyword,
    ``crowded`` or ``empty``, names itself), and what ``knocked`` holds."""
    from models.identity import file_sha256

    known = layout in ("crowded", "empty")
    return {
        "layout": layout,
        **({} if known else {"layout_sha256": file_sha256(layout, "layout")}),
        "knocked": "the piggies the shot knocked out (the rulebook's test), sorted, ';'-joined",
    }


def film(
    out: str | Path,
    scene: tuple[Board, Design, Camera],
    angles: Angles,
    settings: FilmSettings,
    seed: int,
    truth: tuple[str | Path, dict] | None = None,
    progress: Progress | None = None,
    layout: Layout | None = None,
) -> dict:
    """Fire the shots (at the piggies of ``layout``, drawn too), write the video to
    ``out`` and, with ``truth`` (a path and its provenance), each shot's truth as
    CSV with a sidecar ``<file>.json``; return what the setup shows
    (:func:`sim.real_toy.plan.plan`) with ``frames``, the video's."""
    from sim.studies.shots.datafiles import write_table

    board, design, camera = scene
    quiet: Progress = lambda total, unit, label: lambda done: None  # noqa: E731
    bar = progress or quiet
    update = bar(len(angles), "shot", "firing")
    takes = fire(board, design, angles, seed, settings, update, layout)
    update(None)
    frames = frame_count(takes, settings)
    update = bar(frames, "frame", "filming")
    piggies = layout is not None
    write_film(out, board, design, camera, takes, settings, seed, update, piggies)
    update(None)
    if truth is not None:
        write_table(truth_rows(takes, board, piggies), truth[0], "csv", truth[1])
    return plan(camera, board, design, takes, settings) | {"frames": frames}
