"""For a value question the model chooses; it does not write.

It reads the candidate values (``candidates``), each marked in the sentence or table row
that states it, then the question, and copies one value as written, or "none": its reply
is constrained to those strings by a JSON schema the server turns into a grammar
(llama.cpp's ``response_format``, Ollama's ``format``, any OpenAI-compatible server's
structured output). Where the back end returns token log-probabilities with the
alternatives at each token (llama.cpp, Ollama ≥ 0.12.11, OpenAI-compatible servers), each
value's probability under the schema is read from them, and the choice is the value the
model's probability and the code's ranking score together make likeliest (``weighed``,
``value_prior``, measured per model: ``llm.CHOICE_PRIORS``). On the development questions
SmolLM2-135M's copies were right far less often than the ranking's first; the demo model's
more often, and weighed with the ranking a little more still. The chosen value's probability is
its confidence; where none come back it is None and the code's own ranking decides what is
shown first.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from mitra.answer.asked import Asked
from mitra.answer.candidates import Candidate
from mitra.answer.prompts import PASSAGES_ARE_DATA, sanitise

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

# Added to each probability before its logarithm: a value the model gave no share is not ruled out.
_FLOOR = 0.01
# Around the value: enough of its sentence to say what it is, not a whole table.
_AROUND = 180
# Where the code reads the ranking's first value better than the model (``code_reads``), the
# ranking weighs at least this much beside the model's probabilities. Development questions whose
# value is offered, the demo model's choice weighed at 0.5 / at 3 / the ranking's first alone: a
# table cell first (60) 32 / 41 / 43; a value paired with the question's name first (35) 29 / 33 /
# 33 (docs/benchmarks.md).
READ_PRIOR = 3.0


@dataclass(frozen=True)
class Choice:
    """What the model chose: a candidate's index (from 1), or 0 for none."""

    index: int
    confidence: float | None  # its probability under the schema, where the back end gives log-probabilities
    usage: dict
    copied: int | None = None  # the value the model copied; ``index`` is that weighed with the ranking
    spread: dict[int, float] = field(default_factory=dict)  # each value's probability (``probabilities``)

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
    column = candidate.mention.column
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


def probabilities(metadata: dict, values: Sequence[str]) -> tuple[int, dict[int, float]]:
    """The value the reply copied (index from 1, 0 for none) and each value's probability under
    the schema, as far as its log-probabilities tell (empty without them). Along the copied
    value, token by token, the chosen token is weighed against the tokens the schema allowed
    there (the server reports probabilities before its grammar applies, so the raw product
    understates a sure choice; the alternatives it lists are renormalised over); the share an
    allowed alternative takes leaves the path for the values it begins, evenly among them
    (their own later tokens are not reported). An Ollama before 0.12.11 lists no alternatives:
    the copied value alone, at its raw probability, a lower bound."""
    tokens = _tokens(metadata)
    text = "".join(str(t.get("token", "")) for t in tokens)
    key = text.find('"value"')
    if key < 0:
        return 0, {}
    opening = text.find(":", key) + 1
    targets = {i: json.dumps(v, ensure_ascii=False) for i, v in enumerate([NONE, *values])}
    listing = any(_alternatives(t) for t in tokens)
    alive, mass, spread, position = set(targets), 1.0, dict.fromkeys(targets, 0.0), 0
    for token in tokens:
        piece = str(token.get("token", ""))
        start, position = position, position + len(piece)
        if position <= opening:
            continue
        if start < opening:  # a token across the colon: its framing part is no choice
            alive = set(_begun(text[opening:position], targets, alive))
            continue
        prefix = text[opening:start]
        begun = {a: _begun(prefix + a, targets, alive) for a in [piece, *(a for a, _ in _alternatives(token))]}
        ahead = begun[piece]
        if not ahead:
            break  # past the value's closing quote
        chosen = math.exp(float(token.get("logprob", 0.0)))
        allowed = {piece: chosen} | {a: math.exp(lp) for a, lp in _alternatives(token) if a != piece and begun[a]}
        total = sum(allowed.values()) if listing else 1.0
        for alternative, p in allowed.items():
            leaving = [i for i in begun[alternative] if i not in ahead]
            for i in leaving:
                spread[i] += mass * p / total / len(leaving)
        mass, alive = mass * chosen / total, set(ahead)
    if len(alive) != 1:
        return 0, {}
    copied = alive.pop()
    spread[copied] += mass
    return copied, {i: round(p, 4) for i, p in spread.items() if p}


