"""The repository's own rules: it stands on its own (every path and module it mentions
exists, nothing points outside it), and its dependencies point one way
(docs/architecture.md, "The parts"). Each checker is tested on a planted violation too.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import layer_graph_script

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("models", "referee", "sim")
#: Names of files outside the repository that it once pointed to (spelled in two
#: pieces so that this file does not mention them itself).
OUTSIDE_NAMES = ("DESIGN" + ".md", "RULINGS" + ".md", "shared" + "/")
#: Tracked files that are not text to read for references.
_NOT_TEXT = {".png", ".gif", ".mp4", ".obj", ".parquet", ".jpg"}
#: Endings that make ``name.md`` a file name rather than a module path.
_FILE_SUFFIXES = {"md", "py", "toml", "json", "jsonl", "txt", "csv", "html", "png", "gif"}


# --- references -----------------------------------------------------------------------
def tracked_text_files(root: Path = ROOT) -> dict[str, str]:
    """Every tracked text file of the repository: path relative to the root -> text."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    files = {}
    for name in filter(None, listed.split("\0")):
        path = root / name
        if path.suffix in _NOT_TEXT or not path.is_file():
            continue
        try:
            files[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return files


#: A path from the repository's root: a top-level folder, then a path in it.
_TOP = "|".join((*PACKAGES, "scripts", "tests", "docs"))
_PATH_RE = re.compile(rf"(?<![\w./-])(?:{_TOP})/[\w./*<>-]*")
#: A dotted module path in one of the packages: ``sim.physics.bullet.world``.
_MODULE_RE = re.compile(rf"(?<![\w./-])(?:{'|'.join(PACKAGES)})(?:\.[a-z_][a-z0-9_]*)+")
#: The target of a Markdown link or image, relative to the Markdown file.
_LINK_RE = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def _path_exists(root: Path, path: str) -> bool:
    """Whether a mentioned path exists: a glob must match something; a placeholder
    (``docs/rules/<game>.md``) needs only the folder before it."""
    if "<" in path:
        path = path[: path.index("<")].rpartition("/")[0]
    if "*" in path:
        return any(root.glob(path))
    return (root / path).exists()


def _module_exists(root: Path, dotted: str) -> bool:
    """Whether ``a.b.c`` names a module of the project, or a name defined in a
    package's ``__init__.py`` (what follows a module is an attribute: not checked)."""
    parts = dotted.split(".")
    folder = root / parts[0]
    for part in parts[1:]:
        if (folder / f"{part}.py").is_file():
            return True
        if (folder / part / "__init__.py").is_file():
            folder = folder / part
            continue
        init = folder / "__init__.py"
        return init.is_file() and re.search(rf"\b{part}\b", init.read_text()) is not None
    return True


def dangling_references(files: dict[str, str], root: Path = ROOT) -> list[str]:
    """``file: reference`` for every path, module or Markdown link mentioned in ``files``
    (relative path -> text) that does not exist in the repository at ``root``, and for
    every mention of a file outside it."""
    found = []
    for name, text in sorted(files.items()):
        found += [
            f"{name}: mentions {outside}, which is outside the repository"
            for outside in OUTSIDE_NAMES
            if outside in text
        ]
        found += [f"{name}: {path}" for path in _missing_paths(text, root)]
        found += [f"{name}: {module}" for module in _missing_modules(text, root)]
        if name.endswith(".md"):
            found += [f"{name}: link to {target}" for target in _broken_links(name, text, root)]
    return found


def _missing_paths(text: str, root: Path) -> list[str]:
    """The paths from the root that ``text`` mentions and that do not exist."""
    paths = (match.group().rstrip(".,:;") for match in _PATH_RE.finditer(text))
    return [path for path in paths if not _path_exists(root, path)]


def _missing_modules(text: str, root: Path) -> list[str]:
    """The dotted module paths that ``text`` mentions and that name no module (a
    file name such as ``referee.md`` is not one)."""
    modules = (match.group() for match in _MODULE_RE.finditer(text))
    return [
        module
        for module in modules
        if module.rpartition(".")[2] not in _FILE_SUFFIXES and not _module_exists(root, module)
    ]


def _broken_links(name: str, text: str, root: Path) -> list[str]:
    """The targets of the Markdown file ``name``'s links and images, relative to it,
    that do not exist (web and mail addresses are not checked)."""
    targets = (match.group(1) for match in _LINK_RE.finditer(text))
    return [
        target
        for target in targets
        if "://" not in target
        and not target.startswith("mailto:")
        and not (root / name).parent.joinpath(target).exists()
    ]


def test_every_reference_points_to_something_in_the_repository():
    assert dangling_references(tracked_text_files()) == []


def test_dangling_references_are_found():
    # Planted names are put together from pieces, so that this file mentions none.
    doc, module = "/".join(("docs", "planted.md")), "/".join(("sim", "planted.py"))
    bad_path = "sim/physics/" + "no_such_module.py"
    bad_module = "sim.physics." + "no_such_engine"
    planted = {
        doc: f"See {bad_path} and [the rules](rules/none.md);\nthe engine is {bad_module}; "
        f"rulings in {OUTSIDE_NAMES[1]}.\n",
        module: f'"""Board frame ({OUTSIDE_NAMES[0]}, "Units").\n'
        "As in docs/rules/<game>.md and models/boards/*.toml;\n"
        'BulletWorld is sim.physics.bullet.world.BulletWorld; docs/formats.md."""\n',
    }
    assert dangling_references(planted) == [
        f"{doc}: mentions {OUTSIDE_NAMES[1]}, which is outside the repository",
        f"{doc}: {bad_path}",
        f"{doc}: {bad_module}",
        f"{doc}: link to rules/none.md",
        f"{module}: mentions {OUTSIDE_NAMES[0]}, which is outside the repository",
    ]


# --- imports --------------------------------------------------------------------------
layer_graph = layer_graph_script()
module_imports, project_sources = layer_graph.module_imports, layer_graph.project_sources
import_graph = layer_graph.import_graph

#: The layer rules, as scripts/layer_graph.py holds them (LAYERS, APART,
#: BANNED_LIBRARIES): ``module imports name: why`` for each import that breaks one.
layer_violations = layer_graph.violations


def import_cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The cycles of imports among the project's modules, each as the path that closes
    it (``[a, b, a]``). Every import counts: a function's (one moved into a function to
    dodge a cycle at import time still ties the two modules together) and a type
    checker's (a module naming a type of one that imports it, where the type belongs
    below both)."""
    edges = {
        module: sorted({name for name in imports if name in graph})
        for module, imports in graph.items()
    }
    cycles, state = [], {}  # state: 1 on the current path, 2 finished

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in edges[module]:
            if state.get(target) == 1:  # on the path: a cycle closes
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return cycles


@pytest.fixture(scope="module")
def graph():
    return import_graph(project_sources())


def test_dependencies_point_one_way(graph):
    assert layer_violations(graph) == []
    assert layer_graph.unplaced(graph) == []


def test_no_import_cycle(graph):
    assert import_cycles(graph) == []


def test_the_graph_sees_the_real_imports(graph):
    """Sanity of the parser on known imports, so that an empty list of violations means
    something: a module-level import, a lazy one inside a function, a TYPE_CHECKING one."""
    assert {"sim.physics.engine", "sim.physics.aim"} <= set(graph["sim.physics.shoot"])
    assert "sim.studies.calibrating.calibration" in graph["sim.cli.calibrate"]  # in cmd_calibrate
    assert "referee.go_piggy_go" in graph["referee.bots"]  # under TYPE_CHECKING


#: A type checker's import, as the project writes it and as ``typing.`` spells it.
_TYPED = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    {}\n"
_TYPED_ATTRIBUTE = "import typing\n\nif typing.TYPE_CHECKING:\n    {}\n"


@pytest.mark.parametrize(
    ("package", "source", "imported"),
    [
        (
            "models",
            "from sim.physics.bullet.world import BulletWorld\n",
            "sim.physics.bullet.world",
        ),
        ("models", "def f():\n    import referee\n", "referee"),
        ("models", _TYPED.format("from referee.api import State"), "referee.api"),
        ("referee", "import pybullet\n", "pybullet"),
        ("sim.physics.mujoco", "import pybullet as p\n", "pybullet"),
        (
            "sim.physics.mujoco",
            "from sim.physics.bullet import world\n",
            "sim.physics.bullet.world",
        ),
        ("sim.physics.bullet", "def f():\n    import mujoco\n", "mujoco"),
        (
            "sim.physics.bullet",
            "from sim.physics.mujoco import world\n",
            "sim.physics.mujoco.world",
        ),
        ("referee", "from sim import resolver\n", "sim.resolver"),
        ("referee", _TYPED_ATTRIBUTE.format("from sim.physics import aim"), "sim.physics.aim"),
        ("sim.physics", "def f():\n    import matplotlib.pyplot as plt\n", "matplotlib.pyplot"),
        ("sim.physics", "from ..views import render\n", "sim.views.render"),
        ("sim.physics", "from sim.cli import main\n", "sim.cli"),
        ("sim.physics", _TYPED.format("from sim.serve.app import make_app"), "sim.serve.app"),
        ("sim.studies", "from sim.views import viewer\n", "sim.views.viewer"),
        (
            "sim.studies",
            "def f():\n    from ..views.pictures import figure_png\n",
            "sim.views.pictures",
        ),
        (
            "sim.studies",
            _TYPED.format("from sim.views.viewer import shot_data"),
            "sim.views.viewer",
        ),
        ("sim.studies", _TYPED.format("from sim.cli.common import Parser"), "sim.cli.common"),
        ("sim.studies", "from sim.serve import jobs\n", "sim.serve.jobs"),
        ("sim.serve", "from sim.cli.common import MAX_WORKERS\n", "sim.cli.common"),
        ("sim.serve", _TYPED_ATTRIBUTE.format("import sim.cli.hitmap"), "sim.cli.hitmap"),
    ],
)
def test_layer_violations_are_found(graph, package, source, imported):
    module = package + "." + "planted"  # in two pieces: no such module exists
    planted = {**graph, module: module_imports(source, module, False, {*graph, module})}
    (violation,) = layer_violations(planted)
    assert violation.startswith(f"{module} imports {imported}: ")


def test_layer_violations_are_found_in_a_tree_of_files(tmp_path):
    """The checker on files, read as the real tree is: a study that names a view's
    type for the type checker only is an upward import all the same."""
    for package in ("models", "referee", "sim", "sim/studies", "sim/views"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    study, view = "planted_study", "planted_view"  # in files of a temporary tree
    (tmp_path / "sim" / "views" / f"{view}.py").write_text("def draw(): ...\n")
    (tmp_path / "sim" / "studies" / f"{study}.py").write_text(
        "from __future__ import annotations\n\n" + _TYPED.format(f"from sim.views import {view}")
    )
    assert layer_violations(import_graph(project_sources(tmp_path))) == [
        f"sim.studies.{study} imports sim.views.{view}: sim.views stands above sim.studies"
    ]


def with_source(graph, module: str, source: str) -> dict[str, list[str]]:
    """The project's import graph with ``module``'s source replaced (the rest is the
    shared graph, parsed once: parsing the whole tree again costs half a second)."""
    is_package = (ROOT / module.replace(".", "/") / "__init__.py").is_file()
    return {**graph, module: module_imports(source, module, is_package, set(graph))}


def _source(module: str) -> str:
    return (ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")


def test_import_cycles_are_found(graph):
    module = "sim.physics.ballistics"
    source = _source(module)
    planted = with_source(graph, module, source + "\nfrom sim.physics import aim\n")
    (cycle,) = import_cycles(planted)  # where it is entered depends on the graph
    assert cycle[0] == cycle[-1] and set(cycle) == {"sim.physics.aim", module}
    # the same import hidden in a function is a cycle too: it runs when it is called
    planted = with_source(graph, module, source + "\ndef f():\n    from sim.physics import aim\n")
    (cycle,) = import_cycles(planted)
    assert set(cycle) == {"sim.physics.aim", module}
    # and so is a type checker's: the type it names belongs below both modules
    planted = with_source(
        graph, module, source + _TYPED_ATTRIBUTE.format("from sim.physics import aim")
    )
    (cycle,) = import_cycles(planted)
    assert set(cycle) == {"sim.physics.aim", module}


@pytest.mark.parametrize(
    ("reader", "game", "name"),
    [
        ("referee.woolfy_load", "referee.woolfy", "WoolfyState"),
        ("referee.by_golly_load", "referee.by_golly", "ByGollyState"),
        ("referee.go_piggy_go_load", "referee.go_piggy_go", "GoPiggyGoState"),
        ("models.mesh_files", "models.design", "Design"),
    ],
)
def test_a_type_back_to_an_importer_is_a_cycle(graph, reader, game, name):
    """The back-reference a file split once left (a saved-state reader naming the state
    of the game module that imports it, the mesh reader naming the design) is refused."""
    assert reader in graph[game]  # the module above imports the reader
    typed = "\n" + _TYPED.format(f"from {game} import {name}")
    cycles = import_cycles(with_source(graph, reader, _source(reader) + typed))
    assert any({reader, game} <= set(cycle) for cycle in cycles), cycles


# --- the layer graph of docs/architecture.md ------------------------------------------
def test_the_documents_layer_graph_is_the_codes(graph):
    """docs/architecture.md's layer graph is what scripts/layer_graph.py reads from the
    code now (``python scripts/layer_graph.py --write`` remakes it)."""
    document = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    made = layer_graph.render(layer_graph.layer_edges(graph))
    assert layer_graph.with_graph(document, made) == document, (
        "docs/architecture.md: its layer graph is stale: run scripts/layer_graph.py --write"
    )


def test_the_layer_graph_shows_a_planted_upward_arrow(graph):
    """An upward import, a type checker's one, shows as an arrow up, and the document's
    graph is then stale."""
    module = "sim.studies." + "planted"
    source = _TYPED.format("from sim.views import viewer")
    planted = {**graph, module: module_imports(source, module, False, {*graph, module})}
    edges = layer_graph.layer_edges(planted)
    assert edges["sim.studies", "sim.views"] == 1
    assert layer_violations(planted) == [
        f"{module} imports sim.views.viewer: sim.views stands above sim.studies"
    ]
    document = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert layer_graph.with_graph(document, layer_graph.render(edges)) != document
    # a module of sim/ beside the layers is told, not left out of the graph
    loose = "sim." + "planted"
    beside = {**graph, loose: module_imports("import sim.physics\n", loose, False, set(graph))}
    assert layer_graph.unplaced(beside) == [loose]


def test_a_room_of_the_studies_imports_only_the_rooms_below_it(graph):
    """The rooms of sim/studies/ are layers of their own: a module of the lowest room
    that imports one of the highest imports upwards."""
    module = "sim.studies.shots." + "planted"
    high = next(name for name in graph if name.startswith("sim.studies.calibrating."))
    source = f"import {high}\n"
    planted = {**graph, module: module_imports(source, module, False, {*graph, module})}
    assert layer_violations(planted) == [
        f"{module} imports {high}: sim.studies.calibrating stands above sim.studies.shots"
    ]


#: The most lines a module of models/, referee/ or sim/ may have (CONTRIBUTING.md:
#: small enough to read in one sitting).
MODULE_LINES = 400


def test_no_module_of_the_package_is_over_400_lines():
    """A module of models/, referee/ or sim/ grown over the line is split along a seam
    (its room has space for another), not let go."""
    long = {
        path.relative_to(ROOT).as_posix(): lines
        for package in ("models", "referee", "sim")
        for path in sorted((ROOT / package).rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_layer_graph_check_exits_1_when_the_document_is_stale(graph, tmp_path, monkeypatch, capsys):
    # the graph read once for this module, not three times more (2 s of CPU)
    monkeypatch.setattr(layer_graph, "import_graph", lambda sources: graph)
    monkeypatch.setattr(layer_graph, "project_sources", dict)
    document = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    copy = tmp_path / "architecture.md"
    copy.write_text(document.replace("models (", "models (1", 1), encoding="utf-8")
    monkeypatch.setattr(layer_graph, "DOCUMENT", copy)
    assert layer_graph.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert layer_graph.main(["--write"]) == 0
    assert copy.read_text(encoding="utf-8") == document
    assert layer_graph.main(["--check"]) == 0


def test_every_package_is_installed():
    """pyproject.toml lists every package folder: one left out is missing from an
    installed wheel (an editable install hides it)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for package in PACKAGES
        for p in (ROOT / package).rglob("__init__.py")
    }
    assert listed == folders


