"""The start line of each long command, in words (sim/cli/progress.py prints it): what
it will do, its cap and about how many shots, from the settings checked before any
shot, so that a log shows at once what the run is and how long it may be.

The counts are the caps the rules themselves set ("at most"), and under a precision
what plain Monte Carlo takes where P is 0.5 (the dearest space); what a precision
usually takes on the stock board is in docs/hitmap.md, "What a precision costs".
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sim.cli.progress import count, duration, say

if TYPE_CHECKING:
    from collections.abc import Iterable

    from models.design import Design
    from sim.studies.comparing.comparison_rule import ComparisonRule
    from sim.studies.shots.space_shots import SweepSpec

#: Where a reader finds what a precision usually costs.
COSTS = 'docs/hitmap.md, "What a precision costs"'
#: Shots a second of a MuJoCo Warp batch on Warp's CPU device, and of MuJoCo itself,
#: wall, as measured on a shared 2-core machine (docs/gpu.md, "With the strike log and
#: the early verdict": 1.1 to 2.5 against 58 and 88; the table before it: 0.7 to 3.0).
WARP_CPU_SHOTS_S = (1, 3)
MUJOCO_SHOTS_S = (60, 90)
#: Minutes the first batch in a fresh Warp kernel cache spends compiling MuJoCo
#: Warp's kernels on the CPU device (docs/gpu.md, "Compile time": 113 s).
WARP_CPU_COMPILE_MIN = 2


def coin_shots(precision: float) -> int:
    """The shots plain Monte Carlo needs for a 95 % interval of ±``precision`` on a
    space whose P is 0.5, the dearest (the normal approximation, 1.96² P(1-P)/δ²);
    the default sampler (RQMC) and spaces nearer 0 or 1 take fewer."""
    return math.ceil(1.96**2 * 0.25 / precision**2)


def where(workers) -> str:
    """On how many local workers, or on which cluster."""
    if isinstance(workers, int):
        return f"on {workers} worker{'s' if workers != 1 else ''}"
    return f"on the cluster at {workers.address}"


def per_space(spec: SweepSpec) -> str:
    """How a space's shots stop: a fixed number, or a precision and its cap."""
    if spec.precision is None:
        return f"{count(spec.shots)} shots a space"
    return f"each to ±{spec.precision:g}, at most {count(spec.shots)} shots a space"


def about_shots(spec: SweepSpec, maps: int = 1, spaces: int | None = None) -> int:
    """About how many shots ``maps`` hit maps of ``spec`` (of ``spaces`` spaces where
    not all of its own) fire: the cap, or under a precision what it takes where P is
    0.5 (:func:`coin_shots`)."""
    a_space = spec.shots if spec.precision is None else min(spec.shots, coin_shots(spec.precision))
    return a_space * (len(spec.spaces) if spaces is None else spaces) * maps


def hitmap(spec: SweepSpec, workers, maps: int = 1, design: str | None = None) -> str:
    """``piggy hitmap`` of ``design`` (its name; the file's when not given), and a
    design game's or sweep's ``maps`` hit maps."""
    spaces = len(spec.spaces)
    most = spec.shots * spaces * maps
    shots = f"{count(most)} shots"
    if spec.precision is not None:
        even = min(spec.shots, coin_shots(spec.precision))
        shots = (
            f"at most {shots}, about {count(about_shots(spec, maps))} or fewer ({count(even)} "
            f"a space where P is near 0.5, fewer elsewhere: {COSTS})"
        )
    what = f"a hit map of {design or spec.design}" if maps == 1 else f"{maps} hit maps"
    return (
        f"{what}: {spaces} space{'s' if spaces != 1 else ''}, {per_space(spec)} "
        f"({spec.sampler}): {shots} {where(workers)}"
    )


def compare_shots(spec: SweepSpec, designs: int, rule: ComparisonRule, engines: int = 1) -> int:
    """The most shots ``piggy design compare`` fires (its start line's cap)."""
    spaces = len(spec.spaces)
    if designs == 1:
        return spec.shots * spaces
    shots = spaces * designs * engines
    if rule.mean is not None:
        return rule.mean.looks()[-1] * shots
    if rule.spaces is not None:
        return rule.spaces.looks()[-1] * shots
    return spec.shots * shots


def compare(
    spec: SweepSpec, names: list[str], rule: ComparisonRule, workers, engines: int = 1
) -> str:
    """``piggy design compare``: the question its rule asks, the looks and the most
    shots (a pair is a shot of each design)."""
    spaces, designs = len(spec.spaces), len(names)
    most = compare_shots(spec, designs, rule, engines)
    if designs == 1:  # no partner: the design's hit map alone, whatever the rule
        return (
            f"design compare {names[0]}: one design, nothing to compare with: its hit map "
            f"alone, {per_space(spec)}: at most {count(most)} shots "
            f"{where(workers)}"
        )
    shots = spaces * designs * engines  # a pair a space, times the designs and engines
    versus = f"{names[0]} vs {', '.join(names[1:])}"
    in_engines = f" in each of {engines} engines" if engines > 1 else ""
    if rule.mean is not None:
        looks = rule.mean.looks()
        delta = f"to ±{rule.delta:g}" if rule.delta is not None else "until its sign"
        budget = f"; budget {rule.budget_s:g} s" if rule.budget_s is not None else ""
        return (
            f"design compare {versus}{in_engines}: the board mean {delta} (mean rule), "
            f"{count(looks[0] * shots)} shots at the first look, at most "
            f"{count(most)} in {_looks(looks)} {where(workers)}{budget}"
        )
    if rule.spaces is not None:
        looks = rule.spaces.looks()
        delta = f" or within ±{rule.delta:g}" if rule.delta is not None else ""
        return (
            f"design compare {versus}{in_engines}: each space until its sign is decided"
            f"{delta} (spaces rule), at least {count(looks[0] * shots)} shots, at most "
            f"{count(most)} in {_looks(looks)} {where(workers)}"
        )
    return (
        f"design compare {versus}{in_engines}: each map on its own (per-map rule), "
        f"{per_space(spec)}: at most {count(most)} shots {where(workers)}"
    )


