"""The documentation: the site in ``docs/`` builds with every link and anchor checked,
and the README, which is no page of the site, stays short and links only to what exists.

``mkdocs build --strict`` fails on any warning, and ``mkdocs.yml``'s ``validation`` makes a
broken link or anchor between pages a warning. The README's links are checked here with a
small parser: relative links to files of the repository, and their ``#anchors`` on a
Markdown file's headings, slugged as MkDocs' ``toc`` extension slugs them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
README = REPO / "README.md"
README_LINES = 200
# The README's first lines: CI runs exactly the second command (.ci/run).
COMMANDS = (
    "scripts/demo.sh                                    # set up, build the demo knowledge base, open the chat app (offline)",
    "bash scripts/setup.sh && .venv/bin/python -m pytest    # run the tests (CI runs exactly this)",
)

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a heading or link in code is neither)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slugify(heading: str) -> str:
    """A heading's anchor as MkDocs' ``toc`` makes it: the heading's text (code spans,
    emphasis and links reduced to their words), ASCII only, lowercase, punctuation
    dropped, runs of spaces and hyphens one hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[`*]", "", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; a repeated heading gets ``_1``, ``_2`` …"""
    found: set[str] = set()
    for line in _prose(path.read_text(encoding="utf-8")):
        match = _HEADING.match(line)
        if match:
            slug, n = slugify(match.group(2)), 0
            while (slug if n == 0 else f"{slug}_{n}") in found:
                n += 1
            found.add(slug if n == 0 else f"{slug}_{n}")
    return found


def links(path: Path) -> list[str]:
    return [m.group(1) for line in _prose(path.read_text(encoding="utf-8")) for m in _LINK.finditer(line)]


def broken_links(path: Path) -> list[str]:
    """The relative links of ``path`` whose file or heading does not exist, each with why."""
    broken = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: …
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no file {resolved.relative_to(REPO) if resolved.is_relative_to(REPO) else resolved}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {resolved.name}")
    return broken


def test_slugify_as_mkdocs_does():
    assert slugify("Numbers bound to their quantities") == "numbers-bound-to-their-quantities"
    assert slugify("Questions across analyses, and side by side") == "questions-across-analyses-and-side-by-side"
    assert slugify("`mitra adapt`: a reranker trained on the collaboration's own text") == \
        "mitra-adapt-a-reranker-trained-on-the-collaborations-own-text"
    assert slugify("Shared state: files on one machine, PostgreSQL for several") == \
        "shared-state-files-on-one-machine-postgresql-for-several"
    assert slugify("JSONL input (`index-jsonl`)") == "jsonl-input-index-jsonl"


def test_the_site_builds_with_no_broken_link(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_every_page_is_in_the_nav():
    """``omitted_files`` warns too, but say which page is missing in one line."""
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))
    assert pages and [p for p in pages if f" {p}" not in nav] == []


def test_the_readme_is_short_and_opens_on_its_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines: move detail into docs/"
    assert lines[2] == "```bash" and tuple(lines[3:5]) == COMMANDS
    assert ".venv/bin/python -m pytest" in (REPO / ".ci" / "run").read_text()


def test_the_readme_links_resolve():
    found = links(README)
    assert any(t.startswith("docs/") for t in found), "the README links into docs/"
    assert broken_links(README) == []