def _imported_at_top(folder: Path) -> set[str]:
    """The top-level modules the Python files under ``folder`` import (absolutely)."""
    import ast

    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def _declared(requirements: list[str]) -> set[str]:
    """The distributions a list of requirements names, normalised (PEP 503)."""
    return {
        re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements
    }


@pytest.mark.slow
def test_every_package_the_tests_import_is_declared_for_them():
    """What the tests import is in the project's dependencies or its ``dev`` extra,
    not only pulled in by another package (psutil came with dask, SQLAlchemy with
    Optuna); a module not installed here is left to the tests that import it."""
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = _declared(project["dependencies"] + project["optional-dependencies"]["dev"])
    ours = {*PACKAGES, "tests", *(p.stem for p in (ROOT / "scripts").glob("*.py"))}
    distributions = packages_distributions()
    undeclared = {
        module: distributions[module]
        for module in _imported_at_top(ROOT / "tests") - set(sys.stdlib_module_names) - ours
        if module in distributions and not _declared(distributions[module]) & declared
    }
    assert not undeclared, f"imported by the tests, declared nowhere: {undeclared}"


# --- the architecture document ----------------------------------------------------------
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def package_modules(root: Path = ROOT) -> list[str]:
    """Every Python module of the packages, as a path from the root
    (``sim/physics/bullet/world.py``), packages' ``__init__.py`` included."""
    return [
        path.relative_to(root).as_posix()
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    ]


