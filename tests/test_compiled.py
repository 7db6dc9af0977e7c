"""One source, two builds: the mypyc-compiled engine and its Python source play identical games, ``PALAIS_PURE=1``
forces the source, and an edited source never runs against its older compiled copy.

These tests need the compiled build (``make build``); without it they are skipped, unless
``PALAIS_REQUIRE_COMPILED=1`` (``make test`` sets it), which turns a missing build into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import palais_sim
from palais_sim import _build

ROOT = Path(__file__).resolve().parents[1]
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PALAIS_PURE"}  # the subprocesses choose their engine
COMPILED = all(_build._has_extension(path) for path in _build.COMPILED_SOURCES)

if not COMPILED:
    if os.environ.get("PALAIS_REQUIRE_COMPILED") == "1":
        pytest.fail("the engine is not compiled (run `make build`): PALAIS_REQUIRE_COMPILED=1", pytrace=False)
    pytest.skip("the engine is not compiled in this install (pure Python only)", allow_module_level=True)

# Every built-in (the searches at small budgets), 2 to 4 players, with and without a gold limit, on the standard set
# and a variant; each game reports its result, every recruitment and the decision count.
PLAY = r"""
import json, sys
from palais_sim import build_info
from palais_sim.games.palais_royal.components import load_components
from palais_sim.games.palais_royal.play import play_game
from palais_sim.games.palais_royal.state import RuleOptions
from palais_sim.registry import load_strategies

variant = sys.argv[1]
out = {"build": build_info(), "games": []}
specs = ["random", "greedy", "economy", "seals", "park", "cards"]
for comps in (load_components(), load_components(variant)):
    for game in range(24):
        players = 2 + game % 3
        names = [specs[(game + seat) % len(specs)] for seat in range(players)]
        options = RuleOptions(players=players, gold_limit=57 if game % 4 == 1 else None, max_rounds=60)
        result = play_game(comps, options, 1000 + game, load_strategies(",".join(names), players))
        record = result.to_json()
        record["decisions"] = result.decisions
        record["recruits"] = [list(r) for r in result.recruits]
        out["games"].append(record)
# the searches too, at small budgets (the common search; a horizon and its leaf value; rollouts cut where the leaf
# value calls the game): their rollouts run the compiled heuristics, engine and leaf value
searches = ["ismcts:budget=3", "lookahead:budget=3", "ismcts:budget=3,root=ucb"]
cut = ["ismcts:budget=3,horizon=1", "ismcts:budget=3,settle=0.3", "lookahead:budget=3,settle=0.3"]
# the distilled player: its policy alone, and as the prior of a small search
experts = ["expert:budget=0", "expert:budget=4,top=2"]
for game, search in enumerate(searches + ["search:budget=3", *cut, *experts]):
    options = RuleOptions(players=2, max_rounds=60)
    result = play_game(load_components(), options, 2000 + game, load_strategies(search + ",greedy", 2))
    record = result.to_json()
    record["decisions"] = result.decisions
    record["recruits"] = [list(r) for r in result.recruits]
    out["games"].append(record)
print(json.dumps(out))
"""


def run_games(tmp_path: Path, pure: bool) -> dict:
    variant = tmp_path / "variant.toml"
    if not variant.exists():
        text = (ROOT / "palais_sim" / "games" / "palais_royal" / "data" / "standard.toml").read_text(encoding="utf-8")
        variant.write_text(text.replace('name = "standard"', 'name = "variant"', 1), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PALAIS_PURE"}
    if pure:
        env["PALAIS_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PLAY, str(variant)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_compiled_and_the_pure_engine_play_identical_games(tmp_path: Path) -> None:
    compiled, pure = run_games(tmp_path, pure=False), run_games(tmp_path, pure=True)
    assert compiled["build"]["compiled"] is True and pure["build"]["compiled"] is False
    assert len(compiled["games"]) == 48 + 9
    for a, b in zip(compiled["games"], pure["games"], strict=True):
        assert a == b, f"game seed {a['seed']} differs between the compiled and the pure engine"


# Palastgeflüster: heuristic, random, a parameterised heuristic and the restricted wrapper (pure Python, it sets
# ``view.hand`` on the compiled view) at 3 to 5 players, both tiebreaks, some games stopped by a low round limit,
# and a few short searches (``view.sample_state`` and ``apply`` on sampled states); each game reports its result,
# its round ends and where every card lies at the end.
PG_PLAY = r"""
import json, pickle
from palais_sim import build_info
from palais_sim.games.palastgefluester.game import GAME, Context
from palais_sim.games.palastgefluester.components import standard_pg_components
from palais_sim.games.palastgefluester.play import play_game
from palais_sim.games.palastgefluester.state import PgOptions
from palais_sim.core.games import get_game
from palais_sim.registry import load_strategy

