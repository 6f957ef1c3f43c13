"""Film and measure the same shots from a list of tripod places: the table of
docs/real-toy.md, "From any tripod place".

Each place is ``DISTANCE_M,ELEVATION_DEG,DIRECTION_DEG[,tractor]``: the camera that
far from the landings' middle (0, 120, 0) mm, that high above the board, turned that
far from straight behind the start end (positive toward +x), looking at that point.
For each place the shots are fired and ``piggy film``'s plan asked first (a place
whose plan notes a problem is skipped and says which); then ``piggy film`` films
them, ffmpeg re-encodes the film as a phone's editor would (H.264 at CRF 23, the
metadata stripped), ``piggy measure`` measures it, and the measured first touches
and speeds are set against the truth CSV. One place at a time: run it with nice.

    nice -n 10 python scripts/real_toy_grid.py --places 1.2,50,0 0.6,75,60,tractor
    python scripts/real_toy_grid.py --plan-only                  # the plan of every place
    nice -n 10 python scripts/real_toy_grid.py --places 1.2,50,0 --keep DIR --results R.jsonl
    nice -n 10 python scripts/real_toy_grid.py --remeasure DIR   # every film kept in DIR

With no ``--places``, the whole grid (0.6/1.2/1.8 m x 25/50/75 deg x 0/+-30/+-60 deg
x tractor or not: 90 places, hours of CPU). ``--plan-only`` asks the plan alone
(the shots fired once, nothing filmed: seconds a place); ``--remeasure DIR``
measures again every place's film kept in DIR by ``--keep`` (its folder's name
says the place) and films nothing; ``--results FILE`` adds each place's figures
to FILE as a JSON line (the place, the plan's notes, the figures, the CPU seconds
its filming and measuring took).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import re
import resource
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

TARGET_MM = (0.0, 120.0, 0.0)
GRID = [
    (d, e, p, t)
    for d, e, p, t in itertools.product(
        (0.6, 1.2, 1.8), (25, 50, 75), (0, 30, -30, 60, -60), (False, True)
    )
]


def camera_at(distance_m: float, elevation_deg: float, direction_deg: float) -> tuple:
    """The camera's place, mm: ``distance_m`` from the target, ``elevation_deg`` above
    the board, ``direction_deg`` from straight behind (-y) toward +x."""
    e, p = math.radians(elevation_deg), math.radians(direction_deg)
    r = 1000 * distance_m
    x, y, z = TARGET_MM
    return (
        x + r * math.cos(e) * math.sin(p),
        y - r * math.cos(e) * math.cos(p),
        z + r * math.sin(e),
    )


def parse_place(text: str) -> tuple:
    parts = text.split(",")
    tractor = parts[3:] == ["tractor"]
    if len(parts) not in (3, 4) or (len(parts) == 4 and not tractor):
        raise argparse.ArgumentTypeError(
            f"{text!r}: DISTANCE_M,ELEVATION_DEG,DIRECTION_DEG[,tractor]"
        )
    return float(parts[0]), float(parts[1]), float(parts[2]), tractor


def place_name(place: tuple) -> str:
    """The place as its kept folder's name begins: ``1.2_50_-30_tractor``."""
    return "_".join(f"{v:g}" for v in place[:3]) + ("_tractor" if place[3] else "")


#: The fired shots of each (angles, seed, tractor): the same for every camera.
_TAKES: dict[tuple, list] = {}


def plan_report(place: tuple, angles: str, seed: int, size: tuple, fov: float) -> dict:
    """``piggy film``'s plan of the place (its ``notes`` empty: approved), from the
    fired shots alone (nothing is drawn)."""
    from models.board import load_board
    from models.design import load_design
    from sim.real_toy.angles import read_angles
    from sim.real_toy.camera import make_camera
    from sim.real_toy.film import FilmSettings, fire
    from sim.real_toy.plan import plan

    board, design = load_board("stock"), load_design("stock")
    camera = make_camera(camera_at(*place[:3]), TARGET_MM, fov, *size)
    settings = FilmSettings(tractor=place[3])
    key = (angles, seed, place[3])
    if key not in _TAKES:
        _TAKES[key] = fire(board, design, read_angles(angles), seed, settings)
    return plan(camera, board, design, _TAKES[key], settings)


def plan_row(place: tuple, report: dict) -> str:
    """The place's row of the plan's table."""
    d, e, p, t = place
    seen = sum(m["in_picture"] for m in report["markers"])
    verdict = "; ".join(report["notes"]) or "approved"
    return (
        f"| {d:g} m | {e:g}° | {p:+g}° | {'yes' if t else 'no'} | {seen} of "
        f"{len(report['markers'])} | {report['touches_in_picture']} of {report['shots']} "
        f"({report['not_on_board']} not on the board) | {verdict} |"
    )


