"""The brief's extractors, one by one: headline values with their qualifiers, the section
tree's lines, the vocabulary and the questions."""

from __future__ import annotations

from mitra.brief.questions import chat_link, questions
from mitra.brief.record import DocumentTree, Section
from mitra.brief.tree import central_sentence, document_tree
from mitra.brief.values import headline_values, mark_changes, shown, stated
from mitra.brief.vocabulary import vocabulary
from mitra.core.types import Chunk

ABSTRACT = ("A search for the Standard Model Higgs boson in proton-proton collisions at √s = 13 TeV is presented, "
            "using 139 fb−1 of data collected in 2016. The observed (expected) significance is 5.0 (5.8) standard "
            "deviations at a mass of 125.3 ± 0.4 (stat) ± 0.5 (syst) GeV. The measurement is made in the region "
            "2.5 < y < 4.0 and the upper limit is set at 95% CL [12].")


def chunk(text: str, section: list[str], position: int = 0, page: int = 1, version: str = "1", doc: str = "note",
          superseded: bool = False) -> Chunk:
    return Chunk(id=f"{doc}-{version}-{position}", analysis_id="HIG-24-001", doc_id=doc, version=version,
                 position=position, section=section, page_start=page, page_end=page, text=text, superseded=superseded)


def test_headline_values_are_the_results_stated_not_settings_ranges_uncertainties_or_levels():
    written = [m.written for m in stated(ABSTRACT)]
    assert written == ["5.0 σ", "5.8 σ", "125.3 GeV"]  # its unit read from after its uncertainties
    assert not {"13 TeV", "139 fb-1", "2016", "2.5", "4.0", "95 %", "0.4", "0.5", "12"} & set(written)


def test_others_results_selections_intervals_and_data_set_sizes_are_no_headline_values():
    """Each was shown as a result of a real paper (benchmarks/briefs.py): a cut in the setting
    clause, an interval's bound alone, data-set sizes in nb⁻¹, a sum computed from others'
    results, and every value of a sentence about previous measurements."""
    for sentence in (
            "For a Higgs boson with a mass of 125.09 GeV and mℓℓ < 30 GeV, evidence is found with a significance "
            "of 3.2σ over the background-only hypothesis.",
            "The results are in agreement with the NLO NRQCD model for pTJpsi > myvalue 8 GeVc .",
            "We constrain the total rate to the interval [0.0061, 2.0] at 95% confidence level.",
            "The ratios are measured from 0.3 nb -1 of pp collisions at s = 0.9 TeV and 1.8 nb -1 at s = 7 TeV.",
            "The X mass is consistent with the sum of the D0 and D*0 masses, 3871.79 +- 0.29 MeV/c2 , computed from "
            "the results of Ref.",
            "Previous measurements from WA11 at myvalue 185 GeVc gave myapmb 1.4 0.6 , and from HERA-B at s myvalue "
            "41.6 GeV gave 1.75 0.7 .",
            "The ratio has been determined as a function of the transverse momentum in the range from 2 to 15 GeV/ c .",
    ):
        assert [shown(m) for m in stated(sentence)] in ([], ["3.2σ"]), sentence
    assert [shown(m) for m in stated("The expected limits are B(Bs -> mu mu) < 6.5 x 10-8 at 95 % C.L.")] == [
        "6.5 x 10-8"]


def test_a_value_is_shown_with_its_uncertainties_unit_and_power_of_ten():
    assert [shown(m) for m in stated("A mass of 125.3 ± 0.4 (stat) ± 0.5 (syst) GeV is measured.")] == [
        "125.3 ± 0.4 (stat) ± 0.5 (syst) GeV"]
    assert [shown(m) for m in stated("The branching fraction is (3.2 +1.5 -1.2) × 10^-9 in total.")] == [
        "(3.2 +1.5 -1.2) × 10^-9"]


def test_a_listed_value_is_shown_with_the_unit_its_list_writes_once():
    assert [shown(m) for m in stated("Masses are excluded below 2.05 and 2.10 TeV, compared with expected exclusions "
                                     "of 2.15 and 2.20 TeV.")] == ["2.05 TeV", "2.10 TeV", "2.15 TeV", "2.20 TeV"]
    assert [shown(m) for m in stated("The observed (expected) significance is 5.0 (5.8) standard deviations.")] == [
        "5.0 standard deviations", "5.8 standard deviations"]


