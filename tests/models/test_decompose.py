"""Collision parts of a designer's mesh (convex: one part; separate convex shells:
those shells; else CoACD, capped, cached by content) and its mass properties
against closed forms."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import trimesh

from models import decompose
from models.decompose import DecompositionSettings, collision_parts, mesh_mass_properties
from models.errors import InputError
from models.mesh_files import read_mesh_file


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    """A ring (not convex: its hull fills the hole), 10 mm across, 4 mm tall."""
    path = tmp_path_factory.mktemp("ring") / "ring.stl"
    trimesh.creation.annulus(r_min=3, r_max=5, height=4).export(path)
    return read_mesh_file(path, "mm", "bale")


def _vertices(parts):
    return [np.round(p.vertices, 6).tolist() for p in parts]


def test_a_convex_mesh_is_one_part_its_own_shape(tmp_path):
    trimesh.creation.box(extents=(7, 11, 6)).export(tmp_path / "b.stl")
    mesh_file = read_mesh_file(tmp_path / "b.stl", "mm", "bale")
    parts = collision_parts(mesh_file, DecompositionSettings(), tmp_path / "cache")
    assert len(parts) == 1
    assert parts[0].volume == pytest.approx(7 * 11 * 6)
    assert not (tmp_path / "cache").exists()  # nothing to decompose, nothing cached


def _boxes_on_legs(leg: trimesh.Trimesh) -> trimesh.Trimesh:
    """A 30 x 40 x 12 mm box held up 8 mm by four separate copies of ``leg``."""
    body = trimesh.creation.box(extents=(30, 40, 12))
    body.apply_translation([0, 0, 14])
    legs = [leg.copy().apply_translation([x, y, 4]) for x in (-12, 12) for y in (-17, 17)]
    shell = trimesh.util.concatenate([body, *legs])
    assert isinstance(shell, trimesh.Trimesh)
    return shell


def test_separate_convex_shells_are_the_parts_exactly_with_no_decomposition(tmp_path, monkeypatch):
    def no_coacd(*args):
        raise AssertionError("CoACD was asked to split a mesh of convex shells")

    monkeypatch.setattr(decompose, "_coacd", no_coacd)
    _boxes_on_legs(trimesh.creation.box(extents=(5, 5, 8))).export(tmp_path / "t.stl")
    mesh_file = read_mesh_file(tmp_path / "t.stl", "mm", "piggy")
    parts = collision_parts(mesh_file, DecompositionSettings(), tmp_path / "cache")
    assert sorted(round(p.volume, 6) for p in parts) == [200.0] * 4 + [30 * 40 * 12.0]
    # the hollow under the body, between the legs, is inside no part
    assert not any(
        p.contains(mesh_file.mesh.bounds.mean(axis=0)[None] - [0, 0, 6])[0] for p in parts
    )
    assert not (tmp_path / "cache").exists()


def test_shells_one_of_them_not_convex_or_more_than_the_cap_go_to_coacd(tmp_path, monkeypatch):
    asked = []

    def fake_coacd(mesh, settings, name):
        asked.append(name)
        return [mesh.convex_hull]

    monkeypatch.setattr(decompose, "_coacd", fake_coacd)
    ring_leg = trimesh.creation.annulus(r_min=1, r_max=2.5, height=8)
    for name, mesh, settings in [
        ("ring-legs.stl", _boxes_on_legs(ring_leg), DecompositionSettings()),
        (
            "boxes.stl",
            _boxes_on_legs(trimesh.creation.box(extents=(5, 5, 8))),
            DecompositionSettings(max_parts=4),
        ),
    ]:
        mesh.export(tmp_path / name)
        collision_parts(read_mesh_file(tmp_path / name, "mm", "piggy"), settings, tmp_path / "c")
    assert asked == ["ring-legs.stl", "boxes.stl"]


@pytest.mark.slow
def test_a_ring_is_split_into_parts_that_leave_its_hole_open(ring, tmp_path):
    parts = collision_parts(ring, DecompositionSettings(max_parts=16), tmp_path)
    assert 2 <= len(parts) <= 16
    # the centre of the hole is inside no part (one hull would fill it)
    centre = np.zeros((1, 3))
    assert not any(p.contains(centre)[0] for p in parts)
    # the parts cover the ring's volume within the decomposition's error
    ring_volume = ring.mesh.volume
    assert sum(p.volume for p in parts) == pytest.approx(ring_volume, rel=0.3)


@pytest.mark.slow
def test_the_part_cap_holds_and_the_same_mesh_gives_the_same_parts(ring, tmp_path):
    capped = collision_parts(ring, DecompositionSettings(max_parts=3), tmp_path / "a")
    assert 2 <= len(capped) <= 3
    again = collision_parts(ring, DecompositionSettings(max_parts=3), tmp_path / "b")
    assert _vertices(again) == _vertices(capped)


@pytest.mark.slow
def test_the_cache_is_used_for_the_same_content_and_checked_not_trusted(
    ring, tmp_path, monkeypatch
):
    settings = DecompositionSettings(max_parts=4)
    first = collision_parts(ring, settings, tmp_path)
    (cached,) = tmp_path.glob("*.obj")
    calls = []
    real_coacd = decompose._coacd
    monkeypatch.setattr(decompose, "_coacd", lambda *a: calls.append(a) or real_coacd(*a))
    assert _vertices(collision_parts(ring, settings, tmp_path)) == _vertices(first)
    assert calls == []  # read back, not made anew
    # a cache file with a changed body is made anew, not used
    text = cached.read_text()
    cached.write_text(text.replace("v ", "v 1", 1))
    assert _vertices(collision_parts(ring, settings, tmp_path)) == _vertices(first)
    assert len(calls) == 1
    # another mesh's parts under this mesh's file name are not used either
    header, rest = cached.read_text().split("\n", 1)
    cached.write_text(header.replace(ring.sha256, "0" * 64) + "\n" + rest)
    collision_parts(ring, settings, tmp_path)
    assert len(calls) == 2


# --- the cap: CPU time, counted by the kernel, not wall time -----------------------------
#: A stand-in for CoACD that sleeps (no CPU) and then gives one part, a unit cube.
SLEEPING_WORK = """
import sys, time, numpy
time.sleep(float(sys.argv[3]) * 100)
numpy.savez(sys.argv[2], numpy.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)]))
"""
#: A stand-in for CoACD that computes and never ends.
ENDLESS_WORK = """
while True:
    pass
