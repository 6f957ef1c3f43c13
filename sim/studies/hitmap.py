"""Hit maps: for each space, stand a piggy there (on its own, or in a layout with
its neighbours), aim at it with the aim solver and fire shots with the launcher's
noise and the aimer's error; count what happens, per space, with 95 % intervals.

- **Seeding.** Every shot's randomness comes from one root seed split per (space,
  shot) with numpy's SeedSequence (``sampler`` "mc"), or per (space, scramble) for
  the RQMC sampler (sim/studies/rqmc.py), keyed by the space itself: a space's result
  depends only on the root seed, not on which process ran it, in what order, or
  which other spaces are measured. Shot i's seed is made on its own (no list of
  every seed up front), so the cap on shots costs no memory.
- **Precision.** With ``precision`` a space is fired at until the 95 % interval of
  P(target) is within ``±precision``, ``shots`` being the cap: in batches of
  :data:`BATCH` and Wilson's interval (mc), or scramble by scramble (rqmc).
- **Parts.** The unit of work is one space, and its shots are its part
  (sim/studies/records.py). Each finished space is written at
  once to ``<output>.parts/<space>.json`` (atomically, with the checksums of the
  sweep's settings and of its shots: sim/studies/parts.py), so an interrupted sweep
  keeps what it finished and ``resume`` checks and reuses it, reporting how many
  spaces it reused; the final file is written from the parts in the order of the
  spaces, whole or not at all, with what made it (sim/studies/datafiles.py).
- **Executors.** ``run_parts`` is the one seam: local worker processes (which die
  with their parent: sim/studies/workers.py), or a Dask distributed cluster
  (``scheduler``); either way each worker process builds its PyBullet world once.
  Another engine would be one more branch there.
- **Bounds.** At most :data:`MAX_SHOTS` shots a space: a space's shots are held in
  memory while it is measured; the final file is assembled one part at a time.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from models.aimer import Aimer
from models.board import Board, load_board, space_name
from models.design import design_identity, load_design
from models.errors import InputError
from models.layout import check_piggy, layout_from_dict
from models.seeds import split_seed
from models.stats import precision_reached
from models.text import shown
from sim.physics.aim import OutOfReach
from sim.physics.noise import Deviates, vary_dims
from sim.studies import datafiles, owner, parts, rqmc
from sim.studies.dead_zones import dead_zone, first_struck, shot_outcome
from sim.studies.records import Expected, ShotRow, SpaceShots, SpaceSummary
from sim.studies.workers import process_pool

#: The piggy that stands on each measured empty space in turn.
TARGET = "gold-1"
ARCS = ("low", "high", "best")
#: Shots fired at a space between two looks at its precision.
BATCH = 20
#: Strikes that count as ricochets.
_RICOCHET_SURFACES = ("fence", "tractor")
#: Most shots per space: a space's shots are held in memory while it is measured and
#: written whole to its part file (20,000 shots give P within about ±0.007).
MAX_SHOTS = 20_000


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep measures. Names and plain values, not objects, so that it can
    travel to workers and be written down next to the parts it produced.

    ``shots`` is the number of shots per space, or the cap with ``precision``;
    ``aimer`` is who aims (frozen, so it travels as it is); ``vary`` maps a physical
    parameter (``friction``, ``restitution``, ``mass``) to its relative half-range.
    """

    board: str
    design: str
    stacks: dict  # the base layout (space name -> piggies), may be empty
    spaces: tuple  # space names, in output order
    shots: int
    seed: int = 0
    arc: str = "best"
    aimer: Aimer = field(default_factory=Aimer)
    vary: dict = field(default_factory=dict)
    precision: float | None = None
    hit_rule: str = "touches-line"
    layout: str = ""  # what the user named for the layout, for the record
    sampler: str = "mc"  # "rqmc" (the command line's default) or "mc" (sim/studies/rqmc.py)

    def key(self) -> str:
        """The settings as text. Plain Monte Carlo leaves the sampler out: its key (and
        so its parts and cached maps) is what it was before there was a choice."""
        settings = asdict(self)
        if self.sampler == "mc":
            del settings["sampler"]
        return json.dumps(settings, sort_keys=True)


