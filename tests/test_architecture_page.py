"""The architecture page matches the tree: every file and folder its package map (and its prose) names exists, and
every module of ``palais_sim/`` and ``strategies/`` is named there, itself or through its folder."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "architecture.md"
PACKAGES = ("palais_sim", "strategies")

ENTRY = re.compile(r"^( {0,2})(\S+(?: \+ \S+)*)(.*)$")  # a top-level or a second-level entry of the map
DESCRIPTION_INDENT = 3  # deeper lines carry on the entry above
# a path named in a description: a file of the repository's kinds, or a folder (a name with a slash)
NAMED = re.compile(r"(?<![\w./<*-])((?:[\w-]+/)*[\w-]+\.(?:py|toml|json)|(?:[\w-]+/)+)(?![\w<*])")
PROSE_PATH = re.compile(r"`((?:palais_sim|strategies|tests|benchmarks|docs)/[\w./-]*)`")


def package_map(text: str) -> str:
    """The code block under the page's "The package" heading."""
    section = text.split("## The package", 1)[1]
    return section.split("```", 2)[1]


def map_entries(block: str) -> list[tuple[Path, str]]:
    """Each entry of the map as (its path, its description), a description running on over the deeper lines."""
    entries: list[tuple[Path, str]] = []
    root = REPO
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= DESCRIPTION_INDENT:
            path, text = entries[-1]
            entries[-1] = (path, f"{text} {line.strip()}")
            continue
        match = ENTRY.match(line)
        assert match, f"not an entry of the map: {line!r}"
        names, description = match.group(2).split(" + "), match.group(3)
        if not match.group(1):
            root = REPO / names[0]
            entries += [(REPO / name, description) for name in names]
        else:
            entries += [(root / name, description) for name in names]
    return entries


def named_in(description: str, entry: Path) -> list[tuple[str, list[Path]]]:
    """The paths a description names, each with where it may be: beside the entry, in its top folder, in the repo."""
    folder = entry if entry.suffix == "" else entry.parent
    top = REPO / entry.relative_to(REPO).parts[0]
    return [(name, [folder / name, top / name, REPO / name]) for name in NAMED.findall(description)]


def page_paths() -> tuple[list[Path], list[str]]:
    """Every path the page names that exists, and every one that does not."""
    text = PAGE.read_text(encoding="utf-8")
    found, missing = [], []
    for entry, description in map_entries(package_map(text)):
        (found if entry.exists() else missing).append(entry if entry.exists() else str(entry.relative_to(REPO)))
        for name, places in named_in(description, entry):
            there = [place for place in places if place.exists()]
            if there:
                found.append(there[0])
            else:
                missing.append(f"{name} (in the entry {entry.relative_to(REPO)})")
    for name in PROSE_PATH.findall(text):
        (found if (REPO / name).exists() else missing).append(REPO / name if (REPO / name).exists() else name)
    return found, missing


def test_every_path_the_architecture_page_names_exists() -> None:
    _, missing = page_paths()
    assert missing == [], f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_module_is_named_on_the_architecture_page() -> None:
    """A module counts as named through itself or a folder it sits in (not the package's own top folder)."""
    found, _ = page_paths()
    named = {path.resolve() for path in found} - {(REPO / package).resolve() for package in PACKAGES}
    modules = [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))]
    unnamed = [
        str(module.relative_to(REPO))
        for module in modules
        if "__pycache__" not in module.parts
        and module.resolve() not in named
        and not any(parent.resolve() in named for parent in module.parents)
    ]
    assert unnamed == [], f"docs/architecture.md names neither these modules nor their folders: {unnamed}"


def test_the_check_reads_entries_descriptions_and_their_paths() -> None:
    block = (
        "palais_sim/\n  core/game.py         the interface; see strategy.py\n"
        "                       and data/ and sub/missing.py\n"
        "docs/ + mkdocs.yml     the manual; README.md\n"
    )
    entries = map_entries(block)
    assert [path.relative_to(REPO).as_posix() for path, _ in entries] == [
        "palais_sim", "palais_sim/core/game.py", "docs", "mkdocs.yml",
    ]  # fmt: skip
    assert [name for name, _ in named_in(entries[1][1], entries[1][0])] == ["strategy.py", "data/", "sub/missing.py"]
    assert [name for name, _ in named_in(entries[3][1], entries[3][0])] == []  # README.md: not a kind it reads
    assert NAMED.findall("tests/<game>/, tests/*.py, palais_sim.engine.*, tests/toygame/") == ["tests/toygame/"]
