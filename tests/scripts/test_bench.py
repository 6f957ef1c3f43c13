"""scripts/bench.py runs and reports what issue 5 asks of it (no timing asserted)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_shots_reports_every_figure_as_json():
    run = subprocess.run([sys.executable, "scripts/bench.py", "--only", "shots", "--shots", "4",
                          "--naive-shots", "2", "--json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True)
    figures = json.loads(run.stdout)
    for key in ("naive_shots_per_s", "engine_shots_per_s", "engine_2w_shots_per_s",
                "verdict_agreement", "reference_agreement_aim_nudged"):
        assert figures[key] > 0, key
    assert 0 <= figures["verdict_agreement"] <= 1
    assert figures["two_workers_same_verdicts"]
