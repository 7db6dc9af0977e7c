"""A built-in game is its two packages and one registration line: the toy race (tests/toygame/) is made a built-in
game in a copy of the tree, as ``palais_sim/games/race/`` (its rules, option, study, report section and manual
pages) and ``strategies/race/`` (its player), with one line in the registry, and the game list, the conformance test,
`palais study`, a run and its report, and the manual's game pages all pick it up with no other edit.

It is called ``race`` there: the conformance test registers the toy race as ``toy`` through ``PALAIS_GAMES``, and a
built-in name cannot be taken again. The registration line is written into today's registry, ``GAMES`` in
``palais_sim/core/games.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toygame"
NAME = "race"
REGISTRY = Path("palais_sim") / "core" / "games.py"
REGISTRATION = f'    "{NAME}": "palais_sim.games.{NAME}.game:GAME",\n'
NOT_THE_GAME = ("core_only.py",)  # the conformance test's core-only variant of the toy, not a module of the game
COPIED = ("palais_sim", "strategies", "tests", "docs", "mkdocs.yml", "pyproject.toml")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.so", "_build.json", "*.egg-info")
PAGES = {
    "index.md": "# Race\n\nThe toy race as a built-in game: its [rules](rules.md).\n",
    "rules.md": "# Race: the rules\n\nPlay a card, move by its value; the first to the target wins.\n",
}

LAYER_OF_ITS_STUDY = "from tests.test_layers import LAYERS; print([e for layer in LAYERS for e in layer])"


def as_built_in(text: str) -> str:
    """A toy module's text as the built-in game's: its imports from the two packages, its name ``race``."""
    text = text.replace("tests.toygame.strategies", f"strategies.{NAME}.greedy")
    return text.replace("tests.toygame", f"palais_sim.games.{NAME}").replace('"toy"', f'"{NAME}"')


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tree with the toy race built in: two packages and one line."""
    root = tmp_path_factory.mktemp("tree")
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=LEFT_OUT)
        else:
            shutil.copy2(source, root / name)
    game, players = root / "palais_sim" / "games" / NAME, root / "strategies" / NAME
    (game / "docs").mkdir(parents=True)
    players.mkdir()
    for module in TOY.rglob("*.py"):  # its analysis/ and studies/ packages too
        if module.name in NOT_THE_GAME:
            continue
        target = players / "greedy.py" if module.name == "strategies.py" else game / module.relative_to(TOY)
        target.parent.mkdir(exist_ok=True)
        target.write_text(as_built_in(module.read_text(encoding="utf-8")), encoding="utf-8")
    (players / "__init__.py").write_text('"""The race\'s players."""\n', encoding="utf-8")
    for page, text in PAGES.items():
        (game / "docs" / page).write_text(text, encoding="utf-8")
    registry = root / REGISTRY
    text = registry.read_text(encoding="utf-8")
    opening = re.search(r"^GAMES: dict\[str, str\] = \{\n", text, re.MULTILINE)
    assert opening, "the registry's GAMES line moved: write the registration line where it is now"
    registry.write_text(text[: opening.end()] + REGISTRATION + text[opening.end() :], encoding="utf-8")
    return root


def run(tree: Path, *args: str) -> subprocess.CompletedProcess:
    """A command in a fresh interpreter that imports the copy (never the installed tree)."""
    env = {key: value for key, value in os.environ.items() if key != "PALAIS_GAMES"}
    env.update(PYTHONPATH=str(tree), PALAIS_PURE="1", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=600)


def test_the_copy_is_the_tree_that_runs(tree: Path) -> None:
    done = run(tree, "-c", "import palais_sim, strategies; print(palais_sim.__file__, strategies.__file__)")
    assert done.returncode == 0, done.stderr
    assert all(Path(path).is_relative_to(tree) for path in done.stdout.split())


def test_the_game_list_and_its_strategies_name_it(tree: Path) -> None:
    done = run(tree, "-m", "palais_sim.cli", "games", "--json")
    assert done.returncode == 0, done.stderr
    listed = {game["name"]: game for game in json.loads(done.stdout)}
    assert NAME in listed and "greedy" in listed[NAME]["strategies"]


def test_the_conformance_test_runs_on_it(tree: Path) -> None:
    conformance = ["-m", "pytest", "-p", "no:cacheprovider", "-rA", "tests/test_game_conformance.py", "-k", NAME]
    done = run(tree, *conformance)
    assert done.returncode == 0, done.stdout[-3000:]
    assert len(re.findall(rf"^PASSED \S+\[{NAME}\b", done.stdout, re.MULTILINE)) >= 10, done.stdout[-3000:]


def test_the_layer_and_vocabulary_tests_run_on_it(tree: Path) -> None:
    """Its modules sit in the layers of a game package (its report sections under analysis/, its study under
    studies/ and the study's command line in studies/commands.py) and import only downward; no shared module uses
    its words."""
    done = run(tree, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_layers.py", "tests/test_vocabulary.py")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "palais_sim.games.race.studies" in run(tree, "-c", LAYER_OF_ITS_STUDY).stdout


def test_a_run_and_its_report_with_its_option_and_its_section(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    play = ["simulate", "--game", NAME, "--games", "12", "--workers", "1", "--target", "25", "--out", str(out)]
    done = run(tree, "-m", "palais_sim.cli", *play)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == NAME and manifest["settings"]["rules"] == {"target": 25}
    report = ["report", "all", str(out), "--format", "json", "--out", str(tmp_path / "report")]
    done = run(tree, "-m", "palais_sim.cli", *report)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert "seat_balance" in data  # the race's own section (its analysis/sections.py), not only the common ones


def test_its_study_is_a_command_of_palais_study(tree: Path, tmp_path: Path) -> None:
    """Its own study (``GAME.studies``) is listed by `palais study` and plays, with no --game: the built-in game that
    has it."""
    done = run(tree, "-m", "palais_sim.cli", "study", "--help")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^\W*target\s+The toy race", done.stdout, re.MULTILINE), done.stdout
    study = ["study", "target", "--groups", "20", "--players", "2", "--strategy", "greedy", "--out", str(tmp_path)]
    done = run(tree, "-m", "palais_sim.cli", *study)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "study.json").read_text())
    assert data["game"] == NAME and data["targets"] == [15, 30] and len(data["rows"]) == 3


def test_the_manual_shows_its_pages(tree: Path) -> None:
    hook = "import runpy; print(sorted(runpy.run_path('docs/hooks/game_pages.py')['game_pages']()))"
    done = run(tree, "-c", hook)
    assert done.returncode == 0, done.stderr
    assert f"games/{NAME}/index.md" in done.stdout and f"games/{NAME}/rules.md" in done.stdout
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (it is in the dev extra)")
    site = tree / "site"
    done = run(tree, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site))
    assert done.returncode == 0, done.stderr
    assert (site / "games" / NAME / "index.html").is_file() and (
        site / "games" / NAME / "rules" / "index.html"
    ).is_file()
