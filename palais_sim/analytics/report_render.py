"""A report as a list of blocks (headings, paragraphs, lists, code, tables, charts) and its three renderers: Markdown,
one self-contained HTML page (charts embedded) and JSON (the full tables, no chart).

The Markdown and HTML renderers (:func:`markdown` and :func:`html_page`) are the only ones: a study's page
(``palais_sim.study.render.Page``) is made of the same blocks and rendered by the same two functions."""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from palais_sim.analytics import charts

Block = tuple[str, object]  # ("h" | "p" | "list" | "code" | "table" | "chart", its content)


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass
class Report:
    title: str
    chart_dir: Path | None = None  # None: no charts (JSON)
    blocks: list[Block] = field(default_factory=list)
    data: dict[str, object] = field(default_factory=dict)
    charts: dict[str, dict[str, Path]] = field(default_factory=dict)
    headline: list[str] = field(default_factory=list)

    def h(self, text: str) -> None:
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, df: pl.DataFrame, columns: list[tuple[str, Callable[[dict], str]]]) -> None:
        rows = [[fmt(row) for _, fmt in columns] for row in df.iter_rows(named=True)]
        self.blocks.append(("table", Table([name for name, _ in columns], rows)))

    def rows(self, headers: list[str], rows: list[list[str]]) -> None:
        self.blocks.append(("table", Table(headers, rows)))

    def chart(self, name: str, draw: Callable[[], Figure], caption: str) -> None:
        """Draw and save a chart (not for JSON, which has no charts) and place it here with its caption."""
        if self.chart_dir is None:
            return
        self.charts[name] = charts.save(draw(), self.chart_dir, name)
        self.blocks.append(("chart", (name, caption)))


def markdown(title: str, blocks: list[Block]) -> str:
    """The blocks as a Markdown page (charts as images in ``charts/``, captioned)."""
    lines = [f"# {title}", ""]
    for kind, value in blocks:
        if kind == "h":
            lines += [f"## {value}", ""]
        elif kind == "p":
            lines += [str(value), ""]
        elif kind == "list":
            lines += [f"- {item}" for item in value] + [""]  # type: ignore[attr-defined]
        elif kind == "code":
            lines += ["```", str(value), "```", ""]
        elif kind == "table":
            assert isinstance(value, Table)
            lines.append("| " + " | ".join(value.headers) + " |")
            lines.append("|" + "|".join("---" for _ in value.headers) + "|")
            lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in value.rows]
            lines.append("")
        elif kind == "chart":
            name, caption = value  # type: ignore[misc]
            lines += [f"![{caption}](charts/{name}.png)", "", f"*{caption}*", ""]
    return "\n".join(lines)


CSS = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
.table { overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f0f3f6; } td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; } figcaption { color: #555; font-size: 0.9em; }
code, pre { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; background: #f4f4f4;
  padding: 0 0.2em; font-size: 0.9em; } pre { padding: 0.5em; overflow-x: auto; }
td code, th code { font-size: 1em; } code.word { white-space: nowrap; } code .option { white-space: nowrap; }
"""
# A chart is shown at CHART_PX_PER_INCH of its figure size (its PNG is at charts.PNG_DPI), at most the page width:
# its 9-point text is about 15 pixels high on screen, as legible as the page's own.
CHART_PX_PER_INCH = 120


# *emphasis* outside code: a single star on each side of a word or words, not a star of "a * b" nor of **bold**
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![\w*])")


# an option in a code span's HTML: a browser may break a line after any hyphen ("--validation-" / "groups")
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w=:,-]*)")


def whole_options(code: str) -> str:
    """The HTML of a code span with each option in a ``<span class="option">`` that the CSS keeps on one line: the
    command line around it still breaks at its spaces (the manual's hook docs/hooks/code_words.py does the same)."""
    return OPTION.sub(r'<span class="option">\1</span>', code)


def _code(text: str) -> str:
    """A code span; one without spaces (an option, a name) does not break at its hyphens (--validation-groups), nor
    does an option in one with spaces (a command line)."""
    return f'<code class="word">{text}</code>' if " " not in text else f"<code>{whole_options(text)}</code>"


def inline_html(text: str) -> str:
    """Markdown's `code`, **bold** and *emphasis* of a line as HTML (the rest escaped): a study page showed
    "*without*" with its stars."""
    out = html.escape(text)
    parts = out.split("`")
    out = "".join(_code(p) if i % 2 else _EMPHASIS.sub(r"<em>\1</em>", p) for i, p in enumerate(parts))
    parts = out.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def _display_width(png: bytes) -> str:
    """The ``width`` attribute that shows a chart's PNG at ``CHART_PX_PER_INCH`` (from its header and its pHYs
    resolution, 72 dpi when it has none); empty when the bytes are not a PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return ""
    pixels = int.from_bytes(png[16:20], "big")
    dpi = 72.0
    at = png.find(b"pHYs", 8, 4096)
    if at > 0 and png[at + 12] == 1:  # unit: metre
        dpi = int.from_bytes(png[at + 4 : at + 8], "big") * 0.0254
    return f' width="{round(pixels / dpi * CHART_PX_PER_INCH)}"'


def html_page(title: str, blocks: list[Block], png: Callable[[str], Path]) -> str:
    """The blocks as one self-contained HTML page: each chart's PNG (``png(name)``) embedded."""
    body = [f"<h1>{html.escape(title)}</h1>"]
    for kind, value in blocks:
        if kind == "h":
            body.append(f"<h2>{inline_html(str(value))}</h2>")
        elif kind == "p":
            body.append(f"<p>{inline_html(str(value))}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{inline_html(str(item))}</li>" for item in value) + "</ul>")  # type: ignore[attr-defined]
        elif kind == "code":
            body.append(f"<pre>{html.escape(str(value))}</pre>")
        elif kind == "table":
            assert isinstance(value, Table)
            head = "".join(f"<th>{inline_html(h)}</th>" for h in value.headers)
            rows = "".join("<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in row) + "</tr>" for row in value.rows)
            body.append(f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')
        elif kind == "chart":
            name, caption = value  # type: ignore[misc]
            raw = png(name).read_bytes()
            data = base64.b64encode(raw).decode("ascii")
            body.append(
                f'<figure><img alt="{html.escape(caption)}"{_display_width(raw)} src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>"
            )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def to_markdown(rep: Report) -> str:
    return markdown(rep.title, rep.blocks)


def to_html(rep: Report) -> str:
    return html_page(rep.title, rep.blocks, lambda name: rep.charts[name]["png"])


def _clean(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def to_json(rep: Report) -> str:
    data: dict[str, object] = {}
    for key, value in rep.data.items():
        data[key] = value.to_dicts() if isinstance(value, pl.DataFrame) else value
    data["notes"] = [str(v) for k, v in rep.blocks if k == "p"]
    data["charts"] = {name: {fmt: str(p) for fmt, p in paths.items()} for name, paths in rep.charts.items()}
    return json.dumps(_clean(data), indent=1, allow_nan=False)
