"""Shot pictures, videos and the offline 3D replay page."""

import dataclasses
import json
import re

import numpy as np
import pytest
from PIL import Image

from models.layout import layout_from_dict
from sim.cli import main
from sim.physics import shoot
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.studies import demo
from sim.views import framing, labels, render
from sim.views.render import CAMERAS, ShotRenderer
from tests import browser

LAYOUT = {"board": "stock", "stacks": {"r8c3": ["gold-2", "pink-1"], "r9c5": ["blue-1"]}}


@pytest.fixture(scope="module")
def shot_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shot")
    layout = folder / "layout.json"
    layout.write_text(json.dumps(LAYOUT))
    code = main(
        [
            "shoot",
            "--layout",
            str(layout),
            "--at",
            "gold-2",
            "--gif",
            str(folder / "shot.gif"),
            "--mp4",
            str(folder / "shot.mp4"),
            "--html",
            str(folder / "shot.html"),
            "--png",
            str(folder / "shot.png"),
            "--json",
        ]
    )
    assert code == 0
    return folder


@pytest.fixture(scope="module")
def demo_shot(board, design):
    """The demo's shot, recorded."""
    layout = layout_from_dict(demo.DEMO_LAYOUT, board=board, source="demo layout")
    with BulletWorld(board, design, layout) as world:
        aim = shoot.solve_aim(world, demo.DEMO_TARGET)
        return shoot.fire(world, AimedShot(aim.yaw_deg, aim.pitch_deg, 0), record=True)


@pytest.fixture(scope="module")
def renderer(board, design):
    with ShotRenderer(board, design) as r:
        yield r


def on_screen(points_mm, view, projection, size) -> np.ndarray:
    """Pixel positions of points, after checking that they are in front of the camera."""
    v = np.asarray(view).reshape(4, 4).T
    homogeneous = np.column_stack([np.asarray(points_mm) * 0.1, np.ones(len(points_mm))])
    assert ((homogeneous @ v.T)[:, 2] < 0).all(), "a point is behind the camera"
    return render._project(np.asarray(points_mm, float), view, projection, size)


def inside(pixels: np.ndarray, size, margin: float = 0.03) -> bool:
    w, h = size
    h -= render._CAPTION_PX  # the caption strip hides the bottom
    return bool(
        (
            (pixels[:, 0] > margin * w)
            & (pixels[:, 0] < (1 - margin) * w)
            & (pixels[:, 1] > margin * h)
            & (pixels[:, 1] < (1 - margin) * h)
        ).all()
    )


@pytest.mark.parametrize("camera", CAMERAS)
def test_each_camera_ends_on_the_knocked_out_piggies_and_the_landing(demo_shot, renderer, camera):
    assert demo.DEMO_CAMERA in CAMERAS
    result = demo_shot
    last = result.recording.frames - 1
    assert result.knocked  # the demo shot knocks piggies out
    view, projection = renderer.camera(camera, result, last)
    ends = [result.recording.piggies_mm[p][last] for p in result.knocked]
    pixels = on_screen(np.array([*ends, result.rest_mm]), view, projection, renderer.size)
    assert inside(pixels, renderer.size), pixels
    # filmed from near enough: the action spans a good part of the picture (the old
    # overview showed it in 60 x 60 of 640 x 480 pixels)
    action = on_screen(framing.action_points(result), view, projection, renderer.size)
    spread = np.ptp(action, axis=0) / np.array(renderer.size)
    assert spread.max() > 0.4, spread


def test_the_chase_camera_follows_the_bale(demo_shot, renderer):
    result = demo_shot
    rec = result.recording
    w, h = renderer.size
    for k in np.flatnonzero(rec.bale_in_play)[::3]:
        view, projection = renderer.camera("chase", result, int(k))
        x, y = on_screen(rec.bale_mm[k][None, :], view, projection, renderer.size)[0]
        assert abs(x - w / 2) < 0.2 * w and abs(y - h / 2) < 0.2 * h, (k, x, y)


