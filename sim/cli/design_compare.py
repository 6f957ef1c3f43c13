"""``piggy design compare|sweep``: designs fired with the same shots, their hit maps
side by side (compare), or one design field varied over a range (sweep)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from models.design import load_design, load_designs
from models.errors import InputError
from models.text import shown
from sim.cli import start_lines
from sim.cli.cache_words import ShotsFired, cache_line, from_cache
from sim.cli.common import (
    check_output,
    check_output_folder,
    finite_number,
    json_out,
    load_layout_args,
    progress_bar,
    waiting,
    workers_arg,
)
from sim.cli.hitmap import sweep_options, workers_of
from sim.defaults import DIFFERENCE_SCALES
from sim.studies.comparing.comparison_rule import DEFAULT_RULE, check_rule

if TYPE_CHECKING:
    from pathlib import Path

    from models.board import Board
    from models.design import Design
    from sim.studies.comparing.compare import Comparison
    from sim.studies.comparing.engines_verdict import AcrossEngines
    from sim.studies.running.cluster import StudyWorkers
    from sim.studies.shots.space_shots import SweepSpec


def design_test_options(q, plot_help="the comparison picture") -> None:
    """The options of the actions that fire designs' hit maps (compare, sweep, optimise)."""
    q.add_argument(
        "--board", help="board name or path (default: the layout file's own board, else stock)"
    )
    q.add_argument(
        "--layout", default="empty", help="layout JSON file, 'empty' (default) or 'crowded'"
    )
    sweep_options(q, shots_help="shots per space (default 50; the cap with --precision)")
    workers_arg(q, "local worker processes (default: all cores)")
    q.add_argument(
        "--cache",
        help="folder of cached hit maps (default: the user's cache "
        "folder, ~/.cache/go-piggy-go/hitmaps on Linux)",
    )
    q.add_argument("--plot", metavar="FILE.png", help=plot_help)
    q.add_argument("--json", action="store_true", help="machine-readable output")


def _design_test_args(args):
    """Board, the sweep settings, workers and cache of compare and sweep, checked
    before any shot."""
    from sim.cli.hitmap import sweep_spec

    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    layout = load_layout_args(args)
    spec = sweep_spec(args, layout)  # its plain options before any study module
    from sim.studies.comparing import cached_maps

    cache = check_output_folder(cached_maps.cache_folder(args.cache), "--cache")
    return layout.board, spec, workers_of(args), cache


@dataclasses.dataclass(frozen=True)
class _Compared:
    """A ``design compare`` run: what was compared how, and each engine's results
    (``runs``: figures, comparisons and hit-map rows, one per engine)."""

    spec: SweepSpec
    board: Board
    designs: list[Design]
    engines: tuple[str | None, ...]
    runs: list[tuple[list[dict], list[Comparison], list[list[dict]]]]
    across: list[AcrossEngines]
    made_by: dict
    workers: StudyWorkers
    cache: Path
    from_cache: dict  # the shots read from the cache and fired now (sim/cli/cache_words.py)

    @property
    def results(self) -> list[dict]:
        return self.runs[0][0]

    @property
    def comparisons(self) -> list:
        return self.runs[0][1]


def cmd_design_compare(args) -> int:
    compared = _compare(args)
    _write_pictures(compared, args)
    if args.json:
        _json_compare(compared)
    else:
        _print_compare(compared, args)
    return 0


def _compare(args) -> _Compared:
    """Every input checked, then the designs compared in each engine, in one --budget."""
    designs = load_designs(args.designs)  # first: a mistyped name is told at once
    args.design = args.designs[0]
    if args.html:
        if len(designs) != 2:
            raise InputError(f"--html reports one comparison: give two designs, not {len(designs)}")
        check_output(args.html, "--html", (".html",))
    # the rule's and the engines' plain options before the sweep settings (numpy)
    check_rule(args.rule, args.delta, args.budget)
    engines = _engines_of(args, designs)
    board, spec, workers, cache = _design_test_args(args)
    rule = _rule_of(args, spec, workers, len(designs) * len(engines))
    from sim.studies.comparing.engines_verdict import Budget, compare_in_engines

    shown_designs = _resolved(designs, engines)  # before any shot
    start = start_lines.compare_start(spec, designs, rule, workers, engines)
    looks = "look" if rule.mean is not None and len(engines) == 1 < len(designs) else None
    progress = ShotsFired(
        progress_bar(None, not args.json, "space", "design compare", pass_name=looks, start=start)
    )
    done = compare_in_engines(
        *(spec, board, designs, args.designs, engines, workers, cache, progress, rule),
        Budget(rule.budget_s, began=args.began),  # from the command's start (sim/cli)
    )
    progress(None)
    return _Compared(
        done.spec,
        board,
        shown_designs,
        engines,
        done.runs,
        done.across,
        done.made_by,
        workers,
        cache,
        from_cache([run[2] for run in done.runs], progress.fired),
    )


