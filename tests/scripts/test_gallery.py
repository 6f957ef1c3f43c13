"""scripts/gallery.py makes the pictures docs/gallery.md shows, and no others."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gallery  # noqa: E402


def test_the_gallery_page_shows_every_picture_the_script_makes():
    page = (ROOT / "docs" / "gallery.md").read_text()
    shown = set(re.findall(r"\]\(img/([^)]+)\)", page))
    assert shown == set(gallery.PICTURES) - {"shot.gif"}  # shot.gif is the README's
    for name in gallery.PICTURES:
        assert (ROOT / "docs" / "img" / name).is_file(), name
    grouped = [name for names in gallery.GROUPS.values() for name in names]
    assert sorted(grouped) == sorted(gallery.PICTURES)  # each made by exactly one group


def test_the_stored_gifs_stay_small():
    for name in gallery.PICTURES:
        if name.endswith(".gif"):
            assert (ROOT / "docs" / "img" / name).stat().st_size < 500_000, name


@pytest.mark.slow
def test_the_script_draws_the_shot_picture(tmp_path):
    run = subprocess.run(
        [sys.executable, "scripts/gallery.py", "--only", "still", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-500:]
    assert [p.name for p in tmp_path.iterdir()] == ["demo-shot.png"]
    assert Image.open(tmp_path / "demo-shot.png").size[0] > 1200


@pytest.mark.slow
def test_an_unknown_group_is_refused(tmp_path):
    run = subprocess.run(
        [sys.executable, "scripts/gallery.py", "--only", "movies", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 2 and "unknown group movies" in run.stderr