def run_place(place: tuple, args, work: Path) -> dict:
    """Film, re-encode and measure one place: its row of the table. With
    ``--keep``, a place's re-encoded film and truth are kept in a folder of its
    own and measured again, not filmed again, on a later run (filming and
    re-encoding a 1080p place is most of its time, and the same seed films the
    same video: the folder's name holds what decides it)."""
    if args.keep is not None:
        size = f"{args.size[0]}x{args.size[1]}"
        work = args.keep / (
            f"{place_name(place)}_{size}_fov{args.fov:g}_seed{args.seed}_{Path(args.angles).stem}"
        )
        work.mkdir(parents=True, exist_ok=True)
    cam = ",".join(f"{v:.1f}" for v in camera_at(*place[:3]))
    film, truth = work / "film.mp4", work / "truth.csv"
    encoded = work / "phone.mp4"
    if args.keep is None or not (encoded.exists() and truth.exists()):
        _film(place, args, cam, film, truth, encoded)
    film.unlink(missing_ok=True)
    return measure(work, args.angles)


def measure(work: Path, angles: str) -> dict:
    """Measure ``work``'s re-encoded film (``phone.mp4``) into its ``measured.csv``
    and set it against its ``truth.csv``."""
    measured = work / "measured.csv"
    measured.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", "measure", str(work / "phone.mp4"), "--angles", angles,
         "--out", str(measured), "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        return {"refused": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return compare(work / "truth.csv", json.loads(done.stdout))


#: A kept folder's name: the place, then the size, field of view, seed and angles.
KEPT = re.compile(
    r"(?P<d>[\d.]+)_(?P<e>[\d.]+)_(?P<p>-?[\d.]+)(?P<t>_tractor)?_(?P<size>\d+x\d+)"
    r"_fov[\d.]+_seed\d+_(?P<angles>.+)"
)


def kept_places(folder: Path, angles: str) -> list[tuple[tuple, Path]]:
    """Each place whose film ``--keep`` kept in ``folder`` (a ``phone.mp4`` and a
    ``truth.csv`` in a folder named for the place), in the order of their names;
    a kept folder filmed with other angles than ``angles`` is a ValueError, as is a
    folder with no kept film."""
    if not folder.is_dir():
        raise ValueError(f"--remeasure {folder}: not a folder")
    kept = []
    for work in sorted(folder.iterdir()):
        match = KEPT.fullmatch(work.name)
        if not (match and (work / "phone.mp4").is_file() and (work / "truth.csv").is_file()):
            continue
        if match["angles"] != Path(angles).stem:
            raise ValueError(f"{work}: filmed with {match['angles']}, not --angles {angles}")
        place = (float(match["d"]), float(match["e"]), float(match["p"]), bool(match["t"]))
        kept.append((place, work))
    if not kept:
        raise ValueError(f"--remeasure {folder}: no kept film (PLACE_..._ANGLES/phone.mp4)")
    return kept


def _film(place: tuple, args, cam: str, film: Path, truth: Path, encoded: Path) -> None:
    """Film the place and re-encode it as a phone's editor would."""
    import imageio_ffmpeg

    for path in (film, truth, encoded, Path(f"{truth}.json")):
        path.unlink(missing_ok=True)
    film_cmd = [
        sys.executable, "-m", "sim.cli", "film", "--design", "stock", "--angles", args.angles,
        f"--camera-at={cam}", "--look-at=" + ",".join(f"{v:g}" for v in TARGET_MM),
        "--fov", f"{args.fov:g}", "--size", f"{args.size[0]}x{args.size[1]}",
        "--seed", str(args.seed), "--out", str(film), "--truth", str(truth), "--json",
    ] + (["--tractor"] if place[3] else [])  # fmt: skip
    subprocess.run(film_cmd, check=True, capture_output=True)
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    partial = encoded.with_suffix(".partial.mp4")  # a run stopped here keeps no half film
    subprocess.run(
        [ffmpeg, "-loglevel", "error", "-y", "-i", str(film), "-c:v", "libx264", "-crf", "23",
         "-map_metadata", "-1", str(partial)],
        check=True,
    )  # fmt: skip
    partial.replace(encoded)


