"""The piggies read from a video (``piggy measure --layout``): where each stood
before each shot and where the shot left it, and whether that knocked it out by
the rulebook's test (docs/rules/go-piggy-go.md, ruling 7; sim/physics/knockout.py)
as closely as a camera can tell.

1. The still frames around each shot are found (sim/real_toy/still_frames.py). A
   shot's "before" is the frames just before its bale comes into view. Its
   "after" is the last still picture before the piggies are set up again for the
   next shot: going back from the next shot's start over every 4th frame at a
   quarter of the size, the first sudden change of the piggy colours (for the
   last shot, the video's end).
2. Each pixel of those frames (the median of three) is given a piggy colour by
   its chromaticity (its RGB over their sum: the light's gain and shading leave
   it), within 0.08 of the colour's (sim/colours.py), or
   marked "grey" (the tractor, the markers: they hide what is behind them).
3. Each piggy's pose (x, y, heading; the height for the top of a stack) is fitted
   (sim/real_toy/piggy_fit.py) by drawing its silhouette from its mesh (the piggy's
   convex parts, projected with the camera's pose) and matching it to the pixels
   of its colour: the
   overlap over the union, the piggies of the same colour drawn where they are,
   pixels of other piggies and grey ones left out (they may hide it). It starts
   from the layout's place before the first shot, then from where it stood.
4. A piggy whose colour in and around its silhouette did not change is where it
   was; one that changed is fitted again near where it stood and at the blobs of
   its colour, upright on the board or (the top of a stack) where it stood, and
   judged by the touches-line test on its fitted footprint against its fitted
   footprint before the shot.
5. A piggy that no upright pose fits but whose place is in view and empty of its
   colour has left it (lying on its side, or gone from the board): knocked out,
   its ``moved_mm`` not known. A piggy less than :data:`MIN_SEEN` of whose
   silhouette can be seen (hidden by the tractor or another piggy), or no pose
   fits where its place is hidden, is ``unseen`` for that shot: not guessed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models.board import space_name
from models.errors import InputError
from models.layout import Layout
from sim.physics import knockout
from sim.real_toy.detect import CameraPose
from sim.real_toy.piggy_fit import PiggyPose, PiggyShape, Reader, start_poses
from sim.real_toy.still_frames import (
    RESET_SHARE,
    SAMPLE_SCALE,
    after_frames,
    labelled,
    samples,
)

#: A piggy is seen when at least this share of its silhouette is not hidden.
MIN_SEEN = 0.4
#: A fit is a piggy where its silhouette and its colour overlap this much (IoU).
MIN_FIT = 0.5
#: A piggy no upright pose fits has left its place when its colour covers less than
#: this share (IoU) of where it stood, that place being in view.
LEFT = 0.25
#: A piggy's colour changed when this share of its silhouette's pixels changed.
CHANGED = 0.08
#: A run of the tracking whose centre stays this near its median (pixels) is a
#: piggy lying still where a shot left it, not a shot.
STILL_RUN_PX = 2.0
#: A first touch this near where a piggy the shot moved stood (mm between their
#: centres: a piggy's half width, the bale's half length and a few mm of error)
#: is the bale striking the piggy, not the board.
ON_PIGGY_MM = 60.0


@dataclass(frozen=True)
class PiggiesSeen:
    """One shot's piggies: those knocked out, how far each seen to move moved (mm),
    and those the camera could not tell about."""

    knocked: tuple[str, ...]
    moved_mm: dict[str, float]
    unseen: tuple[str, ...]

    def row(self) -> dict:
        """The columns ``piggy measure --layout`` adds (docs/formats.md)."""
        return {
            "knocked": ";".join(self.knocked),
            "moved_mm": ";".join(f"{n}:{m:.1f}" for n, m in sorted(self.moved_mm.items())),
            "unseen": ";".join(self.unseen),
        }


def read_before(reader: Reader, labels: np.ndarray, guess: dict[str, PiggyPose]):
    """Each piggy's pose before a shot, fitted from ``guess``; a piggy that can be
    seen but whose colour is not there is refused, named (the layout is not the
    video's)."""
    poses = dict(guess)
    for _ in range(2):  # twice: the piggies of one colour fitted beside each other
        for piggy in reader.layout.piggies:
            top = reader.layout.level_of(piggy) > 0
            pose, fit, seen = reader.fit(piggy, [poses[piggy]], labels, poses, free_z=top)
            if seen >= MIN_SEEN and fit < MIN_FIT:
                space = space_name(reader.layout.space_of(piggy))
                raise InputError(
                    f"--layout: {piggy} is not where the video shows it: on {space} its "
                    f"colour covers {100 * fit:.0f}% of where it would stand (at least "
                    f"{100 * MIN_FIT:.0f}%): give the layout the video was filmed with"
                )
            poses[piggy] = pose
    return poses


def read_shot(reader: Reader, before_labels, after_labels, before: dict[str, PiggyPose]):
    """One shot's piggies from its still frames before and after (labels) and the
    poses fitted before it: a :class:`PiggiesSeen`."""
    board = reader.layout.board
    knocked, moved, unseen = [], {}, []
    after = dict(before)
    changed = [
        p for p in reader.layout.piggies if _changed(reader, p, before, before_labels, after_labels)
    ]
    for piggy in changed:
        starts = [before[piggy], *_blob_starts(reader, piggy, after_labels, before, changed)]
        pose, fit, seen = reader.fit(piggy, starts, after_labels, after)
        if fit < MIN_FIT or seen < MIN_SEEN:
            if _left_its_place(reader, piggy, before, after_labels, after):
                knocked.append(piggy)
            else:
                unseen.append(piggy)
            continue
        after[piggy] = pose
        dx, dy = pose.x_mm - before[piggy].x_mm, pose.y_mm - before[piggy].y_mm
        moved[piggy] = math.hypot(dx, dy)
        centre = board.space_center_mm(reader.layout.space_of(piggy))
        verdict = knockout.verdict_on(
            reader.shape.footprint(pose),
            np.asarray(centre, float),
            board.space_mm,
            board.line_mm,
            board.surface_extent_mm,
            "touches-line",
            reader.shape.footprint(before[piggy]),
        )
        if verdict.knocked:
            knocked.append(piggy)
    for piggy in reader.layout.piggies:
        if piggy not in changed and piggy not in unseen:
            box = reader.box([before[piggy]])
            if reader.score(piggy, before[piggy], after_labels, after, box)[1] < MIN_SEEN:
                unseen.append(piggy)
    return PiggiesSeen(tuple(sorted(knocked)), moved, tuple(sorted(unseen)))


def _left_its_place(reader: Reader, piggy, before, after_labels, after) -> bool:
    """Whether a piggy no upright pose fits has left where it stood: its place is in
    view (not hidden by another piggy or a grey body) and its colour covers under
    :data:`LEFT` of it. It lies on its side or is gone, so it is out by the rule: a
    piggy stands 4.7 mm clear of its outline and is 35 mm tall, so no fall or slide
    that takes it off its footprint keeps all of it off the line."""
    box = reader.box([before[piggy]])
    overlap, visible = reader.score(piggy, before[piggy], after_labels, after, box)
    return visible >= MIN_SEEN and overlap < LEFT


def _changed(reader: Reader, piggy, poses, before_labels, after_labels) -> bool:
    """Whether a piggy's colour changed in and around where it stood."""
    box = reader.box([poses[piggy]], margin=12)
    colour = reader.colour[piggy]
    was, now = before_labels[box] == colour, after_labels[box] == colour
    area = max(int(np.count_nonzero(reader.silhouette(poses[piggy], box))), 1)
    return int(np.count_nonzero(was != now)) > CHANGED * area


def _blob_starts(reader: Reader, piggy, labels, poses, changed) -> list[PiggyPose]:
    """Where to look for a piggy that moved: the blobs of its colour that the piggies
    of that colour that did not move do not explain, each at four headings, upright
    on the board."""
    import cv2

    colour = reader.colour[piggy]
    mask = (labels == colour).astype(np.uint8)
    for other, pose in poses.items():
        if other not in changed and reader.colour[other] == colour:
            box = reader.box([pose], margin=2)
            mask[box][reader.silhouette(pose, box)] = 0
    count, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    starts = []
    area = np.count_nonzero(reader.silhouette(poses[piggy], reader.box([poses[piggy]])))
    for index in range(1, count):
        if stats[index, cv2.CC_STAT_AREA] < 0.2 * area:
            continue
        x, y, _ = reader.camera.on_plane(centres[index][None, :], 15.0)[0]
        starts += [PiggyPose(float(x), float(y), h, 0.0) for h in (0.0, 90.0, 180.0, 270.0)]
    return starts


def touches_on_piggies(shots: Sequence, seen: Sequence[PiggiesSeen], layout: Layout) -> list:
    """The measured shots (``ShotMeasure``), each whose first touch is within
    :data:`ON_PIGGY_MM` of where a piggy it moved or knocked out stood (every shot
    is fired at the layout set up again) marked not measured, saying so: where the
    bale's path breaks there, it struck the piggy, and the break is not a touch of
    the board."""
    from dataclasses import replace

    board = layout.board
    out = []
    for shot, piggies in zip(shots, seen, strict=True):
        struck = [
            name
            for name in sorted({*piggies.knocked, *piggies.moved_mm})
            if not shot.skipped
            and math.dist(board.space_center_mm(layout.space_of(name)), (shot.x_mm, shot.y_mm))
            <= ON_PIGGY_MM
        ]
        if struck:
            shot = replace(
                shot,
                skipped=f"first touch on a piggy: the path breaks {ON_PIGGY_MM:.0f} mm or less "
                f"from where {' and '.join(struck)} stood, which the shot moved, not on the board",
            )
        out.append(shot)
    return out


def summary_line(seen: Sequence[PiggiesSeen]) -> str:
    """What ``piggy measure --layout`` read of the piggies, in one line."""
    knocked = sum(len(shot.knocked) for shot in seen)
    unseen = sum(len(shot.unseen) for shot in seen)
    return (
        f"Piggies: {knocked} seen knocked out over {len(seen)} shots; {unseen} "
        "piggy-shots unseen (hidden, lying or gone: see the unseen column)"
    )


def moving_runs(shots: Sequence[np.ndarray], track) -> list[np.ndarray]:
    """The runs of the tracking that are shots: a piggy knocked aside stays lighter
    than the board it left until it is set up again, and the tracking may follow
    it as a bale after the shot's bale is gone, past a pause long enough to start
    a run of its own; such a run never moves (its centre within
    :data:`STILL_RUN_PX`), where a bale in flight crosses the picture."""
    moving = []
    for frames in shots:
        pixels = track.pixel[frames]
        pixels = pixels[np.isfinite(pixels).all(axis=1)]
        spread = np.linalg.norm(pixels - np.median(pixels, axis=0), axis=1).max()
        if spread > STILL_RUN_PX:
            moving.append(frames)
    return moving


def check_layout(video, camera: CameraPose, layout: Layout, design) -> None:
    """Refuse a layout whose piggies the video's first frames do not show where it
    stands them (:func:`read_before`), before the video's long pass."""
    from sim.physics.geometry import PiggyModel

    model = PiggyModel.for_design(design)
    shape = PiggyShape(model.parts_mm, model.principal_axes, model.com_mm)
    labels = next(labelled(video, [[0, 1, 2]]))
    read_before(
        Reader(layout, shape, camera, labels.shape[::-1]), labels, start_poses(layout, shape)
    )


def read_piggies(video, shots: Sequence[np.ndarray], camera: CameraPose, layout: Layout, design):
    """Each shot's :class:`PiggiesSeen`, in order (``shots``: each shot's frames, as
    the tracking cut them)."""
    from sim.physics.geometry import PiggyModel

    model = PiggyModel.for_design(design)
    shape = PiggyShape(model.parts_mm, model.principal_axes, model.com_mm)
    found = samples(video)
    height, width = (SAMPLE_SCALE * side for side in found[0][1].shape)
    reader = Reader(layout, shape, camera, (width, height))
    layout_poses = start_poses(layout, shape)
    area = np.median(
        [np.count_nonzero(reader.silhouette(p, reader.box([p]))) for p in layout_poses.values()]
    )
    starts = [int(frames[0]) for frames in shots]
    afters = after_frames(found, starts, RESET_SHARE * area / SAMPLE_SCALE**2)
    groups: list[list[int]] = []
    for start, after in zip(starts, afters, strict=True):
        groups += [
            [max(start - 5 + k, 0) for k in range(3)],
            [max(after - 2 + k, 0) for k in range(3)],
        ]
    poses: dict[str, PiggyPose] = {}
    before_labels = None
    seen = []
    for index, labels in enumerate(labelled(video, groups)):
        if before_labels is None:
            poses = read_before(reader, labels, layout_poses)
        if index % 2 == 0:
            if before_labels is not None:
                moved = [
                    p for p in layout.piggies if _changed(reader, p, poses, before_labels, labels)
                ]
                for piggy in moved:
                    top = layout.level_of(piggy) > 0
                    poses[piggy] = reader.fit(piggy, [poses[piggy]], labels, poses, free_z=top)[0]
            before_labels = labels
        else:
            assert before_labels is not None  # groups alternate, before first
            seen.append(read_shot(reader, before_labels, labels, poses))
    return tuple(seen)


def provenance(layout: str) -> dict:
    """What a measurement's piggy columns rest on: the layout (its file and sha256,
    or its keyword) and what each column holds."""
    from models.identity import file_sha256

    known = layout in ("crowded", "empty")
    return {
        "layout": layout,
        **({} if known else {"layout_sha256": file_sha256(layout, "layout")}),
        "knocked": "the piggies seen knocked out (the touches-line test on each fitted footprint)",
        "moved_mm": "name:mm for each piggy seen to move, how far its centre moved",
        "unseen": "the piggies the camera could not tell about (hidden, lying, gone)",
    }
