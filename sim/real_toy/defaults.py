"""The defaults and bounds of ``piggy film`` and ``piggy markers`` that their
``--help`` states, apart from the modules that use them (those import numpy and
OpenCV; the command line builds its parser without either)."""

from __future__ import annotations

#: The field of view allowed, degrees (open interval).
FOV_RANGE_DEG = (1.0, 170.0)
#: The image sizes allowed, pixels: even sides (the video's H.264 4:2:0 needs them).
WIDTH_RANGE, HEIGHT_RANGE = (32, 7680), (32, 4320)
#: Frames a second allowed (a phone's slow motion is 240, some reach 960).
FPS_RANGE = (1, 2000)

#: How a phone films unless told otherwise (sim/real_toy/film.py, FilmSettings).
FPS = 240
EXPOSURE = 0.5  # the shutter open for this share of the frame period
BLUR_SAMPLES = 8  # renders averaged over the exposure
NOISE = 2.0  # sensor noise, grey levels (of 255), 1 sd
ROLLING_SHUTTER = 0.5  # the rows read top to bottom over this share of the period
#: The rolling shutter's readouts ``piggy measure --readout`` takes and searches, as a
#: share of the frame period (the rows are read within one; negative: bottom to top).
READOUT_RANGE = (-1.0, 1.0)
# H.264's constant rate factor (0 lossless, 51 worst): at 14 a noisy 1080p 240 fps film
# takes about 60 Mbit/s and keeps some of its noise (docs/real-toy.md)
CRF = 14
GAP_S = 0.25  # still frames before, between and after the shots, s
SHOT_S = 1.0  # the most of each shot filmed, from the release, s
GRADIENT = 0.3  # the light's change across the image, left to right
VIGNETTE = 0.3  # the darkening of the image's corners

#: The marker sheet's PNG resolution unless told otherwise, and the range allowed.
DPI = 300
DPI_RANGE = (72, 1200)
