"""Showing user-supplied text safely in one-line messages.

A name, a path or a value read from a file may hold anything: a newline (which
would split a one-line error in two), an ESC sequence (which a terminal would
obey: colours, cursor moves, a changed window title), a bidirectional override,
or a hundred thousand characters. :func:`shown` makes any of it safe to put in a
message; every :class:`~models.errors.InputError` that echoes user input uses it,
and so should the command line and the referee when they print names they did
not make. :func:`models.errors.check_label` refuses such text where a file gives a
name.
"""

from __future__ import annotations

import unicodedata

#: The longest text :func:`shown` prints whole; longer text keeps its head and tail.
SHOWN_MAX_CHARS = 120

# Characters shown by their usual short escape rather than \xNN.
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(ch: str) -> str:
    """``ch`` itself if it prints as itself on one line, else an escape for it."""
    if ch in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[ch]
    # C*: control, format (bidi overrides, zero-width), surrogates, private, unassigned;
    # Zl, Zp: the line and paragraph separators, which some terminals break lines on.
    category = unicodedata.category(ch)
    if category[0] != "C" and category not in ("Zl", "Zp"):
        return ch
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(value: object, max_chars: int = SHOWN_MAX_CHARS) -> str:
    """``value`` as one line of printable text, for a message.

    A string is shown as it is, except that control and format characters are
    escaped (``\\n``, ``\\x1b``, ``\\u202e``), and text that is then longer than
    ``max_chars`` keeps its head and tail around ``...``, with its full length in
    brackets, ``max_chars`` characters in all. Anything else is shown by its
    ``repr``, under the same rules. Never raises; ``shown(shown(x)) == shown(x)``.

    Examples: ``shown("gold-1\\n")`` is ``gold-1\\n`` (a backslash and an ``n``);
    ``shown("r" + "9" * 5000 + "c3")`` is 120 characters long.
    """
    if isinstance(value, str):
        text = value
    else:
        try:
            text = repr(value)
        except ValueError:  # an int beyond Python's digit limit for str()
            text = f"<{type(value).__name__} too large to show>"
    length = len(text)
    if length > 2 * max_chars:  # escape only what can be shown: a name may be megabytes
        text = text[:max_chars] + text[-max_chars:]
    text = "".join(_escaped(ch) for ch in text)
    if len(text) <= max_chars:
        return text
    # Head ... tail (n characters), max_chars long in all: shown(shown(x)) == shown(x).
    suffix = f" ({length} characters)"
    keep = max(max_chars - len(suffix) - 3, 2)
    tail = keep // 3
    return f"{text[: keep - tail]}...{text[-tail:]}{suffix}"
