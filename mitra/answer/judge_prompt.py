"""The answer judge's prompt (``mitra eval-answers``): the question, the reference and its
key points, the passages the assistant was given, and the answer to grade."""

from __future__ import annotations

from typing import Sequence

from langchain_core.messages import BaseMessage
from langchain_core.prompts import ChatPromptTemplate

from mitra.answer.prompts import render_passages, sanitise, select_passages
from mitra.core.settings import Settings
from mitra.core.types import Hit

JUDGE_SYSTEM = """\
You grade answers of a question-answering assistant for physics analyses. Be strict and \
deterministic. Judge only against the reference, the key points and the passages given; \
the answer's own claims are what you check.

Return a JSON object with:
- "label": "good" (correct and complete: covers the key points, no unsupported claim; for an \
unanswerable question, it clearly declines), "satisfactory" (correct but incomplete, or minor \
imprecision, no unsupported claim that changes the meaning), or "poor" (wrong, missing the main \
point, contains unsupported claims, or answers a question that cannot be answered);
- "key_points_covered": the numbers of the key points the answer states correctly;
- "unsupported_claims": every factual claim of the answer that neither the passages nor the \
reference support (an empty list when there is none);
- "abstained": true when the answer declines to answer or says the documents do not cover the question."""

JUDGE_HUMAN = """\
Question: {question}
Answerable from the documents: {answerable}
Reference answer: {reference}
Key points:
{key_points}
Claims that must not appear:
{forbidden}

Passages the assistant was given:
{passages}

Answer to grade:
<answer>
{answer}
</answer>"""

JUDGE_PROMPT = ChatPromptTemplate.from_messages([("system", JUDGE_SYSTEM), ("human", JUDGE_HUMAN)])


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{n}. {item}" for n, item in enumerate(items, start=1)) or "(none)"


def build_judge_prompt(
    question: str, answerable: bool, reference: str | None, key_points: Sequence[str],
    forbidden: Sequence[str], sources: Sequence[Hit], answer: str, settings: Settings,
) -> list[BaseMessage]:
    """The judge sees the passages too (within half its context), so a claim they support is not
    counted as a hallucination even when the reference does not mention it."""
    passages, _ = select_passages(sources, settings.llm_context_tokens // 2, settings)
    return JUDGE_PROMPT.format_messages(
        question=question,
        answerable="yes" if answerable else "no",
        reference=reference or "(none)",
        key_points=_numbered(key_points),
        forbidden=_numbered(forbidden),
        passages=render_passages(passages) or "(none)",
        answer=sanitise(answer),
    )
