"""Readings found on the LHCb papers of ``fresh2`` once it was opened (issue 46): uncertainties
named by ordinals in words, a channel the passages never tell values apart by, a "…,
respectively" list inside the subject, a cut written in words, a range's unit and words, a
table row labelled by the number the question states, and a setting written on a function
("at M(D0 p) = 2.88 GeV")."""

from __future__ import annotations

import pytest

from mitra.answer.asked import Asked
from mitra.answer.pairing import bound, setting
from mitra.answer.respective import respective
from mitra.answer.quantities import mentions
from tests.unit.answer.test_values import _ranked

def _signal(signal, question: str, text: str) -> dict[str, float]:
    """Each value of ``text`` (not its uncertainties) with ``signal`` for ``question``."""
    asked = Asked.read(question)
    return {m.written: signal(asked, m) for m in mentions(text) if not m.spread}


COHERENCE = ("The baseline models can be used to calculate the model-derived coherence factor RK3pi mod = 0.458 +- "
             "0.010 +- 0.012 +- 0.020, where the first uncertainty is statistical, the second systematic, and the "
             "third the uncertainty from the choice of WS model.")


def test_each_ordinal_names_its_uncertainty_in_words_too():
    read = {m.written: m for m in mentions(COHERENCE)}
    assert read["0.010"].qualifiers["uncertainty"] == {"statistical"}
    assert read["0.012"].qualifiers["uncertainty"] == {"systematic"}
    assert {"choic", "ws"} <= read["0.020"].words and "choic" not in read["0.012"].words
    question = "What uncertainty from the choice of wrong-sign amplitude model is quoted on the coherence factor?"
    assert _ranked(question, COHERENCE)[0] == "0.020"
    assert _ranked("What is the systematic uncertainty on the coherence factor?", COHERENCE)[0] == "0.012"


def test_ordinals_in_the_sentence_after_the_value_name_its_uncertainties():
    text = ("We measure B = (1.2 +- 0.3 +- 0.1 +- 0.05) x 10-5. The first uncertainty is statistical, the second "
            "systematic and the third due to the uncertainty on the fs/fd ratio.")
    read = {m.written: m for m in mentions(text)}
    assert read["0.3"].qualifiers["uncertainty"] == {"statistical"} and {"fs", "fd"} <= read["0.05"].words
    # "the first and second muons" names no uncertainty
    plain = {m.written: m for m in mentions("The mass is 5.1 +- 0.2 +- 0.1 GeV for the first and second muons.")}
    assert "uncertainty" not in plain["0.2 GeV"].qualifiers


def test_a_channel_no_shown_value_is_told_apart_by_need_not_be_named():
    """In a paper on Z → μμ alone, "the heavy-flavour background is (1.0 ± 0.1)%" is μμ's; it
    had counted as left out and read as the combination's."""
    text = ("The invariant mass of two muons must be in the range 60 < M mumu < 120 GeV/c2 . The contribution from the "
            "heavy flavour processes is determined to be (1.0 +- 0.1) % for the selected sample.")
    question = "In the Z->mu+mu- cross-section measurement, what fraction of the sample is heavy-flavour background?"
    assert _ranked(question, text)[0] == "1.0 %"
    # where another channel's value is shown, naming the channel still counts
    both = text + " The ee channel gives a contribution of 2.0 % from heavy flavour processes."
    assert _ranked("What fraction of the Z->ee sample is heavy-flavour background?", both)[0] == "2.0 %"


def test_respectively_pairs_a_list_in_the_sentence_subject():
    text = "The signal yields in the Dz Dz and Dp Dz spectra are found to be 263 +- 23 and 171 +- 26 , respectively."
    assert _signal(respective, "What Tcc+ signal yield is observed in the D+D0 mass spectrum?", text) == {
        "263": -1.0, "171": 1.0}


def test_a_cut_asked_counts_for_a_bound_written_in_words():
    text = ("The muon candidates are required to form a secondary vertex with a vertex-fit chi2 per degree of freedom "
            "smaller than 9 and separated from any PV with a significance greater than 15.")
    assert _signal(bound, "What minimum significance is required for the separation of the vertex from any PV?",
                   text) == {"9": -1.0, "15": -1.0}
    # in words alone it never counts against a value: "more than 75%" of a result
    assert bound(Asked.read("By how much is the contamination reduced?"),
                 mentions("a tighter working point reducing the contamination by more than 75%.")[0]) == 0.0


