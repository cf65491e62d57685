"""Pseudo-queries drawn from the indexed corpus: the training data of ``mitra adapt``.

No human labels: every query comes with the passage it was made from.

* ``llm``        a question the configured local LLM writes about a passage (the
                 style users ask in), for as many passages as its time budget allows;
                 an LLM too slow or too weak to write enough in its share is stopped
                 after a probe (``LLMBudget``);
* ``heading``    a section title asks for the first passage of its section, shown
                 without its section path;
* ``caption``    a figure or table caption's title ("Invariant mass distribution of
                 ...", its "Figure 3:" label dropped) asks for its passage;
* ``statement``  a passage's most distinctive sentence turned into a question ("How is
                 the signal yield determined?") or, failing a template, reduced to its
                 distinctive terms in order, as a short keyword query.

Captions and statements need no headings, so a corpus of plain paragraphs yields as
many queries as it has passages. Raw inverse-cloze sentences (a sentence asking for
the passage it was cut from) made the encoder worse on real questions (README), so a
caption or statement query is never the sentence verbatim, and the sentence is hidden
from the positive passage shown in training: the model must match the question to
the passage's other sentences, not copy its wording.

Each query is assigned to the training or the held-out split by its passage, so no
passage is seen in both. Hard negatives are the passages BM25 and the dense retriever
rank highest for the query in the same analysis, other than the positive.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Literal

from pydantic import BaseModel

from mitra.core.text import STOPWORDS, math_to_words, split_sentences, tokenize
from mitra.core.types import Chunk, ChunkKind

Kind = Literal["heading", "llm", "caption", "statement"]
HELDOUT_SHARE = 5  # one passage in five is held out


class PseudoQuery(BaseModel):
    query: str
    analysis_id: str
    chunk_id: str
    kind: Kind
    # Show the positive passage without its section path (a heading query would match itself).
    strip_section: bool = False
    # Show the positive passage without this sentence (a caption or statement query was made from it).
    hide: str = ""

    @property
    def heldout(self) -> bool:
        return is_heldout(self.chunk_id)


def is_heldout(chunk_id: str) -> bool:
    return int(hashlib.sha1(chunk_id.encode()).hexdigest(), 16) % HELDOUT_SHARE == 0


def passage_for(query: PseudoQuery, chunk: Chunk) -> str:
    """The positive passage as the model sees it in training."""
    if query.hide:
        rest = " ".join(s for s in split_sentences(math_to_words(chunk.text)) if s != query.hide)
        return rest if query.strip_section or not chunk.section else f"{chunk.section_path}\n{rest}"
    return math_to_words(chunk.text) if query.strip_section else chunk.index_text


_NUMBERING = re.compile(r"^(?:[\dIVXA-Z]+[.)]?)+\s+")


def heading_queries(chunks: Iterable[Chunk]) -> Iterator[PseudoQuery]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for chunk in chunks:
        key = (chunk.analysis_id, tuple(chunk.section))
        if not chunk.section or key in seen or chunk.kind is not ChunkKind.body:
            continue
        seen.add(key)
        title = _NUMBERING.sub("", chunk.section[-1]).strip()
        if len(title) >= 4:
            yield PseudoQuery(query=title, analysis_id=chunk.analysis_id, chunk_id=chunk.id, kind="heading",
                              strip_section=True)


_CAPTION_LABEL = re.compile(r"^(?:Fig(?:ure)?s?|Tab(?:le)?s?)\.?\s*[\dIVX]+[a-z]?\s*[:.)]\s*", re.I)
# "The signal yield is determined from a fit ..." -> "How is the signal yield determined?": the
# form users ask in, with the sentence's subject and verb and nothing of how it goes on.
_PASSIVE = re.compile(
    r"^(?:The |Our )?(?P<subject>[A-Za-z][\w-]*(?: [\w-]+){0,6}) (?P<be>is|are|was|were) (?:then |also |first )?"
    r"(?P<verb>measured|determined|estimated|obtained|evaluated|extracted|computed|calculated|derived|modell?ed|"
    r"described|parametri[sz]ed|parameteri[sz]ed|reconstructed|selected|identified|corrected|normali[sz]ed|"
    r"assessed|constrained|defined|suppressed|dominated|reduced|rejected|triggered|simulated|generated|fitted)\b"
)
_NOT_A_SUBJECT = {"it", "its", "this", "these", "they", "their", "we", "there", "which", "that", "each", "all"}
_WORD = re.compile(r"[A-Za-z][\w+*/-]*")
_PIECE = re.compile(r"[A-Za-z][\w+*/-]*|\S")
# Words that carry no topic of their own (beyond ``STOPWORDS``): a key-term query leaves them out.
_FILLER = frozenset(
    """according after again although among another because before between cannot chosen corresponding
    different due either figure fig finally first found further given here however indeed instead leads
    less more most much must need needed not now order other ref respectively second section see seen
    shown shows since still table than therefore third though thus two well whereas whether one""".split()
)
QUERY_TERMS = 6  # a statement reduced to its key terms keeps this many
MAX_OVERLAP = 0.75  # share of a query's terms the rest of its passage may repeat (more: a near-duplicate)
PER_PASSAGE = 3  # at most this many caption / statement queries a passage, when passages are few


def _question(sentence: str) -> str | None:
    match = _PASSIVE.match(sentence)
    if not match or match.group("subject").split()[0].lower() in _NOT_A_SUBJECT:
        return None
    be = "is" if match.group("be") in ("is", "was") else "are"
    subject, verb = match.group("subject"), match.group("verb")
    subject = subject[0].lower() + subject[1:] if subject[1:2].islower() else subject  # "Candidates", not "LHCb"
    return f"What {be} the {subject} dominated by?" if verb == "dominated" else f"How {be} the {subject} {verb}?"


def _key_terms(sentence: str, idf: dict[str, float]) -> str | None:
    """The sentence's most distinctive phrases (runs of content words, scored by their
    words' rarity in the paper), in their order, at most ``QUERY_TERMS`` words."""
    phrases: list[list[tuple[str, float]]] = [[]]
    for piece in _PIECE.findall(sentence):
        weight = max((idf.get(t, 0.0) for t in tokenize(piece)), default=0.0)
        if not _WORD.fullmatch(piece) or piece.lower() in STOPWORDS or piece.lower() in _FILLER or not weight:
            phrases.append([])
        else:
            phrases[-1].append((piece, weight))
    ranked = sorted((p for p in phrases if p), key=lambda p: -sum(w for _, w in p))
    keep: list[list[tuple[str, float]]] = []
    for phrase in ranked:
        if sum(map(len, keep)) + len(phrase) <= QUERY_TERMS:
            keep.append(phrase)
    words = [w for p in phrases if any(p is k for k in keep) for w, _ in p]
    return " ".join(words) if len(words) >= 3 else None