def _begun(reading: str, targets: dict[int, str], alive: set[int]) -> list[int]:
    """The values still ``alive`` that ``reading`` begins (or spells whole, closing the reply)."""
    reading = reading.lstrip()
    return [i for i in alive if targets[i].startswith(reading)
            or (reading.startswith(targets[i]) and reading[len(targets[i]):].lstrip().startswith("}"))]


def weighed(copied: int, spread: dict[int, float], scores: Sequence[float], prior: float) -> int:
    """The value the model's probabilities and the code's ranking together make likeliest:
    each value's log-probability plus ``prior`` times its ranking score (``scores``, in the
    order offered; none at 0). The model reads the sentences; the ranking knows what the
    sentences leave to their passages. Where only the copied value's probability is known (an
    Ollama before 0.12.11), or ``prior`` is 0, the copy."""
    if prior <= 0 or len(spread) < 2:
        return copied

    def merit(i: int) -> float:
        return math.log(spread.get(i, 0.0) + _FLOOR) + prior * (scores[i - 1] if i else 0.0)
    return max(range(len(scores) + 1), key=merit)


def code_reads(first: Candidate) -> bool:
    """Does the code read the ranking's first value better than a small model does? A table
    cell, whose row label and column header stand apart from it, and a value its own sentence
    pairs one to one with the name the question names ("1256, 1252 and 1260 MeV for the
    isobar, K-matrix and QMI approaches, respectively"; ``respective``)."""
    return bool(first.mention.column) or first.signals.get("respective", 0.0) > 0


def prior_for(prior: float, read: bool) -> float:
    """The ranking's weight in one choice: ``prior``, raised to ``READ_PRIOR`` where the code
    reads the ranking's first value better (``read``, ``code_reads``). No weight (the copy)
    stays none."""
    return max(prior, READ_PRIOR) if read and prior > 0 else prior


def parse_choice(reply: str, values: Sequence[str]) -> int:
    """The chosen value's index (from 1), 0 for none. A reply outside the schema (a server
    that ignored it and wrote prose) is none: its numbers may be values, not choices, and
    the prose path follows."""
    try:
        value = json.loads(reply).get("value")
    except (ValueError, AttributeError):
        return 0
    return values.index(value) + 1 if isinstance(value, str) and value in values else 0


def choose(model: BaseChatModel, asked: Asked, ranked: Sequence[Candidate], prior: float = 0.0) -> Choice:
    """The model's choice among ``ranked`` (raises what the model's transport raises). It
    copies the value rather than a number from a list: a small model copies a span far more
    surely than it counts (docs/benchmarks.md)."""
    values = [written(c) for c in ranked]
    constrained = model.bind(response_format=choice_schema(values), logprobs=True, top_logprobs=10)
    reply = constrained.invoke(choice_messages(asked, ranked))
    usage = dict(getattr(reply, "usage_metadata", None) or {})
    copied = parse_choice(str(reply.content), values)
    spelled, spread = probabilities(reply.response_metadata or {}, values)
    spread = spread if spelled == copied else {}  # log-probabilities of another reply than the one read
    read = bool(ranked) and code_reads(ranked[0])
    index = weighed(copied, spread, [c.score for c in ranked], prior_for(prior, read))
    return Choice(index, spread.get(index) if spread else None, usage, copied, spread)
