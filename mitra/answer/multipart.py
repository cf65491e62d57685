"""Multi-part questions in a locked session: "What is the dominant background, how was it
estimated, and how large is its uncertainty?"

``looks_multipart`` is the cheap check: a regular expression, so a single question costs
nothing extra. Only a question it flags goes to the configured model to be split
(``SPLIT_PROMPT``): the model rewrites each part to stand alone ("how was it estimated"
becomes "how was the dominant background estimated"), which a rule cannot do; parts that
use words the question does not (``faithful``) give way to the question cut at its
clauses. Each part is then retrieved on its own. The answer prompt lists the parts and puts each part's
passages under it; a part none of whose passages clears the relevance floor is not sent
to the model, and the answer says it is not covered.
"""

from __future__ import annotations

import re
from typing import Literal, Mapping, Sequence

from langchain_core.messages import BaseMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from pydantic import BaseModel, computed_field

from mitra.answer.prompts import (
    ANSWER_SYSTEM,
    Passage,
    PastExchange,
    Prompt,
    answer_values,
    fit_history,
    history_messages,
    question_sentences,
    render_passages,
    sanitise,
    select_passages,
)
from mitra.answer.qualifiers import qualifiers
from mitra.core.settings import Settings
from mitra.core.text import tokenize
from mitra.core.types import Analysis, Hit

# A word that opens a question. After a comma or semicolon only those that cannot open a
# relative clause (", which dominates" is one question; ", how was it estimated" is not).
_OPENERS = r"what|how|why|is|are|was|were|does|do|did|can|could|should|would|has|have"
_AFTER_AND = _OPENERS + r"|which|where|when|who|whose"
# At least three words before the second question, so "How and why was the cut chosen?"
# stays one. After a comma only in a question that opens as one: "Based on this paper, what
# is …" is one question with a preamble.
_BOUNDARY = re.compile(
    rf"^(?:(?:{_AFTER_AND})\s+(?:\S+\s+){{2,}}?\S*?[,;]\s+(?:and\s+|or\s+)?(?:{_OPENERS})"
    rf"|(?:\S+\s+){{3,}}?\S*?\s(?:and|or)\s+(?:{_AFTER_AND}))\s+\S",
    re.I,
)
_TWO_QUESTIONS = re.compile(r"\?\s*\S.*\?")  # "What is X? How was it measured?"
_ENUMERATED = re.compile(r"(?:^|\s)\(?(?:1|i|a)[.)]\s.*\s\(?(?:2|ii|b)[.)]\s", re.I)


def looks_multipart(question: str) -> bool:
    """Does the question ask several things? No model: a miss costs only a coarser answer,
    while a false alarm costs a model call, so it errs on the side of one question."""
    q = " ".join(question.split())
    return bool(_TWO_QUESTIONS.search(q) or _ENUMERATED.search(q) or _BOUNDARY.search(q))


SPLIT_PROMPT = ChatPromptTemplate.from_messages([
    ("system",
     "Split the user's question into the separate questions it asks. Write each one so that it can be "
     "understood alone: replace words like it, its, they and this with what they refer to. Keep physics "
     "terms, numbers and names exactly. Do not answer. Reply with one question per line and nothing else."),
    # One worked example: a 1.5B model given only the rule kept "it" and wrote the parts on one line.
    ("human", "What is the trigger efficiency, how was it measured, and how large is its uncertainty?"),
    ("ai", "What is the trigger efficiency?\nHow was the trigger efficiency measured?\n"
           "How large is the uncertainty of the trigger efficiency?"),
    ("human", "{question}"),
])

_BULLET = re.compile(r"^\s*(?:[-*•]|\(?\d+[.):]|\(?[a-z][.)]|(?:part|question)\s*\d+\s*[:.)-])\s*", re.I)


def parse_parts(reply: str, max_parts: int) -> list[str]:
    """The model's lines as questions: bullets and numbering removed, repeats and one-word
    lines dropped. Beyond ``max_parts`` the rest join the last part, so nothing asked is lost."""
    parts: list[str] = []
    # A model may write the questions on one line: each "?" ends one.
    for line in (q for line in reply.splitlines() for q in re.split(r"(?<=\?)\s+", line)):
        text = _BULLET.sub("", line).strip().strip('"').strip()
        if len(text.split()) >= 2 and text.lower() not in (p.lower() for p in parts):
            parts.append(text)
    if len(parts) > max_parts:
        parts = parts[: max_parts - 1] + [" ".join(parts[max_parts - 1:])]
    return parts


def faithful(parts: Sequence[str], question: str) -> bool:
    """Does every part use only the question's own words (stemmed, stop words aside)? The
    demo's 1.5B model rewrote "phis" as "decay constant", and each part is retrieved as
    written."""
    asked = set(tokenize(question))
    return all(set(tokenize(part)) <= asked for part in parts)


