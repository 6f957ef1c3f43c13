"""The shareable report of two designs compared shot for shot
(``piggy design compare A B --html report.html``): what goes into the page, as data;
sim/views/report_page.py draws it.

The page is one self-contained file: the verdict (the board mean first, then the
spaces counted), the difference map and both hit maps as pictures inside it, the
per-space table (with why the spaces rule stopped at each space), what made it (the
rule and δ among it), and for a few spaces a representative shot of each design in
the 3D viewer (sim/views/viewer.py). A page cannot fire shots once it is sent, so
the shots it shows are recorded when it is written: for at most
:data:`MAX_SPACES_RECORDED` spaces, the significant ones first, then the largest
differences. At each such space the shot shown is a **discordant pair** where
there is one (the same seed, so the same launcher error, aiming error and
``--vary`` factors, fired by A and by B with different outcomes, in the direction
of the difference), else the space's first shot. The shots are fired again with
recording on; their seeds make them the very shots of the hit maps. With ``--vary``
the page also says which guesses each design's board mean depends on most, from its
own shots (:func:`guesses`, sim/studies/maps/sensitivity.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.board import Board, load_board
from models.design import Design
from models.errors import InputError
from sim.studies.comparing import cached_maps, compare, verdict, verdict_words
from sim.studies.comparing.engines_verdict import AcrossEngines
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import space_firing, space_shots
from sim.studies.shots.dead_zones import FEW_SHOTS
from sim.studies.shots.records import (
    ComparisonRow,
    MeasuredSpace,
    ShotRow,
    SpaceShots,
    SpaceSummary,
)

#: Most spaces whose shots the page records (each shot adds about 100 kB to it).
MAX_SPACES_RECORDED = 8
_DEAD_WORDS = {
    "out_of_reach": "out of reach",
    "blocked": "blocked",
    "missed": "missed",
    "never_out": "never out",
}


def recorded_spaces(comparison: compare.Comparison) -> list[str]:
    """The spaces whose shots the page shows: significant first, then by the size of
    the difference, at most :data:`MAX_SPACES_RECORDED`."""
    tested = [r for r in comparison.spaces if r.diff is not None]
    ranked = sorted(tested, key=lambda r: (not r.significant, -abs(r.diff or 0), r.space))
    return [r.space for r in ranked[:MAX_SPACES_RECORDED]]


def representative_shot(
    row: ComparisonRow, part_a: SpaceShots, part_b: SpaceShots
) -> tuple[int, str]:
    """The shot number shown at a space, and why it was chosen."""
    pairs = row.shots
    a, b = compare.outcomes(part_a)[:pairs], compare.outcomes(part_b)[:pairs]
    a_only, b_only = a & ~b, b & ~a
    first, second = (b_only, a_only) if (row.diff or 0) >= 0 else (a_only, b_only)
    for mask in (first, second):
        if mask.any():
            index = int(np.argmax(mask))
            who = "B" if b[index] else "A"
            return index, f"a discordant pair: only {who} knocked the target out"
    return 0, "no discordant pair at this space: the first shot"


def replay(world, spec: space_shots.SweepSpec, name: str, row: ShotRow):
    """Fire the shot of space ``name`` whose hit-map row is ``row`` again, recording;
    ``world`` holds the design."""
    from sim.physics import shoot

    _, aim = space_firing.aim_at_space(world, spec, name)
    shot = space_shots.row_shot(spec, world.board.parse_space(name), row, aim)
    return shoot.fire(world, shot, record=True)


def why(row: SpaceSummary, part: SpaceShots) -> dict:
    """A space's dead zone in words (empty when it is none) and its shots' outcomes:
    shares of knocked, stayed, blocked (by what, most often) and missed."""
    shots = part.shots
    outcomes = Counter(s.outcome for s in shots)
    blockers = Counter(s.first_struck for s in shots if s.outcome == "blocked")
    n = max(len(shots), 1)
    parts = [
        f"{kind} {100 * outcomes[kind] / n:.0f} %"
        for kind in ("knocked", "stayed", "blocked", "missed")
        if outcomes[kind]
    ]
    by = blockers.most_common(1)[0][0] if blockers else None
    dead = _DEAD_WORDS.get(row.dead_zone or "", "")
    if dead == "blocked" and by:
        dead = f"blocked by {'another piggy' if by == 'piggy' else 'the ' + by}"
    return {"dead": dead, "outcomes": ", ".join(parts) + (f" (blocked most by {by})" if by else "")}


#: A table row's fields taken from the comparison's row (sim/studies/shots/records.py).
TABLE_FIELDS = (
    "space",
    "p_a",
    "p_b",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_value_adjusted",
    "significant",
    "shots",
    "stop",
)


def table_row(row: ComparisonRow, why_a: dict, why_b: dict) -> dict:
    """One space's row of the page's table: the comparison's figures, why the paired
    rule stopped there (``stop``), whether its pairs are few, how each design's
    shots ended (:func:`why`), and the p-value as every text writes it (``p_text``:
    "< 0.001", never "0.000")."""
    return {k: getattr(row, k) for k in TABLE_FIELDS} | {
        "p_text": verdict_words.p_figure(row.p_value_adjusted),
        "few_pairs": row.diff is not None and row.shots < FEW_SHOTS,
        "why_a": why_a,
        "why_b": why_b,
    }


def verdict_data(comparison: compare.Comparison) -> dict:
    """What the page says of the comparison as a whole: the designs, the board-mean
    verdict (``on_average``, ``mean_diff``), the spaces counted, the rule and δ, and
    the verdict line as ``design compare`` prints it."""
    return {
        "design_a": comparison.design_a,
        "design_b": comparison.design_b,
        "verdict": comparison.verdict,
        "on_average": comparison.on_average,
        "mean_diff": list(comparison.mean_diff),
        "space_counts": verdict.space_counts(comparison.spaces),
        "rule": comparison.rule.name,
        "delta": comparison.delta,
    } | ({"mean_rule": comparison.stopped.to_dict()} if comparison.stopped else {})


@dataclass(frozen=True)
class Report:
    """What the page shows, computed but not drawn (sim/views/report_page.py draws it:
    the studies stand below the views and hand them data only).

    ``contents`` is the page's data as JSON, but for each recorded shot's side, whose
    ``result`` is the replayed shot (a ``ShotResult``, recorded) where the page holds
    its 3D drawing; the other fields are what the pictures are drawn from."""

    contents: dict
    board: Board
    designs: list[Design]
    comparison: compare.Comparison
    maps: list[list[MeasuredSpace]]
    made_by: dict
    scale: float | None
    across: AcrossEngines | None = None


def build(
    spec: space_shots.SweepSpec,
    board: Board,
    designs: list[Design],
    comparison: compare.Comparison,
    maps: list[list[MeasuredSpace]],
    made_by: dict,
    scale: float | None,
    across: AcrossEngines | None = None,
) -> Report:
    """Everything the page shows, shots recorded: the board-mean verdict and the spaces
    counted, the rule and δ, a row per space (with why the spaces rule stopped there),
    the shots fired again, and what made it (``made_by``, with the rule's constants
    where it does not record them); with ``across``, what every engine's verdict is,
    space by space and on average. The pictures are left to the page
    (sim/views/report_page.py's ``page_data``)."""
    from sim.physics.registry import make_world, with_engine

    spaces_a, spaces_b = ({m.part.space: m for m in measured} for measured in maps)
    rows = [
        table_row(
            row,
            why(spaces_a[row.space].row, spaces_a[row.space].part),
            why(spaces_b[row.space].row, spaces_b[row.space].part),
        )
        for row in comparison.spaces
    ]
    shots: dict[str, dict] = {}
    spaces = recorded_spaces(comparison)
    by_space = {r.space: r for r in comparison.spaces}
    for side, design in zip("ab", designs, strict=True):
        world = make_world(
            load_board(spec.board), with_engine(design, spec.engine), hit_rule=spec.hit_rule
        )
        with world:
            for name in spaces:
                part_a, part_b = spaces_a[name].part, spaces_b[name].part
                index, reason = representative_shot(by_space[name], part_a, part_b)
                result = replay(world, spec, name, part_a.shots[index])
                knocked = ", ".join(result.knocked) or "nobody"
                shots.setdefault(
                    name,
                    {
                        "shot": index,
                        "reason": reason,
                        "seed": part_a.shots[index].seed,
                    },
                )
                part = part_a if side == "a" else part_b
                recorded = part.shots[index].target_knocked
                shots[name][side] = {
                    "result": result,
                    "title": f"{design.name} at {name}: knocked out {knocked}",
                    "knocked": knocked,
                    "struck": " → ".join(result.contacts) or "nothing",
                    # the replay is the hit map's shot: the same seed, the same outcome
                    "as_recorded": (part.target in result.knocked) == recorded,
                }
    contents = (
        verdict_data(comparison)
        | {
            "rows": rows,
            "shots": shots,
            "provenance": comparison.rule.provenance() | made_by,
            "max_recorded": MAX_SPACES_RECORDED,
            "few_pairs": FEW_SHOTS,
        }
        | ({"engines": across.to_dict()} if across else {})
        | ({"sensitivity": guesses(spec, designs, maps)} if spec.vary else {})
    )
    return Report(contents, board, designs, comparison, maps, made_by, scale, across)


def guesses(
    spec: space_shots.SweepSpec, designs: list[Design], maps: list[list[MeasuredSpace]]
) -> dict[str, dict]:
    """Which ``--vary`` guesses each design's board mean depends on most, from its own
    shots (sim/studies/maps/sensitivity.py), or why its shots cannot say."""
    from sim.studies.maps.sensitivity import sensitivity_of

    found: dict[str, dict] = {}
    for design, measured in zip(designs, maps, strict=True):
        name = design.name if design.name not in found else f"{design.name} (B)"
        try:
            found[name] = sensitivity_of(spec, [m.part for m in measured]).to_dict()
        except InputError as error:
            found[name] = {"null_reason": str(error)}
    return found


def record(
    spec: space_shots.SweepSpec,
    board: Board,
    designs: list[Design],
    comparison: compare.Comparison,
    workers: StudyWorkers,
    cache: Path,
    made_by: dict,
    scale: float | None,
    across: AcrossEngines | None = None,
) -> Report:
    """The page of a comparison just made (``design compare --html``): the maps it was
    made of, read back from ``cache`` as it made them, then :func:`build` (its shots
    recorded, a few seconds)."""
    maps = cached_maps.comparison_maps(spec, designs, comparison.rule, workers, cache)
    return build(spec, board, designs, comparison, maps, made_by, scale, across)