def modules_named(text: str) -> set[str]:
    """The module paths that ``text`` names: by path (``sim/physics/bullet/world.py``),
    or by dotted name (``sim.physics.bullet.world``, also at the head of an
    attribute's, ``sim.physics.bullet.world.BulletWorld``); a package's folder
    (``sim/envs/``) or dotted name (``sim.envs``) names its ``__init__.py``."""
    named = set()
    for match in _PATH_RE.finditer(text):
        path = match.group().rstrip(".,:;")
        named.add(path + "__init__.py" if path.endswith("/") else path)
    for match in _MODULE_RE.finditer(text):
        parts = match.group().split(".")
        for end in range(1, len(parts) + 1):
            stem = "/".join(parts[:end])
            named |= {f"{stem}.py", f"{stem}/__init__.py"}
    return named


def modules_left_out(text: str, modules: list[str]) -> list[str]:
    """The modules (paths from the root) that ``text`` does not name."""
    named = modules_named(text)
    return [module for module in modules if module not in named]


def test_the_architecture_names_every_module():
    """docs/architecture.md has a row for every module of models/, referee/ and sim/:
    a module added without one fails here, so the document cannot fall behind."""
    assert modules_left_out(ARCHITECTURE.read_text(encoding="utf-8"), package_modules()) == []