out = {"build": build_info(), "games": []}
specs = ["heuristic", "random", "heuristic:repeat=-6,six=9,pressure=2", "restricted:base=heuristic,forbid=Zofe/Hofnarr",
         "restricted:base=random,eager=Wächter"]
games = [(game, [specs[(game + 2 * seat) % len(specs)] for seat in range(3 + game % 3)]) for game in range(300)]
games += [(300 + game, ["search:budget=3", "heuristic", "random", "heuristic"][: 3 + game % 2]) for game in range(4)]
for game, names in games:
    players = len(names)
    options = PgOptions(players=players, tiebreak="noted" if game % 4 == 1 else "display",
                        max_rounds=3 if game % 7 == 3 else 200)
    context = pickle.loads(pickle.dumps(Context(standard_pg_components(), options)))  # as the workers get it
    result = GAME.play(context, 2000 + game, [load_strategy(name, get_game("palastgefluester")) for name in names])
    same = play_game(options, 2000 + game, [load_strategy(name, get_game("palastgefluester")) for name in names])
    assert same.to_json() == result.to_json()
    state = result.final_state
    record = result.to_json()
    record["final"] = [state.hands, state.displays, state.draw, state.discards, state.known, state.king_pile,
                       state.kings_revealed, state.plays, state.own_replays, state.brown_played]
    out["games"].append(record)
print(json.dumps(out))
"""


def run_pg_games(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PALAIS_PURE"}
    if pure:
        env["PALAIS_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PG_PLAY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_palastgefluester_compiled_and_pure_play_identical_games() -> None:
    compiled, pure = run_pg_games(pure=False), run_pg_games(pure=True)
    assert compiled["build"]["compiled"] is True and pure["build"]["compiled"] is False
    assert len(compiled["games"]) == 304
    assert {len(g["seats"]) for g in compiled["games"]} == {3, 4, 5}
    assert any(not g["finished"] for g in compiled["games"]) and any(g["finished"] for g in compiled["games"])
    for a, b in zip(compiled["games"], pure["games"], strict=True):
        assert a == b, f"Palastgeflüster game seed {a['seed']} differs between the compiled and the pure engine"


def test_palais_pure_forces_the_python_source() -> None:
    code = (
        "import palais_sim.games.palais_royal.rules as r, strategies.palais_royal.heuristic as h, "
        "palais_sim.games.palastgefluester.rules as pr, strategies.palastgefluester.heuristic as ph; "
        "print(r.__file__, h.__file__, pr.__file__, ph.__file__)"
    )
    env = {**CLEAN_ENV, "PALAIS_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(path.endswith(".py") for path in done.stdout.split())
    env.pop("PALAIS_PURE")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert not any(path.endswith(".py") for path in done.stdout.split()), done.stdout


def test_an_edited_source_never_runs_against_its_compiled_copy(tmp_path: Path) -> None:
    """A copy of the installed tree with one compiled module's source edited: every compiled module falls back to
    its source (they share native classes), with one warning naming the edited file."""
    for package in ("palais_sim", "strategies"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    rules = tmp_path / "palais_sim" / "games" / "palais_royal" / "rules.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# edited after the build\n", encoding="utf-8")
    code = (
        "import warnings\nwarnings.simplefilter('always')\n"
        "import palais_sim, palais_sim.games.palais_royal.state as s\n"
        "print(palais_sim.build_info()['compiled'], s.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={**CLEAN_ENV, "PYTHONPATH": str(tmp_path)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    compiled, state_file = done.stdout.split()
    assert compiled == "False" and state_file.endswith("state.py")  # not only the edited module: all of them
    assert "palais_sim/games/palais_royal/rules.py changed since the engine was compiled" in done.stderr
    assert done.stderr.count("changed since the engine was compiled") == 1


def test_build_info_says_compiled_here() -> None:
    assert palais_sim.build_info() == {"compiled": os.environ.get("PALAIS_PURE") is None, "reason": _reason()}


def _reason() -> str:
    return "PALAIS_PURE is set" if os.environ.get("PALAIS_PURE") else "compiled with mypyc"
