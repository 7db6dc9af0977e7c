"""The manual and the front page: the README stays a front page, every page of the manual (docs/ and each built-in
game's pages in its package, which the hook docs/hooks/game_pages.py adds) is in the MkDocs navigation or linked
from a page that is, every navigation entry exists, every relative link (and heading anchor) points at something and
nothing points out of the repository, the column tables are the code's, the rules pages' component tables are the
data files' and their Decisions name code and tests that exist, and ``mkdocs build --strict`` passes."""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import unicodedata
from pathlib import Path

import pytest
import yaml

from palais_sim.core.games import GAMES, get_game
from palais_sim.tournament import records

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
MKDOCS_YML = REPO / "mkdocs.yml"
HOOK = DOCS / "hooks" / "game_pages.py"


def load_hook():  # noqa: ANN201 - the hook module, loaded from its file as MkDocs loads it
    spec = importlib.util.spec_from_file_location("game_pages", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Each built-in game's pages: their place in the manual (relative to docs/) -> their file in the game's package.
GAME_PAGES: dict[str, Path] = load_hook().game_pages()
PLACE = {source: DOCS / uri for uri, source in GAME_PAGES.items()}  # a game page's file -> where the manual has it
SOURCE = {place: source for source, place in PLACE.items()}

README_MAX_LINES = 250
FIRST_SCREEN = 40  # lines a new user sees before scrolling

# Where a game's column tables may be documented (generated from records.schema_markdown): the run format's page
# (the default game's) or the game's own pages.
SCHEMA_PAGE = DOCS / "run-format.md"
# Pointers to the rules sources that live beside the repository, not in it: a clone has none of them. (An example
# path such as docs/cluster.md's /shared/runs/... on a cluster is no pointer; ../shared is.)
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(?:RULES|PALASTGEFLUESTER|DESIGN|seeds)\b|\bseeds/0\d\d_|"
                     r"\b(?:RULES|PALASTGEFLUESTER|DESIGN)\.md\b")  # fmt: skip

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\]\n]|\][^(\n])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)


def docs_pages() -> list[Path]:
    """Every page of the manual as a file: docs/ and the game pages in their packages."""
    return sorted(DOCS.rglob("*.md")) + list(GAME_PAGES.values())


