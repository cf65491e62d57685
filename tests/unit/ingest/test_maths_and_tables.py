"""The blocks of long maths- and table-heavy converter output that once failed to reach a
chunk (issue 34): a large table whose maths cells were cut mid-cell, an HTML table, the
"where ..." paragraph after an equation that opens a section, and a display equation
whose closing line carries its number. Each reaches its chunk now, and coverage by kind
of block says which kind lost words when one does."""

from __future__ import annotations

from collections import Counter

from ingest.chunk.coverage import coverage_by_kind, word_counts
from ingest.chunk.from_text import chunk_text
from ingest.chunk.paragraphs import Paragraph, pack_paragraphs
from ingest.chunk.tables import html_rows, pipe_rows
from mitra.core.text import math_to_words, tokenize
from mitra.core.types import ChunkKind, Document

DOC = Document(analysis_id="A", doc_id="paper")
PROSE = "We fit the temperature and polarization spectra with the six-parameter model and find good agreement."


def _reached(chunks) -> Counter:
    return Counter(token for c in chunks for token in tokenize(math_to_words(c.text)))


def test_a_large_table_is_split_between_rows_under_its_header_and_its_maths_stays_searchable():
    rows = "\n".join(f"| $\\Omega_b h^2$ row{i} | $0.0{2212 + i}\\pm0.00022$ | $0.02249\\pm 0.00025$ |" for i in range(40))
    text = f"# 1. Results\n\n{PROSE}\n\n| Parameter | TT+lowE | TE+lowE |\n|---|---|---|\n{rows}\n\n{PROSE}\n"
    chunked = chunk_text(DOC, text, 200, 1200)
    tables = [c for c in chunked.chunks if c.kind is ChunkKind.table]
    assert len(tables) >= 3
    for table in tables:  # every part opens on the column names, and holds whole rows
        lines = table.text.split("\n")
        assert lines[0] == "Parameter | TT+lowE | TE+lowE"
        assert all(line.count("$") % 2 == 0 and line.count(" | ") == 2 for line in lines)
    reached = _reached(chunked.chunks)
    assert all(reached[f"0{2212 + i}"] for i in range(40))  # each row's value is a search term
    assert chunked.coverage == 1.0 and chunked.coverage_by_kind["table"]["coverage"] == 1.0


def test_a_pipe_row_is_cut_at_pipes_outside_maths_only():
    assert pipe_rows("| $|V_{cb}|$ | 41.1 \\| 0.5 |\n|---|---|") == "$|V_{cb}|$ | 41.1 \\| 0.5"


def test_an_html_table_in_markdown_is_a_table_and_its_tags_are_markup():
    table = ("<table><tr><th>Parameter</th><th>Value</th></tr>"
             "<tr><td>$\\tau$ reionization</td><td>0.054 &plusmn; 0.007<br>(TT)</td></tr></table>")
    assert html_rows(table) == "Parameter | Value\n$\\tau$ reionization | 0.054 ± 0.007 (TT)"
    chunked = chunk_text(DOC, f"# 1. Results\n\n{PROSE}\n\n{table}\n\n{PROSE}\n", 200, 1200)
    (found,) = [c for c in chunked.chunks if c.kind is ChunkKind.table]
    assert found.text == "Parameter | Value\n$\\tau$ reionization | 0.054 ± 0.007 (TT)"
    assert "td" not in _reached(chunked.chunks) and chunked.dropped["markup"] > 0
    assert chunked.coverage == 1.0


def test_the_paragraph_after_an_equation_that_opens_a_section_or_follows_a_caption_is_kept():
    for before in ("", "Table 1: Priors on the parameters.\n\n"):
        text = (f"# 2. Model\n\n{before}$$\n\\begin{{aligned}} H^2 &= H_0^2 E(z)^2 \\\\ E(z) &= 1 \\end{{aligned}}\n$$\n\n"
                "where E is the dimensionless expansion rate of the flat model.\n")
        chunked = chunk_text(DOC, text, 200, 1200)
        joined = " ".join(c.text for c in chunked.chunks)
        assert "dimensionless expansion rate" in joined, before
        assert chunked.coverage == 1.0, before


def test_an_equation_numbered_after_its_closing_delimiter_does_not_swallow_what_follows():
    paragraphs = "\n\n".join(f"Paragraph {i} on lensing number{i}. {PROSE}" for i in range(12))
    for equation in ("$$\nH(z)^2 = H_0^2 E(z)^2\n$$ (12)", "$$ H(z)^2 = H_0^2 E(z)^2 (12)"):
        text = f"# 1. Model\n\n{PROSE}\n\n{equation}\n\n{paragraphs}\n\n# 2. Data\n\n{PROSE}\n"
        chunked = chunk_text(DOC, text, 200, 1200)
        sections = {c.section[0] for c in chunked.chunks if "Paragraph 11 on lensing" in c.text}
        assert sections == {"1. Model"}, equation  # read as prose in its section, not as maths
        assert ["2. Data"] in [c.section for c in chunked.chunks], equation  # the heading is still a heading


def test_coverage_by_kind_names_the_kind_that_lost_words():
    table = "Parameter | Value\nH0 | 67.4 ± 0.5\nsigma8 | 0.811"
    source = word_counts([f"{PROSE}\n{table}"])
    body_only = chunk_text(DOC, PROSE, 1, 1200).chunks  # the table reached no chunk
    kinds = coverage_by_kind(source, Counter(), body_only, [], [("body", PROSE), ("table", table)])
    assert kinds["body"]["coverage"] == 1.0
    assert kinds["table"]["coverage"] < 0.5 and kinds["table"]["words"] == sum(word_counts([table]).values())
    assert "other" not in kinds
    unread = coverage_by_kind(source, Counter(), body_only, [], [("body", PROSE)])
    assert unread["other"]["coverage"] < 0.5


def test_a_split_pdf_table_repeats_its_column_names_and_its_captions_end_and_loses_no_line():
    """ATLAS's Table 7 (1207.7214) as the text layer gives it: a long caption, whose last line
    the layout cut at "√s", over the column names, then rows. Cut in two, the second part's
    rows were read under no header; now each part opens with the column names."""
    caption = ("Table 7: Characterisation of the excess in the H → ZZ → 4ℓ, H→ γγ and H→ WW → ℓνℓν channels. "
               * 6).strip() + "\nalso given, for the combined | s = 7 TeV and | s = 8 TeV data."
    header = ("Search channel | Dataset | mmax [GeV] | Zl [σ] | E(Zl) [σ] | μˆ(mH = 126 GeV) | "
              "Expected exclusion [GeV] | Observed exclusion [GeV]")
    rows = [f"H→ WW row{i} | 8 TeV | 12{i}.0 | 3.{i} | 1.0 | 1.9 ± 0.{i}" for i in range(30)]
    text = "\n".join([caption, header, *rows])
    parts = pack_paragraphs([Paragraph(text=text, kind=ChunkKind.table)], 200, 1200)
    assert len(parts) >= 2 and parts[0].text.startswith("Table 7: Characterisation")
    for part in parts[1:]:
        assert part.text.split("\n")[:2] == ["also given, for the combined | s = 7 TeV and | s = 8 TeV data.", header]
        assert len(part.text) <= 1200
    lines = [line for part in parts for line in part.text.split("\n")]
    assert all(lines.count(row) == 1 for row in rows) and caption.split("\n")[0] in lines