def test_a_range_s_lower_end_takes_its_unit_and_the_upper_its_words():
    read = {m.written: m for m in mentions("The mass of the muon pair is required to be in the range 8.8 < m mumu < "
                                           "11.0 GeV/c2 .")}
    assert read["8.8 GeV"].kind == "energy" and "mass" in read["11.0 GeV"].words


def test_a_row_labelled_by_the_number_the_question_states_without_its_unit():
    text = "Nominal CL | Coverage DK | Coverage Dh\n68.3 | 67.1 +- 0.5 | 66.9 +- 0.5\n95.5 | 93.5 +- 0.4 | 94.3 +- 0.3"
    question = "What coverage does the DK combination achieve for the nominal 95.5% interval?"
    read = _signal(setting, question, text)
    assert read["93.5"] == 1.0 and read["67.1"] < 1.0
    assert _ranked(question, text)[0] == "93.5"


def test_a_setting_written_on_a_function_is_no_boundary_of_the_value_after_it():
    text = "The width of the resolution function at M(Dz proton)=2.88 GeV is 1.1 MeV , i.e. small."
    read = {m.written: m for m in mentions(text)}
    assert read["2.88 GeV"].condition and "resolut" in read["1.1 MeV"].words
    assert _ranked("What is the width of the M(D0 p) resolution function at M(D0 p) = 2.88 GeV?", text)[0] == "1.1 MeV"


def test_a_bracketed_pair_of_values_past_their_uncertainties_pairs_a_bracketed_pair_of_names():
    text = "A signal yield of 148 000 +- 400 ( 7 500 +- 100 ) is obtained for control (signal) decays."
    question = "How many Bs->Ds K pi pi signal decays does the invariant-mass fit yield?"
    assert _signal(respective, question, text) == {"148 000": -1.0, "7 500": 1.0}
    assert "yield" in next(m for m in mentions(text) if m.written == "7 500").words


def test_a_number_the_question_states_is_no_other_setting_where_its_row_writes_it_without_unit():
    # as the LHCb text has it, "\\SI" left before the upper end: the lower end reads no unit
    text = ("Dp | 0 < pT < SI 8 GeVc | 2 < y < 4.5 | 1.049 +- 0.031 | 1102 +- 5 +- 111\n"
            "Dp | 1 < pT < SI 8 GeVc | 2 < y < 4.5 | 0.920 +- 0.031 | 998 +- 5 +- 111")
    read = _signal(setting, "What prompt D+ cross-section is measured at 13 TeV for 0 < pT < 8 GeV/c and 2 < y < 4.5?",
                   text)
    # each range cell names the row now: the row of "1 < pT" matches three of the four, this one all
    assert read["1102"] >= 0 and read["998"] < read["1102"]


@pytest.mark.parametrize("question, text, first, ruled_out", [
    # GeV/c is a momentum, GeV/c2 a mass: "6 < pT < 8 GeV/c" is no edge of a mass window
    ("What is the lower edge of the dimuon invariant-mass window used to select the candidates?",
     "Dimuon mass distributions of the candidates selected in the region 6<pty<8 GeV/c and 2.2<yy<3.0 are shown in "
     "Fig. 2. The mass of the muon pair is required to be in the range 8.8 < m mumu < 11.0 GeV/c2 .", "8.8 GeV", "6 GeV"),
    # a fraction is never a number of standard deviations
    ("What fit fraction does the fit assign to the spin-3 resonance?",
     "These are found to correspond to 16 and 15 standard deviations for the spin-1 only and spin-3 only models, "
     "respectively. The fit fraction of the spin-3 resonance is 2.2 +- 0.1 %.", "2.2 %", "15 σ"),
])
def test_a_value_of_another_kind_than_asked_is_ruled_out(question, text, first, ruled_out):
    ranked = _ranked(question, text)
    assert ranked[0] == first and ruled_out not in ranked


