"""A value question's answer: the candidate values, what is shown first, what the answer states.

The journey, one pass downhill (``Answerer.stream`` calls these in order):

1. ``rank``: the values the fused top ``value_passages`` state, ranked in code against the
   question (``candidates``); the first ``value_candidates`` go on;
2. ``pinned`` / ``extra``: their sentences or table rows reach the model's prompt whatever
   else the context selection keeps, and a passage outside the model's ``final_k`` that
   states one joins the sources, so every candidate has a citation number;
3. ``first``: the first candidate, shown before any model reads it when it is clear
   (``candidates.confident``), with its siblings side by side, each labelled; otherwise
   nothing is shown first;
4. the model chooses (``choose``), and ``stated`` writes the answer: the chosen value as
   its passage writes it, its qualifiers, its citation and its sentence (or table row under
   its header). Nothing the model wrote is shown as a figure.
"""

from __future__ import annotations

from typing import Sequence

from mitra.answer.asked import Asked
from mitra.answer.candidates import UNIT_KINDS, Candidate, candidates, confident, label_of, observed, siblings
from mitra.answer.claims import Quote
from mitra.answer.figures import figures, small_whole
from mitra.answer.notes import Note
from mitra.answer.prompts import CITATION
from mitra.answer.table_layout import header_of
from mitra.core.settings import Settings
from mitra.core.text import tokenize
from mitra.core.types import Hit

# Of the dev questions' candidates, the asked value's sentence held at least this share of the
# question's quantity words for 81 %, the other candidates' for 52 %.
MIN_SURE_SHARE = 0.3
# An answer whose words are this share the question's says nothing the question did not.
ECHO_SHARE = 0.8


def rank(asked: Asked, trusted: Sequence[Hit], settings: Settings) -> list[Candidate]:
    """The candidate values the model may choose among, best first (none for a question that
    does not ask for a value, or with ``value_choice`` off)."""
    if not (settings.value_choice and asked.value):
        return []
    return candidates(asked, trusted[:settings.value_passages])[:settings.value_candidates]


def pinned(ranked: Sequence[Candidate]) -> dict[str, list[str]]:
    """Chunk id -> the candidate sentences the prompt must keep."""
    out: dict[str, list[str]] = {}
    for c in ranked:
        out.setdefault(c.hit.chunk.id, []).append(c.mention.sentence)
    return out


def extra(ranked: Sequence[Candidate], shown: Sequence[Hit]) -> list[Hit]:
    """The candidates' passages that are not among ``shown``, once each."""
    ids = {hit.chunk.id for hit in shown}
    out: list[Hit] = []
    for c in ranked:
        if c.hit.chunk.id not in ids:
            ids.add(c.hit.chunk.id)
            out.append(c.hit)
    return out


def numbers(sources: Sequence[Hit]) -> dict[str, int]:
    """Chunk id -> its number [n] among ``sources``."""
    return {hit.chunk.id: n for n, hit in enumerate(sources, start=1)}


def numbered(ranked: Sequence[Candidate], sources: Sequence[Hit]) -> list[tuple[int, Candidate]]:
    """Each candidate with the number [n] its passage has among ``sources``."""
    number = numbers(sources)
    return [(number[c.hit.chunk.id], c) for c in ranked if c.hit.chunk.id in number]


def quoted(candidate: Candidate, numbers: dict[str, int], sources: Sequence[Hit]) -> Quote:
    """The candidate as the member reads it, with its siblings side by side: those of its own
    sentence, else of another shown sentence stating the same value ("An excess with an
    observed significance of 2.7 σ" has none; "The observed (expected) significance is 2.7
    (2.1)" has the expected one)."""
    out = candidate.quote(numbers[candidate.hit.chunk.id])
    out.header = header_of(candidate.hit.chunk.text, out.sentence)
    for statement in [candidate, *candidate.also]:
        n = numbers.get(statement.hit.chunk.id)
        found = siblings(statement, sources) if n is not None else []
        if found:
            out.siblings = [s.quote(n) for s in found]
            if any("measure" in s.mention.qualifiers for s in found):  # beside an expected value
                out.label = label_of(observed(candidate.mention).qualifiers)
            break
    return out


def first(ranked: Sequence[tuple[int, Candidate]], sources: Sequence[Hit], settings: Settings) -> Quote | None:
    """What is shown first, before any model reads: the first candidate when it is clear."""
    candidates_only = [c for _, c in ranked]
    if not confident(candidates_only, settings.value_margin):
        return None
    return quoted(candidates_only[0], numbers(sources), sources)


