"""A designer's own meshes: the design fields, the checks with their one-line
answers, the part frames and the design's identity."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from models.design import design_from_dict, design_identity, design_toml, load_design
from models.errors import InputError
from models.mesh_files import MAX_FACES, check_piggy_fits, read_mesh_file


def _write(mesh: trimesh.Trimesh, path) -> str:
    mesh.export(path)
    return str(path)


def _design_file(tmp_path, body: str):
    path = tmp_path / "own.toml"
    path.write_text(f'name = "own"\n{body}\n')
    return path


def _one_line_error(path, units="mm", part="bale") -> str:
    with pytest.raises(InputError) as error:
        read_mesh_file(path, units, part)
    message = str(error.value)
    assert "\n" not in message
    return message


# --- the design file's fields --------------------------------------------------------
def test_a_relative_mesh_path_is_relative_to_the_design_file(tmp_path, monkeypatch):
    (tmp_path / "parts").mkdir()
    _write(trimesh.creation.box(extents=(7, 11, 6)), tmp_path / "parts" / "bale.stl")
    design_path = _design_file(tmp_path, '[bale]\nmesh = "parts/bale.stl"')
    monkeypatch.chdir("/")
    design = load_design(str(design_path))
    assert design.bale.mesh == str(tmp_path / "parts" / "bale.stl")
    # the normalised design names the file, so a derived design finds it too
    assert f'mesh = "{tmp_path / "parts" / "bale.stl"}"' in design_toml(design)


def test_a_design_without_meshes_shows_no_mesh_fields():
    data = load_design("stock").to_dict()
    assert "tractor" not in data
    assert not any(key.startswith("mesh") for key in data["bale"]) and "mesh" not in data["piggy"]
    assert "meshes" not in design_identity("stock")


@pytest.mark.parametrize(
    ("bale", "message"),
    [
        ({"mesh": 3}, "'bale.mesh' must be a file name"),
        ({"mesh": "b.stl", "mesh_units": "ft"}, "'bale.mesh_units' must be one of mm, cm, m, in"),
        ({"mesh_units": "cm"}, "'bale.mesh_units' needs 'bale.mesh'"),
        ({"mesh": "b.stl", "mesh_max_parts": 0}, "'bale.mesh_max_parts' = 0 is out of range"),
    ],
)
def test_bad_mesh_fields_are_refused_with_the_field(bale, message):
    with pytest.raises(InputError, match=message):
        design_from_dict({"bale": bale})


def test_the_identity_has_each_mesh_sha256_and_settings(tmp_path):
    _write(trimesh.creation.box(extents=(7, 11, 6)), tmp_path / "bale.stl")
    path = _design_file(tmp_path, '[bale]\nmesh = "bale.stl"\nmesh_max_parts = 5')
    before = design_identity(str(path))
    first = before["meshes"]["bale"]
    assert first["max_parts"] == 5 and first["units"] == "mm"
    _write(trimesh.creation.box(extents=(7, 12, 6)), tmp_path / "bale.stl")
    second = design_identity(str(path))["meshes"]["bale"]
    # same file name, other content: another identity, and another normalised design
    # (what cached hit maps are keyed by)
    assert second["sha256"] != first["sha256"]
    assert second["file"] == first["file"]
    assert design_identity(str(path))["design_sha256"] != before["design_sha256"]


# --- the checks ---------------------------------------------------------------------
def test_a_missing_file_is_named(tmp_path):
    assert "no such file" in _one_line_error(tmp_path / "nothing.stl")
    with pytest.raises(InputError, match="no such file"):
        design_from_dict({"bale": {"mesh": str(tmp_path / "nothing.stl")}})


def test_an_unreadable_file_and_a_file_that_is_no_mesh_are_refused(tmp_path):
    (tmp_path / "junk.stl").write_bytes(b"\x00\x01 this is not an STL" * 3)
    message = _one_line_error(tmp_path / "junk.stl")
    assert "cannot read it as a mesh" in message or "not a mesh (no triangles" in message
    (tmp_path / "notes.txt").write_text("hello")
    assert "not a mesh file" in _one_line_error(tmp_path / "notes.txt")


def test_a_small_hole_is_filled_with_a_note(tmp_path):
    box = trimesh.creation.box(extents=(7, 11, 6))
    box.update_faces(np.arange(len(box.faces)) != 0)  # one triangle gone
    box.remove_unreferenced_vertices()
    assert not box.is_watertight
    mesh_file = read_mesh_file(_write(box, tmp_path / "holed.stl"), "mm", "bale")
    assert mesh_file.mesh.is_watertight
    assert mesh_file.mesh.volume == pytest.approx(7 * 11 * 6)
    assert any("filled its holes" in note for note in mesh_file.notes)


def test_an_open_mesh_that_cannot_be_closed_is_refused(tmp_path):
    # a tube without its caps: two round holes, too big for trimesh to fill
    tube = trimesh.creation.cylinder(radius=4, height=10, sections=24)
    side = np.abs(tube.face_normals[:, 2]) < 0.5
    tube.update_faces(side)
    tube.remove_unreferenced_vertices()
    assert "has holes that cannot be filled" in _one_line_error(_write(tube, tmp_path / "t.stl"))


def test_a_flat_mesh_is_refused(tmp_path):
    flat = trimesh.Trimesh(
        vertices=[[0, 0, 0], [10, 0, 0], [0, 10, 0]], faces=[[0, 1, 2], [0, 2, 1]], process=False
    )
    message = _one_line_error(_write(flat, tmp_path / "flat.ply"))
    assert "no volume" in message or "holes" in message


@pytest.mark.parametrize(
    ("units", "found"), [("m", "11000 mm"), ("mm", None)], ids=["metres", "millimetres"]
)
def test_a_bale_exported_in_other_units_says_the_size_and_mesh_units(tmp_path, units, found):
    path = _write(trimesh.creation.box(extents=(7, 11, 6)), tmp_path / "bale.stl")
    if found is None:
        assert read_mesh_file(path, units, "bale").size_mm == pytest.approx((7, 11, 6))
        return
    message = _one_line_error(path, units)
    assert found in message and "mesh_units" in message


def test_a_tiny_bale_is_refused_with_its_size(tmp_path):
    path = _write(trimesh.creation.box(extents=(0.7, 1.1, 0.6)), tmp_path / "b.stl")
    message = _one_line_error(path)
    assert "1.1 mm" in message and "'mesh_units'" in message
    assert read_mesh_file(path, "cm", "bale").size_mm == pytest.approx((7, 11, 6))


def test_a_piggy_too_wide_for_its_space_is_refused(tmp_path):
    wide = trimesh.creation.box(extents=(60, 30, 20))
    mesh_file = read_mesh_file(_write(wide, tmp_path / "p.stl"), "mm", "piggy")
    with pytest.raises(InputError, match=r"footprint is 60 x 30 mm, it does not fit.*55 mm"):
        check_piggy_fits(mesh_file, 55.0)
    check_piggy_fits(mesh_file, 65.0)


@pytest.mark.slow
def test_a_mesh_over_the_face_limit_is_refused_with_the_limit(tmp_path):
    sphere = trimesh.creation.icosphere(subdivisions=7, radius=5)  # 327 680 faces
    assert len(sphere.faces) > MAX_FACES
    message = _one_line_error(_write(sphere, tmp_path / "fine.stl"))
    assert f"over the limit of {MAX_FACES}" in message


# --- the frames ---------------------------------------------------------------------
def test_a_piggy_stands_on_its_lowest_point_centred_on_its_footprint(tmp_path):
    box = trimesh.creation.box(extents=(20, 30, 25))
    box.apply_translation([5, -7, 40])
    mesh = read_mesh_file(_write(box, tmp_path / "p.obj"), "mm", "piggy").mesh
    assert mesh.bounds[0][2] == pytest.approx(0)
    assert mesh.bounds.sum(axis=0)[:2] == pytest.approx([0, 0])


def test_a_bale_has_its_centre_of_mass_at_the_origin(tmp_path):
    # a cone's centre of mass is a quarter up from its base, not at its box's centre
    cone = trimesh.creation.cone(radius=3, height=8, sections=32)
    cone.apply_translation([1, 2, 3])
    mesh = read_mesh_file(_write(cone, tmp_path / "c.glb"), "mm", "bale").mesh
    assert mesh.center_mass == pytest.approx([0, 0, 0], abs=1e-9)
    assert mesh.bounds[0][2] == pytest.approx(-2.0, abs=1e-6)