def test_a_cut_in_words_bounds_both_values_of_a_bracketed_pair():
    text = ("The hardware trigger requires two muon candidates with the product of their pT exceeding 1.7 (2.6) "
            "( GeV/c ) 2 for data collected at sqrt(s) =7 (8) TeV .")
    assert _signal(bound, "What minimum product of the muon transverse momenta does the hardware trigger require?",
                   text)["2.6"] == -1.0



def test_a_cut_in_words_bounds_each_value_of_a_list():
    text = ("Muons and electrons are required to have pT greater than 800 and 500 MeV/c , respectively, and to have "
            "momentum greater than 3 GeV/c .")
    read = _signal(bound, "What minimum transverse momentum is required of electron candidates?", text)
    assert read == {"800 MeV": -1.0, "500 MeV": -1.0, "3 GeV": -1.0}


def test_a_number_the_question_reckons_from_names_no_kind_asked():
    """"the background fraction in the signal region (within 15 MeV of the known Λc+ mass)" had
    asked for an energy: its percentage "fb = 1.69%" then counted as no equation's value."""
    asked = Asked.read("What is the background fraction f_b in the signal region (within 15 MeV of the known "
                       "Lambda_c+ mass) used in the amplitude fit?")
    assert asked.kind == ""
    assert Asked.read("What is the mass of the X(3872)?").kind == "energy"

def test_a_tagging_power_a_correlation_or_a_symbol_is_a_value_asked():
    """"What effective tagging power is achieved …" had not read as a value question: no
    candidates, and the model wrote about the CP asymmetry's formula instead."""
    from mitra.answer.claims import value_question
    for question in ("What effective tagging power is achieved for B0->pi+pi- decays?",
                     "What correlation between the 13 TeV and 7 TeV measurements is assumed?",
                     "What is the upper edge of the uniform prior range for r_B?",
                     "What lambda_theta is measured in the Collins-Soper frame?"):
        assert value_question(question), question
    for question in ("Which parameters are floated in the fit?", "What phase-space region is excluded?"):
        assert not value_question(question), question


def test_every_cell_of_a_table_of_systematic_uncertainties_is_one():
    """LHCb's "Summary of systematic uncertainties on … fit fractions" (1507.03414): its row
    "JP … | 0.76 | 0.44" had been given, with no warning, as the Λ(1520) fit fraction."""
    table = ("Summary of systematic uncertainties on Pc masses, widths and fit fractions. The sFit/cFit difference is "
             "listed as a cross-check.\n\nSource | Fit fractions (%)\n| Lz(1405) | Lz(1520)\n"
             "Extended vs. reduced | 1.37 | 0.15\nJP ( 3/2+ , 5/2- ) or ( 5/2+ , 3/2- ) | 0.76 | 0.44")
    cell = next(m for m in mentions(table) if m.written == "0.44")
    assert cell.spread and cell.qualifiers["uncertainty"] == {"systematic"}
    text = table + "\n\nThe cFit gives a Lz(1520) fit fraction of 18.93 +- 0.52 %."
    assert _ranked("What fit fraction does cFit give for the Lambda(1520) with the (3/2-, 5/2+) model?",
                   text)[0] == "18.93 %"
    assert _ranked("What systematic uncertainty on the Lz(1520) fit fraction comes from the JP assignment?",
                   table)[0] == "0.44"


def test_a_minimum_asked_is_a_value_and_a_sigma_baryon_no_significance():
    """``fresh3``: "what minimum chi2_IP … is required for each pion" had not read as a value
    question (no candidates at all), and "the Sigma(1775) component" had read as asking for a
    significance, so "5 sigma" and "12.0 sigma" outranked the row's CP asymmetry."""
    from mitra.answer.claims import asked_kind, value_question

    assert value_question("What minimum chi2_IP with respect to any PV is required for each pion of the 3pi system?")
    assert value_question("Which maximum DOCA between the two muons is allowed?")
    for baryon in ("Sigma(1775)", "Sigma+", "Sigma_c", "Sigma-", "Sigma0", "Sigma*"):
        assert asked_kind(f"What CP asymmetry is measured for the {baryon} component?") != "significance", baryon
    for significance in ("Above how many sigma is the excess?", "What is the local significance?",
                         "At what sigma level is the signal observed?", "How many σ is it?"):
        assert asked_kind(significance) == "significance", significance


