import pytest

from ingest.chunk.from_text import chunk_text, parse_text
from ingest.chunk.paragraphs import Paragraph, pack_paragraphs
from mitra.core.text import clean_latex, split_sentences, tokenize
from mitra.core.types import ChunkKind, Document
from tests.fixtures.samples import MARKDOWN_PAPER, PLAIN_PAPER


def test_clean_latex_keeps_words_and_particle_names():
    text = r"The \PW boson mass $m_W = 80354 \pm 23\,\mev$~\cite{PDG}. % a comment"
    assert clean_latex(text) == "The W boson mass mW = 80354 +- 23 MeV ."
    assert "tabular" not in clean_latex(r"\begin{tabular}{lcr} a & b \\ \end{tabular}")


def test_a_latex_table_keeps_one_row_a_line_without_its_column_spec():
    """LHCb's 1909.05212: every row of a tabular ran into one line ("… | Value Signal yield | 20 600
    +- 1 600 Combinatorial …") under a column spec read as words ("@ l@ @ r@"), so no cell had a
    row or a column; "\\Kp\\pip\\pim" read as the one word "Kppippim"."""
    latex = (r"\section{Fit} Text. \begin{table}[ht] \centering \caption{Component yields.} \begin{tabular} "
             r"{@{\hspace{0.5cm}}l@{\hspace{0.25cm}} @{\hspace{0.25cm}}r@{\hspace{0.5cm}}} \hline Parameter & Value "
             r"\\ \hline Signal yield & $20\,600 \pm 1\,600$\\ \decay{\Bp}{\Kp\pip\pim} background yield & "
             r"$143 \pm \phantom{0\,0}11$\\ \hline \end{tabular} \end{table}")
    (table,) = [p.text for p in parse_text(latex).paragraphs if p.kind is ChunkKind.table]
    assert table.split("\n") == ["Component yields.", "Parameter | Value", "Signal yield | 20 600 +- 1 600",
                                  "decay Bp Kp pip pim background yield | 143 +- 11"]


def test_the_cells_a_column_spec_joins_are_one_cell():
    """LHCb's 2401.11342: ``l@{$\\,<y^*<\\,$}lr@{$\\,\\pm\\,$}r@{$\\,\\pm\\,$}r`` prints
    "3.25 < y* < 4.00 | 0.57 ± 0.05 ± 0.03" under a header of two cells; read cell by cell,
    the row had five, and its systematic uncertainty, 0.03, was stated as the ratio asked."""
    latex = (r"\section{Ratios} Text. \begin{table}\caption{Forward to backward ratio.}\centering"
             r"\begin{tabular}{@{}l@{$\,<y^*<\,$}lr@{$\,\pm\,$}r@{$\,\pm\,$}r@{}} \toprule"
             r"\multicolumn{2}{c}{$y^*$ interval} & \multicolumn{3}{c}{$R_{\rm FB}$} \\ \midrule"
             r" 3.25 & 4.00 & 0.57 & 0.05 & 0.03 \\ \bottomrule \end{tabular}\end{table}")
    (table,) = [p.text for p in parse_text(latex).paragraphs if p.kind is ChunkKind.table]
    assert table.split("\n")[1:] == ["y* interval | RFB", "3.25 <y*< 4.00 | 0.57 +- 0.05 +- 0.03"]
    # a decimal point and a repeated spec join too; space alone and a spanning cell do not
    decimal = (r"\section{Yields} Text. \begin{table}\begin{tabular}{lr@{.}l*{2}{r@{\,$\pm$\,}l}}"
               r" \multicolumn{3}{c}{Mode} & \multicolumn{2}{c}{A} & \multicolumn{2}{c}{B} \\")
    decimal += r" Kpi & 12 & 34 & 5.1 & 0.2 & 7.3 & 0.4 \\ \end{tabular}\end{table}"
    (table,) = [p.text for p in parse_text(decimal).paragraphs if p.kind is ChunkKind.table]
    assert table.split("\n") == ["Mode | A | B", "Kpi | 12.34 | 5.1 +- 0.2 | 7.3 +- 0.4"]


def test_split_sentences_respects_abbreviations():
    text = "See Fig. 3 and Eq. 2 here. Smith et al. agree. J. Doe disagrees! Then 5 events remain."
    assert split_sentences(text) == [
        "See Fig. 3 and Eq. 2 here.",
        "Smith et al. agree.",
        "J. Doe disagrees!",
        "Then 5 events remain.",
    ]


def test_tokenize_keeps_physics_terms_and_stems():
    tokens = tokenize("The dominant backgrounds are B0 -> K*0 mu mu decays at 13 TeV with pT > 5 GeV")
    assert {"b0", "13", "tev", "pt", "gev", "background"} <= set(tokens)
    assert "the" not in tokens and "are" not in tokens


