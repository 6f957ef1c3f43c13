"""``piggy board show``: a board and a layout, as text or a picture."""

from __future__ import annotations

from models.text import shown
from sim.cli.common import Parser, check_output, json_out, load_layout_args


def cmd_board_show(args) -> int:
    if args.png:
        check_output(args.png, "--png", (".png",))
    layout = load_layout_args(args)
    board = layout.board
    stacks = layout.to_dict()["stacks"]
    if args.json:
        json_out(
            {
                "name": board.name,
                "rows": board.rows,
                "cols": board.cols,
                "space_mm": board.space_mm,
                "spaces": len(board.spaces),
                "fences": len(board.fences),
                "stacks": stacks,
            }
        )
    else:
        print(f"board '{board.name}': {board.description}")
        print(board.text_map(stacks))
    if args.png:
        _board_png(board, layout, args.png)
        if not args.json:
            print(f"Wrote {shown(args.png)}")
    return 0


def _board_png(board, layout, path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from sim.physics.geometry import PiggyModel
    from sim.views.pictures import draw_board, draw_footprint, save_figure
    from sim.views.shot_picture import STACK_OFFSET_MM

    fig, ax = plt.subplots(figsize=(7, 9))
    draw_board(ax, board)
    model = PiggyModel.load()
    # where each piggy is put down on its space (no physics: from above, the settled
    # piggy lies within a fraction of a millimetre of it)
    poses = model.drop_poses_mm(board, layout)
    for stack in layout.stacks.values():  # bottom first; the upper one drawn off
        for level, piggy in enumerate(stack):  # it, so that both show from above
            shift = np.append(STACK_OFFSET_MM, 0.0) * level
            draw_footprint(ax, [p + shift for p in model.parts_at(poses[piggy])], piggy)
    for space, stack in layout.stacks.items():
        x, y = board.space_center_mm(space)
        ax.text(x, y - board.space_mm * 0.42, "/".join(stack), ha="center", fontsize=5.5, zorder=9)
    ax.set_title(f"board '{board.name}'")
    save_figure(fig, path)


def add_board(sub) -> None:
    """The ``board`` command and its actions."""
    p = sub.add_parser("board", help="boards: show one")
    board_sub = p.add_subparsers(
        dest="board_command", metavar="ACTION", parser_class=Parser, required=True
    )
    q = board_sub.add_parser(
        "show",
        help="a text map of the board (and a picture with --png)",
        description="Print a text map of a board, with a layout's piggies.",
    )
    q.add_argument(
        "--board", help="board name or path (default: the layout file's own board, else stock)"
    )
    q.add_argument(
        "--layout", default="empty", help="layout JSON file, 'empty' (default) or 'crowded'"
    )
    q.add_argument("--png", metavar="FILE", help="also draw the board to a PNG file")
    q.add_argument("--json", action="store_true", help="machine-readable summary")
    q.set_defaults(func=cmd_board_show)
