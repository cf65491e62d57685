"""Layout rules on words placed by hand: every rule seen in isolation, no PDF needed."""

from __future__ import annotations

from ingest.chunk.from_blocks import paragraphs_from_blocks
from ingest.extract.layout import (
    BlockKind,
    Graphic,
    PageWords,
    Word,
    figure_regions,
    find_gutter,
    join_lines,
    layout_document,
    layout_page,
    split_line_numbers,
)

WIDTH, HEIGHT = 595.0, 842.0


def line(text: str, x: float, baseline: float, size: float = 10.0, bold: bool = False) -> list[Word]:
    """Words of one text line, set at 0.5 em per character with 0.3 em spaces."""
    words, pos = [], x
    for token in text.split():
        end = pos + 0.5 * size * len(token)
        words.append(Word(token, pos, baseline - 0.8 * size, end, baseline + 0.2 * size, size, bold, baseline))
        pos = end + 0.3 * size
    return words


def page(*rows: list[Word], number: int = 1, graphics: tuple[Graphic, ...] = ()) -> PageWords:
    return PageWords(number, WIDTH, HEIGHT, tuple(w for row in rows for w in row), "text", graphics)


def texts(blocks, kind=BlockKind.body) -> list[str]:
    return [b.text for b in blocks if b.kind is kind]


PROSE = [
    "The calibration of the muon momentum scale relies on the Z boson",
    "mass peak, which is known to a precision far better than the one",
    "reached by the detector, and on the narrow J/psi resonance at low",
    "momentum where the multiple scattering dominates the resolution.",
]


def test_margin_line_numbers_are_removed_even_when_glued_to_the_text():
    rows = []
    for i, text in enumerate(PROSE * 2):
        # The number sits 12 pt left of the text: a text layer may read "17 The calibration".
        rows.append(line(str(17 + i), 62, 100 + 12.5 * i, 7) + line(text, 80, 100 + 12.5 * i))
    kept, numbers = split_line_numbers([w for row in rows for w in row])
    assert [w.text for w in numbers] == [str(n) for n in range(17, 25)]
    assert not any(w.text.isdigit() for w in kept)


def test_integers_inside_the_text_are_not_line_numbers():
    # A numbered list and a table's index column count up too, but sit at the text's edge.
    rows = [line(f"{i} item of a numbered list with several words", 80, 100 + 12.5 * i) for i in range(1, 7)]
    kept, numbers = split_line_numbers([w for row in rows for w in row])
    assert numbers == [] and len(kept) == sum(len(r) for r in rows)


def test_two_columns_are_read_left_then_right_with_full_width_blocks_in_place():
    title = line("A full width title of the page", 150, 80, 16, bold=True)
    left = [line(f"left column text line {i} with words", 60, 130 + 12.5 * i) for i in range(25)]
    right = [line(f"right column text line {i} with words", 315, 130 + 12.5 * i) for i in range(25)]
    caption = line("Figure 1: A caption set across both columns of the page to close it.", 60, 470)
    below_left = [line(f"more left text line {i} after the figure", 60, 500 + 12.5 * i) for i in range(10)]
    below_right = [line(f"more right text line {i} after the figure", 315, 500 + 12.5 * i) for i in range(10)]
    words = page(title, *left, *right, caption, *below_left, *below_right)
    assert find_gutter(words.words, WIDTH) is not None
    order = [b.text.split()[0] for b in layout_page(words).blocks]
    assert order == ["A", "left", "right", "Figure", "more", "more"]
    blocks = layout_page(words).blocks
    assert blocks[4].text.startswith("more left") and blocks[5].text.startswith("more right")


def test_a_single_column_page_has_no_gutter():
    rows = [line(PROSE[i % 4], 80, 100 + 12.5 * i) for i in range(30)]
    assert find_gutter([w for r in rows for w in r], WIDTH) is None


def test_paragraphs_split_at_indents_and_short_last_lines_and_hyphens_are_joined():
    rows = [
        line("The first paragraph starts here and runs over the full measure of", 80, 100),
        line("the column until it ends on a short last line.", 80, 112.5),
        line("An indented second paragraph follows directly below the first", 95, 125),
        line("one with no extra space, and its words are cali-", 80, 137.5),
        line("brated to the column width.", 80, 150),
    ]
    blocks = texts(layout_page(page(*rows)).blocks)
    assert len(blocks) == 2
    assert blocks[1].endswith("its words are calibrated to the column width.")
    assert join_lines(["proton-", "proton collisions"]) == "proton-proton collisions"