def test_modules_left_out_are_found():
    modules = [
        "models/board.py",
        "models/board_checks.py",
        "sim/envs/__init__.py",
        "sim/physics/bullet/scene.py",
        "sim/physics/bullet/world.py",
        "sim/studies/maps/hitmap.py",
        "sim/views/render.py",
    ]
    text = (
        "| `sim/physics/bullet/world.py` | the engine; `sim.studies.maps.hitmap.run_sweep` |\n"
        "The package sim/envs/, and models/board_checks.py.\n"
        # none of these names a module: a file name alone, a longer dotted name, a path
        # inside another word (planted in pieces, so that this file mentions neither)
        "`scene.py` alone; " + "sim.physics." + "scenery; x" + "sim/views/render.py\n"
    )
    assert modules_left_out(text, modules) == [
        "models/board.py",
        "sim/physics/bullet/scene.py",
        "sim/views/render.py",
    ]


# --- the command line -------------------------------------------------------------------
#: The most lines a function of the command line may have: it parses, calls a study and
#: prints; a longer one holds work that belongs below it (sim/studies/, referee/,
#: models/), where a notebook can call it.
CLI_FUNCTION_LINES = 39


def long_functions(files: dict[str, str], most: int = CLI_FUNCTION_LINES) -> list[str]:
    """``file: name (N lines)`` for every function (methods and nested ones too) of
    ``files`` (path -> source) longer than ``most`` lines, its decorators and
    docstring counted; a command's options too are declared a group at a time."""
    import ast

    found = []
    for name, source in sorted(files.items()):
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = (node.end_lineno or node.lineno) - first + 1
            if lines > most:
                found.append(f"{name}: {node.name} ({lines} lines)")
    return found


def test_the_command_line_only_parses_calls_and_prints():
    files = {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "sim" / "cli").glob("*.py"))
    }
    assert long_functions(files) == []


def test_long_functions_are_found():
    def lines(count: int, indent: str = "    ") -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(count))

    most, name = CLI_FUNCTION_LINES, "/".join(("sim", "cli", "planted.py"))
    planted = {
        name: f"def fits():\n{lines(most - 1)}\n"
        f"def long():\n{lines(most)}\n"
        f"def add_options(p):\n{lines(most)}\n"
        # a method, its decorator counted
        f"class A:\n    @staticmethod\n    def decorated():\n{lines(most - 1, ' ' * 8)}",
    }
    assert long_functions(planted) == [
        f"{name}: long ({most + 1} lines)",
        f"{name}: add_options ({most + 1} lines)",
        f"{name}: decorated ({most + 1} lines)",
    ]
