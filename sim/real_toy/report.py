"""What ``piggy measure`` says about a measurement: the provenance beside the CSV,
the lines it prints, its JSON."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

from models.errors import InputError
from models.text import shown
from sim.real_toy.measure import Measurement


def provenance(measurement: Measurement, sources: dict, camera_file: bool) -> dict:
    """What made the measured CSV: the video (and its sha256), the angles, design
    and board, the camera found, the markers, each skipped shot and why."""
    from sim.studies.shots.datafiles import package_version

    info, pose = measurement.info, measurement.pose
    k = pose.intrinsics
    return {
        "made_by": "piggy measure",
        "video": info.path.name,
        "video_sha256": _sha256(info.path),
        **sources,
        "fps": info.fps,
        "size": [info.width, info.height],
        "camera": {
            "fx": k.fx,
            "fy": k.fy,
            "cx": k.cx,
            "cy": k.cy,
            "distortion": list(k.distortion),
            "from": "--camera-file" if camera_file else "estimated from the markers",
            "position_mm": [round(float(v), 1) for v in pose.centre_mm],
        },
        "markers_seen": list(pose.markers_seen),
        "marker_reprojection_px": round(pose.reprojection_px, 3),
        "readout": readout_json(measurement),
        "columns": COLUMNS,
        "skipped": [
            {"shot": s.number, "reason": s.skipped} for s in measurement.shots if s.skipped
        ],
        "package_version": package_version(),
    }


#: What each column of the measured CSV holds (board frame, mm).
COLUMNS = {
    "pitch_deg, yaw_deg": "the angles set for the shot (--angles)",
    "x_mm, y_mm": "the first touch: the lowest corner where the bale's image path first "
    "breaks, lifted to the board",
    "speed_mm_s": "the launch speed from a ballistic fit to the flight; empty where the view "
    "cannot give it (quality says why)",
    "quality": "good, or why the speed is missing",
    "rest_x_mm, rest_y_mm": "the point of the board under the bale's centre at rest (its still "
    "frames' centroid on the plane of half its height); empty where the shot's frames do not "
    "end with it still on the board and wholly in the picture",
    "second_x_mm, second_y_mm": "the bounce's landing: the next break of the image path after "
    "the first touch, where the frames between are a hop from it; empty where not seen",
}


def readout_json(measurement: Measurement) -> dict:
    """The rolling shutter's readout used (share of the frame period) and how it
    was found."""
    readout = measurement.readout
    return {
        "fraction": round(readout.fraction, 3),
        "source": readout.source,
        "estimate": _rounded(readout.estimate),
        "se": _rounded(readout.se),
        "flights": readout.flights,
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def no_shot_measured(measurement: Measurement) -> InputError:
    return InputError(
        f"no shot of {measurement.info.path.name} could be measured: "
        + "; ".join(f"shot {s.number}: {s.skipped}" for s in measurement.shots[:3])
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _point(x_mm: float, y_mm: float) -> list[float] | None:
    return None if math.isnan(x_mm) else [round(x_mm, 2), round(y_mm, 2)]


def summary(measurement: Measurement) -> dict:
    """The measurement as JSON-ready data."""
    shots = []
    for s in measurement.shots:
        shots.append(
            {
                "shot": s.number,
                "pitch_deg": s.pitch_deg,
                "yaw_deg": s.yaw_deg,
                "x_mm": None if math.isnan(s.x_mm) else round(s.x_mm, 2),
                "y_mm": None if math.isnan(s.y_mm) else round(s.y_mm, 2),
                "speed_mm_s": None if math.isnan(s.speed_mm_s) else round(s.speed_mm_s, 1),
                "quality": s.quality or None,
                "skipped": s.skipped,
                "rest_mm": _point(s.rest_x_mm, s.rest_y_mm),
                "no_rest": s.no_rest or None,
                "second_touch_mm": _point(s.second_x_mm, s.second_y_mm),
            }
        )
    pose = measurement.pose
    return {
        "video": str(measurement.info.path),
        "fps": measurement.info.fps,
        "camera_mm": [round(float(v), 1) for v in pose.centre_mm],
        "focal_px": round(pose.intrinsics.fx, 1),
        "marker_reprojection_px": round(pose.reprojection_px, 3),
        "readout": readout_json(measurement),
        "shots": shots,
    }


def report_lines(measurement: Measurement, out) -> list[str]:
    shots = measurement.shots
    done = [s for s in shots if not s.skipped]
    speeds = [s for s in done if not math.isnan(s.speed_mm_s)]
    pose = measurement.pose
    camera = ", ".join(f"{v:.0f}" for v in pose.centre_mm)
    lines = [
        f"Measured {len(done)} of {len(shots)} shots from {shown(str(measurement.info.path))} "
        f"({measurement.info.fps:g} fps; camera at {camera} mm, markers fit to "
        f"{pose.reprojection_px:.2f} px), {len(speeds)} with a launch speed.",
        f"  the bale followed to rest in {sum(not math.isnan(s.rest_x_mm) for s in shots)} "
        f"of {len(shots)} shots ({sum(not math.isnan(s.rest_x_mm) for s in done)} of them "
        f"in the CSV), its second touch seen in "
        f"{sum(not math.isnan(s.second_x_mm) for s in done)}",
        f"  rolling shutter readout: {measurement.readout.describe()}",
    ]
    for s in shots:
        if s.skipped:
            lines.append(f"  shot {s.number}: skipped, {s.skipped}")
        elif s.quality != "good":
            lines.append(f"  shot {s.number}: {s.quality}")
    lines.append(f"Wrote {shown(str(out))} (and its provenance, {shown(str(out))}.json)")
    return lines
