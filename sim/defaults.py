"""The defaults and bounds that a command's ``--help`` states, kept apart from the
studies and pictures that use them so that the command line can build its parser
(and answer ``--help`` or a mistyped option) without importing numpy, PyBullet or
matplotlib."""

from __future__ import annotations

#: Most shots per space: a space's shots are held in memory while it is measured and
#: written whole to its part file (20,000 shots give P within about ±0.007).
MAX_SHOTS = 20_000

#: Cap on shots per space when ``--precision`` is given without ``--shots`` (the
#: command line's and the sandbox server's).
PRECISION_CAP = 1000
#: How a space's shots are drawn unless ``--sampler`` says otherwise (sim/studies/shots/rqmc.py).
SAMPLER = "rqmc"
#: The samplers: randomised quasi-Monte Carlo (the default) and plain Monte Carlo.
SAMPLERS = ("rqmc", "mc")
#: The arcs a sweep aims with (``best``: the low one where it exists).
SWEEP_ARCS = ("low", "high", "best")

#: The seats of a design game by default: two bots that fire when the hit table says
#: it pays, two that assume every shot hits half the time (both use the tractor).
DEFAULT_SEATS = ("expected-gain", "expected-gain", "greedy", "greedy")

#: The cameras of a shot's videos (sim/views/framing.py frames each).
CAMERAS = ("overview", "chase", "top", "side")

#: ``design optimise``'s objectives: name -> ("maximize" or "minimize", what it is).
OBJECTIVES = {
    "mean-p": ("maximize", "mean P(target knocked out) over the spaces"),
    "far-rows": ("maximize", "mean P over the rows farthest from the tractor"),
    "flat": ("minimize", "spread (sd) of P across rows"),
    "energy": ("minimize", "the bale's kinetic energy at the muzzle, J"),
}

#: ``design optimise``: the precision of every trial's hit map when neither --shots nor
#: --precision is given, and the trials measured at once on a cluster unless
#: --in-flight says otherwise.
SEARCH_PRECISION = 0.1
IN_FLIGHT_ON_CLUSTER = 2

#: The scales the difference map chooses from, the smallest that holds every compared
#: space's difference (``--scale`` overrides): a map of differences of a few points
#: is not all white, and the same difference has the same colour on maps of one scale.
DIFFERENCE_SCALES = (0.05, 0.1, 0.2, 0.5)

#: ``calibrate --check``'s sandbox shots per measured shot: 40 shots x 200 of them fire
#: in about 80 s on two idle cores (docs/real-toy.md, "Checking the sandbox's
#: knock-outs"); and the fewest and most allowed.
CHECK_REFIRES = 200
CHECK_REFIRES_RANGE = (20, 10_000)
