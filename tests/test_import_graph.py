"""Dependencies point one way: no import cycle inside palais_sim (lazy imports inside functions count too), and
analytics play no games (they read Parquet; the schema in tournament.records is the only tournament module they use).

The command-line modules are left out of the cycle check: ``palais_sim.cli`` registers the layers' commands, whose
``cli`` modules take its error helpers back (a cycle through lazy imports, owned by the CLI).
"""

from __future__ import annotations

import ast
from pathlib import Path

import palais_sim

PACKAGE = Path(palais_sim.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each palais_sim module -> the palais_sim modules it imports anywhere in its source."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module in modules:
                    deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in modules)
        graph[name] = deps - {name, "palais_sim"}  # the package itself: only __version__
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_outside_the_command_line() -> None:
    graph = {
        m: {d for d in deps if not d.endswith("cli")} for m, deps in import_graph().items() if not m.endswith("cli")
    }
    assert cycles(graph) == []


def test_the_executor_backends_import_one_way() -> None:
    graph = import_graph()
    assert "palais_sim.tournament.executor" not in graph["palais_sim.tournament.ray_backend"]
    assert "palais_sim.tournament.ray_backend" not in graph["palais_sim.tournament.pool"]
    assert "palais_sim.tournament.executor" not in graph["palais_sim.tournament.pool"]


def test_analytics_play_no_games() -> None:
    graph = import_graph()
    playing = ("palais_sim.engine", "palais_sim.strategy", "palais_sim.registry", "strategies")
    tournament_ok = {"palais_sim.tournament.records"}
    for module, deps in graph.items():
        if not module.startswith("palais_sim.analytics") or module == "palais_sim.analytics.cli":
            continue
        bad = {d for d in deps if d.startswith(playing)}
        bad |= {d for d in deps if d.startswith("palais_sim.tournament") and d not in tournament_ok}
        assert not bad, f"{module} imports {sorted(bad)}"
