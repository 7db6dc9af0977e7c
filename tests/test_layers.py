"""The layers point one way: every import of palais_sim/ and strategies/ goes to the importer's own layer or below,
and no modules import each other in a circle.

Imports are read from the source with ``ast``: module-level ones and the lazy ones inside functions alike (an import
under ``if TYPE_CHECKING:`` counts too: it still says which layer a module leans on). Imports by string count too: an
``importlib.import_module("x")`` with a literal name, and a ``"module:attribute"`` string literal that names a module
of the packages (a game's ``GAME.strategies``, ``GAME.studies`` and ``GAME.report_sections``, loaded at run time):
the module that holds the string depends on the module it names. The one exception is the registry's registration
table (``REGISTRATIONS``), below. To change the architecture, edit ``LAYERS``: one line per layer, lowest first.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("palais_sim", "strategies")
# Every game package (palais_sim/games/<game>/): its engine sits in the game layers below; its analytics
# (``analysis/``) and studies (``studies/``, their command line ``studies/commands.py``) sit at the shared layers of
# the same name, so they may use the shared machinery and nothing shared may use them.
GAMES = sorted(p.name for p in (REPO / "palais_sim" / "games").iterdir() if (p / "__init__.py").is_file())

# Lowest first. A module may import modules of its own layer and of the layers below it, never above.
# An entry covers the module it names and every module under it ("palais_sim.tournament" is the whole package);
# the longest entry that covers a module decides its layer. "x.__init__" means the package x itself, nothing under it.
LAYERS: list[tuple[str, ...]] = [
    ("palais_sim._build", "palais_sim._moved"),  # which engine runs, compiled or source: imported first of all
    # the game interface, the play loop and its errors, the seat contract (palais_sim.strategy: its stable import)
    ("palais_sim.__init__", "palais_sim.core", "palais_sim.strategy"),
    # Each game package, in the same sub-layers: components, state, rules, seat view, play and notation, GAME.
    (
        "palais_sim.games.palais_royal.__init__",
        "palais_sim.games.palais_royal.board",
        "palais_sim.games.palais_royal.components",
        "palais_sim.games.palastgefluester.__init__",
        "palais_sim.games.palastgefluester.components",
    ),
    ("palais_sim.games.palais_royal.state", "palais_sim.games.palastgefluester.state"),
    (
        "palais_sim.games.palais_royal.cards",
        "palais_sim.games.palais_royal.rules",
        "palais_sim.games.palais_royal.scoring",
        "palais_sim.games.palais_royal.setup",
        "palais_sim.games.palais_royal.options",
        "palais_sim.games.palais_royal.leaf_value",
        "palais_sim.games.palastgefluester.rules",
    ),  # fmt: skip
    # each game's seat view (its concrete form of the core's seat contract)
    ("palais_sim.games.palais_royal.view", "palais_sim.games.palastgefluester.view"),
    (
        "palais_sim.games.palais_royal.play",
        "palais_sim.games.palais_royal.notation",
        "palais_sim.games.palais_royal.position",
        "palais_sim.games.palais_royal.replay",
        "palais_sim.games.palais_royal.account",
        "palais_sim.games.palais_royal.codegen",
        "palais_sim.games.palais_royal.movement",
        "palais_sim.games.palastgefluester.play",
        "palais_sim.games.palastgefluester.notation",
        "palais_sim.games.palastgefluester.playthroughs",
    ),
    # the rest of each game package: its sessions, position files and rule options, and the package of the games
    ("palais_sim.games",),
    ("palais_sim.registry",),  # strategies by name: imports them only at run time, by name
    ("strategies",),
    ("palais_sim.tournament",),
    ("palais_sim.analytics", *(f"palais_sim.games.{game}.analysis" for game in GAMES)),
    # studies: design arms, play them through the runner, read them with the analytics; the parameter search plays
    # through the tournament's executor and measures with the analytics' statistics
    ("palais_sim.study", "palais_sim.tuning", *(f"palais_sim.games.{game}.studies" for game in GAMES)),
    # the command line; and each game's GAME object (its ``game.py``), which assembles the game: its strings name its
    # strategies, studies and report sections, so it sits above all of them. Nothing imports it: the registry of
    # games (palais_sim.core.games) finds it by name.
    (
        "palais_sim.cli",
        *(f"palais_sim.games.{game}.studies.commands" for game in GAMES),
        *(f"palais_sim.games.{game}.game" for game in GAMES),
    ),
]

# The registration table of the games: the registry (palais_sim.core.games, in the core so that every layer that looks
# a game up imports it downward) names each built-in game's GAME module as a ``"module:attribute"`` string. It is the
# one place of the shared layers allowed to name the games: its strings are registrations, read by name at run time,
# not imports, so the layer rules skip the edges they make (and only those: a real import of a game there counts).
REGISTRATIONS = ("palais_sim.core.games",)

# The shared layers: nothing in them imports a game's package or its strategies (a game reaches them through its
# GAME object, whose "module:attribute" strings name its strategies, report sections and studies).
SHARED = (
    "palais_sim.core", "palais_sim.tournament", "palais_sim.analytics", "palais_sim.study", "palais_sim.cli",
    "palais_sim.tuning", "palais_sim.strategy", "palais_sim.registry", "strategies.common",
)  # fmt: skip
GAME_PACKAGES = tuple(f"palais_sim.games.{game}" for game in GAMES) + tuple(
    f"strategies.{p.name}" for p in sorted((REPO / "strategies").iterdir()) if p.name in GAMES
)

# Upward imports tolerated for now: (importer, imported) -> why, and whose to remove. Keep it empty.
TEMPORARY_UPWARD: dict[tuple[str, str], str] = {}

# Import cycles tolerated for now: the modules of the cycle -> why, and whose to remove.
TEMPORARY_CYCLES: dict[frozenset[str], str] = {}

# Inside the CLI package: the command modules import only these of the package (never each other, never the
# package's __init__, which imports them all to register their commands); each of these imports only those listed
# before it (studies, what every study command shares, uses the one-line errors).
CLI_PACKAGE = "palais_sim.cli"
CLI_SHARED = ("palais_sim.cli.errors", "palais_sim.cli.options", "palais_sim.cli.studies")
CLI_TOP = ("palais_sim.cli", "palais_sim.cli.__main__", "palais_sim.cli.commands")


@dataclass(frozen=True)
class Edge:
    importer: str
    imported: str
    line: int
    by_name: bool = False  # made by a string (``import_module("x")``, ``"module:attribute"``), not an import statement

    def __str__(self) -> str:
        return f"{self.importer} imports {self.imported} ({module_path(self.importer)}:{self.line})"


# ------------------------------------------------------------------------------------------- reading the source


def module_files() -> dict[str, Path]:
    """Every module of the packages by dotted name (a package's __init__.py under the package's name)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def module_path(name: str) -> str:
    return str(MODULES[name].relative_to(REPO)) if name in MODULES else name


