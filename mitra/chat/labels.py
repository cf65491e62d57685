"""How passages and document versions are named wherever an answer shows them."""

from __future__ import annotations

from mitra.core.types import Hit, version_label


def document_label(doc_id: str, version: str) -> str:
    return f"{doc_id} {version_label(version)}"


def passage_label(hit: Hit, with_analysis: bool = False) -> str:
    """Where a passage is from: "AN-2024-001 v3 · Backgrounds · p. 12", after its analysis's
    id where an answer draws on several ("HIG-24-001 · AN-2024-001 v3 · …")."""
    label = hit.chunk.citation_label
    return f"{hit.chunk.analysis_id} · {label}" if with_analysis else label


def source_label(n: int, hit: Hit, with_analysis: bool = False) -> str:
    """How a cited passage is named everywhere: "[2] AN-2024-001 v3 · Backgrounds · p. 12"."""
    return f"[{n}] {passage_label(hit, with_analysis)}"
