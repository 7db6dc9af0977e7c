"""The CLI's bad-input contract, as the tests check it: a non-zero exit, one `error:` line on stderr, no traceback."""

from __future__ import annotations


def one_error_line(result, code: int = 2) -> str:
    """The result failed with ``code`` and one line on stderr, no traceback; returns that line."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]
