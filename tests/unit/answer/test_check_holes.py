"""The holes of the answer check (issue 46, items 5 and 6), on sentences from the demo's
monojet note (EXO-24-003) and the CMS discovery paper (1207.7235):

* a figure, table, equation, section, reference or page number, a year and a name with
  digits are never values, on the claim side or the passage side;
* a sentence that states a number is checked whether or not it cites a passage;
* a sentence that points at a passage where its value should be ("… is [3].") is not a
  supported claim;
* a sentence that only points at passages ("See [2].") is neither supported nor not."""

from __future__ import annotations

import pytest

from mitra.answer.figures import figures
from mitra.answer.grounding import check_support, numbers, recite, shown_supported, supported_share
from mitra.answer.notes import notes
from mitra.answer.refusals import unsupported_text
from mitra.core.types import Analysis, Chunk, Hit

RESULTS = ("Upper limits at 95% confidence level are set with the CLs method. For the axial-vector and vector "
           "mediators with mχ = 1 GeV, mediator masses below 2.05 TeV and 2.10 TeV are excluded, respectively, "
           "compared with expected exclusions of 2.15 and 2.20 TeV. Interpreted as Higgs boson decays to invisible "
           "particles, the data constrain B(H → inv) < 0.29 (0.25 expected).")
BACKGROUND = ("The dominant background is Z(→νν)+jets, which is irreducible and makes up about 65% of the events "
              "in the signal region, rising to 75% at the highest recoil.")
SYSTEMATICS = ("The largest uncertainties in the transfer factors are the theoretical uncertainties in the ratios "
               "of V+jets processes, shown in Fig. 10: higher-order EW corrections (up to 6% at 1.2 TeV) and QCD "
               "scale variations (2–4%). The luminosity uncertainty of 1.4% affects only the simulated minor "
               "backgrounds and the signal.")
INTRODUCTION = ("This summary presents a search with the 2022 and 2023 data, interpreted in simplified models in "
                "which a Dirac fermion DM particle couples to quarks through a vector or axial-vector mediator. "
                "The strategy follows the Run 2 analyses [1, 2].")


def hit(n: int, text: str, section: str) -> Hit:
    return Hit(chunk=Chunk(id=f"c{n}", analysis_id="EXO-24-003", doc_id="note", version="v1", position=n,
                           section=[section], text=text))


SOURCES = [hit(1, RESULTS, "Results"), hit(2, BACKGROUND, "Background estimation"),
           hit(3, SYSTEMATICS, "Systematic uncertainties"), hit(4, INTRODUCTION, "Introduction")]


def check(text: str, question: str = ""):
    return check_support(text, SOURCES, 0.6, question=question, title="Search for dark matter in monojet events")


# ---------------------------------------------------------------- 1. names are not values
@pytest.mark.parametrize("text", [
    "The fitted spectrum is shown in Fig. 10 and Figure 3, with the yields in Table 2.",
    "The likelihood of Eq. (4) is defined in Section 5.1, following Ref. [12] (p. 4).",
    "It agrees with Planck 2018, with the data recorded in 2016 and 2015-2018.",
    "SMP-24-002 and CMS-HIG-12-028 both use the Run 2 data set.",
    "B0 mesons are not used; the H→ZZ*→4ℓ channel is.",
])
def test_names_years_and_references_are_not_values(text):
    assert numbers(text) == set()


def test_values_beside_names_stay_values():
    assert numbers("mH = 125.09 GeV, in 2016 data with 36 fb-1 at 13 TeV") == {"125.09", "36", "13"}
    assert numbers("As shown in Fig. 10, the systematic uncertainty is 10%.") == {"10"}
    assert numbers("Fig. 3 and 65% of the events; Figs. 3 and 4 show 2.5 TeV") == {"65", "2.5"}
    assert numbers("2016 ± 40 events, and 2000 signal events in 2016") == {"2016", "40", "2000"}
    assert [f.value for f in figures("As shown in Fig. 10 and Table 2, the systematic uncertainty is 10%.")] == [10]
    assert [str(f.value) for f in figures("Section 5.1 of CMS-HIG-12-028 (arXiv:1207.7235) gives 125.3 GeV")] == \
        ["125.3"]


def test_a_data_set_in_inverse_nanobarns_is_a_luminosity_not_a_cross_section():
    """"0.3 nb -1 of pp collisions" had read as a cross-section of 0.3 nb, and its "-1" as a
    value of its own."""
    assert [(str(f.value), f.unit, f.kind) for f in figures("from 0.3 nb -1 of pp collisions and 37 nb⁻¹ at 7 TeV")] == [
        ("0.3", "nb-1", "luminosity"), ("37", "nb-1", "luminosity"), ("7", "TeV", "energy")]


def test_a_figure_number_in_a_passage_is_not_a_value_there():
    """Reported: "[3] states 10 for the systematic uncertainty", the 10 of "Fig. 10"."""
    (sentence,) = check("The statistical uncertainty in the transfer factors is 10% [3].")
    assert sentence.supported is False and sentence.numbers == [] and sentence.missing_numbers == ["10"]
    assert sentence.problem == "10 is not in [3]"


