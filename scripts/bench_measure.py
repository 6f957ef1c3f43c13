"""The measuring pass: the bench's ``measure`` section (``scripts/bench.py --only
measure``).

Films ``shots`` shots of docs/examples/measured-shots.csv with the stock design
(``piggy film``, 1920x1080 at 240 fps, from 1.2 m behind and 50 deg above the
landings, written at CRF 23), then measures the film in this process twice: with
the bale finder's blobs labelled within the box round the changed pixels (as
``piggy measure`` does) and labelled over the whole frame (as it did before).
Reports each variant's CPU seconds and frames a CPU second, the speed-up, and
whether both measured every shot the same. The film's making is not timed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
ANGLES = ROOT / "docs" / "examples" / "measured-shots.csv"
#: The camera: 1.2 m from (0, 120, 0) mm, 50 deg above the board, straight behind.
CAMERA_AT, LOOK_AT = "0,-651.3,919.3", "0,120,0"


def whole_frame_blobs(mask):
    """The blobs as the finder labelled them before: over the whole frame."""
    import cv2

    count, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return count, stats, centres


def film(folder: Path, shots: int) -> tuple[Path, Path]:
    """The first ``shots`` rows of the example angles, filmed; (video, angles)."""
    rows = ANGLES.read_text().splitlines()
    angles = folder / "angles.csv"
    angles.write_text("\n".join(rows[: shots + 1]) + "\n")
    video = folder / "shots.mp4"
    subprocess.run(
        [sys.executable, "-m", "sim.cli", "film", "--design", "stock", "--angles", str(angles),
         "--out", str(video), "--camera-at", CAMERA_AT, "--look-at", LOOK_AT,
         "--size", "1920x1080", "--crf", "23", "--seed", "1"],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return video, angles


def measured_rows(video: Path, angles: Path) -> tuple[list[str], int]:
    """Each shot's measured figures, written out; and the film's frames."""
    from models.board import load_board
    from models.design import load_design
    from sim.real_toy.angles import read_angles
    from sim.real_toy.markers import marker_layout
    from sim.real_toy.measure import measure_video

    layout = marker_layout(load_board("stock"))
    result = measure_video(video, read_angles(str(angles)), load_design("stock"), layout)
    rows = [
        repr((s.x_mm, s.y_mm, s.speed_mm_s, s.rest_x_mm, s.rest_y_mm, s.second_x_mm, s.skipped))
        for s in result.shots
    ]
    return rows, result.info.frames


def bench_measure(shots: int, quiet: bool) -> dict:
    """Both variants' CPU seconds on the same film, and whether they agree."""
    with tempfile.TemporaryDirectory() as folder:
        video, angles = film(Path(folder), shots)
        figures = {}
        for label, blobs in (("in the changed box", None), ("whole frame", whole_frame_blobs)):
            patch = mock.patch("sim.real_toy.follow.blobs", blobs) if blobs else mock.MagicMock()
            with patch:
                start = time.process_time()
                rows, frames = measured_rows(video, angles)
                figures[label] = (time.process_time() - start, rows, frames)
    boxed, whole = figures["in the changed box"], figures["whole frame"]
    report = {
        "measure_shots": shots,
        "measure_frames": boxed[2],
        "measure_cpu_s": round(boxed[0], 2),
        "measure_whole_frame_cpu_s": round(whole[0], 2),
        "measure_speed_up": round(whole[0] / boxed[0], 2),
        "measure_same_shots": boxed[1] == whole[1],
    }
    if not quiet:
        print(f"measuring a {shots}-shot 1080p film ({boxed[2]} frames), CPU seconds:")
        for label, (cpu, _, frames) in figures.items():
            print(f"  blobs {label:20s} {cpu:7.1f} s  ({frames / cpu:6.0f} frames a CPU second)")
        print(
            f"  speed-up {report['measure_speed_up']:.2f}x; "
            f"every shot measured the same: {report['measure_same_shots']}"
        )
    return report
