"""The sample outputs in README.md and docs/*.md, made by the real commands.

    python scripts/docs_samples.py            # rewrite every sample block
    python scripts/docs_samples.py --check    # exit 1 naming the blocks that drifted

A sample sits between two markers in a Markdown file, and everything between them
is what the sample's function makes now (a fenced block of a command's output, or
a table)::

    <!-- sample: shoot-by-hand -->
    ```text
    $ piggy shoot --yaw 10 --pitch 5
    ...
    ```
    <!-- /sample -->

The commands run in this process with fixed seeds, so the output is the same on
every machine; tests/scripts/test_docs_samples.py checks the quick ones. The
solve table of docs/rules/pig-out.md holds times measured where the script ran.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: this repository's packages
    sys.path.insert(0, str(ROOT))

#: The layout of docs/formats.md's shot JSON: one stack, the example's target.
STACK_LAYOUT = {"stacks": {"r8c3": ["gold-2", "pink-1"]}}
MARKER = re.compile(
    r"(<!-- sample: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /sample -->)", re.S
)


def piggy(*argv: str) -> str:
    """What ``piggy ARGV`` prints on standard output (an error: raised)."""
    from sim.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    if code != 0:
        raise RuntimeError(f"piggy {' '.join(argv)} exited {code}")
    return out.getvalue()


def _fenced(language: str, text: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```\n"


def _with_layout(layout: dict, shown_as: str, *argv: str) -> str:
    """``piggy`` with a layout file written for it, the command shown with ``shown_as``
    as the file's name."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "layout.json"
        path.write_text(json.dumps(layout))
        out = piggy(*(str(path) if a == shown_as else a for a in argv))
    return f"$ piggy {' '.join(argv)}\n{out}"


def demo_shot() -> str:
    from sim.studies.demo import DEMO_LAYOUT

    return _fenced(
        "text",
        _with_layout(
            DEMO_LAYOUT,
            "piggy-demo/layout.json",
            "shoot",
            "--layout",
            "piggy-demo/layout.json",
            "--at",
            "gold-2",
        ),
    )


def shoot_by_hand() -> str:
    return _fenced(
        "text", "$ piggy shoot --yaw 10 --pitch 5\n" + piggy("shoot", "--yaw", "10", "--pitch", "5")
    )


def tournament() -> str:
    argv = ("tournament", "go-piggy-go", "--seats", "greedy,random,random", "--games", "100")
    return _fenced("text", f"$ piggy {' '.join(argv)}\n" + piggy(*argv))


def bots() -> str:
    from sim.cli.terminal import bots_help

    return f"Bots by game — {bots_help()}\n"


def shot_json() -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "layout.json"
        path.write_text(json.dumps(STACK_LAYOUT))
        data = json.loads(piggy("shoot", "--layout", str(path), "--at", "gold-2", "--json"))
    return _fenced("json", compact_json(data))


