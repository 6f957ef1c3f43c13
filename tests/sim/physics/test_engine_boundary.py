"""The views draw from results and static scene data: none imports the engine
(docs/architecture.md, "The shot engine")."""

import ast
from pathlib import Path

#: The engine's modules: those that hold or drive a live PyBullet simulation.
ENGINE = {
    "sim.physics.world",
    "sim.physics.scene",
    "sim.physics.stand_ins",
    "sim.physics.shot_parts",
    "sim.physics.early_verdict_bullet",
    "sim.physics.judge",
}
#: The sandbox is PyBullet's own window on a live simulation.
LIVE_VIEWS = {"sandbox.py"}


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def engine_imports(folder: Path) -> list[str]:
    return [
        f"{path.name} imports {module}"
        for path in sorted(folder.glob("*.py"))
        if path.name not in LIVE_VIEWS
        for module in sorted(imported_modules(path) & ENGINE)
    ]


def test_no_view_imports_the_engine():
    assert engine_imports(Path(__file__).resolve().parents[3] / "sim" / "views") == []


def test_a_view_importing_the_engine_is_found(tmp_path):
    (tmp_path / "picture.py").write_text(
        "def draw(result):\n    from sim.physics.world import World\n"
    )
    (tmp_path / "other.py").write_text("from sim.physics import scene\n")
    assert engine_imports(tmp_path) == [
        "other.py imports sim.physics.scene",
        "picture.py imports sim.physics.world",
    ]
