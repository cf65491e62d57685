"""Table layouts a PDF's text layer leaves, read so each cell has its column's header
(issue 46: table cells were the weakest values). On tables of CMS H→μμ (2009.04363), ATLAS
VH(bb) 2017 (1808.08242) and ATLAS's discovery paper (1207.7214)."""

from __future__ import annotations

import re

from mitra.answer.asked import Asked
from mitra.answer.candidates import candidates
from mitra.answer.quantities import mentions
from mitra.answer.table_layout import Layout, blocks, header_of
from mitra.core.types import Chunk, ChunkKind, Hit
from tests.unit.answer.test_values import _ranked

CMS_TABLE_4 = (
    "Table 4: The total expected number of signal events, the HWHM of the signal peak, and the observation in data "
    "within ± HWHM, for each of the optimized ggH event categories.\n"
    "Event | Total | ggH VBF Other HWHM | Bkg. | Data | S/(S+B) (%) | S/ √ B\n"
    "category | signal | (%) | (%) | (%) | (GeV) | @HWHM @HWHM | @HWHM | @HWHM\n"
    "ggH-cat1 | 268 | 93.7 | 2.9 | 3.4 | 2.12 | 86 360 | 86 632 | 0.20 | 0.60\n"
    "ggH-cat4 | 126 | 91.5 | 5.5 | 3.0 | 1.47 | 8260 | 8377 | 1.03 | 0.96")
VH_2017 = (
    "Table 2: Expected and observed significances, in σ, and observed signal strengths for the VH production "
    "process with H → bb.\nSignificance (σ)\nData set | Expected Observed Signal strength\n2017\n"
    "0-lepton | 1.9 | 1.3 | 0.73 ± 0.65\n1-lepton | 1.8 | 2.6 | 1.32 ± 0.55\nCombined\nRun 2 | 4.2 | 4.4 | 1.06 ± 0.26")
ATLAS_TABLE_7 = (
    "Search channel | Dataset | mmax [GeV] | Zl [σ] | E(Zl) [σ] | μˆ(mH = 126 GeV) | Expected exclusion [GeV] | "
    "Observed exclusion [GeV]\n"
    "7 TeV | 125.0 | 2.5 | 1.6 | 1.4 ± 1.1\n"
    "H → ZZ → 4ℓ | 8 TeV | 125.5 | 2.6 | 2.1 | 1.1 ± 0.8")


def _table(text: str) -> Layout:
    (lines,) = [lines for table, lines in blocks(text) if table]
    return Layout.of(lines)


def _table_hit(text: str, section: str) -> Hit:
    return Hit(chunk=Chunk(id="t", analysis_id="A", doc_id="D", version="1", position=0, kind=ChunkKind.table,
                           section=[section], text=text), scores={"hybrid": 1.0})


def _column_of(layout: Layout, label: str, cell: str) -> str:
    row = next(row for row, _ in layout.data() if row[0] == label)
    return layout.columns(row)[row.index(cell)]


def test_a_header_over_two_lines_with_a_cell_holding_four_columns_names_each_column():
    layout = _table(CMS_TABLE_4)
    assert _column_of(layout, "ggH-cat4", "1.47") == "HWHM (GeV)"
    assert _column_of(layout, "ggH-cat1", "86 632") == "Data @HWHM"
    assert _column_of(layout, "ggH-cat1", "2.9") == "VBF (%)"
    (cell,) = [m for m in mentions(CMS_TABLE_4) if m.written.startswith("1.47")]
    assert cell.unit == "GeV" and "hwhm" in cell.words


def test_a_header_cell_of_capitalised_names_splits_and_a_line_between_rows_labels_a_group():
    layout = _table(VH_2017)
    assert _column_of(layout, "1-lepton", "2.6") == "Observed"
    assert _column_of(layout, "1-lepton", "1.32 ± 0.55") == "Signal strength"
    assert dict((row[0], group) for row, group in layout.data()) == {
        "0-lepton": "2017", "1-lepton": "2017", "Run 2": "Combined"}


def test_a_row_whose_label_spans_from_above_starts_at_the_headers_second_column():
    layout = _table(ATLAS_TABLE_7)
    assert _column_of(layout, "7 TeV", "1.6") == "E(Zl) [σ]"
    assert _column_of(layout, "H → ZZ → 4ℓ", "2.1") == "E(Zl) [σ]"


