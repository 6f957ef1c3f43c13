"""The board-mean rule's cached maps shared by every precision (and δ): the pairs of
its looks are fixed before any shot (models/mean_rule.py) and a precision or a δ
chooses only at which look the mean stops. So a comparison's maps are cached under
a key without them (:func:`mean_key`), and a run reads the maps another precision
left:

- **finer maps** (more looks): the answer is taken at the look where this run's rule
  stops, and each space's shots cut there (:func:`as_asked`), as a run of its own
  would have fired them: no shot fired;
- **coarser maps** (fewer looks): the looks go on from them (sim/studies/comparing/
  mean_run.py), "as far as they go".

A space one design does not reach is measured alone by its hit map's rule, whose
shots do depend on the precision: cut where this precision stops
(sim/studies/maps/map_looks.py's ``replayed``), or fired again where they stop short
(:func:`short_alone`)."""

from __future__ import annotations

import dataclasses
import json

from models.board import load_board
from models.mean_rule import MeanRule
from sim.studies.comparing import board_mean
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.studies.maps.hitmap import looks_key
from sim.studies.maps.map_looks import replayed
from sim.studies.shots.records import MeasuredSpace, SpaceShots
from sim.studies.shots.space_firing import summarise
from sim.studies.shots.space_shots import SweepSpec


def mean_key(spec: SweepSpec, rule: ComparisonRule) -> str:
    """What makes a board-mean comparison's shots: the settings but the precision, the
    rule's constants but δ."""
    assert rule.mean is not None
    constants = dataclasses.asdict(dataclasses.replace(rule.mean, delta=None))
    settings = looks_key(dataclasses.replace(spec, design=""))
    return f"mean|{json.dumps(constants, sort_keys=True)}|{settings}"


def _alone(parts: list[SpaceShots | None]) -> bool:
    """A space measured alone: design A, or every other design, does not reach it."""
    return not parts[0].reachable or not any(p.reachable for p in parts[1:])  # type: ignore[union-attr]


def short_alone(spec: SweepSpec, found: list[list[MeasuredSpace]]) -> set[str]:
    """The spaces measured alone whose cached shots stop short of this precision (a
    coarser run's): fired again from their first shot (the same shots, and more)."""
    short = set()
    for by_design in zip(*found, strict=True):
        parts = [m.part for m in by_design]
        if _alone(parts) and any(not replayed(spec, p)[1] for p in parts):
            short.add(parts[0].space)
    return short


def as_asked(
    spec: SweepSpec, rule: MeanRule, found: list[list[MeasuredSpace]]
) -> list[list[MeasuredSpace]]:
    """Each design's map as this rule would have fired it: every space both designs
    reach cut at the look where its comparison's mean stops (design A at the last of
    its comparisons'), and every space measured alone where its precision stops."""
    parts = [[m.part for m in f] for f in found]
    stops = [board_mean.replay(rule, parts[0], p).looks for p in parts[1:]]
    pairs = [rule.looks()[max(stops) - 1], *(rule.looks()[s - 1] for s in stops)]
    board = load_board(spec.board)
    out: list[list[MeasuredSpace]] = [[] for _ in found]
    for by_design in zip(*found, strict=True):
        spaces = [m.part for m in by_design]
        for index, measured in enumerate(by_design):
            part = measured.part
            if _alone(spaces):
                cut = replayed(spec, part)[0]
            elif part.reachable:
                cut = dataclasses.replace(part, shots=part.shots[: pairs[index]])
            else:
                cut = part
            out[index].append(
                measured if cut is part else MeasuredSpace(cut, summarise(cut, board))
            )
    return out
