"""The pages we ship, as a reader sees them: rendered in headless Chromium at 1400 px and checked in its DOM after
layout, generically over every page. The pages: the HTML report of a small run (``palais report all --format html``,
the demo's kind), study pages rendered from the published evidence of reports/standard (a study writes its HTML page
beside its study.md; the published set keeps the Markdown, which is rendered again here with its HTML), and every
page of the MkDocs manual (``mkdocs build`` into a temporary directory).

The checks (:data:`CHECKS`, one script run in the page): no text clipped by an element that hides its overflow, nor
by a page that cannot scroll sideways; every image loaded; no raw Markdown (backticks, stars, ``[link](target)``) in
visible text outside code; no table with a header and no rows; no blank column header; no option name
(``--validation-groups``) broken across lines. Each check is first shown to find a fault planted in a tiny page.

The browser is Debian's chromium (``apt-get install chromium``; ``.ci/run`` installs it where it can), driven by
Playwright's Python package (the dev extra) without a browser download of its own. Without either, these tests skip.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("PALAIS_CHROMIUM", "/usr/bin/chromium"))
WIDTH = 1400  # the reader's window: the width the first-hour trials looked at every page with
# a closed network stalls a browser that phones home: nothing of the kind, a fresh profile (Playwright's own)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip

if not CHROMIUM.exists():
    pytest.skip(f"no browser at {CHROMIUM} (apt-get install chromium; or set PALAIS_CHROMIUM)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra has it)")

# The checks, run in the page after layout; each fault is one line saying what and where.
CHECKS = r"""
() => {
  const faults = [];
  const shown = (el) => el.checkVisibility();
  const where = (el) => `<${el.tagName.toLowerCase()}> "${(el.innerText || el.textContent || "").trim()
    .replace(/\s+/g, " ").slice(0, 60)}"`;
  const clips = (el) => ["hidden", "clip"].includes(getComputedStyle(el).overflowX);
  const textRight = (el) => {  // the right edge of the element's text as laid out
    let right = -Infinity;
    const nodes = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = nodes.nextNode(); node; node = nodes.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) right = Math.max(right, rect.right);
    }
    return right;
  };
  // text beyond the edge of an element that hides its horizontal overflow (a theme's hidden scroll bar is not text)
  for (const el of document.body.querySelectorAll("*")) {
    if (!shown(el) || !clips(el) || el.scrollWidth <= el.clientWidth + 1) continue;
    const box = el.getBoundingClientRect(), right = textRight(el), edge = box.left + el.clientLeft + el.clientWidth;
    if (right > edge + 1)
      faults.push(`clipped text: ${where(el)} shows ${el.clientWidth} px of ${Math.round(right - box.left)} px`);
  }
  const root = document.documentElement;
  if ((clips(root) || clips(document.body)) && root.scrollWidth > window.innerWidth)
    faults.push(`clipped page: ${root.scrollWidth} px wide in a ${window.innerWidth} px window that cannot scroll`);
  for (const img of document.images)
    if (!img.complete || img.naturalWidth === 0)
      faults.push(`image not loaded: "${img.alt}" (${(img.getAttribute("src") || "").slice(0, 50)})`);
  const texts = [];  // visible text outside code
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && !parent.closest("pre, code, kbd, samp, script, style, textarea") && shown(parent)) texts.push(node);
  }
  const markdown = [[/`/, "a backtick"], [/\*\*\S/, "**bold**"], [/(^|[\s(])\*[^\s*][^*]*\*(?=$|[\s).,;:])/,
                    "*emphasis*"], [/\]\([^)\s]+\)/, "[link](target)"],
                    [/\n\s*(-|\d+\.) \S/, "a list run into a paragraph"]];
  for (const node of texts)
    for (const [pattern, what] of markdown)
      if (pattern.test(node.textContent))
        faults.push(`raw Markdown (${what}): "${node.textContent.trim().slice(0, 80)}"`);
  for (const table of document.querySelectorAll("table")) {
    if (!shown(table)) continue;
    const head = table.tHead ? table.tHead.rows[0] : table.rows[0];
    if (!head || !head.querySelector("th")) continue;
    if (![...table.rows].some((row) => row.querySelector("td"))) faults.push(`empty table: ${where(table)}`);
    [...head.cells].forEach((cell, i) => {
      if (!cell.textContent.trim()) faults.push(`blank column header: column ${i + 1} of ${where(table)}`);
    });
  }
  // an option (--validation-groups, -s) laid out on more than one line, in running text or in code
  const option = /(^|[^\w-])(--?[A-Za-z]\w*(?:-\w+)*)/g;
  const codeTexts = [...document.querySelectorAll("code")].filter(shown).flatMap((code) => {
    const nodes = [], inner = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = inner.nextNode(); node; node = inner.nextNode()) nodes.push(node);
    return nodes;
  });
  for (const node of texts.concat(codeTexts))
    for (const match of node.textContent.matchAll(option)) {
      const start = match.index + match[1].length, range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, start + match[2].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1)
        faults.push(`option broken across lines: "${match[2]}" in "${node.textContent.slice(0, 60)}"`);
    }
  return faults;
}
"""


@pytest.fixture(scope="module")
def page() -> Iterator[sync_api.Page]:
    """One browser for the module, one tab at the reader's width."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": WIDTH, "height": 900})
        finally:
            browser.close()


def faults(page: sync_api.Page, path: Path | None = None, html: str | None = None) -> list[str]:
    """The faults of the page at ``path`` (or of ``html``) after layout."""
    if path is not None:
        page.goto(path.resolve().as_uri(), wait_until="load")
    else:
        page.set_content(html or "", wait_until="load")
    return page.evaluate(CHECKS)


def assert_no_fault(page: sync_api.Page, paths: list[Path], root: Path) -> None:
    found = [f"{path.relative_to(root)}: {line}" for path in paths for line in faults(page, path)]
    assert not found, f"{len(found)} faults:\n" + "\n".join(found)


# ------------------------------------------------------------------------------------ each check on a planted fault

IMAGE = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'/>"
LONG = "palais study nobles --out runs/studies/nobles --strategy greedy --groups 6000 --looks 10 --reprice none " * 2
TABLE = "<table><thead><tr><th>noble</th><th>{}</th></tr></thead><tbody>{}</tbody></table>"
CLEAN = f"""<!DOCTYPE html><html><body>
<pre style="overflow-x: auto">{LONG}</pre>
<div style="overflow: hidden; width: 300px"><p>a short line in a box that hides its overflow</p></div>
<img alt="a chart" src="{IMAGE}">
<p>a * b, 2*3 and <code>`code` with **stars**</code> and <em>emphasis</em></p>
{TABLE.format("value", "<tr><td>N01</td><td>+1.0</td></tr>")}
<div style="width: 140px"><code style="white-space: nowrap">--validation-groups</code> and more words</div>
</body></html>"""
PLANTED = {
    "clipped text": f'<pre style="overflow: hidden; width: 400px">{LONG}</pre>',
    "clipped page": f'<body style="overflow-x: hidden"><p style="width: 2400px">{LONG}</p></body>',
    "image not loaded": '<img alt="a chart" src="charts/missing.png">',
    "raw Markdown (a backtick)": "<p>run `palais report` on it</p>",
    "raw Markdown (**bold**)": "<p>the noble is **favoured**</p>",
    "raw Markdown (*emphasis*)": "<p>the focus player never plays it (*without*)</p>",
    "raw Markdown ([link](target))": "<p>see [the manual](docs/studies.md)</p>",
    # Python-Markdown renders a list with no blank line before it as the paragraph's text
    "raw Markdown (a list run into a paragraph)": "<p><strong>In short</strong>:\n- the first point;\n- the second</p>",
    "empty table": TABLE.format("value", ""),
    "blank column header": TABLE.format("", "<tr><td>N01</td><td>+1.0</td></tr>"),
    "option broken across lines": '<div style="width: 140px"><code>--validation-groups</code> and more words</div>',
}


def test_a_page_without_a_fault_shows_none(page: sync_api.Page) -> None:
    assert faults(page, html=CLEAN) == []


@pytest.mark.parametrize("kind", PLANTED)
def test_each_check_finds_its_planted_fault(page: sync_api.Page, kind: str) -> None:
    found = faults(page, html=PLANTED[kind])
    assert [line for line in found if line.startswith(kind)], f"{kind} not found; found: {found}"


# ------------------------------------------------------------------------------------------------ the pages we ship


def test_the_html_report_of_a_small_run_has_no_fault(page: sync_api.Page, tmp_path: Path) -> None:
    """The demo's report (make demo: palais simulate, then palais report all --format html) on 120 games."""
    from palais_sim.cli import app

    run = CliRunner().invoke(app, ["simulate", "--out", str(tmp_path / "run"), "--games", "120", "--workers", "1"])
    assert run.exit_code == 0, run.output
    out = tmp_path / "report"
    report = CliRunner().invoke(app, ["report", "all", str(tmp_path / "run"), "--out", str(out), "--format", "html"])
    assert report.exit_code == 0, report.output
    assert_no_fault(page, [out / "report.html"], out)


# The published study pages rendered with their HTML: the balance page (its changes table, its options), a ladder
# (rung order, every column named) and a Palastgefluester page (its Markdown emphasis).
STUDIES = ("balance", "nobles-ladder", "pg-persons")


def render_published(study: Path, target: Path) -> subprocess.Popen:
    """Start rendering the published ``study``'s page from a copy of its evidence in ``target``, as ``make
    reports-render`` does (its recorded command on the evidence, nothing played), but keeping the HTML page that the
    published set leaves out."""
    from palais_sim.study import arms, compact

    evidence = target / compact.EVIDENCE
    shutil.copytree(study / compact.EVIDENCE, evidence)
    command = json.loads((evidence / compact.INDEX).read_text(encoding="utf-8"))["command"]
    env = {**os.environ, arms.RENDER_ONLY_ENV: "1", compact.RECORDED_COMMAND_ENV: command}
    argv = compact._with_out(shlex.split(command)[1:], evidence)
    return subprocess.Popen([sys.executable, "-m", "palais_sim.cli", *argv], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_the_published_study_pages_have_no_fault(page: sync_api.Page, tmp_path: Path) -> None:
    renders = {name: render_published(REPO / "reports" / "standard" / name, tmp_path / name) for name in STUDIES}
    for name, render in renders.items():
        _, err = render.communicate(timeout=600)
        assert render.returncode == 0, f"{name}: not rendered from its evidence: {err[-2000:]}"
    pages = sorted(tmp_path.glob("*/evidence/*.html"))
    assert len(pages) == len(STUDIES), pages
    assert_no_fault(page, pages, tmp_path)


def test_every_page_of_the_manual_has_no_fault(page: sync_api.Page, tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(site)], cwd=REPO,
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert built.returncode == 0, built.stderr
    pages = sorted(path for path in site.rglob("index.html") if "search" not in path.parts)
    assert len(pages) >= 20
    assert_no_fault(page, pages, site)
