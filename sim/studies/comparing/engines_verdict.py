"""One design comparison measured in several physics engines (``design compare
--engines bullet,mujoco``), and what they agree on: the model's uncertainty as a
verdict.

Each engine gives its own paired verdict (sim/studies/comparing/compare.py) on the same
shots. A verdict is **robust** when every engine gives the same one, sign and
significance: the board mean more, fewer, the same within ±δ or not detectably
different in all; a space flagged more (or fewer) in all, found within ±δ in all,
or undecided in all. A robust sign whose sizes differ (two engines' intervals of
the mean do not overlap) is said so: "same sign, different size". A verdict the
engines disagree on hangs on the contact model, not on the design alone.

What it does not prove: two engines agreeing is not the real toy. They share the
toy's data (shapes, masses, coefficients: sim/physics/bodies.py), so an error there
is in both; what agreement rules out is a verdict made by one engine's way of
solving contacts.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from models.board import Board
from models.design import Design
from sim.studies.comparing import verdict_words
from sim.studies.comparing.board_mean import Budget
from sim.studies.comparing.compare import Comparison
from sim.studies.comparing.comparison_rule import PER_MAP, ComparisonRule, comparison_rule
from sim.studies.shots.records import ComparisonRow

if TYPE_CHECKING:
    from sim.studies.shots.space_shots import SweepSpec

#: The outcomes of a space a robust count is kept of, in the order the verdict says them.
AGREED = ("more", "fewer", "within", "undecided", "not_detected")
#: One engine's board-mean verdict in a word or two (Comparison.on_average).
_AVERAGE_WORDS = {
    "more": "more",
    "fewer": "fewer",
    "within_delta": "the same within ±{delta:g}",
    "not_detectable": "not detectable",
    "undecided": "{undecided}",
    "none": "none in reach of both",
}
#: How many of the spaces the engines disagree on the verdict names.
NAMED = 6


@dataclass(frozen=True)
class EngineRuns:
    """``design compare`` in one engine or several: the settings (the engine left to
    the designs), each engine's run (figures, comparisons, hit-map rows), each
    comparison's verdicts across the engines (none in one engine), what made them."""

    spec: SweepSpec
    runs: list[tuple]
    across: list[AcrossEngines]
    made_by: dict


def compare_in_engines(
    spec: SweepSpec,
    board: Board,
    designs: list[Design],
    names: list[str],
    engines: tuple[str | None, ...],
    workers,
    cache,
    progress=None,
    rule: ComparisonRule | None = None,
    budget: Budget | None = None,
) -> EngineRuns:
    """``design compare`` of ``designs`` (``names`` as given) in each engine of
    ``engines``, the designs fired in it (sim/studies/comparing/design_tools.py's
    ``compare_designs``) by ``rule`` (None: the default, sim/studies/comparing/comparison_rule.py).
    ``progress(done, total)`` counts spaces over every engine. ``budget``: the mean
    rule's time over every engine (None: ``rule.budget_s`` from now), each engine
    given an even share of what is left when it starts."""
    from sim.physics.registry import with_engine
    from sim.studies.comparing import design_tools

    rule = rule or comparison_rule(spec)
    budget = budget or Budget(rule.budget_s, began=time.monotonic())

    # the engine is the designs' own from here (keyed by their content, as any field)
    spec = dataclasses.replace(spec, engine=None)
    runs = [
        design_tools.compare_designs(
            spec,
            board,
            [with_engine(d, engine) for d in designs],
            workers,
            cache,
            progress and partial(_engine_progress, progress, index, len(engines)),
            rule,
            budget.share(len(engines) - index),
        )
        for index, engine in enumerate(engines)
    ]
    named = tuple(e for e in engines if e is not None)  # several are each named (--engines)
    across = (
        [AcrossEngines(named, tuple(run[1][i] for run in runs)) for i in range(len(runs[0][1]))]
        if len(named) > 1
        else []
    )
    made_by = design_tools.comparison_provenance(spec, names, runs[0][2])
    made_by |= (rule if len(designs) > 1 else PER_MAP).provenance()
    if len(engines) > 1:
        made_by["engines"] = list(engines)
    return EngineRuns(spec, runs, across, made_by)


def _engine_progress(progress, index: int, engines: int, done: int, total: int, **told) -> None:
    """Spaces finished over every engine's comparison (and what the rule tells: a
    note, the mean so far; the shots fired)."""
    progress(index * total + done, engines * total, **told)


def space_verdict(comparison: Comparison, row: ComparisonRow) -> str:
    """What one engine's comparison says of a space: "more" or "fewer" (flagged),
    or the outcome's name (:func:`sim.studies.comparing.verdict_words.space_outcome`)."""
    outcome = verdict_words.space_outcome(
        comparison.rule.name, row.significant, row.stop, row.diff is not None
    )
    if outcome == "flagged":
        return "more" if (row.diff or 0.0) > 0 else "fewer"
    return outcome