def compare(truth_csv: Path, summary: dict) -> dict:
    """The measured shots (``piggy measure --json``) against the truth: counts,
    first-touch rms (mm, over the shots that first touched the board) and speed
    rms (%)."""
    truth = list(csv.DictReader(truth_csv.open()))
    misses, speeds, why = [], [], Counter[str]()
    for row, got in zip(truth, summary["shots"], strict=True):
        if got["skipped"]:
            why[got["skipped"].split(":")[0].split(" (")[0]] += 1
            continue
        if row["x_mm"]:
            misses.append(
                math.hypot(got["x_mm"] - float(row["x_mm"]), got["y_mm"] - float(row["y_mm"]))
            )
        if got["speed_mm_s"] is not None:
            speeds.append(got["speed_mm_s"] / float(row["speed_mm_s"]) - 1)
    rms = lambda v: float(np.sqrt(np.mean(np.square(v)))) if v else math.nan  # noqa: E731
    return {
        "shots": len(truth),
        "first_touch_on_board": sum(bool(row["x_mm"]) for row in truth),
        "measured": sum(not got["skipped"] for got in summary["shots"]),
        "touch_rms_mm": rms(misses),
        "touch_worst_mm": max(misses, default=math.nan),
        "speeds": len(speeds),
        "speed_rms_pct": 100 * rms(speeds),
        "skipped": "; ".join(f"{n} {reason}" for reason, n in why.most_common()),
    }


def row_text(place: tuple, result: dict) -> str:
    d, e, p, t = place
    where = f"| {d:g} m | {e:g}° | {p:+g}° | {'yes' if t else 'no'} |"
    if "not_approved" in result:
        return f"{where} not approved by the plan: {result['not_approved']} | | |"
    if "refused" in result:
        return f"{where} refused: {result['refused']} | | |"
    skipped = f"; skipped: {result['skipped']}" if result["skipped"] else ""
    return (
        f"{where} {result['measured']} of {result['shots']} ({result['first_touch_on_board']} "
        f"first touched the board){skipped} | {result['touch_rms_mm']:.1f} mm (worst "
        f"{result['touch_worst_mm']:.1f}) | {result['speed_rms_pct']:.1f} % over "
        f"{result['speeds']} |"
    )


def children_cpu_s() -> float:
    """The CPU seconds this process's finished children took, user and system."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def record(path: Path | None, place: tuple, result: dict) -> None:
    """Add the place's result to ``path`` as one JSON line (none without a path)."""
    if path is not None:
        d, e, p, t = place
        line = {"place": {"distance_m": d, "elevation_deg": e, "direction_deg": p, "tractor": t}}
        with path.open("a") as out:
            out.write(json.dumps(line | result) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--places", nargs="*", type=parse_place, default=None)
    parser.add_argument(
        "--plan-only", action="store_true", help="ask each place's plan alone; film nothing"
    )
    parser.add_argument(
        "--remeasure", type=Path, default=None, help="measure again every film kept in DIR"
    )
    parser.add_argument(
        "--results", type=Path, default=None, help="add each place's figures here (JSON lines)"
    )
    parser.add_argument("--angles", default="docs/examples/measured-shots.csv")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--size", type=lambda s: tuple(int(v) for v in s.split("x")), default=(1920, 1080)
    )
    parser.add_argument("--fov", type=float, default=60.0)
    parser.add_argument(
        "--keep", type=Path, default=None, help="keep each place's film here and reuse it"
    )
    args = parser.parse_args()
    if args.plan_only:
        print("| distance | elevation | direction | tractor | markers | first touches | plan |")
        print("|---|---|---|---|---|---|---|")
        for place in args.places or GRID:
            report = plan_report(place, args.angles, args.seed, args.size, args.fov)
            record(args.results, place, {"approved": not report["notes"]} | report)
            print(plan_row(place, report), flush=True)
        return 0
    try:
        kept = kept_places(args.remeasure, args.angles) if args.remeasure is not None else None
    except ValueError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 2
    print(
        "| distance | elevation | direction | tractor | shots measured "
        "| first touch rms | speed rms |"
    )
    print("|---|---|---|---|---|---|---|")
    if kept is not None:
        for place, work in kept:
            before = children_cpu_s()
            result = measure(work, args.angles)
            record(args.results, place, result | {"cpu_s": round(children_cpu_s() - before)})
            print(row_text(place, result), flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for place in args.places or GRID:
            notes = plan_report(place, args.angles, args.seed, args.size, args.fov)["notes"]
            before = children_cpu_s()
            result = (
                {"not_approved": "; ".join(notes)} if notes else run_place(place, args, Path(tmp))
            )
            cpu = {"approved": not notes, "cpu_s": round(children_cpu_s() - before)}
            record(args.results, place, result | cpu)
            print(row_text(place, result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