def test_a_header_cell_that_splits_two_ways_names_no_column():
    layout = _table("Channel | Exp sig | Obs sig\nVH | 5.1 | 4.9 | 0.2\nttH | 1.9 | 1.9 | 0.1")
    assert layout.columns(["VH", "5.1", "4.9", "0.2"]) == ["", "", "", ""]


def test_the_observed_significance_of_a_channel_is_read_from_its_column():
    hit = _table_hit(VH_2017, "Results")
    ranked = candidates(Asked.read("What significance is observed in the 1-lepton channel in 2017?"), [hit])
    assert ranked[0].mention.written == "2.6"


def test_how_many_events_within_a_width_asks_a_count_and_an_acronym_stands_for_its_words():
    asked = Asked.read("How many data events fall within the signal half-width at half-maximum in ggH-cat1?")
    assert asked.kind == "count" and asked.acronyms["hwhm"] == {"half", "width", "maximum"}
    assert "wih" not in Asked.read("What is the jet energy scale uncertainty?").acronyms


def test_the_header_shown_over_a_quoted_row_names_its_cells_one_by_one():
    row = "ggH-cat4 | 126 | 91.5 | 5.5 | 3.0 | 1.47 | 8260 | 8377 | 1.03 | 0.96"
    assert header_of(CMS_TABLE_4, row) == ("Event category | Total signal | ggH (%) | VBF (%) | Other (%) | "
                                           "HWHM (GeV) | Bkg. @HWHM | Data @HWHM | S/(S+B) (%) @HWHM | S/ √ B @HWHM")
    assert header_of("An excess of 5.0 σ is seen.", "An excess of 5.0 σ is seen.") == ""


def test_the_model_reads_each_table_cell_with_its_column_name():
    """A row alone does not say what its cells are: the choice prompt names each cell's column."""
    from mitra.answer.choose import choice_messages

    hit = _table_hit(CMS_TABLE_4, "7 The ggH production category")
    asked = Asked.read("What is the half-width at half-maximum of the signal peak in ggH category 4?")
    ranked = candidates(asked, [hit])
    content = choice_messages(asked, ranked)[1].content
    line = next(line for line in content.split("\n") if "⟦1.47⟧" in line)
    assert re.search(r"⟦1\.47⟧ [^·]*column: HWHM \(GeV\) · ", line) and line.count("ggH-cat4") == 1  # once, each cell named


def test_an_unnamed_column_reads_as_a_dash_over_a_quoted_row():
    text = "Exp. | Obs.\nVBF+ggF | 0.9 | 1.5\nttH | 1.9 | 1.9"
    assert header_of(text, "VBF+ggF | 0.9 | 1.5") == "— | Exp. | Obs."


def test_a_caption_naming_two_kinds_of_uncertainty_labels_no_cell_with_both():
    """ATLAS VH(bb)'s Table 11 ("Measured signal strengths with their combined statistical and
    systematic uncertainties, … significance values"): every cell, significances included,
    was shown to the model as "(statistical systematic …)"."""
    table = ("Table 11: Measured signal strengths with their combined statistical and systematic uncertainties "
             "and significance values.\nChannel | Signal strength | Significance\n"
             "0-lepton | 1.04 ± 0.33 | 3.3\nVH, H → bb combination | 1.16 ± 0.26 | 4.9")
    (cell,) = [m for m in mentions(table) if m.written == "4.9"]
    assert not {"statistical", "systematic"} & cell.qualifiers.get("uncertainty", frozenset())


def test_a_background_normalisation_is_read_from_its_row_under_a_caption_of_combined_uncertainties():
    """ATLAS VH(bb)'s Table 8: "The errors represent the combined statistical and systematic
    uncertainties" read as the channel "combined", which the analysis's H → bb contradicted,
    so no cell was a candidate; and "tt 2-lepton 2-jet" counted the question's "2-jet" twice."""
    table = ("Table 8: Factors applied to the nominal normalisations of the tt, W + HF and Z + HF backgrounds. "
             "The errors represent the combined statistical and systematic uncertainties.\n"
             "Process | Normalisation factor\ntt 2-lepton 2-jet | 1.06 ± 0.09\nW + HF 2-jet | 1.19 ± 0.12\n"
             "Z + HF 2-jet | 1.37 ± 0.11\nZ + HF 3-jet | 1.09 ± 0.09")
    hit = _table_hit(table, "Statistical analysis")
    asked = Asked.read("What normalisation factor does the fit give to the Z+HF background in the 2-jet category?",
                       "Observation of H → bb decays and VH production with the ATLAS detector")
    ranked = candidates(asked, [hit])
    assert ranked[0].mention.written == "1.37"
    tt = next(c for c in ranked if c.mention.written == "1.06")
    assert tt.signals["setting"] == 1.0