def test_the_scale_a_list_is_stated_in_units_of_is_no_value_of_the_list():
    """"(in units of 10-3/(GeV/c))" after a "…, respectively" list read as its fourth value,
    and the list's values shifted one state along: 9.5, the Υ(2S) slope, bound to Υ(1S)."""
    text = ("The slopes are found to be 10.8 ± 0.6, 9.5 ± 1.2 and 9.8 ± 1.6 (in units of 10-3/( GeV/c ) ) "
            "for YoneS, YtwoS and YthreeS, respectively.")
    read = {m.written: m for m in mentions(text) if not m.spread}
    assert set(read) == {"10.8", "9.5", "9.8"}
    assert read["9.5"].qualifiers["state"] == {"Υ(2S)"} and read["10.8"].qualifiers["state"] == {"Υ(1S)"}


def test_a_share_or_a_change_of_a_count_is_a_percentage_and_a_range_of_decimals_no_reference():
    """From LHCb's Λb → D0 p π− (1701.07873), φs (1906.08356) and γ combination (1611.03076): a
    percentage was ruled out as no count where the question asks for a share or a change of one,
    and a range "[0, 0.45]" read as a citation."""
    assert _ranked("In the Lambda_b analysis, what fraction of the signal yield in region 4 is estimated to come "
                   "from the nonresonant crossfeed?", "They amount to less than 1% of the signal yield for the regions "
                   "2 and 3, and around 1.5% for region 4.")[0] == "1.5 %"
    assert _ranked("By how much does accepting events from any hardware-trigger line increase the signal yield in "
                   "the 2015 data?", "This increases the signal yield by 13% in 2015 and by 7% in 2016 with respect "
                   "to using the muon system information only.")[0] == "13 %"
    assert "15 %" not in _ranked("How many signal decays are found?", "We find 1200 signal decays, a purity of 15%.")
    ranges = "The allowed ranges for rbDKstz, rbDkpp and rdsk are [0, 0.45], [0, 0.16] and [0, 0.2]."
    assert "0.45" in _ranked("What is the upper edge of the uniform prior range for rbDKstz?", ranges)
    assert _ranked("What is the yield?", "The yield is 5200 [12, 13].") == ["5200"]


def test_an_uncertainty_glued_to_pm_in_kept_maths_is_read_as_one():
    """"$1600\\pm160$" (LaTeX maths kept for the app to draw) read 160 as a value of its own."""
    assert [(m.written, m.spread) for m in mentions("The Lb background is $1600\\pm160$ , where the uncertainty "
                                                    "includes statistical and systematic sources.")] == [
        ("1600", False), ("160", True)]
    # "statistically subtracted" asks for no statistical uncertainty
    assert _ranked("How many misidentified decays are estimated in the sample and statistically subtracted?",
                   "The contribution due to the Lb background is $1600\\pm160$ , where the uncertainty includes "
                   "statistical and systematic sources.")[0] == "1600"


def test_a_number_the_question_states_names_the_column_whose_header_states_it():
    """LHCb's Λb → D0 p π− (1701.07873), Table 1: "region 4" is the header of the column the yield
    asked sits in; only row labels were read for the numbers a question states."""
    from tests.unit.answer.test_table_layout import LB_REGIONS
    ranked = _ranked("What Lambda_b -> D0 p pi- signal yield does the mass fit give in phase-space region 4?", LB_REGIONS)
    assert ranked[0] == "4 750"


def test_a_row_label_s_abbreviation_reads_as_the_word():
    """LHCb's hadronic R(D*) (2305.01463) states its signal yield in the row "N sig"."""
    table = "Parameter | Value\nN norm | 3100 +- 60\nN sig | 2573 +- 156"
    assert _ranked("How many signal events does the three-dimensional fit find?", table)[0] == "2573"


