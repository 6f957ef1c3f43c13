"""The views draw from results and static scene data: none imports the engine
(docs/architecture.md, "The shot engine")."""

import ast
from pathlib import Path

#: The engines' modules: those that hold or drive a live simulation, Bullet's or
#: MuJoCo's (sim.physics.bullet itself, PyBullet imported quietly, is the renderer's
#: too).
ENGINE = {
    "sim.physics.bullet.world",
    "sim.physics.bullet.scene",
    "sim.physics.bullet.stand_ins",
    "sim.physics.bullet.shot_parts",
    "sim.physics.bullet.early_verdict",
    "sim.physics.mujoco.world",
    "sim.physics.mujoco.scene",
    "sim.physics.mujoco.early_verdict",
    "sim.physics.mujoco.free_flight",
    "sim.physics.mujoco.warp_batch",
    "sim.physics.mujoco.warp_shots",
    "sim.physics.mujoco.warp_world",
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
        "def draw(result):\n    from sim.physics.bullet.world import World\n"
    )
    (tmp_path / "other.py").write_text("from sim.physics.mujoco import scene\n")
    assert engine_imports(tmp_path) == [
        "other.py imports sim.physics.mujoco.scene",
        "picture.py imports sim.physics.bullet.world",
    ]