def manual_uris() -> list[str]:
    """Every page of the manual by its place in it (relative to docs/)."""
    return sorted({p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")} | set(GAME_PAGES))


def page_id(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def rules_page_of(game: str) -> Path:
    """A game's rules page, in its package."""
    return GAME_PAGES[f"games/{game}/rules.md"]


def nav_entries(nav: object) -> list[str]:
    """Every page named in a MkDocs ``nav`` (nested sections included), as paths relative to docs/."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_entries(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_entries(value)]
    return []


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans: links inside code are examples, not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor MkDocs gives a heading (Python-Markdown's toc slugify, after the inline markup is rendered away)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").replace("**", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The heading anchors of a Markdown file (a repeated heading gets _1, _2, ... as MkDocs numbers them)."""
    seen: dict[str, int] = {}
    out = set()
    for match in HEADING.finditer(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}_{count}")
    return out


def relative_links(path: Path) -> list[str]:
    targets = LINK.findall(prose(path.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]  # http:, https:, mailto: ...


# ------------------------------------------------------------------------------------------ the front page


def test_the_readme_is_a_front_page_with_the_two_commands_on_its_first_screen() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; the manual belongs in docs/"
    first = "\n".join(lines[:FIRST_SCREEN])
    assert "make demo" in first and "make test" in first


def test_every_make_target_the_readme_names_is_in_the_makefile_and_ci_runs_make_test() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE))
    text = README.read_text(encoding="utf-8")
    code = [m.group(0) for m in FENCE.finditer(text)] + CODE_SPAN.findall(text)  # commands, not prose
    named = {name for block in code for name in re.findall(r"(?:^|[\s`])make ([a-z][a-z-]*)", block, re.MULTILINE)}
    assert {"demo", "test"} <= named
    assert named <= targets, f"README names make targets the Makefile lacks: {sorted(named - targets)}"
    assert re.search(r"^make test$", (REPO / ".ci" / "run").read_text(encoding="utf-8"), re.MULTILINE)


def test_every_make_target_that_plays_games_compiles_the_engine_first() -> None:
    """The install leaves the engine uncompiled (the tests run on its source meanwhile), so a target that runs
    `palais` without `$(REBUILD)` first plays at the pure Python speed on a fresh machine (make reports did)."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipes = re.findall(r"^([a-z][a-z-]*):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, re.MULTILINE)
    playing = {name: body for name, body in recipes if "$(BIN)/palais " in body}
    assert {"demo", "reports"} <= set(playing)
    before = {name: body.split("$(BIN)/palais ")[0] for name, body in playing.items()}
    late = [name for name, text in before.items() if "$(REBUILD)" not in text and "$(COMPILE)" not in text]
    assert late == [], f"make targets that play before compiling the engine: {late}"


# ------------------------------------------------------------------------------------------ the navigation


def mkdocs_config() -> dict:
    """mkdocs.yml, its navigation with the game pages the hook adds."""
    config = yaml.safe_load(MKDOCS_YML.read_text(encoding="utf-8"))
    load_hook().on_config(type("Config", (), {"nav": config["nav"]})())
    return config


def outside_nav_patterns(config: dict) -> list[str]:
    """mkdocs.yml's ``not_in_nav`` patterns, as fnmatch patterns on a page's place."""
    return [line.strip().lstrip("/") for line in config.get("not_in_nav", "").splitlines() if line.strip()]


def test_every_docs_page_is_in_the_navigation_or_linked_from_it_and_every_entry_exists() -> None:
    """The navigation is the reading path with the measurements last; the dated notes sit outside it, each linked
    from the notes' index."""
    config = mkdocs_config()
    assert config.get("docs_dir", "docs") == "docs"
    entries = nav_entries(config["nav"])
    assert len(entries) == len(set(entries)), "a page is listed twice in the nav"
    pages = set(manual_uris())
    assert sorted(set(entries) - pages) == [], "nav entries without a page"
    outside = sorted(pages - set(entries))
    patterns = outside_nav_patterns(config)
    unlisted = [page for page in outside if not any(fnmatch.fnmatch(page, pattern) for pattern in patterns)]
    assert unlisted == [], "pages missing from mkdocs.yml's nav (and from its not_in_nav)"
    linked = {target for entry in entries for target in manual_links(entry)}
    assert sorted(set(outside) - linked) == [], "pages outside the nav that no page in it links to"
    assert entries[0] == "index.md" and entries[-1] == "notes/index.md"
    assert set(GAME_PAGES) <= set(entries), "a game's pages are not in the navigation"


def manual_links(uri: str) -> set[str]:
    """The pages of the manual a page (by its place) links to, by their places."""
    place = DOCS / uri
    targets = (target.partition("#")[0] for target in relative_links(GAME_PAGES.get(uri, place)))
    return {
        Path(os.path.relpath(os.path.normpath(place.parent / target), DOCS)).as_posix() for target in targets if target
    }


# ------------------------------------------------------------------------------------------ links


@pytest.mark.parametrize("path", [README, *docs_pages()], ids=page_id)
def test_every_relative_link_points_at_a_file_and_heading_that_exist(path: Path) -> None:
    """A game page's links are read from its place in the manual (docs/games/<name>/), where MkDocs resolves them."""
    place = PLACE.get(path, path)
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        at = Path(os.path.normpath(place.parent / file_part)) if file_part else place
        file = SOURCE.get(at, at).resolve()
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif place.is_relative_to(DOCS) and not at.is_relative_to(DOCS):
            broken.append(f"{target}: outside docs/ (MkDocs cannot follow it; name the file as code instead)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {file.relative_to(REPO)}")
    assert not broken, f"{path.relative_to(REPO)}: " + "; ".join(broken)


def test_the_link_check_sees_links_and_anchors() -> None:
    """The checker itself: it finds links outside code, skips those inside, and knows MkDocs' anchors."""
    text = "see [a](x.md#b) and `[c](y.md)`\n```\n[d](z.md)\n```\n[e](https://example.org)"
    assert [t for t in LINK.findall(prose(text)) if ":" not in t] == ["x.md#b"]
    assert slug("The game interface: `GAME`") == "the-game-interface-game"
    assert slug("ledger.jsonl") == "ledgerjsonl"
    assert slug("Palastgeflüster measurements") == "palastgefluster-measurements"
    readme_links = relative_links(README)
    assert any(link.startswith("docs/") for link in readme_links), "the README links into the manual"


@pytest.mark.parametrize("path", [README, *docs_pages()], ids=page_id)
def test_nothing_points_out_of_the_repository(path: Path) -> None:
    """A clone has no ../shared: the rules are in the manual, and no link or named path leads outside the repository
    (a path named as code counts too)."""
    pointers = [m.group(0) for m in OUTSIDE.finditer(path.read_text(encoding="utf-8"))]
    assert not pointers and not links_out(path, REPO), (
        f"{path.relative_to(REPO)} points out of the repository: {pointers + links_out(path, REPO)}"
    )


def links_out(path: Path, root: Path) -> list[str]:
    """The relative links of ``path`` whose target lies outside ``root`` (an absolute file path included)."""
    return [t for t in relative_links(path) if not (path.parent / t.partition("#")[0]).resolve().is_relative_to(root)]


def test_the_outside_check_sees_pointers_and_not_example_paths(tmp_path: Path) -> None:
    page = tmp_path / "repo" / "docs" / "page.md"
    page.parent.mkdir(parents=True)
    page.write_text("[a](../../shared/RULES.md) [b](/etc/hosts) [c](other.md#x) [d](https://example.org)\n")
    assert links_out(page, tmp_path / "repo") == ["../../shared/RULES.md", "/etc/hosts"]
    for pointer in ("`../shared/RULES.md`", "see ../shared/PALASTGEFLUESTER.md", "RULES.md section 9", "seeds/003_a1"):
        assert OUTSIDE.search(pointer), pointer
    for fine in ("--out /shared/runs/exp1", "a shared 2-core machine", "game seeds/rotations", "rules.md"):
        assert not OUTSIDE.search(fine), fine


# ------------------------------------------------------------------------------------------ the rules pages


def table_rows(text: str, first: str) -> list[list[str]]:
    """The cells of every Markdown table row whose first cell matches ``first`` (code marks dropped)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
            if re.fullmatch(first, cells[0]):
                rows.append(cells)
    return rows


def rules_page(game: str, package: str) -> tuple[str, dict]:
    """A game's rules page and the standard component set its tables document."""
    data_file = REPO / "palais_sim" / "games" / package / "data" / "standard.toml"
    return rules_page_of(game).read_text(encoding="utf-8"), tomllib.loads(data_file.read_text(encoding="utf-8"))


def test_the_palais_royal_rules_tables_are_the_standard_set() -> None:
    from palais_sim.games.palais_royal.board import PARK_ROWS

    text, data = rules_page("palais-royal", "palais_royal")
    nobles = [
        [n["id"], str(n["gold"]), str(n["violet"]), str(n["turquoise"]), str(n["points"]), n.get("privilege", "")]
        for n in data["nobles"]
    ]
    assert table_rows(text, r"N\d+") == nobles, "the nobles table is not standard.toml's [[nobles]]"
    prices = data["cards"]["prices"]
    priced = [row for row in table_rows(text, r"[a-z0-9_]+") if len(row) == 2 and row[0] in prices]
    assert {card: int(price) for card, price in priced} == prices and len(priced) == len(prices)
    copies = re.search(r"privilege cards\*\*, (\d+) copies of each", text)
    assert copies and int(copies.group(1)) == data["cards"]["copies"]
    x2 = re.search(r"doubled fields \(x2\) are[^:]*: ([\d,\s]+)", text)
    assert x2 and {int(f) for f in re.findall(r"\d+", x2.group(1))} == set(data["park"]["x2_fields"])
    layout = re.search(r"first-game layout\*\* is `([A-Z/]+)`", text)
    assert layout and layout.group(1) == data["layouts"]["first_game"]
    rows = {
        row[0].split()[0]: tuple(int(f) for f in row[1].split(","))
        for row in table_rows(text, r"(top|right|vase|lion).*")
    }
    assert rows == PARK_ROWS


def test_the_palastgefluester_rules_tables_are_its_component_file() -> None:
    text, data = rules_page("palastgefluester", "palastgefluester")
    ids, names = data["persons"]["ids"], data["persons"]["names"]
    persons = [row for row in table_rows(text, r"[a-z]+") if len(row) == 2 and row[0] in ids]
    assert persons == [list(pair) for pair in zip(ids, names, strict=True)]
    settings = {row[0]: row[1] for row in table_rows(text, r"[a-z].*") if len(row) == 2}
    assert settings["colours, one per seat in seat order"] == ", ".join(data["colours"]["names"])
    assert settings["brown cards of each person"] == str(data["brown"]["copies"])
    assert settings["persons on the king cards"] == ", ".join(data["kings"]["persons"])
    assert settings["cards dealt to each player"] == str(data["game"]["hand_size"])
    assert settings["different persons in a display that end the round"] == str(data["game"]["different_to_end"])
    wins = {int(row[0]): int(row[1]) for row in table_rows(text, r"\d+") if len(row) == 2}
    assert wins == {int(players): points for players, points in data["game"]["win_points"].items()}


REFERENCE = re.compile(r"^(?:>\s*)?- \*(?:Engine|Tests):\*")


def references(text: str) -> list[str]:
    """The text of each *Engine:* and *Tests:* item of a rules page (running on to a blank line or the next item)."""
    items: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        body = re.sub(r"^>\s?", "", line)
        if REFERENCE.match(line):
            current = [body]
            items.append(current)
        elif current is not None and body.strip() and not body.lstrip().startswith("- "):
            current.append(body)
        else:
            current = None
    return [" ".join(item) for item in items]


# How a name is defined: in a module (a function, class, constant or field), in a TOML file (a key or a table).
DEFINITION = {".py": r"^\s*(?:def|class)\s+{0}\b|^\s*{0}\s*[:=]", ".toml": r"^\s*{0}\s*=|^\[{0}\]"}


def defined(name: str, source: str, suffix: str) -> bool:
    """Whether ``source`` (a file's text, of the kind ``suffix`` names) defines ``name``."""
    return re.search(DEFINITION[suffix].format(re.escape(name)), source, re.MULTILINE) is not None


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_has_a_rules_page_in_its_package(game: str) -> None:
    """The rules of each game in the project's own words, beside its code."""
    assert f"games/{game}/rules.md" in GAME_PAGES, f"{game} has no docs/rules.md in its package"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_decision_on_a_rules_page_names_code_and_tests_that_exist(game: str) -> None:
    """Each Decision says where the engine implements it and which test checks it: the files and names must exist,
    so a renamed function or test shows up here."""
    text = rules_page_of(game).read_text(encoding="utf-8")
    decisions = len(re.findall(r"^> \*\*Decision", text, re.MULTILINE))
    engine = len(re.findall(r"^> - \*Engine:\*", text, re.MULTILINE))
    tests = len(re.findall(r"^> - \*Tests:\*", text, re.MULTILINE))
    assert decisions and decisions == engine == tests, f"{decisions} decisions, {engine} engine and {tests} tests items"
    missing = []
    for item in references(text):
        current: Path | None = None
        for span in CODE_SPAN.findall(item):
            span = span.strip("`")
            if re.fullmatch(r"[\w/.-]+\.(?:py|toml)", span):
                current = REPO / span
                if not current.is_file():
                    missing.append(f"{span}: no such file")
                    current = None
            elif re.fullmatch(r"[A-Za-z_]\w*", span):
                if current is None:
                    missing.append(f"{span}: no file named before it")
                elif not defined(span, current.read_text(encoding="utf-8"), current.suffix):
                    missing.append(f"{span}: not in {current.relative_to(REPO)}")
    assert not missing, f"{page_id(rules_page_of(game))}: " + "; ".join(missing)


def test_the_reference_check_reads_items_across_lines() -> None:
    text = "> **Decision: x.**\n>\n> - *Engine:* `a.py` `f`,\n>   `g`.\n> - *Tests:* no test yet.\n\nprose `h`"
    assert references(text) == ["- *Engine:* `a.py` `f`,   `g`.", "- *Tests:* no test yet."]
    assert defined("f", "def f():\n    pass", ".py") and defined("x", "class A:\n    x: int", ".py")
    assert not defined("f", "g = f()", ".py") and defined("copies", "[brown]\ncopies = 2", ".toml")


# ------------------------------------------------------------------------------------------ the column tables


@pytest.mark.parametrize("game", list(GAMES))
def test_every_column_table_in_the_docs_is_the_one_in_the_code(game: str) -> None:
    """Each table of each game is documented as the code declares it, on the run format's page or the game's own."""
    pages = [SCHEMA_PAGE, *(source for uri, source in GAME_PAGES.items() if uri.startswith(f"games/{game}/"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    for table in records.columns(get_game(game)):
        expected = records.schema_markdown(table, get_game(game))
        assert expected in text, (
            f"the {table} table of {game} is in none of {[page_id(p) for p in pages]} as the code has it; "
            f"put it on the game's page:\n{expected}"
        )


# ------------------------------------------------------------------------------------------ the build


def test_mkdocs_builds_the_manual_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (it is in the dev extra: pip install -e '.[dev]')")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(MKDOCS_YML),
         "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "site" / "index.html").exists()
    for uri in GAME_PAGES:
        page = Path(uri).with_suffix("")
        built = tmp_path / "site" / (page.parent if page.name == "index" else page) / "index.html"
        assert built.exists(), f"{built.relative_to(tmp_path)} was not built"
    assert not (tmp_path / "site" / "hooks").exists(), "the hook was published as a page's file"


def make_rules() -> dict[str, tuple[str, str]]:
    """The Makefile's rules with their variables expanded one level: target -> (prerequisites, recipe)."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    variables = dict(re.findall(r"^([A-Z_]+) :?= ?(.*)$", makefile, re.MULTILINE))

    def expand(text: str) -> str:
        while (expanded := re.sub(r"\$\(([A-Z_]+)\)", lambda m: variables.get(m.group(1), m.group(0)), text)) != text:
            text = expanded
        return text

    rules = re.findall(r"^(\S+):(?!=)([^\n]*)\n((?:\t[^\n]*\n)*)", makefile, re.MULTILINE)
    return {expand(target): (expand(prerequisites), expand(recipe)) for target, prerequisites, recipe in rules}


def test_make_demo_then_make_test_installs_the_package_once_and_compiles_once() -> None:
    """`make test` after `make demo` reinstalled the package and compiled the engine again: a stamp per set of
    extras, each recipe installing the package and removing the compiled build's stamp."""
    rules = make_rules()
    installing = [target for target, (_, recipe) in rules.items() if re.search(r'install[^\n]*-e "\.', recipe)]
    assert installing == [".venv/.installed-dev"], f"rules that install the package: {installing}"
    demo_stamps = [word for word in rules["demo"][0].split() if word.startswith(".venv/")]
    test_stamps = [word for word in rules["test"][0].split() if word.startswith(".venv/")]
    assert demo_stamps == [".venv/.installed-dev"] and len(test_stamps) == 1
    chain, stamp = {".venv/.installed-dev"}, test_stamps[0]
    while stamp not in chain:  # the test target's stamp reaches the demo's install through its prerequisites
        prerequisites, recipe = rules[stamp]
        assert "rm -f .venv/.built" not in recipe, f"{stamp} makes the engine compile again"
        assert "-e " not in recipe, f"{stamp} installs the package again"
        stamp = prerequisites.split()[0]


def test_the_compile_says_what_it_does_and_how_long_it_took() -> None:
    """`make demo` was silent for minutes after "compiling the engine with mypyc": the compile names its steps
    while it runs, counts the extensions gcc has built, and says how long it took."""
    recipe = make_rules()[".venv/.built"][1]
    assert "type check" in recipe and "of $$total" in recipe and "the build took" in recipe
    assert re.search(r"while kill -0 \$\$?build", recipe), "no progress while the build runs"


def test_the_readme_names_the_notebook_and_how_to_open_it() -> None:
    """The walkthrough notebook was in the repository and the manual but not on the front page."""
    text = README.read_text(encoding="utf-8")
    assert "notebooks/walkthrough.ipynb" in text and "ipykernel" in text


CODE_WIDTH = 120  # characters of a code block the manual's theme shows at 1400 px without cutting the line


@pytest.mark.parametrize("path", [README, *docs_pages()], ids=page_id)
def test_no_code_line_is_wider_than_the_page_shows(path: Path) -> None:
    """A balance log line in docs/studies.md was cut at "withi" (165 characters in a code block)."""
    text = path.read_text(encoding="utf-8")
    wide = [line for block in FENCE.finditer(text) for line in block.group(0).splitlines() if len(line) > CODE_WIDTH]
    assert wide == [], f"{path.relative_to(REPO)}: code lines wider than {CODE_WIDTH}: {[w[:60] for w in wide]}"


def test_every_command_of_the_cli_is_in_the_commands_table() -> None:
    """The commands page's first table lists every top-level command the CLI registers (`palais train` and `palais
    verify` were missing)."""
    import typer.main

    from palais_sim.cli import app

    table = (DOCS / "commands.md").read_text(encoding="utf-8").split("## Exit codes")[0]
    listed = set(re.findall(r"^\| `palais (\w+)", table, flags=re.MULTILINE))
    assert listed and set(typer.main.get_command(app).commands) <= listed, sorted(
        set(typer.main.get_command(app).commands) - listed
    )


def test_the_games_page_shows_what_palais_games_prints() -> None:
    """docs/games.md quotes `palais games`; its strategies and study levels change as the games do."""
    from typer.testing import CliRunner

    from palais_sim.cli import app

    shown = re.search(
        r"`palais games` lists them:\n\n```\n(.*?)```", (DOCS / "games.md").read_text(encoding="utf-8"), re.S
    )
    printed = CliRunner().invoke(app, ["games"])
    assert shown is not None and printed.exit_code == 0 and shown.group(1) == printed.output
