"""Where to start: five questions its documents answer well, drawn from its headline values
("What is the observed significance?") and then from its main sections' headings, each asked
in the chat locked on the analysis."""

from __future__ import annotations

import re
from typing import Sequence
from urllib.parse import urlencode

from mitra.brief.record import DocumentTree, Value

N_QUESTIONS = 5
# "with a measured mass of", "the signal strength is": the quantity a value is stated for
_QUANTITY = re.compile(r"\b(?:the|a|an)\s+((?:[A-Za-z][\w-]*\s){0,3}[A-Za-z][\w-]*)\s+(?:of|is|was|are|were|to be|=)\s*\(?\s*\Z")
_BOILERPLATE = re.compile(r"introduction|reference|acknowledg|appendix|bibliograph|contents|conclusion|summary|"
                          r"outlook|author|title|abstract|headers", re.I)


def _value_question(value: Value) -> str | None:
    before = value.sentence[:value.sentence.find(value.written.split()[0])] if value.written else ""
    m = _QUANTITY.search(before)
    if not m:
        return None
    quantity = m.group(1).lower()
    label = " ".join(w for w in value.label.split() if w.lower() not in quantity)
    return f"What is the {label + ' ' if label else ''}{quantity}?"


def questions(values: Sequence[Value], trees: Sequence[DocumentTree]) -> list[str]:
    out: list[str] = []
    for value in values:
        q = _value_question(value)
        if q and q not in out and len(out) < 3:
            out.append(q)
    for tree in trees:
        for section in tree.sections:
            heading = re.sub(r"\s+\d+$", "", re.sub(r"^[\d.\s]+", "", section.path[0])).strip()  # "2 Data 11": a TOC line
            if len(section.path) != 1 or not heading or _BOILERPLATE.search(heading):
                continue
            q = f"What does the analysis say about “{heading}”?"
            if q not in out:
                out.append(q)
            if len(out) >= N_QUESTIONS:
                return out
    return out[:N_QUESTIONS]


def chat_link(analysis_id: str, question: str) -> str:
    """The app's address that asks ``question`` in the chat locked on ``analysis_id``."""
    return "/?" + urlencode({"analysis": analysis_id, "ask": question})