def compact_json(value, indent: int = 0, width: int = 92) -> str:
    """JSON with each value on one line where it fits in ``width``, else broken over
    lines by its keys or items (numbers and short lists stay together)."""
    flat = json.dumps(value)
    if len(flat) + indent <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k)}: " + compact_json(v, indent + 2, width - len(json.dumps(k)) - 2)
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + compact_json(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def pig_out_solves() -> str:
    """The solve table: exact figures, and the time each solve took here."""
    from referee import pig_solver
    from referee.pig_out import PigOutGame

    # (label, the game's parameters, the hold-at policy evaluated or None, published)
    rows: list[tuple[str, dict[str, object], int | None, str]] = [
        ("classic Pig (`--preset pig`)", {"preset": "pig"}, None, "0.5306"),
        ("classic Pig, both hold at 20 (`--hold-at 20`)", {"preset": "pig"}, 20, "0.5347"),
        (
            "Pig-Out 2 rules, infinite deck, target 60",
            {"deck": "infinite", "target": 60},
            None,
            "—",
        ),
        (
            "Pig-Out 2 rules, infinite deck, target 150",
            {"deck": "infinite", "target": 150},
            None,
            "—",
        ),
    ]
    lines = [
        "| game | first player wins (optimal vs optimal) | published | states | sweeps | "
        "time here |",
        "|---|---|---|---|---|---|",
    ]
    for label, params, hold_at, published in rows:
        game = PigOutGame(**params)
        start = time.process_time()
        if hold_at is None:
            win, _, sweeps = pig_solver.solve(game)
        else:
            win, _, sweeps = pig_solver.evaluate_hold_at(game, hold_at)
        seconds = time.process_time() - start
        states = game.params["target"] ** 3
        lines.append(
            f"| {label} | {pig_solver.first_player_win_probability(win):.4f} | "
            f"{published} | {states:,} | {sweeps} | {seconds:.1f} s |"
        )
    return "\n".join(lines) + "\n"


def design_check_spring() -> str:
    return _fenced(
        "text",
        "$ piggy design check spring-stock\n"
        + piggy("design", "check", "spring-stock")
        + "$ piggy design check stock --limit-energy-j 0.004 | grep FLAG\n"
        + "".join(
            line + "\n"
            for line in piggy("design", "check", "stock", "--limit-energy-j", "0.004").splitlines()
            if "FLAG" in line
        ),
    )


def calibrate_example() -> str:
    argv = ("calibrate", "docs/examples/measured-shots.csv")
    return _fenced("text", f"$ piggy {' '.join(argv)}\n" + piggy(*argv))


@dataclass(frozen=True)
class Sample:
    make: Callable[[], str]
    files: tuple[str, ...]
    #: Checked by the tests (quick, and the same on every machine).
    checked: bool = True


SAMPLES = {
    "demo-shot": Sample(demo_shot, ("README.md",)),
    "shoot-by-hand": Sample(shoot_by_hand, ("README.md",)),
    "tournament": Sample(tournament, ("README.md",)),
    "bots": Sample(bots, ("README.md",)),
    "shot-json": Sample(shot_json, ("docs/formats.md",)),
    "pig-out-solves": Sample(pig_out_solves, ("docs/rules/pig-out.md",), checked=False),
    "design-check-spring": Sample(design_check_spring, ("docs/real-toy.md",)),
    "calibrate-example": Sample(calibrate_example, ("docs/real-toy.md",)),
}


def blocks(text: str) -> dict[str, str]:
    """The sample blocks of a Markdown text, by name."""
    return {m["name"]: m["body"] for m in MARKER.finditer(text)}


def rewrite(text: str, made: dict[str, str]) -> str:
    """``text`` with each block named in ``made`` replaced by what was made."""
    return MARKER.sub(lambda m: m[1] + made.get(m["name"], m["body"]) + m[4], text)


def main() -> int:
    from models.files import write_text_atomic

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare instead of rewriting; exit 1 when a block drifted",
    )
    parser.add_argument("--only", nargs="+", choices=sorted(SAMPLES), help="these samples only")
    args = parser.parse_args()
    names = args.only or list(SAMPLES)
    made = {name: SAMPLES[name].make() for name in names}
    drifted = []
    for file in sorted({f for name in names for f in SAMPLES[name].files}):
        path = ROOT / file
        text = path.read_text()
        found = blocks(text)
        for name in names:
            if file in SAMPLES[name].files and name not in found:
                raise SystemExit(f"{file} has no block '<!-- sample: {name} -->'")
        drifted += [f"{file}: {n}" for n in names if n in found and found[n] != made[n]]
        if not args.check:
            write_text_atomic(path, rewrite(text, made))
    for line in drifted:
        print(("drifted: " if args.check else "rewrote: ") + line)
    return 1 if args.check and drifted else 0


if __name__ == "__main__":
    sys.exit(main())
