"""What a shot shows of the bale's contact with the board, and the synthetic
likelihood that sets measured shots against shots fired in the sandbox
(sim/studies/calibrating/contact_fit.py fits the contact physics with it).

What a shot shows. Past its first touch of the board a bale may hop and come down
on the board a second time (the *second touch*), and may come to rest on the board
(the *rest*); a video sees each or not. From the first touch F, the second touch S
and the rest point P (mm, board frame), each shot gives the vector

    z = (b, b·|S - F|, c, c·|P - F|)        (the lengths in units of 100 mm)

with b = 1 where the second touch was seen (else 0, and its length term 0) and c
likewise for the rest. The hop |S - F| grows with the restitution and shrinks with
the friction (which takes speed along the board during the bounce); the slide
|P - F| shrinks with the friction and grows with the restitution; whether a bale
stays on the board at all depends on both.

What a group of shots shows. The shots of one set pitch and yaw (either side
alike: a *group*) are summarised by the share of them at rest on the board, their
mean slide (c·|P - F|), and the mean hop of those whose second touch was seen. A
camera misses bounces: from the side most low hops bend the image path by a pixel,
and a hop over a marker is not trusted (sim/real_toy/rest.py), so a missed bounce
cannot be told from none. The share of shots seen to hop is a fourth term,
compared one way only: more hops on film than in the sandbox speak against the
candidate, fewer do not (the camera's share of bounces seen is unknown, and
profiled out: at most all). The hops seen are taken as a fair sample of the hops
of at least :data:`MIN_HOP_MM` (those shorter, which the camera cannot tell from a
slide, are left out of the measurement and the sandbox alike). A rest is seen
wherever the shot's first touch was (``piggy measure`` found 16 of 16 from either
side, 32 of 32 from the side of a bouncier bale), so its share is compared.

Why distributions, not shot by shot. From the first touch on a tumbling box is
chaotic: the same launch to a tenth of a degree hops 10-20 mm farther or shorter.
So the likelihood is a synthetic one (Wood 2010, Nature 466): a group's terms are
normal, by the central limit theorem, with the mean and the covariance that the
sandbox's own shots at those settings show, divided by the group's shot count (by
its seen hops' count for the mean hop). The assumptions written down: 8 shots of
a group are enough for their means to be near normal (the 0/1 terms of a group
whose bales almost always rest or almost never are the least so); the mean hop is
independent of the rest terms (its covariance with them is left out); and the
camera's misses do not depend on the hop's length beyond :data:`MIN_HOP_MM`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from models.board import Board
from sim.physics.results import ShotResult

#: The lengths of z in this unit, mm: every term of order one.
LENGTH_UNIT_MM = 100.0
#: Hops shorter than this are left out (b = 0), measured and fired alike: a bale
#: lifted a millimetre or two as it slides on, which no camera tells from a slide.
MIN_HOP_MM = 40.0
#: A group's terms (:func:`summary`), for messages.
TERMS = ("rest seen", "slide", "hop seen", "mean hop")
#: The term compared one way only: a camera misses bounces, never makes one up.
HOP_SEEN = 2
#: The least sd of one hop, in LENGTH_UNIT_MM (5 mm: the sandbox's hops of a group
#: spread 5-17 mm), taken where it shows fewer than two hops too.
HOP_SD_FLOOR = 0.05


def second_touch_mm(shot: ShotResult) -> list[float] | None:
    """Where the bale touched the board the second time, its first two strikes both
    the board's (a bounce), else None (it slid on, or struck something else)."""
    if shot.contacts[:2] == ["board", "board"]:
        return shot.contact_points_mm[1]
    return None


def rest_on_board_mm(shot: ShotResult, board: Board) -> list[float] | None:
    """Where the bale came to rest, where that is on the board's top (not beside it
    on the table, nor where it left play), else None."""
    x, y, z = shot.rest_mm
    x0, x1, y0, y1 = board.surface_extent_mm
    on_top = x0 <= x <= x1 and y0 <= y <= y1 and z > 0.0
    return list(shot.rest_mm) if on_top and shot.settled else None


def shown(first_mm, second_mm, rest_mm) -> np.ndarray:
    """Each shot's z (n, 4) from its first touch, second touch and rest (n, 2 or 3),
    NaN where a point was not seen; a second touch under :data:`MIN_HOP_MM` from the
    first counts as not seen."""
    first = np.asarray(first_mm, float)[:, :2]
    out = np.zeros((len(first), 4))
    for column, point in ((0, second_mm), (2, rest_mm)):
        point = np.asarray(point, float)[:, :2]
        seen = np.all(np.isfinite(point), axis=1)
        length = np.linalg.norm(np.where(seen[:, None], point - first, 0.0), axis=1)
        if column == 0:
            seen &= length >= MIN_HOP_MM
            length = np.where(seen, length, 0.0)
        out[:, column] = seen
        out[:, column + 1] = length / LENGTH_UNIT_MM
    return out