_CLAUSE = re.compile(rf"(?<=\?)\s+|[,;]\s+(?:and\s+|or\s+)?(?=(?:{_OPENERS})\b)|\s+(?:and|or)\s+(?=(?:{_AFTER_AND})\b)",
                     re.I)


def clause_split(question: str) -> list[str]:
    """The question cut where the cheap check saw a new question begin: the fallback when the
    model's parts are not faithful. "it" stays unresolved, but every word is the member's."""
    parts = [p.strip(" ,;") for p in _CLAUSE.split(" ".join(question.split())) if len(p.split()) >= 2]
    return [p[0].upper() + p[1:] + ("" if p.endswith("?") else "?") for p in (p.rstrip(".") for p in parts)]


# "the values of y' and x'2", "the lifetimes of the Lambdac+, the Xic+ and the Xic0": a value
# asked for each of several symbols is a part per symbol, cut in code (no model call). A
# plural must ask it ("values", "are", "lifetimes"): "the γγ and ZZ fit" is one combination.
_PLURAL = re.compile(r"\b(?:are|were|values|results|measurements|parameters|lifetimes|masses|widths|limits|"
                     r"significances|fractions|yields|asymmetries|sections|ratios|efficiencies|phases|angles|"
                     r"frequencies|constants|uncertainties)\b", re.I)
_COMBINED = re.compile(r"\bcombin", re.I)
_UNIT_WORD = re.compile(r"[kMGTP]?eV(?:/c2?)?|[afpn]b(?:-1)?|ps|fs|ns|mrad|rad", re.I)
_NUMBER_WORD = re.compile(r"[\d.,]+")


def _symbol(word: str) -> bool:
    """A name written as a symbol (y', x'2, Xic0, B0s, γγ, RD), not a plain word, number or unit."""
    if _NUMBER_WORD.fullmatch(word) or _UNIT_WORD.fullmatch(word):
        return False
    return (any(ch.isdigit() or ch in "'′+-−*^_" for ch in word) or any(ch.isupper() for ch in word[1:])
            or any("\u0370" <= ch <= "\u03ff" for ch in word))


def coordinated(question: str) -> list[str]:
    """A value question asked of several symbols, or under several qualifiers of one class
    ("the observed and expected exclusion"), as one question for each; [] when it asks of one
    thing (or of a combination)."""
    return _of_each_symbol(question) or _of_each_qualifier(question)


# Classes whose values are always separate results: "the observed and expected limit" asks two,
# "the vector and axial-vector mediators" two.
# A channel's or category's pair may be their combination ("the mass in the γγ and ZZ channels"
# is one fit), so those are split only where a plural asks for several ("the signal strengths in");
# data sets never ("the Higgs masses from Run 1 and Run 2" may be their combination).
_SEPARATE = frozenset({"measure", "uncertainty", "significance", "mediator"})
_SEPARATE_IF_PLURAL = frozenset({"channel", "category"})
_JOINED = re.compile(r"\s*(?:,\s*)?(?:(?P<and>and)\s+)?(?:the\s+)?", re.I)


def _of_each_qualifier(question: str) -> list[str]:
    """One question per qualifier of a run of one class joined by "and" ("observed and
    expected", "statistical, systematic and theoretical"), each with the rest of the question.
    Uncertainties a value takes in ("including statistical and systematic uncertainties") are
    no qualifiers (``qualifiers.TAKEN_IN``), so they ask for no part."""
    if _COMBINED.search(question):
        return []
    found = qualifiers(question)
    i = 0
    while i < len(found):
        run, joined = [found[i]], False
        while i + 1 < len(found) and found[i + 1][0] == run[0][0]:
            between = _JOINED.fullmatch(question, run[-1][3], found[i + 1][2])
            if between is None:
                break
            joined = bool(between.group("and"))
            run.append(found[i + 1])
            i += 1
        i += 1
        if (len(run) >= 2 and joined and len({value for _, value, _, _ in run}) == len(run)
                and (run[0][0] in _SEPARATE or (run[0][0] in _SEPARATE_IF_PLURAL and _PLURAL.search(question)))):
            head, tail = question[:run[0][2]], question[run[-1][3]:]
            return [head + question[start:end] + tail for _, _, start, end in run]
    return []


