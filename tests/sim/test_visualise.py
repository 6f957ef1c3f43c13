"""Shot pictures, videos and the offline 3D replay page."""

import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from sim.cli import main

LAYOUT = {"board": "stock", "stacks": {"r8c3": ["gold-2", "pink-1"], "r9c5": ["blue-1"]}}


@pytest.fixture(scope="module")
def shot_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shot")
    layout = folder / "layout.json"
    layout.write_text(json.dumps(LAYOUT))
    code = main(["shoot", "--layout", str(layout), "--at", "gold-2", "--gif",
                 str(folder / "shot.gif"), "--mp4", str(folder / "shot.mp4"), "--html",
                 str(folder / "shot.html"), "--png", str(folder / "shot.png"), "--json"])
    assert code == 0
    return folder


def not_blank(image: np.ndarray) -> bool:
    return image.std() > 10 and len(np.unique(image.reshape(-1, 3), axis=0)) > 50


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


def test_mp4_decodes(shot_files):
    import imageio.v2 as imageio

    reader = imageio.get_reader(shot_files / "shot.mp4")
    frames = [f for f in reader]
    assert len(frames) >= 20 and frames[0].shape == (480, 640, 3)
    assert not_blank(frames[len(frames) // 2])


def test_png_has_top_and_side_views(shot_files):
    image = Image.open(shot_files / "shot.png")
    assert image.size[0] > 1200 and not_blank(np.asarray(image.convert("RGB")))


def test_html_page_is_self_contained(shot_files):
    text = (shot_files / "shot.html").read_text()
    assert not re.search(r"https?://", text), "the page must not reach the network"
    assert "<script src" not in text and "<link" not in text
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                                text, re.S).group(1))
    assert set(data["piggies"]) == {"gold-2", "pink-1", "blue-1"}
    frames = len(data["bale"]["p"])
    assert frames > 20 and all(len(t["p"]) == frames for t in data["piggies"].values())
    assert data["knocked"] and len(data["scene"]["piggy"]["f"]) > 300  # the physics' meshes


def test_html_page_renders_in_a_headless_browser(shot_files, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed here (.ci/run installs it)")
    shot = tmp_path / "page.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
                    "--window-size=900,650", "--virtual-time-budget=3000",
                    f"--screenshot={shot}", (shot_files / "shot.html").as_uri()],
                   capture_output=True, timeout=120, check=False)
    image = np.asarray(Image.open(shot).convert("RGB"))
    body = image[60:, :, :]  # below the controls
    assert not_blank(body)
    pink = (body[:, :, 0] > 200) & (body[:, :, 1] < 160) & (body[:, :, 2] > 120)
    assert pink.sum() > 20  # a pink piggy is on screen


@pytest.mark.parametrize(("argv", "message"), [
    (["--camera", "drone"], "unknown camera 'drone'"),
    (["--gif", "/no/such/dir/shot.gif"], "does not exist"),
    (["--gif", "shot.avi"], "must end in .gif"),
    (["--html", "/no/such/dir/shot.html"], "cannot write"),
    (["--slowmo", "0"], "out of range"),
])
def test_bad_video_requests_exit_2_before_shooting(capsys, argv, message):
    code = main(["shoot", "--yaw", "0", "--pitch", "0", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err


def test_a_game_record_replays_as_pictures(tmp_path, capsys):
    import referee
    from referee.bots import make_bot
    from referee.match import play
    from referee.records import write_record

    game = referee.load_game("go_piggy_go", players=2)
    final = play(game, [make_bot("greedy", game, 1), make_bot("random", game, 2)], seed=3)
    record = write_record(final, tmp_path / "game.jsonl")
    code = main(["replay", str(record), "--gif", str(tmp_path / "game.gif"), "--html",
                 str(tmp_path / "game.html")])
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