def test_a_caption_reaches_the_cells_over_header_fragments_on_lines_of_their_own():
    """ATLAS VH(bb)'s Table 12: "Significance" and "Channel" stood on lines of their own between
    the caption and the rows, and were read as the caption, so no cell was H → bb's."""
    table = ("Table 12: Expected and observed significance values (in standard deviations) for the H → bb channels "
             "fitted independently and their combination using the 7 TeV, 8 TeV and 13 TeV data.\nSignificance\n"
             "Channel\nExp. | Obs.\nVBF+ggF | 0.9 | 1.5\nttH | 1.9 | 1.9\nVH | 5.1 | 4.9")
    (cell,) = [m for m in mentions(table) if m.written == "1.5"]
    assert "bb" in cell.qualifiers["channel"]


def test_a_row_named_by_an_index_glued_on_is_the_row_a_question_numbers():
    """"ggH category 4" is the row "ggH-cat4": its glued 4 had read as no number, so its own cells
    counted against it (the question's 4 was not in its row) and the demo model answered
    category 3's HWHM with no warning."""
    cat3 = CMS_TABLE_4.replace("ggH-cat1 | 268 | 93.7 | 2.9 | 3.4 | 2.12 | 86 360 | 86 632 | 0.20 | 0.60",
                               "ggH-cat3 | 131 | 93.2 | 4.0 | 2.8 | 1.60 | 12 660 | 12 738 | 0.70 | 0.80")
    hit = _table_hit(cat3, "7 The ggH production category")
    ranked = candidates(Asked.read("What is the half-width at half-maximum of the signal peak in ggH category 4?"),
                        [hit])
    assert ranked[0].mention.written == "1.47" and ranked[0].signals["setting"] == 1.0
    assert next(c for c in ranked if c.mention.written == "1.60").signals["setting"] == -1.0


# ATLAS VH(bb) (1808.08238), Table 11 as its text layer reads: three header lines, the last
# two cells over each of the last four columns, the label's and μ's columns unnamed
ATLAS_TABLE_11 = (
    "Table 11: Measured signal strengths, expected and observed p0 and significance values (in standard "
    "deviations), using 13 TeV data.\n"
    "p0 | Significance\nSignal strength | Signal strength\nExp. | Obs. | Exp. | Obs.\n"
    "1-lepton | 1.09-0.42+0.46 | 8.7 · 10-3 | 4.9 · 10-3 | 2.4 | 2.6\n"
    "VH, H → bb combination | 1.16-0.25+0.27 | 7.3 · 10-6 | 5.3 · 10-7 | 4.3 | 4.9")


def test_a_header_over_pairs_spans_them_and_short_headers_name_the_last_cells():
    layout = _table(ATLAS_TABLE_11)
    row = ["VH, H → bb combination", "1.16-0.25+0.27", "7.3 · 10-6", "5.3 · 10-7", "4.3", "4.9"]
    assert layout.columns(row) == ["", "", "p0 Exp.", "p0 Obs.", "Significance Exp.", "Significance Obs."]


def test_the_observed_significance_of_a_row_is_not_a_p_value_of_another():
    """4.9 in the combination's row is the observed significance; 4.9 · 10-3 in the 1-lepton
    row is a p-value, whose qualifiers it had taken (and lost the question's channel)."""
    read = {(m.written, m.power): m for m in mentions(ATLAS_TABLE_11) if m.sentence.startswith("VH")}
    assert read[("4.9", None)].qualifiers["measure"] == {"observed"}
    passage = _table_hit(ATLAS_TABLE_11, "Results")
    asked = Asked.read("How significant is the VH, H→bb excess in the ATLAS 13 TeV data?",
                       "Observation of H → bb decays and VH production with the ATLAS detector")
    assert candidates(asked, [passage])[0].mention.written == "4.9"


