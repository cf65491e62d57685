"""The section path while a text front end reads, and what it keeps or drops under it.

Shared by the Markdown, plain-text (``from_text``) and LaTeX (``from_latex``) readers.
"""

from __future__ import annotations

import re
from collections import Counter

from ingest.chunk.paragraphs import Paragraph, ParsedText, dropped_path
from ingest.chunk.shapes import MIN_REFERENCES, REFERENCES, shape_of
from mitra.core.types import ChunkKind


def slug(title: str, given: Counter) -> str:
    """The anchor GitHub and GitLab give a heading: lower case, punctuation dropped, spaces
    as hyphens; a repeated one gets "-1", "-2", ..."""
    slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
    given[slug] += 1
    return slug if given[slug] == 1 else f"{slug}-{given[slug] - 1}"


class Sections:
    """The section path while reading, and what the front end keeps or drops under it:
    sections dropped by their title, and blocks dropped by their shape (``shapes``)."""

    def __init__(self, anchors: bool = False) -> None:
        self.path: list[str] = []
        self.anchors: Counter | None = Counter() if anchors else None  # slugs given so far
        self.anchor = ""
        self.out = ParsedText()
        self.shapes: list[tuple[str, int, str] | None] = []  # per paragraph: (kind, references, raw)
        self.raws: list[tuple[str, str]] = []  # per paragraph: (its kind, its source) for coverage by kind

    def heading(self, title: str, level: int) -> None:
        self.path = self.path[: level - 1] + [title]
        if self.anchors is not None:
            self.anchor = slug(title, self.anchors)
        if not self.dropping:
            self.out.headings.append(title)
            self.out.read.append(("heading", title))
        else:
            self.out.drop(self.dropping, title)

    @property
    def dropping(self) -> str | None:
        """The kind of text under the current section when it is left out."""
        return dropped_path(self.path)

    def add(self, text: str, kind: ChunkKind = ChunkKind.body, section: tuple[str, ...] | None = None,
            raw: str | None = None) -> None:
        """A paragraph; ``raw`` is its source, whose shape may mark it as left out."""
        if not text.strip():
            return
        if self.dropping and section is None:
            self.out.drop(self.dropping, raw or text)
            return
        shape = shape_of(raw or text) if kind is ChunkKind.body and section is None else None
        self.out.paragraphs.append(Paragraph(text, tuple(self.path) if section is None else section, kind,
                                             anchor=self.anchor if section is None else ""))
        self.shapes.append(None if shape is None else (*shape, raw or text))
        self.raws.append((kind.value, raw or text))

    def finish(self) -> ParsedText:
        """The parsed text, less the blocks dropped by shape: reference entries only in a
        run of ``MIN_REFERENCES`` (one body paragraph citing a paper is prose)."""
        keep: list[Paragraph] = []
        run: list[tuple[Paragraph, int, str]] = []  # the reference run being read

        def end_run() -> None:
            if sum(entries for _, entries, _ in run) >= MIN_REFERENCES:
                self.out.drop(REFERENCES, *(raw for _, _, raw in run))
            else:
                keep.extend(paragraph for paragraph, _, _ in run)
            run.clear()

        kept_raws = {}
        for paragraph, shape, raw in zip(self.out.paragraphs, self.shapes, self.raws):
            kept_raws[id(paragraph)] = raw
            if shape is not None and shape[0] == REFERENCES:
                run.append((paragraph, shape[1], shape[2]))
                continue
            end_run()
            if shape is not None:
                self.out.drop(shape[0], shape[2])
            else:
                keep.append(paragraph)
        end_run()
        self.out.read += [kept_raws[id(paragraph)] for paragraph in keep]
        self.out.paragraphs, self.shapes, self.raws = keep, [], []
        return self.out

