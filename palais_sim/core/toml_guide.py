"""A component file's guide as TOML comments (`palais components show`): an introduction, then one entry per table
or key, wrapped to the width of the project's code. Each game writes its own words; this lays them out."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from importlib import resources

WIDTH = 116


def _entry(label: str, text: str) -> str:
    head = f"# {label:<10}"
    return textwrap.fill(text, WIDTH, initial_indent=head, subsequent_indent="#" + " " * (len(head) - 1)) + "\n"


def commented_guide(intro: str, entries: Sequence[tuple[str, str]]) -> str:
    """The introduction as a comment paragraph, then each (label, text) entry with its text aligned after the label."""
    return (
        textwrap.fill(intro, WIDTH, initial_indent="# ", subsequent_indent="# ")
        + "\n#\n"
        + "".join(_entry(label, text) for label, text in entries)
        + "#\n"
    )


def guided_data_file(guide: str, data_file: str) -> str:
    """The guide, then the packaged ``palais_sim/data/<data_file>`` unchanged (so it loads back to the same set)."""
    return guide + resources.files("palais_sim").joinpath(f"data/{data_file}").read_text(encoding="utf-8")