def shot_seed(root_seed: int, space: tuple[int, int], index: int) -> int:
    """The seed of one space's shot ``index``, split from the root seed."""
    return split_seed(root_seed, *space, spawn_key=(index,))


def shot_noise(spec: SweepSpec, space: tuple[int, int], row: ShotRow) -> dict:
    """How the shot of hit-map row ``row`` drew its errors, as :meth:`World.shoot`'s
    keyword arguments: its seed (plain Monte Carlo), or its scramble's point (RQMC)."""
    if spec.sampler != "rqmc":
        return {"seed": shot_seed(spec.seed, space, row.shot)}
    assert row.scramble is not None and row.point is not None  # an RQMC sweep's row
    seed = rqmc.scramble_seed(spec.seed, space, row.scramble)
    points = rqmc.scramble_points(seed, 3 + vary_dims(spec.vary), row.point + 1)
    return {"deviates": _deviates(rqmc.to_deviates(points)[row.point])}


def _deviates(z: np.ndarray) -> Deviates:
    """One RQMC point's (3 + vary,) standard deviates as a shot's errors."""
    return Deviates(float(z[0]), float(z[1]), float(z[2]), vary=tuple(map(float, z[3:])))


def shot_seeds(root_seed: int, space: tuple[int, int], shots: int) -> list[int]:
    """The seeds of one space's first ``shots`` shots."""
    return [shot_seed(root_seed, space, i) for i in range(shots)]


def expected_part(spec: SweepSpec, name: str) -> Expected:
    """What the part of space ``name`` of this sweep must say, when read back."""
    space = load_board(spec.board).parse_space(name)
    target = target_and_stacks(spec, name)[0]
    if spec.sampler == "rqmc":
        scrambles, _, most = rqmc.plan(spec.shots, spec.precision)
        return Expected(
            name,
            target,
            lambda row, index: rqmc.scramble_seed(spec.seed, space, row.scramble or 0),
            scrambles * most,
            exact=spec.precision is None,
            scrambles=scrambles,
        )
    return Expected(
        name,
        target,
        lambda row, index: shot_seed(spec.seed, space, index),
        spec.shots,
        exact=spec.precision is None,
    )


def provenance(spec: SweepSpec) -> dict:
    """What made a hit map: the object written with its files (``shots_fired``, the
    shots fired per space in reach, is added when the sweep is done)."""
    aimer = spec.aimer
    return {
        "board": spec.board,
        "layout": spec.layout or None,
        "stacks": spec.stacks,
        **design_identity(spec.design),
        "aimer": aimer.name,
        "aim_sd_deg": [aimer.yaw_sd_deg, aimer.pitch_sd_deg],
        "aim_bias_deg": [aimer.yaw_bias_deg, aimer.pitch_bias_deg],
        "vary": spec.vary,
        "seed": spec.seed,
        "hit_rule": spec.hit_rule,
        "arc": spec.arc,
        "shots_cap": spec.shots,
        "precision": spec.precision,
        "batch": BATCH,
        "version": datafiles.package_version(),
    } | rqmc.provenance(spec.sampler)


# --- one part: one space ------------------------------------------------------------------
_WORLDS: dict = {}  # per process: (board, design) -> World, built once


def _world(spec: SweepSpec):
    from sim.physics.world import World

    key = (spec.board, spec.design, spec.hit_rule)
    if key not in _WORLDS:
        # a hit map counts verdicts and strikes: a shot may end once the bale can
        # strike nothing more (docs/physics.md, "Speed")
        _WORLDS[key] = World(
            load_board(spec.board),
            load_design(spec.design),
            hit_rule=spec.hit_rule,
            bale_to_rest=False,
        )
    return _WORLDS[key]


def check_targets(spec: SweepSpec) -> None:
    """Refuse, before any shot, a sweep that could not stand its target on a space."""
    if not 1 <= spec.shots <= MAX_SHOTS:
        raise InputError(f"shots per space must be 1 to {MAX_SHOTS}, got {spec.shots}")
    for name in spec.spaces:
        target_and_stacks(spec, name)


