"""design compare's hit-map cache: each design's map (and each comparison's maps,
the designs fired together) kept under a cache folder (default: the user's, see
:func:`cache_folder`), keyed by everything that makes them, so that comparing again
reads instead of shooting; measured when not there (sim/studies/maps/hitmap.py),
and read back held to the design that asks for it (its content, as the map's
provenance names it), each space's shots read through their type and its summary
row held to its shots; a map that is not is refused, naming it, on one line."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from models.board import load_board
from models.design import Design, design_content_sha256, design_toml
from models.errors import InputError
from models.files import write_text_atomic
from models.tables import read_table
from models.text import shown
from sim.studies.comparing import board_mean, mean_run, paired, shared_looks
from sim.studies.comparing.comparison_rule import ComparisonRule
from sim.studies.maps import hitmap
from sim.studies.maps.hitmap import looks_key
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import datafiles, space_firing, space_shots
from sim.studies.shots.records import Expected, MeasuredSpace, ShapeError, SpaceShots, SpaceSummary

#: The cached files' layout: raised when the columns change, so that files made by
#: an older version are measured again rather than read.
CACHE_FORMAT = 2


def cache_folder(text: str | None) -> Path:
    """``--cache``, else the user's cache folder (platformdirs: on Linux
    ``$XDG_CACHE_HOME/go-piggy-go/hitmaps``, ``~/.cache/...`` by default)."""
    if text:
        return Path(text)
    from platformdirs import user_cache_path

    return user_cache_path("go-piggy-go") / "hitmaps"


def cached_hitmap_path(spec: space_shots.SweepSpec, design: Design, cache: Path) -> Path:
    """Where the cache keeps a design's hit map measured with ``spec``'s settings (a
    hit map file: ``--shots table:FILE`` reads it). The key leaves out ``spec.design``
    (the first design named, which the sweep replaces): a design's map is found
    whatever the order the designs are given in."""
    settings = dataclasses.replace(spec, design="").key()
    key = datafiles.sha256_text(f"{CACHE_FORMAT}|{settings}|{design_toml(design)}")[:16]
    return cache / f"hitmap-{key}.csv"


def design_parts(
    spec: space_shots.SweepSpec,
    design: Design,
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
) -> list[MeasuredSpace]:
    """One design's hit map, per space its part and its row, measured with
    ``spec``'s settings; from the cache when it is there. ``progress`` is called with
    the number of spaces finished (and ``fired=``, the shots fired for the last)."""
    found = cached_parts(spec, design, cache)
    if found is not None:
        if progress:
            progress(len(spec.spaces))
        return found
    out = cached_hitmap_path(spec, design, cache)
    cache.mkdir(parents=True, exist_ok=True)
    design_file = out.with_name(out.name.replace("hitmap-", "design-").replace(".csv", ".toml"))
    write_text_atomic(design_file, design_toml(design))
    hitmap.sweep(
        dataclasses.replace(spec, design=str(design_file)),
        out,
        "csv",
        workers=workers,
        resume=True,
        per_shot=True,
        progress=progress,
    )
    measured = cached_parts(spec, design, cache)
    assert measured is not None
    return measured


def cached_parts(
    spec: space_shots.SweepSpec, design: Design, cache: Path
) -> list[MeasuredSpace] | None:
    """A design's hit map from the cache (None when it has not been measured)."""
    out = cached_hitmap_path(spec, design, cache)
    return read_cached(spec, out, partial(space_shots.expected_part, spec), design)


