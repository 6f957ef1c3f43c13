"""The markers: where they go on the board (off every space, on its surface), and
the printable sheet (true scale, every id found by OpenCV's detector)."""

import re

import numpy as np
import pytest

from models.board import board_from_dict, load_board
from models.errors import InputError
from sim.real_toy.markers import MODULES, QUIET_MODULES, marker_layout
from tests.helpers import run

cv2 = pytest.importorskip("cv2")


def detect(image):
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(image)
    return {} if ids is None else {int(i): c[0] for i, c in zip(ids.ravel(), corners, strict=True)}


def test_the_markers_lie_on_the_board_off_every_space():
    board = load_board("stock")
    layout = marker_layout(board)
    assert sorted(layout.ids) == list(range(6))
    x_min, x_max, y_min, y_max = board.surface_extent_mm
    gx0, gx1, gy0, gy1 = board.grid_extent_mm
    for marker in layout.markers:
        half = marker.paper_mm / 2  # the printed square, quiet zone included
        x, y = marker.centre_mm
        assert x_min <= x - half and x + half <= x_max and y_min <= y - half and y + half <= y_max
        off_grid = x + half <= gx0 or x - half >= gx1 or y + half <= gy0 or y - half >= gy1
        assert off_grid, marker
    # far apart: the pose rests on markers spread over the whole board
    centres = np.array([m.centre_mm for m in layout.markers])
    assert np.ptp(centres[:, 0]) > 400 and np.ptp(centres[:, 1]) > 600


def test_the_corners_go_clockwise_from_the_top_left_with_the_top_toward_the_trough():
    marker = marker_layout(load_board("stock")).by_id(2)
    corners = marker.corners_mm()
    x, y = marker.centre_mm
    h = marker.side_mm / 2
    assert corners.tolist() == [
        [x - h, y + h, 0],
        [x + h, y + h, 0],
        [x + h, y - h, 0],
        [x - h, y - h, 0],
    ]


def test_a_board_without_room_for_the_markers_is_refused():
    data = {
        "name": "tight", "space_mm": 55, "rows": 11, "cols": 7, "holes": [],
        "tractor": [192.5, 302.5], "fences": [], "checkpoints": [3, 7],
        "pit_left_rows": [7, 8], "pit_right_rows": [3, 4], "side_pit_mm": 10,
    }  # fmt: skip
    with pytest.raises(InputError, match="margin of 10 mm"):
        marker_layout(board_from_dict(data))


def test_the_png_sheet_is_at_true_scale_and_every_marker_is_found(tmp_path, capsys):
    sheet = tmp_path / "sheet.png"
    code, out, _ = run(capsys, "markers", "--out", str(sheet), "--dpi", "200")
    assert code == 0 and "id 3: x  -222.5 mm, y   337.5 mm" in out
    image = cv2.imread(str(sheet))
    # the page at 200 dpi, to the pixel (matplotlib drops the last fraction of one)
    assert image.shape[:2] == (int(297 / 25.4 * 200), int(210 / 25.4 * 200))
    from PIL import Image

    assert Image.open(sheet).info["dpi"] == pytest.approx((200, 200), abs=0.1)
    found = detect(image)
    assert sorted(found) == list(range(6))
    true_px = 40 / 25.4 * 200
    for corners in found.values():
        sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
        assert sides == pytest.approx(true_px, abs=2.0)


def test_the_pdf_sheet_is_an_a4_page(tmp_path, capsys):
    sheet = tmp_path / "sheet.pdf"
    code, _, _ = run(capsys, "markers", "--out", str(sheet))
    assert code == 0
    box = re.search(rb"/MediaBox \[ *0 0 ([\d.]+) ([\d.]+) *\]", sheet.read_bytes())
    assert box and float(box[1]) == pytest.approx(210 / 25.4 * 72, abs=0.05)
    assert float(box[2]) == pytest.approx(297 / 25.4 * 72, abs=0.05)


def test_the_quiet_zone_is_white_around_the_black_border():
    from sim.real_toy.markers import marker_modules

    modules = marker_modules(marker_layout(load_board("stock")), 0)
    n = MODULES + 2 * QUIET_MODULES
    assert modules.shape == (n, n)
    ring = np.concatenate([modules[0], modules[-1], modules[:, 0], modules[:, -1]])
    border = np.concatenate(
        [modules[1, 1:-1], modules[-2, 1:-1], modules[1:-1, 1], modules[1:-1, -2]]
    )
    assert (ring == 255).all() and (border == 0).all()


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["markers", "--out", "sheet.svg"], "must end in .pdf or .png"),
        (["markers", "--out", "sheet.png", "--dpi", "10"], "--dpi: 10 is out of range"),
        (["markers", "--out", "sheet.png", "--board", "nope"], "unknown board 'nope'"),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, argv, error):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and error in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_without_opencv_the_commands_name_the_extra(tmp_path, capsys, monkeypatch):
    """OpenCV is an optional extra: without it, one line saying what installs it."""
    monkeypatch.setitem(__import__("sys").modules, "cv2", None)  # import cv2 fails
    (tmp_path / "angles.csv").write_text("pitch_deg,yaw_deg\n10,0\n")
    for argv in (
        ["markers", "--out", str(tmp_path / "sheet.png")],
        ["film", "--design", "stock", "--angles", str(tmp_path / "angles.csv"),
         "--camera-at", "0,-900,700", "--out", str(tmp_path / "shots.mp4")],
    ):  # fmt: skip
        code, _, err = run(capsys, *argv)
        assert code == 2 and "pip install -e '.[video]'" in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["angles.csv"]