def optimise(search, trials: int, workers) -> str:
    """``piggy design optimise``: the trials, each a hit map of the spaces it fires."""
    spec = search.spec
    spaces = len(search.fired_spaces)
    fields = ", ".join(p.field for p in search.params)
    return (
        f"design optimise {search.base.name} over {fields}: {trials} trials, each a hit "
        f"map of {spaces} spaces, {per_space(spec)} (at most {count(spec.shots * spaces)} "
        f"shots a trial, {count(spec.shots * spaces * trials)} in all), then the best "
        f"measured again and compared with {search.base.name}, {where(workers)}"
    )


def design_game(spec: SweepSpec, names: list[str], games: int, workers) -> str:
    """``piggy design game``: a hit map a design, then the games."""
    return (
        f"design game {', '.join(names)}: {hitmap(spec, workers, len(names))}; then "
        f"{count(games)} games a design on the maps (no shot fired)"
    )


def scan(spec: SweepSpec, designs: list[str], spreads: int, workers) -> str:
    """``piggy hitmap --aim-sd-scan``: every space at every spread, for each design."""
    maps = spreads * len(designs)
    return (
        f"aim spread scan of {', '.join(designs)}: {spreads} spreads, {hitmap(spec, workers, maps)}"
    )


def warp_on_cpu(shots: int, at_most: bool = False) -> str:
    """Why a run on the ``mujoco-warp`` engine with no CUDA GPU is slow, and about how
    long its ``shots`` take (``at_most``: a cap, not an estimate) at the rates measured
    on Warp's CPU device (:data:`WARP_CPU_SHOTS_S`)."""
    slow, fast = WARP_CPU_SHOTS_S
    return (
        f"no CUDA GPU: MuJoCo Warp runs on its CPU device, about {slow}-{fast} shots a "
        f"second against --engine mujoco's {MUJOCO_SHOTS_S[0]}-{MUJOCO_SHOTS_S[1]} "
        f"(docs/gpu.md): this run's {'at most' if at_most else 'about'} {count(shots)} "
        f"shots take {'up to' if at_most else 'about'} {duration(shots / fast)} to "
        f"{duration(shots / slow)} (and about {WARP_CPU_COMPILE_MIN} minutes more the first "
        "time, compiling Warp's kernels); --engine mujoco gives the same P far faster"
    )


def say_if_warp_on_cpu(
    spec: SweepSpec,
    designs: Iterable[Design],
    shots: int,
    engines: Iterable[str | None] = (None,),
    at_most: bool = False,
) -> None:
    """Before the first shot, on standard error (``--json`` too: it is a warning, not
    progress): :func:`warp_on_cpu`'s line, where ``designs`` in ``engines`` (None:
    ``spec``'s, else each design's own) fire batches on MuJoCo Warp and its device
    is the CPU (the physics' answer: ``warp_batch.default_device``)."""
    from sim.physics.registry import with_engine

    fired = [with_engine(d, e or spec.engine) for e in engines for d in designs]
    warp = [d for d in fired if d.physics.engine == "mujoco-warp"]
    if not warp:
        return
    from sim.physics.mujoco.batch import no_batch_form
    from sim.physics.warp.batch import default_device

    if any(not no_batch_form(d, spec.vary) for d in warp) and default_device() == "cpu":
        say(warp_on_cpu(shots, at_most))


def compare_start(
    spec: SweepSpec, designs: list[Design], rule: ComparisonRule, workers, engines: tuple
) -> str:
    """``piggy design compare``'s start line (:func:`compare`), the line of
    :func:`say_if_warp_on_cpu` said first where it applies (its shots the cap)."""
    most = compare_shots(spec, len(designs), rule, len(engines))
    say_if_warp_on_cpu(spec, designs, most, engines, at_most=True)
    return compare(spec, [d.name for d in designs], rule, workers, len(engines))


def sweep_start(spec: SweepSpec, variants: list[Design], workers) -> str:
    """``piggy design sweep``'s start line, the line of :func:`say_if_warp_on_cpu`
    said first where it applies."""
    say_if_warp_on_cpu(spec, variants, about_shots(spec, len(variants)))
    return f"design sweep: {hitmap(spec, workers, len(variants))}"


def _looks(looks: tuple[int, ...]) -> str:
    return f"{len(looks)} look{'s' if len(looks) != 1 else ''}"
