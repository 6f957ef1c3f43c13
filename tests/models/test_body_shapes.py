"""What the views draw of a design's bodies: the stock meshes for a design without
its own, the own mesh (its collision parts, its surface) for one with it."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from models.body_shapes import drawn_parts, own_mesh, surface_obj_text, surface_parts
from models.design import load_design
from models.meshes import hay_bale, load_parts, parse_obj

#: The own piggy of these tests: an upright cylinder, 26 mm across and 22 mm tall.
PIGGY_RADIUS_MM, PIGGY_HEIGHT_MM = 13.0, 22.0


@pytest.fixture(scope="module")
def cylinder_piggy(tmp_path_factory):
    """A design whose piggy is a convex cylinder (one part, no decomposition run)."""
    folder = tmp_path_factory.mktemp("cylinder")
    trimesh.creation.cylinder(radius=PIGGY_RADIUS_MM, height=PIGGY_HEIGHT_MM, sections=32).export(
        folder / "piggy.stl"
    )
    (folder / "own.toml").write_text('name = "cylinder"\n[piggy]\nmesh = "piggy.stl"\n')
    return load_design(folder / "own.toml")


def _extents(parts) -> np.ndarray:
    vertices = np.vstack([np.asarray(getattr(p, "vertices", p)) for p in parts])
    return vertices.max(axis=0) - vertices.min(axis=0)


def test_a_design_without_meshes_draws_the_stock_bodies(design):
    for part in ("piggy", "tractor"):
        stock = [m.vertices for m in load_parts(part).values()]
        drawn = drawn_parts(design, part)
        assert len(drawn) == len(stock)
        assert all(np.array_equal(a, b) for a, b in zip(drawn, stock, strict=True))
        assert [m.vertices.tolist() for m in surface_parts(design, part)] == [
            v.tolist() for v in stock
        ]
    principal = surface_parts(design, "piggy", principal=True)
    assert [m.vertices.tolist() for m in principal] == [
        m.vertices.tolist() for m in load_parts("piggy_principal").values()
    ]
    bale = design.bale
    block = hay_bale(bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)
    assert np.array_equal(drawn_parts(design, "bale")[0], block.vertices)
    assert own_mesh(design, "bale") is None


def test_an_own_bale_is_drawn_as_its_mesh():
    design = load_design("round-bale")
    mesh = own_mesh(design, "bale")
    assert mesh is not None
    (surface,) = surface_parts(design, "bale")
    assert surface is mesh.mesh  # the checked mesh itself, in the bale's frame
    (part,) = drawn_parts(design, "bale")  # a cylinder is convex: one part, its hull
    assert _extents([part]) == pytest.approx(mesh.size_mm, abs=1e-6)
    # round-bale.toml: 8 mm across, 9 mm long, its axis across the barrel (x)
    assert sorted(mesh.size_mm) == pytest.approx([8.0, 8.0, 9.0], abs=0.01)
    assert mesh.size_mm[0] == pytest.approx(9.0, abs=0.01)


def test_an_own_piggy_is_drawn_with_its_footprint_and_height(cylinder_piggy):
    (part,) = drawn_parts(cylinder_piggy, "piggy")
    width, length, height = _extents([part])
    across = 2 * PIGGY_RADIUS_MM
    assert (width, length, height) == pytest.approx((across, across, PIGGY_HEIGHT_MM), abs=0.01)
    assert part[:, 2].min() == pytest.approx(0.0, abs=1e-9)  # standing on the ground
    _, stock_length, _ = _extents(drawn_parts(load_design("stock"), "piggy"))
    assert stock_length > across + 10  # a picture shows the difference


def test_an_own_piggy_in_its_principal_frame_is_centred_on_its_mass(cylinder_piggy):
    (surface,) = surface_parts(cylinder_piggy, "piggy", principal=True)
    mesh = own_mesh(cylinder_piggy, "piggy")
    assert mesh is not None
    assert len(surface.vertices) == len(mesh.mesh.vertices)
    assert surface.center_mass == pytest.approx([0, 0, 0], abs=1e-6)
    assert sorted(_extents([surface])) == pytest.approx([22.0, 26.0, 26.0], abs=0.2)
    assert surface.volume == pytest.approx(mesh.mesh.volume)  # turned, not mirrored


def test_the_obj_text_holds_the_surface(cylinder_piggy):
    (surface,) = surface_parts(cylinder_piggy, "piggy", principal=True)
    (read_back,) = parse_obj(surface_obj_text(cylinder_piggy, "piggy", principal=True)).values()
    assert np.allclose(read_back.vertices, surface.vertices, atol=1e-4)
    assert np.array_equal(read_back.faces, surface.faces)


def test_a_wrong_part_or_frame_is_refused(design):
    with pytest.raises(ValueError, match="no body named 'barrel'"):
        drawn_parts(design, "barrel")
    with pytest.raises(ValueError, match="only the piggy"):
        surface_parts(design, "bale", principal=True)