def target_and_stacks(spec: SweepSpec, name: str) -> tuple[str, dict]:
    """The piggy aimed at on a space, and the layout it is fired at: the base layout's
    top piggy there, or :data:`TARGET` added alone on an empty space."""
    stacks = {s: list(p) for s, p in spec.stacks.items()}
    if stacks.get(name):
        return stacks[name][-1], stacks
    if any(TARGET in pigs for pigs in stacks.values()):
        raise InputError(
            f"the layout already has {TARGET}, the piggy a sweep stands on empty spaces"
        )
    stacks[name] = [TARGET]
    return TARGET, stacks


def aim_at_space(world, spec: SweepSpec, name: str):
    """Set ``world`` up for a space's shots: its layout with the target there. Returns
    the target and the aim the sweep fires with (None where the arc asked for does not
    reach)."""
    from sim.physics import shoot

    target, stacks = target_and_stacks(spec, name)
    world.set_layout(layout_from_dict({"stacks": stacks}, board=world.board, source="sweep layout"))
    try:
        aim = shoot.solve_aim(world, target, "low" if spec.arc == "best" else spec.arc)
    except OutOfReach:
        return target, None
    return target, None if spec.arc == "high" and aim.arc != "high" else aim


def run_space(spec: SweepSpec, name: str) -> SpaceShots:
    """Fire one space's shots: its part."""
    world = _world(spec)
    target, aim = aim_at_space(world, spec, name)
    if aim is None:
        return SpaceShots(name, False, None, target, ())
    fire = _fire_rqmc if spec.sampler == "rqmc" else _fire_mc
    return SpaceShots(name, True, aim.arc, target, tuple(fire(spec, world, aim, name, target)))


def _fire_mc(spec: SweepSpec, world, aim, name: str, target: str) -> list[ShotRow]:
    """Plain Monte Carlo: shot i from its own seed, in batches until the precision."""
    space = world.board.parse_space(name)
    rows: list[ShotRow] = []
    hits = 0
    while len(rows) < spec.shots:
        for index in range(len(rows), min(spec.shots, len(rows) + BATCH)):
            seed = shot_seed(spec.seed, space, index)
            result = world.shoot(
                aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=spec.aimer, vary=spec.vary
            )
            rows.append(_shot_row(name, index, seed, target, result))
            hits += rows[-1].target_knocked
        if spec.precision is not None and precision_reached(hits, len(rows), spec.precision):
            break
    return rows


def _fire_rqmc(spec: SweepSpec, world, aim, name: str, target: str) -> list[ShotRow]:
    """Randomised quasi-Monte Carlo: each scramble's points in order, the points per
    scramble doubled until the precision (sim/studies/rqmc.py). A row also names its
    scramble and its point in it; its seed is the scramble's."""
    scrambles, points, most = rqmc.plan(spec.shots, spec.precision)
    seeds = [
        rqmc.scramble_seed(spec.seed, world.board.parse_space(name), r) for r in range(scrambles)
    ]
    dims = 3 + vary_dims(spec.vary)
    deviates = [rqmc.to_deviates(rqmc.scramble_points(s, dims, most)) for s in seeds]
    hits = np.zeros((scrambles, most))
    rows: list[ShotRow] = []
    fired = 0
    while True:
        for r, seed in enumerate(seeds):
            for j in range(fired, points):
                result = world.shoot(
                    aim.yaw_deg,
                    aim.pitch_deg,
                    aimer=spec.aimer,
                    vary=spec.vary,
                    deviates=_deviates(deviates[r][j]),
                )
                rows.append(_shot_row(name, len(rows), seed, target, result, r, j))
                hits[r, j] = rows[-1].target_knocked
        fired, points = points, rqmc.next_points(hits[:, :points], spec.precision, most)
        if points == fired:
            return rows


