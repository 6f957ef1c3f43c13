"""A design's own meshes in every view: the shot picture and its section, the video
renderer and the 3D page draw the design's own piggy, tractor and bale; a design
without them is drawn with the stock bodies."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import trimesh
from matplotlib.colors import to_rgb
from matplotlib.patches import Polygon

from models.design import load_design
from models.layout import Layout
from models.mesh_files import read_mesh_file
from models.meshes import ASSETS_DIR, load_parts, parse_obj
from sim.physics import shoot
from sim.physics.bullet import pb
from sim.physics.bullet.world import BulletWorld
from sim.physics.geometry import PiggyModel
from sim.physics.launch import AimedShot
from sim.views import viewer
from sim.views.pictures import PIGGY_COLOURS
from sim.views.render import ShotRenderer
from sim.views.shot_picture import shot_figure

#: The own piggy: an upright cylinder 26 mm across and 22 mm tall (the stock piggy is
#: about 23 mm wide, 41 mm long and 35 mm tall). Convex: no decomposition run.
ACROSS_MM, TALL_MM = 26.0, 22.0
#: The own tractor: a box, 50 mm wide, 90 mm long, 40 mm tall.
TRACTOR_MM = (50.0, 90.0, 40.0)
ROUND_BALE = Path(__file__).resolve().parents[3] / "models" / "designs" / "round-bale.stl"


@pytest.fixture(scope="module")
def own_designs(tmp_path_factory):
    """(a design with an own piggy only, one with an own piggy, tractor and bale)."""
    folder = tmp_path_factory.mktemp("own-bodies")
    piggy = trimesh.creation.cylinder(radius=ACROSS_MM / 2, height=TALL_MM, sections=32)
    piggy.export(folder / "piggy.stl")
    tractor = trimesh.creation.box(extents=TRACTOR_MM)
    tractor.apply_translation([0, 0, TRACTOR_MM[2] / 2])
    tractor.export(folder / "tractor.stl")
    (folder / "piggy.toml").write_text('name = "own-piggy"\n[piggy]\nmesh = "piggy.stl"\n')
    (folder / "all.toml").write_text(
        'name = "all-own"\n[piggy]\nmesh = "piggy.stl"\n[tractor]\nmesh = "tractor.stl"\n'
        f'[bale]\nmesh = "{ROUND_BALE}"\n'
    )
    return load_design(folder / "piggy.toml"), load_design(folder / "all.toml")


def _shot(board, design):
    """A recorded shot at gold-2, alone on r7c2."""
    layout = Layout(board=board, stacks={board.parse_space("r7c2"): ("gold-2",)})
    with BulletWorld(board, design, layout) as world:
        aim = shoot.solve_aim(world, "gold-2")
        return shoot.fire(world, AimedShot(aim.yaw_deg, aim.pitch_deg, noise=False), record=True)


@pytest.fixture(scope="module")
def own_piggy_shot(board, own_designs):
    return _shot(board, own_designs[0])


def _gold_outline(ax, alpha: float) -> np.ndarray:
    """The vertices (n, 2) of the gold piggy's polygons drawn with ``alpha``."""
    gold = to_rgb(PIGGY_COLOURS["gold"])
    points = [
        p.get_xy()
        for p in ax.patches
        if isinstance(p, Polygon)
        and np.allclose(p.get_facecolor()[:3], gold)
        and p.get_alpha() == pytest.approx(alpha)
    ]
    assert points, "no gold piggy drawn"
    return np.vstack(points)


def _drawn_sizes(board, design, result) -> tuple[np.ndarray, float]:
    """(width and length from above, height in the section) of gold-2 where it stood."""
    figure = shot_figure(board, design, result)
    try:
        whole, _, section = figure.axes
        from_above = np.ptp(_gold_outline(whole, 0.3), axis=0)
        height = float(np.ptp(_gold_outline(section, 0.3)[:, 1]))
    finally:
        plt.close(figure)
    return from_above, height


