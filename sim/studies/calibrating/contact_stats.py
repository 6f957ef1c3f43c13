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
mean slide (c·|P - F|), the share of them seen to hop, and the mean hop of those
whose second touch was seen. A camera misses bounces: a hop that lifts the bale
too little for its image path to leave a flight, or one seen along the line of
sight, is not told from a slide. So the share seen to hop is the camera's share
of the hops times the sandbox's: one share for the whole film, the same for every
group (one camera, one view), unknown and profiled out (the value in [0, 1] that
fits best: more hops on film than in the sandbox still speak against a candidate).
A camera that sees a share of every group's hops is thus told from one that sees
a steep shot's hops and none of a low shot's. Where no bounce can be seen at all,
the landing is left out of the measurement and the sandbox alike: hops shorter than
:data:`MIN_HOP_MM` (which the camera cannot tell from a slide) and landings in the
*blind spots* the caller names (``piggy measure`` gives none by a marker's paper,
sim/real_toy/markers.py). Left in, a steep shot's hops, which on the stock board
land by the side markers, read as a camera that sees few hops, and a bale that
hops less. The hops seen are taken as a fair sample of those left. A rest is seen
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
camera's misses do not depend on the hop's length beyond :data:`MIN_HOP_MM` nor
on its group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
#: The term the camera's share of hops seen scales: a camera misses bounces, never
#: makes one up.
HOP_SEEN = 2
#: A box on the board where no bounce's landing is seen: (x_min, x_max, y_min,
#: y_max), mm.
Box = tuple[float, float, float, float]
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


def shown(first_mm, second_mm, rest_mm, blind_spots: Sequence[Box] = ()) -> np.ndarray:
    """Each shot's z (n, 4) from its first touch, second touch and rest (n, 2 or 3),
    NaN where a point was not seen; a second touch under :data:`MIN_HOP_MM` from the
    first, or in one of the ``blind_spots``, counts as not seen."""
    first = np.asarray(first_mm, float)[:, :2]
    out = np.zeros((len(first), 4))
    for column, point in ((0, second_mm), (2, rest_mm)):
        point = np.asarray(point, float)[:, :2]
        seen = np.all(np.isfinite(point), axis=1)
        length = np.linalg.norm(np.where(seen[:, None], point - first, 0.0), axis=1)
        if column == 0:
            seen &= (length >= MIN_HOP_MM) & ~in_boxes(point, blind_spots)
            length = np.where(seen, length, 0.0)
        out[:, column] = seen
        out[:, column + 1] = length / LENGTH_UNIT_MM
    return out


def in_boxes(points_mm: np.ndarray, boxes: Sequence[Box]) -> np.ndarray:
    """Whether each point (n, 2) lies in any of the boxes (NaN points: in none)."""
    x, y = points_mm[:, 0, None], points_mm[:, 1, None]
    if not len(boxes):
        return np.zeros(len(points_mm), bool)
    x0, x1, y0, y1 = np.asarray(boxes, float).T
    return np.any((x0 <= x) & (x <= x1) & (y0 <= y) & (y <= y1), axis=1)


def shown_by_shots(
    shots: Sequence[ShotResult], board: Board, blind_spots: Sequence[Box] = ()
) -> np.ndarray:
    """:func:`shown` of sandbox shots; a shot whose first strike was not the board
    shows neither a second touch nor a rest (as a video of it would not count one)."""
    nan = [math.nan] * 3
    first, second, rest = [], [], []
    for shot in shots:
        on_board = shot.first_contact_with == "board" and shot.first_contact_mm is not None
        first.append(shot.first_contact_mm if on_board else [0.0, 0.0, 0.0])
        second.append((second_touch_mm(shot) or nan) if on_board else nan)
        rest.append((rest_on_board_mm(shot, board) or nan) if on_board else nan)
    return shown(first, second, rest, blind_spots)


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


#: The camera's shares of hops seen that the likelihood is profiled over.
CAMERA_SHARES = np.linspace(0.0, 1.0, 201)


@dataclass(frozen=True)
class GroupTerms:
    """One group's terms (:func:`summary`) observed and as the sandbox shows them, the
    covariance of their difference apart from the share seen to hop (whose variance
    depends on the camera's share: :func:`share_misfit`), and what that variance
    needs: the measured shots, the sandbox's firings of each, and the least per-shot
    variance of a share (:func:`variance_floor`)."""

    observed: np.ndarray
    mean: np.ndarray
    covariance: np.ndarray
    shots: int
    repeats: int
    share_floor: float


