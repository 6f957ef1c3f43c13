"""piggy film: a two-shot video at a low resolution, read back as a measurement
would read it (frames, markers, the bale's shots between still frames), its truth
file, and every bad input refused on one line before any work."""

import json
import re

import numpy as np
import pytest

from models.board import load_board
from sim.real_toy.markers import marker_layout
from sim.studies.calibrating.shots_csv import read_shots
from tests.helpers import ROOT, run

cv2 = pytest.importorskip("cv2")

ANGLES = "pitch_deg,yaw_deg\n-30,28\n64,-28\n"
CAMERA = ["--camera-at", "0,-500,900", "--look-at", "0,0,0", "--fov", "60"]
FPS, GAP_S, SHOT_S = 120, 0.1, 0.5  # the high arc lands after 0.4 s


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """The film's folder, what piggy film printed (its standard output, and its start
    line on standard error), and the video's frames (RGB)."""
    folder = tmp_path_factory.mktemp("film")
    (folder / "angles.csv").write_text(ANGLES)
    capsys = _Capture()
    code, out, err = run(
        capsys,
        "film",
        "--design", "stock",
        "--angles", str(folder / "angles.csv"),
        *CAMERA,
        "--fps", str(FPS),
        "--size", "480x360",
        "--gap", str(GAP_S),
        "--shot-seconds", str(SHOT_S),
        "--seed", "3",
        "--out", str(folder / "shots.mp4"),
        "--truth", str(folder / "truth.csv"),
    )  # fmt: skip
    assert code == 0, err
    return folder, (out, err.splitlines()[0]), read_frames(folder / "shots.mp4")


class _Capture:
    """What ``run`` needs of capsys, for a module-scoped fixture: the command's output
    is printed, so read it back from a redirected stdout."""

    def __init__(self):
        import io
        import sys

        self._out, self._err = io.StringIO(), io.StringIO()
        self._saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self._out, self._err

    def readouterr(self):
        import sys

        sys.stdout, sys.stderr = self._saved
        return self._out.getvalue(), self._err.getvalue()


def read_frames(path):
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    width, height = meta["size"]
    return [np.frombuffer(f, np.uint8).reshape(height, width, 3) for f in reader]


def moving(frames):
    """Per frame, whether it differs from the first (a still) by more than noise."""
    still = frames[0].astype(int)
    # (the encoder redraws a still frame a little differently each time: a few pixels)
    return np.array([(np.abs(f.astype(int) - still).sum(axis=2) > 60).sum() > 15 for f in frames])


@pytest.mark.slow
def test_the_video_has_a_gap_before_between_and_after_two_shots(film):
    _, (out, start), frames = film
    written = int(re.search(r"\((\d+) frames at 120 fps\)", out)[1])
    assert len(frames) == written
    # the start line's most: two shots of 0.5 s at 120 fps (61 frames each), 3 gaps of 12
    assert start.endswith(
        "2 shots of stock fired, then filmed at 120 fps, 480x360: at most 158 frames"
    )
    assert written <= 158
    gap = round(GAP_S * FPS)
    shown = moving(frames)
    edges = np.flatnonzero(np.diff(shown.astype(int))) + 1
    assert len(edges) == 4  # two stretches of frames with the bale in them
    stills = np.diff(np.concatenate([[0], edges, [len(frames)]]))[::2]
    shots = np.diff(np.concatenate([[0], edges, [len(frames)]]))[1::2]
    # still frames before, between and after (noise alone can blur an edge by one)
    assert (stills >= gap - 1).all()
    # a shot is filmed for at most SHOT_S (it may stop sooner: the bale came to rest)
    assert (shots <= round(SHOT_S * FPS) + 2).all()
    assert frames[0].shape == (360, 480, 3)


