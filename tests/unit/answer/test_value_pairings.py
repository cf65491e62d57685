"""Sentences that pair their values one to one with names without saying "respectively" next
to the values: a bracketed pair ("94.5% (96.2%) … the belle (babar) results"), a list the names
follow ("x and y for the A and B decays"), a "…, respectively" list with another value after it,
and a bracketed pair of settings ("1.7 (2.6) … at √s = 7 (8) TeV"). Issue 46: found on the LHCb
papers of the value set ``fresh`` once it was opened."""

from __future__ import annotations

from mitra.answer.asked import Asked
from mitra.answer.pairing import setting
from mitra.answer.respective import respective
from mitra.answer.quantities import mentions
from tests.unit.answer.test_values import _ranked

SCALE = ("A multiplicative factor of 94.5% (96.2%) is required to scale the belle (babar) results to the same "
         "phase-space region as in this analysis.")
WIDTH = ("The width ( sigma ) of the dominant Gaussian contribution is 8.8 MeV ( 9.9 MeV ) in the etac--jpsi mass "
         "region and 10.3 MeV ( 12.0 MeV ) in the chicone--etactwo mass region for the KSLL (KSDD) data.")
EFFICIENCY = ("The average efficiencies are (1.72 +- 0.05) x 10-4 and (4.96 +- 0.05) x 10-4 for the B0 -> D*(2010) - "
              "pi+ and B0 -> Dzb pi+pi- decays.")
LEPTONS = ("Muons and electrons are required to have pT greater than 800 and 500 MeV/c , respectively, and to have "
           "momentum greater than 3 GeV/c .")
TRIGGER = ("The hardware trigger stage is implemented by requiring the presence of two muon candidates with the "
           "product of their pT exceeding 1.7 (2.6) ( GeV/c ) 2 for data collected at sqrt(s) =7 (8) TeV .")
LIMITS = ("The best-fit value is μ = 1.2 ± 0.6, corresponding to an observed (expected) significance of 2.0σ (1.7σ) "
          "with respect to the hypothesis of no H → μμ signal.")


def _respective(question: str, text: str) -> dict[str, float]:
    asked = Asked.read(question)
    return {m.written: respective(asked, m) for m in mentions(text) if not m.spread}


def test_a_bracketed_pair_of_values_pairs_a_bracketed_pair_of_names():
    assert _respective("What factor scales the BaBar result to the LHCb phase-space region?", SCALE) == {
        "94.5 %": -1.0, "96.2 %": 1.0}
    assert _ranked("What factor scales the Belle result to the LHCb phase-space region?", SCALE)[0] == "94.5 %"
    # LHCb's K0S from downstream tracks, "KSDD": the bracketed value of each pair
    assert _ranked("What is the dominant Gaussian width for downstream KS candidates in the etac region?",
                   WIDTH)[0] == "9.9 MeV"


def test_a_qualifier_pair_is_left_to_the_binder():
    """"observed (expected) … 2.0σ (1.7σ)": the binder pairs those; counting the pair again here
    had put an expected significance first for an expected limit."""
    assert set(_respective("What is the expected significance?", LIMITS).values()) == {0.0}


def test_names_after_a_list_of_values_pair_in_order():
    assert _respective("What efficiency is found for B0 -> D0bar pi+ pi- decays?", EFFICIENCY) == {
        "1.72": -1.0, "4.96": 1.0}


def test_respectively_pairs_only_the_values_listed_before_it():
    assert _respective("What minimum pT is required of electron candidates?", LEPTONS) == {
        "800 MeV": -1.0, "500 MeV": 1.0, "3 GeV": 0.0}


def test_a_list_s_first_name_is_read_past_the_words_leading_into_it():
    """LHCb's Λc+ → pK−π+ (2208.03262): "selected for proton" is no name; the question's
    "selection" would otherwise tie the proton's 0.95 with the kaon's 0.7."""
    text = "Probabilities larger than 0.95 and 0.7 are selected for proton and kaon hypotheses, respectively."
    assert _respective("What minimum kaon identification probability does the selection require?", text) == {
        "0.95": -1.0, "0.7": 1.0}
    # LHCb's 13/7 TeV ratios (1510.01707): "the uncertainties of luminosity" names luminosity alone
    text = ("Correlations of 30% and 50% are assumed for the uncertainties of luminosity and tracking, "
            "respectively.")
    assert _respective("What correlation is assumed for the tracking uncertainty?", text) == {
        "30 %": -1.0, "50 %": 1.0}


def test_a_bracketed_pair_of_settings_pairs_a_bracketed_pair_of_values():
    asked = Asked.read("What product of the muon momenta does the hardware trigger require for the 8 TeV data?")
    read = {m.written: setting(asked, m) for m in mentions(TRIGGER)}
    assert (read["1.7"], read["2.6"]) == (-1.0, 1.0)


def test_the_largest_asked_is_the_upper_end_of_a_range():
    """LHCb 1709.01301: "varying between 30% and 70% of the statistical uncertainty"."""
    text = ("This systematic uncertainty is dominant for most of the bins, varying between 30 % and 70 % of the "
            "statistical uncertainty.")
    question = "What is the largest size of this systematic uncertainty, relative to the statistical uncertainty?"
    assert _ranked(question, text)[0] == "70 %"
    assert _ranked(question.replace("largest", "smallest"), text)[0] == "30 %"


def test_what_share_prefers_the_percentage_of_what_it_names():
    """LHCb's hadronic R(D*) (2305.01463): "what fraction of signal decays does the BDT keep" is
    the 77% "of the signal decays", not the 75% of the combinatorial background."""
    text = "The BDT classifier rejects about 75% of the combinatorial background while preserving 77% of the signal decays."
    assert _ranked("What fraction of signal decays does the anticombinatorial BDT classifier keep?", text)[0] == "77 %"
    assert _ranked("What fraction of the combinatorial background does the BDT classifier reject?", text)[0] == "75 %"


