"""A fast start: the bench's ``startup`` section (``scripts/bench.py --only startup``).

- ``help_s``, ``help_cpu_s``: the median wall-clock and CPU seconds (user + system) of
  ``piggy --help`` over :data:`RUNS` runs, each a fresh process;
- ``typo_cpu_s``: the median CPU seconds of a typo'd ``piggy design compare stock
  stokc`` (one line, "unknown design", exit 2);
- ``runs`` and ``command``: how many runs, and how piggy was started.

The target (issue 34): both at most 0.3 s of CPU on the development machine; the
figures measured are in CONTRIBUTING.md, "A fast start".
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
    figures = {
        "help_s": round(statistics.median(w for w, _ in helps), 3),
        "help_cpu_s": round(statistics.median(c for _, c in helps), 3),
        "typo_cpu_s": round(statistics.median(c for _, c in typos), 3),
        "runs": RUNS,
        "command": " ".join(piggy),
    }
    if not quiet:
        print(f"startup, the median of {RUNS} runs each ({figures['command']})")
        print(
            f"  piggy --help          {figures['help_s']:.3f} s, {figures['help_cpu_s']:.3f} s CPU"
        )
        print(f"  piggy {' '.join(TYPO)}  {figures['typo_cpu_s']:.3f} s CPU (unknown design)")
    return {"startup": figures}
