"""Checking values that come from outside: game parameters (``referee.load_game``, a
record's first line, ``--param name=value``) and the fields of saved states.

Every refusal is a one-line :class:`~models.errors.InputError` that names the
parameter or field, the value (:func:`quoted`: as a literal, escaped, shortened)
and what is allowed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

from models.errors import InputError

#: Values are quoted in messages up to this many characters.
QUOTED_CHARS = 40
#: A number written with more digits than this is refused before Python converts it
#: (its own limit, 4300 digits, raises a ValueError, and no parameter needs more).
MAX_DIGITS = 30
#: The largest turn cap any game accepts.
MAX_TURNS_LIMIT = 10**9
_WHOLE_RE = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")


def quoted(value) -> str:
    """``value`` for a one-line message: quoted and escaped (newlines and terminal
    control characters included), long text shortened, huge numbers and large
    containers described instead of printed. A value read from a parameter or a
    state's field is shown as the literal it was (``'abc'``, ``true``, ``null``), so
    that a string is told from a number (:func:`models.text.shown` writes a name or a
    path as it is, unquoted)."""
    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, int):
        if value.bit_length() > 64:
            return f"a number of about {int(value.bit_length() * math.log10(2)) + 1} digits"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if len(value) <= QUOTED_CHARS:
            return repr(value)
        return f"{value[:QUOTED_CHARS]!r}... ({len(value)} characters)"
    if isinstance(value, list | dict | tuple):
        kind = "an object" if isinstance(value, dict) else "a list"
        if len(value) <= 4 and all(
            isinstance(v, int | float | str | bool) or v is None
            for v in (value.values() if isinstance(value, dict) else value)
        ):
            text = (
                "{" + ", ".join(f"{quoted(k)}: {quoted(v)}" for k, v in value.items()) + "}"
                if isinstance(value, dict)
                else "[" + ", ".join(map(quoted, value)) + "]"
            )
            if len(text) <= 2 * QUOTED_CHARS:
                return text
        return f"{kind} of {len(value)} items"
    return f"a {type(value).__name__}"


def printable(text: str, limit: int = 200) -> str:
    """``text`` (a path, a name) for a one-line message: as it is, unless it holds
    characters a terminal would act on (then escaped) or is longer than ``limit``
    (then its middle is left out, keeping the end: a file's name)."""
    if not text.isprintable():
        text = repr(text)[1:-1]
    if len(text) > limit:
        text = f"{text[: limit // 2]}...{text[-limit // 2 :]}"
    return text


def whole_text(text: str) -> int | None:
    """The whole number ``text`` spells in plain digits (at most MAX_DIGITS), else None;
    never raises, whatever the length."""
    return int(text) if _WHOLE_RE.fullmatch(text) else None


def is_whole(value: object) -> TypeGuard[int]:
    """An int that is not a bool (``True`` is not a number here)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --- parameter specifications -----------------------------------------------------------
@dataclass(frozen=True)
class Spec:
    """What a parameter (or a state field) accepts.

    Parameters
    ----------
    allowed : str
        The words an error uses for what is allowed, e.g. "a whole number 1-20".
    accepts : callable
        ``accepts(value) -> bool``.
    """

    allowed: str
    accepts: Callable[[object], bool]

    def check(self, where: str, key: str, value):
        """``value`` if accepted, else a one-line InputError: "<where> '<key>' must be
        <allowed>, got <value>"."""
        if not self.accepts(value):
            raise InputError(f"{where} '{key}' must be {self.allowed}, got {quoted(value)}")
        return value


def whole(lo: int, hi: int) -> Spec:
    return Spec(f"a whole number {lo}-{hi}", lambda v: is_whole(v) and lo <= v <= hi)


def one_of(*choices: str) -> Spec:
    return Spec("one of " + ", ".join(choices), lambda v: isinstance(v, str) and v in choices)


def or_none(spec: Spec, meaning: str) -> Spec:
    return Spec(f"{spec.allowed}, or null ({meaning})", lambda v: v is None or spec.accepts(v))


FLAG = Spec("true or false", lambda v: isinstance(v, bool))
TURN_CAP = whole(1, MAX_TURNS_LIMIT)


def text(max_chars: int) -> Spec:
    """Text of 1 to ``max_chars`` printable characters."""
    return Spec(
        f"text of 1-{max_chars} printable characters",
        lambda v: isinstance(v, str) and 0 < len(v) <= max_chars and v.isprintable(),
    )


def listed(check_item: Callable[[str], bool], example: str) -> Spec:
    """A comma-separated list (or a single number) whose every item passes ``check_item``."""

    def accepts(value) -> bool:
        items = list_items(value)
        return items is not None and len(items) > 0 and all(check_item(item) for item in items)

    return Spec(f"a comma-separated list such as {example}", accepts)


def list_items(value) -> list[str] | None:
    """The items of a comma-separated list parameter (a number counts as a one-item
    list, as ``--param pig_faces=6`` gives one), else None."""
    if is_whole(value):
        value = str(value) if value.bit_length() <= 64 else None
    if not isinstance(value, str):
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def check_params(game: str, specs: dict[str, Spec], params: dict) -> None:
    """Refuse unknown parameters and values their specs do not accept."""
    for key, value in params.items():
        if key not in specs:
            raise InputError(
                f"{game}: unknown parameter {quoted(key)} (allowed: {', '.join(sorted(specs))})"
            )
        specs[key].check(f"{game}: parameter", key, value)


# --- ``--param name=value`` -------------------------------------------------------------
_PARAM_RE = re.compile(r"([a-z_]{1,40})=(.*)", re.DOTALL)


def parse_whole(digits: str) -> int:
    """``json.loads``'s ``parse_int``: numbers of more than MAX_DIGITS digits are refused
    (an InputError) before Python converts them."""
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise InputError(f"a number of {len(digits.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(digits)


def parse_param_value(text: str):
    """The value of ``--param name=value``: JSON (numbers, ``true``/``false``,
    ``null``) where it parses, else the text itself; numbers of more than MAX_DIGITS
    digits are refused before Python converts them."""
    try:
        return json.loads(text, parse_int=parse_whole)
    except json.JSONDecodeError:
        return text
    except RecursionError:
        raise InputError("nested too deeply") from None


def parse_params(items: list[str] | None) -> dict:
    """``--param name=value`` items as game parameters; one-line errors naming the item."""
    params = {}
    for item in items or []:
        m = _PARAM_RE.fullmatch(item)
        if not m:
            raise InputError(f"--param {quoted(item)} must look like name=value")
        key, value = m.groups()
        try:
            params[key] = parse_param_value(value)
        except InputError as exc:
            raise InputError(f"--param {key}={quoted(value)}: {exc}") from None
    return params


# --- saved states -------------------------------------------------------------------------
class Fields:
    """A saved state's fields, each read with its spec; ``require`` states a rule the
    position must satisfy. Errors: "<game> state: ..." on one line."""

    def __init__(self, game: str, data: dict):
        self.where, self.data = f"{game} state", data

    def __call__(self, key: str, spec: Spec):
        return spec.check(f"{self.where}: field", key, self.data[key])

    def item(self, label: str, value, spec: Spec):
        """A value inside a field (``label`` names it, e.g. ``scores.1``)."""
        return spec.check(f"{self.where}:", label, value)

    def require(self, condition: bool, message: str) -> None:
        if not condition:
            raise InputError(f"{self.where}: {message}")


OBJECT = Spec("an object", lambda v: isinstance(v, dict))


def list_of(spec: Spec, lo: int = 0, hi: int = 10**6) -> Spec:
    """A list of ``lo``-``hi`` items, each accepted by ``spec``."""
    return Spec(
        f"a list of {lo}-{hi} items, each {spec.allowed}",
        lambda v: isinstance(v, list) and lo <= len(v) <= hi and all(spec.accepts(x) for x in v),
    )
