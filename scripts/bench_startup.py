"""A fast start: the bench's ``startup`` section (``scripts/bench.py --only startup``).

- ``help_s``, ``help_cpu_s``: the median wall-clock and CPU seconds (user + system) of
  ``piggy --help`` over :data:`RUNS` runs, each a fresh process;
- ``typo_cpu_s``: the median CPU seconds of a typo'd ``piggy design compare stock
  stokc`` (one line, "unknown design", exit 2);
- ``bad_input_cpu_s``: per command that fires, the median CPU seconds of a bad
  input to it (:data:`BAD_INPUTS`, :data:`BAD_RUNS` runs each; one line, exit 2),
  and ``bad_input_worst_cpu_s``, the largest of them;
- ``runs`` and ``command``: how many runs, and how piggy was started.

The target (issues 34 and 43): each at most 0.3 s of CPU on the development
machine; the figures measured are in CONTRIBUTING.md, "A fast start".
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time

#: Runs of each command (a fresh process each).
RUNS = 10
TYPO = ("design", "compare", "stock", "stokc")
#: Runs of each bad input (a fresh process each).
BAD_RUNS = 3
#: A bad input to each command that fires, told before anything is imported to fire.
BAD_INPUTS = {
    "shoot": ("shoot", "--at", "r2c33"),
    "play": ("play", "go-piggy-go", "--seats", "human,nope"),
    "tournament": ("tournament", "go-piggy-go", "--seats", "greedy,nope"),
    "hitmap": ("hitmap", "--precision", "2"),
    "design compare": ("design", "compare", "stock", "fast-spring", "--precision", "0"),
    "design optimise": ("design", "optimise", "stock", "--param", "bale.nope=10:12"),
}


def piggy_command() -> list[str]:
    """The installed console script, else this Python's ``-m sim.cli``."""
    found = shutil.which("piggy")
    return [found] if found else [sys.executable, "-m", "sim.cli"]


def timed(argv: list[str], expect: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != expect:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def bench_startup(quiet: bool) -> dict:
    """The ``startup`` figures (above), printed unless ``quiet``."""
    piggy = piggy_command()
    helps = [timed([*piggy, "--help"], 0) for _ in range(RUNS)]
    typos = [timed([*piggy, *TYPO], 2) for _ in range(RUNS)]
    bad = {
        name: round(statistics.median(timed([*piggy, *argv], 2)[1] for _ in range(BAD_RUNS)), 3)
        for name, argv in BAD_INPUTS.items()
    }
    figures = {
        "help_s": round(statistics.median(w for w, _ in helps), 3),
        "help_cpu_s": round(statistics.median(c for _, c in helps), 3),
        "typo_cpu_s": round(statistics.median(c for _, c in typos), 3),
        "bad_input_cpu_s": bad,
        "bad_input_worst_cpu_s": max(bad.values()),
        "runs": RUNS,
        "command": " ".join(piggy),
    }
    if not quiet:
        print(f"startup, the median of {RUNS} runs each ({figures['command']})")
        print(
            f"  piggy --help          {figures['help_s']:.3f} s, {figures['help_cpu_s']:.3f} s CPU"
        )
        print(f"  piggy {' '.join(TYPO)}  {figures['typo_cpu_s']:.3f} s CPU (unknown design)")
        for name, cpu in bad.items():
            print(f"  piggy {' '.join(BAD_INPUTS[name])}  {cpu:.3f} s CPU (bad input)")
    return {"startup": figures}