def test_aligned_cells_make_a_table_and_its_caption_joins_it():
    rows = [line("Table 2: Yields per category.", 80, 100)]
    for i, (a, b, c) in enumerate([("Category", "Signal", "Background"), ("ggH", "312", "1.4e5"), ("VBF", "21.4", "418")]):
        y = 120 + 13 * i
        rows.append(line(a, 90, y) + line(b, 230, y) + line(c, 330, y))
    rows.append(line("A paragraph after the table goes on with ordinary running text.", 80, 190))
    blocks = layout_page(page(*rows)).blocks
    table = next(b for b in blocks if b.kind is BlockKind.table)
    assert table.text.splitlines() == [
        "Table 2: Yields per category.",
        "Category | Signal | Background",
        "ggH | 312 | 1.4e5",
        "VBF | 21.4 | 418",
    ]
    assert texts(blocks) == ["A paragraph after the table goes on with ordinary running text."]


def test_figure_text_captions_equations_and_page_numbers_are_tagged():
    plot = (
        Graphic((150, 100, 450, 300), "line"),
        Graphic((150, 120, 450, 280), "curve"),
    )
    rows = [
        line("Events", 110, 200, 7),  # axis title beside the frame
        line("80 90 100", 160, 312, 7),  # tick labels under the frame
        line("Figure 3: Invariant mass of the selected pairs.", 80, 340, 9),
        line("σ = N / (ε L) (4)", 220, 380),
        line("– 7 –", 285, 800, 9),
        *[line(text, 80, 420 + 12.5 * i) for i, text in enumerate(PROSE)],
    ]
    blocks = layout_page(page(*rows, graphics=plot)).blocks
    kinds = {b.text: b.kind for b in blocks}
    assert kinds["Figure 3: Invariant mass of the selected pairs."] is BlockKind.caption
    assert kinds["σ = N / (ε L) (4)"] is BlockKind.equation
    assert kinds["– 7 –"] is BlockKind.page_number
    assert kinds["Events"] is BlockKind.figure and kinds["80 90 100"] is BlockKind.figure


def test_a_ruled_table_is_not_taken_for_a_figure():
    rules = tuple(Graphic((100, y, 400, y + 0.5), "line") for y in (100, 115, 200))
    borders = tuple(Graphic((x, 115 + 14 * i, x + 0.5, 129 + 14 * i), "line") for x in (100, 250, 400) for i in range(5))
    assert figure_regions(rules + borders, WIDTH, HEIGHT) == []
    ticks = tuple(Graphic((100 + 10 * i, 300, 100.5 + 10 * i, 305), "line") for i in range(10))
    assert len(figure_regions(rules + ticks + (Graphic((100, 200, 200, 300), "line"),), WIDTH, HEIGHT)) == 1


def _document(pages_rows: list[list[list[Word]]]):
    return layout_document([layout_page(page(*rows, number=n)) for n, rows in enumerate(pages_rows, 1)])


def test_running_headers_headings_title_abstract_and_references():
    def furniture(n: int) -> list[list[Word]]:
        return [line("ORION internal note HIG-24-001 draft", 80, 40, 8), line(f"Page {n} of 3", 270, 810, 8)]

    first = furniture(1) + [
        line("Search for a new boson", 150, 100, 18, bold=True),
        line("A. Okafor, L. Brandt, M. Ishikawa", 180, 130),
        line("Abstract", 80, 170, 11, bold=True),
        line("We search for a new boson in the dimuon final state and find none.", 80, 190),
        line("1 Introduction", 80, 230, 13, bold=True),
        line("The introduction explains why the search is interesting to do now.", 80, 250),
    ]
    second = furniture(2) + [
        line("1.1 Motivation", 80, 100, 11, bold=True),
        line("A subsection with its own paragraph of running text in it.", 80, 120),
        line("References", 80, 160, 13, bold=True),
        line("[1] J. Doe, A previous search, Phys. Lett. B 1 (2020) 1.", 80, 180, 9),
    ]
    third = furniture(3) + [line("[2] R. Roe, Another search, JHEP 2 (2021) 2.", 80, 100, 9)]
    doc = _document([first, second, third])
    assert doc.title == "Search for a new boson"
    assert doc.abstract == "We search for a new boson in the dimuon final state and find none."
    kinds = [(b.kind, b.text) for b in doc.blocks]
    assert sum(k is BlockKind.header for k, _ in kinds) == 3
    assert sum(k is BlockKind.page_number for k, _ in kinds) == 3
    assert (BlockKind.author_list, "A. Okafor, L. Brandt, M. Ishikawa") in kinds
    headings = [(b.text, b.level) for b in doc.blocks if b.kind is BlockKind.heading]
    assert headings == [("Abstract", 1), ("1 Introduction", 1), ("1.1 Motivation", 2)]
    assert [t for k, t in kinds if k is BlockKind.references][1:] == [
        "[1] J. Doe, A previous search, Phys. Lett. B 1 (2020) 1.",
        "[2] R. Roe, Another search, JHEP 2 (2021) 2.",
    ]
    # what the chunker leaves out of such a page, by kind, for the report of text dropped on purpose
    assert {kind for kind, _ in paragraphs_from_blocks(doc.blocks).dropped} == {
        "title", "author list", "page furniture", "references"}
