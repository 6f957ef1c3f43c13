"""``piggy measure``'s pipeline: a video of shots in, each shot's first touch and
launch speed out (docs/real-toy.md, "Measuring from a video").

1. The angles CSV, the design (the bale's size) and the frame rate are checked,
   and the markers found and the camera's pose solved from the video's first
   frames: everything that can be refused is refused before the long pass.
2. One pass over every frame tracks the bale (sim/real_toy/track.py).
3. The track is cut into shots, each starting with a launch (sim/real_toy/track.py,
   ``split_shots``); their count must be the angles CSV's (this can only be
   known after the pass).
4. The rolling shutter's readout, given or estimated over the shots' flights
   (sim/real_toy/shutter.py), times each tracked point by its row.
5. Each shot's first touch (sim/real_toy/touch.py) and launch speed
   (sim/real_toy/speed.py). A shot that cannot be measured is skipped with its
   reason; a speed the view cannot give is left empty with its reason.
6. Each shot's bale followed on to rest, and its bounce's second touch
   (sim/real_toy/rest.py), where the view shows them.
7. A flight that left the barrel at another pitch or yaw than its row says is
   refused by name (sim/real_toy/rows.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from models.design import Design
from models.errors import InputError
from models.layout import Layout
from sim.physics.ballistics import (
    GRAVITY_MM_S2,
    contact_offset_mm,
    release_radius_mm,
)
from sim.real_toy.angles import Angles
from sim.real_toy.arc import Launch
from sim.real_toy.detect import (
    CameraPose,
    Intrinsics,
    check_enough,
    find_markers,
    solve_pose,
)
from sim.real_toy.markers import MarkerLayout
from sim.real_toy.paper_cut import clear_of_paper
from sim.real_toy.piggies_seen import check_layout, read_piggies, touches_on_piggies
from sim.real_toy.rest import rest_point, second_touch
from sim.real_toy.rows import check_rows
from sim.real_toy.shutter import FlightTrack, Readout, estimate_readout, point_times
from sim.real_toy.speed import launch_angles, launch_speed
from sim.real_toy.touch import Touch, first_touch
from sim.real_toy.track import (
    Frames,
    Track,
    VideoInfo,
    first_frames,
    open_video,
)
from sim.real_toy.tracking import track_shots
from sim.real_toy.whole_bale import steady_frames

#: Frames searched for the markers at the start of the video.
MARKER_FRAMES = 10
#: A launch speed is given only when the fit knows it to this fraction (1 sd).
MAX_SPEED_SE = 0.01
#: A flight fitted worse than this (rms, pixels) is not trusted.
MAX_FLIGHT_RMS_PX = 2.5
#: Flight frames needed before the touch for the touch (frame periods flown, from
#: the launch where the arc from the barrel gives it: a shot first seen late, the
#: tractor hiding the barrel's end, still flew them), and frames seen for the speed.
MIN_TOUCH_FRAMES = 8
MIN_SPEED_FRAMES = 12
NO_BREAK = (
    "no first touch seen: the bale's path does not break clearly in view (it left the "
    "frame, was hidden, or moved too few pixels a frame before touching)"
)


@dataclass(frozen=True)
class ShotMeasure:
    """One shot: its angles, first touch (x, y mm) and launch speed (NaN where not
    measured), quality in words, the reason it was skipped (None if measured),
    and its frames and fitted pieces for the overlay; where its bale came to rest
    and its second touch (x, y mm, NaN where not seen; ``no_rest`` says why not)."""

    number: int
    pitch_deg: float
    yaw_deg: float
    x_mm: float = math.nan
    y_mm: float = math.nan
    speed_mm_s: float = math.nan
    quality: str = ""
    skipped: str | None = None
    frames: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    break_frame: int | None = None
    rest_x_mm: float = math.nan
    rest_y_mm: float = math.nan
    no_rest: str = ""
    second_x_mm: float = math.nan
    second_y_mm: float = math.nan
    #: the fitted flight's pitch and yaw at the barrel and their standard errors,
    #: degrees (NaN where its path does not come back to the barrel)
    flown_deg: tuple[float, float] = (math.nan, math.nan)
    flown_se_deg: tuple[float, float] = (math.nan, math.nan)


@dataclass(frozen=True)
class Measurement:
    info: VideoInfo
    pose: CameraPose
    track: Track
    shots: tuple[ShotMeasure, ...]
    readout: Readout
    #: each shot's piggies, with ``--layout`` (sim/real_toy/piggies_seen.py)
    piggies: tuple | None = None


def needed_fps(design: Design) -> float:
    """The frame rate at which the bale, at its fastest (the muzzle speed plus two
    spreads, gaining speed as it falls from the pivot's height), moves at most its
    own length between frames: slower, the frame before the touch and the frame
    after it can lie a bale apart and the bounce is not seen."""
    launcher = design.launcher
    speed = launcher.muzzle_speed_mm_s + 2 * launcher.speed_sd_mm_s
    fastest = math.sqrt(speed**2 + 2 * GRAVITY_MM_S2 * launcher.pivot_height_mm)
    return fastest / design.bale.length_mm


def check_frame_rate(info: VideoInfo, design: Design) -> None:
    need = needed_fps(design)
    if info.fps < need:
        raise InputError(
            f"video {info.path.name}: {info.fps:g} frames/s is too few to find a first touch: "
            f"the bale ({design.bale.length_mm:g} mm) flies up to "
            f"{need * design.bale.length_mm / 1000:.1f} m/s, so at least {math.ceil(need)} "
            "frames/s (a phone's 240 fps slow motion)"
        )


def locate_camera(
    frames: Frames, layout: MarkerLayout, intrinsics: Intrinsics | None
) -> CameraPose:
    """The camera's pose from the markers in the video's first frames (each
    marker's corners averaged over the frames it is found in)."""
    info = frames.info
    seen: dict[int, list[np.ndarray]] = {}
    first = first_frames(frames, MARKER_FRAMES)
    for frame in first:
        for marker_id, corners in find_markers(frame, layout).items():
            seen.setdefault(marker_id, []).append(corners)
    found = {i: np.mean(c, axis=0) for i, c in seen.items()}
    check_enough(found, layout, len(first))
    if intrinsics is not None and not (
        0 < intrinsics.cx < info.width and 0 < intrinsics.cy < info.height
    ):
        raise InputError(
            f"--camera-file: its principal point ({intrinsics.cx:g}, {intrinsics.cy:g}) is "
            f"outside the video's {info.width}x{info.height} frame: a calibration at another size"
        )
    return solve_pose(found, layout, (info.width, info.height), intrinsics)


def measure_video(
    video,
    angles: Angles,
    design: Design,
    layout: MarkerLayout,
    intrinsics: Intrinsics | None = None,
    progress: Callable[[int], None] = lambda done: None,
    on_ready: Callable[[VideoInfo], None] = lambda info: None,
    readout: float | None = None,
    piggies: Layout | None = None,
) -> Measurement:
    """The whole pipeline (see the module's notes); ``readout`` is the rolling
    shutter's (share of the frame period), None to estimate it from the video;
    with ``piggies`` (their layout), each shot's piggies are read too."""
    frames = open_video(video)
    info = frames.info
    check_frame_rate(info, design)
    pose = locate_camera(frames, layout, intrinsics)
    if piggies is not None:
        check_layout(video, pose, piggies, design)  # before the long pass
    on_ready(info)
    track, shots = track_shots(frames, pose, design, piggies is not None, progress)
    # Only the whole pass can count the shots, so this check comes after it.
    if len(shots) != len(angles):
        raise InputError(
            f"the video shows {len(shots)} shot{'s' * (len(shots) != 1)} but --angles "
            f"{angles.source} lists {len(angles)}: one row per shot fired, in order "
            "(a shot whose bale never came into view is not seen)"
        )
    measured, used = measure_shots(shots, track, info, pose, design, angles, readout, layout)
    check_rows(measured, angles, design)
    seen = None
    if piggies is not None:
        seen = read_piggies(video, shots, pose, piggies, design)
        measured = tuple(touches_on_piggies(measured, seen, piggies))
    return Measurement(info, pose, track, measured, used, seen)


def measure_shots(
    shots: list[np.ndarray],
    track: Track,
    info: VideoInfo,
    pose: CameraPose,
    design: Design,
    angles: Angles,
    readout: float | None,
    layout: MarkerLayout | None = None,
) -> tuple[tuple[ShotMeasure, ...], Readout]:
    """Each shot (its frames) measured from the track, and the readout used: the
    one given, or (None) the one estimated over the flights that can give a speed,
    found with every point at its frame's time. A frame whose blob is not the whole
    bale (:func:`~sim.real_toy.whole_bale.steady_frames`; with ``layout``, also one cut by
    a marker's paper: :func:`~sim.real_toy.paper_cut.clear_of_paper`) is left out of
    its shot."""
    shots = [frames[_whole_bale(frames, track, pose, layout)] for frames in shots]
    if readout is None:
        flights = []
        for n, frames in enumerate(shots):
            touch, times, pixels = _touch(n + 1, frames, track, info, pose, design, angles, 0.0)
            if (flight := _flight_track(touch, times, pixels)) is not None:
                flights.append(flight)
        used = estimate_readout(pose, flights, info.fps, info.height)
    else:
        used = Readout(readout, "given")
    measured = tuple(
        _measure_shot(n + 1, frames, track, info, pose, design, angles, used.fraction, layout)
        for n, frames in enumerate(shots)
    )
    return measured, used


def _whole_bale(frames, track, pose, layout) -> np.ndarray:
    """Which of a shot's frames show the whole bale: its blob not cut, and (with
    the markers' layout) not cut by a marker's paper."""
    whole = steady_frames(track.area[frames])
    if layout is not None:
        whole &= clear_of_paper(pose, layout, track.pixel[frames], track.area[frames])
    return whole


def _touch(number, frames, track, info, pose, design, angles, readout):
    """One shot's first touch (None where no break is seen) and its points' times
    (the readout's) and pixels."""
    pitch, yaw = float(angles.pitch_deg[number - 1]), float(angles.yaw_deg[number - 1])
    # Frames where the bale was missed (hidden, over a marker) are left out; the
    # fits are in time, so a gap in the frames is no gap in the path.
    pixels = track.pixel[frames]
    times = point_times(frames / info.fps, pixels, readout, info.fps, info.height)
    depth, ahead = contact_offset_mm(design.bale, pitch)
    launcher = design.launcher
    launch = Launch(
        launcher.pivot_height_mm, release_radius_mm(design), yaw, pitch, launcher.muzzle_speed_mm_s
    )
    touch = first_touch(pose, times, pixels, float(depth), float(ahead), yaw, launch)
    return touch, times, pixels


def _flight_track(touch: Touch | None, times, pixels) -> FlightTrack | None:
    """The flight before the touch where it could give a speed (enough flight
    frames, a trusted fit), else None."""
    if touch is None or touch.flight is None or touch.break_index < MIN_SPEED_FRAMES:
        return None
    if touch.flight.rms_px > MAX_FLIGHT_RMS_PX:
        return None
    b, flight = touch.break_index, touch.flight
    return FlightTrack(times[:b], pixels[:b], flight.touch_centre_mm, flight.touch_time_s)


def _measure_shot(
    number, frames, track, info, pose, design, angles, readout, layout=None
) -> ShotMeasure:
    pitch, yaw = float(angles.pitch_deg[number - 1]), float(angles.yaw_deg[number - 1])
    touch, times, pixels = _touch(number, frames, track, info, pose, design, angles, readout)
    board_top = layout.board_top_mm if layout else None
    rest = rest_point(pose, pixels, (info.width, info.height), design.bale, board_top)
    at_rest = (np.nan, np.nan) if rest.point_mm is None else rest.point_mm
    base = {"number": number, "pitch_deg": pitch, "yaw_deg": yaw, "frames": frames}
    base |= {"rest_x_mm": at_rest[0], "rest_y_mm": at_rest[1], "no_rest": rest.why}
    if touch is None or touch.flown_frames < MIN_TOUCH_FRAMES:
        return ShotMeasure(**base, skipped=NO_BREAK)
    flight = touch.flight
    x, y = (float(v) for v in touch.point_mm)
    if not (math.isfinite(x) and math.isfinite(y)):
        return ShotMeasure(**base, skipped="the touch's ray does not meet the board")
    if flight is None or flight.rms_px > MAX_FLIGHT_RMS_PX:
        # The frames before the break are not one flight ending there: the bounce
        # was missed (flying along the line of sight) and a later break was found.
        misfit = "no fit" if flight is None else f"{flight.rms_px:.1f} px rms"
        return ShotMeasure(
            **base,
            skipped=f"the path before its break is not one flight ending there ({misfit}): "
            "the bounce was not seen",
        )
    reach = release_radius_mm(design) * math.cos(math.radians(pitch))
    flown = launch_angles(flight, reach)
    nan2 = (math.nan, math.nan)
    flown_deg = nan2 if flown is None else (float(flown[0][0]), float(flown[0][1]))
    flown_se_deg = nan2 if flown is None else (float(flown[1][0]), float(flown[1][1]))
    speed, quality = math.nan, "good"
    if touch.break_index < MIN_SPEED_FRAMES:
        quality = f"no speed: only {touch.break_index} flight frames in view"
    else:
        fitted = launch_speed(flight, reach)
        if fitted is None:
            quality = "no speed: the fitted path does not come back to the barrel"
        elif fitted[1] > MAX_SPEED_SE * fitted[0]:
            quality = (
                f"no speed: the flight in view gives it only to {100 * fitted[1] / fitted[0]:.0f}%"
            )
        else:
            speed = fitted[0]
    second = second_touch(pose, times, pixels, touch, design.bale, layout)
    return ShotMeasure(
        **base,
        second_x_mm=math.nan if second is None else float(second[0]),
        second_y_mm=math.nan if second is None else float(second[1]),
        x_mm=x,
        y_mm=y,
        speed_mm_s=speed,
        quality=quality,
        break_frame=int(frames[touch.break_index]),
        flown_deg=flown_deg,
        flown_se_deg=flown_se_deg,
    )


def _cell(value_mm: float) -> str:
    return "" if math.isnan(value_mm) else f"{value_mm:.1f}"


def result_rows(measurement: Measurement) -> list[dict]:
    """The measured shots as rows of the CSV ``piggy calibrate`` reads: a shot's
    rest point and second touch are empty where the view did not show them. With a
    layout, every shot (one not measured with its reason as its quality) and its
    piggies' columns."""
    rows = []
    piggies = measurement.piggies
    for n, shot in enumerate(measurement.shots):
        if shot.skipped and piggies is None:
            continue
        measured = (
            {"x_mm": "", "y_mm": "", "speed_mm_s": "", "quality": shot.skipped}
            if shot.skipped
            else {
                "x_mm": f"{shot.x_mm:.1f}",
                "y_mm": f"{shot.y_mm:.1f}",
                "speed_mm_s": "" if math.isnan(shot.speed_mm_s) else f"{shot.speed_mm_s:.0f}",
                "quality": shot.quality,
            }
        )
        rows.append(
            {"pitch_deg": f"{shot.pitch_deg:g}", "yaw_deg": f"{shot.yaw_deg:g}"}
            | measured
            | {
                "rest_x_mm": _cell(shot.rest_x_mm),
                "rest_y_mm": _cell(shot.rest_y_mm),
                "second_x_mm": _cell(shot.second_x_mm),
                "second_y_mm": _cell(shot.second_y_mm),
            }
            | ({} if piggies is None else piggies[n].row())
        )
    return rows
