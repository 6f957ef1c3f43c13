"""PyBullet, imported quietly.

PyBullet's C module prints its build time to standard error when it is
imported, which clutters every command's output and its one-line errors; it is
muted at the file descriptor level for the import.
"""

import os
import sys


def _import_quietly():
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        import pybullet
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
    return pybullet


pb = _import_quietly()
