"""The still pictures ``piggy measure --layout`` reads the piggies from
(sim/real_toy/piggies_seen.py): the video's frames picked by ffmpeg, each pixel's
piggy colour, and the frames before and after each shot.

- A pixel has a piggy's colour when its chromaticity (its RGB over their sum:
  the light's gain and shading leave it) is within :data:`CHROMA_TOLERANCE` of
  that colour's (sim/colours.py); a grey pixel is the tractor's or a marker's.
- A shot's "after" is the last still picture before the piggies are set up
  again for the next shot: over every :data:`SAMPLE_STRIDE`-th frame at
  1/:data:`SAMPLE_SCALE` of the size, the last whose piggy colours still differ
  clearly from the next shot's set-up (for the last shot, the video's end).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache

import numpy as np

from sim.colours import PIGGY_RGBA

COLOURS = tuple(PIGGY_RGBA)
#: A pixel is of a piggy's colour within this chromaticity distance of it.
CHROMA_TOLERANCE = 0.08
#: A pixel this near neutral grey is the tractor's or a marker's: it may hide a piggy.
GREY_TOLERANCE = 0.04
#: Pixels darker than this (the sum of RGB) have no colour to tell.
DARK = 60
#: Frames between the samples searched for the set-up between shots, the samples'
#: shrinking, and the share of a piggy's silhouette that must change between two
#: samples for it to be one.
SAMPLE_STRIDE = 4
SAMPLE_SCALE = 4
RESET_SHARE = 0.15


def colour_labels(rgb: np.ndarray) -> np.ndarray:
    """Per pixel: the index of its piggy colour in :data:`COLOURS`, ``len(COLOURS)``
    for grey, -1 for anything else (the board, the table, the bale); looked up in
    :func:`_label_table` by the pixel's RGB at 6 bits a channel (a frame in a few
    ms, where the chromaticity computed per pixel took a quarter of a second)."""
    bits = (rgb >> 2).astype(np.uint32)
    index = (bits[..., 0] << 12) | (bits[..., 1] << 6) | bits[..., 2]
    return _label_table()[index]


@cache
def _label_table() -> np.ndarray:
    """The label (:func:`colour_labels`) of every RGB colour at 6 bits a channel,
    taken at the middle of its bin."""
    levels = np.arange(64, dtype=np.float32) * 4 + 1.5
    r, g, b = np.meshgrid(levels, levels, levels, indexing="ij")
    pixels = np.stack([r, g, b], axis=-1).reshape(-1, 3)
    total = pixels.sum(axis=1)
    chroma = pixels / total[:, None]
    labels = np.full(len(pixels), -1, np.int8)
    lit = total >= DARK
    grey = np.linalg.norm(chroma - 1 / 3, axis=1) < GREY_TOLERANCE
    labels[lit & grey] = len(COLOURS)
    for index, name in enumerate(COLOURS):
        ref = np.array(PIGGY_RGBA[name][:3], np.float32)
        near = np.linalg.norm(chroma - ref / ref.sum(), axis=1) < CHROMA_TOLERANCE
        labels[lit & near] = index
    return labels


def frames_where(video, select: str, scale: int = 1, count: int | None = None):
    """The frames of ``video`` that ffmpeg's ``select`` expression picks, RGB,
    shrunk ``scale`` times; with ``count``, ffmpeg stops decoding after that many."""
    import imageio_ffmpeg

    shrink = "" if scale == 1 else f",scale=iw/{scale}:ih/{scale}:flags=area"
    output = ["-vf", f"select='{select}'{shrink}", "-fps_mode", "passthrough"]
    reader = imageio_ffmpeg.read_frames(
        str(video),
        pix_fmt="rgb24",
        output_params=output + ([] if count is None else ["-frames:v", str(count)]),
    )
    quiet = logging.getLogger("imageio_ffmpeg")  # it warns of the size asked for
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        meta = next(reader)
    finally:
        quiet.setLevel(level)
    width, height = meta["size"]
    try:
        for raw in reader:
            yield np.frombuffer(raw, np.uint8).reshape(height, width, 3)
    finally:
        reader.close()


def any_of(indices: Sequence[int]) -> str:
    """An ffmpeg ``select`` expression true for the frames of ``indices`` (sorted):
    their runs as ``between`` terms, summed as a balanced tree (a long chain of sums
    exhausts ffmpeg's expression parser)."""
    runs: list[list[int]] = []
    for n in indices:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    terms = [f"between(n\\,{a}\\,{b})" for a, b in runs]
    while len(terms) > 1:
        pairs = [terms[i : i + 2] for i in range(0, len(terms), 2)]
        terms = [f"({'+'.join(pair)})" if len(pair) == 2 else pair[0] for pair in pairs]
    return terms[0]


def samples(video) -> list[tuple[int, np.ndarray]]:
    """Every :data:`SAMPLE_STRIDE`-th frame at 1/:data:`SAMPLE_SCALE` of the size:
    its index and its piggy colours (labels, grey as nothing)."""
    samples = []
    select = f"not(mod(n\\,{SAMPLE_STRIDE}))"
    for k, frame in enumerate(frames_where(video, select, SAMPLE_SCALE)):
        labels = colour_labels(frame)
        samples.append((k * SAMPLE_STRIDE, np.where(labels < len(COLOURS), labels, -1)))
    return samples


def after_frames(samples, starts: Sequence[int], least: float) -> list[int]:
    """For each shot, the last frame before the piggies were set up again: the last
    sample before the next shot's start whose piggy colours still differ from the
    set-up the next shot starts from (its last sample) by over half the most any of
    the shot's samples differ from it, and by over ``least`` pixels (module notes,
    1); the last sample when none does (nothing moved), and the video's end for the
    last shot. Still frames flicker a few pixels as the encoder redraws them and the
    noise crosses a colour's edge, most on a small picture: the set-up is found
    against the next start, not as a change between neighbouring samples."""
    afters = []
    for i, start in enumerate(starts):
        if i + 1 == len(starts):
            afters.append(samples[-1][0])
            continue
        window = [(n, labels) for n, labels in samples if start < n <= starts[i + 1] - 2]
        if not window:
            afters.append(starts[i + 1] - 2)
            continue
        set_up = window[-1][1]
        away = [(n, np.count_nonzero(labels != set_up)) for n, labels in window]
        most = max(count for _, count in away)
        found = window[-1][0]
        if most > least:
            found = max(n for n, count in away if count > max(least, most / 2))
        afters.append(found)
    return afters


def labelled(video, groups: Sequence[Sequence[int]]):
    """For each group of frame indices, in order, the colour labels of the median of
    its frames (full size). Groups may share frames or come out of order (a shot's
    frames after it can reach into the next one's before it, where the set-up
    between them was quick): each frame is kept until the last group that needs it."""
    wanted = sorted({n for group in groups for n in group})
    last_use = {n: i for i, group in enumerate(groups) for n in group}
    kept: dict[int, np.ndarray] = {}
    frames = iter(frames_where(video, any_of(wanted), count=len(wanted)))
    arrived = iter(wanted)
    for i, group in enumerate(groups):
        while any(n not in kept for n in group):
            n = next(arrived)
            kept[n] = next(frames).copy()
        a, b, c = (kept[n] for n in group)  # the median of three, per channel
        picture = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
        yield colour_labels(picture)
        for n in [n for n in kept if last_use[n] <= i]:
            del kept[n]