def test_each_value_has_its_qualifiers_and_cites_the_passage_that_states_it():
    chunks = [chunk("Title page. " + ABSTRACT, ["Abstract"], 0, page=1),
              chunk("The observed significance is 5.0 standard deviations. A width of 4.1 MeV is measured.",
                    ["9 Conclusions"], 5, page=12)]
    values = headline_values(ABSTRACT, chunks)
    by_number = {v.number: v for v in values}
    assert by_number["5"].qualifiers["measure"] == ["observed"] and by_number["5.8"].qualifiers["measure"] == ["expected"]
    assert by_number["5"].where == "abstract" and by_number["5"].place.page == 1
    assert by_number["4.1"].where == "conclusions" and by_number["4.1"].place.page == 12
    assert by_number["5"].place.highlight in chunks[0].text  # the sentence the page highlights
    assert len([v for v in values if v.number == "5"]) == 1  # stated twice, shown once


def test_the_mass_an_excess_is_found_at_is_not_local():
    """CMS: "… with a local significance of 5.0 σ, at a mass near 125 GeV" showed the mass as
    "observed local"."""
    sentence = ("An excess of events is observed above the expected background, with a local significance of "
                "5.0 σ, at a mass near 125 GeV, signalling the production of a new particle.")
    values = {v.number: v for v in headline_values(sentence, [chunk(sentence, ["Abstract"])])}
    assert values["5"].qualifiers.get("significance") == ["local"]
    assert "significance" not in values["125"].qualifiers


def test_a_value_an_older_version_stated_otherwise_is_marked_changed():
    current = chunk("In summary, the measured width is 4.1 MeV.", ["Conclusions"], 0, version="2")
    older = chunk("In summary, the measured width is 4.6 MeV.", ["Conclusions"], 0, version="1", superseded=True)
    values = headline_values("", [current, older])
    mark_changes(values, [older])
    assert [(v.written, v.changed_from) for v in values] == [("4.1 MeV", "4.6 MeV")]


def test_a_section_line_is_its_most_central_sentence_or_its_heading():
    text = ("Events are selected with two muons of opposite charge. The muons must be isolated from jets. "
            "Each selected muon pair must have an invariant mass above 12 GeV. Thanks.")
    assert "muon" in central_sentence([text])
    tree = document_tree("note", "Note", "1", [chunk(text, ["3 Event selection"], 0),
                                               chunk("", ["4 Results"], 1, page=3)])
    assert [s.path for s in tree.sections] == [["3 Event selection"], ["4 Results"]]
    assert tree.sections[1].line == "4 Results" and tree.sections[1].place.page == 3


def test_the_vocabulary_holds_abbreviations_and_symbols_each_where_defined():
    terms = vocabulary([
        chunk("Higgs bosons produced via vector boson fusion (VBF) are selected.", ["1 Introduction"], 0, page=2),
        chunk("The missing transverse momentum ($p_T^{miss}$) is large. Here $\\sigma$ is the production cross "
              "section, measured at the LHC.", ["2 Selection"], 1, page=4),
        chunk("We use the VBF topology.", ["3"], 2, page=5),
    ])
    by_short = {t.short: t for t in terms}
    assert by_short["VBF"].long == "vector boson fusion" and by_short["VBF"].place.page == 2
    assert any(t.kind == "symbol" and t.long == "missing transverse momentum" for t in terms)
    assert any(t.kind == "symbol" and t.long == "production cross section" for t in terms)


def test_five_questions_from_the_values_and_the_headings_each_a_locked_chat_link():
    values = headline_values("", [chunk("In conclusion, the observed significance is 5.0 standard deviations.",
                                        ["Conclusions"], 0)])
    trees = [DocumentTree(doc_id="note", title="Note", version="1", sections=[
        Section(path=[h], line=h) for h in ("1 Introduction", "2 Event selection", "3 Backgrounds", "4 Systematic "
                                            "uncertainties", "5 Results", "6 Conclusions")])]
    asked = questions(values, trees)
    assert len(asked) == 5 and asked[0] == "What is the observed significance?"
    assert not any("Introduction" in q or "Conclusions" in q for q in asked)
    assert chat_link("HIG-24-001", asked[0]) == "/?analysis=HIG-24-001&ask=What+is+the+observed+significance%3F"