def _candidates(chunk: Chunk, idf: dict[str, float]) -> list[tuple[float, PseudoQuery]]:
    """Caption and statement queries of one passage, best first (captions, then the most
    distinctive sentences): each names a sentence the passage's other sentences still
    answer in part (a shared term) but do not repeat (at most ``MAX_OVERLAP`` of its terms)."""
    sentences = split_sentences(math_to_words(chunk.text))
    found = []
    for n, sentence in enumerate(sentences):
        words = sentence.split()
        if not 4 <= len(words) <= 45 or sum(w[:1].isalpha() for w in words) < 0.6 * len(words):
            continue
        label = _CAPTION_LABEL.match(sentence)
        caption = bool(label) or (chunk.kind is not ChunkKind.body and n == 0)
        title = sentence[label.end():] if label else sentence
        query = (title.rstrip(".") if caption and len(title.split()) <= 25 else None) or _question(title) or \
            _key_terms(title, idf)
        rest = set(tokenize(" ".join(sentences[:n] + sentences[n + 1 :])))
        terms = set(tokenize(query or ""))
        if not query or not terms or len(rest) < 5 or not 0 < len(terms & rest) <= MAX_OVERLAP * len(terms):
            continue
        score = (1.0 if caption else 0.0) + sum(idf.get(t, 0.0) for t in terms) / len(terms) / 100
        found.append((score, PseudoQuery(query=query, analysis_id=chunk.analysis_id, chunk_id=chunk.id,
                                         kind="caption" if caption else "statement", hide=sentence)))
    return sorted(found, key=lambda f: -f[0])