def read_cached(
    spec: space_shots.SweepSpec, out: Path, expected: Callable[[str], Expected], design: Design
) -> list[MeasuredSpace] | None:
    """The hit map ``out`` of the cache (None when it is not there), made by
    ``design`` (its content, as its provenance names it, not its name only), each
    space's shots read back through their type (sim/studies/shots/records.py) as
    ``expected`` says, and its summary row held to its shots; a cache file that is
    not is refused, naming it, on one line."""
    shots_file = hitmap.per_shot_path(out)
    if not (out.exists() and shots_file.exists()):
        return None
    made_by = datafiles.read_provenance(out).get("design_sha256")
    if made_by != design_content_sha256(design):
        raise InputError(
            f"design-compare cache {shown(str(out))} holds another design's map than this "
            f"{shown(design.name)} (its design_sha256 is {shown(made_by)}): delete it and "
            f"{shown(shots_file.name)} (the map is measured again)"
        )
    board = load_board(spec.board)
    rows = read_table(out)
    by_space: dict[str, list[dict]] = {name: [] for name in spec.spaces}
    for shot in read_table(shots_file):
        for key in ("knocked", "first_struck"):  # none knocked out, nothing struck: empty
            if shot.get(key, "") is None:
                shot[key] = ""
        by_space.setdefault(str(shot.get("space")), []).append(shot)
    problem = None
    if [r.get("space") for r in rows] != list(spec.spaces) or list(by_space) != list(spec.spaces):
        problem = f"its spaces are not {', '.join(spec.spaces)}"
    found = []
    for row in rows if problem is None else []:
        name = row["space"]
        try:
            summary = SpaceSummary.read(row)
            data = {key: row[key] for key in ("space", "reachable", "arc", "target")}
            part = SpaceShots.read(data | {"shots": by_space[name]}, expected(name))
        except ShapeError as exc:
            problem = f"space {name}: {exc}"
            break
        if not _same_summary(summary, space_firing.summarise(part, board)):
            problem = f"space {name}: the row of {name} does not match its shots"
            break
        found.append(MeasuredSpace(part, summary))
    if problem:
        raise InputError(
            f"design-compare cache {shown(str(out))} is corrupted ({problem}): "
            f"delete it and {shown(shots_file.name)} (the map is measured again)"
        )
    return found


def _same_summary(read: SpaceSummary, made: SpaceSummary) -> bool:
    """A hit map row read back equals the one its shots make (numbers to 1e-9)."""

    def same(a: object, b: object) -> bool:
        if (
            isinstance(a, float | int)
            and isinstance(b, float | int)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
        ):
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
        return a == b and type(a) is type(b)

    row, made_row = read.to_dict(), made.to_dict()
    return all(same(row[k], made_row[k]) for k in made_row)


# --- the sequential rules' maps (board mean, spaces) -----------------------------------------
def paired_outputs(
    spec: space_shots.SweepSpec, designs: list[Design], rule: ComparisonRule, cache: Path
) -> list[hitmap.Output]:
    """Each design's hit map of a comparison fired together (the mean or the spaces
    rule): cached under a key of everything that made them (the settings, the rule,
    every design of the comparison: a design's shots there depend on its partners),
    with the design's file (written now) beside it; its parts checked against that
    key too."""
    if rule.mean is not None:  # every precision's and δ's looks shared (shared_looks.py)
        shots_key = shared_looks.mean_key(spec, rule)
    else:
        shots_key = f"{rule.cache_key()}|{dataclasses.replace(spec, design='').key()}"
    designs_text = "|".join(design_toml(d) for d in designs)
    key = datafiles.sha256_text(f"{CACHE_FORMAT}|{shots_key}|{designs_text}")
    stem = "paired" if rule.name == "spaces" else rule.name
    outputs = []
    cache.mkdir(parents=True, exist_ok=True)
    for index, design in enumerate(designs):
        out = cache / f"{stem}-{key[:16]}-{index}.csv"
        design_file = write_text_atomic(out.with_suffix(".toml"), design_toml(design))
        design_spec = dataclasses.replace(spec, design=str(design_file))
        made_by = (
            space_shots.provenance(design_spec)
            | rule.provenance()
            | {"paired_with": [d.name for d in designs if d is not design][: 1 if index else None]}
        )
        outputs.append(
            hitmap.Output(
                design_spec,
                out,
                f"{looks_key(design_spec) if rule.mean else design_spec.key()}|{key}",
                partial(paired.expected, design_spec),
                made_by,
            )
        )
    return outputs


