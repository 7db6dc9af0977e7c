"""Reading a JSON file a user hands a command (a position, a log line's file): every failure one line naming it."""

from __future__ import annotations

import json
from pathlib import Path


def read_json_file(path: Path, error: type[Exception], what: str = "a position file") -> object:
    """The JSON value in ``path``; a missing, unreadable, binary or malformed file raises ``error`` with one line that
    starts with the path (``what`` names the kind of file a directory is not)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not {what}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (a position is JSON)") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