@pytest.mark.parametrize("camera", ["chase", "overview"])
def test_the_barrel_is_not_in_the_middle_of_the_picture(demo_shot, renderer, design, camera):
    result = demo_shot
    launcher = design.launcher
    yaw, pitch = np.radians(result.yaw_deg), np.radians(result.pitch_deg)
    axis = np.array([-np.sin(yaw) * np.cos(pitch), np.cos(yaw) * np.cos(pitch), np.sin(pitch)])
    barrel = (
        np.array([0, 0, launcher.pivot_height_mm])
        + np.linspace(0, launcher.barrel_length_mm, 10)[:, None] * axis
    )
    w, h = renderer.size
    for k in (result.recording.frames // 2, result.recording.frames - 1):
        view, projection = renderer.camera(camera, result, k)
        pixels = on_screen(barrel, view, projection, renderer.size)
        central = (np.abs(pixels[:, 0] - w / 2) < 0.1 * w) & (
            np.abs(pixels[:, 1] - h / 2) < 0.1 * h
        )
        assert not central.any(), (camera, k)


@pytest.mark.slow  # 40 frames drawn: about a second each camera
@pytest.mark.parametrize("camera", ["overview", "chase"])
def test_still_bodies_are_drawn_once_a_camera_and_every_pixel_is_the_same(
    board, design, demo_shot, camera
):
    """The overview camera stands still through a shot: the board, table, fences and
    tractor are drawn twice in all (the first frame whole, then they alone, kept). The
    chase camera moves until the bale rests. Every frame's pixels are those of drawing
    every body at once."""
    with ShotRenderer(board, design, size=(160, 120)) as small:
        whole = []  # for each draw: whether a still body was in it
        image = small._image

        def counted(view, projection):
            colours, depth, body = image(view, projection)
            whole.append(bool(np.isin(body, [small._tractor, small._barrel]).any()))
            return colours, depth, body

        small._image = counted
        indices = small.frame_indices(demo_shot, fps=8, slowmo=3.0)
        kept = [small.frame(demo_shot, i, camera) for i in indices]
        drawn_whole = sum(whole)
        at_once = []
        for i in indices:
            small._last_key = small._still_key = None  # forget the camera: all at once
            at_once.append(small.frame(demo_shot, i, camera))
    assert len(indices) == 20
    if camera == "overview":
        assert drawn_whole == 2
    assert all((a == b).all() for a, b in zip(kept, at_once, strict=True))


def test_a_shot_fired_without_a_recording_cannot_be_framed_and_says_so(demo_shot):
    # the cameras read the recording: without one they refuse in one line instead of
    # failing on an attribute of None
    unrecorded = dataclasses.replace(demo_shot, recording=None)
    for frame in (framing.disturbed, framing.action_points, framing.chase_track):
        with pytest.raises(ValueError, match="without a recording"):
            frame(unrecorded)


def test_labels_never_overlap_even_when_their_points_do():
    points = [(300 + 3 * i, 200 + (i % 2)) for i in range(8)]
    wanted = [(f"piggy-{i} OUT", p, (90, 16)) for i, p in enumerate(points)]
    placed = labels.place(wanted, (0, 0, 640, 480), gap=8, keep_clear=[(290, 190, 330, 210)])
    assert labels.overlaps(placed) == 0
    assert all(
        p.box[0] >= 0 and p.box[2] <= 640 and p.box[1] >= 0 and p.box[3] <= 480 for p in placed
    )
    assert not any(labels._overlap(p.box, (290, 190, 330, 210)) for p in placed)
    far = [p for p in placed if p.needs_leader(8)]
    assert far and all(p.box[0] <= p.leader_end()[0] <= p.box[2] for p in far)


def not_blank(image: np.ndarray) -> bool:
    return image.std() > 10 and len(np.unique(image.reshape(-1, 3), axis=0)) > 50


@pytest.mark.slow
def test_gif_has_real_frames(shot_files):
    gif = Image.open(shot_files / "shot.gif")
    assert gif.size == (640, 480) and gif.n_frames >= 20
    first = np.asarray(gif.convert("RGB"))
    gif.seek(gif.n_frames - 1)
    last = np.asarray(gif.convert("RGB"))
    assert not_blank(first) and not_blank(last)
    changed = (np.abs(first.astype(int) - last.astype(int)).max(axis=2) > 30).sum()
    assert changed > 1000  # piggies and the bale moved between the first and last frame
    # the last frame marks the knocked-out piggies in red
    assert ((last[:, :, 0] > 200) & (last[:, :, 1] < 40) & (last[:, :, 2] < 40)).sum() > 50


@pytest.mark.slow
def test_mp4_decodes(shot_files):
    import imageio.v2 as imageio

    reader = imageio.get_reader(shot_files / "shot.mp4")
    frames = [f for f in reader]
    assert len(frames) >= 20 and frames[0].shape == (480, 640, 3)
    assert not_blank(frames[len(frames) // 2])


@pytest.mark.slow
def test_png_has_top_and_side_views(shot_files):
    image = Image.open(shot_files / "shot.png")
    assert image.size[0] > 1200 and not_blank(np.asarray(image.convert("RGB")))


@pytest.mark.slow
def test_html_page_is_self_contained(shot_files):
    text = (shot_files / "shot.html").read_text()
    assert not re.search(r"https?://", text), "the page must not reach the network"
    assert "<script src" not in text and "<link" not in text
    data = json.loads(
        re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1)
    )
    assert set(data["piggies"]) == {"gold-2", "pink-1", "blue-1"}
    frames = len(data["bale"]["p"])
    assert frames > 20 and all(len(t["p"]) == frames for t in data["piggies"].values())
    assert data["knocked"] and len(data["scene"]["piggy"]["f"]) > 300  # the physics' meshes


def test_html_page_starts_framed_on_the_knocked_out_piggies(board, design, demo_shot):
    from sim.views.viewer import shot_data

    data = shot_data(board, design, demo_shot)
    cam, (w, h) = data["camera"], (900, 610)  # the canvas of the browser test below
    target, d = np.array(cam["target_mm"]), cam["dist_mm"]
    eye = target + d * np.array(
        [
            np.cos(cam["el"]) * np.cos(cam["az"]),
            np.cos(cam["el"]) * np.sin(cam["az"]),
            np.sin(cam["el"]),
        ]
    )
    forward = (target - eye) / d  # the page's pinhole camera (sim/views/web/board3d.js)
    right = np.array([forward[1], -forward[0], 0.0]) / np.hypot(forward[0], forward[1])
    up = np.cross(right, forward)
    focal = cam["focal"] * min(w, h)
    for piggy in demo_shot.knocked:
        offset = np.array(data["piggies"][piggy]["p"][-1]) - eye
        depth = offset @ forward
        x, y = w / 2 + focal * (offset @ right) / depth, h / 2 - focal * (offset @ up) / depth
        assert depth > 0 and 0.05 * w < x < 0.95 * w and 0.05 * h < y < 0.95 * h, piggy


@pytest.mark.slow
def test_html_page_renders_in_a_headless_browser(shot_files, tmp_path):
    shot = tmp_path / "page.png"
    browser.screenshot((shot_files / "shot.html").as_uri() + "#end", shot, tmp_path / "profile")
    image = np.asarray(Image.open(shot).convert("RGB"))
    body = image[60:, :, :]  # below the controls
    assert not_blank(body)
    pink = (body[:, :, 0] > 200) & (body[:, :, 1] < 160) & (body[:, :, 2] > 120)
    assert pink.sum() > 20  # a pink piggy is on screen
    # opened at its end (#end): the knocked-out piggies are ringed in red
    red = (body[:, :, 0] > 190) & (body[:, :, 1] < 40) & (body[:, :, 2] < 40)
    assert red.sum() > 300


@pytest.mark.slow
def test_html_page_draws_with_three_js_the_trail_and_the_names(shot_files, tmp_path):
    text = (shot_files / "shot.html").read_text()
    assert "three.js 0.187.0, MIT licence" in text and "new Board3D(" in text
    assert "ctx.fill()" not in text  # the hand-written canvas renderer is gone
    with browser.Browser(tmp_path / "profile") as page:
        page.open((shot_files / "shot.html").as_uri() + "#end")
        page.wait_for("typeof view === 'object' && view.trail.geometry.drawRange.count > 0")
        assert page.errors == []
        seen = page.run("""({webgl: view.renderer.getContext() instanceof WebGLRenderingContext
                              || view.renderer.getContext() instanceof WebGL2RenderingContext,
                            trail: view.trail.geometry.drawRange.count,
                            inPlay: D.bale.in_play.filter(Boolean).length,
                            spaces: view.tiles.map(t => t.name)})""")
    assert seen["webgl"] and seen["trail"] == seen["inPlay"] > 10
    assert {"r8c3", "r9c5", "r0c0", "pit", "trough"} <= set(seen["spaces"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--camera", "drone"], "unknown camera 'drone'"),
        (["--gif", "/no/such/dir/shot.gif"], "does not exist"),
        (["--gif", "shot.avi"], "must end in .gif"),
        (["--html", "/no/such/dir/shot.html"], "cannot write"),
        (["--slowmo", "0"], "out of range"),
    ],
)
def test_bad_video_requests_exit_2_before_shooting(capsys, argv, message):
    code = main(["shoot", "--yaw", "0", "--pitch", "0", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err


@pytest.mark.slow
def test_a_game_record_replays_as_pictures(tmp_path, capsys):
    import referee
    from referee.bots import make_bot
    from referee.match import play
    from referee.records import write_record

    game = referee.load_game("go_piggy_go", players=2)
    final = play(game, [make_bot("greedy", game, 1), make_bot("random", game, 2)], seed=3)
    record = write_record(final, tmp_path / "game.jsonl")
    code = main(
        [
            "replay",
            str(record),
            "--gif",
            str(tmp_path / "game.gif"),
            "--html",
            str(tmp_path / "game.html"),
        ]
    )
    assert code == 0
    gif = Image.open(tmp_path / "game.gif")
    assert gif.n_frames == final.turn + 1  # one picture per turn, the last after the win
    gif.seek(gif.n_frames - 1)
    assert not_blank(np.asarray(gif.convert("RGB")))
    page = (tmp_path / "game.html").read_text()
    assert page.count("data:image/png;base64,") == gif.n_frames and "http" not in page
    code = main(["replay", str(record), "--gif", str(tmp_path / "game.mp4")])
    assert code == 2 and "must end in .gif" in capsys.readouterr().err


def test_pictures_of_other_games_records_are_refused(tmp_path, capsys):
    record = tmp_path / "pig.jsonl"
    record.write_text('{"game": "pig_out", "params": {}}\n')
    assert main(["replay", str(record), "--gif", str(tmp_path / "pig.gif")]) == 2
    assert "drawn for go_piggy_go" in capsys.readouterr().err
