"""A component file's guide as TOML comments (`palais components show`): an introduction, then one entry per table
or key, wrapped to the width of the project's code. Each game writes its own words; this lays them out."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from importlib import resources

WIDTH = 116


def _entry(label: str, text: str) -> str:
    head = f"# {label} ".ljust(12)  # a label longer than the column keeps a space before its text
    return textwrap.fill(text, WIDTH, initial_indent=head, subsequent_indent="#" + " " * (len(head) - 1)) + "\n"


def commented_guide(intro: str, entries: Sequence[tuple[str, str]]) -> str:
    """The introduction as a comment paragraph, then each (label, text) entry with its text aligned after the label."""
    return (
        textwrap.fill(intro, WIDTH, initial_indent="# ", subsequent_indent="# ")
        + "\n#\n"
        + "".join(_entry(label, text) for label, text in entries)
        + "#\n"
    )


STANDARD_SET = "data/standard.toml"  # a game's standard component set, in its own package


def standard_set_text(package: str) -> str:
    """The standard component set of the game package ``package`` (its ``data/standard.toml``), as text."""
    return resources.files(package).joinpath(STANDARD_SET).read_text(encoding="utf-8")


def guided_data_file(guide: str, package: str) -> str:
    """The guide, then the standard set of the game package ``package`` unchanged (so it loads back to the same
    set)."""
    return guide + standard_set_text(package)
