"""Every leaf command of a Click group (the `palais` app as Typer builds it), with its path of names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def leaf_commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from leaf_commands(command, (*path, name))
        else:
            yield (*path, name), command
