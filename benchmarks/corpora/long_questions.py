"""Questions made mechanically for long papers, with gold passages no system chose.

Two kinds, both fixed before any system was run and matched to chunks by the evidence
rule every set uses (``evidence_matches``):

* **caption** questions: a figure's or table's caption, its first sentence without the
  "Figure 3:" label, asks for the body text that discusses it; the gold passages are
  the sentences that cite that figure or table (``\\ref{fig:x}`` in the LaTeX source,
  "Fig. 3", "Figures 3 and 4", "Table 2" in a PDF's text), each with the sentence
  before and after it. The caption's own passage (and a table's rows) are left out of
  the ranking (``GoldQuery.excluded``): the question was made from them.
* **expert** questions: the LHCb experts' generic questions ("What is the dominant
  systematic uncertainty?") re-posed on every paper, with gold located by an answer
  pattern, as TREC QA judged answers: the sentences that state what the question asks
  (a systematic uncertainty called dominant, largest or leading; an integrated
  luminosity; a result quoted with its statistical uncertainty apart; ...). A question
  is posed on a paper only where its pattern picks out 1 to ``MAX_EXPERT_GOLD``
  sentences, so the gold is specific.

The caption's words are the authors', written for the figure, not for the sentence
that cites it; the answer patterns look for what answers a question, not for its
words. Neither kind is made from what BM25 or the dense encoder scores.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Iterable

from mitra.core.text import clean_latex, readable_latex, split_sentences
from mitra.evaluation.retrieval import GoldQuery

CAPTIONS_PER_PAPER = 8  # caption questions drawn (seeded) per paper, so long papers do not swamp the set
MAX_EXPERT_GOLD = 5  # an expert question is posed only where its pattern picks out at most this many sentences
MIN_QUERY_WORDS = 5


@dataclass(frozen=True)
class Passage:
    """A reader's unit of a paper: a body paragraph, or a float's caption (with its label
    and, for a table, its rows)."""

    kind: str  # body, caption
    text: str  # as a reader sees it
    sentences: tuple[str, ...] = ()
    refs: tuple[frozenset[str], ...] = ()  # per sentence, the labels it cites
    label: frozenset[str] = frozenset()  # a caption's labels ("fig:mass", or "figure 3")
    rows: str = ""  # a table's cells


@dataclass
class PaperText:
    paper_id: str  # the analysis id
    passages: list[Passage] = field(default_factory=list)


# ---------------------------------------------------------------- caption questions
_LABEL = re.compile(r"^\s*(?:fig(?:ure)?s?\.?|tab(?:le)?\.?)\s*\d+[a-z]?\s*[.:]?\s*", re.I)


def caption_questions(paper: PaperText, rng: random.Random, per_paper: int = CAPTIONS_PER_PAPER) -> list[GoldQuery]:
    """A question per cited float (``per_paper`` drawn at most): its caption's first sentence."""
    out = []
    for caption in (p for p in paper.passages if p.kind == "caption" and p.label):
        sentences = split_sentences(_LABEL.sub("", caption.text))
        query = sentences[0] if sentences else ""
        evidence = citing_windows(paper.passages, caption.label)
        if len(query.split()) >= MIN_QUERY_WORDS and evidence:
            excluded = [caption.text] + ([caption.rows] if caption.rows else [])
            out.append((query, evidence, excluded, sorted(caption.label)[0]))
    rng.shuffle(out)
    return [GoldQuery(qid=f"{paper.paper_id}:{label}", query=query, analysis_id=paper.paper_id, evidence=evidence,
                      excluded=excluded, set="caption")
            for query, evidence, excluded, label in sorted(out[:per_paper], key=lambda q: q[3])]


def citing_windows(passages: list[Passage], label: frozenset[str]) -> list[str]:
    """Each body sentence citing ``label``, with the sentence before and after it."""
    out = []
    for p in passages:
        if p.kind != "body":
            continue
        for i, refs in enumerate(p.refs):
            if refs & label:
                out.append(" ".join(p.sentences[max(0, i - 1): i + 2]))
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------- expert questions
_LUMINOSITY = r"\d+(?:\.\d+)?\s*(?:fb|pb|nb)\s*(?:\^?\s*\{?\s*[-−–]\s*1\b|−1|⁻¹)"
# (question, what a sentence answering it states)
EXPERT = (
    ("What is the dominant systematic uncertainty?",
     re.compile(r"\b(?:dominant|dominating|largest|leading|main|biggest|major)\b[^.;]{0,60}\bsystematic"
                r"|\bsystematic[^.;]{0,30}\b(?:dominated\s+by|dominant|largest|leading)\b", re.I)),
    ("Is this result compatible with the SM?",
     re.compile(r"\b(?:consistent|compatible|agree(?:s|ment)?)\b[^.;]{0,40}\b(?:Standard\s+Model|SM)\b", re.I)),
    ("How much data was analysed?",
     re.compile(rf"(?=.*\b(?:collected|recorded|corresponding|correspond|sample|data\s*set)\b).*{_LUMINOSITY}", re.I)),
    ("How large is the statistical uncertainty relative to the nominal value?",
     re.compile(r"\(\s*stat(?:\.|istical)?\s*\)", re.I)),
    ("What is the significance of the observed signal?",
     re.compile(r"(?=.*\b(?:signific\w*|excess|observ\w*|evidence)\b).*\b\d+(?:\.\d+)?\s*(?:standard\s+deviations"
                r"|σ|sigma)\b", re.I)),
    ("Which generators are used to simulate the events?",
     re.compile(r"\b(?:Powheg|MadGraph|Sherpa|Pythia|Herwig|EvtGen|aMC@NLO)\b", re.I)),
)