def test_the_shot_picture_draws_the_own_piggy_not_the_stock_one(board, design, own_designs):
    own_size, own_height = _drawn_sizes(board, own_designs[0], _shot(board, own_designs[0]))
    # the cylinder from above is a 32-gon 26 mm across, and 22 mm tall side-on
    assert own_size == pytest.approx([ACROSS_MM, ACROSS_MM], abs=0.4)
    assert own_height == pytest.approx(TALL_MM, abs=0.1)
    stock_size, stock_height = _drawn_sizes(board, design, _shot(board, design))
    assert max(stock_size) > 38 and stock_height > 30  # the stock piggy, as before


def _mesh_extent(mesh: dict) -> np.ndarray:
    return np.ptp(np.reshape(mesh["v"], (-1, 3)), axis=0)


def test_the_3d_page_carries_the_own_meshes(board, own_designs):
    own = viewer.scene(board, own_designs[1])
    bale = read_mesh_file(ROUND_BALE, "mm", "bale").mesh
    assert len(own["bale"]["v"]) == 3 * len(bale.vertices)
    assert _mesh_extent(own["bale"]) == pytest.approx(bale.extents, abs=0.01)
    assert _mesh_extent(own["tractor"]) == pytest.approx(TRACTOR_MM, abs=0.01)
    assert len(own["tractor"]["f"]) == 3 * 12  # a box: 12 triangles
    # the piggy in its body's frame: the cylinder's axis is one of its principal axes
    assert sorted(_mesh_extent(own["piggy"])) == pytest.approx(
        [TALL_MM, ACROSS_MM, ACROSS_MM], 0.01
    )


def test_the_3d_page_of_a_design_without_meshes_has_the_stock_bodies(board, design):
    stock = viewer.scene(board, design)
    piggy = load_parts("piggy_principal").values()
    assert len(stock["piggy"]["v"]) == 3 * sum(len(p.vertices) for p in piggy)
    assert stock["tractor"] == viewer._mesh(load_parts("tractor").values(), stock["tractor"]["rgb"])
    bale = design.bale
    assert _mesh_extent(stock["bale"]) == pytest.approx(
        [bale.width_mm, bale.length_mm, bale.height_mm], abs=0.02
    )


def _visual_obj(renderer: ShotRenderer, body: int) -> tuple[str, np.ndarray]:
    """(the OBJ file a renderer body's visual shape was loaded from, its vertices (n, 3),
    mm)."""
    ((*_, file_name, _, _, _),) = pb.getVisualShapeData(body, physicsClientId=renderer.client)
    path = file_name.decode()
    meshes = parse_obj(Path(path).read_text()).values()
    return path, np.vstack([m.vertices for m in meshes])


@pytest.mark.slow
def test_the_videos_draw_the_own_tractor_and_bale(board, design, own_designs):
    with ShotRenderer(board, own_designs[1], size=(64, 48)) as renderer:
        _, tractor = _visual_obj(renderer, renderer._tractor)
        assert np.ptp(tractor, axis=0) == pytest.approx(TRACTOR_MM, abs=1e-3)
        _, bale = _visual_obj(renderer, renderer._bale)
        own_bale = read_mesh_file(ROUND_BALE, "mm", "bale").mesh
        assert len(bale) == len(own_bale.vertices)
        assert np.ptp(bale, axis=0) == pytest.approx(own_bale.extents, abs=1e-3)
    with ShotRenderer(board, design, size=(64, 48)) as renderer:
        path, _ = _visual_obj(renderer, renderer._tractor)
        assert path == str(ASSETS_DIR / "tractor.obj")  # as before


def test_the_videos_draw_the_own_piggy_where_its_body_is(board, own_designs, own_piggy_shot):
    with ShotRenderer(board, own_designs[0], size=(64, 48)) as renderer:
        renderer.frame(own_piggy_shot, 0)
        _, piggy = _visual_obj(renderer, renderer._piggies["gold-2"])
    assert sorted(np.ptp(piggy, axis=0)) == pytest.approx([TALL_MM, ACROSS_MM, ACROSS_MM], abs=0.01)
    # in the physics body's frame: the same box as the collision parts the judge reads
    (part,) = PiggyModel.for_design(own_designs[0]).parts_mm
    assert piggy.min(axis=0) == pytest.approx(part.min(axis=0), abs=1e-3)
    assert piggy.max(axis=0) == pytest.approx(part.max(axis=0), abs=1e-3)
