"""The layer graph of docs/architecture.md, read from the code.

    python scripts/layer_graph.py            # print the graph
    python scripts/layer_graph.py --write    # put it into docs/architecture.md
    python scripts/layer_graph.py --check    # exit 1 when the document's is stale,
                                             # an import breaks a rule, or a module
                                             # is in no layer

Every module of models/, referee/ and sim/ is read with ``ast`` (nothing is
imported), and each of its imports counts: at the top, inside a function (it ties
the two modules together all the same when it runs) and under ``if TYPE_CHECKING:``
(a type checker's name for a module above is a dependency on it too). The modules
are grouped into the layers of :data:`LAYERS`, bottom first, and the graph says,
for each layer, which layers below it it imports and how many pairs of modules
make each arrow.

This module holds the layer rules, once: :data:`LAYERS` (a layer imports only
those below it), :data:`APART` (layers side by side that never import each other)
and :data:`BANNED_LIBRARIES`. :func:`violations` names every import that breaks
one; ``--check`` fails on any, and so does tests/test_repository.py, which reads
the rules and the imports from here.

The graph sits in docs/architecture.md between the markers
``<!-- layer-graph:begin -->`` and ``<!-- layer-graph:end -->``.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("models", "referee", "sim")
DOCUMENT = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- layer-graph:begin -->", "<!-- layer-graph:end -->"

#: The layers, bottom first: a layer may import only those before it. A module
#: belongs to the longest of these names it falls under; sim/__init__.py, which
#: imports nothing, to none.
LAYERS = (
    "models",
    "referee",
    "sim.colours",
    "sim.defaults",
    "sim.physics",
    "sim.physics.bullet",
    "sim.physics.mujoco",
    "sim.physics.warp",
    "sim.resolver",
    # the rooms of sim/studies/ by question, bottom first; notebook.py and demo.py,
    # which call several rooms, stand on them in sim.studies itself
    "sim.studies.shots",
    "sim.studies.designs",
    "sim.studies.running",
    "sim.studies.maps",
    "sim.studies.comparing",
    "sim.studies.optimising",
    "sim.studies.calibrating",
    "sim.studies",
    "sim.views",
    "sim.real_toy",
    "sim.envs",
    "sim.serve",
    "sim.cli",
)


#: Layers side by side, whatever their order in :data:`LAYERS`: neither imports the
#: other (each engine runs without the other installed).
APART = (
    ("sim.physics.bullet", "sim.physics.mujoco"),
    ("sim.physics.bullet", "sim.physics.warp"),
)

#: (part, the libraries it must not import, why). A part is a layer with everything
#: under it: what ``sim.physics`` must not import, neither may its engines.
BANNED_LIBRARIES = (
    ("referee", ("pybullet",), "the rules run without the physics"),
    ("sim.physics", ("matplotlib",), "the physics draws nothing"),
    ("sim.physics.mujoco", ("pybullet",), "the MuJoCo engine runs without PyBullet"),
    ("sim.physics.bullet", ("mujoco",), "the Bullet engine runs without MuJoCo"),
    ("sim.physics.warp", ("pybullet",), "the GPU engine runs without PyBullet"),
)


def within(name: str, prefix: str) -> bool:
    """Whether the dotted ``name`` is ``prefix`` or lies under it."""
    return name == prefix or name.startswith(prefix + ".")


def module_imports(source: str, module: str, is_package: bool, modules: set[str]) -> list[str]:
    """The names a module's source imports, anywhere in it: at the top, in a function,
    under ``if TYPE_CHECKING:``. ``from a import b`` names ``a.b`` when that is one of
    ``modules``, else ``a``; relative imports are resolved against ``module``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}".rstrip(".")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append(full if full in modules else base)
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


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, list[str]]:
    """Each module's imports (:func:`module_imports`), by dotted name."""
    modules = set(sources)
    return {
        name: module_imports(source, name, is_package, modules)
        for name, (source, is_package) in sources.items()
    }


