"""The Bullet engine (the default): an adapter of the engine-neutral core
(:mod:`sim.physics.engine`). Nothing here imports MuJoCo. This module holds
PyBullet, imported quietly, and the unit of length inside it.

PyBullet's C module prints its build time to standard error when it is
imported, which clutters every command's output and its one-line errors; it is
muted at the file descriptor level for the import.
"""

import os
import sys

#: Lengths inside PyBullet are centimetres (see sim.physics.bullet.scene for why): cm per mm.
CM_PER_MM = 0.1


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