def paired_maps(
    spec: space_shots.SweepSpec,
    designs: list[Design],
    rule: ComparisonRule,
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
    found: list[list[MeasuredSpace] | None] | None = None,
    budget: board_mean.Budget | None = None,
) -> list[list[MeasuredSpace]]:
    """Every design's hit map of a comparison fired together, by the mean rule
    (sim/studies/comparing/board_mean.py) or the spaces rule (sim/studies/comparing/paired.py), from
    the
    cache when it is there (``found``: as :func:`read_cached` read it already);
    ``progress`` is called with the number of spaces finished (of each look, with
    the mean rule). ``budget``: the mean rule's time, kept (None: ``rule.budget_s``
    from now)."""
    outputs = paired_outputs(spec, designs, rule, cache)
    if found is None:
        found = [read_output(o, d) for o, d in zip(outputs, designs, strict=True)]
    whole = [f for f in found if f is not None]
    short = shared_looks.short_alone(spec, whole) if rule.mean and len(whole) == len(found) else ()
    if len(whole) == len(found) and not short and not _mean_goes_on(rule, found):
        if progress:
            progress(len(spec.spaces))
        return _as_asked(spec, rule, whole)
    if rule.mean is not None:
        start = [
            {m.part.space: m.part for m in f if m.part.space not in short}
            if f is not None
            else mean_run.found_parts(o)
            for o, f in zip(outputs, found, strict=True)
        ]
        budget = budget or board_mean.Budget(rule.budget_s, began=time.monotonic())
        mean_run.run_looks(outputs, rule.mean, start, workers, budget, progress)
    else:
        assert rule.spaces is not None
        job = partial(paired.compare_space, tuple(o.spec for o in outputs), rule.spaces)
        hitmap.run_outputs(
            outputs, "csv", job, workers, resume=True, per_shot=True, progress=progress
        )
    measured = [read_output(o, d) for o, d in zip(outputs, designs, strict=True)]
    return _as_asked(spec, rule, [m for m in measured if m is not None])


def _as_asked(
    spec: space_shots.SweepSpec, rule: ComparisonRule, maps: list[list[MeasuredSpace]]
) -> list[list[MeasuredSpace]]:
    """The maps as this rule fires them: a board-mean comparison's cut where this
    precision's mean stops (the cache may hold a finer one's looks)."""
    return shared_looks.as_asked(spec, rule.mean, maps) if rule.mean and len(maps) > 1 else maps


def read_output(output: hitmap.Output, design: Design) -> list[MeasuredSpace] | None:
    """A comparison's cached map of ``design`` (:func:`read_cached`)."""
    return read_cached(output.spec, output.path, output.expected, design)


def comparison_maps(
    spec: space_shots.SweepSpec,
    designs: list[Design],
    rule: ComparisonRule,
    workers: StudyWorkers,
    cache: Path,
) -> list[list[MeasuredSpace]]:
    """The maps a comparison by ``rule`` was made of (from the cache, as it made
    them): the designs fired together, or each design's own map."""
    if rule.sequential:
        return paired_maps(spec, designs, rule, workers, cache)
    return [design_parts(spec, d, workers, cache) for d in designs]


def comparison_cached(
    spec: space_shots.SweepSpec, designs: list[Design], rule: ComparisonRule, cache: Path
) -> bool:
    """Whether a comparison by ``rule`` is in the cache already (it fires nothing)."""
    if not rule.sequential:
        return all(cached_parts(spec, d, cache) is not None for d in designs)
    outputs = paired_outputs(spec, designs, rule, cache)
    found = [read_output(o, d) for o, d in zip(outputs, designs, strict=True)]
    return all(f is not None for f in found) and not _mean_goes_on(rule, found)


def _mean_goes_on(rule: ComparisonRule, found: list) -> bool:
    """Whether cached maps of the mean rule stopped short of its answer (a budget
    ran out) and some comparison can go on from them."""
    if rule.mean is None:
        return False
    parts_a = [m.part for m in found[0]]
    return any(
        board_mean.replay(rule.mean, parts_a, [m.part for m in f]).stop == "budget"
        for f in found[1:]
    )
