"""Tables as every reader writes them: one row a line, cells apart by " | ".

PDF, Word, PowerPoint and web tables arrive in that form (``readers.table_block``);
here Markdown's pipe tables, LaTeX's tabular environments and the HTML tables converters
such as MinerU put in their Markdown are brought to it, and a table too long for one
chunk is split between rows, each part under the table's first row (its column names).
Cut anywhere else, a row's maths loses its closing ``$`` and every later cell of that
chunk is read inside out:
``$0.02212\\pm0.00022$`` became the tokens "02212pm" and "00022", so the values could
not be found.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from ingest.chunk.latex_columns import LATEX_ROW_END, join_spec_columns
from mitra.core.text import CELL_OPENS_ON_NUMBER, clean_latex, normalise_space

_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.S | re.I)
_MARKUP = re.compile(r"<[^<>]*>|&(?:#\d+|#x[\da-f]+|[a-z]+\d*);", re.I)  # tags, character references
CELL_SEPARATOR = " | "


def pipe_rows(markdown: str) -> str:
    """A Markdown pipe table as rows of cells (the separator row left out)."""
    rows = []
    for line in markdown.splitlines():
        if line.strip() and not _SEPARATOR.match(line.strip()):
            rows.append(CELL_SEPARATOR.join(_cells(line.strip())))
    return "\n".join(rows)


def latex_rows(latex: str) -> list[str]:
    """A LaTeX table's rows, one a line ("&" read as " | " by ``clean_latex``): cleaned whole,
    its row ends ("\\\\") would fold every row into one line, and no cell's column be known.
    Cells the column spec joins ("r@{$\\pm$}r") are one (``join_spec_columns``)."""
    parts = LATEX_ROW_END.split(join_spec_columns(latex))
    return [row for row in (clean_latex(part) for part in parts) if row.strip(" |")]


def _cells(line: str) -> list[str]:
    """A pipe table row's cells: split at the pipes outside ``$...$`` maths (``$|V_{cb}|$``
    is one cell) that are not escaped."""
    cells, current, maths, i = [], [], False, 0
    while i < len(line):
        char = line[i]
        if char == "\\" and i + 1 < len(line):
            current.append(line[i: i + 2])
            i += 2
            continue
        if char == "$":
            maths = not maths
        if char == "|" and not maths:
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    cells.append("".join(current))
    if line.startswith("|"):
        cells = cells[1:]
    if line.endswith("|") and not line.endswith("\\|") and cells:
        cells = cells[:-1]
    return [normalise_space(cell) for cell in cells]


class _Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            if not self.rows:
                self.rows.append([])
            self.cell = []
        elif tag == "br" and self.cell is not None:
            self.cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(normalise_space("".join(self.cell)))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def html_rows(table: str) -> str:
    """An HTML ``<table>`` as rows of cells (its markup is not text)."""
    parser = _Rows()
    parser.feed(table)
    parser.close()
    return "\n".join(CELL_SEPARATOR.join(row) for row in parser.rows if any(row))


def html_markup(table: str) -> list[str]:
    """The markup of an HTML table (tags, and character references, which read as the
    character), for the report of what was left out on purpose."""
    return _MARKUP.findall(table)


def split_rows(paragraph, max_chars: int, hard_wrap) -> list:
    """A table paragraph longer than ``max_chars`` as parts of whole rows, each part after
    the first opening with the lines above the table's first row of values (its caption's
    last lines and its column names: a row is read by them), as many of them as fit in a
    third of a chunk; a row longer than a chunk is cut between cells (``hard_wrap`` within a
    cell longer than that)."""
    rows = paragraph.text.split("\n")
    lead = next((i for i, row in enumerate(rows) if _states_values(row)), None)
    lead = (1 if len(rows) > 1 else 0) if lead is None else lead  # no row of values: its first line heads it
    heads = rows[:lead]
    while heads and len("\n".join(heads)) > max_chars // 3:
        heads = heads[1:]
    head = "\n".join(heads)
    room = max_chars - len(head) - 1 if head else max_chars
    parts: list[str] = []
    for i, row in enumerate(rows):
        for piece in _row_pieces(row, room, hard_wrap):
            if parts and len(parts[-1]) + 1 + len(piece) <= max_chars:
                parts[-1] += "\n" + piece
            else:
                parts.append(f"{head}\n{piece}" if head and parts and i >= lead else piece)
    return [replace(paragraph, text=part) for part in parts]


def _states_values(row: str) -> bool:
    """Do most of the row's cells after its first open on a number ("125.0", "−0.42", "$0.022")?"""
    cells = row.split(CELL_SEPARATOR)[1:]
    return bool(cells) and 2 * sum(bool(CELL_OPENS_ON_NUMBER.match(c)) for c in cells) >= len(cells)


def has_rows(text: str) -> bool:
    """Rows or cells to split between (a table's caption alone has neither)."""
    return "\n" in text or CELL_SEPARATOR in text


def _row_pieces(row: str, room: int, hard_wrap) -> list[str]:
    if len(row) <= room:
        return [row]
    pieces: list[str] = []
    for cell in row.split(CELL_SEPARATOR):
        for part in hard_wrap(cell, room) if len(cell) > room else [cell]:
            if pieces and len(pieces[-1]) + len(CELL_SEPARATOR) + len(part) <= room:
                pieces[-1] += CELL_SEPARATOR + part
            else:
                pieces.append(part)
    return pieces
