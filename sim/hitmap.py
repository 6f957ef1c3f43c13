"""Hit maps: for each space, stand a piggy there (on its own, or in a layout with
its neighbours), aim at it with the aim solver and fire shots with the design's
noise; count what happens, per space, with 95 % Wilson intervals.

- **Seeding.** Every shot's randomness comes from one root seed split per (space,
  shot) with numpy's SeedSequence, keyed by the space itself: a space's result
  depends only on the root seed, not on which process ran it, in what order, or
  which other spaces are measured.
- **Chunks.** The unit of work is one space. Each finished space is written at
  once to ``<output>.parts/<space>.json`` (atomically), so an interrupted sweep
  keeps what it finished and ``resume`` does the rest; the final file is written
  from the parts in the order of the spaces, whole or not at all.
- **Executors.** ``run_chunks`` is the one seam: local worker processes, or a Dask
  distributed cluster (``scheduler``); either way each worker process builds its
  PyBullet world once. Another engine would be one more branch there.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from models.board import Board, load_board, space_name
from models.design import load_design
from models.errors import InputError
from models.files import write_text_atomic
from models.layout import check_piggy, layout_from_dict
from referee.match import wilson_interval
from sim.aim import OutOfReach
from sim.hitmap_picture import draw_heatmap, heatmap_figure, save_heatmap  # noqa: F401

#: The piggy that stands on each measured empty space in turn.
TARGET = "gold-1"
ARCS = ("low", "high", "best")
FORMATS = ("parquet", "csv")
#: Strikes that count as ricochets.
_RICOCHET_SURFACES = ("fence", "tractor")


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep measures. Names, not objects, so that it can travel to workers
    and be written down next to the parts it produced."""

    board: str
    design: str
    stacks: dict          # the base layout (space name -> piggies), may be empty
    spaces: tuple         # space names, in output order
    shots: int
    seed: int = 0
    arc: str = "best"

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def shot_seeds(root_seed: int, space: tuple[int, int], shots: int) -> list[int]:
    """The seeds of one space's shots, split from the root seed."""
    children = np.random.SeedSequence([root_seed, *space]).spawn(shots)
    return [int(c.generate_state(1)[0]) for c in children]


# --- one chunk: one space -----------------------------------------------------------------
_WORLDS: dict = {}  # per process: (board, design) -> World, built once


def _world(spec: SweepSpec):
    from sim.world import World

    key = (spec.board, spec.design)
    if key not in _WORLDS:
        _WORLDS[key] = World(load_board(spec.board), load_design(spec.design))
    return _WORLDS[key]


def target_and_stacks(spec: SweepSpec, name: str) -> tuple[str, dict]:
    """The piggy aimed at on a space, and the layout it is fired at: the base layout's
    top piggy there, or :data:`TARGET` added alone on an empty space."""
    stacks = {s: list(p) for s, p in spec.stacks.items()}
    if stacks.get(name):
        return stacks[name][-1], stacks
    if any(TARGET in pigs for pigs in stacks.values()):
        raise InputError(f"the layout already has {TARGET}, the piggy a sweep stands on "
                         "empty spaces")
    stacks[name] = [TARGET]
    return TARGET, stacks


def run_space(spec: SweepSpec, name: str) -> dict:
    """Fire one space's shots; a chunk: ``{"space", "reachable", "arc", "shots": [rows]}``."""
    from sim import shoot

    world = _world(spec)
    board = world.board
    space = board.parse_space(name)
    target, stacks = target_and_stacks(spec, name)
    world.set_layout(layout_from_dict({"stacks": stacks}, board=board, source="sweep layout"))
    try:
        aim = shoot.solve_aim(world, target, "low" if spec.arc == "best" else spec.arc)
    except OutOfReach:
        return {"space": name, "reachable": False, "arc": None, "target": target, "shots": []}
    if spec.arc == "high" and aim.arc != "high":
        return {"space": name, "reachable": False, "arc": None, "target": target, "shots": []}
    rows = []
    for index, seed in enumerate(shot_seeds(spec.seed, space, spec.shots)):
        result = world.shoot(aim.yaw_deg, aim.pitch_deg, seed=seed)
        piggies_struck = [c for c in result.contacts if "-" in c]
        rows.append({
            "space": name, "shot": index, "seed": seed, "target": target,
            "yaw_deg": round(result.yaw_deg, 4), "pitch_deg": round(result.pitch_deg, 4),
            "speed_mm_s": round(result.speed_mm_s, 2),
            "knocked": ",".join(result.knocked),
            "target_knocked": target in result.knocked,
            "collateral": sum(p != target for p in result.knocked),
            "no_contact": not piggies_struck,
            "ricochets": sum(c in _RICOCHET_SURFACES for c in result.contacts),
        })
    return {"space": name, "reachable": True, "arc": aim.arc, "target": target, "shots": rows}


def summarise(chunk: dict) -> dict:
    """One space's row of the hit map."""
    rows = chunk["shots"]
    n = len(rows)
    row, col = (int(v) for v in chunk["space"][1:].split("c"))
    out = {"space": chunk["space"], "row": row, "col": col, "reachable": chunk["reachable"],
           "arc": chunk["arc"], "target": chunk["target"], "shots": n}
    for column, key in (("target_knocked", "p_target"), ("any_knocked", "p_any"),
                        ("collateral", "p_collateral"), ("no_contact", "p_no_contact")):
        if column == "any_knocked":
            hits = sum(bool(r["knocked"]) for r in rows)
        elif column == "collateral":
            hits = sum(r["collateral"] > 0 for r in rows)
        else:
            hits = sum(bool(r[column]) for r in rows)
        lo, hi = wilson_interval(hits, n) if n else (None, None)
        out[key] = round(hits / n, 6) if n else None
        out[f"{key}_ci_low"] = None if lo is None else round(lo, 6)
        out[f"{key}_ci_high"] = None if hi is None else round(hi, 6)
    out["mean_ricochets"] = round(float(np.mean([r["ricochets"] for r in rows])), 4) if n else None
    return out


