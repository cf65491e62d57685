"""Render the fictional ORION demo corpus: PDF notes, an analysis wiki topic and a talk.

The content is data: one YAML file per analysis in ``demo/corpus/``. Each document is
rendered like a collaboration note (title page with authors and abstract, numbered
sections, figures, tables, equations, line numbers in the margin, a running header and
page numbers), optionally in two columns, optionally "scanned" (rasterised with noise
and a slight rotation, no text layer), and once per version listed in the YAML. An
analysis may also have a wiki topic (its body as an HTML fragment: the portal wraps it in
its navigation chrome) with a talk attached to it (a PowerPoint file, python-pptx).

Usage: ``python demo/make_corpus.py OUT_DIR`` (or ``build_corpus(out_dir)``).
The output is byte-for-byte deterministic: fixed dates, ``invariant`` PDFs, seeded noise.

One job a module: ``corpus_specs`` (the YAML schema, versions), ``render_note`` (the PDF
note) with ``note_plots`` (its figures), ``scan`` (the scanned copy), ``render_wiki`` and
``render_talk`` (the wiki topic and its deck); this one writes the files and ``index.json``.
"""

from __future__ import annotations

import hashlib
import sys
import zlib
from pathlib import Path

from demo.corpus_specs import COLLABORATION, CONTENT_DIR, AnalysisSpec, WikiSpec, load_specs, resolve_versions
from demo.portal.corpus import CorpusDocument, CorpusIndex, WikiAttachment, WikiTopic
from demo.render_note import _register_fonts, _Renderer
from demo.render_talk import render_talk
from demo.render_wiki import wiki_body
from demo.scan import scan
from mitra.core.types import Analysis


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(out_dir: Path, relative: Path, data: bytes) -> None:
    (out_dir / relative).parent.mkdir(parents=True, exist_ok=True)
    (out_dir / relative).write_bytes(data)


def build_wiki(spec: AnalysisSpec, wiki: WikiSpec, out_dir: Path) -> WikiTopic:
    """The topic's body fragment and its attached talk, written under ``out_dir``."""
    folder = Path(spec.id) / "wiki"
    body = wiki_body(wiki).encode()
    _write(out_dir, folder / f"{wiki.topic}.html", body)
    attachments = []
    if spec.talk:
        talk = render_talk(spec.talk, author=wiki.author)
        _write(out_dir, folder / spec.talk.file, talk)
        attachments.append(WikiAttachment(
            name=spec.talk.file, version=spec.talk.version, title=spec.talk.title, date=spec.talk.date,
            source=(folder / spec.talk.file).as_posix(), sha256=_sha256(talk), size=len(talk),
            slides=len(spec.talk.slides),
        ))
    return WikiTopic(analysis_id=spec.id, topic=wiki.topic, title=wiki.title, revision=wiki.revision,
                     date=wiki.date, author=wiki.author, source=(folder / f"{wiki.topic}.html").as_posix(),
                     sha256=_sha256(body), attachments=attachments)


def build_corpus(out_dir: Path, content_dir: Path = CONTENT_DIR) -> CorpusIndex:
    """Render every version of every document, and each wiki topic with its talk, into
    ``out_dir`` and write ``index.json``."""
    _register_fonts()
    out_dir.mkdir(parents=True, exist_ok=True)
    analyses, documents, wiki = [], [], []
    for spec in load_specs(content_dir):
        if spec.wiki:
            wiki.append(build_wiki(spec, spec.wiki, out_dir))
        analyses.append(Analysis(id=spec.id, title=spec.title, abstract=" ".join(spec.abstract.split()), experiment=COLLABORATION))
        for raw in spec.documents:
            for doc in resolve_versions(raw):
                pdf, pages = _Renderer(spec, doc).render()
                if doc.scanned:
                    pdf, pages = scan(pdf, zlib.crc32(f"{doc.doc_id}/{doc.version.label}".encode()), doc.version.date)
                relative = Path(spec.id) / f"{doc.doc_id}_{doc.version.label}.pdf"
                _write(out_dir, relative, pdf)
                documents.append(CorpusDocument(
                    analysis_id=spec.id, doc_id=doc.doc_id, version=doc.version.label, title=doc.title,
                    source=relative.as_posix(), sha256=_sha256(pdf), pages=pages, kind=doc.kind,
                    date=doc.version.date, size=len(pdf), columns=doc.columns, scanned=doc.scanned,
                ))
    index = CorpusIndex(collaboration=COLLABORATION, analyses=analyses, documents=documents, wiki=wiki, root=out_dir)
    index.save()
    return index


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python demo/make_corpus.py OUT_DIR", file=sys.stderr)
        return 2
    index = build_corpus(Path(argv[0]))
    for d in index.documents:
        flags = ", ".join(f for f, on in (("two-column", d.columns == 2), ("scanned", d.scanned)) if on)
        print(f"{d.analysis_id:12} {d.doc_id:18} {d.version:3} {d.pages} pages {d.size:>9,} B  {flags}")
    for topic in index.wiki:
        print(f"{topic.analysis_id:12} wiki {topic.topic} {topic.revision}: "
              + ", ".join(f"{a.name} ({a.slides} slides)" for a in topic.attachments))
    print(f"{len(index.analyses)} analyses, {len(index.documents)} files, {len(index.wiki)} wiki topic(s) -> {index.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