def test_markdown_sections_and_kinds():
    paragraphs = parse_text(
        "# Selection\nMuons need pT > 20 GeV.\n\n## Trigger\nSingle-muon trigger.\n\n"
        "Table 2: Event yields.\n\n| a | b |\n\n# References\n[1] Someone, 2020."
    ).paragraphs
    assert [(p.section, p.kind) for p in paragraphs] == [
        (("Selection",), ChunkKind.body),
        (("Selection", "Trigger"), ChunkKind.body),
        (("Selection", "Trigger"), ChunkKind.table),
        (("Selection", "Trigger"), ChunkKind.table),
    ]  # the References section is dropped


def test_latex_sections_captions_tables_and_author_list():
    latex = r"""\author{A. One$^{1}$, B. Two$^{2}$, C. Three$^{3}$} \maketitle
\section{Introduction} The $\PW$ mass is measured.

\begin{figure}\includegraphics{f.pdf}\caption{The muon $\pt$ spectrum.}\label{fig:pt}\end{figure}
\subsection{Method} Templates are fitted.
\begin{table}\caption{Systematic uncertainties.}\begin{tabular}{ll} PDF & 9 \\ \end{tabular}\end{table}
\section*{Acknowledgements} We thank the funding agencies."""
    got = [(p.section, p.kind, p.text) for p in parse_text(latex).paragraphs]
    assert got == [
        (("Introduction",), ChunkKind.body, "The W mass is measured."),
        (("Introduction",), ChunkKind.caption, "The muon pT spectrum."),
        (("Introduction", "Method"), ChunkKind.body, "Templates are fitted."),
        (("Introduction", "Method"), ChunkKind.table, "Systematic uncertainties.\nPDF | 9"),
    ]


def test_pack_merges_tiny_and_splits_huge_at_sentences():
    tiny = [Paragraph("Short one.", ("S",)), Paragraph("Short two.", ("S",)), Paragraph("Other section.", ("T",))]
    packed = pack_paragraphs(tiny, min_chars=50, max_chars=200)
    assert [p.text for p in packed] == ["Short one.\nShort two.", "Other section."]

    huge = Paragraph(" ".join(f"Sentence number {i} is here." for i in range(40)), ("S",))
    pieces = pack_paragraphs([huge], min_chars=50, max_chars=200)
    assert len(pieces) > 1 and all(len(p.text) <= 200 for p in pieces)
    assert all(p.text.endswith(".") for p in pieces)
    assert " ".join(p.text for p in pieces) == huge.text


def test_captions_are_never_merged_into_body():
    paragraphs = [Paragraph("Body.", ("S",)), Paragraph("Figure 1: x.", ("S",), ChunkKind.caption)]
    assert len(pack_paragraphs(paragraphs, 100, 500)) == 2


def test_chunk_ids_are_deterministic_and_carry_provenance():
    doc = Document(analysis_id="A", doc_id="note", version="2")
    first = chunk_text(doc, "# Intro\nSome text here.\n\n# Results\nMore text.", 5, 100).chunks
    again = chunk_text(doc, "# Intro\nSome text here.\n\n# Results\nMore text.", 5, 100).chunks
    assert [c.id for c in first] == [c.id for c in again]
    assert first[0].id.startswith("note@2#00000-")
    assert first[1].section == ["Results"] and first[1].analysis_id == "A"
    assert first[1].index_text == "Results\nMore text."


def test_maths_katex_can_draw_is_kept_for_people_and_read_as_words_for_search():
    from mitra.core.text import math_to_words, readable_latex

    latex = r"Muons with $p_{\rm T} > 20$\,GeV and the $\PW$ boson at $\sqrt{s}=13$~TeV. % note"
    shown = readable_latex(latex)
    assert shown == r"Muons with $p_{\rm T} > 20$ GeV and the W boson at $\sqrt{s}=13$ TeV."
    assert math_to_words(shown) == clean_latex(latex)  # search sees exactly what it saw before


def test_latex_chunks_keep_renderable_maths_and_index_its_words():
    doc = Document(analysis_id="A", doc_id="note")
    [chunk] = chunk_text(doc, r"\section{Selection} Events need $p_{\rm T} > 25$~GeV.", 5, 500).chunks
    assert chunk.text == r"Events need $p_{\rm T} > 25$ GeV."
    assert chunk.index_text == "Selection\nEvents need pT > 25 GeV."


def test_latex_display_maths_and_the_where_after_it_stay_one_paragraph():
    """LHCb's "= 0.458 ± 0.010 ± 0.012 ± 0.020,\\end{equation*}\\nwhere the first uncertainty is
    statistical …" had been cut into two chunks, the value in one and what names its
    uncertainties in the other."""
    latex = ("\\section{Fit} Padding to make two paragraphs too long for one chunk. " * 4 + "We find\n"
             "\\begin{equation*}\nR = 0.458 \\pm 0.010 \\pm 0.020,\n\\end{equation*}\n"
             "where the first uncertainty is statistical and the second from the choice of model.")
    chunks = chunk_text(Document(analysis_id="A", doc_id="note"), latex, 5, 400).chunks
    [holder] = [c for c in chunks if "0.458" in c.text]
    assert "the second from the choice of model" in holder.text



