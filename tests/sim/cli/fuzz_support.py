"""What the hostile-pass tests share: checking a refusal (exit 2, one line,
nothing written) of ``piggy`` run in this process, and the inputs they reuse."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run

ESC = "\x1b"
#: Text that ``str.isdigit`` or ``int``/``float`` take for a number, and a person
#: does not mean as one: other scripts' digits, superscripts, circled digits,
#: full-width digits, underscores.
NOT_ASCII_NUMBERS = ["\u00b2", "\u2460", "\u0663", "\uff11\uff12", "1_000", "\u0661.5"]


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def refused(capsys, argv: list[str], message: str, folder: Path | None = None) -> str:
    before = files_under(folder) if folder else set()
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("piggy: error: "), err
    assert ESC not in err and out == ""
    assert message in err, err
    if folder:
        assert files_under(folder) == before
    return err


SHOOT = ["shoot", "--yaw", "0", "--pitch", "10"]
HITMAP = ["hitmap", "--spaces", "r8c3", "--shots", "3", "--workers", "1", "--format", "csv"]