def test_a_catalogue_name_is_no_value_but_must_be_its_passages():
    """Its digits are not values ("1 is not in [2]" for HIG-24-001), but a sentence naming
    another analysis than its passage's is not supported by it."""
    (own,) = check("In EXO-24-003, the dominant background is Z(→νν)+jets, about 65% of the events [2].")
    assert own.supported and own.missing_numbers == [] and own.missing_names == []
    (other,) = check("In HIG-24-001, the dominant background is Z(→νν)+jets, about 65% of the events [2].")
    assert other.supported is False and other.missing_numbers == [] and other.problem == "HIG-24-001 is not in [2]"


def test_a_year_in_a_name_is_not_a_missing_number():
    """Reported: "2018 is not in [1]" for "Planck 2018"."""
    (sentence,) = check("The strategy follows the Run 2 analyses, as did Planck 2018 [4].")
    assert sentence.missing_numbers == [] and sentence.supported


# ---------------------------------------------------------------- 2. uncited numbers are checked
def test_an_uncited_number_no_passage_states_is_unsupported_and_left_out():
    text = "Invisible Higgs boson decays are constrained to B(H → inv) < 0.08. This value is given in passage [1]."
    stated, pointer = check(text)
    assert stated.supported is False and stated.cited == [] and stated.missing_numbers == ["0.08"]
    assert stated.problem == "0.08 is not in any passage shown"
    assert pointer.supported is None
    shown = recite([stated, pointer])
    assert shown is not None and "0.08" not in shown
    (note,) = notes([stated, pointer])
    assert note.kind == "figure unstated" and "0.08" in note.text and "none of the passages" in note.text
    assert not shown_supported([stated, pointer]) and supported_share([stated, pointer]) == 0.0


def test_an_uncited_number_a_passage_states_gets_its_citation():
    stated, _ = check("Invisible Higgs boson decays are constrained to B(H → inv) < 0.29. See [2].")
    assert stated.supported and stated.cited == [1] and stated.recited_from == []
    assert recite([stated]).endswith("< 0.29 [1].")


def test_an_uncited_figure_a_passage_states_for_another_quantity_is_quoted_over():
    question = "Up to what mass is the vector mediator excluded?"
    (sentence,) = check("The vector mediator is excluded below 2.05 TeV.", question)
    assert sentence.uncited and sentence.wrong_figure and sentence.quote.passage == 1
    assert "[1] states 2.05 TeV for the axial-vector mediator" in sentence.problem
    assert "2.05 TeV." not in recite([sentence]) and recite([sentence]).endswith("” [1]")


def test_an_uncited_number_in_words_no_passage_holds_is_marked():
    (sentence,) = check("Cooking the pasta for 0.29 hours gives a firm bite.")
    assert sentence.supported is False and sentence.uncited and sentence.missing_numbers == []
    assert recite([sentence]) is None  # kept, marked under the answer
    (note,) = notes([sentence])
    assert note.kind == "not supported" and "are not in any passage shown" in note.text


def test_an_uncited_sentence_without_a_number_is_still_not_checked():
    (sentence,) = check("The analysis is an interesting one.")
    assert sentence.supported is None and notes([sentence]) == []


# ---------------------------------------------------------------- 3. a value left out
@pytest.mark.parametrize("text, cited", [
    ("The luminosity uncertainty affecting the simulated minor backgrounds and the signal is [3].", 3),
    ("The 95% confidence level upper limit on B(H → inv) is [1].", 1),
    ("The fraction of events in the signal region from the dominant background amounts to [2].", 2),
    ("The theoretical uncertainties in the ratios of V+jets processes are: [3].", 3),
])
def test_a_sentence_that_points_at_its_value_is_not_supported(text, cited):
    (sentence,) = check(text)
    assert sentence.pointer and sentence.supported is False and sentence.cited == [cited]
    assert sentence.problem == f"it names no value: the model pointed at [{cited}] instead of stating it"
    assert not shown_supported([sentence])
    (note,) = notes([sentence])
    assert note.kind == "value not stated" and f"[{cited}]" in note.text


def test_an_answer_that_only_points_at_its_value_says_so_when_withheld():
    monojet = Analysis(id="EXO-24-003", title="Search for dark matter in monojet events")
    support = check("The 95% confidence level upper limit on B(H → inv) is [1]. See [1].")
    assert not shown_supported(support)
    assert unsupported_text(monojet, support).startswith("The model did not state the answer: it pointed at "
                                                         "passage [1] instead")
    mixed = support + check("Cooking the pasta takes 0.29 hours [2].")
    assert "made claims its cited passages do not contain" in unsupported_text(monojet, mixed)
    assert "made claims" in unsupported_text(monojet)


def test_a_sentence_that_states_its_value_is_no_pointer():
    (sentence,) = check("The dominant background is Z(→νν)+jets, about 65% of the events in the signal region [2].")
    assert not sentence.pointer and sentence.supported


