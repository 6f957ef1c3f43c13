"""The one seed splitter: the seeds of earlier runs are kept (a seeded hit map or
tournament gives the same result as before there was a helper), and streams named
differently are independent."""

from __future__ import annotations

import numpy as np

from models.seeds import seed_sequence, split_seed


def test_a_hit_map_shot_keeps_the_seed_it_had():
    # root seed 0, space r8c3, shot 0 (the hit maps measured before the helper)
    assert split_seed(0, 8, 3, spawn_key=(0,)) == 1735171883


def test_streams_named_differently_differ():
    seeds = {split_seed(7, 8, 3, spawn_key=(i,)) for i in range(200)}
    seeds |= {split_seed(7, 3, 8, spawn_key=(i,)) for i in range(200)}
    assert len(seeds) == 400


def test_a_generator_from_the_same_stream_repeats():
    a = np.random.default_rng(seed_sequence(5, 0xC4A2CE)).random(3)
    b = np.random.default_rng(seed_sequence(5, 0xC4A2CE)).random(3)
    assert (a == b).all()
