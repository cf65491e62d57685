"""The order of document versions: natural order of their labels, which one is current,
and the reading order of chunks (document, version, position)."""

from __future__ import annotations

import re
from typing import Iterable

from mitra.core.types import Chunk, Document


def version_key(version: str) -> tuple:
    """Natural order of version labels: v2 < v10, 1.9 < 1.10."""
    return tuple(int(p) if p.isdigit() else p for p in re.findall(r"\d+|[^\d\W]+", version.lower()))


def current_versions(documents: Iterable[Document]) -> dict[str, str]:
    latest: dict[str, str] = {}
    for d in documents:
        if d.doc_id not in latest or version_key(d.version) > version_key(latest[d.doc_id]):
            latest[d.doc_id] = d.version
    return latest


def reading_order(chunk: Chunk) -> tuple:
    return chunk.doc_id, version_key(chunk.version), chunk.position
