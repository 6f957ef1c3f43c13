"""The repository's own rules: it stands on its own (every path and module it mentions
exists, nothing points outside it), and its dependencies point one way
(docs/architecture.md, "The parts"). Each checker is tested on a planted violation too.
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

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
#: A dotted module path in one of the packages: ``sim.physics.world``.
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
        'World is sim.physics.world.World; docs/formats.md."""\n',
    }
    assert dangling_references(planted) == [
        f"{doc}: mentions {OUTSIDE_NAMES[1]}, which is outside the repository",
        f"{doc}: {bad_path}",
        f"{doc}: {bad_module}",
        f"{doc}: link to rules/none.md",
        f"{module}: mentions {OUTSIDE_NAMES[0]}, which is outside the repository",
    ]


# --- imports --------------------------------------------------------------------------
@dataclass(frozen=True)
class Import:
    """One import in a module: what it names, whether it runs when the module is
    imported (at module level, not under ``if TYPE_CHECKING``), and whether it ever
    runs (anywhere but under ``if TYPE_CHECKING``: a function's import runs when the
    function is called)."""

    name: str
    at_import: bool
    runs: bool = True


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_imports(source: str, module: str, is_package: bool, modules: set[str]) -> list[Import]:
    """The imports of a module's source. ``from a import b`` names ``a.b`` when that is
    one of ``modules``, else ``a``; relative imports are resolved against ``module``."""
    found: list[Import] = []

    def visit(node: ast.AST, at_import: bool, runs: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend(Import(alias.name, at_import, runs) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = module if is_package else module.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}".rstrip(".")
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    found.append(Import(full if full in modules else base, at_import, runs))
            elif isinstance(child, ast.If) and _is_type_checking(child):
                visit(child, False, False)  # never runs: names for the type checker
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, False, runs)  # runs when called
            else:
                visit(child, at_import, runs)

    visit(ast.parse(source), True, True)
    return found


def project_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """Every module of the packages: dotted name -> (source, is a package)."""
    sources = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            sources[name] = (path.read_text(encoding="utf-8"), is_package)
    return sources


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, list[Import]]:
    modules = set(sources)
    return {
        name: module_imports(source, name, is_package, modules)
        for name, (source, is_package) in sources.items()
    }


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


#: (modules, what they must not import, why): docs/architecture.md, "The parts".
RULES = (
    ("models", ("referee", "sim"), "the toy as data stands below the rules and the physics"),
    ("referee", ("sim", "pybullet"), "the rules never need the physics"),
    (
        "sim.physics",
        ("sim.views", "sim.studies", "sim.cli", "matplotlib"),
        "the physics never imports pictures, studies or the command line",
    ),
)


def layer_violations(graph: dict[str, list[Import]]) -> list[str]:
    """``module imports name`` for every import, at any depth, that a rule forbids."""
    found = []
    for module, imports in sorted(graph.items()):
        for part, forbidden, _why in RULES:
            if not _within(module, part):
                continue
            for imported in imports:
                if any(_within(imported.name, f) for f in forbidden):
                    found.append(f"{module} imports {imported.name}")
    return found