def test_a_row_need_not_repeat_what_the_title_names():
    """ATLAS VH(bb) (1808.08238), Table 9: "Systematic | 0.203" is the systematic uncertainty
    on the VH(bb) signal strength, though the row names neither VH nor bb: the title does."""
    text = ("Table 9: Breakdown of the contributions to the uncertainty in μ.\nSource of uncertainty | σμ\n"
            "Total | 0.259\nStatistical | 0.161\nSystematic | 0.203\nLuminosity | 0.023")
    passage = _table_hit(text, "Results")
    asked = Asked.read("What is the total systematic uncertainty on the VH(bb) signal strength?",
                       "Observation of H → bb decays and VH production with the ATLAS detector")
    found = next(c for c in candidates(asked, [passage]) if c.mention.written == "0.203")
    assert (found.signals["left out"], found.signals["default"]) == (0.0, 0.0)
    assert candidates(asked, [passage])[0].mention.written == "0.203"


# LHCb's efficiency tables (1711.02505) and external inputs (2312.09102), as the LaTeX reader writes them: a
# header row that opens on an empty cell, a dash for a value not given, an empty column between.
EFFICIENCIES = (
    "Efficiencies at each step.\nRequirement | Absolute efficiencies (%) | Relative efficiencies (%)\n"
    "| signal | normalisation | signal | normalisation\n"
    "trigger | 0.48 | 0.20 | 86.3 | 65.1\nvertex selection | 0.27 | 0.080 | 55.8 | 39.8")
EXTERNAL_INPUTS = (
    "Summary of external inputs.\nParameter | B0 -> J/psi K*0 | | B0 -> psi(2S) K*0\n"
    "f0 | - | | 0.455 ± 0.057\nfperp | 0.209 ± 0.005 | | 0.30 ± 0.06")


def test_a_header_that_opens_on_an_empty_cell_sits_under_the_header_that_spans_it():
    layout = _table(EFFICIENCIES)
    assert _column_of(layout, "vertex selection", "0.080") == "Absolute efficiencies (%) normalisation"
    assert _column_of(layout, "vertex selection", "55.8") == "Relative efficiencies (%) signal"


def test_a_dash_for_a_value_not_given_leaves_its_row_a_row_of_values():
    layout = _table(EXTERNAL_INPUTS)
    assert [row[0] for row in layout.headers] == ["Parameter"]
    assert _column_of(layout, "fperp", "0.30 ± 0.06") == "B0 -> psi(2S) K*0"


def test_a_row_of_values_opening_on_an_empty_cell_is_read_as_a_row_whose_label_spans_from_above():
    layout = _table("Coverage.\n| eta [%] | alpha (profile likelihood) [%] | alpha (plugin) [%]\n"
                    "DK | 68.3 | 65.1 ± 0.7 | 67.1 ± 0.7\n| 95.5 | 93.5 ± 0.4 | 94.3 ± 0.3")
    assert _column_of(layout, "95.5", "93.5 ± 0.4") == "alpha (profile likelihood) [%]"


# LHCb tables as LaTeX-to-text leaves them (issue 46: a table's value was in the top four for 17
# of 28 development questions, against 164 of 189 in prose).
LB_REGIONS = (  # 1701.07873, Table 1: a caption holding |…| bars, regions numbered 1-4
    "Results of the fits to the lbdnppi mass distribution in the four phase space regions used in the amplitude "
    "fits, as well as for the amplitude fit region |M(dnppi)-m(Lb)|<30 MeV (``box''), are reported.\n"
    "| Phase space region\nYield | Full | 1 | 2 | 3 | 4\n"
    "lbdnppi | 11 212 +- 126 | 2 250 +- 61 | 1 674 +- 46 | 3 141 +- 63 | 4 750 +- 79\n"
    "Combinatorial | 14 024 +- 224 | 4 924 +- 132 | 968 +- 78 | 2 095 +- 96 | 4 188 +- 127")
L0_THRESHOLDS = (  # 1812.10790, Table 1: years under the thresholds, the header's last cell empty
    "lz trigger | ET / pT threshold | spd threshold\n| 2015 | 2016 | 2017 |\n"
    "Hadron | >3.6 GeV | >3.7 GeV | >3.46 GeV | <450\nMuon | >2.8 GeV | >1.8 GeV | >1.35 GeV | <450")