# ---------------------------------------------------------------- 4. a sentence that only points
@pytest.mark.parametrize("text", ["See [2].", "This is stated in passage [4].", "This value is given in the table [1].",
                                  "As shown in [1] and [3].", "Further details are reported in Fig. 10 of [3]."])
def test_a_sentence_that_only_points_is_neither_supported_nor_not(text):
    (sentence,) = check(text)
    assert sentence.supported is None and sentence.signpost and notes([sentence]) == []
    assert not shown_supported([sentence]) and supported_share([sentence]) is None


@pytest.mark.parametrize("text", ["The dominant background is shown in the table to be Z(→νν)+jets [2].",
                                  "The luminosity uncertainty is given in [3].",
                                  "The value of 1.4% is stated in passage [3]."])
def test_a_claim_with_pointer_words_is_still_a_claim(text):
    (sentence,) = check(text)
    assert not sentence.signpost and sentence.supported is not None


def test_a_sentence_stating_a_value_is_no_pointer():
    """"… 91 percent of the total [1]." ends on a word the pointer rule reads as a verb
    ("totals"), but it states its value: it is checked as a claim, not called a pointer."""
    from mitra.answer.grounding import points_at_value

    assert not points_at_value("The dominant background is Z boson production, 91 percent of the total [1].")
    assert points_at_value("The background totals [1].")
    # the data set or mass point a pointer names is no value of its own
    assert points_at_value("The VH, H→bb excess in the ATLAS 13 TeV data is [2, 3].")


def test_a_value_repeated_from_the_question_is_no_value_stated():
    """"The slope … of the 8 TeV / 7 TeV ratio … is [2, 3]." was shown as the answer: its
    energies, named by the question, read as the values it states."""
    from mitra.answer.grounding import points_at_value

    question = "What slope is found in the linear fit of the 8 TeV / 7 TeV cross-section ratio as a function of pT?"
    sentence = "The slope found in the linear fit of the 8 TeV / 7 TeV cross-section ratio as a function of pT is [2, 3]."
    assert points_at_value(sentence, question) and not points_at_value(sentence)
    (support,) = check(sentence, question)
    assert support.pointer and support.supported is False
    assert not points_at_value("The slope of the 8 TeV / 7 TeV ratio is 9.5 per GeV [2].", question)


def test_a_total_yield_is_no_total_uncertainty():
    from mitra.answer.qualifiers import qualifiers_of

    assert "uncertainty" not in qualifiers_of("The total signal yield is determined to be 2398 ± 57.")
    assert qualifiers_of("the total luminosity uncertainty")["uncertainty"] == {"total"}


def test_a_cited_figure_in_none_of_the_passages_is_left_out():
    """Cited or not, a figure no shown passage states is never shown as the model wrote it:
    the stream's gate held it, and the checked answer leaves it out, saying why."""
    from mitra.answer.grounding import check_support, recite
    from mitra.answer.notes import notes
    from mitra.core.types import Chunk, Hit

    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0,
                              text="The dominant background is Z boson production with decays to neutrinos."))
    support = check_support("The dominant background is Z boson production with decays to neutrinos, 91 percent "
                            "of the total [1]. It is the largest [1].", [passage], 0.6)
    assert support[0].absent and support[0].unstated and recite(support) == "It is the largest [1]."
    (note,) = [n for n in notes(support) if n.kind == "figure unstated"]
    assert note.text.endswith("but 91 is in none of the passages shown.")


def test_a_sentence_its_passage_states_word_for_word_is_the_passages_own_claim():
    """Read out of its passage, "The largest experimental uncertainty is the muon momentum scale
    (4.8 MeV)." was flagged for leaving out "systematic", which the passage's table binds to
    4.8; a sentence the passage states word for word cannot misstate what it is for."""
    from mitra.answer.grounding import check_support
    from mitra.core.types import Chunk, Hit

    text = ("The largest experimental uncertainty is the muon momentum scale (4.8 MeV). The calibration uses "
            "J/ψ decays.\nSystematic uncertainty | MeV\nMuon momentum scale | 4.8\nMuon efficiency | 1.9")
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, text=text,
                              section=["Systematic uncertainties"]))
    (sentence,) = check_support("The largest experimental uncertainty is the muon momentum scale (4.8 MeV) [1].",
                                [passage], 0.6, question="How is the muon momentum scale calibrated?")
    assert sentence.supported and not sentence.numbers


def test_a_long_run_of_markers_is_read_at_once():
    """A reply of the demo model on an ATLAS PDF ran the markers on ("… is [1] [1] [1] …"): the
    pointer rule read the spaces between them in 2ⁿ ways, and the answer stalled for minutes in
    the check. Now one way: this returns at once (it did not return before)."""
    from mitra.answer.grounding import points_at_value

    assert not points_at_value("The measured cross section is " + "[1] " * 40 + "times the SM.")
    assert points_at_value("The measured cross section is " + "[1] " * 40 + ".")
