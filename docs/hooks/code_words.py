"""Option names in the manual's inline code stay on one line (a MkDocs hook, ``hooks:`` in mkdocs.yml).

A browser may break a line after any hyphen, so ``--validation-groups`` or the ``--workers`` of a command line in
running text ended one line with "-" and started the next with "-workers". Each option of an inline code span (not
of a code block) is wrapped in ``<span class="option">``, which docs/stylesheets/extra.css keeps on one line, as the
study and report pages do with theirs (``palais_sim.analytics.report_render.whole_options``; its module imports
matplotlib, seconds the manual's build need not wait, so the pattern is repeated here and a test compares the two).
"""

from __future__ import annotations

import re
from typing import Any

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w=:,-]*)")  # report_render.OPTION
# an inline code span as Markdown writes it: <code> without attributes, not the <pre><code> of a code block
INLINE_CODE = re.compile(r"(?<!<pre>)<code>(.*?)</code>", re.DOTALL)


def keep_options_whole(html: str) -> str:
    """``html`` with every option of its inline code spans in a span that does not break."""

    def code(match: re.Match[str]) -> str:
        return "<code>" + OPTION.sub(r'<span class="option">\1</span>', match.group(1)) + "</code>"

    return INLINE_CODE.sub(code, html)


def on_page_content(html: str, **_: Any) -> str:
    return keep_options_whole(html)
