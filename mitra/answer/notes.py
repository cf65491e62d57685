"""What the checks changed in an answer, or found wrong with it, in plain words.

The member watched the model's own text stream in; when the checks then move a citation,
put a passage's sentence in place of a wrong figure or leave a sentence out, the answer
says so under its text; so too when
the model pointed at a passage instead of stating the value asked for. The same notes are
saved with the turn, so a reopened conversation shows what was shown.
"""

from __future__ import annotations

from typing import Literal, Sequence

from pydantic import BaseModel

from mitra.answer.claims import Quote
from mitra.answer.grounding import SentenceSupport
from mitra.answer.prompts import CITATION

NoteKind = Literal["citation moved", "figure corrected", "figure removed", "not supported", "figure unstated",
                   "value not stated", "value uncertain", "value unconfirmed"]


class Note(BaseModel):
    kind: NoteKind
    text: str
    quote: Quote | None = None  # the passage's own sentence shown in place of a wrong figure


def _marks(numbers: Sequence[int]) -> str:
    return ", ".join(f"[{n}]" for n in numbers)


def note_of(s: SentenceSupport) -> Note | None:
    """The note one checked sentence needs, if any."""
    said = CITATION.sub("", s.text).strip()
    if s.wrong_figure:
        why = "; ".join(check.explain() for check in s.numbers)
        if s.quote is not None:
            return Note(kind="figure corrected", quote=s.quote,
                        text=f"The model's figure did not match its passage: it wrote “{said}”, but {why}. "
                             f"The sentence of [{s.quote.passage}] that states it is quoted in its place.")
        return Note(kind="figure removed", text=f"Left out: the model wrote “{said}”, but {why}, and no passage "
                                                "shown states the figure asked for.")
    if s.unstated:
        how = "citing no passage, and" if s.uncited else "but"
        return Note(kind="figure unstated",
                    text=f"Left out: the model wrote “{said}” {how} "
                         f"{', '.join(s.missing_numbers)} is in none of the passages shown.")
    if s.pointer:
        return Note(kind="value not stated",
                    text=f"No value given: the model wrote “{s.text.strip()}”, pointing at {_marks(s.cited)} "
                         "instead of stating the value; read it in that passage.")
    if s.recited_from is not None:
        written = f"cited {_marks(s.recited_from)}" if s.recited_from else "cited no passage"
        return Note(kind="citation moved", text=f"Citation moved: the model {written} for “{said}”; the passage "
                                                f"that holds it is {_marks(s.cited)}, so the answer cites that.")
    if s.supported is False:
        return Note(kind="not supported", text=f"Not supported by its passages: “{said}” — {s.problem}.")
    return None


def notes(support: Sequence[SentenceSupport]) -> list[Note]:
    """One note per sentence the checks changed or found unsupported, in answer order."""
    return [note for s in support if (note := note_of(s)) is not None]
