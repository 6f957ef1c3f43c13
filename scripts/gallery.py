"""The pictures of docs/gallery.md (and the README's), made from the code.

    python scripts/gallery.py [--out docs/img] [--only NAME[,NAME...]]
                              [--hitmap-shots 100] [--workers N]

Deterministic: the demo's layout, aim and seed, a seeded hit map, a seeded
bots-only game. The 3D page's screenshot needs Chromium and the sandbox's needs
Xvfb; each is left out, with a message, where its program is missing. Files
are kept small for the repository (GIFs of a few hundred KB): smaller frames
and fewer frames a second than ``piggy shoot --gif`` makes by default.

About 2 minutes on two cores, plus the hit map (100 shots on each of the 68
spaces: about 4 more minutes; ``--hitmap-shots`` for fewer).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.board import load_board  # noqa: E402
from models.design import load_design  # noqa: E402
from models.layout import layout_from_dict  # noqa: E402
from sim.defaults import CAMERAS  # noqa: E402
from sim.physics import shoot  # noqa: E402
from sim.physics.launch import AimedShot  # noqa: E402
from sim.studies import demo  # noqa: E402
from sim.views import shot_picture  # noqa: E402

#: Every picture the script makes: file name in the output folder -> what it shows.
PICTURES = {
    **{f"shot-{camera}.gif": f"the demo's shot, {camera} camera" for camera in CAMERAS},
    "shot.gif": "the demo's shot from its own camera (the README's)",
    "demo-shot.png": "the demo's shot: the board, a close-up and a section along the aim",
    "hitmap.png": "a hit map of the whole stock board",
    "shot-page.png": "the 3D page of the demo's shot, at its end",
    "game.gif": "a short bots-only game, turn by turn",
    "sandbox.png": "the sandbox window",
}
GROUPS = {
    "videos": [n for n in PICTURES if n.endswith(".gif") and n.startswith("shot")],
    "still": ["demo-shot.png"],
    "hitmap": ["hitmap.png"],
    "page": ["shot-page.png"],
    "game": ["game.gif"],
    "sandbox": ["sandbox.png"],
}
#: Video frames for the repository: size, frames a second, times slower than life.
VIDEO_SIZE, VIDEO_FPS, VIDEO_SLOWMO = (480, 360), 12, 2.5
SEED = 0


def demo_shot():
    """The demo's shot (recorded), the world it was fired in, its picture."""
    from sim.physics.bullet.world import BulletWorld

    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict(demo.DEMO_LAYOUT, board=board, source="demo layout")
    world = BulletWorld(board, design, layout)
    aim = shoot.solve_aim(world, demo.DEMO_TARGET)
    result = shoot.fire(world, AimedShot(aim.yaw_deg, aim.pitch_deg, SEED), record=True)
    return world, result


def videos(out: Path, world, result) -> None:
    from sim.views.render import ShotRenderer
    from sim.views.video_files import write_gif

    with ShotRenderer(world.board, world.design, size=VIDEO_SIZE) as renderer:
        for camera in CAMERAS:
            frames = renderer.frames(result, camera, fps=VIDEO_FPS, slowmo=VIDEO_SLOWMO, hold_s=1.5)
            write_gif(frames, out / f"shot-{camera}.gif", fps=VIDEO_FPS)
            if camera == demo.DEMO_CAMERA:
                write_gif(frames, out / "shot.gif", fps=VIDEO_FPS)


def still(out: Path, world, result) -> None:
    from sim.views.pictures import save_figure

    save_figure(
        shot_picture.shot_figure(
            world.board, world.design, result, f"demo: aimed at {demo.DEMO_TARGET}"
        ),
        out / "demo-shot.png",
    )


def hit_map(out: Path, shots: int, workers: int) -> None:
    from models.layout import check_spaces
    from sim.studies.maps import hitmap
    from sim.studies.shots import datafiles, rqmc, space_shots
    from sim.views.hitmap_picture import save_heatmap

    board = load_board("stock")
    spec = space_shots.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=check_spaces(board, None, {}),
        shots=shots,
        seed=SEED,
        sampler="mc",  # the gallery's pictures as they were before RQMC was the default
    )
    with tempfile.TemporaryDirectory() as folder:
        rows = hitmap.sweep(spec, Path(folder) / "hitmap.csv", fmt="csv", workers=workers)
        made_by = datafiles.read_provenance(Path(folder) / "hitmap.csv")
    save_heatmap(
        board,
        rows,
        out / "hitmap.png",
        f"stock launcher: P(a lone piggy is knocked out), {shots} shots a space",
        interval=rqmc.interval_of(made_by),
    )