LC_SYSTEMATICS = (  # 1701.07873, Table 3: "| Uncertainty" over the data columns, units on a line of their own
    "| Uncertainty\nSource | m(Lcst) | Gamma(Lcst) | Delta ln L\n| [ MeV ] | [ MeV ] |\n"
    "Background shape | 0.02 | 0.11 | 0.28\nMomentum resolution | 0.02 | 0.24 | 0.29")
TAU_EFFICIENCIES = (  # 1711.02505, Table 2: the τ columns split in two on a third line, which opens on "3pion"
    "Requirement | Absolute efficiencies ( % ) | Relative efficiencies ( % )\n"
    "| Dstarm 3pi | Dstarm taup neut | Dstarm 3pi | Dstarm taup neut\n"
    "| | 3pion neutb | 3pion piz neutb | | 3pion neutb | 3pion piz neutb\n"
    "trigger requirements | 0.484 | 0.200 | 0.143 | 86.3 | 65.1 | 59.9\n"
    "vertex selection | 0.270 | 0.0796 | 0.0539 | 55.8 | 39.8 | 37.8")
PSI_INPUTS = (  # 2312.09102, Table 5: a spacer column, empty in every row
    "| B0 -> jpsi K*0 | B0 -> psi(2S) K*0\nf0 | - | | 0.455 +- 0.057\nfperp | 0.209 +- 0.005 | | 0.30 +- 0.06")


def test_a_caption_holding_bars_is_prose_and_numbered_columns_are_a_header_under_one_that_spans_them():
    layout = _table(LB_REGIONS)
    assert [h[0] for h in layout.headers] == ["", "Yield"]
    assert _column_of(layout, "lbdnppi", "4 750 +- 79") == "Phase space region 4"


def test_years_under_a_header_name_the_columns_from_the_left():
    layout = _table(L0_THRESHOLDS)
    assert layout.columns(["Muon", ">2.8 GeV", ">1.8 GeV", ">1.35 GeV", "<450"])[1:] == ["2015", "2016", "2017", ""]


def test_a_header_opening_on_an_empty_cell_spans_the_data_columns_and_a_width_is_named_by_its_symbol():
    layout = _table(LC_SYSTEMATICS)
    assert layout.columns(["Momentum resolution", "0.02", "0.24", "0.29"])[1:] == [
        "Uncertainty m(Lcst) [ MeV ]", "Uncertainty Gamma(Lcst) [ MeV ]", "Uncertainty Delta ln L"]
    (cell,) = [m for m in mentions(LC_SYSTEMATICS) if m.written == "0.24"]
    assert "width" in cell.words


def test_a_lower_header_naming_some_columns_splits_the_cell_above_them():
    layout = _table(TAU_EFFICIENCIES)
    row = ["vertex selection", "0.270", "0.0796", "0.0539", "55.8", "39.8", "37.8"]
    assert layout.columns(row)[2] == "Absolute efficiencies ( % ) Dstarm taup neut 3pion neutb"
    assert layout.columns(row)[4] == "Relative efficiencies ( % ) Dstarm 3pi"


def test_a_spacer_column_takes_no_name_and_a_name_alone_after_an_empty_cell_labels_the_rows_below():
    layout = _table(PSI_INPUTS)
    assert layout.columns(["fperp", "0.209 +- 0.005", "", "0.30 +- 0.06"])[1:] == [
        "B0 -> jpsi K*0", "", "B0 -> psi(2S) K*0"]
    grouped = _table("Coefficient | Value\n| q2 > 0 only\nC 10 | -3.69\n| q2 < 0 constraints\nC 10 | -3.93")
    assert [group for row, group in grouped.data()] == ["", "q2 < 0 constraints"]


def test_the_width_a_question_asks_is_read_from_the_column_its_symbol_names():
    """2501.06483, Table 3: "Gamma [ MeV ]" is the f1(1285) width; the mass column had stood level with it."""
    table = ("Results from the fits in the $f_1(1285)$ mass region.\n"
             "Fitting method | chisqndf | m0 [ MeV ] | Gamma [ MeV ] | Yield\n"
             "BW with resolution | 13.3/22 | 1283.5 +- 1.5 | 27.4 +- 5.6 | 360 +- 50\n"
             "BW | 13.6/22 | 1283.5 +- 1.6 | 32.3 +- 5.4 | 381 +- 51")
    hit = _table_hit(table, "Results")
    asked = Asked.read("What width of the f1(1285) does the Breit-Wigner fit with resolution give?")
    assert candidates(asked, [hit])[0].mention.written.startswith("27.4")


