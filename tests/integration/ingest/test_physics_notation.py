"""Physics notation through the text layer: a born-digital page set in DejaVu Serif with
ℓ, p_T^miss as a real subscript and superscript, ±, fb^-1 and a numbered displayed
equation, extracted and chunked by the real pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.chunk.from_blocks import chunk_document
from ingest.extract.pdf import extract_pdf
from mitra.core.settings import Settings
from mitra.core.text import tokenize
from mitra.core.types import Document

FONTS = Path("/usr/share/fonts/truetype/dejavu")
SETTINGS = Settings(chunk_min_chars=40, chunk_max_chars=600)
BODY, SCRIPT = 11.0, 7.5


def _physics_page(path: Path) -> Path:
    """One page as a typesetter sets it: scripts smaller and off the baseline, and ℓ
    (absent from DejaVu Serif) taken from DejaVu Sans, as LaTeX takes \\ell from its
    maths font. A character its font lacks would be drawn as .notdef and mapped to
    U+0000: lost in the file itself, for any reader."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(TTFont("NotationSerif", str(FONTS / "DejaVuSerif.ttf")))
    pdfmetrics.registerFont(TTFont("NotationSans", str(FONTS / "DejaVuSans.ttf")))
    canvas = Canvas(str(path), pagesize=A4, invariant=1)

    def line(x: float, y: float, parts: list[tuple[str, str]]) -> float:
        """Draws (text, role) parts: role "" body, "sub"/"sup" a script, "stack" a
        superscript over the subscript just drawn, "sans" body text in DejaVu Sans."""
        previous = 0.0
        for text, role in parts:
            font = "NotationSans" if role == "sans" else "NotationSerif"
            size = SCRIPT if role in ("sub", "sup", "stack") else BODY
            shift = {"sub": -2.5, "sup": 4.5, "stack": 4.5}.get(role, 0.0)
            if role == "stack":
                x -= previous
            canvas.setFont(font, size)
            canvas.drawString(x, y + shift, text)
            previous = pdfmetrics.stringWidth(text, font, size)
            x += previous
        return x

    canvas.setFont("NotationSerif", 16)
    canvas.drawString(72, 780, "A search with leptons and missing momentum")
    canvas.setFont("NotationSerif", 13)
    canvas.drawString(72, 740, "1 Introduction")
    line(72, 715, [("The main background is W(→", ""), ("ℓ", "sans"), ("ν)+jets, with p", ""), ("T", "sub"),
                   ("miss", "stack"), (" above 200 GeV.", "")])
    line(72, 699, [("The data amount to 138 fb", ""), ("−1", "sup"), (" and the mass is 80.4 ± 0.2 GeV.", "")])
    line(72, 683, [("The transfer factor between the signal and control regions is defined as", "")])
    # Two lines of symbols and scripts (no word of two letters), numbered between them.
    line(160, 660, [("N", ""), ("SR", "sub"), ("Z→νν", "stack"), ("(i) = R", ""), ("i", "sub"), (" · N", ""),
                    ("CR", "sub"), ("Z→μμ", "stack"), ("(i),", "")])
    line(180, 646, [("R", ""), ("i", "sub"), (" = N", ""), ("MC", "sub"), ("Z→νν", "stack"), ("(i) / N", ""),
                    ("MC", "sub"), ("Z→μμ", "stack"), ("(i),", "")])
    canvas.setFont("NotationSerif", BODY)
    canvas.drawString(500, 653, "(1)")
    line(72, 620, [("where N counts the events in each region, for √s = 13 TeV.", "")])
    canvas.save()
    return path


@pytest.fixture(scope="module")
def physics_pdf(tmp_path_factory) -> Path:
    return _physics_page(tmp_path_factory.mktemp("notation") / "notation.pdf")


@pytest.fixture(scope="module")
def passages(physics_pdf) -> list[str]:
    extracted = extract_pdf(physics_pdf, SETTINGS)
    document = Document(analysis_id="TEST-01", doc_id="NOTATION-01", version="v1")
    return [c.text for c in chunk_document(extracted, document, SETTINGS).chunks]


def test_symbols_and_scripts_survive_the_text_layer(passages):
    text = "\n".join(passages)
    assert "W(→ℓν)+jets" in text  # NFKC would fold ℓ into a plain "l"
    assert "$p_{T}^{miss}$" in text
    assert "fb^{-1}" in text
    assert "80.4 ± 0.2" in text
    assert "√s = 13" in text


def test_the_index_reads_the_scripts_as_words(passages):
    tokens = tokenize("\n".join(passages))
    assert {"pt", "miss", "fb", "1"} <= set(tokens)


def test_a_numbered_equation_stays_with_the_sentence_introducing_it(passages):
    [passage] = [p for p in passages if "(1)" in p]
    assert "defined as $N_{SR}^{Z→νν}$(i) = $R_{i}$ · $N_{CR}^{Z→μμ}$(i)," in passage
    assert "$R_{i}$ = $N_{MC}^{Z→νν}$(i) / $N_{MC}^{Z→μμ}$(i)," in passage and "where N counts" in passage


def test_a_glyph_its_font_lacks_is_reported_not_read_as_a_space(tmp_path):
    """ℓ set in DejaVu Serif, which has no ℓ: the PDF holds .notdef mapped to U+0000.
    The text cannot be recovered; the words around it stay one word."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(TTFont("NotationSerif", str(FONTS / "DejaVuSerif.ttf")))
    path = tmp_path / "notdef.pdf"
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setFont("NotationSerif", BODY)
    canvas.drawString(72, 700, "The main background is W(→ℓν)+jets in the signal region.")
    canvas.save()
    extracted = extract_pdf(path, SETTINGS)
    assert "W(→ν)+jets" in " ".join(b.text for b in extracted.blocks)
    assert any("no character" in w and "p.1" in w for w in extracted.warnings)


def test_the_demo_keeps_its_notation_and_its_equation_with_the_passage(demo_corpus):
    """What a member saw in the demo: "W(→ ν)+jets", "p T miss", and "R = SR Z→νν i CR
    Z→μμ i (1)" cut from the passage introducing it."""
    path = demo_corpus.path(demo_corpus.document("EXO-24-003", "PAS-EXO-24-003", "v1"))
    document = Document(analysis_id="EXO-24-003", doc_id="PAS-EXO-24-003", version="v1")
    passages = [c.text for c in chunk_document(extract_pdf(path, SETTINGS), document, SETTINGS).chunks]
    text = "\n".join(passages)
    assert "W(→ℓν)+jets" in text and "$p_{T}^{miss}$" in text
    [passage] = [p for p in passages if "transfer factors computed from simulation" in p]
    assert "$N_{SR}^{Z→νν}$(i) = $R_{i}$ · $N_{CR}^{Z→μμ}$(i)" in passage
    assert "$N_{MC}^{Z→νν}$(i) / $N_{MC}^{Z→μμ}$(i), and similarly" in passage


@pytest.mark.slow
def test_ell_of_tex_maths_italic_without_a_character_map(hep_pdfs):
    """CMMI10 has no ToUnicode map in this paper: PDFium gives ℓ's code, 0x60 ("`")."""
    extracted = extract_pdf(hep_pdfs / "1806.00425v2.pdf", SETTINGS, pages=[2])
    assert "→ 4ℓ (ℓ = e, μ)" in " ".join(b.text for b in extracted.blocks)