def stated(quote: Quote) -> str:
    """The answer to a value question: the value as its passage writes it, what it is stated
    for, its citation, and the sentence (or table row under its header) that states it."""
    label = f" ({quote.label})" if quote.label else ""
    where = f"{quote.header} / {quote.sentence}" if quote.header else quote.sentence
    text = f"{quote.number}{label} [{quote.passage}], as the passage states: “{where}”"
    if quote.siblings:
        text += " Beside it: " + "; ".join(f"{s.label or 'another value'} {s.number} [{s.passage}]"
                                           for s in quote.siblings) + "."
    return text


def sure(value: Quote, confidence: float | None, first_shown: Quote | None, settings: Settings) -> bool:
    """Is the model's choice stated as the answer? Its probability reaches ``value_confidence``;
    where the back end gives none, it is the value the code's ranking showed first."""
    if confidence is not None:
        return confidence >= settings.value_confidence
    return first_shown is not None and (first_shown.passage, first_shown.number) == (value.passage, value.number)


def about_it(asked: Asked, candidate: Candidate) -> bool:
    """Is the chosen value about the question? Its own sentence (with its section heading)
    holds ``MIN_SURE_SHARE`` of the question's quantity words, and where the question asks
    for a kind written with a unit, the value is no bare small number ("2" of "2 < η < 5") and
    no percentage unless an uncertainty is asked ("100 %" of an assumed branching fraction,
    for a lifetime range), and its row or sentence names no other decay than the one asked
    (``decays``). The model's probability is relative to the values offered: sure
    among values that are all about other things, it is still not the answer. (Of the frozen
    value questions' asked values, the second rule turns 2 of 201 from stated to the warned
    likeliest; of the code's wrong first candidates, 7 of 130.)"""
    if asked.kind in UNIT_KINDS and (candidate.signals.get("bare") or (
            candidate.mention.kind == "percent" and not asked.spread)):
        return False
    if candidate.signals.get("another decay"):  # its row or sentence names another decay of the parent asked
        return False
    return candidate.signals.get("sentence", 0.0) >= MIN_SURE_SHARE


def agrees(candidate: Candidate, ranked: Sequence[Candidate]) -> bool:
    """Is the model's choice the value the code's ranking puts first? Where they differ,
    neither is stated as the answer: on 50 value questions the demo model, sure of a value the
    ranking put lower, was right 3 times and wrong twice, each wrong one unwarned."""
    return not ranked or candidate.same(ranked[0])


def stands(asked: Asked, candidate: Candidate, ranked: Sequence[Candidate]) -> bool:
    """Does a choice the model is sure of stand as the answer, on any path: it is about the
    question (``about_it``) and the ranking's first (``agrees``)."""
    return about_it(asked, candidate) and agrees(candidate, ranked)


def unconfirmed(value: Quote, confidence: float | None, ranked: Sequence[Candidate], sources: Sequence[Hit],
                margin: float) -> list[Note]:
    """The note a stated value needs where the ranking did not set it clearly apart
    (``confident``: it was not the value shown first), naming the next value; none where it
    did. Its siblings shown beside it, each labelled, are no rivals the member cannot see. On
    the held-out papers (``fresh3``, ``fresh4``, every question) the demo model, sure of the
    ranking's first, was wrong 6 times in 22 stated values, each time with a first that was
    not clear; the value shown first was right each of the 4 times it was shown."""
    beside = {(s.passage, s.number) for s in value.siblings}
    number = numbers(sources)
    rivals = [c for c in ranked if (number.get(c.hit.chunk.id), c.mention.as_written) not in beside]
    if confident(rivals, margin):
        return []
    first = rivals[0].mention
    runner = next((quoted(c, number, sources) for c in rivals[1:] if c.hit.chunk.id in number and not c.same(rivals[0])
                   and not (c.mention.spread and c.mention.sentence == first.sentence)), None)  # not its own ± 0.14
    how = f" (probability {confidence:.0%})" if confidence is not None else ""
    next_one = f" (the next: {runner.number} [{runner.passage}])" if runner is not None else ""
    return [Note(kind="value unconfirmed",
                 text=f"Check this value in its passage: the model chose {value.number} [{value.passage}]{how}, which "
                      f"the ranking of the values the passages state also put first, though not clearly ahead of the "
                      f"others{next_one}.")]


def leading(value: Quote, confidence: float | None, first_ranked: Quote, settings: Settings,
            shown: Quote | None = None) -> Quote:
    """The value a warned answer leads with when the model's choice is not sure: the value
    already shown first (the code's clear first, on screen before any model read: right 17 of
    18 times with SmolLM2, 5 of 5 with the demo model), else its choice, unless its
    probability is under ``value_lead``, where the code's ranking knows more than the model
    (SmolLM2's choices: right 12 of 63 times, the code's first 22 of 50)."""
    if shown is not None:
        return shown
    if confidence is not None and confidence < settings.value_lead:
        return first_ranked
    return value


