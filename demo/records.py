"""The demo corpus as ``index-jsonl`` records (Markdown text of each document's latest
version, of each wiki topic and of its talk, one section per slide): a knowledge base in
seconds, without rendering, OCR or the file readers, for benchmarks and tests. The wiki
topic and the talk keep the document ids and versions the crawler gives them."""

from __future__ import annotations

import re

from demo.corpus_specs import Section, SlideSpec, TalkSpec, load_specs, resolve_versions
from ingest.sources.jsonl import JsonlAnalysis, JsonlDocument


def _plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text)


def _markdown(sections: list[Section], level: int = 1) -> str:
    parts = []
    for section in sections:
        parts.append(f"{'#' * level} {section.title}")
        for block in section.blocks:
            text = getattr(block, "text", None) or getattr(block, "caption", None) or getattr(block, "equation", "")
            parts.append(_plain(text))
        parts.append(_markdown(section.subsections, level + 1))
    return "\n\n".join(p for p in parts if p)


def _slide(slide: SlideSpec) -> str:
    parts = [f"# {slide.title}", "\n".join(f"- {b}" for b in slide.bullets)]
    if slide.table:
        rows = [slide.table.header, ["---"] * len(slide.table.header), *slide.table.rows]
        parts.append("\n".join("| " + " | ".join(row) + " |" for row in rows))
    parts.append(" ".join(slide.notes.split()))
    return "\n\n".join(p for p in parts if p)


def _talk(talk: TalkSpec) -> JsonlDocument:
    return JsonlDocument(doc_id=talk.file, version=talk.version, title=talk.title, format="markdown",
                         text="\n\n".join(_slide(s) for s in talk.slides))


def demo_records() -> list[JsonlAnalysis]:
    records = []
    for spec in load_specs():
        documents = []
        for raw in spec.documents:
            latest = resolve_versions(raw)[-1]
            documents.append(JsonlDocument(doc_id=latest.doc_id, version=latest.version.label, title=latest.title,
                                           text=_markdown(latest.sections)))
        if spec.wiki:
            documents.append(JsonlDocument(doc_id=spec.wiki.topic, version=spec.wiki.revision, title=spec.wiki.title,
                                           text=_markdown(spec.wiki.sections)))
        if spec.talk:
            documents.append(_talk(spec.talk))
        records.append(JsonlAnalysis(analysis_id=spec.id, title=spec.title, abstract=_plain(spec.abstract),
                                     documents=documents))
    return records
