"""The one error type for bad input anywhere in the project, and the check that
refuses a name a file gives when it cannot be shown as it is.

The ``piggy`` command turns a :class:`InputError` into a one-line message and
exit code 2; anything else is an internal failure.
"""

from models.text import shown

#: The package's name, for an installed copy's install commands.
PACKAGE = "go-piggy-go-sandbox"

#: Longest message an InputError keeps; a longer one keeps its head and tail.
MAX_MESSAGE_CHARS = 2000


class InputError(ValueError):
    """Bad input from a user: a malformed file, an unknown name, a value out of range.

    The message is one line that names the problem and what is allowed. Echo user
    input in it through :func:`models.text.shown`; as a safety net for a raise that
    forgets to, the message itself is passed through ``shown`` too (control
    characters escaped, at most :data:`MAX_MESSAGE_CHARS` characters), so that
    ``str(error)`` is always one printable line.
    """

    def __init__(self, message: str):
        super().__init__(shown(str(message), MAX_MESSAGE_CHARS))


def install_hint(extra: str) -> str:
    """How to install an optional extra, the one wording every message and help
    uses: from a checkout, and for an installed copy by the package's name."""
    return (
        f"pip install -e '.[{extra}]' in a checkout "
        f"(an installed copy: pip install '{PACKAGE}[{extra}]')"
    )


def check_label(value: object, what: str, max_chars: int, *, empty_ok: bool = False) -> str:
    """Return ``value`` if it is a string fit to print as it is: at most ``max_chars``
    characters, none of them a control or format character (what :func:`shown`
    would escape; a newline included), and not empty unless ``empty_ok``. Else an
    :class:`InputError` naming ``what`` (e.g. ``board x.toml: 'name'``).

    For names and descriptions read from files, which end up in titles, pictures
    and one-line messages.
    """
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {shown(value)}")
    if not value and not empty_ok:
        raise InputError(f"{what} must not be empty")
    if len(value) > max_chars:
        raise InputError(f"{what} is {len(value)} characters long: at most {max_chars}")
    bad = next((ch for ch in value if shown(ch) != ch), None)
    if bad is not None:
        raise InputError(
            f"{what} {shown(value)} holds the control character "
            f"{shown(bad)}: use printable characters only"
        )
    return value
