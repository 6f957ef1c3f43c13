"""The one error type for bad input anywhere in the project.

The ``piggy`` command turns a :class:`InputError` into a one-line message and
exit code 2; anything else is an internal failure.
"""


class InputError(ValueError):
    """Bad input from a user: a malformed file, an unknown name, a value out of range.

    The message is one line that names the problem and what is allowed.
    """