@dataclass(frozen=True)
class AcrossEngines:
    """The comparison of design B against design A in each engine (``comparisons``,
    in the order of ``engines``: the same designs, spaces, shots and rule)."""

    engines: tuple[str, ...]
    comparisons: tuple[Comparison, ...]

    def __post_init__(self):
        if len(self.engines) < 2 or len(self.engines) != len(self.comparisons):
            raise ValueError("a comparison across engines needs one comparison per engine, two+")

    @property
    def on_average(self) -> str | None:
        """The board-mean verdict every engine gives (Comparison.on_average), None
        when they differ."""
        said = {c.on_average for c in self.comparisons}
        return said.pop() if len(said) == 1 else None

    @property
    def robust_on_average(self) -> bool:
        return self.on_average is not None

    @property
    def same_size(self) -> bool:
        """Whether every two engines' intervals of the mean overlap (a robust sign
        whose sizes differ is "same sign, different size")."""
        intervals = [c.mean_diff[1:] for c in self.comparisons]
        return all(
            lo_1 <= hi_2 and lo_2 <= hi_1
            for i, (lo_1, hi_1) in enumerate(intervals)
            for lo_2, hi_2 in intervals[i + 1 :]
        )

    def spaces(self) -> list[dict]:
        """Per space: each engine's verdict and whether they agree (a space out of
        reach of either design in any engine is left out of the counts)."""
        rows = []
        for by_engine in zip(*(c.spaces for c in self.comparisons), strict=True):
            said = {
                e: space_verdict(c, r)
                for e, c, r in zip(self.engines, self.comparisons, by_engine, strict=True)
            }
            rows.append(
                {
                    "space": by_engine[0].space,
                    "verdicts": said,
                    "diffs": {e: r.diff for e, r in zip(self.engines, by_engine, strict=True)},
                    "robust": len(set(said.values())) == 1 and "out_of_reach" not in said.values(),
                }
            )
        return rows

    def counts(self) -> dict[str, int]:
        """The spaces every engine says the same of, by what they say, and those they
        disagree on."""
        counts = dict.fromkeys((*AGREED, "differ"), 0)
        for row in self.spaces():
            said = set(row["verdicts"].values())
            if "out_of_reach" in said:
                continue
            counts[said.pop() if len(said) == 1 else "differ"] += 1
        return counts

    def headline(self) -> tuple[str, str]:
        """The board mean across the engines in two parts: the words (robust, and
        what every engine says; or not, and what each says) and each engine's mean
        difference with its interval."""
        first = self.comparisons[0]
        a, b = first.design_a, first.design_b
        figures = "; ".join(
            f"{e} {verdict_words.board_mean_parts(a, b, c.on_average, c.mean_diff, c.delta)[1]}"
            for e, c in zip(self.engines, self.comparisons, strict=True)
        )
        engines = " and ".join(self.engines)
        if self.robust_on_average:
            said, _ = verdict_words.board_mean_parts(
                a, b, self.on_average, first.mean_diff, first.delta, first.mean_stop
            )
            sized = (
                "Robust"
                if self.same_size or self.on_average not in ("more", "fewer")
                else "Same sign, different size"
            )
            return f"{sized} across {engines}: {said[0].lower()}{said[1:]} in every engine", figures
        each = "; ".join(
            f"{e} {_average_words(c)}" for e, c in zip(self.engines, self.comparisons, strict=True)
        )
        return f"Not robust across {engines}: on average the engines differ ({each})", figures

    def differing(self) -> list[str]:
        """The spaces both designs reach in every engine whose verdicts differ."""
        return [r["space"] for r in self.spaces() if not r["robust"] and _compared(r)]

    @property
    def verdict(self) -> str:
        """One sentence: whether the board-mean verdict is robust, each engine's mean
        difference, then the spaces all engines agree on and those they do not."""
        first = self.comparisons[0]
        said, figures = self.headline()
        counts = self.counts()
        agreed = [f"more on {counts['more']}", f"fewer on {counts['fewer']}"]
        if first.rule.name == "spaces":
            agreed.append(f"the same within ±{first.delta or 0:g} on {counts['within']}")
        differ = self.differing()
        named = ", ".join(differ[:NAMED]) + (", …" if len(differ) > NAMED else "")
        tail = f"; they differ on {counts['differ']}" + (f" ({named})" if differ else "")
        return (
            f"{said} ({figures}); space by space, every engine finds {first.design_b} "
            f"{', '.join(agreed)}{tail}"
        )

    def to_dict(self) -> dict:
        return {
            "engines": list(self.engines),
            "verdict": self.verdict,
            "on_average": self.on_average,
            "robust_on_average": self.robust_on_average,
            "same_size_on_average": self.same_size,
            "on_average_by_engine": {
                e: c.on_average for e, c in zip(self.engines, self.comparisons, strict=True)
            },
            "space_counts": self.counts(),
            "spaces": self.spaces(),
        }


def _average_words(comparison: Comparison) -> str:
    """One engine's board-mean verdict in a word or two."""
    words = _AVERAGE_WORDS[comparison.on_average or "none"]
    undecided = verdict_words.undecided(comparison.mean_stop)
    return words.format(delta=comparison.delta or 0, undecided=undecided)


def _compared(row: dict) -> bool:
    return "out_of_reach" not in row["verdicts"].values()
