"""scripts/bench_mujoco_steps.py (issue 41 part 4): its coarser piggies keep the
piggy's outline, and a run pairs each variant with today's MuJoCo on the same shots
(no timing asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import Delaunay

from sim.physics.registry import installed

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not installed("mujoco"), reason="MuJoCo is not installed")


def steps_bench(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "scripts/bench_mujoco_steps.py", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_coarser_piggy_covers_every_part_it_merges():
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_mujoco_steps import PIGGY_GROUPS, coarser_piggy

    from sim.physics.geometry import PiggyModel

    model = PiggyModel.load()
    for groups in PIGGY_GROUPS.values():
        coarse = coarser_piggy(model, groups)
        assert len(coarse.parts_mm) == len(groups)
        for group, hull in zip(groups, coarse.parts_mm, strict=True):
            inside = Delaunay(hull)
            for i in group:
                # every vertex of a merged part lies in its group's hull (or on it)
                assert (inside.find_simplex(model.parts_mm[i], tol=1e-9) >= 0).all()
        # the true piggy's frame, mass and moments are kept
        assert np.array_equal(coarse.com_mm, model.com_mm)
        assert coarse.mass == model.mass


@pytest.mark.slow
def test_each_variant_is_paired_with_today_on_the_same_shots():
    run = steps_bench(
        "--only", "piggy 7 parts", "--child-shots", "1", "--grazing-shots", "1", "--json"
    )
    assert run.returncode == 0, run.stderr
    today, coarse = json.loads(run.stdout)
    assert [today["variant"], coarse["variant"]] == ["today", "piggy 7 parts"]
    # today's MuJoCo against itself: the same verdicts on every shot
    assert today["grazing_vs_today"]["agreement"] == 1.0
    assert today["child_cpu_per_shot_vs_today"] == 1.0
    assert len(coarse["grazing_p"]) == 12


@pytest.mark.slow  # a process of its own
def test_an_unknown_variant_is_refused_with_the_known_ones():
    run = steps_bench("--only", "faster please")
    assert run.returncode == 2
    assert "unknown variants ['faster please']" in run.stderr and "piggy 1 hull" in run.stderr
