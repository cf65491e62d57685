"""The papers ``benchmarks/briefs.py`` measures briefs on, and the draft of their frozen gold.

Papers: the 16 ATLAS/CMS PDFs of ``../shared/data/hep_pdfs`` and the first 40 LHCb papers
of ``../shared/data/lhcb/lhcb_papers.jsonl.gz``. Their abstract and conclusions are read here
independently of MITRA's ingestion (the PDF's plain text layer through pypdfium2; the LHCb
record's abstract and its ``leaf_sections``), so a chunking fault does not hide in the gold.

``python -m benchmarks.corpora.brief_gold > draft.jsonl`` writes one line per value the
abstract or the conclusions state (the numbers ``mitra.brief.values`` counted as headline
values when the gold was frozen), with its qualifiers; the draft was then checked by hand
against the papers and committed as ``brief_values.jsonl`` before the extractor was tuned.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import unicodedata
from pathlib import Path
from typing import Iterator

from mitra.core.text import clean_latex

SHARED = Path(__file__).resolve().parents[3] / "shared"
HEP = SHARED / "data/hep_pdfs"
LHCB = SHARED / "data/lhcb/lhcb_papers.jsonl.gz"
N_LHCB = 40
_CONCLUDING = re.compile(r"\b(?:conclusions?|summary)\b", re.I)
_PDF_CONCLUSIONS = re.compile(r"\n\s*(?:\d+\.?\s+)?(?:Conclusions?|Summary(?: and [Cc]onclusions?)?|Discussion and [Cc]onclusions?)\s*\r?\n")
_LATEX_SECTION = re.compile(r"\\section\*?\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_PDF_END = re.compile(r"\n\s*(?:Acknowledge?ments?|References)\b")


def hep_id(path: Path) -> str:
    return f"HEP-{path.stem.split('v')[0]}" if path.stem[0].isdigit() else path.stem


def pdf_text(path: Path) -> str:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path)
    text = "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    return unicodedata.normalize("NFKC", text.replace("\r", "").replace("\ufffe", ""))


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2010", "-").replace("-\n", "")).strip()


def hep_parts(path: Path) -> dict[str, str]:
    """The abstract (its first statement: the title page's) and the conclusions of a PDF."""
    text = pdf_text(path)
    parts = {}
    start = re.search(r"\bAbstract\b|Collaborations?\n|E-mail: \S+\n", text)
    if start:
        body = text[start.end():]
        end = re.search(r"\n\s*(?:1\.?\s+Introduction|Introduction|Contents)\b|\n.*Collaboration\n|©|c⃝|"
                        r"\n\s*Submitted to|\n\s*Keywords|\n\s*Published in|\n\s*\*?\s*Speaker", body)
        parts["abstract"] = _one_line(body[:end.start() if end else 2000][:2500])
    heads = list(_PDF_CONCLUSIONS.finditer(text))
    if heads:
        body = text[heads[-1].end():]
        end = _PDF_END.search(body)
        parts["conclusions"] = _one_line(body[:end.start() if end else 4000][:6000])
    return parts


def lhcb_records(n: int = N_LHCB) -> Iterator[dict]:
    with gzip.open(LHCB, "rt", encoding="utf-8") as handle:
        for i, line in enumerate(handle):
            if i >= n:
                return
            yield json.loads(line)


def lhcb_parts(record: dict) -> dict[str, str]:
    text = record["text"]
    heads = [m for m in _LATEX_SECTION.finditer(text)]
    concluding = " ".join(text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]
                          for i, h in enumerate(heads) if _CONCLUDING.search(h.group(1)))
    parts = {"abstract": clean_latex(record["abstract"])}
    if concluding:
        parts["conclusions"] = _one_line(clean_latex(concluding))
    return parts


def papers() -> Iterator[tuple[str, dict[str, str]]]:
    for path in sorted(HEP.glob("*.pdf")):
        yield hep_id(path), hep_parts(path)
    for record in lhcb_records():
        yield f"LHCb-{record['arxiv_id']}", lhcb_parts(record)


def draft() -> Iterator[dict]:
    from mitra.brief.values import stated
    from mitra.core.text import split_sentences

    for analysis, parts in papers():
        for where, text in parts.items():
            for sentence in split_sentences(text):
                for m in stated(sentence):
                    yield {"analysis": analysis, "where": where, "value": str(m.value), "power": m.power,
                           "unit": m.unit, "written": m.sentence[m.span[0]:m.span[1]],
                           "qualifiers": {c: sorted(v - {"central value"}) for c, v in m.qualifiers.items()
                                          if v - {"central value"}},
                           "sentence": m.sentence}


if __name__ == "__main__":
    for row in draft():
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