def shown_by_shots(shots: Sequence[ShotResult], board: Board) -> np.ndarray:
    """:func:`shown` of sandbox shots; a shot whose first strike was not the board
    shows neither a second touch nor a rest (as a video of it would not count one)."""
    nan = [math.nan] * 3
    first, second, rest = [], [], []
    for shot in shots:
        on_board = shot.first_contact_with == "board" and shot.first_contact_mm is not None
        first.append(shot.first_contact_mm if on_board else [0.0, 0.0, 0.0])
        second.append((second_touch_mm(shot) or nan) if on_board else nan)
        rest.append((rest_on_board_mm(shot, board) or nan) if on_board else nan)
    return shown(first, second, rest)


def variance_floor(simulated: int) -> np.ndarray:
    """The least per-shot variance of the rest's two terms, given ``simulated`` sandbox
    shots of a group: a 0/1 term that every one of them showed alike could still be
    q = 1/(2(N + 1)) the other way (the Jeffreys prior's answer), a length term
    likewise, times a typical length of one unit. It keeps a group whose sandbox
    shots all rest from declaring a measured shot that did not impossible."""
    q = 0.5 / (simulated + 1)
    return np.full(2, q * (1 - q))


def hops(z: np.ndarray, kept: int | None = None) -> np.ndarray:
    """The hops seen among shots z (n, 4), in order: the first ``kept`` of them."""
    return z[z[:, 0] > 0, 1][:kept]


def summary(z: np.ndarray, kept_hops: int | None = None) -> np.ndarray:
    """A group's terms (:data:`TERMS`) from its shots' z (n, 4): the share at rest, the
    mean slide, the share seen to hop and, where ``kept_hops`` is not 0, the mean of
    the hops seen (the first ``kept_hops``; 0 where none hopped: the limit of ever
    shorter hops)."""
    shares = np.append(z[:, 2:].mean(axis=0), z[:, 0].mean())
    if kept_hops == 0:
        return shares
    seen = hops(z, kept_hops)
    return np.append(shares, seen.mean() if len(seen) else 0.0)


def residual(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The group's terms observed less expected, the share seen to hop counted only
    where more hopped on film than in the sandbox (fewer: bounces the camera missed,
    as likely as not; the profile over the camera's unknown share of bounces seen)."""
    r = observed - expected
    r[HOP_SEEN] = max(r[HOP_SEEN], 0.0)
    return r


def group_terms(
    measured: np.ndarray, simulated: np.ndarray, repeats: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One group's observed terms (:func:`summary`: 3, or 4 where the measured shots
    show a hop), the sandbox's and the covariance of their difference: the sandbox's
    per-shot covariance over the n measured shots (its hops' variance over the m hops
    seen), plus its own error over its ``repeats`` x n shots (its own hops), with
    :func:`variance_floor` and :data:`HOP_SD_FLOOR`."""
    n, seen = len(measured), len(hops(measured))
    shares = simulated[:, [2, 3, 0]]
    covariance = np.cov(shares, rowvar=False) if len(shares) > 1 else np.zeros((3, 3))
    covariance[:2, 2] = covariance[2, :2] = 0.0  # the hops apart from the rests
    floor = np.append(variance_floor(len(shares)), variance_floor(len(shares))[0])
    covariance = (covariance + np.diag(floor)) * (1 + 1 / repeats) / n
    observed, mean = summary(measured, seen or 0), summary(simulated, None if seen else 0)
    if not seen:
        return observed, mean, covariance
    fired = hops(simulated)
    spread = max(float(np.var(fired, ddof=1)) if len(fired) > 1 else 0.0, HOP_SD_FLOOR**2)
    hop_variance = spread * (1 / seen + 1 / max(len(fired), 1))
    block = np.zeros((4, 4))
    block[:3, :3], block[3, 3] = covariance, hop_variance
    return observed, mean, block


def log_likelihood(
    observed: Sequence[np.ndarray], means: Sequence[np.ndarray], covariances: Sequence[np.ndarray]
) -> float:
    """The synthetic log likelihood: the sum over groups of the normal log density of
    the observed group mean, constants left out."""
    total = 0.0
    for z, mean, cov in zip(observed, means, covariances, strict=True):
        r = residual(z, mean)
        sign, log_det = np.linalg.slogdet(cov)
        total -= 0.5 * (float(r @ np.linalg.solve(cov, r)) + (log_det if sign > 0 else 0.0))
    return total
