"""LaTeX papers rendered as Markdown with LaTeX maths, the way PDF-to-Markdown
converters (Nougat, Marker, MinerU) write them: numbered ``#`` headings, prose with
inline ``$...$`` maths, display equations as ``$$`` blocks on their own lines, figure
captions as "Figure N: ..." paragraphs, tables as pipe tables under "Table N: ...",
citations as ``[N]``. Collaboration macros are spelled out (a converter reads the
rendered page, not the source).

The rules are mechanical, so the gold evidence of the LaTeX questions (matched by
tokens, not characters) finds the same passages in the Markdown.
"""

from __future__ import annotations

import re

from mitra.core.text import clean_latex, readable_latex

_HEADING = re.compile(r"\\(section|subsection|subsubsection)\*?\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_ENV = re.compile(
    r"\\begin\{(figure\*?|table\*?|equation\*?|align\*?|eqnarray\*?|multline\*?|gather\*?)\}(.*?)\\end\{\1\}", re.S
)
_CAPTION = re.compile(r"\\caption\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", re.S)
_TABULAR = re.compile(r"\\begin\{tabular\*?\}(?:\{[^{}]*\})*(.*?)\\end\{tabular\*?\}", re.S)
_CITE = re.compile(r"~?\\cite[pt]?\*?(?:\[[^\]]*\])?\{([^{}]*)\}")
_REF = re.compile(r"~?\\(?:eq)?ref\{[^{}]*\}")
_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3}


def latex_to_markdown(latex: str) -> str:
    text = re.sub(r"(?<!\\)%.*", "", latex)
    text = _REF.sub(" 1", text)
    citations: dict[str, int] = {}
    text = _CITE.sub(lambda m: " [" + ", ".join(str(citations.setdefault(k.strip(), len(citations) + 1))
                                              for k in m.group(1).split(",")) + "]", text)
    counters = [0, 0, 0]
    numbers = {"figure": 0, "table": 0}
    out: list[str] = []
    pos = 0
    tokens = sorted(list(_HEADING.finditer(text)) + list(_ENV.finditer(text)), key=lambda m: m.start())
    for match in tokens:
        if match.start() < pos:  # a heading inside an environment
            continue
        out.extend(_prose(text[pos : match.start()]))
        pos = match.end()
        if match.re is _HEADING:
            level = _LEVEL[match.group(1)]
            counters[level - 1] += 1
            counters[level:] = [0] * (3 - level)
            number = ".".join(str(n) for n in counters[:level])
            out.append(f"{'#' * level} {number} {clean_latex(match.group(2))}")
            continue
        name, body = match.group(1).rstrip("*"), match.group(2)
        if name in numbers:
            numbers[name] += 1
            caption = _CAPTION.search(body)
            words = readable_latex(caption.group(1)) if caption else ""
            out.append(f"{name.capitalize()} {numbers[name]}: {words}".strip())
            tabular = _TABULAR.search(body)
            if name == "table" and tabular:
                out.append(_pipe_table(tabular.group(1)))
        else:
            out.append(_display(body, name))
    out.extend(_prose(text[pos:]))
    return "\n\n".join(block for block in out if block.strip()) + "\n"


def _prose(latex: str) -> list[str]:
    """Paragraphs of prose; display maths inside them (``\\[...\\]``) becomes its own block."""
    blocks = []
    for paragraph in re.split(r"\n\s*\n|\\par\b", latex):
        for i, piece in enumerate(re.split(r"\\\[(.*?)\\\]", paragraph, flags=re.S)):
            if i % 2:
                blocks.append(_display(piece, "equation"))
            elif readable := readable_latex(piece):
                blocks.append(readable)
    return blocks


def _display(body: str, environment: str) -> str:
    body = re.sub(r"\\(label|nonumber|notag)\b(\{[^{}]*\})?", "", body).strip()
    if environment in ("align", "eqnarray", "multline", "gather"):
        body = f"\\begin{{aligned}}\n{body}\n\\end{{aligned}}"
    return f"$$\n{body}\n$$"


def _pipe_table(tabular: str) -> str:
    rows = []
    for row in re.split(r"\\\\", tabular):
        row = re.sub(r"\\(hline|toprule|midrule|bottomrule|cline\{[^{}]*\})", "", row)
        cells = [clean_latex(cell) for cell in row.split("&")]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return ""
    width = rows[0].count("|") - 1
    return "\n".join([rows[0], "|" + "---|" * width, *rows[1:]])