def others(terms: int) -> list[int]:
    """The indices of a group's terms other than the share seen to hop."""
    return [k for k in range(terms) if k != HOP_SEEN]


def group_terms(measured: np.ndarray, simulated: np.ndarray, repeats: int) -> GroupTerms:
    """One group's terms (:func:`summary`: 3, or 4 where the measured shots show a
    hop) observed and the sandbox's, and the covariance of their difference: the
    sandbox's per-shot covariance of the rest's terms over the n measured shots (its
    hops' variance over the m hops seen), plus its own error over its ``repeats`` x n
    shots (its own hops), with :func:`variance_floor` and :data:`HOP_SD_FLOOR`."""
    n, seen = len(measured), len(hops(measured))
    rests = simulated[:, [2, 3]]
    covariance = np.cov(rests, rowvar=False) if len(rests) > 1 else np.zeros((2, 2))
    floor = variance_floor(len(rests))
    covariance = (covariance + np.diag(floor)) * (1 + 1 / repeats) / n
    observed, mean = summary(measured, seen or 0), summary(simulated, None if seen else 0)
    if seen:
        fired = hops(simulated)
        spread = max(float(np.var(fired, ddof=1)) if len(fired) > 1 else 0.0, HOP_SD_FLOOR**2)
        hop_variance = spread * (1 / seen + 1 / max(len(fired), 1))
        block = np.zeros((3, 3))
        block[:2, :2], block[2, 2] = covariance, hop_variance
        covariance = block
    return GroupTerms(observed, mean, covariance, n, repeats, float(floor[0]))


def share_misfit(
    observed: np.ndarray, sandbox: np.ndarray, shots: np.ndarray, repeats: int, floor: np.ndarray
) -> tuple[float, float]:
    """The share-seen-to-hop terms' part of the misfit (half their squared residuals
    over their variances, plus half their log variances) at the camera's share that
    fits best, and that share, over the groups' observed shares, the sandbox's, their
    measured shots and their least per-shot variances (arrays over the groups). A
    camera seeing a share p of the hops sees each shot hop with the chance p·s, s the
    sandbox's: the variance of the share seen is p·s(1 - p·s) a shot over the n
    measured shots plus the sandbox's own error, p²·s(1 - s) over its firings."""
    p = CAMERA_SHARES[:, None]
    seen = p * sandbox
    per_shot = seen * (1 - seen) + p**2 * sandbox * (1 - sandbox) / repeats
    variance = np.maximum(per_shot, floor * (1 + 1 / repeats)) / shots
    total = 0.5 * ((observed - seen) ** 2 / variance + np.log(variance)).sum(axis=1)
    best = int(np.argmin(total))
    return float(total[best]), float(CAMERA_SHARES[best])


def misfit(
    observed: Sequence[np.ndarray],
    means: Sequence[np.ndarray],
    inverses: Sequence[np.ndarray],
    terms: Sequence[GroupTerms],
) -> tuple[float, float]:
    """The groups' misfit: half the weighted squared residuals of the terms other than
    the share seen to hop (``inverses``: their inverse covariances), plus
    :func:`share_misfit` at the camera's share that fits best; and that share. The
    observed terms and the sandbox's means are given apart from ``terms`` (the
    emulator's, and the replicates', stand in for them)."""
    total = 0.0
    for z, mean, inverse in zip(observed, means, inverses, strict=True):
        r = (z - mean)[others(len(z))]
        total += 0.5 * float(r @ inverse @ r)
    shares, share = share_misfit(
        np.array([z[HOP_SEEN] for z in observed]),
        np.clip([mean[HOP_SEEN] for mean in means], 0.0, 1.0),
        np.array([t.shots for t in terms]),
        terms[0].repeats,
        np.array([t.share_floor for t in terms]),
    )
    return total + shares, share


def log_likelihood(terms: Sequence[GroupTerms]) -> float:
    """The synthetic log likelihood: the sum over groups of the normal log density of
    the observed group mean, the camera's share of hops seen profiled out, constants
    left out."""
    inverses = [np.linalg.inv(t.covariance) for t in terms]
    total = -misfit([t.observed for t in terms], [t.mean for t in terms], inverses, terms)[0]
    for t in terms:
        sign, log_det = np.linalg.slogdet(t.covariance)
        total -= 0.5 * (log_det if sign > 0 else 0.0)
    return total


def camera_share(terms: Sequence[GroupTerms]) -> float:
    """The camera's share of hops seen that fits the groups best (:func:`misfit`)."""
    inverses = [np.linalg.inv(t.covariance) for t in terms]
    return misfit([t.observed for t in terms], [t.mean for t in terms], inverses, terms)[1]
