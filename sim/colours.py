"""The toy's colours, shared by PyBullet's window (sim.physics) and every picture
(sim.views): RGBA, each channel 0-1."""

#: Each seat's piggies, by the colour in their name (``gold-2``).
PIGGY_RGBA = {
    "green": (0.23, 0.62, 0.23, 1),
    "gold": (0.88, 0.69, 0.0, 1),
    "pink": (1.0, 0.5, 0.69, 1),
    "blue": (0.19, 0.44, 0.88, 1),
}
BALE_RGBA = (0.93, 0.8, 0.3, 1)
FENCE_RGBA = (0.48, 0.29, 0.12, 1)
TRACTOR_RGBA = (0.35, 0.35, 0.4, 1)
