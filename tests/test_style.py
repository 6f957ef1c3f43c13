"""The style is what ``ruff format`` and ``ruff check`` enforce with the configuration
in pyproject.toml, and the types what mypy checks (CONTRIBUTING.md, "Style"): the
repository has no finding."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    """The ruff command: the executable beside this Python's, or on the PATH."""
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    return [found]


def test_ruff_check_finds_nothing():
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"ruff check found problems:\n{done.stdout}{done.stderr}"


def test_ruff_check_fails_on_a_finding(tmp_path):
    """The check above can fail: ruff with the repository's configuration flags an
    unused import."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "F401" in done.stdout


def test_ruff_format_would_change_nothing():
    done = subprocess.run(
        [*_ruff(), "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"ruff format would change files:\n{done.stdout}{done.stderr}"


def test_ruff_format_check_fails_on_a_badly_laid_out_file(tmp_path):
    """The check above can fail: ruff format with the repository's configuration
    would lay out a call with single quotes and no spaces otherwise."""
    bad = tmp_path / "bad.py"
    bad.write_text("print( 'x',1 )\n")
    done = subprocess.run(
        [
            *_ruff(),
            "format",
            "--check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(bad),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "would be reformatted" in done.stdout and bad.read_text() == "print( 'x',1 )\n"


#: The packages whose types mypy checks: the whole tree, as .ci/run's type-check step.
TYPED = ("models", "referee", "sim", "scripts")


@pytest.mark.slow  # mypy over the whole tree: about 30 s without its cache
def test_mypy_finds_no_type_error():
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[dev]')")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *TYPED], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"mypy found problems:\n{done.stdout}{done.stderr}"


@pytest.mark.slow
def test_mypy_fails_on_a_type_error(tmp_path):
    """The check above can fail: mypy with the repository's configuration flags a
    str passed where an int is expected."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[dev]')")
    bad = tmp_path / "bad.py"
    bad.write_text("def twice(n: int) -> int:\n    return 2 * n\n\n\ntwice('x')\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "arg-type" in done.stdout