def sentence_queries(chunks: Iterable[Chunk], limit: int, rng: random.Random) -> list[PseudoQuery]:
    """Up to ``limit`` caption and statement queries: one from each passage in random
    order, then a second, a third (``PER_PASSAGE``) where passages are fewer than ``limit``."""
    by_analysis: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_analysis.setdefault(chunk.analysis_id, []).append(chunk)
    per_passage: list[list[PseudoQuery]] = []
    for passages in by_analysis.values():
        # Distinctive within its paper: rare among the paper's passages.
        df: dict[str, int] = {}
        for chunk in passages:
            for term in set(tokenize(chunk.text)):
                df[term] = df.get(term, 0) + 1
        # A term of one passage only is as likely noise as topic; one of most passages says nothing.
        idf = {t: math.log(len(passages) / n) for t, n in df.items() if 2 <= n <= 0.3 * len(passages)}
        per_passage += [[q for _, q in found] for c in passages if (found := _candidates(c, idf))]
    rng.shuffle(per_passage)
    made = [found[rank] for rank in range(PER_PASSAGE) for found in per_passage if rank < len(found)]
    return made[:limit]


QuestionWriter = Callable[[Chunk], str]
_NOT_ABOUT_THE_CONTENT = re.compile(r"\b(passage|paragraph|excerpt|this (text|paper|study|article|section))\b", re.I)


def usable_question(text: str) -> str | None:
    """The first line of an LLM reply when it is a real question about the content."""
    line = text.strip().split("\n")[0].strip().strip('"')
    words = line.split()
    if not line.endswith("?") or not 4 <= len(words) <= 40 or _NOT_ABOUT_THE_CONTENT.search(line):
        return None
    return line


@dataclass
class LLMBudget:
    seconds: float
    max_questions: int
    # After ``probe`` replies (or a fifth of ``seconds``), an LLM whose rate of usable
    # questions would give fewer than this many in ``seconds`` is stopped: its time goes
    # to training instead.
    min_questions: int = 0
    probe: int = 3
    stopped: str = ""  # why it was stopped early, if it was


def llm_queries(
    chunks: list[Chunk], write: QuestionWriter, budget: LLMBudget, rng: random.Random,
    done: set[str] = frozenset(), on_query: Callable[[PseudoQuery | None], None] | None = None,
) -> Iterator[PseudoQuery]:
    """Questions for randomly chosen passages (longer than a caption), until the time or
    count budget is spent. ``done`` lists passages already asked about (a resumed run)."""
    pool = [c for c in chunks if len(c.text) >= 150 and c.id not in done]
    rng.shuffle(pool)
    start = time.monotonic()
    deadline = start + budget.seconds
    made = 0
    for replies, chunk in enumerate(pool, start=1):
        if made >= budget.max_questions or time.monotonic() >= deadline:
            return
        question = usable_question(write(chunk))
        query = question and PseudoQuery(query=question, analysis_id=chunk.analysis_id, chunk_id=chunk.id, kind="llm")
        if on_query:
            on_query(query or None)
        if query:
            made += 1
            yield query
        elapsed = time.monotonic() - start
        probed = replies >= budget.probe or elapsed >= budget.seconds / 5
        if probed and (projected := made / elapsed * budget.seconds) < budget.min_questions:
            budget.stopped = (f"stopped after {replies} replies in {elapsed:.0f} s, {made} of them usable: at that rate "
                              f"its {budget.seconds:.0f} s would give ~{projected:.0f} questions, under {budget.min_questions}")
            return


PSEUDO_QUESTION_SYSTEM = """\
You write one short question that a physicist could ask and that the given passage of an \
analysis document answers. Use the passage's own terms. Reply with the question only."""


def pseudo_question_messages(chunk: Chunk) -> list:
    """What the LLM reads to write a training question for ``mitra adapt``; the passage is
    sanitised like an answer prompt's."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from mitra.answer.prompts import sanitise

    section = f"Section: {chunk.section_path}\n" if chunk.section else ""
    return [SystemMessage(PSEUDO_QUESTION_SYSTEM), HumanMessage(f"{section}Passage: {sanitise(chunk.text[:900])}")]
