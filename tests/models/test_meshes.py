import numpy as np
import pytest
import trimesh

from models.meshes import (
    ASSETS_DIR,
    build_assets,
    hay_bale,
    load_parts,
    load_piggy_mass,
    piggy_parts,
    union_mass_properties,
)


@pytest.mark.slow
def test_cached_assets_match_the_generator():
    """Fails when models/assets/ is stale: run scripts/build_models.py."""
    for name, text in build_assets().items():
        assert (ASSETS_DIR / name).read_text() == text, f"{name} is stale"


def test_piggy_looks_like_a_pig():
    parts = piggy_parts()
    for name in ("body", "head", "snout", "ear-left", "ear-right", "tail"):
        assert name in parts
    assert sum(name.startswith("leg-") for name in parts) == 4
    height = max(p.bounds[1][2] for p in parts.values())
    assert 25.0 <= height <= 36.0
    # standing on the ground, footprint centred on its origin
    assert np.isclose(min(p.bounds[0][2] for p in parts.values()), 0.0)
    lo = min(p.bounds[0][1] for p in parts.values())
    hi = max(p.bounds[1][1] for p in parts.values())
    assert np.isclose(lo, -hi)


def _inside_convex(mesh, point) -> bool:
    hull = mesh.convex_hull
    return bool(
        np.all(np.einsum("ij,ij->i", hull.face_normals, point - hull.triangles[:, 0, :]) <= 0)
    )


def test_collision_geometry_is_a_convex_decomposition_with_a_gap_under_the_belly():
    parts = list(load_parts("piggy").values())
    assert len(parts) >= 8
    for part in parts:  # each part is convex: it equals its own hull
        assert np.isclose(part.convex_hull.volume, part.volume, rtol=1e-3)
    under_belly = np.array([0.0, 0.0, 5.0])
    one_hull = trimesh.convex.convex_hull(np.vstack([p.vertices for p in parts]))
    assert _inside_convex(one_hull, under_belly)
    assert not any(_inside_convex(p, under_belly) for p in parts)
    assert any(_inside_convex(p, np.array([0.0, 0.0, 20.0])) for p in parts)  # the body


def test_union_mass_properties_of_a_box_match_closed_form():
    """Grid integration of a 10 x 20 x 30 box: volume, centre, inertia (tolerance 0.5 %)."""
    box = trimesh.creation.box(extents=[10, 20, 30])
    box.apply_translation([1, 2, 3])
    props = union_mass_properties([box], grid_mm=0.5)
    assert np.isclose(props.volume_mm3, 6000, rtol=5e-3)
    assert np.allclose(props.com_mm, [1, 2, 3], atol=1e-6)
    expected = np.sort(6000 / 12 * np.array([20**2 + 30**2, 10**2 + 30**2, 10**2 + 20**2]))
    assert np.allclose(np.sort(props.principal_moments_mm5), expected, rtol=5e-3)


def test_overlapping_parts_are_counted_once():
    a = trimesh.creation.box(extents=[10, 10, 10])
    props = union_mass_properties([a, a.copy()], grid_mm=0.5)
    assert np.isclose(props.volume_mm3, 1000, rtol=5e-3)


def test_piggy_mass_file_is_consistent():
    mass = load_piggy_mass()
    axes = np.array(mass["principal_axes"])
    assert np.allclose(axes.T @ axes, np.eye(3), atol=1e-6)
    assert np.isclose(np.linalg.det(axes), 1.0, atol=1e-6)
    assert mass["com_mm"][2] > 10  # above the legs


def test_hay_bale_is_a_rounded_block():
    bale = hay_bale(11, 7, 6, 1.5)
    assert np.allclose(bale.extents, [7, 11, 6], atol=1e-6)
    assert bale.volume < 11 * 7 * 6