def _of_each_symbol(question: str) -> list[str]:
    words = question.split()
    for i, word in enumerate(words):
        if word.lower() != "and" or i + 1 >= len(words):
            continue
        last = i + 2 if words[i + 1].lower() == "the" else i + 1
        if last >= len(words):
            break
        items = [(i + 1, last + 1)]  # (start of the item with its article, end) in ``words``
        j = i - 1
        while j >= 0:
            start = j - 1 if j >= 1 and words[j - 1].lower() == "the" else j
            items.insert(0, (start, j + 1))
            if start == 0 or not words[start - 1].endswith(","):
                break
            j = start - 1
        names = [words[end - 1].rstrip(",?") for _, end in items]
        head, tail = words[:items[0][0]], words[items[-1][1]:]
        if len(names) < 2 or not all(_symbol(n) for n in names) or not _PLURAL.search(" ".join(head)) \
                or _COMBINED.search(question):
            continue  # not a list of symbols: a later "and" may start one
        ending = "?" if words[items[-1][1] - 1].endswith("?") else ""
        the = "the " if any(words[start].lower() == "the" for start, _ in items) else ""
        return [" ".join(head + [the + name + ending] + tail) for name in names]
    return []


Skipped = Literal["off-topic", "no-relevant-passage"]


class PartAnswer(BaseModel):
    """One part of a multi-part question, as answered."""

    question: str  # as the model rewrote it to stand alone
    skipped: Skipped | None = None  # why none of its passages reached the model
    passages: list[int] = []  # the numbers of its passages in the prompt (shared ones included)
    cited: list[int] = []  # the answer's citations of those
    supported_share: float | None = None  # of the checked sentences citing them, those supported

    @computed_field
    @property
    def answered(self) -> bool:
        """It had passages, the answer cites one of them, and what cites them is not all
        unsupported: a part a small model answered from thin air is not counted as answered."""
        return self.skipped is None and bool(self.cited) and self.supported_share != 0


PARTS_HUMAN = """\
<passages>
{passages}
</passages>

Question about {analysis_id}, in parts:
{parts}
(Answer each part in turn, numbered as above, from the passages under it only, and cite them as [n].)"""

PARTS_PROMPT = ChatPromptTemplate.from_messages(
    [("system", ANSWER_SYSTEM), MessagesPlaceholder("history"), ("human", PARTS_HUMAN)]
)


def build_parts_prompt(analysis: Analysis, parts: Sequence[tuple[int, str, Sequence[Hit]]],
                       history: Sequence[PastExchange], settings: Settings,
                       pinned: Mapping[str, Sequence[str]] | None = None) -> tuple[Prompt, dict[int, list[int]]]:
    """The answer prompt for the parts that have passages, ``(part number, question, hits)``:
    each part's passages under a "### Part n" line, numbered on across parts. A passage two
    parts retrieved is shown once, under the first. Each part gets ``context_tokens`` shared
    by the parts, but at least half of it: a third of it held one sentence a part, too
    little to answer from (demo model), while every 100 tokens more is ~1 s more to wait.
    ``pinned`` as in ``question_sentences``. Returns the prompt and, per part number, the
    passage numbers it retrieved."""
    listed = "\n".join(f"{n}. {sanitise(q)}" for n, q, _ in parts)
    values = {**answer_values(analysis, listed), "parts": listed}
    history, budget = fit_history(PARTS_PROMPT, values, history, settings)
    share = max(settings.context_tokens // max(len(parts), 1), settings.context_tokens // 2)
    share = max(min(share, budget // max(len(parts), 1)), 0)
    seen: dict[str, int] = {}  # chunk id -> its number
    blocks: list[str] = []
    passages: list[Passage] = []
    left_out: list[Hit] = []
    numbers: dict[int, list[int]] = {}
    for n, question, hits in parts:
        fresh = [h for h in hits if h.chunk.id not in seen]
        if settings.context_sentences:
            chosen, dropped = question_sentences(question, fresh, share, settings, pinned)
        else:
            chosen, dropped = select_passages(fresh, share, settings)
        left_out += dropped
        mine = [Passage(len(passages) + i, p.hit, p.text) for i, p in enumerate(chosen, start=1)]
        passages += mine
        seen.update((p.hit.chunk.id, p.number) for p in mine)
        numbers[n] = [seen[h.chunk.id] for h in hits if h.chunk.id in seen]
        blocks.append(f"### Part {n}: {sanitise(question)}\n{render_passages(mine, settings.context_headings) or '(no passage fitted)'}")
    messages: list[BaseMessage] = PARTS_PROMPT.format_messages(
        **values, history=history_messages(history), passages="\n".join(blocks))
    return Prompt.of(messages, passages, left_out, len(history), settings), numbers


def not_covered_text(analysis: Analysis, n: int, question: str) -> str:
    """Said for a part none of whose passages cleared the floor: the model never saw it."""
    return f"{n}. The documents of {analysis.id} do not cover this part: “{question}”"