def test_the_ranges_a_row_states_before_its_value_name_its_row():
    """LHCb's prompt charm at 5 TeV (1610.02230), Table 5: the cross-section of the reduced
    acceptance is the row whose rapidity range is the question's; only the first cell was read
    as the row's label. An aligned equation's bars are no cells (1706.07122)."""
    table = ("Meson | pT range | y range | 13 TeV | 5 TeV\n"
             "Dp | 0 < pT < 8 GeVc | 2 < rapidity < 4.5 | 1.108 +- 0.049 | 551 +- 5 +- 48\n"
             "Dp | 0 < pT < 8 GeVc | 2.5 < rapidity < 4 | --- | 349 +- 4 +- 27")
    asked = "What prompt D+ production cross-section is measured at 5 TeV in the reduced acceptance 2.5 < y < 4?"
    assert _ranked(asked, table)[0] == "349"
    aligned = ("The total cross-sections amount to sigma (1.5<y*<4.0, pT<14 GeV/c ) | = 1625 +- 4 +- 117 mu b , "
               "sigma (-5.0<y*<-2.5, pT<14 GeV/c ) | = 1692 +- 4 +- 182 mu b.")
    assert _ranked("What total cross-section is measured for -5.0 < y* < -2.5 and pT < 14 GeV/c?", aligned)[0] == "1692 μb"


def test_barns_inverse_barns_as_lhcb_macros_flatten_them_and_a_unit_after_a_spaced_tag():
    """LHCb 1103.0423 and 2311.14085: "288 ± 4 ± 48 mu b" (\\mu b), "5.2pbinv" (\\pbinv) and
    "16.36 ± 0.28 ( stat ) ± 0.88 ( syst )nb" had no unit, so a count or a luminosity asked
    could not rule them out, nor a cross-section asked count for them."""
    from mitra.answer.figures import figures
    read = lambda s: [(str(f.value), f.unit, f.kind) for f in figures(s)]
    assert read("sigma = 288 +- 4 +- 48 mu b , where") == [("288", "μb", "cross section"), ("4", "μb", "cross section"),
                                                           ("48", "μb", "cross section")]
    assert read("of 5.2pbinv and 3.0 invfb") == [("5.2", "pb-1", "luminosity"), ("3", "fb-1", "luminosity")]
    assert [f.unit for f in figures("is 16.36 +- 0.28 ( stat ) +- 0.88 ( syst )nb using")] == ["nb"] * 3
    assert read("the inelastic cross-section of 75.4 mb") == [("75.4", "mb", "cross section")]
    question = "What total b b̄ cross-section does LHCb derive by extrapolating to the full solid angle?"
    text = ("The extrapolation to the full polar angle uses the branching fraction B(b -> jpsi X)=(1.16 +- 0.10)% . "
            "The result is sigma(pp -> b b X) = 288 +- 4 +- 48 mu b , where the first uncertainty is statistical.")
    assert _ranked(question, text)[0] == "288 μb"


def test_thousands_grouped_by_a_comma_are_one_number_an_interval_is_two():
    """LHCb 1204.5643: "The mass fit gives 20,934 ± 150 events" read as 20 and 934."""
    from mitra.answer.figures import figures
    read = lambda s: [str(f.value) for f in figures(s)]
    assert read("The mass fit gives 20,934 +- 150 events") == ["20934", "1.5E+2"]
    assert read("we use 13,424 candidates") == ["13424"]
    assert read("in the range [10,100] and bins 1,2,3") == ["1E+1", "1E+2", "1", "2", "3"]


def test_signal_and_background_counts_share_their_unit():
    """LHCb 1402.6248: "The mass fit gives 27396 ± 207 signal and 7075 ± 101 background
    candidates": the signal count is a count too, and is the one asked."""
    text = "The mass fit gives 27396 +- 207 signal and 7075 +- 101 background candidates within the window."
    from mitra.answer.figures import figures
    assert [f.unit for f in figures(text)] == ["events"] * 4
    assert _ranked("How many signal candidates does the mass fit give within the window?", text)[0] == "27396 events"