def expert_questions(paper: PaperText) -> list[GoldQuery]:
    """Each expert question whose answer pattern picks out 1 to ``MAX_EXPERT_GOLD``
    sentences of the paper's body and captions, those sentences its gold."""
    sentences = [s for p in paper.passages for s in p.sentences]
    out = []
    for n, (question, pattern) in enumerate(EXPERT, start=1):
        gold = list(dict.fromkeys(s for s in sentences if pattern.search(s)))
        if 1 <= len(gold) <= MAX_EXPERT_GOLD:
            out.append(GoldQuery(qid=f"{paper.paper_id}:expert-{n}", query=question, analysis_id=paper.paper_id,
                                 evidence=gold, set="expert"))
    return out


# ---------------------------------------------------------------- LaTeX source
_FLOAT = re.compile(r"\\begin\{(figure|table)\*?\}(.*?)\\end\{\1\*?\}", re.S)
_OTHER_ENV = re.compile(r"\\begin\{(equation|align|eqnarray|multline|gather)\*?\}.*?\\end\{\1\*?\}", re.S)
_CAPTION = re.compile(r"\\caption\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", re.S)
_TABULAR = re.compile(r"\\begin\{tabular\*?\}(.*?)\\end\{tabular\*?\}", re.S)
_LATEX_LABEL = re.compile(r"\\label\{([^{}]*)\}")
_LATEX_REF = re.compile(r"\\(?:[cC]|auto|eq)?ref\{([^{}]*)\}")
_SECTION = re.compile(r"\\section\*?\s*\{")
_HEADING = re.compile(r"\\(?:sub)*section\*?\s*(?:\[[^\]]*\])?\s*\{(?:[^{}]|\{[^{}]*\})*\}")


def latex_paper(paper_id: str, latex: str) -> PaperText:
    """The paper's body paragraphs (from its first section on) and its floats."""
    text = re.sub(r"(?<!\\)%.*", "", latex)
    first = _SECTION.search(text)
    text = text[first.start():] if first else text
    passages = []
    for float_ in _FLOAT.finditer(text):
        caption = _CAPTION.search(float_.group(2))
        if caption:
            tabular = _TABULAR.search(float_.group(2))
            words = readable_latex(caption.group(1))
            passages.append(Passage("caption", words, tuple(split_sentences(words)),
                                    label=frozenset(_LATEX_LABEL.findall(float_.group(2))),
                                    rows=clean_latex(tabular.group(1)) if tabular else ""))
    prose = _HEADING.sub("\n\n", _OTHER_ENV.sub(" ", _FLOAT.sub("\n\n", text)))
    for block in re.split(r"\n\s*\n|\\par\b", prose):
        raw = split_sentences(" ".join(block.split()))
        kept = [(s, r) for s, r in zip(map(readable_latex, raw), raw) if s]
        if kept:
            passages.append(Passage("body", " ".join(s for s, _ in kept), tuple(s for s, _ in kept),
                                    tuple(frozenset(_refs(r)) for _, r in kept)))
    return PaperText(paper_id, passages)


def _refs(latex: str) -> Iterable[str]:
    for group in _LATEX_REF.findall(latex):
        yield from (label.strip() for label in group.split(","))


# ---------------------------------------------------------------- PDF blocks
_PDF_CAPTION = re.compile(r"^\s*(fig(?:ure)?|tab(?:le)?)\.?\s*(\d+)", re.I)
_PDF_REF = re.compile(r"\b(fig(?:ure)?s?|tab(?:le)?s?)\.?\s*((?:\d+[a-z]?(?:\s*\([a-z]\))?(?:\s*(?:,|and|–|-|to)\s*)?)+)",
                      re.I)


def pdf_paper(paper_id: str, blocks: list) -> PaperText:
    """The body, abstract and caption blocks of an extracted PDF (``ingest.extract``),
    a table caption with the table blocks beside it on its page."""
    passages = []
    for i, block in enumerate(blocks):
        kind = block.kind.value
        if kind == "caption":
            match = _PDF_CAPTION.match(block.text)
            label = frozenset({_pdf_label(match.group(1), match.group(2))}) if match else frozenset()
            rows = ""
            if match and match.group(1).lower().startswith("tab"):
                near = [b for b in blocks[max(0, i - 2): i + 3] if b.kind.value == "table" and b.page == block.page]
                rows = "\n".join(b.text for b in near)
            passages.append(Passage("caption", block.text, tuple(split_sentences(block.text)), label=label, rows=rows))
        elif kind in ("body", "abstract"):
            sentences = tuple(split_sentences(block.text))
            passages.append(Passage("body", block.text, sentences, tuple(frozenset(_pdf_refs(s)) for s in sentences)))
    return PaperText(paper_id, passages)


def _pdf_label(kind: str, number: str) -> str:
    return f"{'table' if kind.lower().startswith('tab') else 'figure'} {int(number)}"


def _pdf_refs(sentence: str) -> Iterable[str]:
    for kind, numbers in _PDF_REF.findall(sentence):
        for a, b in re.findall(r"(\d+)(?:[a-z]|\s*\([a-z]\))?(?:\s*(?:–|-|to)\s*(\d+))?", numbers):
            for n in range(int(a), (int(b) if b and int(b) - int(a) < 10 else int(a)) + 1):
                yield _pdf_label(kind, str(n))
