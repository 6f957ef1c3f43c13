"""Numbers typed by a person: ASCII digits only.

Python's ``int`` and ``float`` accept more than a person means by a number:
digits of other scripts (``'٣'``, full-width ``'１２'``), underscores between digits
(``'1_000'``), and ``str.isdigit`` is true for ``'²'`` and ``'①'``, which ``int``
then refuses. Everywhere a number is read from a person — a command-line option,
a move typed at the prompt, a bot's name such as ``hold-at-3``, a game parameter,
a CSV of measured shots — it is read by these two functions, which accept plain
ASCII digits and nothing else.
"""

from __future__ import annotations

import re

#: The most digits a number read from a person may have (a longer one is refused
#: before Python converts it).
MAX_DIGITS = 30

_WHOLE = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


def ascii_whole(text: str, *, signed: bool = False) -> int | None:
    """The whole number ``text`` spells in ASCII digits (a leading ``-`` or ``+``
    only with ``signed``), else None. Never raises."""
    if not _WHOLE.fullmatch(text) or (not signed and text[0] in "+-"):
        return None
    return int(text)


def ascii_decimal(text: str) -> float | None:
    """The number ``text`` spells in ASCII digits, an optional sign, a decimal point
    and an exponent (``-2.5``, ``.5``, ``1e3``), else None: no blanks, ``inf``,
    ``nan``, underscores or other scripts' digits. Never raises."""
    if len(text) > 2 * MAX_DIGITS or not _DECIMAL.fullmatch(text):
        return None
    return float(text)
