"""Own meshes on the command line: every bad mesh exits 2 with one line and writes
nothing; ``design check`` tells what a mesh became; a hit map with an own piggy
is the same with one worker or two, and its metadata names the mesh."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import trimesh

from models import decompose
from models.errors import InputError
from sim.cli import main


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def design_with(folder: Path, section: str, mesh_name: str, extra: str = "") -> str:
    path = folder / f"{section}-design.toml"
    path.write_text(f'name = "own"\n[{section}]\nmesh = "{mesh_name}"\n{extra}\n')
    return str(path)


def refused_everywhere(capsys, folder: Path, design: str, message: str) -> None:
    """``design check``, ``shoot --png`` and ``hitmap`` each exit 2 with one line
    that says ``message``, and write nothing."""
    out = folder / "out"
    out.mkdir()
    for argv in (
        ["design", "check", design],
        ["shoot", "--design", design, "--at", "r8c3", "--png", str(out / "shot.png")],
        [
            "hitmap",
            "--design",
            design,
            "--spaces",
            "r8c3",
            "--shots",
            "2",
            "--workers",
            "1",
            "--out",
            str(out / "map.csv"),
        ],
    ):
        code, stdout, err = run(capsys, argv)
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and err.startswith("piggy: error: "), err
        assert message in err and stdout == "", err
    assert list(out.iterdir()) == []


def test_a_missing_mesh_file(capsys, tmp_path):
    design = design_with(tmp_path, "bale", "no-such-bale.stl")
    refused_everywhere(capsys, tmp_path, design, "no such file")


def test_a_file_that_is_not_a_mesh(capsys, tmp_path):
    (tmp_path / "bale.stl").write_bytes(b"solid nothing\nthis is no STL\n")
    design = design_with(tmp_path, "bale", "bale.stl")
    refused_everywhere(capsys, tmp_path, design, "'bale.mesh' bale.stl:")


def test_a_mesh_with_holes_that_cannot_be_closed(capsys, tmp_path):
    tube = trimesh.creation.cylinder(radius=4, height=10, sections=24)
    tube.update_faces(abs(tube.face_normals[:, 2]) < 0.5)
    tube.remove_unreferenced_vertices()
    tube.export(tmp_path / "tube.stl")
    design = design_with(tmp_path, "bale", "tube.stl")
    refused_everywhere(capsys, tmp_path, design, "has holes that cannot be filled")


def test_a_mesh_that_encloses_no_volume(capsys, tmp_path):
    # two triangles back to back: closed, but flat
    flat = trimesh.Trimesh(
        vertices=[[0, 0, 0], [10, 0, 0], [0, 10, 0]], faces=[[0, 1, 2], [0, 2, 1]], process=False
    )
    flat.export(tmp_path / "flat.ply")
    design = design_with(tmp_path, "bale", "flat.ply")
    refused_everywhere(capsys, tmp_path, design, "'bale.mesh' flat.ply: encloses no volume")


def test_a_bale_in_metres_says_its_size_and_mesh_units(capsys, tmp_path):
    trimesh.creation.box(extents=(7, 11, 6)).export(tmp_path / "bale.stl")
    design = design_with(tmp_path, "bale", "bale.stl", 'mesh_units = "m"')
    refused_everywhere(capsys, tmp_path, design, "largest side is 11000 mm")


def test_a_piggy_that_does_not_fit_its_space(capsys, tmp_path):
    trimesh.creation.box(extents=(30, 60, 25)).export(tmp_path / "pig.stl")
    design = design_with(tmp_path, "piggy", "pig.stl")
    out = tmp_path / "out"
    out.mkdir()
    for argv in (
        ["design", "check", design],
        [
            "shoot",
            "--design",
            design,
            "--layout",
            "crowded",
            "--at",
            "r8c3",
            "--png",
            str(out / "shot.png"),
        ],
    ):
        code, _, err = run(capsys, argv)
        assert code == 2 and err.count("\n") == 1, err
        assert "footprint is 30 x 60 mm, it does not fit a board space of 55 mm" in err
    assert list(out.iterdir()) == []


@pytest.mark.slow
def test_a_mesh_over_the_face_limit(capsys, tmp_path):
    trimesh.creation.icosphere(subdivisions=7, radius=5).export(tmp_path / "fine.stl")
    design = design_with(tmp_path, "bale", "fine.stl")
    refused_everywhere(capsys, tmp_path, design, "over the limit of 200000")


@pytest.mark.slow
def test_a_decomposition_over_the_cpu_cap(capsys, tmp_path, monkeypatch):
    trimesh.creation.annulus(r_min=3, r_max=5, height=4).export(tmp_path / "ring.stl")
    design = design_with(tmp_path, "bale", "ring.stl")
    monkeypatch.setattr(decompose, "DECOMPOSE_CPU_CAP_S", 0.01)  # 1 s: the kernel's least
    code, _, err = run(capsys, ["shoot", "--design", design, "--at", "r8c3"])
    assert code == 2 and err.count("\n") == 1, err
    assert "ring.stl: its convex decomposition used" in err
    assert "of CPU, its cap is 1 s: raise 'mesh_threshold'" in err


def test_design_check_tells_what_the_mesh_became(capsys, tmp_path):
    box = trimesh.creation.box(extents=(0.7, 1.1, 0.6))
    box.update_faces(np.arange(len(box.faces)) != 0)  # one hole to fill
    box.remove_unreferenced_vertices()
    box.export(tmp_path / "bale.stl")
    design = design_with(tmp_path, "bale", "bale.stl", 'mesh_units = "cm"\nmass_g = 2.0')
    code, out, _ = run(capsys, ["design", "check", design])
    assert code == 0
    assert f"bale mesh: {tmp_path / 'bale.stl'} (sha256 " in out
    assert "7 x 11 x 6 mm, 462.0 mm³, 1 convex part" in out and "2 g" in out
    assert "note: 'bale.mesh' bale.stl: filled its holes" in out
    code, out, _ = run(capsys, ["design", "check", design, "--json"])
    mesh = json.loads(out)["meshes"]["bale"]
    block = 2.0 * (11**2 + 6**2) / 12  # g mm², about the width (x): the middle moment
    assert mesh["principal_moments_g_mm2"][1] == pytest.approx(block, rel=1e-3)
    assert mesh["parts"] == 1 and mesh["size_mm"] == [7.0, 11.0, 6.0]


def test_a_hit_map_with_an_own_piggy_is_the_same_with_one_or_two_workers(capsys, tmp_path):
    trimesh.creation.box(extents=(30, 40, 25)).export(tmp_path / "pig.stl")
    design = design_with(tmp_path, "piggy", "pig.stl")
    maps = []
    for workers in ("1", "2"):
        out = tmp_path / f"map-{workers}.csv"
        argv = [
            "hitmap",
            "--design",
            design,
            "--spaces",
            "r8c3,r2c1",
            "--shots",
            "3",
            "--workers",
            workers,
            "--seed",
            "4",
            "--out",
            str(out),
        ]
        code, _, err = run(capsys, argv)
        assert code == 0, err
        maps.append(out.read_text())
        meta = json.loads(Path(f"{out}.json").read_text())
        assert (
            meta["meshes"]["piggy"]["sha256"]
            == hashlib.sha256((tmp_path / "pig.stl").read_bytes()).hexdigest()
        )
    assert maps[0] == maps[1]


def test_an_uploaded_design_cannot_make_the_server_read_a_file(tmp_path):
    from sim.serve.uploads import Uploads

    trimesh.creation.box(extents=(7, 11, 6)).export(tmp_path / "bale.stl")
    uploads = Uploads()
    try:
        with pytest.raises(InputError, match="an uploaded design cannot give a mesh file"):
            uploads.upload(
                None,  # refused before the sandbox is touched
                {"kind": "design", "text": f'[bale]\nmesh = "{tmp_path / "bale.stl"}"\n'},
            )
    finally:
        uploads.cleanup()


def test_the_round_bale_example_checks_shoots_and_maps(capsys, tmp_path):
    code, out, err = run(capsys, ["design", "check", "round-bale"])
    assert code == 0, err
    assert "bale mesh: " in out and "round-bale.stl" in out and "9 x 8 x 8 mm" in out
    code, out, err = run(capsys, ["shoot", "--design", "round-bale", "--at", "r8c3", "--json"])
    assert code == 0, err
    assert json.loads(out)["design"] == "round-bale"
    csv = tmp_path / "round.csv"
    argv = [
        "hitmap",
        "--design",
        "round-bale",
        "--spaces",
        "r8c3",
        "--shots",
        "4",
        "--workers",
        "1",
        "--out",
        str(csv),
    ]
    code, _, err = run(capsys, argv)
    assert code == 0, err
    meta = json.loads(Path(f"{csv}.json").read_text())
    assert meta["design"] == "round-bale"
    assert meta["meshes"]["bale"]["file"].endswith("models/designs/round-bale.stl")


def test_design_check_draws_a_mesh_beside_its_collision_parts(capsys, tmp_path):
    from PIL import Image

    png = tmp_path / "meshes.png"
    code, out, err = run(capsys, ["design", "check", "round-bale", "--png", str(png)])
    assert code == 0, err
    assert f"Wrote {png}" in out
    with Image.open(png) as picture:
        width, height = picture.size
    assert width > height > 300  # one row: the mesh and its one part side by side


def test_a_picture_of_meshes_is_refused_for_a_design_without_any(capsys, tmp_path):
    png = tmp_path / "meshes.png"
    code, out, err = run(capsys, ["design", "check", "stock", "--png", str(png)])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "design 'stock' has no own mesh to draw" in err
    assert not png.exists()


@pytest.mark.slow  # decomposes the example piggy with CoACD on a cold cache (~10 s)
def test_the_wide_piggy_example_is_wider_lower_and_split_into_convex_parts(capsys):
    code, out, err = run(capsys, ["design", "check", "wide-piggy", "--json"])
    assert code == 0, err
    piggy = json.loads(out)["meshes"]["piggy"]
    width, length, height = piggy["size_mm"]
    assert (width, length) == (30.0, 36.0) and 20 < height < 25  # wider, lower than stock
    # not convex (an arched belly between four legs): more than one part, within the cap
    assert 4 <= piggy["parts"] <= 16
