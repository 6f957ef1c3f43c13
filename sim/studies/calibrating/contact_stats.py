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
|P - F| shrinks with the friction; whether a bale hops again or stays on the board
at all depends on both.

Why distributions, not shot by shot. From the first touch on a tumbling box is
chaotic: the same launch to a tenth of a degree hops 10-20 mm farther or shorter.
So the shots of each set pitch (a *group*) are summarised by the mean of their z,
and the likelihood is a synthetic one (Wood 2010, Nature 466): the group mean is
normal, by the central limit theorem, with the mean and the covariance that the
sandbox's own shots at those settings show, the covariance divided by the group's
shot count. The assumption written down: 8 shots of a group are enough for their
mean to be near normal (the hops' spread is near normal; the 0/1 terms of a group
whose bales almost always hop or almost never are the least so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from models.board import Board
from sim.physics.results import ShotResult

#: The lengths of z in this unit, mm: every term of order one.
LENGTH_UNIT_MM = 100.0
#: z's terms, for messages.
TERMS = ("second touch seen", "hop", "rest seen", "slide")


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
    NaN where a point was not seen."""
    first = np.asarray(first_mm, float)[:, :2]
    out = np.zeros((len(first), 4))
    for column, point in ((0, second_mm), (2, rest_mm)):
        point = np.asarray(point, float)[:, :2]
        seen = np.all(np.isfinite(point), axis=1)
        out[:, column] = seen
        length = np.linalg.norm(np.where(seen[:, None], point - first, 0.0), axis=1)
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
    """The least per-shot variance of each term of z, given ``simulated`` sandbox shots
    of a group: a 0/1 term that every one of them showed alike could still be
    q = 1/(2(N + 1)) the other way (the Jeffreys prior's answer), a length term
    likewise, times a typical length of one unit. It keeps a group whose sandbox
    shots all hop from declaring a measured shot that did not impossible."""
    q = 0.5 / (simulated + 1)
    return np.full(4, q * (1 - q))


def group_terms(
    measured: np.ndarray, simulated: np.ndarray, repeats: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One group's observed mean z (4,), the sandbox's mean (4,) and the covariance of
    their difference (4, 4): the sandbox's per-shot covariance over n measured shots,
    plus its own error over ``repeats`` x n shots, with :func:`variance_floor`."""
    n = len(measured)
    covariance = np.cov(simulated, rowvar=False) if len(simulated) > 1 else np.zeros((4, 4))
    covariance = covariance + np.diag(variance_floor(len(simulated)))
    return measured.mean(axis=0), simulated.mean(axis=0), covariance * (1 + 1 / repeats) / n


def log_likelihood(
    observed: Sequence[np.ndarray], means: Sequence[np.ndarray], covariances: Sequence[np.ndarray]
) -> float:
    """The synthetic log likelihood: the sum over groups of the normal log density of
    the observed group mean, constants left out."""
    total = 0.0
    for z, mean, cov in zip(observed, means, covariances, strict=True):
        r = z - mean
        sign, log_det = np.linalg.slogdet(cov)
        total -= 0.5 * (float(r @ np.linalg.solve(cov, r)) + (log_det if sign > 0 else 0.0))
    return total
