"""The demo corpus as ``index-jsonl`` records (Markdown text of each document's latest
version): a knowledge base in seconds, without rendering or OCR, for benchmarks and tests."""

from __future__ import annotations

import re

from demo.make_corpus import Section, load_specs, resolve_versions
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


def demo_records() -> list[JsonlAnalysis]:
    records = []
    for spec in load_specs():
        documents = []
        for raw in spec.documents:
            latest = resolve_versions(raw)[-1]
            documents.append(JsonlDocument(doc_id=latest.doc_id, version=latest.version.label, title=latest.title,
                                           text=_markdown(latest.sections)))
        records.append(JsonlAnalysis(analysis_id=spec.id, title=spec.title, abstract=_plain(spec.abstract),
                                     documents=documents))
    return records
