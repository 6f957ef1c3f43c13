"""Showing user text in one-line messages: models/text.py and InputError's net."""

import pytest

from models.errors import MAX_MESSAGE_CHARS, InputError, check_label
from models.text import SHOWN_MAX_CHARS, shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gold-1", "gold-1"),
        ("gold-1\n", "gold-1\\n"),
        ("a\r\tb", "a\\r\\tb"),
        ("\x1b[2J\x1b]0;pwned\x07", "\\x1b[2J\\x1b]0;pwned\\x07"),
        ("abc\u202edef", "abc\\u202edef"),  # a bidi override reorders the terminal line
        ("line\u2028break", "line\\u2028break"),
        ("küken 🐷", "küken 🐷"),  # printable non-ASCII stays as it is
    ],
)
def test_control_and_format_characters_are_escaped(text, expected):
    assert shown(text) == expected


def test_long_text_keeps_head_and_tail_and_says_how_long():
    text = "r" + "9" * 200_000 + "c3"
    out = shown(text)
    assert len(out) == SHOWN_MAX_CHARS
    assert out.startswith("r999") and "..." in out
    assert out.endswith("9c3 (200003 characters)")
    assert shown(out) == out  # showing twice changes nothing


def test_anything_is_shown_and_nothing_raises():
    import sys

    assert shown(12) == "12" and shown(None) == "None" and shown(["a\n"]) == "['a\\n']"
    huge = 10 ** (sys.get_int_max_str_digits() + 10)
    assert "too large" in shown(huge)


def test_input_error_is_always_one_printable_line():
    error = InputError("board 'x\ny\x1b[31m': " + "z" * 10_000)
    text = str(error)
    assert "\n" not in text and "\x1b" not in text
    assert len(text) == MAX_MESSAGE_CHARS
    assert str(InputError(text)) == text


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("stock\n", "control character \\\\n"),
        ("a\x1b[1mb", "control character \\\\x1b"),
        ("", "must not be empty"),
        ("x" * 65, "65 characters long: at most 64"),
        (7, "must be a string, got 7"),
    ],
)
def test_labels_from_files_must_print_as_they_are(value, message):
    with pytest.raises(InputError, match=message):
        check_label(value, "'name'", 64)
    assert check_label("Fast spring (v2)", "'name'", 64) == "Fast spring (v2)"
