"""The text a LaTeX column spec puts between columns, put back between the cells.

LHCb writes a measurement as three columns joined by the spec, not by the row:
``r@{$\\,\\pm\\,$}r@{$\\,\\pm\\,$}r`` with the row ``0.57 & 0.05 & 0.03`` prints
"0.57 ± 0.05 ± 0.03", and ``l@{$\\,<y^*<\\,$}l`` with ``3.25 & 4.00`` prints
"3.25 < y* < 4.00" (339 of the 3339 tabulars of the 780 LHCb papers join cells with ±). Read
cell by cell, the row was "3.25 | 4.00 | 0.57 | 0.05 | 0.03" under a header of two cells, and
its uncertainties were values of their own. Each such ``@{…}`` (or ``!{…}``) that prints
something other than space joins the two cells it stands between, as the page shows them; a
cell spanning columns (``\\multicolumn``) brings its own spec, so nothing is joined to it.
"""

from __future__ import annotations

import re

_TABULAR = re.compile(r"\\begin\{(tabular[*x]?|array|longtable)\}")
LATEX_ROW_END = re.compile(r"\\\\(?:\s*\[[^\]]*\])?")  # "\\", "\\[2pt]"
_SPANNING = re.compile(r"\s*\\multicolumn\s*\{\s*(\d+)\s*\}")
# What prints as space only: a separator made of these joins nothing.
_SPACING = re.compile(r"\\(?:hspace\*?\s*\{[^{}]*\}|quad|qquad|[,;:! ]|enskip|enspace|thinspace|extracolsep\s*\{[^{}]*\})"
                      r"|[\s$~{}]")
_COLUMN_ARGS = {"p": 1, "m": 1, "b": 1, "w": 2, "W": 2, "D": 3, "P": 1, "M": 1, "B": 1}


def _braced(text: str, i: int) -> tuple[str, int]:
    """The braced argument at ``text[i:]`` (after spaces) and the index after it; ("", i)
    when none opens there."""
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "{":
        return "", i
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{" and (j == 0 or text[j - 1] != "\\"):
            depth += 1
        elif text[j] == "}" and text[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return "", i


def separators(spec: str) -> list[str]:
    """Per column of ``spec``, the text its ``@{…}`` or ``!{…}`` puts after it ("" where none)."""
    after: list[str] = []
    i = 0
    while i < len(spec):
        char = spec[i]
        i += 1
        if char in "@!":
            text, i = _braced(spec, i)
            if after:
                after[-1] += text
        elif char in "<>":
            _, i = _braced(spec, i)
        elif char == "*":
            count, i = _braced(spec, i)
            inner, i = _braced(spec, i)
            repeated = inner * int(count) if count.strip().isdigit() else inner
            spec = spec[:i] + repeated + spec[i:]  # read the copies next
        elif char.isalpha():
            for _ in range(_COLUMN_ARGS.get(char, 0)):
                _, i = _braced(spec, i)
            if i < len(spec) and spec[i] == "[":  # siunitx: S[table-format=2.1]
                i = spec.find("]", i) + 1 or len(spec)
            after.append("")
    return after


def _cells(row: str) -> list[str]:
    """A row's cells: split at the "&" outside braces that are not escaped."""
    cells, depth, start = [], 0, 0
    for j, char in enumerate(row):
        escaped = j > 0 and row[j - 1] == "\\"
        if char == "{" and not escaped:
            depth += 1
        elif char == "}" and not escaped:
            depth -= 1
        elif char == "&" and depth == 0 and not escaped:
            cells.append(row[start:j])
            start = j + 1
    cells.append(row[start:])
    return cells


def _joined(row: str, after: list[str]) -> str:
    cells = _cells(row)
    out = [cells[0]]
    spans = [int(m.group(1)) if (m := _SPANNING.match(c)) else 1 for c in cells]
    column = spans[0] - 1  # the last column the cell just read ends in
    for k in range(1, len(cells)):
        text = after[column] if column < len(after) else ""
        single = spans[k - 1] == 1 and spans[k] == 1
        if single and text and _SPACING.sub("", text):
            out[-1] = f"{out[-1].rstrip()}{text}{cells[k].lstrip()}"
        else:
            out.append(cells[k])
        column += spans[k]
    return "&".join(out)


def join_spec_columns(latex: str) -> str:
    """``latex`` with the cells of each tabular that its spec joins written as one."""
    out, pos = [], 0
    for begin in _TABULAR.finditer(latex):
        if begin.start() < pos:
            continue
        i = begin.end()
        if begin.group(1) in ("tabular*", "tabularx"):
            _, i = _braced(latex, i)  # the width
        spec, body_start = _braced(latex, i)
        end = latex.find(f"\\end{{{begin.group(1)}}}", body_start)
        if end < 0:
            break
        after = separators(spec)
        if any(_SPACING.sub("", text) for text in after):
            pieces = LATEX_ROW_END.split(latex[body_start:end])
            body = "\\\\".join(_joined(piece, after) for piece in pieces)
            out.append(latex[pos:body_start] + body)
            pos = end
    out.append(latex[pos:])
    return "".join(out)
