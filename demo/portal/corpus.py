"""The catalogue of a document corpus the portal serves: ``index.json`` beside the PDFs,
the wiki topics' bodies and their attachments.

``demo/make_corpus.py`` writes it; the portal reads it. It lives in the installed
package (not in ``demo/``) because the portal must load it without the repo checkout.
"""

from __future__ import annotations

import datetime as dt
import mimetypes
from pathlib import Path

from pydantic import BaseModel, Field

from mitra.core.types import Analysis, Document

INDEX_NAME = "index.json"


class CorpusDocument(Document):
    """One version of one document file; ``source`` is its path relative to the corpus root."""

    kind: str  # "Analysis Note", "Physics Analysis Summary", ...
    date: dt.date
    size: int
    columns: int = 1
    scanned: bool = False


class WikiAttachment(BaseModel):
    """A file attached to a wiki topic (a talk); ``source`` is relative to the corpus root."""

    name: str  # its file name: the attachment's URL
    version: str  # the wiki's attachment version, shown in the topic's attachment table
    title: str
    date: dt.date
    source: str
    sha256: str
    size: int
    slides: int

    @property
    def media_type(self) -> str:
        return mimetypes.guess_type(self.name)[0] or "application/octet-stream"


class WikiTopic(BaseModel):
    """An analysis's wiki topic: ``source`` is its body, an HTML fragment the portal wraps in
    the wiki's navigation chrome."""

    analysis_id: str
    topic: str
    title: str
    revision: str
    date: dt.date
    author: str
    source: str
    sha256: str
    attachments: list[WikiAttachment] = []


class CorpusIndex(BaseModel):
    collaboration: str
    analyses: list[Analysis]
    documents: list[CorpusDocument]
    wiki: list[WikiTopic] = []
    root: Path = Field(Path("."), exclude=True)

    @classmethod
    def load(cls, root: Path) -> "CorpusIndex":
        path = root / INDEX_NAME
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} not found: build the corpus first with `python demo/make_corpus.py {root}`"
            )
        index = cls.model_validate_json(path.read_text())
        index.root = root
        return index

    def save(self) -> Path:
        path = self.root / INDEX_NAME
        path.write_text(self.model_dump_json(indent=2) + "\n")
        return path

    def path(self, document: CorpusDocument | WikiTopic | WikiAttachment) -> Path:
        return self.root / document.source

    def analysis(self, analysis_id: str) -> Analysis | None:
        return next((a for a in self.analyses if a.id == analysis_id), None)

    def documents_of(self, analysis_id: str) -> list[CorpusDocument]:
        return [d for d in self.documents if d.analysis_id == analysis_id]

    def document(self, analysis_id: str, doc_id: str, version: str) -> CorpusDocument | None:
        return next(
            (d for d in self.documents_of(analysis_id) if (d.doc_id, d.version) == (doc_id, version)),
            None,
        )

    def topic(self, topic: str) -> WikiTopic | None:
        return next((t for t in self.wiki if t.topic == topic), None)

    def topics_of(self, analysis_id: str) -> list[WikiTopic]:
        return [t for t in self.wiki if t.analysis_id == analysis_id]
