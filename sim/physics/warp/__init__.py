"""The GPU engine: MuJoCo Warp's batched worlds (the `mujoco-warp` extra)."""
