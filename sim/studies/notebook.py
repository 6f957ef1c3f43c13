"""The design studies from plain arguments, with the command line's defaults: what a
notebook calls to get what ``piggy design compare`` and ``piggy design optimise``
give, without building their settings by hand (docs/optimise.md, "From Python").

Every default is the command line's: the stock board, the empty layout, a child
aiming, 50 shots a space (the cap 1000 with a precision), seed 0, the board-mean rule
(comparison_rule.DEFAULT_RULE), every core, the user's cache folder
(sim/studies/comparing/cached_maps.py). Only what the command line reads from options
is set here; the studies themselves are sim/studies/comparing/design_tools.py's and
sim/studies/optimising/run.py's.
"""

from __future__ import annotations

import os
from pathlib import Path

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.layout import check_spaces
from sim.defaults import PRECISION_CAP, SEARCH_PRECISION
from sim.studies.comparing.comparison_rule import DEFAULT_RULE
from sim.studies.optimising.run import SearchRun
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots import space_shots


def plain_spec(
    design: str = "stock",
    spaces: list[str] | None = None,
    shots: int | None = None,
    precision: float | None = None,
    seed: int = 0,
    aimer: str = "child",
) -> space_shots.SweepSpec:
    """The hit maps' settings of ``--design``, ``--spaces`` (default: every space),
    ``--shots``, ``--precision``, ``--seed`` and ``--aimer``, checked, on the stock
    board's empty layout (the design studies' default)."""
    board = load_board("stock")
    spec = space_shots.SweepSpec(
        board="stock",
        design=design,
        stacks={},
        spaces=check_spaces(board, ",".join(spaces) if spaces else None, {}),
        shots=shots if shots is not None else (PRECISION_CAP if precision else 50),
        seed=seed,
        aimer=load_aimer(aimer),
        precision=precision,
        layout="empty",
    )
    space_shots.check_targets(spec)
    return spec


def compare(
    designs: list[str],
    spaces: list[str] | None = None,
    shots: int | None = None,
    precision: float | None = None,
    seed: int = 0,
    aimer: str = "child",
    rule: str = DEFAULT_RULE,
    delta: float | None = None,
    workers: StudyWorkers | None = None,
    cache: str | Path | None = None,
    budget_s: float | None = None,
):
    """``piggy design compare DESIGNS...``: each design's figures, each design after
    the first compared with the first shot for shot (``sim.studies.comparing.compare.Comparison``)
    and the hit maps' rows; ``rule``, δ (``delta``, else the rule's default) and
    ``budget_s`` as the command's (sim/studies/comparing/comparison_rule.py)."""
    from sim.studies.comparing import cached_maps, design_tools
    from sim.studies.comparing.comparison_rule import comparison_rule

    spec = plain_spec(designs[0], spaces, shots, precision, seed, aimer)
    return design_tools.compare_designs(
        spec,
        load_board(spec.board),
        [load_design(d) for d in designs],
        workers or os.cpu_count() or 1,
        cached_maps.cache_folder(str(cache) if cache else None),
        None,
        comparison_rule(spec, rule, delta, budget_s),
    )


def search(
    base: str,
    params: list[str],
    spaces: list[str] | None = None,
    objective: str = "mean-p",
    trials: int = 20,
    shots: int | None = None,
    precision: float | None = None,
    seed: int = 0,
    aimer: str = "child",
    **run,
) -> SearchRun:
    """``piggy design optimise BASE --param FIELD=LOW:HIGH ...``: ``trials`` trials
    of the search over ``params`` (``FIELD=LOW:HIGH[:log|:int]``) within the safety
    limits of design check and every space in reach, the best measured again and
    verified against BASE. Each trial's hit map is to ±0.1 unless ``shots`` or
    ``precision`` says otherwise; ``run`` is
    :func:`~sim.studies.optimising.run.run_search`'s
    (``out``, ``storage``, ``study``, ``workers``, ``cache``, ``table``, ...)."""
    from sim.studies.designs import search as design_search
    from sim.studies.designs.safety import SafetyLimits
    from sim.studies.optimising import racing
    from sim.studies.optimising.run import make_search, run_search
    from sim.studies.optimising.search_settings import Search

    design = load_design(base)
    if precision is None and shots is None:
        precision = SEARCH_PRECISION
    spec = plain_spec(base, spaces, shots, precision, seed, aimer)
    objectives = design_search.parse_objectives(objective)
    board = load_board(spec.board)
    design_search.check_objectives(board, spec.spaces, objectives)
    settings = Search(
        design,
        design_search.parse_params(params, design),
        objectives,
        spec,
        board,
        SafetyLimits(),
        0,
        pruner=racing.check_pruner("wilcoxon"),
        remeasure=racing.REMEASURE,
    )
    run.setdefault("workers", os.cpu_count() or 1)
    return run_search(*make_search(settings, None, None), trials=trials, **run)
