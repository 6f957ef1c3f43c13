"""What ``piggy design compare`` and ``design sweep`` print: the verdicts (each
engine's too), each design's figures side by side, the mean difference and the
spaces decided, the sweep's table, and where the hit maps are cached. Words only:
the comparisons are made in sim/studies/comparing/, and the verdicts' own words are
sim/studies/comparing/verdict_words.py's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from models.text import shown
from sim.studies.comparing import verdict_words
from sim.studies.shots.dead_zones import FEW_SHOTS

if TYPE_CHECKING:
    import numpy as np

    from sim.studies.comparing.compare import Comparison
    from sim.studies.comparing.engines_verdict import AcrossEngines

#: The dead zones of ``design compare``'s figures, in the order printed.
DEAD_ZONE_KINDS = ("too_close", "too_far", "blocked", "missed", "never_out")


def print_compare(
    comparisons: list[Comparison],
    across: list[AcrossEngines],
    by_engine: dict[str | None, list[Comparison]],
    results: list[dict],
    sampler: str,
    cache_line: str,
    written: Sequence[str | None],
) -> None:
    """The whole comparison in words: verdicts, figures, differences, the cache (and
    how much of the answer came from it) and the files written."""
    print_verdicts(comparisons, across, by_engine)
    sequential = bool(comparisons) and comparisons[0].rule.sequential
    print_figures(results, comparisons[0].design_a if sequential else None)
    print_differences(comparisons, sampler)
    print_cache(cache_line, written)


def print_verdicts(
    comparisons: list[Comparison],
    across: list[AcrossEngines],
    by_engine: dict[str | None, list[Comparison]],
) -> None:
    """Each comparison's verdict (made in several engines: the verdict across them,
    then each engine's), and whose figures follow."""
    for index, comparison in enumerate(comparisons):
        if across:
            print(across[index].verdict)
            for engine, made in by_engine.items():
                print(f"  {engine}: {made[index].verdict}")
        else:
            print(comparison.verdict)
    print()
    if across:
        print(f"The figures below are {next(iter(by_engine))}'s:")


def print_figures(results: list[dict], paired_with: str | None) -> None:
    """Each design's figures side by side, its dead zones named; ``paired_with``:
    the first design, when the designs were fired together (its figures change with
    its partner)."""
    width = max(20, *(len(r["design"]) + 2 for r in results))
    print(f"{'':24s}" + "".join(f"{r['design']:>{width}s}" for r in results))
    lines: list[tuple[str, Callable[[dict], str]]] = [
        ("spaces in reach", lambda r: f"{r['in_reach']}/{r['spaces']}"),
        ("mean P(knocked out)", lambda r: _p_ci(r["mean_p_target"], r["mean_p_target_ci"])),
        (
            "worst space",
            lambda r: (
                (r["worst_space"] or "-")
                + (f" (n={r['worst_shots']})" if r["worst_few_shots"] else "")
            ),
        ),
        ("worst P", lambda r: _p_ci(r["worst_p_target"], r["worst_p_target_ci"])),
        ("collateral rate", lambda r: _p(r["collateral_rate"])),
    ]
    for label, cell in lines:
        print(f"{label:24s}" + "".join(f"{cell(r):>{width}s}" for r in results))
    for kind in DEAD_ZONE_KINDS:
        print(
            f"{'dead zones, ' + kind.replace('_', ' '):24s}"
            + "".join(f"{len(r['dead_zones'][kind]):>{width}d}" for r in results)
        )
    if any(r["worst_few_shots"] for r in results):
        print(
            f"(worst space: fewer than {FEW_SHOTS} shots; its P is uncertain, measure it with more)"
        )
    _print_dead_zones(results)
    if paired_with is not None:
        print(verdict_words.PAIRED_FIGURES.format(design=paired_with))


def _print_dead_zones(results: list[dict]) -> None:
    """Each design's dead zones named, by kind (a design with none says nothing)."""
    for r in results:
        named = [
            f"{kind.replace('_', ' ')} {', '.join(r['dead_zones'][kind])}"
            for kind in DEAD_ZONE_KINDS
            if r["dead_zones"][kind]
        ]
        if named:
            print(f"dead zones of {r['design']}: " + "; ".join(named))


def print_differences(comparisons: list[Comparison], sampler: str) -> None:
    """Each comparison's mean difference with its interval (the pairs a space it
    took, and where the mean rule stopped), then the spaces decided, each with its
    difference, interval and adjusted p-value (the test named, as ``sampler``'s)."""
    for comparison in comparisons:
        mean, low, high = comparison.mean_diff
        print(
            f"\n{comparison.design_b} - {comparison.design_a}, same shots: mean difference "
            f"{_mean(mean, mean)} [{_mean(low, mean)}, {_mean(high, mean)}]"
            + ("" if comparison.rule.name == "per-map" else f", {_pairs(comparison)} pairs a space")
        )
        if comparison.stopped is not None:
            stopped = comparison.stopped.to_dict()
            spaces = len(comparison.spaces)
            print(f"  {verdict_words.mean_stop_words(stopped, comparison.delta, spaces)}")
        significant = [r.to_dict() for r in comparison.spaces if r.significant]
        for row in significant:
            print(
                f"  {row['space']:6s} {row['p_a']:.2f} -> {row['p_b']:.2f}  "
                f"{_signed(row['diff'])} [{_signed(row['diff_ci_low'])}, "
                f"{_signed(row['diff_ci_high'])}]  "
                f"{verdict_words.p_words(row['p_value_adjusted'])} "
                f"({verdict_words.p_test(comparison.rule.name, sampler)})"
            )


def print_sweep(field: str, values: np.ndarray, results: list[dict]) -> None:
    """``design sweep``'s table: a row a value of ``field``, its figures."""
    width = max(len(field), 10)
    print(
        f"{field:>{width}s} {'in reach':>9s} {'mean P [95 %]':>18s} {'worst space':>12s} "
        f"{'worst P [95 %]':>18s} {'collateral':>10s}"
    )
    for value, r in zip(values, results, strict=True):
        print(
            f"{value:{width}g} {r['in_reach']:>4d}/{r['spaces']:<4d} "
            f"{_p_ci(r['mean_p_target'], r['mean_p_target_ci']):>18s} "
            f"{r['worst_space'] or '-':>12s} "
            f"{_p_ci(r['worst_p_target'], r['worst_p_target_ci']):>18s} "
            f"{_p(r['collateral_rate']):>10s}"
        )


def print_cache(cache_line: str, written: Sequence[str | None] = ()) -> None:
    """Where the hit maps are cached (and how much of the answer came from there:
    sim/cli/cache_words.py), then each file written (None: not asked for)."""
    print(cache_line)
    for path in written:
        if path:
            print(f"Wrote {shown(path)}")


def _mean(value, mean) -> str:
    """A board-mean figure as the verdict prints it (sim/studies/comparing/verdict_words.py)."""
    return "-" if value is None else verdict_words.figure(value, mean)


def _pairs(comparison: Comparison) -> str:
    """The pairs a space took, fewest to most (a rule that fires the designs together:
    mean, spaces)."""
    fired = [r.shots for r in comparison.spaces if r.diff is not None]
    return f"{min(fired)}-{max(fired)}" if fired else "0"


def _p_ci(p, ci) -> str:
    return "-" if p is None else f"{p:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def _p(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.2f}"