def test_a_latex_footnote_follows_the_sentence_it_marks_not_run_into_it():
    """LHCb's "momentum\\footnote{We use natural units where $\\hbar=c=1$.}, $p_T$, greater than 20
    GeV" read as one sentence, and its "= 1" as a value of that sentence. Set after its sentence
    (not after its paragraph), a note stays in the chunk of the sentence it annotates."""
    latex = ("\\section{Detector} Muons need a transverse momentum\\footnote{We use natural units where "
             "$\\hbar=c=1$; see Ref.~\\cite{x} for {\\it details}}, $p_T$, above 20~GeV (see Fig.~3). Then more.\n\n"
             "The next paragraph.\\footnotetext{A note written apart.} Its end.")
    texts = [p.text for p in parse_text(latex, "latex").paragraphs]
    first, note, then = split_sentences(texts[0])
    assert first == "Muons need a transverse momentum, $p_T$ , above 20 GeV (see Fig. 3)."
    assert note.startswith("We use natural units where") and "details" in note and then == "Then more."
    assert texts[1] == "The next paragraph. A note written apart. Its end."


def test_an_unclosed_latex_footnote_is_kept_where_it_is_written():
    [paragraph] = parse_text("\\section{S} Text with a note\\footnote{that never closes.", "latex").paragraphs
    assert paragraph.text == "Text with a note that never closes."

# ---------------------------------------------------------------- formats and coverage
def test_markdown_with_inline_and_display_maths_keeps_every_word():
    doc = Document(analysis_id="A", doc_id="paper")
    result = chunk_text(doc, MARKDOWN_PAPER, 10, 1200)
    assert result.format == "markdown" and result.coverage == 1.0
    sections = [tuple(c.section) for c in result.chunks]
    assert sections[0] == ("1 Introduction",) and ("1 Introduction", "1.1 Data") in sections
    intro = result.chunks[0].text
    # display maths joins its sentence, and "where ..." goes on in the same paragraph
    assert "73.0" in intro and intro.rstrip().endswith("km/s/Mpc.") and "95%" in intro
    kinds = {c.kind for c in result.chunks}
    assert {ChunkKind.caption, ChunkKind.table} <= kinds
    assert not any("Riess" in c.text for c in result.chunks)  # references dropped on purpose
    assert any(c.text.startswith("```python\n# a comment") for c in result.chunks)


def test_plain_text_sections_on_their_own_lines():
    result = chunk_text(Document(analysis_id="A", doc_id="paper"), PLAIN_PAPER, 10, 1200)
    assert result.format == "text" and result.coverage == 1.0
    assert [c.section for c in result.chunks] == [["Introduction"], ["Introduction"], ["Data Collection"],
                                                 ["Data Collection", "2.1 Preprocessing"]]
    assert "80% of it" in result.chunks[0].text  # a bare % is a percent sign, not a comment


def test_format_is_told_by_structure_not_by_maths():
    from ingest.chunk.from_text import detect_format

    assert detect_format(MARKDOWN_PAPER) == "markdown"  # has \begin{aligned}: still Markdown
    assert detect_format(r"\section{Intro} Text with $x$.") == "latex"
    assert detect_format(PLAIN_PAPER) == "text"


def test_a_given_format_is_honoured():
    doc = Document(analysis_id="A", doc_id="paper")
    text = "# Title line\nBody text under it."
    assert chunk_text(doc, text, 1, 500, "markdown").chunks[0].section == ["Title line"]
    as_text = chunk_text(doc, text, 1, 500, "text").chunks
    assert as_text[0].section == [] and "Title line" in as_text[0].text
    with pytest.raises(ValueError, match="unknown text format"):
        chunk_text(doc, text, 1, 500, "html")


def test_coverage_counts_what_reaches_chunks_and_forgives_what_is_dropped_on_purpose():
    from collections import Counter

    from ingest.chunk.coverage import coverage, word_counts

    chunks = chunk_text(Document(analysis_id="A", doc_id="d"), "alpha beta gamma delta", 1, 500).chunks
    source = word_counts(["alpha beta gamma delta epsilon zeta"])
    assert coverage(source, Counter(), chunks, []) == pytest.approx(4 / 6)
    assert coverage(source, word_counts(["epsilon"]), chunks, ["zeta"]) == 1.0


def test_display_maths_with_text_after_it_on_the_line_keeps_that_text():
    from mitra.core.types import Document

    doc = Document(analysis_id="A", doc_id="d", version="1")
    for text in ("# Muon\n\n$$E = mc^2$$ %.\n\n# Muon", "# Muon\n\n$$E = mc^2$$ %. $$E = mc^2$$"):
        chunked = chunk_text(doc, text, 100, 1200)
        assert chunked.coverage == 1.0 and "%" in " ".join(c.text for c in chunked.chunks), text
