"""LaTeX source -> paragraphs with their section paths (a ``from_text`` format).

Sections from the sectioning commands; figure and table floats become captions and
table rows; display maths stays in the sentence around it; the preamble, author block
and bibliography are left out, and said so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.chunk.paragraphs import MARKUP, ParsedText
from ingest.chunk.sections import Sections
from ingest.chunk.shapes import AUTHORS, REFERENCES
from ingest.chunk.tables import latex_rows
from mitra.core.text import clean_latex, normalise_space, readable_latex, sentence_end
from mitra.core.types import ChunkKind

LATEX_HEADING = re.compile(
    r"\\(section|subsection|subsubsection|paragraph)\*?\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_LATEX_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4}
_LATEX_ENV = re.compile(
    r"\\begin\{(figure\*?|table\*?|equation\*?|align\*?|eqnarray\*?|multline\*?|gather\*?|abstract|"
    r"thebibliography)\}(.*?)\\end\{\1\}",
    re.S,
)
_CAPTION = re.compile(r"\\caption\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", re.S)
_BEGIN_DOCUMENT = re.compile(r"\\begin\{document\}")


def parse_latex(text: str) -> ParsedText:
    sections = Sections()
    text = re.sub(r"(?<!\\)%.*", "", text)
    begin = _BEGIN_DOCUMENT.search(text)
    if begin:  # the LaTeX preamble: package and macro definitions, not text
        sections.out.drop(MARKUP, text[: begin.end()])
        text = text[begin.end() :]
    headings = list(LATEX_HEADING.finditer(text))
    # Text before the first heading is the title block / author list in papers: kept
    # only when it reads like prose (an abstract environment is kept anywhere).
    starts = [0] + [h.end() for h in headings]
    ends = [h.start() for h in headings] + [len(text)]
    for i, (start, end) in enumerate(zip(starts, ends)):
        if i > 0:
            heading = headings[i - 1]
            sections.heading(clean_latex(heading.group(2)), _LATEX_LEVEL[heading.group(1)])
        body = text[start:end]
        if sections.dropping:
            sections.out.drop(sections.dropping, body)
            continue
        _latex_section_body(sections, body, preamble=i == 0 and bool(headings))
    return sections.finish()


def _latex_section_body(sections: Sections, body: str, preamble: bool) -> None:
    floats: list[tuple[str, ChunkKind, tuple[str, ...] | None]] = []
    pos = 0
    prose: list[str] = []
    for env in _LATEX_ENV.finditer(body):
        prose.append(body[pos : env.start()])
        pos = env.end()
        name, content = env.group(1).rstrip("*"), env.group(2)
        if name in ("figure", "table"):
            # every caption: a figure of several panels has one per panel
            words = "\n".join(readable_latex(c.group(1)) for c in _CAPTION.finditer(content))
            rest = _CAPTION.sub(" ", content)
            if name == "table":
                words = "\n".join(line for line in (normalise_space(words), *latex_rows(rest)) if line)
            else:  # the figure's graphics and placement: no words a reader sees
                sections.out.drop(MARKUP, rest)
            if words:
                floats.append((words, ChunkKind.table if name == "table" else ChunkKind.caption, None))
        elif name == "abstract":
            floats += [(p.text, ChunkKind.body, ("Abstract",)) for p in _prose_paragraphs(content)]
        elif name == "thebibliography":
            sections.out.drop(REFERENCES, content)
        else:
            # Display maths belongs to the sentence around it, in the prose flow (stripped: no paragraph end)
            prose.append(f" {content.strip()} ")
    prose.append(body[pos:])
    for paragraph in _prose_paragraphs("".join(prose)):
        if preamble and _looks_like_author_list(paragraph.raw):
            sections.out.drop(AUTHORS, paragraph.raw)
        else:
            sections.add(paragraph.text, raw=paragraph.raw)
    for words, kind, section in floats:
        sections.add(words, kind, section)


@dataclass(frozen=True)
class _Prose:
    raw: str
    text: str


def _prose_paragraphs(latex: str) -> list[_Prose]:
    return [_Prose(block, clean) for block in re.split(r"\n\s*\n|\\par\b", latex)
            if (clean := readable_latex(_notes_after_sentences(block)))]


_FOOTNOTE = re.compile(r"\\footnote(?:text)?\s*(?:\[[^\]]*\])?\s*\{")
_ENDS_SENTENCE = re.compile(r"[.!?][\s'\")}]*\Z")


def _notes_after_sentences(latex: str) -> str:
    """The paragraph with each footnote moved to the end of the sentence that marks it, as a
    sentence of its own: run into it ("momentum\\footnote{We use natural units with $\\hbar=c=1$.},
    $p_T$, greater than 20 GeV"), a note's words and numbers read as the sentence's. Braces are
    counted, so a note's own maths and macros stay whole; an unclosed note is left as written."""
    kept: list[str] = []
    notes: list[tuple[int, str]] = []  # (where its mark was in the text without notes, the note)
    pos = at = 0
    for match in _FOOTNOTE.finditer(latex):
        if match.start() < pos:
            continue  # a note inside a note: moved with its outer one
        depth, end = 1, match.end()
        while end < len(latex) and depth:
            depth += {"{": 1, "}": -1}.get(latex[end], 0)
            end += 2 if latex[end] == "\\" else 1
        if depth:
            break
        kept.append(latex[pos:match.start()])
        at += match.start() - pos
        note = latex[match.end():end - 1].strip()
        notes.append((at, note if _ENDS_SENTENCE.search(note) else f"{note}."))
        pos = end
    text = "".join(kept) + latex[pos:]
    for mark, note in reversed(notes):  # from the last: the earlier marks keep their places
        where = mark if _ENDS_SENTENCE.search(text, 0, mark) else sentence_end(text, mark)
        text = f"{text[:where]} {note} {text[where:]}"
    return text


_AFFILIATION = re.compile(r"\$\^\{?[\d,a-z*]{1,8}\}?\$|\\inst\b")
_SENTENCE_END = re.compile(r"[a-z]{2}[.!?](\s|$)")


def _looks_like_author_list(latex: str) -> bool:
    """A title-page block: author/affiliation commands, dense affiliation marks
    ("A. Name$^{1}$, B. Name$^{2}$"), or a collaboration name with hardly a sentence."""
    if re.search(r"\\(author|affil|affiliation|maketitle|title)\b", latex):
        return True
    marks = len(_AFFILIATION.findall(latex))
    if marks >= 3 and marks * 150 >= len(latex):
        return True
    return "Collaboration" in latex[:400] and len(_SENTENCE_END.findall(latex)) < 2
