"""For a value question the model chooses; it does not write.

It reads the candidate values (``candidates``), each marked in the sentence or table row
that states it, then the question, and copies one value as written, or "none": its reply
is constrained to those strings by a JSON schema the server turns into a grammar
(llama.cpp's ``response_format``, Ollama's ``format``, any OpenAI-compatible server's
structured output). Where the back end returns token log-probabilities, the copied value's
probability under the schema is its confidence; where none come back it is None and the
code's own ranking decides what is shown first.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from mitra.answer.asked import Asked
from mitra.answer.candidates import Candidate
from mitra.answer.prompts import PASSAGES_ARE_DATA, sanitise
from mitra.answer.table_layout import column_of

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

CHOICE_SYSTEM = """\
You are MITRA, the assistant of a physics collaboration. A member asks for a value from \
an analysis. Below are values its documents state, each in the sentence or table row that \
states it (the value between ⟦ and ⟧).
Choose the one value that answers the question exactly: the quantity asked for, with what \
the question names (observed or expected, statistical or systematic, the channel, category, \
mediator or data set). A value stated for another quantity is wrong even when it is close. \
Copy the chosen value exactly as it is written between ⟦ and ⟧. If no value answers the \
question, reply "none".
""" + PASSAGES_ARE_DATA + """
Reply with JSON only: {"value": "<the value>"}."""
NONE = "none"

# Around the value: enough of its sentence to say what it is, not a whole table.
_AROUND = 180
# A warned answer leads with the candidate of the highest log-probability plus this many times
# its score: the model's choice, or the ranking's first, had led right 160 times of 205 on the
# development sets, this 164 (lhcb and fresh 75 -> 77, fresh2 and fresh3 85 -> 87; 0.3 and 1.0
# gave 162-163 in the first estimate).
W_RANKING = 0.5
_FLOOR = 1e-4  # a value the server did not list still has some probability


@dataclass(frozen=True)
class Choice:
    """What the model chose: a candidate's index (from 1), or 0 for none."""

    index: int
    confidence: float | None  # its probability under the schema, where the back end gives log-probabilities
    usage: dict
    likeliest: int | None = None  # the candidate its probabilities and the code's scores favour together

    @property
    def none(self) -> bool:
        return self.index == 0


def _groups(ranked: Sequence[Candidate]) -> list[list[Candidate]]:
    """The candidates by the sentence (or table row) that states them, each sentence once, in
    the order of its first candidate: "1.3 (1.4) standard deviations … without (with)" is read
    once with both values marked, not twice."""
    by_sentence: dict[tuple[str, str], list[Candidate]] = {}
    for c in ranked:
        by_sentence.setdefault((c.hit.chunk.id, c.mention.sentence), []).append(c)
    return list(by_sentence.values())


def _marked(group: Sequence[Candidate]) -> str:
    """Their sentence around their values, each value between ⟦ ⟧."""
    sentence = group[0].mention.sentence
    spans = sorted({c.mention.span for c in group})
    start, end = spans[0][0], spans[-1][1]
    pieces, at = [], start
    for s, e in spans:
        if s >= at:  # a span inside the last (never two marks in one number)
            pieces += [sentence[at:s], "⟦", sentence[s:e], "⟧"]
            at = e
    left = ("…" if start > _AROUND else "") + sentence[max(0, start - _AROUND):start]
    right = sentence[at:end + _AROUND] + ("…" if end + _AROUND < len(sentence) else "")
    return sanitise(left + "".join(pieces) + right).replace("\n", " ")


def _column(candidate: Candidate) -> str:
    """A table cell's column name, which its row alone does not say ("ggH-cat4 | 126 | … |
    ⟦1.47⟧ | …": HWHM (GeV))."""
    m = candidate.mention
    column = column_of(candidate.hit.chunk.text, m.sentence, m.span[0]) if " | " in m.sentence else ""
    return f"column: {sanitise(column)}" if column else ""