"""


@pytest.mark.slow
def test_a_slow_decomposition_on_a_busy_machine_is_not_refused(monkeypatch):
    """Waiting is not work: 1.5 s of wall time under a 1 s CPU cap (as on a machine whose
    other jobs take the cores) gives its parts."""
    monkeypatch.setattr(decompose, "_COACD_SCRIPT", SLEEPING_WORK)
    monkeypatch.setattr(decompose, "DECOMPOSE_CPU_CAP_S", 1.0)
    box = trimesh.creation.box(extents=(1, 1, 1))
    parts = decompose._coacd(box, DecompositionSettings(threshold=0.015), "sleepy.stl")
    assert len(parts) == 1 and parts[0].volume == pytest.approx(1.0)


def test_a_decomposition_over_its_cpu_cap_is_refused_saying_what_it_used(monkeypatch):
    monkeypatch.setattr(decompose, "_COACD_SCRIPT", ENDLESS_WORK)
    monkeypatch.setattr(decompose, "DECOMPOSE_CPU_CAP_S", 1.0)
    box = trimesh.creation.box(extents=(1, 1, 1))
    with pytest.raises(InputError) as refused:
        decompose._coacd(box, DecompositionSettings(), "busy.stl")
    assert re.fullmatch(
        r"busy.stl: its convex decomposition used [12] s of CPU, its cap is 1 s: raise "
        r"'mesh_threshold' \(fewer, coarser parts\) or simplify the mesh \(fewer faces\)",
        str(refused.value),
    ), refused.value


def test_a_decomposition_that_hangs_is_given_up_after_the_backstop(monkeypatch):
    monkeypatch.setattr(decompose, "_COACD_SCRIPT", SLEEPING_WORK)
    monkeypatch.setattr(decompose, "DECOMPOSE_HUNG_AFTER_S", 0.5)
    box = trimesh.creation.box(extents=(1, 1, 1))
    with pytest.raises(InputError, match=r"still running after 0\.5 s of wall time"):
        decompose._coacd(box, DecompositionSettings(threshold=0.03), "hung.stl")


# --- mass properties against closed forms ------------------------------------------------
def test_a_sphere_has_the_inertia_of_a_ball():
    radius = 5.0
    sphere = trimesh.creation.icosphere(subdivisions=5, radius=radius)
    props = mesh_mass_properties(sphere)
    volume = 4 / 3 * math.pi * radius**3
    assert props.volume_mm3 == pytest.approx(volume, rel=2e-3)
    assert props.principal_moments_mm5 == pytest.approx([2 / 5 * volume * radius**2] * 3, rel=5e-3)
    assert props.com_mm == pytest.approx([0, 0, 0], abs=1e-9)


def test_a_box_has_the_inertia_of_a_block():
    a, b, c = 7.0, 11.0, 6.0
    box = trimesh.creation.box(extents=(a, b, c))
    box.apply_translation([1, 2, 3])
    props = mesh_mass_properties(box)
    volume = a * b * c
    expected = sorted(
        [
            volume * (b * b + c * c) / 12,
            volume * (a * a + c * c) / 12,
            volume * (a * a + b * b) / 12,
        ]
    )
    assert props.volume_mm3 == pytest.approx(volume)
    assert props.principal_moments_mm5 == pytest.approx(expected)
    assert props.com_mm == pytest.approx([1, 2, 3])


def test_a_cylinder_has_the_inertia_of_a_round_bale():
    radius, length = 4.0, 10.0
    cylinder = trimesh.creation.cylinder(radius=radius, height=length, sections=128)
    props = mesh_mass_properties(cylinder)
    volume = math.pi * radius**2 * length
    across = volume * (3 * radius**2 + length**2) / 12
    along = volume * radius**2 / 2
    assert props.volume_mm3 == pytest.approx(volume, rel=2e-3)
    assert props.principal_moments_mm5 == pytest.approx(sorted([along, across, across]), rel=3e-3)
    # the axis of the smallest moment is the cylinder's (z)
    assert abs(props.principal_axes[:, 0] @ [0, 0, 1]) == pytest.approx(1)
