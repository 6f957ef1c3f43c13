"""The views draw from results and static scene data: none imports the engine
(docs/architecture.md, "The shot engine"). Which modules are the engines' is the
layer rule's, not a list kept by hand: every module under a layer that
scripts/layer_graph.py keeps apart (each engine's folder, whatever modules it grows),
and the seam's live half in the core."""

import ast
from pathlib import Path

from tests.helpers import layer_graph_script

ROOT = Path(__file__).resolve().parents[3]


layer_graph = layer_graph_script()
#: The engines' layers: those kept apart, each engine running without the other.
ENGINE_LAYERS = {layer for pair in layer_graph.APART for layer in pair}
#: The project's modules (an import's names that are not modules are no engine).
MODULES = set(layer_graph.project_sources())
#: The core's modules that drive or read a live scene: the seam (the engines'
#: protocols and their shared base) and the judge.
LIVE_CORE = {"sim.physics.engine", "sim.physics.judge"}


def is_engine(module: str) -> bool:
    """Whether ``module`` holds or drives a live simulation: a module under an
    engine's layer (its package itself aside: sim.physics.bullet, PyBullet imported
    quietly, is the renderer's too), or the core's live half."""
    if module not in MODULES:
        return False
    layer = layer_graph.layer_of(module)
    return (layer in ENGINE_LAYERS and module != layer) or module in LIVE_CORE


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
        for module in sorted(filter(is_engine, imported_modules(path)))
    ]


def test_no_view_imports_the_engine():
    assert engine_imports(ROOT / "sim" / "views") == []


def test_a_view_importing_the_engine_is_found(tmp_path):
    (tmp_path / "picture.py").write_text(
        "def draw(result):\n    from sim.physics.bullet.world import BulletWorld\n"
    )
    (tmp_path / "other.py").write_text("from sim.physics.mujoco import scene\n")
    # a batch module the old hand list missed, and the core's judge
    (tmp_path / "batch.py").write_text("import sim.physics.mujoco.batch_book\n")
    (tmp_path / "judged.py").write_text("from sim.physics.judge import Judge\n")
    (tmp_path / "drawn.py").write_text("from sim.physics import bullet, results\n")  # allowed
    assert engine_imports(tmp_path) == [
        "batch.py imports sim.physics.mujoco.batch_book",
        "judged.py imports sim.physics.judge",
        "other.py imports sim.physics.mujoco.scene",
        "picture.py imports sim.physics.bullet.world",
    ]


def test_every_module_of_an_engines_folder_is_the_engines():
    engines = [m for m in MODULES if is_engine(m)]
    for module in ("sim.physics.mujoco.batch", "sim.physics.mujoco.batch_sensors"):
        assert module in engines
    assert "sim.physics.bullet" not in engines and "sim.physics.results" not in engines
