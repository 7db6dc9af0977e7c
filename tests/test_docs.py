"""The manual and the front page: the README stays a front page, every docs page is in the MkDocs navigation and
every navigation entry exists, every relative link (and heading anchor) points at something, the column tables are
the code's, and ``mkdocs build --strict`` passes."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from palais_sim.games import GAMES
from palais_sim.tournament import records

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
MKDOCS_YML = REPO / "mkdocs.yml"

README_MAX_LINES = 250
FIRST_SCREEN = 40  # lines a new user sees before scrolling

# Where each game's column tables are documented (generated from records.schema_markdown).
SCHEMA_PAGES = {"palais-royal": DOCS / "run-format.md", "palastgefluester": DOCS / "games" / "palastgefluester.md"}

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\]\n]|\][^(\n])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)


def docs_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


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


# ------------------------------------------------------------------------------------------ the navigation


def test_every_docs_page_is_in_the_navigation_and_every_entry_exists() -> None:
    config = yaml.safe_load(MKDOCS_YML.read_text(encoding="utf-8"))
    assert config.get("docs_dir", "docs") == "docs"
    entries = nav_entries(config["nav"])
    assert len(entries) == len(set(entries)), "a page is listed twice in the nav"
    pages = {p.relative_to(DOCS).as_posix() for p in docs_pages()}
    assert sorted(set(entries) - pages) == [], "nav entries without a page"
    assert sorted(pages - set(entries)) == [], "pages missing from mkdocs.yml's nav"
    assert entries[0] == "index.md"


# ------------------------------------------------------------------------------------------ links


@pytest.mark.parametrize("path", [README, *docs_pages()], ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_points_at_a_file_and_heading_that_exist(path: Path) -> None:
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        file = (path.parent / file_part).resolve() if file_part else path
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif path.is_relative_to(DOCS) and not file.is_relative_to(DOCS):
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


# ------------------------------------------------------------------------------------------ the column tables


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_column_table_in_the_docs_is_the_one_in_the_code(game: str) -> None:
    page = SCHEMA_PAGES[game]
    text = page.read_text(encoding="utf-8")
    for table in records.columns(game):
        expected = records.schema_markdown(table, game)
        assert expected in text, (
            f"{page.relative_to(REPO)}: the {table} table of {game} is not the code's; replace it with:\n{expected}"
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
    assert (tmp_path / "site" / "games" / "palastgefluester" / "index.html").exists()