@pytest.mark.slow
def test_the_markers_are_found_and_give_back_the_camera(film):
    """OpenCV's ArUco detector finds the markers in a frame, and a pose solved from
    their corners (the layout's board-frame corners) puts the camera where it was."""
    _, _, frames = film
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary).detectMarkers(frames[0])
    assert ids is not None and len(ids) >= 4
    layout = marker_layout(load_board("stock"))
    world = np.concatenate([layout.by_id(int(i)).corners_mm() for i in ids.ravel()])
    image = np.concatenate([c[0] for c in corners]).astype(float)
    from sim.real_toy.camera import make_camera

    camera = make_camera((0, -500, 900), (0, 0, 0), 60, 480, 360)
    ok, rotation, translation = cv2.solvePnP(world, image, camera.K, None)
    rotation = cv2.Rodrigues(rotation)[0]
    assert ok
    assert (-rotation.T @ translation).ravel() == pytest.approx([0, -500, 900], abs=20)


@pytest.mark.slow
def test_the_truth_has_a_row_a_shot_and_calibrate_reads_it(film):
    folder, (out, _), _ = film
    truth = read_shots(folder / "truth.csv")
    assert len(truth) == 2 and truth.pitch_deg.tolist() == [-30, 64]
    assert truth.yaw_deg.tolist() == [28, -28]
    assert np.isfinite(truth.x_mm).all() and np.isfinite(truth.speed_mm_s).all()
    assert truth.x_mm[0] < 0 < truth.x_mm[1]  # yaw +28 turns to -x
    made = json.loads((folder / "truth.csv.json").read_text())
    assert made["design"] == "stock" and made["seed"] == 3 and made["version"]
    assert made["steps_per_s"] == "the design's, at least 4000"
    assert "first touches in the picture: 2 of 2" in out


@pytest.mark.slow
def test_the_bale_is_drawn_where_the_truth_says_it_touched(film):
    """Each shot's path in the video (frame by frame, the median pixel of what differs
    from the still frames: the bale and its shadow, not the encoder's stray pixels)
    passes within a few pixels of where its true first touch projects; the two shots
    touch far apart."""
    folder, _, frames = film
    from sim.real_toy.camera import make_camera

    camera = make_camera((0, -500, 900), (0, 0, 0), 60, 480, 360)
    truth = read_shots(folder / "truth.csv")
    still = frames[0].astype(int)
    path = np.full((len(frames), 2), np.nan)  # NaN: a still frame
    for i, frame in enumerate(frames):
        rows, cols = np.nonzero(np.abs(frame.astype(int) - still).sum(axis=2) > 60)
        if len(rows) > 15:
            path[i] = np.median(cols), np.median(rows)
    touches = camera.project(np.column_stack([truth.x_mm, truth.y_mm, np.zeros(2)]))
    for touch in touches:
        assert distance_to_path(touch, path) < 3.0
    assert np.linalg.norm(touches[0] - touches[1]) > 50