def _write_pictures(c: _Compared, args) -> None:
    """The difference map (``--plot``) and the page (``--html``), the first engine's."""
    across = c.across[0] if c.across else None
    if args.plot:  # matplotlib only for a picture: a re-read without one is quick
        from sim.views.design_pictures import comparison_figure
        from sim.views.difference_map import difference_figure
        from sim.views.pictures import save_figure

        figure = (
            difference_figure(c.board, c.comparisons[0], c.made_by, args.scale, across)
            if c.comparisons
            else comparison_figure(c.board, c.results, c.runs[0][2])
        )
        save_figure(figure, args.plot)
    if args.html:
        _write_report(args.html, c, args, across)


def _json_compare(c: _Compared) -> None:
    first = c.comparisons[0].to_dict() if c.comparisons else {"verdict": None, "spaces": []}
    engines = (
        {
            "across_engines": [a.to_dict() for a in c.across],
            "by_engine": {
                e: [x.to_dict() for x in run[1]] for e, run in zip(c.engines, c.runs, strict=True)
            },
        }
        if c.across
        else {}
    )
    json_out(
        {
            "verdict": first["verdict"],
            "spaces": first["spaces"],
            "designs": c.results,
            "comparisons": [x.to_dict() for x in c.comparisons],
            **engines,
            "provenance": c.made_by,
            "cache": str(c.cache),
            "from_cache": c.from_cache,
        }
    )


def _print_compare(c: _Compared, args) -> None:
    """The comparison in words (sim/cli/design_compare_words.py)."""
    from sim.cli.design_compare_words import print_compare

    by_engine = {e: run[1] for e, run in zip(c.engines, c.runs, strict=True)}
    cache = cache_line(c.from_cache, c.cache)
    written = (args.plot, args.html)
    print_compare(c.comparisons, c.across, by_engine, c.results, c.spec.sampler, cache, written)


def _resolved(designs: list[Design], engines: tuple[str | None, ...]) -> list[Design]:
    """The designs in the first engine (its figures and page), every engine resolved
    for every design first: each known and installed (a heavy import: after the
    plain options)."""
    from sim.physics.registry import resolve

    for engine in engines[1:]:
        for design in designs:
            resolve(design, engine)
    return [resolve(design, engines[0]) for design in designs]


def _engines_of(args, designs) -> tuple[str | None, ...]:
    """The engines the comparison is made in: ``--engines`` (two or more), else
    ``--engine``'s, else none but the designs' own (None), each resolved for every
    design by :func:`_resolved` before any shot."""
    engines: tuple[str | None, ...] = (args.engine or None,)
    if args.engines:
        if args.engine:
            raise InputError("give --engine or --engines, not both")
        if len(designs) < 2:
            raise InputError("--engines compares two designs in each engine: give two designs")
        engines = tuple(e.strip() for e in args.engines.split(","))
        if len(engines) < 2 or len(set(engines)) != len(engines):
            raise InputError(
                f"--engines takes two or more different engines, e.g. bullet,mujoco; got "
                f"{shown(args.engines)}"
            )
    return engines


def _rule_of(args, spec, workers, designs: int):
    """The comparison's rule, built once: ``--rule``, δ (``--delta``, else the rule's
    default) and ``--budget``, checked before any shot (a budget too small for the
    first look is refused, naming the smallest that fits)."""
    from sim.studies.comparing.comparison_rule import check_budget, comparison_rule

    rule = comparison_rule(spec, args.rule, args.delta, args.budget)
    return check_budget(rule, designs, workers)


def _write_report(path, c: _Compared, args, across) -> None:
    """The shareable page (sim/studies/comparing/report.py records it, sim/views/report_page.py
    draws and writes it)."""
    from sim.studies.comparing.report import record
    from sim.views.report_page import write_report_page

    with waiting("recording the page's shots", not args.json):
        recorded = record(
            c.spec,
            c.board,
            c.designs,
            c.comparisons[0],
            c.workers,
            c.cache,
            c.made_by,
            args.scale,
            across,
        )
        write_report_page(path, recorded)


def _swept(args, variants) -> tuple[list[dict], Path]:
    """Each variant's figures, its map measured on its own, and the cache folder."""
    from sim.studies.comparing import design_tools
    from sim.studies.comparing.comparison_rule import PER_MAP

    board, spec, workers, cache = _design_test_args(args)
    start = start_lines.sweep_start(spec, variants, workers)
    progress = progress_bar(None, not args.json, "space", "design sweep", start=start)
    results, _, _ = design_tools.compare_designs(
        spec, board, variants, workers, cache, progress, PER_MAP
    )
    progress(None)
    return results, cache


