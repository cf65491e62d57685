"""Does a follow-up need the conversation before it is retrieved?

In a locked session every follow-up waited for the model to rewrite it with the
conversation (``Answerer.condense``): 17–30 s of "Retrieving the passages…" on two cores,
even for "What is the observed limit on the vector mediator mass?", which stands alone.
Only a question that points back needs the rewrite:

* a pronoun or demonstrative whose referent is not in the question: "How is it
  estimated?", "What does the analysis use that for?", "Is the yield lower there?",
  "the same", "the former", "the other one", "the expected one";
* a continuation: "And …", "Also …", "What about …", "How about …", "Same for …",
  "… too?", "What else …";
* an ellipsis: a fragment of at most four words with no verb ("Why?", "For 2017?").

Not pointing back: "this analysis", "this paper", "this result" (in a locked session the
locked analysis), "that" as a conjunction or relative pronoun ("the background that
dominates"), a dummy "it" ("Why is it so difficult to …", "Is it true that …", "Where is
it stated that …"), and a pronoun after a clause that names its referent ("What are the
backgrounds and how are they addressed?"). A few regular expressions, no model: when in
doubt the answer is True, since a needless rewrite costs seconds and a missing one
retrieves for the wrong thing.

A follow-up that only swaps a qualifier of the question before ("And the axial-vector
one?", "What about the expected one?", "And how many in the ggF category?"), or the
question's one hadron for another of its family ("And for the B0?" after the Bs), is
rewritten in code (``substituted``): the earlier question with that qualifier swapped. The model's rewrite
took 2–10 s and, with the demo models, often took the wrong antecedent or copied the
previous answer into the question (``benchmarks/value_timing.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mitra.answer.qualifiers import qualifiers
from mitra.core.hadrons import family
from mitra.core.text import tokenize

_I = re.IGNORECASE
_OPENER = re.compile(r"^\W*(?:and|also|plus|but|or|then|likewise|similarly|what about|how about|what if|as for"
                     r"|same (?:for|with|in|on|question))\b", _I)
_ALWAYS = re.compile(
    r"\b(?:else|others|the (?:former|latter|other)|(?:too|as well|instead|either)\W*$"
    r"|the same\b(?!(?:\s+[\w-]+){0,3}\s+(?:as|across)\b)"
    r"|(?:the|which|that|this|another|each)\s+(?:[\w-]+\s+)?ones?(?![\w-])"
    r"|those\b(?!\s+(?:that|which|who|with|of|in|from|where)\b))", _I)
_LOCKED_NOUNS = ("analysis|analyses|paper|papers|note|notes|measurement|measurements|search|searches|result|results"
                 "|study|studies|work|document|documents|publication|article|talk|presentation|letter|report"
                 "|thesis|experiment|collaboration")
_THIS = re.compile(rf"\b(?:this|these)\b(?!\s+(?:{_LOCKED_NOUNS})\b)", _I)
_AUX = r"is|are|was|were|does|do|did|can|could|would|will|should|has|have|had|isn't|aren't|doesn't|don't"
_THAT = re.compile(
    rf"^\W*(?:(?:why|how|what|where|when|who|which|how\s+\w+)\s+)?(?:(?:{_AUX})\s+)?that(?:'s|’s)?\b"
    r"|\bthat\W*$|\bthat\s+(?:for|as)\b"
    r"|\b(?:of|about|for|on|from|with|to|than|like|after|before|behind|beyond|by|into|under|without)\s+that\b"
    r"(?!\s+(?:of|in|which)\b)", _I)
_THERE = re.compile(r"\bthere\b", _I)
_EXISTENTIAL = re.compile(rf"(?:\b(?:{_AUX}|be|been|will|might|may|must)\s+)$", _I)
_EXISTS_AFTER = re.compile(r"^\s*(?:is|are|was|were|be|been|'s|’s|exists?|remains?|seems?|appears?|will|would|might"
                           r"|could|should|must|may|can|has|have|had)\b", _I)
_PRONOUN = re.compile(r"\b(?:it|its|itself|they|them|their|theirs|themselves)\b", _I)
_ADJ = (r"true|false|possible|impossible|necessary|known|stated|shown|claimed|assumed|argued|believed|likely"
        r"|unlikely|difficult|hard|easy|important|needed|enough|sufficient|reasonable|justified|clear|worth|safe"
        r"|fair|correct|feasible|useful|better|best|common|standard|surprising|the case")
_DEGREE = r"(?:(?:so|too|very|not|really|more|less|also|still)\s+)?"
_COMPLEMENT = r"(?:\s+\S+){0,4}?\s+(?:to|that|whether|if|how|why)\b"  # "… to work with photons", "… that …"
_DUMMY_IT = re.compile(rf"^it\s+(?:is|was|'s|’s|would be|seems|appears|remains)\s+{_DEGREE}(?:{_ADJ}){_COMPLEMENT}", _I)
_DUMMY_IT_ASKED = re.compile(r"\b(?:is|was|isn't|wasn't|would|does|seems)\s+$", _I)
_DUMMY_IT_AFTER = re.compile(rf"^it\s+(?:be\s+)?{_DEGREE}(?:{_ADJ}){_COMPLEMENT}", _I)
_CLAUSE = re.compile(r"(?:[,;:]|\b(?:and|or|but|which|where|when|if|because|since|while|whereas|so)\b)", _I)
_SUBJECT = re.compile(rf"\b(?:{_AUX}|may|might)\s+(?:the|this|these|each|every|all|both)\s+\w", _I)
_PREPOSITIONS = {"of", "on", "in", "for", "with", "from", "to", "at", "by", "about", "than", "into", "under", "over"}
_FUNCTION = {"what", "which", "who", "whom", "whose", "why", "how", "where", "when", "the", "a", "an", "is", "are",
             "was", "were", "do", "does", "did", "be", "been", "can", "could", "would", "will", "should", "has",
             "have", "had", "it", "its", "they", "them", "their", "this", "that", "these", "those", "there", "many",
             "much", "large", "not", "also", *_PREPOSITIONS}
_VERBS = set(_AUX.split("|")) | {
    "be", "been", "am", "may", "might", "must", "shall", "explain", "describe", "define", "list", "summarise",
    "summarize", "show", "give", "gives", "gave", "compare", "name", "tell", "use", "uses", "used", "mean", "means",
    "dominate", "dominates", "measure", "measures", "measured", "contain", "contains", "find", "finds", "found",
    "cause", "causes", "select", "selects", "estimate", "estimates", "exclude", "excludes", "differ", "differs",
    "work", "works", "come", "comes", "apply", "applies", "applied", "change", "changes", "changed", "matter"}
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d[\w.]*")


def needs_history(question: str, history_questions: Sequence[str] = ()) -> bool:
    """True when ``question`` cannot be retrieved as asked: it points back into the
    conversation. A first question (no ``history_questions``) never does: there is
    nothing to rewrite it with."""
    if not history_questions:
        return False
    text = question.strip()
    words = _WORD.findall(text)
    if not words:
        return False
    if _OPENER.search(text) or _ALWAYS.search(text) or _THIS.search(text) or _THAT.search(text):
        return True
    if len(words) <= 4 and not any(_verb(w, after) for w, after in zip(words, [*words[1:], ""])):
        return True
    if any(_place(text, m) for m in _THERE.finditer(text)):
        return True
    return any(not _resolved(text, m) for m in _PRONOUN.finditer(text))


def _verb(word: str, after: str) -> bool:
    """A verb of a short question: a known one, or a participle that ends it or comes
    before its object ("Who measured the mass?"), not one before a noun ("Observed limit?")."""
    word = word.lower()
    return word in _VERBS or (word.endswith("ed") and (not after or after.lower() in _FUNCTION))


def _place(text: str, m: re.Match[str]) -> bool:
    """"there" as a place ("lower there"), not "is there", "there are"."""
    return not (_EXISTENTIAL.search(text[: m.start()]) or _EXISTS_AFTER.match(text[m.end():]))


def _resolved(text: str, m: re.Match[str]) -> bool:
    """A dummy "it", or a pronoun whose referent the question itself names."""
    before, rest = text[: m.start()], text[m.start():]
    if m.group().lower() == "it" and (
            _DUMMY_IT.match(rest) or (_DUMMY_IT_ASKED.search(before) and _DUMMY_IT_AFTER.match(rest))):
        return True
    if m.group().lower() in {"its", "their"} and _SUBJECT.search(before):
        last = _WORD.findall(before)
        if last and last[-1].lower() not in _PREPOSITIONS:
            return True  # "How does the analysis estimate its background?"
    for clause in _CLAUSE.finditer(before):
        if any(w.lower() not in _FUNCTION and len(w) > 2 for w in _WORD.findall(before[: clause.start()])):
            return True  # "What are the backgrounds and how are they addressed?"
    return False


# Words of a swapping follow-up that carry no content of their own.
_SWAP_WORDS = {"and", "also", "what", "about", "how", "for", "in", "the", "a", "an", "one", "ones", "of", "is", "are",
               "was", "were", "many", "much", "large", "then", "same", "instead", "case", "with", "at", "on"}


def substituted(question: str, previous: str) -> str | None:
    """``previous`` with the qualifiers ``question`` names swapped in ("Up to what mass is the
    vector mediator excluded?" + "And the axial-vector one?" → "… the axial-vector mediator
    …"), or its one hadron swapped for the one ``question`` names ("… for the Bs to mumu …" +
    "And for the B0?"); None where the follow-up says more (a new quantity, a pronoun to
    resolve): the model rewrites those."""
    swapped = _hadron_swapped(question, previous)
    if swapped is not None:
        return swapped
    named = qualifiers(question)
    if not named:
        return None
    inside = {(start, end) for _, _, start, end in named}
    before = {w.lower() for w in _WORD.findall(previous)}
    for m in _WORD.finditer(question):
        word = m.group().lower()
        if any(s <= m.start() < e for s, e in inside) or word in _SWAP_WORDS or word in before:
            continue
        return None
    earlier = qualifiers(previous)
    swaps = {cls: question[start:end] for cls, _, start, end in named}
    if not all(any(cls == c for c, _, _, _ in earlier) for cls in swaps):
        return None
    out = previous
    for cls, _, start, end in sorted(earlier, key=lambda q: -q[2]):
        if cls in swaps:
            out = out[:start] + swaps[cls] + out[end:]
    return out


def _hadron(word: str) -> int | None:
    tokens = tokenize(word)
    return family(tokens[0]) if len(tokens) == 1 else None


def _hadron_swapped(question: str, previous: str) -> str | None:
    """``previous`` with its one hadron of the family ``question``'s only word names replaced."""
    new = [m.group() for m in _WORD.finditer(question) if m.group().lower() not in _SWAP_WORDS]
    kind = _hadron(new[0]) if len(new) == 1 else None
    if kind is None:
        return None
    olds = [m for m in _WORD.finditer(previous) if _hadron(m.group()) == kind]
    if len(olds) != 1:
        return None
    return previous[:olds[0].start()] + new[0] + previous[olds[0].end():]