def test_a_word_the_title_names_too_breaks_a_tie_between_columns():
    """LHCb 2212.09153 measures R_K and R_K*: the title names K*, so "R_K*" of a question had
    told its column "central-q2 RKst" from "central-q2 RK" by nothing."""
    from mitra.answer.candidates import candidates
    from mitra.core.types import Chunk, Hit

    text = "Source | central-q2 RK | central-q2 RKst\nMisidentified backgrounds | 2.22 | 2.29"
    hit = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Systematics"],
                          text=text))
    asked = Asked.read("What relative systematic uncertainty do misidentified backgrounds contribute to R_K* in the "
                       "central-q2 region?", title="Test of lepton universality in b -> s l+ l- decays with K and K*")
    assert "kstar" in asked.title_words and "kstar" not in asked.quantity
    assert candidates(asked, [hit])[0].mention.written == "2.29"


def test_a_two_word_compound_may_be_written_as_its_initials():
    """LHCb 1712.08609 writes "the WS ensemble" for the question's "wrong-sign" ensemble."""
    question = "How many models make up the ensemble of alternative wrong-sign amplitude models?"
    assert Asked.read(question).acronyms["ws"] == {"wrong", "sign"}
    assert _ranked(question, "The RS ensemble consists of about 200 models with chi2 per dof below 1.26. The WS "
                             "ensemble consists of 108 models, all of which have a chi2 per dof of less than 1.45 .")[0] == "108"


def test_those_in_a_name_after_a_value_stands_for_the_first_name_s_head():
    """LHCb 1812.10790: "0.5% for PVs associated with … a b quark pair, 1.3% for those associated
    with … a c quark pair": "those" is the PVs, so "PVs" tells the first name from the second by
    nothing."""
    text = ("The resulting improvement in efficiency of reconstructing PVs is 0.5% for PVs associated with the "
            "production of a b quark pair, 1.3% for those associated with the production of a c quark pair, and 6.6% "
            "for light quarks production.")
    assert _signal(respective, "By how much did the retuned reconstruction improve the efficiency for PVs associated "
                               "with c-quark pair production?", text) == {"0.5 %": -1.0, "1.3 %": 1.0, "6.6 %": -1.0}


def test_a_run_and_a_year_name_the_values_of_a_respectively_list():
    text = ("The observed N jpsi Kpi yield is found to be 348 500 +- 600 and 328 500 +- 600 for Run 1 and 2016, "
            "respectively, where uncertainties are statistical only.")
    read = _signal(respective, "How many control-channel candidates are observed in the 2016 data?", text)
    assert read["348 500"] == -1.0 and read["328 500"] == 1.0


def test_an_equation_s_symbol_with_its_subscript_apart_is_the_question_s():
    """LHCb 2501.06483 writes "fK 0 = 2.890" for the question's "f_K0"."""
    from mitra.answer.pairing import equated
    text = ("This correction takes into account calB(Kz -> pip pim)=0.6920 +- 0.0005 and a factor two, yielding a "
            "total factor fK 0 = 2.890 +- 0.001 .")
    read = _signal(equated, "What total correction factor f_K0 is applied?", text)
    assert read["2.890"] == 1.0 and read["0.6920"] == 0.0


def test_what_remains_is_the_value_a_change_comes_to():
    """LHCb 2211.10920: "removes 75% of the ghost events, reducing from 30% to 6% the amount of ghost
    events": what remains after the BDT is 6%, not the 75% removed or the 30% before."""
    text = ("The chosen threshold on the BDT response has a signal efficiency of 75% and removes 75% of the ghost "
            "events, reducing from 30% to 6% the amount of ghost events in the simulation sample.")
    question = "After the BDT that removes ghost vertices, what fraction of ghost events remains in the simulation?"
    assert _ranked(question, text)[0] == "6 %"
    from mitra.answer.pairing import changed_to
    assert _signal(changed_to, "What was the fraction of ghost events before?", text) == {"75 %": 0.0, "30 %": 0.0,
                                                                                          "6 %": 0.0}