def _known(name: str) -> str | None:
    """The project module an import of ``name`` loads: itself, or its longest known prefix (``pkg.mod.Name``)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


_TARGET = re.compile(r"([A-Za-z_][\w.]*):[A-Za-z_]\w*")  # "module:attribute"


def named_modules(node: ast.AST) -> list[str]:
    """The modules a node names by string: the literal argument of ``import_module("x")`` (``importlib.`` or not),
    or the module of a ``"module:attribute"`` string literal. Only names of project modules make edges."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if called == "import_module" and isinstance(node.args[0].value, str):
            return [node.args[0].value]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        match = _TARGET.fullmatch(node.value)
        if match and match.group(1) in MODULES:
            return [match.group(1)]
    return []


def imports_of(name: str, source: str) -> list[Edge]:
    """The imports of project modules in ``source`` (module ``name``), at any depth of the syntax tree, those made by
    string (:func:`named_modules`) included."""
    is_package = MODULES[name].name == "__init__.py" if name in MODULES else False
    edges = []
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        for named in named_modules(node):
            known = _known(named)
            if known is not None and known != name:
                edges.append(Edge(name, known, node.lineno, by_name=True))
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package, one package up per extra dot
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the module pkg.mod; ``from mod import Name`` the module mod
            targets = [
                f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES else module for alias in node.names
            ]
        for target in targets:
            known = _known(target)
            if known is not None and known != name:
                edges.append(Edge(name, known, node.lineno))
    return list(dict.fromkeys(edges))  # one edge per line, however many names it imports


def import_graph() -> list[Edge]:
    """Every import between project modules, but the registration table's strings (``REGISTRATIONS``)."""
    edges: list[Edge] = []
    for name, path in MODULES.items():
        edges += imports_of(name, path.read_text(encoding="utf-8"))
    return [e for e in edges if not (e.by_name and e.importer in REGISTRATIONS)]


# ------------------------------------------------------------------------------------------- the checks


def layer_of(module: str, layers: list[tuple[str, ...]] = LAYERS) -> int | None:
    best, best_len = None, -1
    for index, entries in enumerate(layers):
        for entry in entries:
            if entry.endswith(".__init__"):
                covers = module == entry.removesuffix(".__init__")
            else:
                covers = module == entry or module.startswith(entry + ".")
            if covers and len(entry) > best_len:
                best, best_len = index, len(entry)
    return best


def describe_layer(index: int, layers: list[tuple[str, ...]] = LAYERS) -> str:
    return f"layer {index} ({', '.join(layers[index])})"