def layer_of(module: str) -> str | None:
    """The layer of a module of the project (None for one outside the packages)."""
    owners = [layer for layer in LAYERS if within(module, layer)]
    return max(owners, key=len) if owners else None


def layer_edges(graph: dict[str, list[str]]) -> Counter[tuple[str, str]]:
    """(importing layer, imported layer) -> how many pairs of modules make that arrow;
    a layer's imports of itself are left out."""
    pairs = {
        (module, name)
        for module, imports in graph.items()
        for name in imports
        if layer_of(name) is not None
    }
    edges: Counter[tuple[str, str]] = Counter()
    for module, name in pairs:
        source, target = layer_of(module), layer_of(name)
        if source is not None and target is not None and source != target:
            edges[source, target] += 1
    return edges


def unplaced(graph: dict[str, list[str]]) -> list[str]:
    """The modules in no layer that import something: a new module of sim/ beside
    the layers, whose arrows the graph would leave out until it is given a place."""
    return sorted(
        module for module, imports in graph.items() if layer_of(module) is None and imports
    )


def violations(graph: dict[str, list[str]]) -> list[str]:
    """``module imports name: why`` for every import the rules forbid: one up the
    layers, one between layers kept :data:`APART`, one of a banned library. Every
    import counts (:func:`module_imports`): a type checker's name for a module above
    is a dependency on it all the same."""
    found = []
    for module, imports in sorted(graph.items()):
        source = layer_of(module)
        if source is None:
            continue
        for name in imports:
            why = _forbidden(module, source, name)
            if why:
                found.append(f"{module} imports {name}: {why}")
    return found


def _forbidden(module: str, source: str, name: str) -> str | None:
    """Why ``module`` (of layer ``source``) may not import ``name``; None if it may."""
    target = layer_of(name)
    if target is not None and LAYERS.index(target) > LAYERS.index(source):
        return f"{target} stands above {source}"
    if target is not None and ({source, target} in [set(pair) for pair in APART]):
        return f"{source} and {target} stand apart"
    for part, libraries, why in BANNED_LIBRARIES:
        if within(module, part) and any(within(name, library) for library in libraries):
            return why
    return None


def render(edges: Counter[tuple[str, str]], line_width: int = 80) -> str:
    """The graph as the document shows it: a fenced block, a layer from the top down,
    each with the layers it imports (highest first) and the count of pairs of modules
    behind each arrow, wrapped at ``line_width``."""
    width = max(len(layer) for layer in LAYERS)
    lines = []
    for source in reversed(LAYERS):
        targets = sorted(
            (target for s, target in edges if s == source), key=LAYERS.index, reverse=True
        )
        arrows = [f"{target} ({edges[source, target]})" for target in targets] or ["nothing"]
        line = f"{source:<{width}} → {arrows[0]}"
        for arrow in arrows[1:]:
            if len(line) + len(arrow) + 2 > line_width:
                lines.append(line + ",")
                line = " " * (width + 3) + arrow
            else:
                line += ", " + arrow
        lines.append(line)
    return "```text\n" + "\n".join(lines) + "\n```"


def with_graph(document: str, graph_text: str) -> str:
    """``document`` with ``graph_text`` between its markers (ValueError without them)."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {BEGIN} ... {END} block")
    return document[: start + len(BEGIN)] + "\n" + graph_text + "\n" + document[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="update docs/architecture.md")
    action.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when docs/architecture.md's graph is stale or an import breaks a rule",
    )
    args = parser.parse_args(argv)
    graph = import_graph(project_sources())
    edges = layer_edges(graph)
    text = render(edges)
    if not (args.write or args.check):
        print(text)
        return 0
    document = DOCUMENT.read_text(encoding="utf-8")
    made = with_graph(document, text)
    if args.write:
        DOCUMENT.write_text(made, encoding="utf-8")
    failures = violations(graph)
    failures += [f"{module} is in no layer: give it one in LAYERS" for module in unplaced(graph)]
    if args.check and made != document:
        failures.append(
            "docs/architecture.md: its layer graph is stale: run scripts/layer_graph.py --write"
        )
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
