"""The MuJoCo engine, an optional extra (``pip install -e '.[mujoco]'``): an adapter
of the engine-neutral core (:mod:`sim.physics.engine`). Nothing here imports
PyBullet."""