def test_in_a_list_of_values_each_followed_by_its_particle_the_asked_particle_s_value():
    """LHCb 2409.03496: "299 100 ± 2100 jpsi and 7420 ± 130 psitwos elastically produced mesons are
    found": asked for J/ψ mesons, 299 100; asked for ψ(2S), 7420; no list, no reading."""
    from mitra.answer.pairing import particle_after
    text = ("In total, 299 100 +- 2100 jpsi and 7420 +- 130 psitwos elastically produced mesons are found in "
            "the fit to the full rapidity range.")
    jpsi = _signal(particle_after, "How many elastically produced J/ψ mesons does the fit find?", text)
    assert jpsi["299 100"] == 1.0 and jpsi["7420"] == -1.0
    psi2s = _signal(particle_after, "How many elastically produced ψ(2S) mesons does the fit find?", text)
    assert psi2s["299 100"] == -1.0 and psi2s["7420"] == 1.0
    assert set(_signal(particle_after, "How many J/ψ mesons are found?", "We find 299 100 jpsi mesons.").values()) == {0.0}


def test_a_value_the_sentence_gives_to_another_work_counts_against_it():
    """LHCb 2003.04831: "a tension of 2.4 sigma using the observables from Ref. and 2.7 sigma with the
    measurements reported here"; "reduces from the 2.8 and 3.0 sigma observed in Ref. to 2.5 and
    2.9 sigma". A reference far after the value ("… following the recommendation in Ref.") is not
    its source, and a question asking for the earlier figure reads none."""
    from mitra.answer.pairing import stated_elsewhere
    tension = ("Neglecting this bin, a flavio fit gives a tension of 2.4 sigma using the observables from Ref. and "
               "2.7 sigma tension with the measurements reported here.")
    assert _signal(stated_elsewhere, "What tension does the fit give?", tension) == {"2.4 σ": 1.0, "2.7 σ": 0.0}
    assert set(_signal(stated_elsewhere, "What tension did the previous results give?", tension).values()) == {0.0}
    local = "The local discrepancy reduces from the 2.8 and 3.0 sigma observed in Ref. to 2.5 and 2.9 sigma ."
    assert _signal(stated_elsewhere, "What local deviation is seen now?", local) == {
        "2.8 σ": 1.0, "3.0 σ": 1.0, "2.5 σ": 0.0, "2.9 σ": 0.0}
    increased = ("The uncertainty is increased from +- 0.028 to +- 0.032 to account for the non-uniform acceptance of "
                 "the detector following the recommendation in Ref. .")
    assert set(_signal(stated_elsewhere, "To what value is the uncertainty increased?", increased).values()) == {0.0}


def test_a_value_stated_without_what_the_question_asks_with_counts_against_it():
    """LHCb 1808.08865: asked with timing, the 5% "with a timing precision", not the 20% "without
    timing" (its own clause) or "for a detector with no time information"; asked without, the reverse."""
    from mitra.answer.pairing import negated
    text = ("Studies show that without timing the Upgrade II PV mis-association levels may reach 20 % , while this "
            "can be reduced to 5% with a timing precision of 50 -- 100 ps .")
    with_timing = "What primary-vertex mis-association level is expected in Upgrade II with timing information?"
    assert _signal(negated, with_timing, text) == {"20 %": 1.0, "5 %": 0.0, "50": 0.0, "100 ps": 0.0}
    assert _signal(negated, with_timing.replace("with timing", "without timing"), text)["5 %"] == 1.0
    assert _signal(negated, with_timing, "The 20% mis-association corresponds to a detector with no time "
                                         "information.") == {"20 %": 1.0}
    assert _ranked(with_timing, "These numbers should be compared with the 20% PV mis-association fraction of a "
                                "detector with no time information. " + text)[0] == "5 %"


@pytest.mark.parametrize("question, text, expected", [
    pytest.param("With what significance is the Lambda(1670) component established?",
                 "The outcome is that the Lz(1520) and Lz(1670) components have p -values corresponding to 12.0 sigma "
                 "and 6.1 sigma , respectively.", {"12.0 σ": -1.0, "6.1 σ": 1.0}, id="states named by their mass"),
    pytest.param("What KS mass resolution is achieved with downstream tracks?",
                 "A mass resolution of 3.5 MeV/c2 is achieved for the candidates reconstructed from long tracks and "
                 "7 MeV/c2 for those using downstream tracks.", {"3.5 MeV": -1.0, "7 MeV": 1.0},
                 id="a verb between a value and its name"),
])
def test_more_one_to_one_pairings(question, text, expected):
    assert _signal(respective, question, text) == expected
