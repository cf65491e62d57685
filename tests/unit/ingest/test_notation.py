"""Physics notation in extraction: scripts from geometry, Unicode scripts, letter-like
symbols, Tesseract's misreadings undone, and plot text of a scan kept out of headings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ingest.extract.layout import BlockKind, PageWords, Word, layout_document, layout_page
from ingest.extract.ocr import physics_fixes
from mitra.core.text import tokenize
from tests.unit.ingest.test_layout import HEIGHT, PROSE, WIDTH, line


def ocr_words(text: str) -> list[Word]:
    return [Word(token, 10.0 * i, 100, 10.0 * i + 8, 110, 10) for i, token in enumerate(text.split())]


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("m = 80 365.2 + 2.4 (stat) + 9.6 (syst) MeV", "m = 80 365.2 ± 2.4 (stat) ± 9.6 (syst) MeV"),
        ("yields +2.4 (stat).", "yields ±2.4 (stat)."),
        ("predicts 80 353 + 6 MeV.", "predicts 80 353 ± 6 MeV."),
        ("in steps of 10 MeV within +100 MeV", "in steps of 10 MeV within ±100 MeV"),
        ("in 16.8 fb-! of data", "in 16.8 $fb^{-1}$ of data"),
        ("correspond to 16.8 fb-1.", "correspond to 16.8 $fb^{-1}$."),
        ("16.8 fb-? (13.6 TeV)", "16.8 $fb^{-1}$ (13.6 TeV)"),
        ("of 137 fb~', recorded", "of 137 $fb^{-1}$, recorded"),
        ('and 20.3 fb"! at 8 TeV', "and 20.3 $fb^{-1}$ at 8 TeV"),
        ("of 36.1 + 0.8 fb-1 [9]", "of 36.1 ± 0.8 $fb^{-1}$ [9]"),
        ("at ys = 7 TeV and -/s = 13 TeV", "at √s = 7 TeV and √s = 13 TeV"),
        ("is 125.0 ± 0.4 (stat) + 0.4 (sys) GeV", "is 125.0 ± 0.4 (stat) ± 0.4 (sys) GeV"),
        ("data at Vs = 13.6 TeV", "data at √s = 13.6 TeV"),
        ("118 million W - pv candidates", "118 million W → μν candidates"),
        ("Signal W — pv and Z — yp events", "Signal W → μν and Z → μμ events"),
        ("Z > pp with one muon", "Z → μμ with one muon"),
        ("H > ZZ* — 4€ (€ = e, μ) and 2£2v", "H > ZZ* — 4ℓ (ℓ = e, μ) and 2ℓ2v"),
        ("the H — €€y process", "the H — ℓℓγ process"),
    ],
)
def test_tesseract_misreadings_of_notation_are_undone(read, meant):
    assert " ".join(w.text for w in physics_fixes(ocr_words(read))) == meant


@pytest.mark.parametrize(
    "text",
    [
        "a + b (stat) is the sum",  # a plus sign before a symbol, not a number
        "the Z + 2 jets events",  # a sum of objects, not of measured values
        "N + 1 events",
        "+2.4 −1.3 (stat)",  # an asymmetric uncertainty: the + is right
        "the Vs of each cell",  # no "=" after it
        "signal vs = background",  # versus
        "J/y —> pp events",  # J/ψ → pp̄ exists: left alone
        "W - boson",
        "the fb of",
        "the range myy € [105, 160]",  # ∈, not ℓ
    ],
)
def test_text_that_only_looks_misread_is_left_alone(text):
    assert " ".join(w.text for w in physics_fixes(ocr_words(text))) == text


def scripted(base: str, x: float, baseline: float, scripts: list[tuple[str, float]], size: float = 10.0) -> list[Word]:
    """A word and its scripts, set 0.7 times smaller at the given baseline shifts (stacked)."""
    [word] = line(base, x, baseline, size)
    small = 0.7 * size
    out = [word]
    for text, shift in scripts:
        [script] = line(text, word.x1, baseline + shift, small)
        out.append(script)
    return out


def test_scripts_are_read_from_size_and_baseline():
    y = 200
    row = (line("with", 80, y) + scripted("p", 105, y, [("T", 2.0), ("miss", -4.0)])
           + line("above", 130, y) + line("138", 160, y) + scripted("fb", 180, y, [("−1", -4.0)])
           + line("and a footnote.", 200, y))
    [block] = layout_page(PageWords(1, WIDTH, HEIGHT, tuple(row), "text")).blocks
    assert block.text == "with $p_{T}^{miss}$ above 138 $fb^{-1}$ and a footnote."
    assert {"pt", "miss", "fb", "1"} <= set(tokenize(block.text))


def test_scripts_are_not_guessed_from_ocr_sizes():
    y = 200
    row = line("with", 80, y) + scripted("p", 105, y, [("T", 2.0)]) + line("above the threshold", 130, y)
    [block] = layout_page(PageWords(1, WIDTH, HEIGHT, tuple(row), "ocr")).blocks
    assert block.text == "with p T above the threshold"


def test_unicode_scripts_and_letter_like_symbols_are_kept():
    row = line("W(→ℓν)+jets in 138 fb⁻¹ at ħ = 1, Collaboration¹", 80, 200)
    [block] = layout_page(PageWords(1, WIDTH, HEIGHT, tuple(row), "text")).blocks
    assert block.text == "W(→ℓν)+jets in 138 $fb^{-1}$ at ħ = 1, Collaboration$^{1}$"


def test_tick_labels_between_plot_text_of_a_scan_are_neither_body_nor_heading():
    body = [line(text, 80, 100 + 12.5 * i) for i, text in enumerate(PROSE)]
    # A plot read by OCR: its legend and axis title tagged as plot text (small), the
    # tick labels "35 40 45" at body size in between.
    plot = [line("Nonprompt", 200, 300, 7), line("35 40 45", 150, 330), line("muon p(T) [GeV]", 200, 345, 7)]
    caption = [line("Figure 1: Muon transverse momentum distribution of the selected events.", 80, 370)]
    words = tuple(w for row in body + plot + caption for w in row)
    layout = layout_page(PageWords(1, WIDTH, HEIGHT, words, "ocr"))
    kinds = {b.text: b.kind for b in layout_document([layout]).blocks}
    assert kinds["35 40 45"] is BlockKind.figure


def test_a_line_of_numbers_set_large_is_no_heading():
    body = [line(text, 80, 100 + 12.5 * i) for i, text in enumerate(PROSE)]
    ticks = line("35 40 45", 150, 330, 12, bold=True)
    layout = layout_page(PageWords(1, WIDTH, HEIGHT, tuple(w for row in [*body, ticks] for w in row), "text"))
    kinds = {b.text: b.kind for b in layout_document([layout]).blocks}
    assert kinds["35 40 45"] is not BlockKind.heading


def test_a_glyph_replaced_by_a_fix_keeps_its_box():
    words = ocr_words("at Vs = 13.6 TeV")
    fixed = physics_fixes(words)
    assert fixed[1] == replace(words[1], text="√s")
