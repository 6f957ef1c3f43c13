"""The one error type for bad input anywhere in the project.

The ``piggy`` command turns a :class:`InputError` into a one-line message and
exit code 2; anything else is an internal failure.
"""

from models.text import shown

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