def _shot_row(
    space: str,
    index: int,
    seed: int,
    target: str,
    result,
    scramble: int | None = None,
    point: int | None = None,
) -> ShotRow:
    piggies_struck = [c for c in result.contacts if "-" in c]
    return ShotRow(
        space=space,
        shot=index,
        seed=seed,
        target=target,
        yaw_deg=round(normalised_yaw(result.yaw_deg), 4),
        pitch_deg=round(result.pitch_deg, 4),
        speed_mm_s=round(result.speed_mm_s, 2),
        knocked=",".join(result.knocked),
        target_knocked=target in result.knocked,
        collateral=sum(p != target for p in result.knocked),
        no_contact=not piggies_struck,
        outcome=shot_outcome(target, result.knocked, result.contacts),
        first_struck=first_struck(target, result.contacts),
        ricochets=sum(c in _RICOCHET_SURFACES for c in result.contacts),
        scramble=scramble,
        point=point,
    )


def normalised_yaw(yaw_deg: float) -> float:
    """A yaw in (-180, 180] degrees."""
    yaw = yaw_deg % 360.0
    return yaw - 360.0 if yaw > 180.0 else yaw


def summarise(part: SpaceShots, board: Board) -> SpaceSummary:
    """One space's row of the hit map."""
    rows = part.shots
    n = len(rows)
    space = board.parse_space(part.space)
    x, y = (float(v) for v in board.space_center_mm(space))
    shares: dict[str, float | None] = {}
    for key, hit in (
        ("p_target", lambda r: r.target_knocked),
        ("p_any", lambda r: bool(r.knocked)),
        ("p_collateral", lambda r: r.collateral > 0),
        ("p_no_contact", lambda r: r.no_contact),
        ("p_blocked", lambda r: r.outcome == "blocked"),
        ("p_missed", lambda r: r.outcome == "missed"),
    ):
        p, lo, hi = rqmc.proportion(rows, hit) if n else (None, None, None)
        shares[key] = None if p is None else round(p, 6)
        shares[f"{key}_ci_low"] = None if lo is None else round(lo, 6)
        shares[f"{key}_ci_high"] = None if hi is None else round(hi, 6)
    summary = SpaceSummary(
        space=part.space,
        row=space[0],
        col=space[1],
        x_mm=round(x, 2),
        y_mm=round(y, 2),
        distance_mm=round(float(np.hypot(x, y)), 2),
        reachable=part.reachable,
        arc=part.arc,
        target=part.target,
        shots=n,
        **shares,
        mean_ricochets=round(float(np.mean([r.ricochets for r in rows])), 4) if n else None,
        dead_zone=None,
    )
    # the dead zone is read off the intervals (sim/studies/dead_zones.py)
    return dataclasses.replace(summary, dead_zone=dead_zone(summary.to_dict()))


# --- executors -------------------------------------------------------------------------------
def run_parts(
    spec: SweepSpec,
    names: list[str],
    workers: int,
    on_part: Callable[[SpaceShots], None],
    scheduler: str | None = None,
) -> None:
    """Run the spaces' parts with ``workers`` local processes (1: in this process) or
    on the Dask cluster at ``scheduler``, calling ``on_part`` here as each one
    finishes, in whatever order."""
    if scheduler:
        _run_on_dask(spec, names, scheduler, on_part)
        return
    if workers <= 1 or len(names) <= 1:
        for name in names:
            on_part(run_space(spec, name))
        return
    with process_pool(min(workers, len(names))) as pool:
        futures = [pool.submit(run_space, spec, name) for name in names]
        for future in as_completed(futures):
            on_part(future.result())