def page(out: Path, world, result) -> None:
    from sim.views.viewer import write_shot_page

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("  shot-page.png left out: Chromium is not installed")
        return
    with tempfile.TemporaryDirectory() as folder:
        html = write_shot_page(world.board, world.design, result, Path(folder) / "shot.html")
        shot = Path(folder) / "page.png"
        # WebGL in software (SwiftShader): no GPU or display needed
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={Path(folder) / 'profile'}",
                "--window-size=900,650",
                "--virtual-time-budget=2000",
                f"--screenshot={shot}",
                html.resolve().as_uri() + "#end",
            ],
            capture_output=True,
            timeout=180,
            check=True,
        )
        _save_png(shot, out / "shot-page.png")


def game(out: Path) -> None:
    from referee.bots import make_bot
    from referee.go_piggy_go import GoPiggyGoGame
    from referee.match import play
    from referee.records import replay
    from sim.views.game_pictures import game_frames
    from sim.views.video_files import write_gif

    g = GoPiggyGoGame(players=2)
    final = play(g, [make_bot("greedy", g, SEED), make_bot("random", g, SEED + 1)], seed=SEED)
    frames = game_frames(
        replay("go_piggy_go", g.params, final.history), g.board, ["greedy", "random"]
    )
    write_gif(frames, out / "game.gif", fps=1, colours=48)


def sandbox(out: Path) -> None:
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        print("  sandbox.png left out: Xvfb is not installed")
        return
    from PIL import ImageGrab

    read, write = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1024x768x24"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as numbers:
            display = ":" + numbers.readline().strip()
        window = subprocess.Popen(
            [sys.executable, "-m", "sim.cli", "sandbox", "--seconds", "90"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)},
        )
        assert window.stdout is not None  # a pipe (PIPE above)
        window.stdout.readline()  # "Sandbox open: ..."
        time.sleep(2.0)
        with tempfile.TemporaryDirectory() as folder:
            ImageGrab.grab(xdisplay=display).save(Path(folder) / "screen.png")
            window.kill()
            window.wait()
            _save_png(Path(folder) / "screen.png", out / "sandbox.png")
    finally:
        server.terminate()
        server.wait(timeout=10)


def _save_png(source: Path, target: Path) -> None:
    """A screenshot as a smaller PNG (a palette of 256 colours), written atomically."""
    from PIL import Image

    image = Image.open(source).convert("RGB").quantize(256)
    tmp = target.with_name(f".{target.name}.tmp.png")
    image.save(tmp, optimize=True)
    tmp.replace(target)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--only", help=f"groups, comma-separated: {', '.join(GROUPS)}")
    parser.add_argument("--hitmap-shots", type=int, default=100)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    groups = args.only.split(",") if args.only else list(GROUPS)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group {', '.join(unknown)}: allowed are {', '.join(GROUPS)}")
    try:  # made when missing: `--out /tmp/pictures` works on a fresh machine
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {args.out}: cannot make the folder ({exc.strerror or exc})")
    shot = functools.cache(demo_shot)  # fired once, by the first group that draws it
    makers = {
        "videos": lambda: videos(args.out, *shot()),
        "still": lambda: still(args.out, *shot()),
        "hitmap": lambda: hit_map(args.out, args.hitmap_shots, args.workers),
        "page": lambda: page(args.out, *shot()),
        "game": lambda: game(args.out),
        "sandbox": lambda: sandbox(args.out),
    }
    for group in groups:
        start = time.perf_counter()
        makers[group]()
        made = [n for n in GROUPS[group] if (args.out / n).exists()]
        print(f"{group}: {', '.join(made) or 'nothing'} ({time.perf_counter() - start:.0f} s)")
    print(
        json.dumps({n: (args.out / n).stat().st_size for n in PICTURES if (args.out / n).exists()})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
