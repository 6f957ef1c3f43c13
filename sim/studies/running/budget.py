"""A time budget kept by a study that fires in looks over the whole board
(``design compare --budget``: sim/studies/comparing/mean_run.py; ``hitmap --budget``:
sim/studies/maps/map_looks.py).

- **The clock.** One :class:`Budget` is kept over a command, counted from the
  command's start (its imports and its workers' start count against it: what the
  user waits for). Runs after one another (a comparison in each engine) each get
  their :meth:`Budget.share` of what is left.
- **Looks that fit.** A look is fired only if its shots, at the throughput the
  last look was fired at, end within what is left: the looks are fixed, the budget
  only chooses how many are taken.
- **The first look.** Before any throughput is measured, a tenth of the look's
  spaces are fired and timed (:func:`probe`, :func:`timed_start`), each wave one
  space a worker, and a look that cannot fit even so is refused in words before the
  rest is fired (:func:`one_look_fits`); a budget spent before the first shot is
  refused before the workers start (:func:`not_spent`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from models.errors import InputError

#: The share of a look's spaces fired to time it, where no rate is measured yet.
PROBE_SHARE = 0.1


@dataclass(frozen=True)
class Budget:
    """Seconds given to a run (None: no budget), the clock, and when the run began.
    One budget is kept over a whole command: runs after one another (a comparison in
    each engine) each get their :meth:`share` of what is left. ``given`` and
    ``shared``: the seconds the user gave and the runs this one shares them with,
    for the words of a refusal."""

    seconds: float | None
    clock: Callable[[], float] = time.monotonic
    began: float = 0.0
    given: float | None = None
    shared: int = 1

    def left(self) -> float:
        """Seconds left (inf without a budget)."""
        if self.seconds is None:
            return math.inf
        return self.seconds - (self.clock() - self.began)

    def fits(self, shots: int, rate: float | None) -> bool:
        """Whether ``shots`` more, at ``rate`` shots a second (None: not measured
        yet), end within the budget."""
        if self.seconds is None or rate is None:
            return True
        return shots / rate <= self.left()

    def share(self, runs: int) -> Budget:
        """The budget of the next of ``runs`` runs still to go, from now: an even share
        of what is left, so that the runs after it keep theirs (none below 0)."""
        if self.seconds is None:
            return self
        return Budget(
            max(0.0, self.left()) / runs,
            self.clock,
            self.clock(),
            self.given if self.given is not None else self.seconds,
            runs,
        )

    def spent_before(self) -> float:
        """Seconds of the user's budget spent before this run began (other engines')."""
        assert self.seconds is not None
        given = self.given if self.given is not None else self.seconds
        return given - self.seconds * self.shared


def not_spent(budget: Budget, todo: list[str]) -> None:
    """Refuse a budget spent before the first shot (a command slow to start on a busy
    machine), before the workers start."""
    if not todo or budget.seconds is None or budget.left() > 0:
        return
    given = budget.given if budget.given is not None else budget.seconds
    gone = budget.spent_before() + budget.clock() - budget.began
    share = f"; this engine's share of one budget over {budget.shared}" if budget.shared > 1 else ""
    raise InputError(
        f"--budget {given:g} was spent before the first shot ({gone:.0f} s gone since the "
        f"command began, on a busy machine{share}): give a larger --budget"
    )


def probe(todo: list[str], size: int) -> list[list[str]]:
    """The spaces a look is timed by, in waves of one a worker (``size`` workers):
    about :data:`PROBE_SHARE` of ``todo``, evenly spread over it, and each wave
    spread too (near and far shots differ in cost)."""
    waves = max(1, math.ceil(len(todo) * PROBE_SHARE / size))
    count = min(len(todo), size * waves)
    spread = [todo[i * len(todo) // count] for i in range(count)]
    return [spread[w::waves] for w in range(waves) if spread[w::waves]]


@dataclass(frozen=True)
class Look:
    """A look about to be fired under a budget: its spaces (``todo``), its shots in
    all, which look it is in words ("the first look"), how the shots of some of its
    spaces are counted (``shots_at``), and what the refusal says of the shots fired
    (``kept``: how the user goes on from them)."""

    todo: list[str]
    shots: int
    name: str
    shots_at: Callable[[list[str]], int]
    kept: str = "the same command goes on from them"


def timed_start(
    fire_timed: Callable[[list[str], int], list[float]], size: int, budget: Budget, look: Look
) -> list[str]:
    """Fire a look's :func:`probe` waves, timed (``fire_timed(wave, after)``: each
    space's seconds, ``after`` spaces of the look still to fire), the look's time
    told after each (:func:`one_look_fits`): the spaces left to fire once it fits."""
    seconds: list[float] = []
    fired: list[str] = []
    for wave in probe(look.todo, size):
        rest = [name for name in look.todo if name not in wave and name not in fired]
        seconds += fire_timed(wave, len(rest))
        fired += wave
        one_look_fits(budget, look, rest, (sum(seconds) / size, len(fired)))
    return [name for name in look.todo if name not in fired]


def one_look_fits(budget: Budget, look: Look, rest: list[str], fired: tuple[float, int]) -> None:
    """Refuse, in words, a budget that cannot hold even one ``look`` at the rate its
    :func:`probe` spaces were fired at (``rest``: its spaces still to fire;
    ``fired``: the probe's seconds a worker and its spaces so far): before the rest
    is fired, the spaces fired kept."""
    shots, still = look.shots, look.shots_at(rest)
    took, probed = fired
    if not still or shots == still or budget.fits(still, (shots - still) / max(took, 1e-3)):
        return
    need = took * shots / (shots - still)  # the whole look at the rate measured
    assert budget.seconds is not None  # only a budget given has its first look timed
    # what would hold it: the time gone since the command began (its start-up, the
    # probe) and the rest of the look, for each run that shares the budget
    hold = budget.spent_before() + (budget.clock() - budget.began + need - took) * budget.shared
    given = budget.given if budget.given is not None else budget.seconds
    timed = f"{probed} of its spaces were" if probed > 1 else "its first space was"
    share = f" (this engine's share of one budget over {budget.shared})"
    raise InputError(
        f"--budget {given:g} cannot hold even {look.name} here: its {shots:,} shots, at the "
        f"{rate_words(shots - still, took)} shots a second {timed} fired at just now, take "
        f"about {math.ceil(need)} s, and {max(0, budget.left()):.0f} s are left for it"
        f"{share if budget.shared > 1 else ''}; give --budget "
        f"{math.ceil(hold)} or more at this load (the "
        f"shots fired are kept: {look.kept})"
    )


def rate_words(shots: int, seconds: float) -> str:
    """Shots a second in words: whole above 10, else two figures."""
    rate = shots / max(seconds, 1e-3)
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
