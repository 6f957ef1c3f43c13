"""Where an own bale leaves the barrel: its rear at the muzzle, on its mesh's real
extent behind its centre of mass (sim/physics/ballistics.py, ``release_point_mm``)."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from models.design import load_design
from sim.physics.ballistics import direction, release_point_mm


def tailed_bale() -> trimesh.Trimesh:
    """A 10 mm cube with a thin tail behind it along -y (2 x 16 x 2 mm, touching its
    back): its centre of mass near the cube's, its rear 21 mm behind the cube's centre,
    so half its length (13 mm) would start it with its tail 7 mm inside the barrel."""
    tail = trimesh.creation.box(extents=(2.0, 16.0, 2.0))
    tail.apply_translation([0.0, -13.0, 0.0])
    shell = trimesh.util.concatenate([trimesh.creation.box(extents=(10.0, 10.0, 10.0)), tail])
    assert isinstance(shell, trimesh.Trimesh)
    return shell


@pytest.mark.parametrize(("yaw_deg", "pitch_deg"), [(0.0, 0.0), (30.0, 20.0), (-75.0, -10.0)])
def test_an_own_bale_leaves_the_barrel_with_its_rear_at_the_muzzle(tmp_path, yaw_deg, pitch_deg):
    bale = tailed_bale()
    bale.export(tmp_path / "bale.stl")
    (tmp_path / "tail.toml").write_text('name = "tail"\n[bale]\nmesh = "bale.stl"\n')
    design = load_design(str(tmp_path / "tail.toml"))
    launcher = design.launcher
    # the bale's frame (centre of mass at 0, +y along the barrel) turned with the barrel:
    # Bullet's orientation from the Euler angles (pitch about x, then yaw about z)
    pitch, yaw = np.radians(pitch_deg), np.radians(yaw_deg)
    tilt = np.array(
        [[1, 0, 0], [0, np.cos(pitch), -np.sin(pitch)], [0, np.sin(pitch), np.cos(pitch)]]
    )
    turn = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    points = (bale.vertices - bale.center_mass) @ (turn @ tilt).T
    points += release_point_mm(design, yaw_deg, pitch_deg)
    pivot = np.array([0.0, 0.0, launcher.pivot_height_mm])
    along = (points - pivot) @ direction(yaw_deg, pitch_deg)
    assert along.min() == pytest.approx(launcher.barrel_length_mm, abs=1e-6)
    # half the bale's length would have left its tail in the barrel
    assert design.bale.length_mm / 2 == pytest.approx(13.0)
    # its centre of mass, 0.8 mm behind the cube's, is 20.2 mm ahead of its rear
    assert design.bale.behind_mm == pytest.approx(21.0 + bale.center_mass[1])
