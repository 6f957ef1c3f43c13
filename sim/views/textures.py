"""The board's top as a PyBullet texture: the same drawing as every picture
(:func:`sim.views.pictures.draw_board`), mapped onto a flat visual-only quad, so that the
videos and the sandbox window show the grid, the fences' places and the labels.
"""

from __future__ import annotations

from pathlib import Path

from models.board import Board
from sim.physics.bullet import CM_PER_MM, pb

#: Pixels of texture per mm of board: enough for the space labels to be read.
_PX_PER_MM = 2.0
#: The names on the texture, larger than on the pictures: a 640 x 480 video sees a space
#: at about 40 pixels, and the renderer samples the texture without smoothing, so names
#: of the pictures' size break up into wrong letters ("r8c2" read "r8r7").
_LABEL_SCALE = 2.0


def board_texture_png(board: Board, folder: str | Path) -> Path:
    """Draw the board top into ``folder/board.png``, edge to edge; returns its path."""
    import matplotlib.pyplot as plt

    from sim.views.pictures import draw_board

    x0, x1, y0, y1 = board.surface_extent_mm
    dpi = 100
    fig = plt.figure(figsize=((x1 - x0) * _PX_PER_MM / dpi, (y1 - y0) * _PX_PER_MM / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    draw_board(ax, board, labels=True, label_scale=_LABEL_SCALE)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.axis("off")
    path = Path(folder) / "board.png"
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def add_board_top(
    client: int, board: Board, texture_png: str | Path, height_mm: float = 0.0
) -> int:
    """A visual-only quad over the board's surface with the texture on it (no collision
    shape: the physics never sees it). Returns its body id."""
    x0, x1, y0, y1 = board.surface_extent_mm
    corners = [[x0, y0, height_mm], [x1, y0, height_mm], [x1, y1, height_mm], [x0, y1, height_mm]]
    shape = pb.createVisualShape(
        pb.GEOM_MESH,
        physicsClientId=client,
        vertices=[[c * CM_PER_MM for c in v] for v in corners],
        indices=[0, 1, 2, 0, 2, 3],
        uvs=[[0, 0], [1, 0], [1, 1], [0, 1]],
        normals=[[0, 0, 1]] * 4,
        meshScale=[1, 1, 1],
    )
    body = pb.createMultiBody(0, -1, shape, physicsClientId=client)
    texture = pb.loadTexture(str(texture_png), physicsClientId=client)
    pb.changeVisualShape(
        body, -1, textureUniqueId=texture, rgbaColor=[1, 1, 1, 1], physicsClientId=client
    )
    return body
