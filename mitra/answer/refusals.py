"""What is said instead of a model's answer: no passage clears the relevance floor, the
analysis never uses the question's words, the answer's claims are not in its passages (or
it only pointed at them), or the answer is only citation markers."""

from __future__ import annotations

from typing import Sequence

from mitra.answer.grounding import SentenceSupport
from mitra.answer.prompts import analysis_summary
from mitra.core.types import Analysis


def abstention_text(analysis: Analysis) -> str:
    """Said without calling the model when no passage clears the relevance floor."""
    return (
        f'The documents of the locked analysis "{analysis.title}" ({analysis.id}) do not cover this '
        f"question, so I cannot answer it from them. This analysis is about: {analysis_summary(analysis)}"
    )


# Everyday words of degree, size and manner: missing from a note, they say nothing about what
# the question is about ("How long should I boil an egg for a soft yolk?" is about eggs, not
# about "long" or "soft"), so the off-topic reply names the other missing words.
_EVERYDAY = frozenset(
    "long short soft hard big small large little much many more most less least good bad better worse best worst "
    "high low new old fast slow quick easy often always never usually really very well way thing things time "
    "times make made get got take use used need want like right wrong first last next".split()
)


def off_topic_text(analysis: Analysis, unknown: Sequence[str]) -> str:
    """Said without retrieving or calling the model when the analysis does not use most of
    the question's words; it names the missing words that carry the question's subject."""
    named = [w for w in unknown if w.lower() not in _EVERYDAY] or list(unknown)
    words = ", ".join(f'"{w}"' for w in named[:6])
    return (
        f'The documents of the locked analysis "{analysis.title}" ({analysis.id}) never mention {words}, '
        f"so this question is not one they can answer. This analysis is about: {analysis_summary(analysis)}"
    )


def unsupported_text(analysis: Analysis, support: Sequence[SentenceSupport] = ()) -> str:
    """Shown instead of an answer none of whose cited sentences its passages support; when
    its only claims pointed at passages instead of stating the value ("… is [3]."), it says so."""
    pointed = list(dict.fromkeys(n for s in support if s.pointer for n in s.cited))
    if pointed and not any(s.supported is False and not s.pointer for s in support):
        marks = ", ".join(f"[{n}]" for n in pointed)
        return (
            f"The model did not state the answer: it pointed at passage{'s' if len(pointed) > 1 else ''} {marks} "
            f"instead, so there is nothing to check and it is not shown. The passages found in {analysis.id} "
            "are below."
        )
    return (
        f"The passages found in {analysis.id} do not say this: the model's answer made claims its cited "
        "passages do not contain, so it is not shown. The passages found are below."
    )


def wordless_answer_text(analysis: Analysis, cited: Sequence[int]) -> str:
    """Said instead of an answer that is only citation markers (a small model's "[4]" to an
    off-topic question): what the analysis is about, and where to look."""
    pointed = f" It pointed at passage{'s' if len(cited) > 1 else ''} {', '.join(f'[{n}]' for n in cited)}." if cited else ""
    return (
        f"The model gave no answer in words.{pointed} The documents of the locked analysis "
        f'"{analysis.title}" ({analysis.id}) may not cover this question. '
        f"This analysis is about: {analysis_summary(analysis)}"
    )
