"""``piggy replay``: a game record stepped through turn by turn, shown at one turn, or
drawn (Go Piggy Go!) as a GIF or a page with a slider."""

from __future__ import annotations

import sys

from models.errors import InputError
from models.text import shown
from sim.cli.common import check_output, whole_number


def cmd_replay(args) -> int:
    from models.files import check_input_file
    from referee.records import read_record
    from sim.cli import terminal

    for kind, path in (("gif", args.gif), ("html", args.html)):
        if path:
            check_output(path, f"--{kind}", (f".{kind}",))
    check_input_file(args.file, "record")  # a regular file within the cap (not /dev/urandom)
    name, params, actions = read_record(args.file)
    params = _record_board(name, params, args)
    if args.gif or args.html:
        return _replay_pictures(name, params, actions, args)
    if args.turn is not None:
        return _replay_to_turn(name, params, actions, args.turn)
    if terminal.stream_is_terminal(sys.stdin) and terminal.stream_is_terminal():
        turns, final = terminal.replay_turns(name, params, actions)
        terminal.step_through(turns)
    else:  # streamed: each turn printed as it is replayed, the board drawn once
        final = terminal.stream_turns(name, params, actions)
        if terminal.board_text(final):
            print(terminal.board_text(final))
    print(terminal.result_line(final))
    return 0


def _replay_to_turn(name: str, params: dict, actions: list[str], wanted: int) -> int:
    """``replay --turn N``: the turns up to N and the board after N, replayed one turn
    at a time (the rest counted, not kept)."""
    from sim.cli import terminal

    lines, board, total = [], None, 0
    for turn, state in terminal.iter_turns(name, params, actions):
        total = turn.number
        if turn.number <= wanted:
            lines.append("\n".join(turn.lines))
        if turn.number == wanted:
            board = terminal.board_text(state)
    if not 1 <= wanted <= total:
        raise InputError(f"--turn {wanted}: the game has turns 1-{total}")
    print("\n".join(lines))
    if board:
        print(board)
    print(f"(turn {wanted} of {total})")
    return 0


def _record_board(name: str, params: dict, args) -> dict:
    """The record's parameters with its board checked: ``--board`` if given, else the
    board the record names, which must be shipped with the package (models/boards/)
    or a file beside the record: a record may not open files elsewhere."""
    from pathlib import Path

    from models.board import BOARDS_DIR, load_board
    from models.files import resolve_named_file
    from referee import canonical_name

    if canonical_name(name) != "go_piggy_go" or not isinstance(params, dict):
        if args.board:
            raise InputError(f"--board applies to go-piggy-go records, not to {shown(name)}")
        return params
    if args.board:
        load_board(args.board)
        return {**params, "board": args.board}
    if "board" not in params:
        return params
    try:
        path = resolve_named_file(
            params["board"], BOARDS_DIR, "board", base_dir=Path(args.file).parent, only_beside=True
        )
    except InputError as exc:
        raise InputError(f"record {shown(args.file)}: {exc}; or give --board") from None
    return {**params, "board": params["board"] if path.parent == BOARDS_DIR else str(path)}


#: The most turns whose pictures ``replay --gif/--html`` draws: each is an image of
#: about 1.3 MB held until the file is written.
MAX_PICTURE_TURNS = 1000


def _replay_pictures(name: str, params: dict, actions: list[str], args) -> int:
    from referee import canonical_name
    from referee.go_piggy_go import GoPiggyGoGame
    from referee.records import replay
    from sim.cli.terminal import iter_turns
    from sim.views.game_pictures import game_frames, write_game_page
    from sim.views.video_files import write_gif

    if canonical_name(name) != "go_piggy_go":
        raise InputError(f"pictures of game records are drawn for go_piggy_go, not {name}")
    board = GoPiggyGoGame(**params).board
    turns = sum(1 for _ in iter_turns(name, params, actions))  # counted, nothing drawn
    if turns > MAX_PICTURE_TURNS:
        raise InputError(
            f"the game has {turns:,} turns: its pictures (one a turn, about "
            f"{turns * 1.3 / 1024:.1f} GB in memory) are drawn for games of at "
            f"most {MAX_PICTURE_TURNS:,} turns; replay --turn N shows one position"
        )
    frames = game_frames(replay(name, params, actions), board)
    if args.gif:
        write_gif(frames, args.gif, fps=2)
        print(f"Wrote {shown(args.gif)} ({len(frames)} turns)")
    if args.html:
        write_game_page(frames, args.html, f"Go Piggy Go! game, {len(frames)} turns")
        print(f"Wrote {shown(args.html)}")
    return 0


def add_replay(sub) -> None:
    """The ``replay`` command."""
    p = sub.add_parser(
        "replay",
        help="step through a game record, turn by turn",
        description="Replay a game record: each turn's roll, action and "
        "outcome. At a terminal, step through it turn by turn (the "
        "board after each); piped, the whole log and the final "
        "board at once; --turn N shows the board after turn N.",
    )
    p.add_argument("file", help="a record written by piggy play --record")
    p.add_argument(
        "--board",
        help="the board to replay on (go-piggy-go), instead of the one "
        "the record names; a record may name only a board shipped "
        "with piggy or a board file beside it",
    )
    p.add_argument(
        "--turn",
        type=whole_number(1, 1_000_000),
        metavar="N",
        help="the log up to turn N and the board after it",
    )
    p.add_argument(
        "--gif",
        metavar="FILE",
        help="draw the game from above, turn by turn, as an animated GIF (go-piggy-go)",
    )
    p.add_argument("--html", metavar="FILE", help="the same as a self-contained page with a slider")
    p.set_defaults(func=cmd_replay)
