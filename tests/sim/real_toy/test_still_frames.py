"""The still frames ``piggy measure --layout`` reads (sim/real_toy/still_frames.py),
without a video: the frame after each shot is found against the next shot's
set-up, not fooled by a small picture's flicker, and frames shared by two shots'
groups, or asked out of order, are each read once and handed to both."""

from __future__ import annotations

import numpy as np

import sim.real_toy.still_frames as still_frames
from sim.real_toy.still_frames import after_frames, labelled

#: Pixels a knock moves (a piggy's colour gone from here, come there), and the
#: flicker of each still sample (the encoder, the noise across a colour's edge).
MOVED, FLICKER, LEAST = 60, 9, 5


def _samples(reset_at: int, next_start: int, seed: int = 0):
    """Every 4th frame's labels (20 x 20) from a shot at frame 0 to the next shot's
    start: its piggies knocked from frame 8 on, set up again at ``reset_at``."""
    rng = np.random.default_rng(seed)
    set_up = np.zeros((20, 20), int)
    knocked = set_up.copy()
    knocked.flat[:MOVED] = 1
    out = []
    for n in range(0, next_start + 40, 4):
        labels = (knocked if 8 <= n < reset_at else set_up).copy()
        labels.flat[rng.choice(400, FLICKER, replace=False)] = 2  # flicker
        out.append((n, labels))
    return out


def test_the_frame_after_a_shot_is_the_last_before_its_set_up_despite_flicker():
    """Flicker of 9 px a sample is over the 5 px a change must reach, so a rule that
    takes the first change going back from the next start stops in the set-up
    itself (it did, on a 960x540 film: the knocked piggies were read as standing)."""
    for seed in range(5):
        afters = after_frames(_samples(reset_at=120, next_start=160, seed=seed), [0, 160], LEAST)
        assert afters[0] == 116, seed


def test_nothing_moved_gives_the_last_sample_before_the_next_shot():
    samples = [(n, np.zeros((20, 20), int)) for n in range(0, 200, 4)]
    assert after_frames(samples, [0, 160], LEAST) == [156, 196]


def test_groups_out_of_order_or_sharing_frames_are_each_given_their_frames(monkeypatch):
    """A shot's frames after it can reach into the next shot's before it (a quick
    set-up): the groups [434..436] then [433..435] once raised StopIteration."""
    decoded = []

    def frames_where(video, select, scale=1, count=None):
        for n in map(int, select.split(",")):
            decoded.append(n)
            yield np.full((2, 2, 3), n, np.uint8)

    monkeypatch.setattr(still_frames, "any_of", lambda indices: ",".join(map(str, indices)))
    monkeypatch.setattr(still_frames, "frames_where", frames_where)
    monkeypatch.setattr(still_frames, "colour_labels", lambda picture: int(picture[0, 0, 0]))
    groups = [[100, 101, 102], [134, 135, 136], [133, 134, 135], [190, 191, 192]]
    medians = list(labelled("video.mp4", groups))
    assert medians == [101, 135, 134, 191]
    assert decoded == sorted({n for group in groups for n in group})
