"""``piggy markers``: the printable sheet of the markers that fix a camera's pose
over the board (docs/real-toy.md, "Markers and the camera")."""

from __future__ import annotations

from models.board import load_board
from models.text import shown
from sim.cli.common import check_output, json_out, whole_number
from sim.real_toy.defaults import DPI, DPI_RANGE


def cmd_markers(args) -> int:
    check_output(args.out, "--out", (".pdf", ".png"))
    board = load_board(args.board)
    from sim.real_toy import opencv

    opencv()  # refused on one line, naming the extra, before anything is drawn
    from sim.real_toy.markers import marker_layout
    from sim.real_toy.sheet import write_sheet

    layout = marker_layout(board)
    write_sheet(layout, args.out, dpi=args.dpi)
    if args.json:
        json_out(
            {
                "board": board.name,
                "dictionary": layout.dictionary,
                "markers": [
                    {
                        "id": m.id,
                        "centre_mm": list(m.centre_mm),
                        "side_mm": m.side_mm,
                        "where": m.where,
                    }
                    for m in layout.markers
                ],
                "file": args.out,
            }
        )
        return 0
    print(f"Markers for board '{board.name}' (ArUco {layout.dictionary}), each taped with its")
    print("'trough' edge toward +y; centres in the board frame:")
    for m in layout.markers:
        x, y = m.centre_mm
        print(f"  id {m.id}: x {x:7.1f} mm, y {y:7.1f} mm, side {m.side_mm:g} mm  ({m.where})")
    dpi = f", {args.dpi} dpi" if args.out.lower().endswith(".png") else ""
    print(f"Wrote {shown(args.out)} (print at actual size{dpi})")
    return 0


def add_markers(sub) -> None:
    """The ``markers`` command."""
    p = sub.add_parser(
        "markers",
        help="a printable sheet of the markers that fix a camera over the board",
        description="Write an A4 sheet, PDF or PNG at true scale, of the ArUco markers "
        "that piggy film draws and a video measurement finds: each with its id and "
        "the board-frame position (mm) of its centre, where to tape it "
        "(docs/real-toy.md, 'Markers and the camera').",
    )
    p.add_argument("--out", required=True, metavar="SHEET.pdf|SHEET.png", help="the sheet")
    p.add_argument(
        "--board", default="stock", help="board the markers are placed on (default: stock)"
    )
    p.add_argument(
        "--dpi",
        type=whole_number(*DPI_RANGE),
        default=DPI,
        help=f"a PNG's pixels an inch, {DPI_RANGE[0]} to {DPI_RANGE[1]} (default {DPI})",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_markers)