def test_how_many_prefers_the_value_its_next_words_name():
    """LHCb 2310.04277 and 1811.08304: "There are 320 categories in total" for "how many
    categories", "162 909 ± 516 signal decays"; not a cut on the candidates counted."""
    from mitra.answer.pairing import counted

    text = ("The fit is performed simultaneously in the mass range 4950-6000 MeV/c2 for all the categories. "
            "There are 320 categories in total, 256 for the KS pi+pi- modes and 64 for the KS K+K- modes.")
    question = "Into how many categories in total is the data split for the fit?"
    assert {m.written: counted(Asked.read(question), m) for m in mentions(text.split(". ")[1])} == {
        "320": 1.0, "256": 0.0, "64": 0.0}
    assert _ranked(question, text)[0] == "320"
    asked = Asked.read("How many signal decays are in the signal region?")
    assert [counted(asked, m) for m in mentions("The sample contains 162 909 +- 516 signal decays in the SR.")][0] == 1
    assert not any(counted(asked, m) for m in mentions("It keeps signal decays with a response > 5.4 decays."))


def test_a_value_written_after_the_word_asked_is_named_by_it():
    """"… 120 modules were assembled with a yield of 92%": asked "with what yield", the
    percentage was ruled out (a yield read as a count) and the count of modules stated."""
    text = "Over two years, 120 detector modules were assembled with a yield of 92%."
    assert _ranked("With what yield were the detector modules assembled?", text)[0] == "92 %"
    assert _ranked("How many detector modules were assembled?", text)[0] == "120"


def test_a_spin_parity_the_question_names_is_no_setting():
    """"the default (3/2−, 5/2+) model": its 3 and 5 counted against every value whose sentence
    states no 3 or 5, the asked fit fraction among them."""
    asked = Asked.read("What fit fraction does the default (3/2-, 5/2+) model give for the Lambda(1520)?")
    assert asked.stated == ()
    assert [f.value for f in Asked.read("What is the yield at 13 TeV?").stated] == [13]


def test_a_setting_between_two_values_is_the_nearer_one_s():
    """LHCb 1606.07898: "established ( 6σ ) … and its quantum numbers are determined to be 1++
    ( 5.8σ )": the 1 of "1++" is 5.8σ's. Once the glued uncertainties between them read as
    percentages, 1 was the nearest unitless number to 6σ as well, and counted for it."""
    text = ("The existence of the X(4274) structure is established ( 6sigma ) with FiFr =7.1 +- 2.5+3.5-2.4% and "
            "its quantum numbers are determined to be 1++ ( 5.8sigma ).")
    asked = Asked.read("With what significance are the 1++ quantum numbers of the X(4274) structure determined?")
    read = {m.written: setting(asked, m) for m in mentions(text)}
    assert (read["6 σ"], read["5.8 σ"]) == (0.0, 1.0)
    # a setting after both values is still each one's: "3.2σ and an expected 2.1σ at mH = 125 GeV"
    shared = Asked.read("What observed significance is found at a mass of 125 GeV?")
    both = {m.written: setting(shared, m)
            for m in mentions("The observed significance is 3.2σ and the expected 2.1σ, at 125 GeV.")}
    assert both["3.2 σ"] == 1.0


def test_an_aligned_equation_equates_its_symbol():
    """LHCb 2005.13419: "Gamma0 | = | 1.4 ± 0.4 ± 0.6 MeV": the bars of an aligned equation hid
    the symbol the question names (Γ0)."""
    from mitra.answer.pairing import equated
    text = ("The parameters are found to be g | = | 0.108 +- 0.003 , f Prho | = | (1.8 +- 0.6) x 10-3 , "
            "Gamma0 | = | 1.4 +- 0.4 +- 0.6 MeV , with m_0 fixed at 3864.5 MeV .")
    asked = Asked.read("In the constrained Flatté fit with m0 fixed at 3864.5 MeV, what value is found for Γ0?")
    assert {m.written: equated(asked, m) for m in mentions(text)}["1.4 MeV"] == 1.0


def test_a_deviation_from_the_prediction_asks_for_no_expected_value():
    """LHCb 2003.04831: "What local deviation from the SM prediction does LHCb now see in P5'?"
    was read as asking for an expected deviation, which ruled out every observed one."""
    assert "measure" not in Asked.read("What local deviation from the SM prediction does LHCb see in P5'?").qualifiers
    assert "measure" not in Asked.read("What tension with the Standard Model expectation is found?").qualifiers
    assert Asked.read("What is the predicted yield?").qualifiers["measure"] == {"expected"}


def test_each_value_followed_by_its_name_pairs_one_to_one():
    """LHCb's Upgrade II physics case (1808.08865) and B+ → D*−Ds+π+ (2405.00098): "± 0.007 for
    sin φd and ± 0.017 for cos φd"; "6.5σ for D0(2550), 6.8σ for D1(2600), and 4.6σ for D2(2740)"."""
    text = "Extrapolating this to 300 fb-1 gives ± 0.007 for sin phid and ± 0.017 for cos phid."
    assert _respective("What precision on sin phid is expected with 300 fb-1?", text) == {
        "300 fb-1": 0.0, "0.007": 1.0, "0.017": -1.0}
    text = ("Estimations of the significances result in estimated significances of 6.5sigma for D0(2550), 6.8sigma "
            "for D1(2600), and 4.6sigma for D2(2740) states.")
    assert _ranked("What significance is estimated for the D2(2740) resonance?", text)[0] == "4.6 σ"
