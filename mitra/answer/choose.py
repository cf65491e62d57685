"""For a value question the model chooses; it does not write.

It reads the question and the numbered candidate values (``candidates``), each with the
sentence or table row that states it, plus "0: none of them", and its reply is
constrained to that choice: a JSON schema the server turns into a grammar (llama.cpp's
``response_format``, Ollama's ``format``, any OpenAI-compatible server's structured
output). Where the back end returns token log-probabilities, the choice's probability is
its confidence; where none come back it is None and the code's own ranking decides what
is shown first.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from mitra.answer.asked import Asked
from mitra.answer.candidates import Candidate
from mitra.answer.prompts import PASSAGES_ARE_DATA, sanitise

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

CHOICE_SYSTEM = """\
You are MITRA, the assistant of a physics collaboration. A member asks for a value from \
the analysis "{title}". Below are values its documents state, each with the sentence or \
table row that states it (the value between ⟦ and ⟧).
Choose the one value that answers the question exactly: the quantity asked for, with what \
the question names (observed or expected, statistical or systematic, the channel, category, \
mediator or data set). A value stated for another quantity is wrong even when it is close. \
If no value answers the question, choose 0.
""" + PASSAGES_ARE_DATA + """
Reply with JSON only: {{"choice": n}}."""

# Around the value: enough of its sentence to say what it is, not a whole table.
_AROUND = 180


@dataclass(frozen=True)
class Choice:
    """What the model chose: a candidate's index (from 1), or 0 for none."""

    index: int
    confidence: float | None  # its probability, where the back end gives log-probabilities
    usage: dict

    @property
    def none(self) -> bool:
        return self.index == 0


def _marked(candidate: Candidate) -> str:
    """The candidate's sentence around its value, the value between ⟦ ⟧."""
    m = candidate.mention
    start, end = m.span
    left = m.sentence[max(0, start - _AROUND):start]
    right = m.sentence[end:end + _AROUND]
    left = ("…" if start > _AROUND else "") + left
    right += "…" if end + _AROUND < len(m.sentence) else ""
    return sanitise(f"{left}⟦{m.sentence[start:end]}⟧{right}").replace("\n", " ")


def choice_messages(asked: Asked, ranked: Sequence[Candidate]) -> list[BaseMessage]:
    lines = [f"{i}. {_marked(c)}" + (f" ({c.label})" if c.label else "") for i, c in enumerate(ranked, start=1)]
    lines.append("0. None of these values answers the question.")
    return [SystemMessage(CHOICE_SYSTEM.format(title=sanitise(asked.title))),
            HumanMessage(f"Question: {asked.text}\n\nValues:\n" + "\n".join(lines))]


def choice_schema(n: int) -> dict:
    """The JSON the reply must be: {"choice": k} with k in 0..n."""
    return {"type": "json_schema", "json_schema": {"name": "choice", "strict": True, "schema": {
        "type": "object", "properties": {"choice": {"type": "integer", "enum": list(range(n + 1))}},
        "required": ["choice"], "additionalProperties": False}}}


def _tokens(metadata: dict) -> list[dict]:
    """Token log-probabilities as either wire protocol returns them (OpenAI: ``content``
    under ``logprobs``; Ollama: a list under ``logprobs``)."""
    found = metadata.get("logprobs")
    if isinstance(found, dict):
        found = found.get("content")
    return [t if isinstance(t, dict) else dict(t) for t in found or []]


def confidence(metadata: dict) -> float | None:
    """The probability of the chosen number's tokens (the only digits the reply holds)."""
    tokens = [t for t in _tokens(metadata) if re.search(r"\d", str(t.get("token", "")))]
    if not tokens:
        return None
    return round(math.exp(sum(float(t.get("logprob", 0.0)) for t in tokens)), 4)


def parse_choice(reply: str, n: int) -> int:
    """The chosen index. A reply outside the schema (a server that ignored it and wrote
    prose) is none: its numbers may be values, not choices, and the prose path follows."""
    try:
        value = json.loads(reply).get("choice")
    except (ValueError, AttributeError):
        return 0
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= n else 0


def choose(model: BaseChatModel, asked: Asked, ranked: Sequence[Candidate]) -> Choice:
    """The model's choice among ``ranked`` (raises what the model's transport raises)."""
    constrained = model.bind(response_format=choice_schema(len(ranked)), logprobs=True, top_logprobs=3)
    reply = constrained.invoke(choice_messages(asked, ranked))
    usage = dict(getattr(reply, "usage_metadata", None) or {})
    return Choice(parse_choice(str(reply.content), len(ranked)), confidence(reply.response_metadata or {}), usage)