def warned(value: Quote, confidence: float | None, alternatives: Sequence[Quote],
           settings: Settings, shown: Quote | None = None) -> tuple[str, list[int], Note]:
    """A choice that is not sure, on any path: the warned likeliest values, their citations,
    and the note saying why none is given as the answer (``alternatives`` lead with the
    ranking's first)."""
    lead = leading(value, confidence, alternatives[0], settings, shown)
    cited = list(dict.fromkeys([lead.passage] + [q.passage for q in alternatives]))
    why = ("the value shown first, which the choice did not outweigh" if shown is not None else
           "the values' ranking's first, as the choice was less likely than that")
    first = alternatives[0]
    against = first if confidence is not None and confidence >= settings.value_confidence and (
        first.passage, first.number) != (value.passage, value.number) else None
    return uncertain(lead, alternatives), cited, uncertain_note(value, confidence, lead, why, against)


def uncertain(value: Quote, alternatives: Sequence[Quote]) -> str:
    """The answer when no value is sure: the likeliest, then the others the passages state,
    each with what it is stated for and its citation; none stated as the answer, none bold."""
    def said(q: Quote) -> str:
        return f"{q.number}" + (f" ({q.label})" if q.label else "") + f" [{q.passage}]"

    others = [q for q in alternatives if (q.passage, q.number) != (value.passage, value.number)]
    text = f"Not sure which value is asked. The likeliest is {said(value)}"
    if others:
        text += "; the passages also state " + "; ".join(said(q) for q in others)
    return text + ". Check them in their passages below."


def gives_no_value(asked: Asked, text: str) -> bool:
    """Is an answer to a value question the question again, with a citation ("The mixing
    parameters y' and x'2 are measured from the ratio of … [1]")? It states no number beyond
    the question's own, and ``ECHO_SHARE`` of its words are the question's: an answer in
    words ("The energy scale is calibrated with Z → ee events [2]") stands."""
    plain = CITATION.sub("", text)
    given = {(f.value, f.power) for f in figures(asked.text)}
    # "| A f | 2" of a formula copied from a passage gives no value
    stated = [f for f in figures(plain)
              if asked.kind == "count" or not small_whole(f.value, f.unit, f.power, plain[f.start:f.num_end])]
    if not asked.value or any((f.value, f.power) not in given for f in stated):
        return False
    words = set(tokenize(plain))
    return bool(words) and len(words & asked.word_set) / len(words) >= ECHO_SHARE


def listed_instead(numbered: Sequence[tuple[int, Candidate]], sources: Sequence[Hit],
                   settings: Settings, why: str = "was not supported by its passages") -> tuple[str, list[int], Note]:
    """Where the model chose none of the candidates and its own answer was withheld or gave
    no value: the likeliest candidates, each labelled and cited, rather than "the passages
    do not say this" while a shown passage may state the value. Its text, citations and note."""
    number = numbers(sources)
    likeliest = [quoted(c, number, sources) for _, c in numbered[:settings.value_alternatives + 1]]
    note = Note(kind="value uncertain",
                text=f"The model chose none of the values the passages state, and its own answer {why}: the likeliest "
                     "values are listed instead, none given as the answer.")
    return uncertain(likeliest[0], likeliest), list(dict.fromkeys(q.passage for q in likeliest)), note


def unchosen_note() -> Note:
    return Note(kind="value uncertain",
                text="The model chose none of the values the passages state as the one asked, then stated a value in "
                     "its own words: it is not confirmed as the value asked. Check it in its passage.")


def uncertain_note(value: Quote, confidence: float | None, lead: Quote | None = None, why: str = "",
                   against: Quote | None = None) -> Note:
    """Why no value is given as the answer: the model's choice did not stand out, or (``against``)
    it is not the value the ranking of the passages puts first."""
    how = f" (the model's probability {confidence:.0%})" if confidence is not None else ""
    led = (f" The answer leads with {lead.number} [{lead.passage}], {why}." if lead is not None
           and (lead.passage, lead.number) != (value.passage, value.number) else "")
    reason = (f"is not the value the ranking of the passages puts first, {against.number} [{against.passage}]"
              if against is not None else "did not stand out from the others")
    return Note(kind="value uncertain",
                text=f"Not sure which value is asked: the choice, {value.number} [{value.passage}]{how}, "
                     f"{reason}, so no value is given as the answer.{led}")