def _named(group: Sequence[Candidate]) -> str:
    """After the line, what its values are stated for: a label they share once, then each
    value's own label and column after it (one value: its label; its column)."""
    group = sorted(group, key=lambda c: c.mention.span)
    labels = {c.label for c in group}
    shared = labels.pop() if len(labels) == 1 else ""
    each = len(group) > 1
    said = [(f"⟦{written(c)}⟧ " if each else "") + s for c in group
            if (s := "; ".join(p for p in ("" if shared else c.label, _column(c)) if p))]
    text = "; ".join(p for p in (shared, " · ".join(said)) if p)
    return f" ({text})" if text else ""


def written(candidate: Candidate) -> str:
    """The value as its passage writes it: what the model copies."""
    start, end = candidate.mention.span
    return candidate.mention.sentence[start:end]


def choice_messages(asked: Asked, ranked: Sequence[Candidate]) -> list[BaseMessage]:
    """The values, in their sentences (each once), then the question: a small model reads what
    comes last most closely. The system message is the same for every question, so llama.cpp
    reuses it from its prompt cache (the analysis's title follows it): the demo model's
    choice 12.3 → 9.8 s p50 on 2 idle cores, SmolLM2's 3.5–3.8 → 2.7–3.3 s."""
    lines = [f"- {_marked(group)}" + _named(group) for group in _groups(ranked)]
    return [SystemMessage(CHOICE_SYSTEM),
            HumanMessage(f"Analysis: \"{sanitise(asked.title)}\"\nValues:\n" + "\n".join(lines)
                         + f"\n\nQuestion: {asked.text}")]


def choice_schema(values: Sequence[str]) -> dict:
    """The JSON the reply must be: {"value": v}, v one of ``values`` or "none"."""
    return {"type": "json_schema", "json_schema": {"name": "value", "strict": True, "schema": {
        "type": "object", "properties": {"value": {"type": "string", "enum": [*values, NONE]}},
        "required": ["value"], "additionalProperties": False}}}


def _tokens(metadata: dict) -> list[dict]:
    """Token log-probabilities as either wire protocol returns them (OpenAI: ``content``
    under ``logprobs``; Ollama: a list under ``logprobs``)."""
    found = metadata.get("logprobs")
    if isinstance(found, dict):
        found = found.get("content")
    return [t if isinstance(t, dict) else dict(t) for t in found or []]


def _alternatives(token: dict) -> list[tuple[str, float]]:
    return [(str(a.get("token", "")), float(a.get("logprob", 0.0)))
            for a in (dict(x) if not isinstance(x, dict) else x for x in token.get("top_logprobs") or [])]


@dataclass(frozen=True)
class _Step:
    """One token of the copied value: the value's text before it, the token written, and the
    tokens the schema allowed there with their probabilities (the written one among them)."""

    prefix: str
    piece: str
    allowed: dict[str, float]


def _steps(metadata: dict, values: Sequence[str]) -> tuple[list[_Step], list[str], bool] | None:
    """The copied value's tokens, the strings the schema allowed for it (each value, then
    "none", each with and without a space before), and whether the server listed
    alternatives; None without log-probabilities."""
    tokens = _tokens(metadata)
    if not tokens:
        return None
    text = "".join(str(t.get("token", "")) for t in tokens)
    key = text.find('"value"')
    if key < 0:
        return None
    opening = text.find(":", key) + 1
    targets = [space + json.dumps(v, ensure_ascii=False) for v in [*values, NONE] for space in ("", " ")]
    steps, position = [], 0
    for token in tokens:
        piece = str(token.get("token", ""))
        start, position = position, position + len(piece)
        if position <= opening:
            continue
        prefix = text[opening:start] if start >= opening else ""
        if not any(t.startswith(prefix) and len(t) > len(prefix) for t in targets):
            break  # past the value's closing quote
        allowed = {piece: math.exp(float(token.get("logprob", 0.0)))}
        for alternative, logprob in _alternatives(token):
            if _leads(prefix + alternative, targets):
                allowed.setdefault(alternative, math.exp(logprob))
        steps.append(_Step(prefix, piece, allowed))
    return steps, targets, any(_alternatives(t) for t in tokens)