def _run_on_dask(
    spec: SweepSpec, names: list[str], scheduler: str, on_part: Callable[[SpaceShots], None]
) -> None:
    """Parts as Dask tasks. Start the workers with one thread each
    (``dask worker ADDRESS --nthreads 1``): a PyBullet world is not shared by threads."""
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise InputError(
            "--scheduler needs Dask, an optional extra: pip install 'go-piggy-go-sandbox[cluster]'"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
    try:
        futures = client.map(run_space, [spec] * len(names), names, pure=False)
        for future in dask_completed(futures):
            on_part(future.result())
    finally:
        client.close()


# --- a whole sweep --------------------------------------------------------------------------
parts_folder = parts.parts_folder


@dataclass(frozen=True)
class SweepOutcome:
    """A finished sweep: the hit map's rows, and how many spaces were taken from the
    parts of an earlier run (``reused``) or measured now (``computed``)."""

    rows: list
    reused: int
    computed: int


def sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: int = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> list[dict]:
    """:func:`run_sweep`, returning only the hit map's rows."""
    return run_sweep(spec, out, fmt, workers, resume, per_shot, progress, scheduler).rows


def run_sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str = "parquet",
    workers: int = 1,
    resume: bool = False,
    per_shot: bool = False,
    progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> SweepOutcome:
    """Run a sweep into ``out`` (and ``<stem>.shots.<ext>`` with ``per_shot``), each
    file with what made it. Finished spaces are kept in ``<out>.parts/``
    (sim/studies/parts.py); with ``resume`` the parts there are checked, all of them
    before a shot is fired, and used. ``progress`` is called with the number of
    spaces finished."""
    with owner.owned(out):
        return _owned_sweep(
            spec, out, datafiles.format_of(out, fmt), workers, resume, per_shot, progress, scheduler
        )


def _owned_sweep(
    spec: SweepSpec,
    out: Path,
    fmt: str,
    workers: int,
    resume: bool,
    per_shot: bool,
    progress: Callable[[int], None] | None,
    scheduler: str | None,
) -> SweepOutcome:
    """:func:`run_sweep`, once this run owns ``out``."""
    folder = parts_folder(out)
    key = spec.key()
    found = parts.part_files(folder)
    if found and not resume:
        raise InputError(
            f"{shown(str(folder))} holds an unfinished sweep: add --resume to "
            "finish it, or remove the folder"
        )
    for path in found:
        if path.stem not in spec.spaces:
            raise InputError(
                f"part file {shown(str(path))} is for a space this sweep does "
                f"not measure: delete it, or resume with the same --spaces"
            )
    done = {parts.read_part(p, key, expected_part(spec, p.stem)).space for p in found}
    made_by = provenance(spec)
    folder.mkdir(parents=True, exist_ok=True)
    todo = [s for s in spec.spaces if s not in done]
    finished = len(done)
    if progress:
        progress(finished)

    def keep(part: SpaceShots) -> None:
        nonlocal finished
        parts.write_part(folder, key, part)
        finished += 1
        if progress:
            progress(finished)

    try:
        run_parts(spec, todo, workers, keep, scheduler)
    finally:
        if not parts.part_files(folder):  # nothing kept: leave nothing behind
            shutil.rmtree(folder, ignore_errors=True)
    board = load_board(spec.board)
    rows: list[dict] = []
    shots: list[dict] = []
    for name in spec.spaces:  # one part in memory at a time, unless its shots are wanted
        part = parts.read_part(folder / f"{name}.json", key, expected_part(spec, name))
        rows.append(summarise(part, board).to_dict())
        if per_shot:
            shots.extend(r.to_dict() for r in part.shots)
    made_by["shots_fired"] = shots_fired(rows)
    datafiles.write_table(rows, out, fmt, made_by)
    if per_shot:
        datafiles.write_table(shots, per_shot_path(out), fmt, made_by)
    shutil.rmtree(folder)
    return SweepOutcome(rows, reused=len(done), computed=len(todo))


def shots_fired(rows: list[dict]) -> dict:
    """The shots a hit map fired per space in reach: fewest, most and in all."""
    fired = [int(r["shots"]) for r in rows if r["reachable"]] or [0]
    return {"min": min(fired), "max": max(fired), "total": sum(fired)}


def per_shot_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.shots{out.suffix}")


def check_spaces(board: Board, text: str | None, stacks: dict) -> tuple[str, ...]:
    """The spaces to measure: a comma-separated list, or every space of the board."""
    if text is None:
        return tuple(space_name(s) for s in board.spaces)
    names = [t.strip(" ") for t in text.split(",") if t.strip(" ")]  # "r8c3, r9c5"
    if not names:
        raise InputError("--spaces names no space")
    for index, name in enumerate(names):
        board.parse_space(name)
        if name in names[:index]:
            raise InputError(f"--spaces names {name} twice")
    for pigs in stacks.values():
        for piggy in pigs:
            check_piggy(piggy)
    return tuple(names)