def upward_imports(
    edges: Iterable[Edge], layers: list[tuple[str, ...]] = LAYERS, allowed: Iterable[tuple[str, str]] = ()
) -> list[str]:
    """One readable line per import from a lower layer to a higher one."""
    allowed = set(allowed)
    problems = []
    for e in edges:
        low, high = layer_of(e.importer, layers), layer_of(e.imported, layers)
        if low is None or high is None or high <= low or (e.importer, e.imported) in allowed:
            continue
        problems.append(
            f"{e}: upward, {e.importer} is in {describe_layer(low, layers)} and {e.imported} in "
            f"{describe_layer(high, layers)}, above it"
        )
    return problems


def cycles(edges: Iterable[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, largest first."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.importer, set()).add(e.imported)
        graph.setdefault(e.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (about a hundred)
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
    return sorted(found, key=lambda c: (-len(c), c))


def cycle_report(component: list[str], edges: Iterable[Edge]) -> str:
    members = set(component)
    inside = sorted(str(e) for e in edges if e.importer in members and e.imported in members)
    return f"import cycle among {', '.join(component)}:\n    " + "\n    ".join(inside)


# ------------------------------------------------------------------------------------------- the tests

EDGES = import_graph()


def test_every_module_has_a_layer() -> None:
    missing = [f"{name} ({module_path(name)})" for name in MODULES if layer_of(name) is None]
    assert not missing, "modules in no layer; add them to LAYERS in tests/test_layers.py:\n  " + "\n  ".join(missing)


def test_no_import_cycles() -> None:
    found = [c for c in cycles(EDGES) if frozenset(c) not in TEMPORARY_CYCLES]
    assert not found, "\n".join(cycle_report(c, EDGES) for c in found)


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    problems = upward_imports(EDGES, LAYERS, TEMPORARY_UPWARD)
    layers = "\n  ".join(describe_layer(i) for i in range(len(LAYERS)))
    assert not problems, "\n".join(problems) + f"\nthe layers, lowest first:\n  {layers}"


def test_temporary_exceptions_are_still_needed() -> None:
    stale = [pair for pair in TEMPORARY_UPWARD if not any((e.importer, e.imported) == pair for e in EDGES)]
    assert not stale, f"these upward imports are gone; remove them from TEMPORARY_UPWARD: {stale}"
    found = {frozenset(c) for c in cycles(EDGES)}
    gone = [sorted(c) for c in TEMPORARY_CYCLES if c not in found]
    assert not gone, f"these import cycles are gone; remove them from TEMPORARY_CYCLES: {gone}"


def test_cli_command_modules_import_only_the_shared_cli_modules() -> None:
    problems = []
    for e in EDGES:
        if not e.importer.startswith(CLI_PACKAGE + ".") or e.importer in CLI_TOP:
            continue
        in_cli = e.imported == CLI_PACKAGE or e.imported.startswith(CLI_PACKAGE + ".")
        if not in_cli:
            continue
        if e.importer in CLI_SHARED:
            earlier = CLI_SHARED[: CLI_SHARED.index(e.importer)]
            if e.imported not in earlier:
                problems.append(f"{e}: a shared CLI module may import only {', '.join(earlier) or 'nothing'}")
        elif e.imported not in CLI_SHARED:
            problems.append(f"{e}: a CLI module may import only {', '.join(CLI_SHARED)} of the CLI package")
    assert not problems, "\n".join(problems)


def test_the_checks_catch_what_they_are_for() -> None:
    """The checker itself, on a made-up graph: a cycle and an upward import are found and named."""
    layers = [("low",), ("high",)]
    edges = [Edge("low.a", "high.b", 3), Edge("high.b", "high.c", 1), Edge("high.c", "high.b", 2)]
    assert cycles(edges) == [["high.b", "high.c"]]
    (problem,) = upward_imports(edges, layers)
    assert problem.startswith("low.a imports high.b") and "layer 0 (low)" in problem and "layer 1 (high)" in problem
    assert upward_imports(edges, layers, allowed=[("low.a", "high.b")]) == []
    assert layer_of("palais_sim.games.palais_royal") == 2 and layer_of("palais_sim.games.palais_royal.rules") == 4
    assert layer_of("palais_sim.core.game") == 1 and layer_of("palais_sim.games.palais_royal.game") == len(LAYERS) - 1
    assert layer_of("palais_sim.unlisted") is None and layer_of("palais_sim.cli.game") == len(LAYERS) - 1
    lazy = imports_of("palais_sim.cli.game", "def f():\n    from palais_sim.cli import report\n")
    assert [(e.imported, e.line) for e in lazy] == [("palais_sim.cli.report", 2)]
    relative = imports_of(
        "palais_sim.games.palais_royal.rules", "from . import state\nfrom .scoring import final_scores\n"
    )
    assert [e.imported for e in relative] == [
        "palais_sim.games.palais_royal.state",
        "palais_sim.games.palais_royal.scoring",
    ]
    by_name = imports_of(
        "palais_sim.core.loop",
        'import importlib\nimportlib.import_module("palais_sim.cli.report")\nX = "palais_sim.study.common:StudySpec"\n'
        'Y = "elsewhere.module:Name"\nZ = "palais_sim.cli.report"\n',
    )
    assert sorted((e.imported, e.by_name) for e in by_name) == [
        ("palais_sim.cli.report", True),
        ("palais_sim.study.common", True),
    ]
    assert len(upward_imports(by_name)) == 2
    # the registration table's strings are read, and left out of the graph the rules check
    registry = imports_of(REGISTRATIONS[0], MODULES[REGISTRATIONS[0]].read_text(encoding="utf-8"))
    assert {e.imported for e in registry if e.by_name} == {f"palais_sim.games.{game}.game" for game in GAMES}
    assert not [e for e in EDGES if e.importer in REGISTRATIONS and e.by_name]


# the run directory's format (shards: a part's block of the chunk plan and the schedule hash, in its manifest)
RUN_FORMAT = ("palais_sim.tournament.records", "palais_sim.tournament.ledger", "palais_sim.tournament.shards")


def _within(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def shared_imports_of_games(edges: Iterable[Edge]) -> list[str]:
    """One line per import from a shared layer into a game's package or a game's strategies."""
    return [
        f"{e}: the shared {e.importer} imports the game's {e.imported} (reach it through its GAME object)"
        for e in edges
        if _within(e.importer, SHARED) and _within(e.imported, GAME_PACKAGES)
    ]


def test_no_shared_module_imports_a_game() -> None:
    """No module of palais_sim/{core,tournament,analytics,study,cli,tuning}, palais_sim/strategy.py,
    palais_sim/registry.py or strategies/common/ imports a game's package or its strategies."""
    problems = shared_imports_of_games(EDGES)
    assert not problems, "\n".join(problems)


def test_modules_named_after_a_game_live_in_its_package() -> None:
    """No module named after a game lives outside games/<game>/ and strategies/<game>/ (a game's studies, report
    sections and analytics sit in its own package)."""
    stray = [
        f"{name} ({module_path(name)})"
        for name in MODULES
        for game in GAMES
        if any(game in part for part in name.split(".")) and not _within(name, GAME_PACKAGES)
    ]
    assert not stray, "modules named after a game outside its package:\n  " + "\n  ".join(stray)


def test_the_game_checks_catch_what_they_are_for() -> None:
    """The checks above on made-up imports: a shared module importing a game (lazily, too) is named; a game's study
    importing the shared machinery is not; a game's rules importing its studies is an upward import."""
    game = f"palais_sim.games.{GAMES[0]}"
    lazy = imports_of("palais_sim.analytics.winrates", f"def f():\n    from {game}.components import X\n")
    assert len(shared_imports_of_games(lazy)) == 1
    strategies = imports_of("palais_sim.study.common", f"import strategies.{GAMES[0]}.heuristic\n")
    assert not strategies or len(shared_imports_of_games(strategies)) == 1
    study = [Edge(f"{game}.studies.x", "palais_sim.study.common", 1)]
    assert shared_imports_of_games(study) == [] and upward_imports(study) == []
    rules = [Edge(f"{game}.rules", f"{game}.studies.x", 1), Edge(f"{game}.rules", f"{game}.analysis.x", 2)]
    assert len(upward_imports(rules)) == 2
    assert layer_of(f"{game}.studies.commands") == len(LAYERS) - 1


def test_analytics_play_no_games() -> None:
    """Analytics read Parquet only: the shared analytics and each game's ``analysis/`` import no rules, no strategy or
    registry, and of the tournament only the run format (schema, ledger); a game's analysis may read its own static
    data (board, components) and its ``GAME``."""
    playing = ("palais_sim.strategy", "palais_sim.registry", "strategies")
    static = ("board", "components", "game", "analysis")
    analyses = ("palais_sim.analytics", *(f"palais_sim.games.{game}.analysis" for game in GAMES))

    def plays(module: str) -> bool:
        parts = module.split(".")
        in_a_game = module.startswith("palais_sim.games.") and len(parts) > 3
        return module.startswith(playing) or (in_a_game and parts[3] not in static)

    bad = [
        f"{e.importer} imports {e.imported}"
        for e in EDGES
        if _within(e.importer, analyses)
        and (plays(e.imported) or (e.imported.startswith("palais_sim.tournament") and e.imported not in RUN_FORMAT))
    ]
    assert not bad, "analytics must read Parquet only:\n  " + "\n  ".join(bad)
