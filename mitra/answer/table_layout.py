"""A table's layout as a PDF's text layer leaves it: which lines are its rows, and which
column header names each cell.

Rows arrive one a line, cells apart by " | " (``ingest.chunk.tables``), but the layout of
the page is lost in ways that follow a few patterns, each read here:

* a header over two lines ("Event | Total | …" over "category | signal | …") names each
  column by both;
* a header cell holding several columns' names ("ggH VBF Other HWHM", "Expected Observed
  Signal strength") when its row is short of the data rows' cells by just as many: split
  at its words, or at its capitalised words, where exactly one such split fits;
* a header one cell short leaves the row labels' column unnamed ("Exp. | Obs." over
  "VBF+ggF | 0.9 | 1.5");
* a row short of the header whose first cell is a number ("7 TeV | 125.0 | 2.5 …" under
  "Search channel | Dataset | …") had its label spanned from a row above: it starts at the
  header's second column;
* a short line without cells between rows ("2017", "Combined") labels the rows after it;
* a header over pairs of the header below it ("p0 | Significance" over "Exp. | Obs. | Exp. |
  Obs.") spans them; where no header fits the row, the headers name its last cells (ATLAS's
  Table 11: the label's and the signal strength's columns named on lines the text layer
  garbled);
* a header opening on an empty cell ("| Phase space region", "| 2015 | 2016 | 2017 |") stands
  over the data columns from the left: its other cells span them, and a cell it is short of
  is its last (the line's closing separator dropped it);
* a header of years or of consecutive numbers ("Yield | Full | 1 | 2 | 3 | 4") is no row of
  values, nor is a sentence that holds bars ("… region |M(D0 p) − m(Λb)| < 30 MeV …");
* a column empty in every row (a spacer) takes no header's name.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache

from mitra.answer.figures import YEAR, figures
from mitra.answer.qualifiers import SYMBOL_WORDS
from mitra.core.text import CELL_OPENS_ON_NUMBER, tokenize

_CELL = re.compile(r"\s*\|\s*")
# A decimal a PDF's text layer splits after its point: "1. 97+0.71 −0.64" in a cell.
_SPLIT_DECIMAL = re.compile(r"(?<![\d.])(\d{1,3})\. (\d+)(?=\s?[-−+±(]|\s*\Z)")
# A line between rows that labels a group of them: a few words, no sentence.
_GROUP_WORDS = 4
_CAPITALISED = re.compile(r"\s+(?=[A-Z])")
_NO_VALUE = re.compile(r"[-–—−]+")
# A cell opening on a number glued to a word names a column ("3pion neutb", "4ℓ"), like a year,
# or on a year and a word ("2011 sample", "2012 data").
_GLUED = re.compile(rf"\s*\d+[A-Za-z]{{2}}|\s*{YEAR.pattern}\s+[A-Za-z]{{2}}")
# A sentence that holds bars (|V_cb|, |Δm|): prose, not a row of cells.
_SENTENCE_WORDS = 12
_CELL_WORDS = 4


def blocks(text: str) -> list[tuple[bool, list[str]]]:
    """The text's runs of lines: (True, rows) for two or more lines of cells, else (False,
    lines). A short line without cells between two lines of cells is one of the rows."""
    lines = [line for line in text.split("\n") if line.strip()]
    runs: list[tuple[bool, list[str]]] = []
    for i, line in enumerate(lines):
        tabular = ("|" in line and not _sentence(line)) or (
            0 < i < len(lines) - 1 and _group_line(line) and "|" in lines[i - 1] and "|" in lines[i + 1])
        if runs and runs[-1][0] == tabular:
            runs[-1][1].append(line)
        else:
            runs.append((tabular, [line]))
    return [(tabular and len(lines) >= 2, lines) for tabular, lines in runs]


def caption_lines(lines: list[str]) -> list[str]:
    """The prose before a table without the header's fragments the text layer put on lines
    of their own between caption and rows ("Significance", "Channel" under Table 12's caption)."""
    end = len(lines)
    while end > 1 and _group_line(lines[end - 1]):
        end -= 1
    return lines[:end]


def _sentence(line: str) -> bool:
    """A long line ending on a full stop, unless it is three or more short cells (a header's
    "parameter | back. | eff. | fit bias | mass res. | total exp. | model | stat.")."""
    cells = split_cells(line)
    if len(cells) >= 3 and all(len(c.split()) <= _CELL_WORDS for c in cells):
        return False
    return line.rstrip().endswith(".") and len(line.split()) >= _SENTENCE_WORDS


def _group_line(line: str) -> bool:
    return len(line.split()) <= _GROUP_WORDS and not line.rstrip().endswith(".")


def split_cells(line: str) -> list[str]:
    """A row's cells, a decimal the text layer split read whole. A line that opens on the
    separator has an empty first cell (a header over the data columns only: "| signal |
    normalisation" over "trigger | 0.48 | 0.20"); an empty last cell is dropped."""
    line = line.strip()
    cells = _CELL.split(line.strip("|").strip())
    return [_SPLIT_DECIMAL.sub(r"\1.\2", c) for c in ([""] if line.startswith("|") else []) + cells]


def _states_values(row: list[str]) -> bool:
    """Do most of the row's cells after its label open on a number? A header's cells may hold
    one ("μˆ(mH = 126 GeV)"), but do not open on it. An empty cell, or a dash for a value not
    given ("f0 | - | | 0.455 ± 0.057"), counts neither way."""
    cells = [c.strip() for c in row[1:] if c.strip()]
    filled = [c for c in cells if not _NO_VALUE.fullmatch(c)]
    if not filled:  # dashes only: a row of values not given; no cells: no row of values
        return bool(cells)
    numbers = [c for c in filled if CELL_OPENS_ON_NUMBER.match(c) and not _GLUED.match(c)]
    return 2 * len(numbers) >= len(filled) and not _column_names(numbers)


def _column_names(cells: list[str]) -> bool:
    """Are these numbers a header's: years, or a count from 0 or 1 ("1 | 2 | 3 | 4")?"""
    if len(cells) < 2 or not all(c.isdigit() for c in cells):
        return False
    if all(YEAR.fullmatch(c) for c in cells):
        return True
    counted = [int(c) for c in cells]
    return counted[0] in (0, 1) and counted == list(range(counted[0], counted[0] + len(counted)))


@dataclass
class Layout:
    """A table's rows, its header rows, and the group label each row sits under."""

    rows: list[list[str]]
    headers: list[list[str]]
    groups: list[str]  # per row: the label of the group line above it, or ""
    first: int = 0  # the first row of values: the rows above it are the header's

    @classmethod
    def of(cls, lines: list[str]) -> "Layout":
        rows = [split_cells(line) for line in lines]
        first = next((i for i, r in enumerate(rows) if len(r) >= 2 and _states_values(r)), len(rows))
        # the rows of cells above the first row of values: its column names, over one line or more
        headers = [r for r in rows[:first] if len(r) >= 2] if first < len(rows) else []
        widths = Counter(len(r) for r in rows[first:] if len(r) >= 2 and _states_values(r))
        headers = _continued(headers, widths.most_common(1)[0][0]) if widths else headers
        # a row of values that opens on an empty cell had its label spanned from the row above:
        # read as a short row ("| 95.5 | 93.5 ± 0.4" under "DK | 68.3 | 65.1 ± 0.7"); one of a
        # name alone labels the rows below it ("| q2 < 0 constraints")
        rows = rows[:first] + [r[1:] if (len(r) > 2 or not _states_values(r)) and not r[0] else r
                               for r in rows[first:]]
        groups, group = [], ""
        for row in rows:
            if len(row) == 1:
                group = row[0]
            groups.append(group)
        return cls(rows, headers, groups, first)

    def data(self) -> list[tuple[list[str], str]]:
        """The rows that state values, each with its group's label."""
        return [(row, group) for row, group in zip(self.rows[self.first:], self.groups[self.first:]) if len(row) >= 2]

    def columns(self, row: list[str]) -> list[str]:
        """The header naming each of ``row``'s cells ("" where none does); where no header
        has a cell for a column empty in every row (a spacer), laid over the other cells."""
        headers = self._spanned
        named = [_fit(header, row) for header in headers]
        spacers = self._spacers.get(len(row), set())
        if spacers and not any(len(header) == len(row) for header in headers):  # no header names the spacer
            filled = [cell for j, cell in enumerate(row) if j not in spacers]
            named = [None if n is None else _widened(n, spacers) for n in (_fit(h, filled) for h in headers)]
        if all(n is None for n in named):  # no header fits the row: each names its last cells
            named = [_right(header, row) for header in headers]
        return [" ".join(n[j] for n in named if n is not None and n[j]) for j in range(len(row))]

    @cached_property
    def _spanned(self) -> list[list[str]]:  # once a table, not once a row
        return _spanned(self.headers)

    @cached_property
    def _spacers(self) -> dict[int, set[int]]:
        """By row length, the columns empty in every data row ("fperp | 0.209 | | 0.30")."""
        by_length: dict[int, list[list[str]]] = {}
        for row, _ in self.data():
            by_length.setdefault(len(row), []).append(row)
        return {n: {j for j in range(1, n) if all(not row[j].strip() for row in rows)} for n, rows in by_length.items()}


def _continued(headers: list[list[str]], width: int) -> list[list[str]]:
    """A header line that opens on an empty cell under one short of the rows, which together
    name just the rows' cells, is the rest of that line: "Year | p(ππ) [GeV]" over "| Δm [MeV] |
    Γ [MeV] | N sig" names the five cells of "2012 | p < 12 | 185.63 | 1.23 | 3.24". Not one
    that repeats its names: those are sub-columns under the line above ("Requirement | Absolute |
    Relative" over "| D* 3π | D* τν | D* 3π | D* τν")."""
    out: list[list[str]] = []
    for header in headers:
        named = header[1:]
        if (out and not header[0] and len(out[-1]) < width and len(out[-1]) + len(named) == width
                and len(set(named)) == len(named)):
            out[-1] = out[-1] + named
        else:
            out.append(header)
    return out


def _widened(names: list[str], spacers: set[int]) -> list[str]:
    it = iter(names)
    return ["" if j in spacers else next(it) for j in range(len(names) + len(spacers))]


def _spanned(headers: list[list[str]]) -> list[list[str]]:
    """The header rows, one over several columns each widened to span them: "p0 |
    Significance" over "Exp. | Obs. | Exp. | Obs." names the first two p0's and the last two
    the significance's. A row whose cells are all one name is a cell the text layer repeated."""
    out = [list(h) for h in headers]
    for i in range(len(out) - 2, -1, -1):
        upper, lower = out[i], next((h for h in out[i + 1:] if len(set(h)) > 1), None)
        if lower is not None and len(set(upper)) >= 2:
            out[i] = _over(upper, lower) or upper
    return out


def _over(upper: list[str], lower: list[str]) -> list[str] | None:
    """``upper`` widened over the columns of ``lower``, or None where no reading fits."""
    data_span, data_rest = divmod(len(lower) - 1, len(upper) - 1)
    if not upper[0] and not data_rest:  # "| Uncertainty" over "Source | m | Γ | Δ ln L": the data columns
        return [""] + [cell for cell in upper[1:] for _ in range(data_span)]
    span, rest = divmod(len(lower), len(upper))
    if span >= 2 and not rest:
        return [cell for cell in upper for _ in range(span)]
    if len(upper) > 2 and not lower[0] and data_span >= 2 and not data_rest:
        # "Requirement | Absolute | Relative" over "| A | B | A | B": the first names the row labels
        return upper[:1] + [cell for cell in upper[1:] for _ in range(data_span)]
    if not lower[0] and len(runs := _runs(lower[1:])) == len(upper) - 1:
        return upper[:1] + [cell for cell, run in zip(upper[1:], runs) for _ in range(run)]
    return None


def _runs(cells: list[str]) -> list[int]:
    """How many columns each header cell above spans, where the header below names only some
    ("| D* 3π | D* τν" over "| | 3π ν | 3π π0 ν"): an empty cell is a column of its own, a
    run of named cells one cell's columns."""
    runs: list[int] = []
    for j, cell in enumerate(cells):
        if cell and j and cells[j - 1]:
            runs[-1] += 1
        else:
            runs.append(1)
    return runs


def _right(header: list[str], row: list[str]) -> list[str] | None:
    """``header`` over ``row``'s last cells, as a text layer leaves a header short of the row
    labels' column and of a column named on a line of its own; None for a row of one name
    repeated, a header too short to say which columns (fewer than two), or one a cell short
    (``_fit`` reads that, and a header cell that splits two ways names no column)."""
    if len(set(header)) < 2 or not 2 <= len(header) <= len(row) - 2:
        return None
    return [""] * (len(row) - len(header)) + header


def _fit(header: list[str], row: list[str]) -> list[str] | None:
    """``header`` laid over ``row``'s cells, or None where it cannot be."""
    n = len(row)
    if len(header) == n:
        return header
    if len(header) == n - 1 and not header[0]:  # it opens on an empty cell and lost its last one
        return [*header, ""]
    if len(header) > n:  # the row is short: its label spanned from above, or its last cells empty
        start = 1 if figures(row[0]) else 0
        return header[start:start + n] if start + n <= len(header) else None
    splits = []
    for split in (str.split, _CAPITALISED.split):
        for k, cell in enumerate(header):
            parts = [p for p in split(cell) if p]
            widened = header[:k] + parts + header[k + 1:]
            if len(parts) > 1 and len(widened) in (n, n - 1) and widened not in splits:
                splits.append(widened)
    exact = [s for s in splits if len(s) == n]
    if exact:  # several splits that fit: better no header than a wrong one
        return exact[0] if len(exact) == 1 else None
    if len(header) == n - 1:
        return ["", *header]
    short = [s for s in splits if len(s) == n - 1]
    return ["", *short[0]] if len(short) == 1 else None


@lru_cache(maxsize=256)
def _layouts(text: str) -> tuple[Layout, ...]:
    """The layout of each table of ``text``, read once for all its candidates and quotes."""
    return tuple(Layout.of(lines) for table, lines in blocks(text) if table)


def _names(text: str, row: str) -> list[str]:
    """The column names over each cell of table ``row`` of ``text`` ([] for prose)."""
    for layout in _layouts(text):
        for cells, _ in layout.data():
            if " | ".join(cells) == row:
                return layout.columns(cells)
    return []


def header_of(text: str, row: str) -> str:
    """The column names over the table ``row`` (as a value's sentence gives it) of ``text``,
    one per cell, "—" where none names it ("Event category | Total signal | … | HWHM (GeV)
    | …"); "" for prose or a table whose header names none of the row's values."""
    names = _names(text, row)
    return " | ".join(name or "—" for name in names) if any(names[1:]) else ""


# A column named by the symbol physics writes for its quantity ("Γ [MeV]", "Gamma(Λc*)", "m0"),
# not a difference of it ("ΔΓs").
_SYMBOL_COLUMN = re.compile(r"(?:\A|(?<!Delta)(?<!Δ)\s)\\?(Γ|Gamma(?![A-Za-z])|[mM](?=_?0?\s*[(\[]|_?0?\s*\Z))")


def symbol_named(column: str) -> str:
    """``column`` with the word a question uses for its symbol before it ("width Γ [MeV]")."""
    found = _SYMBOL_COLUMN.search(column)
    return f"{SYMBOL_WORDS[tokenize(found.group(1))[0]]} {column}" if found else column
