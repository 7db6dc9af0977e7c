"""The shared layers know no game: no shared module's code, strings, help texts or comments use a word of any
registered game's vocabulary (``Game.vocabulary``: the nouns of its components and options). What a study page, a
price line or a tie column means for a game reaches the shared layers through the game object. The layer test checks
the imports; this one checks the words.

Words are matched whole, on the words of the text: identifiers split at underscores and capitals (``start_gold``,
``NobleTable`` and ``GOLD_LIMIT`` hold ``gold`` and ``noble``), a vocabulary word alone or with a plural ``s`` or
``es`` ("nobles", but never "golden", "sealed" or "ranking"). A word of ordinary English that a game also uses stays
out of its vocabulary (Palais Royal's rooms and offices, Palastgeflüster's displays); what remains is in ``ORDINARY``.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from palais_sim.core.games import ENV_VAR, game_names, get_game
from tests.test_game_conformance import with_toy

REPO = Path(__file__).resolve().parent.parent
# The shared layers: every module under these knows no game.
SHARED = (
    "palais_sim/core", "palais_sim/registry.py", "palais_sim/strategy.py", "palais_sim/tournament",
    "palais_sim/analytics", "palais_sim/study", "palais_sim/tuning", "palais_sim/cli", "strategies/common",
)  # fmt: skip
# Phrases where a vocabulary word has its ordinary sense, removed before matching: matplotlib's figure layout.
ORDINARY = ('layout="constrained"', "set_layout_engine")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def words(text: str) -> Iterable[tuple[int, str]]:
    """(line number, word in lower case) of every word of ``text``, identifiers split into their words."""
    for number, line in enumerate(text.splitlines(), start=1):
        for phrase in ORDINARY:
            line = line.replace(phrase, "")
        for word in _WORD.findall(line):
            yield number, word.lower()


def hits(files: Iterable[Path], vocabulary: dict[str, str], root: Path = REPO) -> list[str]:
    """One line per use of a vocabulary word (``vocabulary``: word -> its game) in ``files``."""
    forms = {form: word for word in vocabulary for form in (word, word + "s", word + "es")}
    out = []
    for path in files:
        for number, word in words(path.read_text(encoding="utf-8")):
            if word in forms:
                base = forms[word]
                out.append(f"{path.relative_to(root)}:{number}: {word!r} ({vocabulary[base]}'s word {base!r})")
    return out


def shared_files(root: Path = REPO) -> list[Path]:
    files = []
    for entry in SHARED:
        path = root / entry
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files


def registered_vocabulary() -> dict[str, str]:
    """Every registered game's vocabulary (the toy race's too): word -> the game's name."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_VAR, with_toy(os.environ.get(ENV_VAR)))
        games = [get_game(name) for name in game_names()]
    return {word.lower(): game.name for game in games for word in game.vocabulary}


VOCABULARY = registered_vocabulary()


def test_every_game_declares_a_vocabulary_of_single_lower_case_words() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_VAR, with_toy(os.environ.get(ENV_VAR)))
        for name in game_names():
            vocabulary = get_game(name).vocabulary
            assert vocabulary and isinstance(vocabulary, tuple), name
            assert all(re.fullmatch(r"[a-z]+", word) for word in vocabulary), (name, vocabulary)


def test_no_shared_module_uses_a_games_vocabulary() -> None:
    found = hits(shared_files(), VOCABULARY)
    assert not found, "game words in the shared layers:\n" + "\n".join(found)


def test_a_planted_noble_in_the_study_package_is_found(tmp_path: Path) -> None:
    """The check fails on a planted word: a copy of ``palais_sim/study`` with one comment naming a noble."""
    copy = tmp_path / "palais_sim" / "study"
    shutil.copytree(REPO / "palais_sim" / "study", copy)
    assert "noble" in VOCABULARY
    assert hits(sorted(copy.rglob("*.py")), VOCABULARY, tmp_path) == []
    target = copy / "render.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n# the noble's value\n", encoding="utf-8")
    found = hits(sorted(copy.rglob("*.py")), VOCABULARY, tmp_path)
    assert len(found) == 1 and "palais_sim/study/render.py" in found[0] and "'noble'" in found[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("start_gold = 1", ["gold"]),
        ("class NobleTable: ...", ["noble"]),
        ("GOLD_LIMIT", ["gold"]),
        ("the nobles' values", ["nobles"]),
        ("a golden rule, sealed and ranking", []),
        ('Figure(layout="constrained")', []),
    ],
)
def test_words_are_matched_whole_in_identifiers_and_text(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = tmp_path / "module.py"
    path.write_text(text, encoding="utf-8")
    found = hits([path], {"gold": "g", "noble": "g", "seal": "g", "king": "g"}, tmp_path)
    assert [line.split("'")[1] for line in found] == expected


def help_texts() -> Iterable[tuple[str, str]]:
    """(command path, text) of every help text of the shared commands: each command's and each option's (a game's
    own study commands, whose callbacks live in its package, are its own to word)."""
    import click
    import typer

    from palais_sim.cli import app

    # a registered game's study commands are its own, wherever its package lives (the toy race's in tests/): the app
    # registers them when the game is registered at its first import
    own = {spec.split(":")[0] for name in game_names() for spec in get_game(name).studies.values()}

    def walk(command: click.Command, path: str) -> Iterable[tuple[str, str]]:
        module = getattr(command.callback, "__module__", "") or ""
        if module.startswith("palais_sim.games.") or module in own:
            return
        yield path, command.help or ""
        for param in command.params:
            yield f"{path} {param.name}", getattr(param, "help", None) or ""
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    yield from walk(typer.main.get_command(app), "palais")


def test_no_shared_help_text_names_a_game() -> None:
    """The command line's help names no registered game by its title: the games are `palais games`' to list."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_VAR, with_toy(os.environ.get(ENV_VAR)))
        titles = [get_game(name).title.lower() for name in game_names()]
        found = [(path, title) for path, text in help_texts() for title in titles if title in text.lower()]
    assert not found, found
