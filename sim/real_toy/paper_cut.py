"""Frames whose bale is cut by a marker's paper, found from where the markers are.

The straw bale is lighter than the green board but darker than the white paper
of a printed marker (sim/real_toy/markers.py), so where the bale's image lies over
a marker's paper only its part over the board is found: the blob shrinks and its
centroid slides off the bale's centre, away from the paper. A bale in the air
passes in front of a marker from a low place, and one landing by a marker is seen
against it. Seen from near and low (0.6 m, 25 deg, 30 deg to the side) the blob
shrank only to 70-85 % of its neighbours', too little for the cut-blob rule
(sim/real_toy/whole_bale.py, ``steady_frames``), and the centroid's slide bent the path
3.6 frames before the touch: two 8 deg shots were put 24-26 mm off. The camera's
pose, solved from the markers, says where their papers are in the picture, so a
smaller shrink is enough to leave a frame out there.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from sim.real_toy.detect import CameraPose
from sim.real_toy.markers import MarkerLayout
from sim.real_toy.whole_bale import whole_areas

#: A frame is by a marker's paper when the bale's centroid lies within this many of
#: its radii (a disc of the whole blob's area) of the paper's image, and cut when
#: its blob is then under PAPER_SHARE of the whole bale's. Half a radius: a 64 deg
#: shot landing beside a marker, 0.5-0.9 radii from its paper, lay on its arc
#: within 1.3 px there (left out at one radius, its touch was hidden and skipped).
PAPER_RADII = 0.5
#: Away from the paper a blob varies by a tenth or so from frame to frame; by it,
#: anything smaller is the paper's cut (the frames that bent the path: 0.65-0.85).
PAPER_SHARE = 0.9


def clear_of_paper(
    pose: CameraPose, layout: MarkerLayout, pixels: np.ndarray, areas: np.ndarray
) -> np.ndarray:
    """Which frames of a shot (their blobs' centroids, pixels (n, 2), and areas)
    are not cut by a marker's paper (bool): a frame is cut when its centroid lies
    within :data:`PAPER_RADII` of the bale's radius of a paper's image and its blob
    is under :data:`PAPER_SHARE` of the whole bale's (the upper quartile of the
    frames about it)."""
    pixels, areas = np.asarray(pixels, float), np.asarray(areas, float)
    whole = whole_areas(areas)
    reach = PAPER_RADII * np.sqrt(whole / math.pi)
    by_paper = np.zeros(len(pixels), bool)
    for paper in paper_images(pose, layout):
        by_paper |= distance_to_polygon(pixels, paper) <= reach
    return ~(by_paper & (areas < PAPER_SHARE * whole))


def paper_images(pose: CameraPose, layout: MarkerLayout) -> list[np.ndarray]:
    """Each marker's printed square, its white quiet zone included, in the
    picture: (4, 2) pixels. A marker with a corner behind the camera is left out
    (projected, it would fall anywhere)."""
    papers = []
    for marker in layout.markers:
        x, y = marker.centre_mm
        h = marker.paper_mm / 2
        corners = np.array(
            [[x - h, y - h, 0.0], [x + h, y - h, 0.0], [x + h, y + h, 0.0], [x - h, y + h, 0.0]]
        )
        depth = corners @ pose.rotation[2] + float(pose.tvec.reshape(3)[2])
        if (depth > 0).all():
            papers.append(pose.project(corners))
    return papers


def distance_to_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Each point's distance (pixels) from a polygon's area: 0 inside it."""
    contour = np.asarray(polygon, np.float32).reshape(-1, 1, 2)
    signed = np.array(
        [cv2.pointPolygonTest(contour, (float(x), float(y)), True) for x, y in points]
    )
    return np.maximum(-signed, 0.0)