def _leads(reading: str, targets: Sequence[str]) -> list[int]:
    """The targets a reading of the reply so far can still become (or has become, closed)."""
    return [k for k, t in enumerate(targets)
            if t.startswith(reading) or (reading.startswith(t) and reading[len(t):].lstrip().startswith("}"))]


def confidence(metadata: dict, values: Sequence[str]) -> float | None:
    """The probability of the chosen value under the schema: token by token, the chosen
    token's probability over that of the tokens the schema allowed there (the server reports
    probabilities before its grammar applies, so the raw product understates a sure choice;
    the alternatives it lists are renormalised over). None without log-probabilities."""
    walked = _steps(metadata, values)
    if walked is None:
        return None
    steps, _, listing = walked
    probability = 1.0
    for step in steps:
        chosen = step.allowed[step.piece]
        # Ollama lists no alternatives: the raw probability, a lower bound
        probability *= chosen / sum(step.allowed.values()) if listing else chosen
    return round(probability, 4)


def shares(metadata: dict, values: Sequence[str], chosen: int) -> list[float] | None:
    """Each value's probability under the schema, "none" last, read along the copied value's
    (``chosen``, from 1; 0 for none) tokens: where another value parts from it, the tokens
    the server lists for that turn carry their probability to the values they lead to (shared
    equally where several), and the copied value keeps what is left. None where the server
    lists no alternatives."""
    walked = _steps(metadata, values)
    if walked is None or not walked[2]:
        return None
    steps, targets, _ = walked
    out, path = [0.0] * (len(values) + 1), 1.0
    for step in steps:
        total = sum(step.allowed.values())
        for alternative, probability in step.allowed.items():
            leads = _leads(step.prefix + alternative, targets) if alternative != step.piece else []
            for k in leads:
                out[k // 2] += path * probability / total / len(leads)
        path *= step.allowed[step.piece] / total
    out[chosen - 1 if chosen else len(values)] += path
    return [share / sum(out) for share in out]


def likeliest(found: Sequence[float] | None, ranked: Sequence[Candidate]) -> int | None:
    """The candidate (from 1) that the model's probabilities (``shares``) and the code's
    scores favour together, for a warned answer to lead with; None without probabilities."""
    if found is None:
        return None
    return 1 + max(range(len(ranked)), key=lambda i: math.log(found[i] + _FLOOR) + W_RANKING * ranked[i].score)


def parse_choice(reply: str, values: Sequence[str]) -> int:
    """The chosen value's index (from 1), 0 for none. A reply outside the schema (a server
    that ignored it and wrote prose) is none: its numbers may be values, not choices, and
    the prose path follows."""
    try:
        value = json.loads(reply).get("value")
    except (ValueError, AttributeError):
        return 0
    return values.index(value) + 1 if isinstance(value, str) and value in values else 0


def choose(model: BaseChatModel, asked: Asked, ranked: Sequence[Candidate]) -> Choice:
    """The model's choice among ``ranked`` (raises what the model's transport raises). It
    copies the value rather than a number from a list: a small model copies a span far more
    surely than it counts (docs/benchmarks.md)."""
    values = [written(c) for c in ranked]
    constrained = model.bind(response_format=choice_schema(values), logprobs=True, top_logprobs=10)
    reply = constrained.invoke(choice_messages(asked, ranked))
    usage = dict(getattr(reply, "usage_metadata", None) or {})
    metadata = reply.response_metadata or {}
    index = parse_choice(str(reply.content), values)
    return Choice(index, confidence(metadata, values), usage, likeliest(shares(metadata, values, index), ranked))