def distance_to_path(point, path):
    """The least distance from a point to a path's segments (between consecutive
    frames, none across a still frame), pixels."""
    a, b = path[:-1], path[1:]
    drawn = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    a, b = a[drawn], b[drawn]
    length2 = np.maximum(((b - a) ** 2).sum(axis=1), 1e-12)
    along = np.clip(((point - a) * (b - a)).sum(axis=1) / length2, 0, 1)
    return np.linalg.norm(a + along[:, None] * (b - a) - point, axis=1).min()


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"--fov": "170"}, "--fov 170 is out of range"),
        ({"--fov": "0.5"}, "--fov 0.5 is out of range"),
        ({"--camera-at": "0,0,300", "--look-at": "0,0,300"}, "are the same point"),
        ({"--camera-at": "0,-900,-10"}, "on or under the board"),
        ({"--camera-at": "0,-900"}, "is not a point"),
        ({"--fps": "0"}, "--fps: 0 is out of range"),
        ({"--fps": "100000"}, "--fps: 100000 is out of range"),
        ({"--size": "321x240"}, "321x240 is not allowed"),
        ({"--size": "big"}, "is not a size"),
        ({"--design": "stokc"}, "unknown design 'stokc'"),
        ({"--out": "shots.avi"}, "must end in .mp4"),
        ({"--truth": "truth.txt"}, "must end in .csv"),
        ({"--angles": "missing.csv"}, "missing.csv"),
        ({"--angles": "bad-number.csv"}, "row 3, column 'pitch_deg': 'x' is not a number"),
        ({"--angles": "no-yaw.csv"}, "missing column 'yaw_deg'"),
        ({"--angles": "too-low.csv"}, "outside design 'stock''s pitch range"),
        ({"--layout": "missing.json"}, "missing.json"),
        ({"--layout": "unknown-piggy.json"}, "unknown piggy 'purple-1'"),
        ({"--layout": "unknown-space.json"}, "r20c1"),
        ({"--layout": "other-board.json"}, "the layout is for board 'other', not for the board"),
    ],
)
def test_bad_input_is_one_line_before_any_work(tmp_path, capsys, monkeypatch, change, error):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "angles.csv").write_text(ANGLES)
    (tmp_path / "bad-number.csv").write_text("pitch_deg,yaw_deg\n10,0\nx,0\n")
    (tmp_path / "no-yaw.csv").write_text("pitch_deg\n10\n")
    (tmp_path / "too-low.csv").write_text("pitch_deg,yaw_deg\n-50,0\n")
    (tmp_path / "unknown-piggy.json").write_text('{"stacks": {"r7c2": ["purple-1"]}}')
    (tmp_path / "unknown-space.json").write_text('{"stacks": {"r20c1": ["gold-1"]}}')
    stock = (ROOT / "models" / "boards" / "stock.toml").read_text()
    (tmp_path / "other.toml").write_text(stock.replace('name = "stock"', 'name = "other"'))
    (tmp_path / "other-board.json").write_text(
        '{"board": "other.toml", "stacks": {"r7c2": ["gold-1"]}}'
    )
    options = {"--design": "stock", "--angles": "angles.csv", "--camera-at": "0,-900,700",
               "--out": "shots.mp4", "--size": "320x240", "--fps": "60"} | change  # fmt: skip
    before = set(tmp_path.iterdir())
    code, _, err = run(capsys, "film", *[t for pair in options.items() for t in pair])
    assert code == 2 and error in err and err.count("\n") == 1, err
    assert set(tmp_path.iterdir()) == before  # nothing written


@pytest.mark.slow
def test_the_same_seed_films_the_same_video(tmp_path, capsys):
    """Same seed, same bytes (the shots, the frames' phase and the noise all seeded);
    another seed, another video."""
    (tmp_path / "angles.csv").write_text("pitch_deg,yaw_deg\n-25,28\n")

    def film(seed: int, name: str) -> bytes:
        code, _, err = run(
            capsys, "film", "--design", "stock", "--angles", str(tmp_path / "angles.csv"),
            *CAMERA, "--fps", "60", "--size", "96x64", "--seed", str(seed),
            "--out", str(tmp_path / name),
        )  # fmt: skip
        assert code == 0, err
        return (tmp_path / name).read_bytes()

    first = film(4, "a.mp4")
    assert film(4, "b.mp4") == first
    assert film(5, "c.mp4") != first


def test_the_tractor_is_drawn_turned_to_the_shot():
    """--tractor: grey parts over the pivot, turned with the shot's yaw, nothing
    drawn away from it."""
    from models.design import load_design
    from sim.physics.bodies import tractor_parts
    from sim.real_toy.camera import make_camera
    from sim.real_toy.scene import Lighting, still_scene, with_tractor

    camera = make_camera((0, -500, 900), (0, 0, 0), 60, 320, 240)
    board = load_board("stock")
    lighting = Lighting()
    still = still_scene(camera, board, marker_layout(board), lighting)
    gain = lighting.gain(320, 240)
    parts = tractor_parts(load_design("stock"))
    straight = with_tractor(still, camera, parts, 0.0, gain)
    turned = with_tractor(still, camera, parts, 90.0, gain)
    u, v = np.round(camera.project((0, 0, 10))).astype(int)
    changed = np.abs(straight.astype(int) - still).sum(axis=2) > 30
    assert changed[v - 3 : v + 4, u - 3 : u + 4].all()
    far = camera.project((-222.5, -337.5, 0)).astype(int)  # a marker's centre
    assert not changed[far[1] - 3 : far[1] + 4, far[0] - 3 : far[0] + 4].any()
    assert (straight != turned).any()
