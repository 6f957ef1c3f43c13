"""Studies on a Dask cluster: the bench's ``cluster`` section (``scripts/bench.py
--only cluster``).

Each study runs, with the same seed and settings, on a ``LocalCluster`` of 1 and then
of 2 single-threaded worker processes (``--scheduler``), each run in a fresh cache
folder so that nothing is read instead of fired; and the hit map once more with 2
local worker processes (``--workers 2``), for what the cluster costs over them. Per
study: the seconds on 1 and on 2 workers, the speed-up and the efficiency (speed-up /
2). The figures measured are in docs/cluster.md, "What scales".
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time

from sim.cli import main as piggy

#: The studies timed, as ``piggy`` arguments (``CACHE``: the run's own folder).
STUDIES = {
    "hitmap": (
        *("hitmap", "--spaces", "r8c3,r2c3,r9c1,r1c5,r7c3,r3c2,r5c1,r6c1,r10c3,r4c1"),
        *("--shots", "40", "--out", "CACHE/map.csv"),
    ),
    "compare": (
        *("design", "compare", "stock", "fast-spring"),
        *("--spaces", "r8c3,r2c3,r9c1,r1c5,r7c3,r3c2", "--shots", "40", "--cache", "CACHE"),
    ),
    "sweep": (
        *("design", "sweep", "--param", "muzzle_speed=1800:2400:2"),
        *("--spaces", "r8c3,r2c3,r9c1,r1c5,r7c3", "--shots", "20", "--cache", "CACHE"),
    ),
    "aim_sd_scan": (
        *("hitmap", "--spaces", "r8c3,r2c3,r9c1,r1c5", "--aim-sd-scan", "0:4:3"),
        *("--shots", "20", "--out", "CACHE/scan.csv"),
    ),
    "optimise": (
        *("design", "optimise", "stock", "--spaces", "r9c1,r10c3,r1c5,r8c3", "--shots", "20"),
        *("--param", "pivot_height=80:120", "--trials", "6", "--in-flight", "2"),
        *("--cache", "CACHE", "--storage", "sqlite:///CACHE/s.db", "--out", "CACHE/best.toml"),
    ),
}


def timed(argv: tuple[str, ...], *where: str) -> float:
    """Wall-clock seconds of ``piggy argv`` in a fresh folder, its output kept quiet."""
    with tempfile.TemporaryDirectory() as folder:
        args = [a.replace("CACHE", folder) for a in argv]
        start = time.perf_counter()
        said = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
            code = piggy([*args, *where, "--json"])
        took = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"piggy {' '.join(argv)} {' '.join(where)}: {said.getvalue()}")
    return took


def bench_cluster(quiet: bool) -> dict:
    """The ``cluster`` figures (above), printed unless ``quiet``."""
    from dask.distributed import LocalCluster

    seconds: dict[str, dict[int, float]] = {name: {} for name in STUDIES}
    for workers in (1, 2):
        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster:
            timed(STUDIES["hitmap"], "--scheduler", cluster.scheduler_address)  # warm workers
            for name, argv in STUDIES.items():
                seconds[name][workers] = timed(argv, "--scheduler", cluster.scheduler_address)
    local = timed(STUDIES["hitmap"], "--workers", "2")
    figures = {
        name: {
            "seconds_1_worker": round(s[1], 2),
            "seconds_2_workers": round(s[2], 2),
            "speedup": round(s[1] / s[2], 3),
            "efficiency": round(s[1] / s[2] / 2, 3),
        }
        for name, s in seconds.items()
    }
    figures["hitmap"]["seconds_2_local_processes"] = round(local, 2)
    if not quiet:
        print("studies on a Dask LocalCluster, 1 against 2 single-threaded workers")
        for name, row in figures.items():
            print(
                f"  {name:12s} {row['seconds_1_worker']:7.1f} s  {row['seconds_2_workers']:7.1f} s"
                f"  speed-up {row['speedup']:.2f}  efficiency {row['efficiency']:.2f}"
            )
        print(f"  hitmap with 2 local processes instead: {local:.1f} s")
    return {"cluster": figures}


if __name__ == "__main__":
    bench_cluster(quiet=False)