# --- executors -------------------------------------------------------------------------------
def run_chunks(spec: SweepSpec, names: list[str], workers: int,
               on_chunk: Callable[[dict], None], scheduler: str | None = None) -> None:
    """Run the spaces' chunks with ``workers`` local processes (1: in this process) or
    on the Dask cluster at ``scheduler``, calling ``on_chunk`` here as each one
    finishes, in whatever order."""
    if scheduler:
        _run_on_dask(spec, names, scheduler, on_chunk)
        return
    if workers <= 1:
        for name in names:
            on_chunk(run_space(spec, name))
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_space, spec, name) for name in names]
        for future in as_completed(futures):
            on_chunk(future.result())


def _run_on_dask(spec: SweepSpec, names: list[str], scheduler: str,
                 on_chunk: Callable[[dict], None]) -> None:
    """Chunks as Dask tasks. Start the workers with one thread each
    (``dask worker ADDRESS --nthreads 1``): a PyBullet world is not shared by threads."""
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise InputError("--scheduler needs dask.distributed: pip install "
                         "'dask[distributed]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
    try:
        futures = client.map(run_space, [spec] * len(names), names, pure=False)
        for future in dask_completed(futures):
            on_chunk(future.result())
    finally:
        client.close()


# --- a whole sweep --------------------------------------------------------------------------
def parts_folder(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def sweep(spec: SweepSpec, out: Path, fmt: str = "parquet", workers: int = 1,
          resume: bool = False, per_shot: bool = False,
          progress: Callable[[int], None] | None = None,
          scheduler: str | None = None) -> list[dict]:
    """Run a sweep into ``out`` (and ``<stem>.shots.<ext>`` with ``per_shot``);
    returns the hit map's rows. Finished spaces are kept in ``<out>.parts/``."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}': allowed are {', '.join(FORMATS)}")
    parts = parts_folder(out)
    manifest = parts / "sweep.json"
    if any(parts.glob("r*c*.json")) and not resume:
        raise InputError(f"{parts} holds an unfinished sweep: add --resume to finish it, or "
                         "remove the folder")
    if resume and manifest.exists() and manifest.read_text() != spec.key():
        raise InputError(f"{parts} belongs to a sweep with other settings; remove it to start "
                         "afresh")
    parts.mkdir(parents=True, exist_ok=True)
    write_text_atomic(manifest, spec.key())
    done = {p.stem for p in parts.glob("r*c*.json")}
    todo = [s for s in spec.spaces if s not in done]
    if progress:
        progress(len(done) * spec.shots)
    finished = len(done)

    def keep(chunk: dict) -> None:
        nonlocal finished
        write_text_atomic(parts / f"{chunk['space']}.json", json.dumps(chunk))
        finished += 1
        if progress:
            progress(finished * spec.shots)

    run_chunks(spec, todo, workers, keep, scheduler)
    chunks = [json.loads((parts / f"{s}.json").read_text()) for s in spec.spaces]
    rows = [summarise(c) for c in chunks]
    write_table(rows, out, fmt)
    if per_shot:
        write_table([r for c in chunks for r in c["shots"]], per_shot_path(out), fmt)
    shutil.rmtree(parts)
    return rows


def per_shot_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.shots{out.suffix}")


def write_table(rows: list[dict], path: Path, fmt: str) -> Path:
    """Rows to CSV or Parquet, atomically."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["space"])
        writer.writeheader()
        writer.writerows(rows)
        return write_text_atomic(path, buffer.getvalue())
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(pa.Table.from_pylist(rows), tmp)
    tmp.replace(path)
    return path


def read_table(path) -> list[dict]:
    """A hit map (or per-shot) file written by :func:`write_table`, CSV or Parquet."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"hit map file '{path}' does not exist")
    try:
        if path.suffix.lower() == ".csv":
            with open(path, newline="") as handle:
                return [_typed(r) for r in csv.DictReader(handle)]
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    except (OSError, UnicodeDecodeError, ValueError, csv.Error) as exc:
        raise InputError(f"hit map file {path} cannot be read ({exc})") from None
    except Exception as exc:  # pyarrow's own errors on a file that is not Parquet
        raise InputError(f"hit map file {path} cannot be read as Parquet ({exc})") from None


def _typed(row: dict) -> dict:
    out = {}
    for key, value in row.items():
        if value in ("", "None"):
            out[key] = None
        elif value in ("True", "False"):
            out[key] = value == "True"
        else:
            try:
                out[key] = float(value) if "." in value or "e" in value else int(value)
            except ValueError:
                out[key] = value
    return out


def target_probabilities(rows: list[dict]) -> dict[str, float]:
    """Space name -> P(target knocked out), for the spaces in reach."""
    return {r["space"]: float(r["p_target"]) for r in rows
            if r.get("reachable") and r.get("p_target") is not None}


def check_spaces(board: Board, text: str | None, stacks: dict) -> tuple[str, ...]:
    """The spaces to measure: a comma-separated list, or every space of the board."""
    if not text:
        return tuple(space_name(s) for s in board.spaces)
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise InputError("--spaces names no space")
    for name in names:
        board.parse_space(name)
    if len(set(names)) != len(names):
        raise InputError("--spaces names a space twice")
    for pigs in stacks.values():
        for piggy in pigs:
            check_piggy(piggy)
    return tuple(names)
