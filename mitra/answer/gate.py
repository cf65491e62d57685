"""No figure on screen before it is checked.

The answerer streams the model's tokens as they come, and the checks of the finished
answer (``grounding``, ``quantities``) replace a sentence whose figure its passage does
not state. A wrong figure stayed on screen 4–8 s before that. ``gated`` passes the
stream through as it comes except from the first digit of a sentence: the rest of that
sentence is held until the sentence ends, then ``check`` reads the whole sentence and
the held part is shown only if it passes. Prose without figures is not delayed; a
sentence whose only digits are citation markers ("[3]", "[1, 2]", "[1-3]") or a list
number ("2. ") has no figure. A sentence ends at ".", "!" or "?" followed by white
space (not in "5.0", "e.g.", "Fig. 3", "(stat.)") or at a line break.

A failed sentence shows nothing more: the caller replaces the whole text with the
checked answer at the end anyway. ``on_held(sentence, passed)`` reports every held
sentence, so the caller can count what was held and what was stopped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|\n")
# A full stop that does not end a sentence: "Fig. 3", "Ref. [2]", "(syst.)", "e.g.", "i.e."
_ABBREVIATION = re.compile(
    r"(?:\b(?:figs?|eqs?|refs?|secs?|sect|tabs?|al|cf|vs|approx|resp|stat|syst|lumi|theo|incl|ca|viz)"
    r"|\b[a-z](?:\.[a-z])+)\.$", re.IGNORECASE)
_LIST_NUMBER = re.compile(r"^\s*\d+\.$")
_LIST_MARK = re.compile(r"^\s*\d+[.)]\s")
_CITATION = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_OPEN_CITATION = re.compile(r"\[[\d\s,;–-]*$")  # "[1, " may still close as a citation
_DIGIT = re.compile(r"\d")


def gated(pieces: Iterable[str], check: Callable[[str], bool],
          on_held: Callable[[str, bool], None] | None = None) -> Iterator[str]:
    """``pieces`` as they come, each sentence from its first figure on held until the
    sentence is complete and shown only if ``check(sentence)`` passes (the sentence
    stripped of surrounding white space). When every check passes, the pieces yielded
    join to the text streamed."""
    sentence, shown = "", 0  # the sentence being streamed, and how much of it is on screen
    for piece in pieces:
        sentence += piece
        while (end := _sentence_end(sentence)) is not None:
            yield from _finished(sentence[:end], shown, check, on_held)
            sentence, shown = sentence[end:], 0
        upto, _ = _showable(sentence, complete=False)
        if upto > shown:
            yield sentence[shown:upto]
            shown = upto
    if sentence:
        yield from _finished(sentence, shown, check, on_held)


def _finished(sentence: str, shown: int, check: Callable[[str], bool],
              on_held: Callable[[str, bool], None] | None) -> Iterator[str]:
    """The rest of a complete sentence: all of it without a figure, else if it passes."""
    _, figure = _showable(sentence, complete=True)
    if figure:
        passed = check(sentence.strip())
        if on_held is not None:
            on_held(sentence.strip(), passed)
        if not passed:
            return
    if len(sentence) > shown:
        yield sentence[shown:]


def _showable(sentence: str, complete: bool) -> tuple[int, bool]:
    """How much of ``sentence`` may be on screen (up to its first figure, or to a "["
    that may still close as a citation marker), and whether it has a figure."""
    masked = _CITATION.sub(lambda m: "#" * len(m.group()), sentence)
    masked = _LIST_MARK.sub(lambda m: " " * len(m.group()), masked)
    limit = len(sentence)
    if not complete and (open_marker := _OPEN_CITATION.search(masked)):
        limit = open_marker.start()
    digit = _DIGIT.search(masked, 0, limit)
    return (digit.start(), True) if digit else (limit, False)


def _sentence_end(text: str) -> int | None:
    """Where the first complete sentence of ``text`` ends, if one does."""
    for end in _END.finditer(text):
        stop = text[: end.start() + 1]
        if end.group().startswith(".") and (_ABBREVIATION.search(stop) or _LIST_NUMBER.match(stop)):
            continue
        return end.end()
    return None