def test_a_header_of_short_cells_ending_on_a_full_stop_is_a_header():
    """LHCb 2209.09840's systematics table: "parameter | back. | eff. | fit bias | mass res. |
    total exp. | model | stat." ends on a full stop and is long, so it was read as a sentence of
    the caption; no cell had a column, and the caption's last sentence ("the statistical
    uncertainties are included in the last column") made every cell statistical."""
    text = ("Summary of the systematic uncertainties on the magnitudes and phases of the complex coefficients. "
            "For comparison, the statistical uncertainties are included in the last column.\n"
            "parameter | back. | eff. | fit bias | mass res. | total exp. | model | stat.\n"
            "rho(770) 0 mag. | 0.0034 | 0.0030 | 0.0021 | 0.0000 | 0.0050 | 0.0062 | 0.0030\n"
            "rho(770) 0 ph. | 6.1 | 4.6 | 1.1 | 0.016 | 7.8 | 4.4 | 1.8\n")
    read = {(m.sentence.split(" | ")[0], m.column): m.qualifiers.get("uncertainty") for m in mentions(text)}
    assert read[("rho(770) 0 ph.", "back.")] == {"systematic"}
    assert read[("rho(770) 0 ph.", "stat.")] == {"statistical"}
    question = "How large is the systematic uncertainty on the rho(770)0 phase that comes from the background model?"
    assert _ranked(question, text)[0] == "6.1"  # "back." and "ph." are the background's and the phase's
    assert blocks("… in the region |M(D0 p) − m(Λb)| < 30 MeV and the candidates of the sideband are removed "
                  "from the sample.\nA | 1 | 2\nB | 3 | 4")[0][0] is False  # a sentence with bars stays prose


def test_a_header_line_opening_on_an_empty_cell_continues_the_short_one_above():
    """LHCb 2005.13419: "Year | p(ππ) [GeV]" over "| Δm [MeV] | Γ BW [MeV] | N sig" names the
    five cells of each row; the two lines had been read as one header spanning the other, and
    Δm's cells were named Γ's."""
    text = ("Results for Delta m and Gamma BW. The quoted uncertainties are statistical.\n"
            "Year | p pip pim [ GeV ]\n| Delta m [ MeV ] | Gamma BW [ MeV ] | N sig [103]\n"
            "2011 | p pip pim<12 | 185.32 +- 0.20 | 1.88 +- 0.74 | 1.78 +- 0.13\n"
            "2012 | p pip pim<12 | 185.63 +- 0.13 | 1.23 +- 0.47 | 3.24 +- 0.18\n")
    read = {m.written: m.column for m in mentions(text)}
    assert read["185.63"] == "Delta m [ MeV ]" and read["1.23"] == "Gamma BW [ MeV ]"
    assert "103" not in read  # the header's line is no row of values


def test_a_header_of_samples_by_year_is_a_header_and_one_year_is_part_of_two():
    """LHCb 1905.06662: "Yield | 2011 sample | 2012 sample" opens on years, and was read as a
    row of values (no cell had a column); a column of one year is part of "the 2011–2012 data"."""
    text = ("Signal yields for the 2011 and 2012 data samples.\nYield | 2011 sample | 2012 sample\n"
            "decay Bd (Kp pim)(Km pip) | 99 +- 12 +- 3 | 249 +- 19 +- 5\n")
    read = {m.written: m for m in mentions(text)}
    assert read["249"].column == "2012 sample" and read["249"].qualifiers["year"] == {"2012"}
    asked = Asked.read("How many B0 -> (K+pi-)(K-pi+) signal candidates are found in the 2012 data?")
    assert _ranked(asked.text, text)[0] == "249"
    from mitra.answer.pairing import setting
    both = Asked.read("What B0 -> (K+pi-)(K-pi+) yield is found in the 2011–2012 data?")
    assert setting(both, read["249"]) == 0.0
