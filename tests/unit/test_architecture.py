"""The shape of the code: no import circles, no file over 500 lines, imports that run
downhill from the app to ``mitra.core``.

Imports are read from the source (``ast``), at any depth: a function-level import is an
import as much as a module-level one, and so is one under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from tests.conftest import REPO

MAX_LINES = 500
# What each part may import, lowest first: a module imports its own package and those
# below it, never one above. ``mitra.core`` imports no other part of MITRA.
LAYERS: list[set[str]] = [
    {"mitra", "mitra.core"},  # mitra/__init__.py: the version only
    {"mitra.models"},
    {"mitra.store"},
    {"mitra.access", "mitra.audit"},
    {"mitra.retrieval"},
    {"mitra.answer"},
    {"mitra.evaluation", "mitra.brief"},  # the brief reads the answer's value machinery
    {"mitra.adapt", "mitra.chat"},
    {"mitra.mcp"},  # the MCP server: what `mitra mcp` serves
    {"mitra.cli", "mitra.ui"},
    {"mitra.__main__", "ingest"},  # ingest.cli registers its commands with mitra.cli
    {"app", "pages"},
]
# The one way ``mitra`` reaches ``ingest``: ``mitra.cli.main`` loads ``ingest.cli`` by name
# (``COMMAND_MODULES``), so ``mitra ingest ...`` is one command line.
MITRA_LOADS_INGEST = {"mitra.cli.main": {"ingest.cli"}}


def _sources() -> dict[str, Path]:
    files = [p for folder in ("mitra", "ingest", "pages") for p in (REPO / folder).rglob("*.py")]
    modules = {}
    for path in files + [REPO / "app.py"]:
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


@cache
def _graph() -> dict[str, set[str]]:
    """Each module of mitra/, ingest/, pages/ and app.py, and the modules of those it imports."""
    modules = _sources()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        imported: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported |= {known(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    imported.add(full if full in modules else known(base))
        graph[module] = {m for m in imported if m and m != module}
    return graph


def _part(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "mitra" and len(parts) > 1 else parts[0]


def _layer(part: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if part in layer)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_part_has_a_layer():
    assert {_part(m) for m in _graph()} <= set().union(*LAYERS)


def test_imports_run_downhill():
    uphill = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if _part(module) != _part(target) and _layer(_part(target)) >= _layer(_part(module))
    ]
    assert uphill == []


def test_mitra_reaches_ingest_only_through_the_command_registry():
    by_name = {}
    for module, path in _sources().items():
        if not module.startswith("mitra"):
            continue
        names = {node.value for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("ingest.")}
        if names:
            by_name[module] = names
    assert by_name == MITRA_LOADS_INGEST
    assert not [m for m, targets in _graph().items() if m.startswith("mitra") for t in targets if t.startswith("ingest")]


def test_no_file_is_over_500_lines():
    files = [*(REPO / "mitra").rglob("*.py"), *(REPO / "ingest").rglob("*.py"), REPO / "app.py"]
    long = {str(p.relative_to(REPO)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}
