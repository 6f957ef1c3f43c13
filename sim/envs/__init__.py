"""Gymnasium environments on the sandbox (docs/gym.md): ``piggy/Aim-v0``.

Importing this package registers them, and ``gymnasium.make`` imports it itself
when the id names it: ``gymnasium.make("sim.envs:piggy/Aim-v0")``. (Gymnasium 1.x
no longer loads the ``gymnasium.envs`` entry points of installed packages, so
there is no way to make the bare ``piggy/Aim-v0`` without this import.)
"""

from models.errors import install_hint

try:
    import gymnasium
except ImportError:
    raise ImportError(f"the Gymnasium environments need gymnasium: {install_hint('gym')}") from None

AIM_ID = "piggy/Aim-v0"

if AIM_ID not in gymnasium.registry:  # importing twice registers once
    gymnasium.register(id=AIM_ID, entry_point="sim.envs.aim:AimEnv")
