"""The printed markers that fix a camera's pose over the board, as data.

Six square ArUco markers (OpenCV's dictionary ``DICT_4X4_50``: 4 x 4 data bits
inside a one-bit black border, so a marker is 6 x 6 modules), ids 0 to 5, are
taped flat on the board's surface beside its grid, where no space is covered and
no calibration shot lands: one at each corner of the board (in the start Mud
Pit's and the food trough's strips, beside the side pits) and one at the middle
of each long side. A marker's *centre* is given in the board frame (mm: origin
at the tractor's pivot on the board surface, +y toward the trough, +x to the
right seen from the start Mud Pit, +z up) and its *side* is the black square's
side in mm. Each is printed with a white quiet zone one module wide around it
(:data:`QUIET_MODULES`), so the paper square is 8/6 of the side.

Every marker is taped the same way round: the top of its printed image (the edge
the sheet labels "trough") toward +y, read from above. Its four corners are then,
in the order OpenCV's detector returns them (top-left, top-right, bottom-right,
bottom-left of the image), at ``(x - s/2, y + s/2)``, ``(x + s/2, y + s/2)``,
``(x + s/2, y - s/2)``, ``(x - s/2, y - s/2)``, z = 0: :meth:`MarkerLayout.corners_mm`,
the object points a pose solver (``cv2.solvePnP``) pairs with the detected image
corners.

The places follow the board file (:func:`marker_layout`): on the stock board
(grid 385 x 605 mm, side pits 60 mm, start and trough strips 70 mm) the markers
are 40 mm, centred at x = +-222.5 mm and y = -337.5, 0 and +337.5 mm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from models.errors import InputError
from models.grid import Board

if TYPE_CHECKING:
    import numpy as np

    from sim.studies.calibrating.contact_stats import Box

#: OpenCV's predefined dictionary the markers come from (``cv2.aruco.<name>``).
DICTIONARY = "DICT_4X4_50"
#: Modules across a marker: its 4 data bits and a one-module black border each side.
MODULES = 6
#: White modules around a printed marker, so the detector finds its black border.
QUIET_MODULES = 1
#: The side of a marker where the board's margins allow it, mm.
SIDE_MM = 40.0
#: The smallest side worth printing, mm: below it a phone 1.5 m away sees a module
#: as a pixel or two.
MIN_SIDE_MM = 20.0


@dataclass(frozen=True)
class Marker:
    """One marker: its ArUco id, its centre on the board (x, y; board frame, mm),
    the side of its black square (mm) and where that is, in words."""

    id: int
    centre_mm: tuple[float, float]
    side_mm: float
    where: str

    def corners_mm(self) -> np.ndarray:
        """Its four corners (4, 3), board frame, mm, in OpenCV's detector order
        (top-left, top-right, bottom-right, bottom-left; the image's top toward +y)."""
        import numpy as np

        x, y = self.centre_mm
        h = self.side_mm / 2
        return np.array(
            [[x - h, y + h, 0], [x + h, y + h, 0], [x + h, y - h, 0], [x - h, y - h, 0]]
        )

    @property
    def paper_mm(self) -> float:
        """The side of its printed square with the white quiet zone, mm."""
        return self.side_mm * (MODULES + 2 * QUIET_MODULES) / MODULES


@dataclass(frozen=True)
class MarkerLayout:
    """Where the markers go on one board: the ArUco dictionary and the markers, and
    the board's top they lie on (x_min, x_max, y_min, y_max, mm; None where not
    known): a bale resting beyond it is off the board."""

    board: str
    markers: tuple[Marker, ...]
    dictionary: str = DICTIONARY
    board_top_mm: tuple[float, float, float, float] | None = None

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.markers]

    def by_id(self, marker_id: int) -> Marker:
        for marker in self.markers:
            if marker.id == marker_id:
                return marker
        raise KeyError(marker_id)

    def corners_mm(self) -> np.ndarray:
        """Every marker's corners (markers, 4, 3), in the order of :attr:`markers`."""
        import numpy as np

        return np.array([m.corners_mm() for m in self.markers])


def landing_blind_spots(layout: MarkerLayout, reach_mm: float) -> tuple[Box, ...]:
    """Where ``piggy measure`` gives no bounce's landing: a bale's centre within
    ``reach_mm`` (its half length) of a marker's printed square. Over the white
    paper the bale is darker than the still picture, found in part, and its
    centroid jumps, so a landing there is not trusted (sim/real_toy/rest.py); the
    contact fit leaves the sandbox's landings there out alike
    (sim/studies/calibrating/contact_stats.py)."""
    boxes = []
    for marker in layout.markers:
        half = marker.paper_mm / 2 + reach_mm
        x, y = marker.centre_mm
        boxes.append((x - half, x + half, y - half, y + half))
    return tuple(boxes)


def marker_layout(board: Board) -> MarkerLayout:
    """The markers' places on ``board``: centred in its margins (the side pits'
    strips beside the grid, the start Mud Pit's and the trough's strips before and
    beyond it), at the four outer corners and halfway along each side.

    The side is :data:`SIDE_MM`, smaller when a margin is too narrow for the paper
    square (quiet zone included) to lie within it; a board whose margins cannot
    hold a :data:`MIN_SIDE_MM` marker is refused on one line.
    """
    margin = min(board.side_pit_mm, board.start_pit_mm, board.trough_mm)
    side = min(SIDE_MM, margin * MODULES / (MODULES + 2 * QUIET_MODULES))
    if side < MIN_SIDE_MM:
        raise InputError(
            f"board '{board.name}' has a margin of {margin:g} mm beside its grid: the "
            f"markers need {MIN_SIDE_MM * (MODULES + 2 * QUIET_MODULES) / MODULES:g} mm "
            "(side_pit_mm, start_pit_mm and trough_mm) to lie off the spaces"
        )
    x_min, x_max, y_min, y_max = board.grid_extent_mm
    left, right = x_min - board.side_pit_mm / 2, x_max + board.side_pit_mm / 2
    start, trough = y_min - board.start_pit_mm / 2, y_max + board.trough_mm / 2
    middle = (y_min + y_max) / 2
    places = (
        (left, start, "left corner of the start end"),
        (right, start, "right corner of the start end"),
        (right, trough, "right corner of the trough end"),
        (left, trough, "left corner of the trough end"),
        (left, middle, "middle of the left side"),
        (right, middle, "middle of the right side"),
    )
    markers = tuple(
        Marker(i, (round(x, 2), round(y, 2)), round(side, 2), where)
        for i, (x, y, where) in enumerate(places)
    )
    return MarkerLayout(board.name, markers, board_top_mm=board.surface_extent_mm)


def dictionary(layout: MarkerLayout):
    """OpenCV's ArUco dictionary of the layout."""
    from sim.real_toy import opencv

    cv2 = opencv()
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary))


def marker_modules(layout: MarkerLayout, marker_id: int) -> np.ndarray:
    """A marker's image, one pixel a module, its quiet zone included:
    (MODULES + 2 QUIET_MODULES) square, uint8, 0 black and 255 white; row 0 is the
    edge taped toward +y (the trough)."""
    import numpy as np

    from sim.real_toy import opencv

    cv2 = opencv()
    image = cv2.aruco.generateImageMarker(dictionary(layout), marker_id, MODULES, borderBits=1)
    return np.pad(image, QUIET_MODULES, constant_values=255)