def cmd_design_sweep(args) -> int:
    from sim.studies.designs import sweep as design_sweep

    field, values = design_sweep.parse_sweep(args.param)
    base = load_design(args.design)
    variants = [design_sweep.with_value(base, field, v) for v in values]
    results, cache = _swept(args, variants)
    if args.plot:
        from sim.views.design_pictures import sweep_figure
        from sim.views.pictures import save_figure

        save_figure(sweep_figure(field, values, results), args.plot)
    if args.json:
        json_out(
            {"field": field, "values": values.tolist(), "results": results, "cache": str(cache)}
        )
        return 0
    from sim.cli import design_compare_words as words

    words.print_sweep(field, values, results)
    words.print_cache(f"Hit maps cached in {cache} (--cache chooses another folder)", (args.plot,))
    return 0


def add_design_compare(design_sub) -> None:
    """The ``design compare`` action of the ``design`` command, and ``design sweep``."""
    q = design_sub.add_parser(
        "compare",
        help="designs fired with the same shots, compared",
        description="Compare launcher designs shot for shot: every design fires the same "
        "shots (the same random numbers per shot). The verdict leads with the mean "
        "difference over the board with its 95 % interval (is B better?), then the "
        "spaces. By default (--rule mean) the designs fire together at every space, "
        "look by look, until the board mean's sign is decided or its interval lies "
        "within ±δ (95 % over the looks), or the cap or --budget; the spaces whose "
        "sign is decided then are flagged (exact McNemar test, family-wise 95 % over "
        "the spaces and looks). --rule spaces carries each space until its own sign "
        "is decided or its interval lies within ±δ; "
        "--rule per-map measures each design's map to ±precision on its own, then "
        "pairs them (t-test over the RQMC scrambles, or McNemar's with --sampler mc; "
        "Holm over the spaces). Also each design's reach, mean and worst P with "
        "intervals, dead zones, collateral rate. --plot draws the difference map. "
        "Hit maps are cached.",
    )
    q.add_argument("designs", nargs="+", help="design names or TOML files")
    design_test_options(q)
    _add_rule_options(q)
    _add_report_options(q)
    q.set_defaults(func=cmd_design_compare)
    _add_design_sweep(design_sub)


def _add_rule_options(q) -> None:
    """When a space stops, and in which engines."""
    q.add_argument(
        "--rule",
        default=DEFAULT_RULE,
        metavar="RULE",
        help="when the shots stop: mean (default: the board mean decided, docs/hitmap.md), "
        "spaces (each space's verdict decided; 'paired' is its old name) or per-map "
        "(each design's map to ±precision on its own)",
    )
    q.add_argument(
        "--delta",
        type=finite_number(0, 1, above=True),
        metavar="D",
        help="δ, the smallest difference that matters: the mean rule stops when the board "
        "mean's interval lies within ±δ (default: half the precision), the spaces rule a "
        "space whose interval does (default: the precision)",
    )
    q.add_argument(
        "--budget",
        type=finite_number(0, above=True),
        metavar="SECONDS",
        help="the mean rule's time, the whole command's (every engine's): its looks are "
        "fixed beforehand, and the answer is the last look that fits at the rate measured "
        "(not with --rule spaces or per-map)",
    )
    q.add_argument(
        "--engines",
        metavar="E1,E2",
        help="make the comparison in each of these physics engines (e.g. bullet,mujoco) "
        "and say which verdicts are robust: the same sign and significance in every "
        "engine (the maps, figures and page show the first engine's)",
    )


def _add_report_options(q) -> None:
    """The shared page and the difference map's scale."""
    q.add_argument(
        "--html",
        metavar="FILE.html",
        help="the comparison as one self-contained page to share (two designs): "
        "verdict, maps, a sortable table, shots in 3D, what made it",
    )
    q.add_argument(
        "--scale",
        type=finite_number(0, 1, above=True),
        metavar="P",
        help="the difference map's colours span ±P (default: the smallest of "
        f"{', '.join(f'{s:g}' for s in DIFFERENCE_SCALES)} that holds every space's "
        "difference; the colour bar says which)",
    )


def _add_design_sweep(design_sub) -> None:
    """The ``design sweep`` action."""
    q = design_sub.add_parser(
        "sweep",
        help="vary one design parameter, plot the figures",
        description="Vary one design field over a range and report "
        "(and plot) the comparison figures for each value.",
    )
    q.add_argument(
        "--param",
        required=True,
        help="field=start:stop:count, e.g. muzzle_speed=1500:3000:7 (mm/s)",
    )
    q.add_argument("--design", default="stock", help="the design to vary (default: stock)")
    design_test_options(q)
    q.set_defaults(func=cmd_design_sweep)
