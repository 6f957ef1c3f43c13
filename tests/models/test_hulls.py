"""Simplified hulls: few vertices, the shape kept to the tolerance, small hulls untouched."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from models.hulls import HULL_MAX_VERTICES, HULL_TOLERANCE_MM, simplified_hull


def furthest_outside(hull: trimesh.Trimesh, points: np.ndarray) -> float:
    offsets = np.einsum("ij,ij->i", hull.face_normals, hull.triangles[:, 0])
    return float((points @ hull.face_normals.T - offsets).max())


@pytest.mark.slow  # the greedy hull over 2,562 points (about 2 s); hulls are rarely changed
def test_a_dense_sphere_keeps_its_shape_to_the_tolerance_with_few_vertices():
    sphere = trimesh.creation.icosphere(subdivisions=4, radius=3.0)  # 2,562 vertices
    simple = simplified_hull(sphere.vertices)
    assert len(simple.vertices) <= HULL_MAX_VERTICES
    assert furthest_outside(simple, sphere.vertices) <= HULL_TOLERANCE_MM
    # its vertices are some of the sphere's: it lies inside it, and misses little of it
    assert np.isin(simple.vertices.view("f8,f8,f8"), sphere.vertices.view("f8,f8,f8")).all()
    assert 0.97 < simple.volume / sphere.volume <= 1.0


def test_a_small_hull_is_kept_as_it_is():
    cylinder = trimesh.creation.cylinder(radius=4.0, height=9.0, sections=16).convex_hull
    simple = simplified_hull(cylinder.vertices)  # 32 vertices: under the simplifying's floor
    assert sorted(map(tuple, simple.vertices)) == sorted(map(tuple, cylinder.vertices))


@pytest.mark.slow  # 256 rounds of the greedy hull (about 1 s)
def test_the_vertex_cap_holds_where_the_tolerance_cannot_be_met():
    big = trimesh.creation.icosphere(subdivisions=4, radius=15.0)  # a whole piggy's size
    simple = simplified_hull(big.vertices)
    assert len(simple.vertices) == HULL_MAX_VERTICES
    assert furthest_outside(simple, big.vertices) > HULL_TOLERANCE_MM


def test_the_same_points_give_the_same_hull():
    points = np.random.default_rng(3).normal(size=(5000, 3)) * [10.0, 6.0, 4.0]
    first, second = simplified_hull(points), simplified_hull(points.copy())
    assert np.array_equal(first.vertices, second.vertices)
    assert np.array_equal(first.faces, second.faces)
