"""A bale that would start under the board is refused on its real extent: an own
bale mesh's hull, not a box of its extents about its centre of mass
(models/design_checks.py, ``lowest_points_mm``; ``Bale.hull_mm``, ``Bale.behind_mm``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import trimesh

from models.design import Bale, design_from_dict, load_design
from models.errors import InputError
from tests.helpers import run

#: A launcher lower than the stock one (pivot 70 mm up), reaching 30 deg down.
LOW_LAUNCHER = "pivot_height_mm = 40.0\nbarrel_length_mm = 40.0\npitch_min_deg = -30.0\n"


def own_bale_design(folder: Path, bale: trimesh.Trimesh, launcher: str) -> str:
    """A design file in ``folder`` firing ``bale`` (written as STL beside it)."""
    bale.export(folder / "bale.stl")
    path = folder / "own-bale.toml"
    path.write_text(f'name = "own-bale"\n[launcher]\n{launcher}[bale]\nmesh = "bale.stl"\n')
    return str(path)


def keel_bale() -> trimesh.Trimesh:
    """A 10 mm cube with a thin keel under it (2 x 2 x 14 mm, touching its bottom): its
    centre of mass stays near the cube's, its lowest point far below, so a box of its
    extents centred on its centre of mass reaches 6.4 mm less deep than it does."""
    keel = trimesh.creation.box(extents=(2.0, 2.0, 14.0))
    keel.apply_translation([0.0, 0.0, -12.0])
    shell = trimesh.util.concatenate([trimesh.creation.box(extents=(10.0, 10.0, 10.0)), keel])
    assert isinstance(shell, trimesh.Trimesh)
    return shell


def depth_below_centre_of_mass_mm(mesh: trimesh.Trimesh) -> float:
    """How far a level mesh's lowest vertex lies below its centre of mass, mm."""
    return float(mesh.center_mass[2] - mesh.vertices[:, 2].min())


@pytest.mark.slow
def test_a_tall_own_bale_on_a_low_launcher_is_refused_before_any_shot(capsys, tmp_path):
    tall = trimesh.creation.box(extents=(10.0, 10.0, 40.0))  # 40 mm high
    design = own_bale_design(tmp_path, tall, LOW_LAUNCHER)
    for argv in (
        ["design", "check", design],
        ["shoot", "--design", design, "--at", "r8c3", "--json"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and out == "", err
        assert "at pitch -30 deg the bale would leave the barrel" in err
        assert "mm under the board surface (pivot 40 mm up, barrel 40 mm long)" in err


@pytest.mark.slow
def test_a_bale_of_the_stock_size_on_the_same_launcher_checks_and_shoots(capsys, tmp_path):
    block = trimesh.creation.box(extents=(7.0, 11.0, 6.0))
    design = own_bale_design(tmp_path, block, LOW_LAUNCHER)
    code, out, err = run(capsys, "design", "check", design)
    assert code == 0, err
    assert "is valid" in out
    code, out, err = run(capsys, "shoot", "--design", design, "--at", "r8c3", "--json")
    assert code == 0, err


def test_a_keel_under_the_bale_is_checked_on_its_real_depth(tmp_path):
    """Level (pitch 0 to 75), the keel's tip is the lowest point: a pivot 15 mm up puts it
    under the board by exactly its depth below the centre of mass less 15 mm, though a
    box of the bale's extents about its centre of mass would clear the board."""
    keel = keel_bale()
    depth = depth_below_centre_of_mass_mm(keel)
    extents_half_height = keel.extents[2] / 2
    assert depth - extents_half_height == pytest.approx(6.36, abs=0.01)
    level = "pitch_min_deg = 0.0\n"
    design = own_bale_design(tmp_path, keel, f"pivot_height_mm = 15.0\n{level}")
    with pytest.raises(InputError) as refused:
        load_design(design)
    under = float(re.search(r"leave the barrel ([\d.]+) mm under", str(refused.value)).group(1))
    assert re.search(r"at pitch 0 deg ", str(refused.value))
    assert under == pytest.approx(depth - 15.0, abs=0.05)
    # a pivot that clears the keel's tip by a millimetre is accepted
    cleared = own_bale_design(tmp_path, keel, f"pivot_height_mm = {depth + 1:.3f}\n{level}")
    assert load_design(cleared).launcher.pivot_height_mm == pytest.approx(depth + 1, abs=1e-3)


def test_the_check_agrees_with_the_hulls_vertices_on_random_launchers(tmp_path):
    """Seeded: the keel bale on 40 launchers drawn across the ranges is accepted exactly
    when every vertex of it is above the board at every pitch, worked out here by
    turning the vertices with the barrel (to within the check's 0.05 deg grid)."""
    keel = keel_bale()
    keel.export(tmp_path / "bale.stl")
    points = keel.vertices - keel.center_mass  # the bale's frame: its centre of mass at 0
    behind = -points[:, 1].min()
    rng = np.random.default_rng(7)
    verdicts = set()
    for _ in range(40):
        launcher = {
            "pivot_height_mm": float(rng.uniform(10, 60)),
            "barrel_length_mm": float(rng.uniform(5, 80)),
            "pitch_min_deg": float(rng.uniform(-40, 10)),
            "pitch_max_deg": 30.0,
        }
        data = {"launcher": launcher, "bale": {"mesh": "bale.stl"}}
        pitches = np.radians(np.linspace(launcher["pitch_min_deg"], 30.0, 4001))[:, None]
        centre_z = launcher["pivot_height_mm"] + (launcher["barrel_length_mm"] + behind) * np.sin(
            pitches
        )
        lowest = (centre_z + points[:, 1] * np.sin(pitches) + points[:, 2] * np.cos(pitches)).min()
        if abs(lowest) < 0.05:
            continue  # too close to call on the check's grid
        try:
            design_from_dict(data, source=str(tmp_path / "d.toml"))
            accepted = True
        except InputError as error:
            assert "under the board surface" in str(error)
            accepted = False
        assert accepted == (lowest > 0), (launcher, lowest)
        verdicts.add(accepted)
    assert verdicts == {True, False}  # both kinds drawn


def test_the_stock_block_is_its_eight_corners_and_half_its_length_behind():
    bale = Bale()
    assert sorted(map(tuple, bale.hull_mm)) == sorted(
        (x, y, z) for x in (-3.5, 3.5) for y in (-5.5, 5.5) for z in (-3.0, 3.0)
    )
    assert bale.behind_mm == 5.5