def import_cycles(graph: dict[str, list[Import]]) -> list[list[str]]:
    """The cycles of imports among the project's modules, each as the path that closes
    it (``[a, b, a]``). Every import that runs counts, a function's too: one moved
    into a function to dodge a cycle at import time still ties the two modules
    together. Only a type checker's names (``if TYPE_CHECKING:``) are left out."""
    edges = {
        # a module's import of itself (sim.cli.demo's, to call its own function by
        # its full name) ties it to nothing else
        module: sorted({i.name for i in imports if i.runs and i.name in graph} - {module})
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


def test_no_import_cycle(graph):
    assert import_cycles(graph) == []


def test_the_graph_sees_the_real_imports(graph):
    """Sanity of the parser on known imports, so that an empty list of violations means
    something: a lazy import inside a function, a module-level one, a TYPE_CHECKING one."""
    shoot = {(i.name, i.at_import, i.runs) for i in graph["sim.physics.shoot"]}
    assert ("sim.physics.world", True, True) in shoot
    assert ("sim.physics.aim", True, True) in shoot
    calibrate = {(i.name, i.at_import, i.runs) for i in graph["sim.cli.calibrate"]}
    assert ("sim.studies.calibration", False, True) in calibrate  # in cmd_calibrate
    bots = {(i.name, i.at_import, i.runs) for i in graph["referee.bots"]}
    assert ("referee.go_piggy_go", False, False) in bots  # under TYPE_CHECKING


@pytest.mark.parametrize(
    ("package", "source", "imported"),
    [
        ("models", "from sim.physics.world import World\n", "sim.physics.world"),
        ("models", "def f():\n    import referee\n", "referee"),
        ("referee", "import pybullet\n", "pybullet"),
        ("referee", "from sim import resolver\n", "sim.resolver"),
        ("sim.physics", "def f():\n    import matplotlib.pyplot as plt\n", "matplotlib.pyplot"),
        ("sim.physics", "from ..views import render\n", "sim.views.render"),
        ("sim.physics", "from sim.cli import main\n", "sim.cli"),
    ],
)
def test_layer_violations_are_found(graph, package, source, imported):
    module = package + "." + "planted"  # in two pieces: no such module exists
    planted = {**graph, module: module_imports(source, module, False, {*graph, module})}
    assert layer_violations(planted) == [f"{module} imports {imported}"]


def with_source(graph, module: str, source: str) -> dict[str, list[Import]]:
    """The project's import graph with ``module``'s source replaced (the rest is the
    shared graph, parsed once: parsing the whole tree again costs half a second)."""
    is_package = (ROOT / module.replace(".", "/") / "__init__.py").is_file()
    return {**graph, module: module_imports(source, module, is_package, set(graph))}


def test_import_cycles_are_found(graph):
    module = "sim.physics.ballistics"
    source = (ROOT / "sim" / "physics" / "ballistics.py").read_text(encoding="utf-8")
    planted = with_source(graph, module, source + "\nfrom sim.physics import aim\n")
    (cycle,) = import_cycles(planted)  # where it is entered depends on the graph
    assert cycle[0] == cycle[-1] and set(cycle) == {"sim.physics.aim", module}
    # the same import hidden in a function is a cycle too: it runs when it is called
    planted = with_source(graph, module, source + "\ndef f():\n    from sim.physics import aim\n")
    (cycle,) = import_cycles(planted)
    assert set(cycle) == {"sim.physics.aim", module}
    # a type checker's import never runs: it names a type, it ties nothing at run time
    typed = "\nimport typing\n\nif typing.TYPE_CHECKING:\n    from sim.physics import aim\n"
    assert import_cycles(with_source(graph, module, source + typed)) == []


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


# --- the architecture document ----------------------------------------------------------
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def package_modules(root: Path = ROOT) -> list[str]:
    """Every Python module of the packages, as a path from the root
    (``sim/physics/world.py``), packages' ``__init__.py`` included."""
    return [
        path.relative_to(root).as_posix()
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
    ]


def modules_named(text: str) -> set[str]:
    """The module paths that ``text`` names: by path (``sim/physics/world.py``), or by
    dotted name (``sim.physics.world``, also at the head of an attribute's,
    ``sim.physics.world.World``); a package's folder (``sim/envs/``) or dotted name
    (``sim.envs``) names its ``__init__.py``."""
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
        "sim/physics/scene.py",
        "sim/physics/world.py",
        "sim/studies/hitmap.py",
        "sim/views/render.py",
    ]
    text = (
        "| `sim/physics/world.py` | the engine; `sim.studies.hitmap.run_sweep` |\n"
        "The package sim/envs/, and models/board_checks.py.\n"
        # none of these names a module: a file name alone, a longer dotted name, a path
        # inside another word (planted in pieces, so that this file mentions neither)
        "`scene.py` alone; " + "sim.physics." + "scenery; x" + "sim/views/render.py\n"
    )
    assert modules_left_out(text, modules) == [
        "models/board.py",
        "sim/physics/scene.py",
        "sim/views/render.py",
    ]
