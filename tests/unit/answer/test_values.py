"""The value asked, found (issue 46): candidate values ranked in code before any model runs,
what is shown first, the constrained choice and the answer that states it. On sentences of
the CMS discovery paper (1207.7235) and the demo's notes."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from decimal import Decimal

import pytest

from mitra.answer.asked import Asked
from mitra.answer.candidates import candidates, confident, label_of, siblings
from mitra.answer.claims import PassageText
from mitra.answer.figures import figures
from mitra.answer.qualifiers import qualifiers
from mitra.answer.choose import (choice_messages, choice_schema, choose, parse_choice, prior_for, probabilities, weighed,
                                 written)
from mitra.answer.prompts import question_sentences
from mitra.answer.values import extra, first, numbered, numbers, pinned, quoted, stated
from mitra.core.settings import Settings
from mitra.core.types import Chunk, ChunkKind, Hit
from tests.unit.answer.test_claims import DISCOVERY, HIGGS, MONOJET, SIGNIFICANCE, VECTOR

TITLE = "Observation of a new boson at a mass of 125 GeV"


def hits(passages) -> list[Hit]:
    return [Hit(chunk=Chunk(id=f"c{p.n}", analysis_id="A", doc_id="AN-1", version="1", position=p.n, text=p.text,
                            section=[p.heading]), scores={"hybrid": 1.0 / p.n}) for p in passages]


def first_value(question: str, passages) -> str:
    return candidates(Asked.read(question, TITLE), hits(passages))[0].mention.written


@pytest.mark.parametrize("question, passages, value", [
    (SIGNIFICANCE, HIGGS, "5.0 σ"),
    ("What is the expected significance?", HIGGS, "5.8 σ"),
    ("What significance does the WW channel have?", HIGGS, "1.6 σ"),
    (VECTOR, MONOJET, "2.10 TeV"),
    ("What is the expected exclusion for the axial-vector mediator?", MONOJET, "2.15 TeV"),
])
def test_the_value_asked_ranks_first(question, passages, value):
    assert first_value(question, passages) == value


def test_a_contradicted_qualifier_rules_a_value_out():
    """An expected significance is never offered for the observed one, however close its words."""
    ranked = candidates(Asked.read("What is the expected significance?", TITLE), hits(HIGGS))
    assert not any(c.mention.written in ("5.0 σ", "4.1") and "observed" in c.label for c in ranked)


def test_settings_and_confidence_levels_are_never_values():
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                              text="Upper limits at 95% CL are set for mH = 125 GeV with 13 TeV data: the observed "
                                   "limit on the signal strength is 1.9."))
    ranked = candidates(Asked.read("What is the observed limit on the signal strength?"), [passage])
    assert [c.mention.written for c in ranked] == ["1.9"]


def test_the_numbers_a_question_states_do_not_name_the_kind_asked():
    """"How much 13 TeV data …" asks for a luminosity, not an energy."""
    assert Asked.read("How much 13 TeV data goes into the combination?").kind == "luminosity"
    assert Asked.read("What mass is found near 125 GeV?").kind == "energy"


def test_how_long_a_particle_lives_asks_for_a_lifetime():
    """"How long does the standard model Higgs boson live?" asked for no kind, so an interval's
    0.0061 (a ratio to the SM) ranked over "τH = 1.6 × 10-22 s"."""
    assert Asked.read("How long does the standard model Higgs boson live?").kind == "time"
    assert Asked.read("What decay time constant was measured for the fibres?").kind == "time"
    assert Asked.read("How long is the detector?").kind == ""


def test_the_size_of_a_data_set_asks_for_its_luminosity():
    """"How large is the 8 TeV data set …?" asked for no kind, so its 19.7 fb⁻¹ was ruled out."""
    assert Asked.read("How large is the 8 TeV data set used in the CMS ttH combination?").kind == "luminosity"
    assert Asked.read("How big was the 2016 dataset?").kind == "luminosity"
    assert Asked.read("How large is the signal yield in the data sample?").kind == "count"


def test_an_integrated_luminosity_is_the_data_not_the_result():
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                              text="Using 9 fb-1 of data, the CKM angle gamma is measured to be 63.8 degrees."))
    assert [c.mention.written for c in candidates(Asked.read("What value of the CKM angle gamma is found?"),
                                                  [passage])] == ["63.8 °"]
    assert candidates(Asked.read("How much data does the measurement use?"), [passage])[0].mention.written == "9 fb-1"


def test_a_percentage_states_a_relative_uncertainty_of_any_kind():
    """A luminosity or energy-scale uncertainty is written in per cent: never ruled out by its kind."""
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Luminosity"],
                              text="The uncertainties on the integrated luminosities are determined to be 1.8% for "
                                   "the 7 TeV data and 3.6% for the 8 TeV data."))
    ranked = candidates(Asked.read("How large is the luminosity uncertainty on the 8 TeV data?"), [passage])
    assert ranked and ranked[0].mention.written == "3.6 %"


def test_an_uncertainty_is_not_offered_for_a_value_nor_the_value_for_an_uncertainty():
    def ranked(question: str, text: str) -> dict[str, float]:
        passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Fit"],
                                  text=text))
        return {c.mention.written: c.score for c in candidates(Asked.read(question), [passage])}

    shift = ranked("By how much does the global fit shift Re(C9) from its SM value?",
                   "The minimum corresponds to Re(C9) shifted by -1.04 +- 0.25 from the SM value of the coefficient.")
    assert shift["−1.04"] > shift["0.25"]
    syst = ranked("How large is the systematic uncertainty on the signal strength?",
                  "The signal strength is 1.19 +0.40 -0.39 (stat) +0.15 -0.14 (syst).")
    assert "1.19" not in syst and max(syst, key=syst.get) in ("0.15", "0.14")


def test_a_question_asking_what_was_expected_asks_for_the_expected_value():
    assert Asked.read("What significance did CMS expect for ttH production?").qualifiers["measure"] == {"expected"}
    assert "measure" not in Asked.read("How significant is the excess over the background-only expectation?").qualifiers


def test_a_table_cell_under_a_bracketed_header_is_told_apart():
    """"Obs. (exp.) significance" over "2.8 (2.5)": the bracketed cell is the expected one."""
    table = Hit(chunk=Chunk(id="t", analysis_id="A", doc_id="D", version="1", position=0, kind=ChunkKind.table,
                            section=["Results"], text="Channel | μttH | Obs. (exp.) significance\n"
                                                      "2ℓSS + 0τh | 0.84 | 2.9 (3.4)\n3ℓ + 0τh | 1.12 | 2.8 (2.5)"))
    ranked = candidates(Asked.read("What is the expected significance of the 3ℓ + 0τh channel?"), [table])
    assert ranked[0].mention.written == "2.5" and ranked[0].label.startswith("expected")
    quote = quoted(ranked[0], {"t": 1}, [table])
    assert quote.header == "Channel | μttH | Obs. (exp.) significance"
    assert [(s.number, s.label.split()[0]) for s in quote.siblings] == [("2.8", "observed")]




def test_a_header_one_cell_short_names_the_last_columns():
    """ATLAS H→bb (1808.08238) Table 12: "Exp. | Obs." over "VBF+ggF | 0.9 | 1.5"; and a decimal
    the text layer split ("1. 97+0.71"). The caption's "(in standard deviations)" is no cell's
    unit: the same caption heads Table 11, whose cells state signal strengths and p-values too."""
    table = Hit(chunk=Chunk(id="t", analysis_id="A", doc_id="D", version="1", position=0, kind=ChunkKind.table,
                            section=["Results"], text=(
                                "Table 12: Expected and observed significance values (in standard deviations) for "
                                "the H → bb channels fitted independently.\nSignificance\nChannel\nExp. | Obs.\n"
                                "VBF+ggF | 0.9 | 1.5\nttH | 1.9 | 1.9\nVH | 5.1 | 4.9")))
    ranked = candidates(Asked.read("What significance is observed for H→bb in the VBF+ggF channel?"), [table])
    assert ranked[0].mention.written == "1.5" and ranked[0].label.startswith("observed")
    split = Hit(chunk=Chunk(id="s", analysis_id="A", doc_id="D", version="1", position=0, kind=ChunkKind.table,
                            section=["Results"], text="Parameter | Best fit | Stat.\nμ WW∗ | 1. 97+0.71 −0.64 | "
                                                      "+0.42 −0.41\nμ ZZ∗ | 0. 00+1.30 −0.00 | +1.28 −0.00"))
    assert candidates(Asked.read("What best-fit signal strength does the WW channel give?"), [split])[0] \
        .mention.value == Decimal("1.97")
def test_siblings_stand_beside_the_value_each_labelled():
    ranked = candidates(Asked.read(SIGNIFICANCE, TITLE), hits(HIGGS))
    (sibling,) = siblings(ranked[0], hits(HIGGS))
    assert sibling.mention.written == "5.8 σ" and sibling.label == "expected"


def test_an_expected_exclusion_has_the_observed_one_beside_it():
    """"… 2.05 TeV and 2.10 TeV are excluded, respectively, compared with expected exclusions
    of 2.15 and 2.20 TeV": asked for the vector mediator's exclusion, observed and expected
    (a value question: "exclusion" asks for one), the expected 2.20 TeV has the observed
    2.10 TeV beside it, which names no measure and so is the observed one."""
    question = "What is the observed and expected exclusion for the vector mediator?"
    asked = Asked.read(question, TITLE)
    assert asked.value
    expected = next(c for c in candidates(asked, hits(MONOJET)) if c.mention.written == "2.20 TeV")
    assert "2.10 TeV" in [s.mention.written for s in siblings(expected, hits(MONOJET))]


def test_beside_an_expected_value_the_one_naming_no_measure_is_labelled_observed():
    """The same sentence: the observed exclusions were labelled "vector" and "axial-vector"
    beside "expected vector", as if the measure did not tell them apart."""
    sources = hits(MONOJET)
    asked = Asked.read("What is the observed exclusion for the vector mediator?", TITLE)
    observed = next(c for c in candidates(asked, sources) if c.mention.written == "2.10 TeV")
    quote = quoted(observed, numbers(sources), sources)
    assert quote.label == "observed vector"
    assert {(s.number, s.label) for s in quote.siblings} >= {("2.05 TeV", "observed axial-vector"),
                                                            ("2.20 TeV", "expected vector")}


def test_the_first_is_shown_only_when_clear():
    clear = candidates(Asked.read(VECTOR, TITLE), hits(MONOJET))
    assert confident(clear, 1.0)
    years = [Hit(chunk=Chunk(id=f"y{n}", analysis_id="A", doc_id="D", version="1", position=n, section=["Fit"],
                             text=f"The signal strength measured in the {year} data is {mu}."))
             for n, (year, mu) in enumerate([("2016", "1.2"), ("2017", "0.9")])]
    close = candidates(Asked.read("What is the signal strength?"), years)
    assert [c.mention.written for c in close] == ["1.2", "0.9"] and not confident(close, 1.0)
    assert not confident([], 1.0)


def test_the_answer_states_the_value_as_its_passage_writes_it():
    sources = hits(HIGGS)
    ranked = numbered(candidates(Asked.read("What is the observed local significance?", TITLE), sources), sources)
    quote = first(ranked, sources, Settings(value_margin=0.0))
    assert quote is not None and quote.number == "5.0 standard deviations" and quote.passage == 1
    text = stated(quote)
    assert text.startswith("5.0 standard deviations (observed local) [1], as the passage states: “The observed")
    assert text.endswith("Beside it: expected 5.8 σ [1].")


def test_an_expected_background_does_not_label_the_significance_expected():
    """Reported on the demo: "5.0 σ (expected observed local)" for the discovery's significance."""
    sources = hits([PassageText(1, DISCOVERY, "Abstract")])
    ranked = candidates(Asked.read("What is the observed local significance?", TITLE), sources)
    assert ranked[0].mention.written == "5.0 σ" and ranked[0].label == "observed local"
    assert stated(quoted(ranked[0], {"c1": 1}, sources)).startswith("5.0 σ (observed local) [1]")


def test_no_label_says_both_observed_and_expected():
    for question, passages in ((SIGNIFICANCE, HIGGS), (VECTOR, MONOJET), (SIGNIFICANCE, [PassageText(1, DISCOVERY)])):
        ranked = candidates(Asked.read(question, TITLE), hits(passages))
        assert ranked and all(not {"observed", "expected"} <= set(c.label.split()) for c in ranked)
        assert all(not {"observed", "expected"} <= set(label_of(m.qualifiers).split())
                   for p in passages for m in p.mentions)


def test_a_sibling_from_a_list_shows_the_unit_the_list_writes_once():
    """Reported on the demo: "2.10 TeV (vector) … Beside it: expected axial-vector 2.15", the
    2.15 of "expected exclusions of 2.15 and 2.20 TeV" shown without its unit."""
    sources = hits(MONOJET)
    (chosen,) = [c for c in candidates(Asked.read(VECTOR, TITLE), sources) if c.mention.written == "2.10 TeV"]
    quote = quoted(chosen, {"c1": 1, "c2": 2}, sources)
    assert ("2.15 TeV", "expected axial-vector") in [(s.number, s.label) for s in quote.siblings]
    assert "expected axial-vector 2.15 TeV [2]" in stated(quote)
    # 2.10 names no measure: it is the observed limit, and the expected vector one stands beside it
    assert ("2.20 TeV", "expected vector") in [(s.number, s.label) for s in quote.siblings]
    expected = candidates(Asked.read("What is the expected exclusion for the axial-vector mediator?", TITLE), sources)
    shown = quoted(expected[0], {"c1": 1, "c2": 2}, sources)
    assert shown.number == "2.15 TeV" and shown.sentence[shown.start:shown.end] == "2.15"  # the digits highlighted


def test_the_candidates_sentences_reach_the_model():
    """A table row sharing no word with the question ("TE | 56 | 0.64") is kept whatever the
    budget leaves, and a candidate's passage beyond the model's passages joins them."""
    prose = Hit(chunk=Chunk(id="p", analysis_id="A", doc_id="D", version="1", position=0, section=["Fits"],
                            text="The constraint on the optical depth is discussed here at length. " * 6))
    table = Hit(chunk=Chunk(id="t", analysis_id="A", doc_id="D", version="1", position=1, section=["Fits"],
                            text="Data | N | ratio\nTT | 48 | 0.61\nTE | 56 | 0.64"))
    asked = Asked.read("What constraint on the optical depth does TE give?")
    ranked = candidates(asked, [prose, table])
    assert extra(ranked, [prose]) == [table]
    kept, _ = question_sentences(asked.text, [prose, table], 60, Settings(), pinned(ranked))
    assert any("TE | 56 | 0.64" in p.text for p in kept)


def test_the_question_is_read_once_into_one_record():
    asked = Asked.read("What is the expected upper limit on the mass in GeV? And how is it set?", "A search")
    assert asked.value and asked.kind == "energy" and asked.unit == "GeV" and asked.multipart
    assert asked.qualifiers == {"measure": frozenset({"expected"}), "limit": frozenset({"upper"})}
    assert "mass" in asked.quantity and "expect" not in asked.quantity


def test_the_choice_is_constrained_to_the_candidates_or_none():
    schema = choice_schema(["2.05 TeV", "2.10 TeV"])["json_schema"]["schema"]
    assert schema["properties"]["value"]["enum"] == ["2.05 TeV", "2.10 TeV", "none"] and schema["required"] == ["value"]
    assert parse_choice('{"value": "2.10 TeV"}', ["2.05 TeV", "2.10 TeV"]) == 2
    assert parse_choice('{"value": "none"}', ["2.05 TeV"]) == 0
    assert parse_choice('{"value": "2.2 TeV"}', ["2.05 TeV"]) == 0  # outside the list: none
    assert parse_choice("The limit is 2.10 TeV [2].", ["2.10 TeV"]) == 0  # prose from a server that ignored the schema


def test_the_choice_prompt_marks_each_value_in_its_sentence_and_asks_last():
    ranked = candidates(Asked.read(VECTOR, TITLE), hits(MONOJET))
    content = choice_messages(Asked.read(VECTOR, TITLE), ranked)[1].content
    assert "⟦2.10 TeV⟧" in content and content.rstrip().endswith(f"Question: {VECTOR}")
    assert written(ranked[0]) == "2.10 TeV"


def test_the_choice_prompt_reads_each_sentence_once_with_all_its_values_marked():
    """"1.3 (1.4) standard deviations … without (with)" is one line with both values marked,
    not the sentence twice: fewer tokens to read, and each value beside its sibling."""
    passage = PassageText(n=1, heading="Results", text=(
        "Considering the four degrees of freedom, this corresponds to 1.3 (1.4) standard deviations with respect "
        "to the SM, for the fit without (with) the negative constraints."))
    asked = Asked.read("How many standard deviations from the SM is the fit without the negative constraints?")
    ranked = candidates(asked, hits([passage]))
    lines = [line for line in choice_messages(asked, ranked)[1].content.split("\n") if line.startswith("- ")]
    assert len(lines) == 1 and "⟦1.3⟧ (⟦1.4⟧) standard deviations" in lines[0]


def test_the_choice_prompt_opens_the_same_for_every_analysis():
    """The system message names no analysis, so the server's prompt cache keeps it from one
    value question to the next (the demo model's choice 12.3 → 9.8 s p50 on idle cores); the
    title follows, in the member's message."""
    ranked = candidates(Asked.read(VECTOR, TITLE), hits(MONOJET))
    one = choice_messages(Asked.read(VECTOR, TITLE), ranked)
    other = choice_messages(Asked.read(VECTOR, "A search for dark matter with an energetic jet"), ranked)
    assert one[0].content == other[0].content and TITLE in one[1].content


def _lp(token: str, logprob: float, *alternatives: tuple[str, float]) -> dict:
    return {"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": p} for t, p in alternatives]}


def test_the_confidence_is_the_copied_value_s_probability_under_the_schema():
    """llama.cpp reports probabilities before its grammar: at each token of the value the
    chosen one is weighed against the alternatives the schema allowed there only ("6" starts
    no value; "2" starts 2.9), the framing tokens not at all. The share "2" took goes to 2.9."""
    tokens = [_lp('{"', -0.7), _lp("value", 0.0), _lp('":', 0.0), _lp(' "', -0.01, (" ", -5.0)),
              _lp("5", -0.07, ("5", -0.07), ("6", -4.0), ("2", -4.2)), _lp(".", 0.0), _lp("9", -0.02, ("1", -4.4)),
              _lp(" σ", -0.03), _lp('"}', 0.0)]
    space = math.exp(-0.01) / (math.exp(-0.01) + math.exp(-5.0))  # a space before the quote is allowed
    expected = space * math.exp(-0.07) / (math.exp(-0.07) + math.exp(-4.2))
    copied, spread = probabilities({"logprobs": {"content": tokens}}, ["5.9 σ", "2.9"])
    assert copied == 1 and spread[1] == pytest.approx(expected, abs=1e-3)
    assert spread[2] == pytest.approx(space * math.exp(-4.2) / (math.exp(-0.07) + math.exp(-4.2)), abs=1e-3)
    assert 0 not in spread  # nothing began "none"
    ollama = [{"token": '{"value":', "logprob": 0.0}, {"token": ' "2.10', "logprob": -0.105},
              {"token": ' TeV"}', "logprob": 0.0}]  # Ollama: no alternatives listed, the raw product
    assert probabilities({"logprobs": ollama}, ["2.10 TeV"]) == (1, {1: pytest.approx(0.9003, abs=1e-3)})


class _Copies:
    """A chat model that copies ``value`` at ``share``, the rest on ``other``, as llama.cpp reports it."""

    def __init__(self, value: str, share: float, other: str):
        self.value, self.share, self.other = value, share, other

    def bind(self, **_):
        return self

    def invoke(self, _messages):
        from langchain_core.messages import AIMessage

        rest = math.log(1 - self.share)
        tokens = [_lp('{"', 0.0), _lp("value", 0.0), _lp('":', 0.0), _lp(' "', 0.0),
                  _lp(self.value, math.log(self.share), (self.value, math.log(self.share)), (self.other, rest)),
                  _lp('"}', 0.0)]
        return AIMessage(content=json.dumps({"value": self.value}), response_metadata={"logprobs": {"content": tokens}})


def test_the_ranking_weighs_more_where_the_code_reads_its_first_value_better():
    """A small model reads a table row and a "…, respectively" pairing less surely than the
    code: where it copies a sibling at 75 % and the ranking puts the asked value first, the
    choice is the copy from a plain sentence (``value_prior`` 0.5) and the ranking's first
    from a table cell or a pairing (``READ_PRIOR``). No weight is still the copy."""
    table = Hit(chunk=Chunk(id="t", analysis_id="A", doc_id="D", version="1", position=0, kind=ChunkKind.table,
                            section=["Results"], text="Channel | μttH | Obs. (exp.) significance\n"
                                                      "2ℓSS + 0τh | 0.84 | 2.9 (3.4)\n3ℓ + 0τh | 1.12 | 2.8 (2.5)"))
    asked = Asked.read("What is the expected significance of the 3ℓ + 0τh channel?")
    ranked = candidates(asked, [table])[:4]
    assert written(ranked[0]) == "2.5" and ranked[0].mention.column
    model = _Copies("3.4", 0.75, "2.5")
    assert written(ranked[choose(model, asked, ranked, 0.5).index - 1]) == "2.5"
    assert written(ranked[choose(model, asked, ranked, 0.0).index - 1]) == "3.4"
    sentence = [replace(c, mention=replace(c.mention, column="")) for c in ranked]
    assert written(sentence[choose(model, asked, sentence, 0.5).index - 1]) == "3.4"

    masses = PassageText(1, "The obtained masses, equal to 1256 ± 4 MeV, 1252 ± 4 MeV and 1260 ± 4 MeV for the "
                            "isobar, K-matrix and QMI S-wave approaches, respectively, are four standard deviations "
                            "away from the world average.")
    asked = Asked.read("What f2(1270) mass comes out of the fit with the K-matrix S-wave approach?")
    ranked = candidates(asked, hits([masses]))[:4]
    assert written(ranked[0]) == "1252" and ranked[0].signals["respective"] == 1.0
    model = _Copies("1256", 0.75, "1252")
    assert written(ranked[choose(model, asked, ranked, 0.5).index - 1]) == "1252"
    unpaired = [replace(c, signals={**c.signals, "respective": 0.0}) for c in ranked]
    assert written(unpaired[choose(model, asked, unpaired, 0.5).index - 1]) == "1256"
    assert prior_for(0.5, read=False) == 0.5 and prior_for(10.0, read=True) == 10.0


def test_no_log_probabilities_no_confidence():
    assert probabilities({}, ["1"]) == (0, {}) and probabilities({"logprobs": None}, ["1"]) == (0, {})


def test_an_alternative_shared_by_two_values_gives_each_half_its_share():
    """"3" begins both 3.6 and 3.8 when the model copies 4.8: their later tokens are not
    reported, so the share leaving the path is split between them."""
    tokens = [_lp('{"value": "', 0.0), _lp("4", math.log(0.6), ("3", math.log(0.4))), _lp(".", 0.0),
              _lp("8", 0.0), _lp('"}', 0.0)]
    copied, spread = probabilities({"logprobs": {"content": tokens}}, ["3.6", "3.8", "4.8"])
    assert copied == 3 and spread == {1: 0.2, 2: 0.2, 3: 0.6}


def test_the_ranking_weighs_the_model_s_choice():
    """The model's probabilities and the code's ranking scores together choose: a value the
    model gave 45 % and the ranking far ahead beats the copied one at 50 % that the ranking
    puts low; with no weight, or one probability known (Ollama), the copy stands."""
    scores = [6.0, 1.0]
    spread = {1: 0.45, 2: 0.5, 0: 0.05}
    assert weighed(2, spread, scores, 0.5) == 1
    assert weighed(2, spread, scores, 0.0) == 2 and weighed(2, {2: 0.5}, scores, 0.5) == 2
    assert weighed(0, {0: 0.95, 1: 0.05}, [-2.0], 0.5) == 0  # none, where no value stands out


def test_a_sure_choice_is_stated_only_when_its_sentence_is_about_the_question():
    """The model's probability is relative to the values offered: a value from a sentence about
    something else is never stated as the answer, however sure the model."""
    from mitra.answer.values import about_it

    passages = [Hit(chunk=Chunk(id=f"c{n}", analysis_id="A", doc_id="D", version="1", position=n, section=["Detector"],
                                text=text)) for n, text in enumerate((
        "The detector has a pseudorapidity acceptance of 2 < eta < 5.",
        "The search is sensitive to long-lived particles with lifetimes between 1 and 200 ps."))]
    asked = Asked.read("What lifetime range does the search cover?")
    ranked = {c.mention.written: c for c in candidates(asked, passages)}
    assert about_it(asked, ranked["200 ps"]) and not about_it(asked, ranked["5"])


def test_a_percentage_for_a_quantity_written_with_a_unit_is_not_sure():
    """Seen in an across answer, stated unwarned: "100 %" (a branching fraction assumed) for the
    lifetime range of a search, its sentence holding "range" and "jets"."""
    from mitra.answer.values import about_it

    passages = [Hit(chunk=Chunk(id="c0", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                                text="Assuming a 100 % branching fraction to jets, the lifetime range of the search "
                                     "reaches 200 ps."))]
    asked = Asked.read("What lifetime range does the search cover?")
    ranked = {c.mention.written: c for c in candidates(asked, passages)}
    assert asked.kind == "time" and ranked["100 %"].signals["sentence"] >= 0.3
    assert not about_it(asked, ranked["100 %"]) and about_it(asked, ranked["200 ps"])


def test_a_choice_is_stated_only_when_the_model_is_sure():
    """SmolLM2 picks the first candidate whatever it reads: its agreeing with the code is no
    second reader, so where there are log-probabilities they alone decide; where a back end
    gives none, the choice stands only when it is the value the code was clear enough to show."""
    from mitra.answer.claims import Quote
    from mitra.answer.values import sure

    value = Quote(passage=3, sentence="The VBF category expects 37.6 signal events.", number="37.6 signal events",
                  start=25, end=43)
    settings = Settings(value_confidence=0.6)
    assert sure(value, 0.9, None, settings) and not sure(value, 0.31, value, settings)
    assert sure(value, None, value, settings) and not sure(value, None, None, settings)
    assert not sure(value, None, value.model_copy(update={"number": "24", "passage": 4}), settings)


def _ranked(question: str, text: str) -> list[str]:
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                              text=text))
    return [c.mention.written for c in candidates(Asked.read(question), [passage])]


def test_a_tagged_uncertainty_reads_its_value_s_quantity_and_unit():
    """"mH = 124.99 ± 0.18 (stat.) ± 0.04 (syst.) = 124.99 ± 0.19 GeV": each uncertainty is the
    mass's, in GeV, and the second is one too although "(stat.)" stands between."""
    from mitra.answer.quantities import mentions
    found = {m.written: m for m in mentions("The measured mass in the four-lepton final state is mH = 124.99 ± 0.18 "
                                            "(stat.) ± 0.04 (syst.) = 124.99 ± 0.19 GeV.")}
    assert found["0.04 GeV"].spread and "mass" in found["0.04 GeV"].words and "uncertainti" in found["0.18 GeV"].words
    assert _ranked("How large is the systematic uncertainty on the four-lepton mass?",
                   "The statistical component of the uncertainty on the luminosity is ± 0.09 GeV. The measured mass "
                   "in the four-lepton final state is mH = 124.99 ± 0.18 (stat.) ± 0.04 (syst.) = 124.99 ± 0.19 "
                   "GeV.")[0] == "0.04 GeV"


def test_a_list_takes_its_last_number_s_unit_and_its_first_one_s_words():
    from mitra.answer.figures import figures
    assert [f.unit for f in figures("are ∼ 45, 100 and 75 MeV at η ∼ 0")][:3] == ["MeV"] * 3
    assert [f.unit for f in figures("of 2.5 (2.3) and 4.0 (3.5) standard deviations")] == ["σ"] * 4


def test_the_number_a_question_states_picks_the_value_stated_at_it():
    text = ("The calibration uncertainties are 0.4% at ET ∼ 10 GeV, and 0.3% at ET ∼ 1 TeV. "
            "For photons at ET ∼ 60 GeV, the calibration uncertainty is 0.2% on average.")
    assert _ranked("What is the calibration uncertainty at a transverse energy around 1 TeV?", text)[0] == "0.3 %"
    assert _ranked("What is the calibration uncertainty for photons around 60 GeV?", text)[0] == "0.2 %"


@pytest.mark.parametrize("question, value", [
    ("What f2(1270) mass does the K-matrix approach give?", "1252 MeV"),
    ("What f2(1270) mass does the isobar approach give?", "1256 MeV"),
])
def test_respectively_pairs_each_value_with_its_item(question, value):
    text = ("The obtained f2(1270) masses, equal to 1256 +- 4 MeV, 1252 +- 4 MeV and 1260 +- 4 MeV for the isobar, "
            "K-matrix and QMI S-wave approaches, respectively, are consistent.")
    assert _ranked(question, text)[0] == value


def test_the_value_an_equation_gives_the_asked_symbol_leads():
    """LaTeX flattened (LHCb's 1112.4698): the result is "agamma = (-5.9 +- 5.9 stat) x 10-3",
    and the sentence about agamma's level holds more of the question's words. Its "10-2" and
    "10-4" are powers of ten, not the number 10."""
    text = ("Despite this measurement being described in most literature as a determination of indirect CP "
            "violation it is apparent that direct CP violation at the level of 10-2 can have a contribution to "
            "agamma at the level of 10-4. After applying the mistag correction, the resulting value of agamma is "
            "agamma = (-5.9 +- 5.9 stat +- 2.1 syst) x 10-3.")
    assert _ranked("What value of the indirect CP violation parameter AGamma is measured in D0 decays to K+K-?",
                   text) == ["−5.9", "10-2", "10-4", "2.1"]  # its minus sign shown with it


def test_gamma_written_for_a_resonance_is_its_width():
    """"M = 3923.8 ± 1.5 MeV and Γ = 17.4 ± 5.1 MeV" (LHCb's 2009.00026): Γ is the width a
    question asks for, as M is the mass; the mass came first for a width question."""
    text = "The parameters of the new state are found to be M = 3923.8 +- 1.5 MeV and Gamma = 17.4 +- 5.1 MeV."
    assert _ranked("What width is measured for the new state?", text)[0] == "17.4 MeV"
    assert _ranked("What mass is measured for the new state?", text)[0] == "3923.8 MeV"


def test_an_equation_of_the_symbol_does_not_answer_for_another_kind():
    """LHCb's B0 → K*0μμ angular analysis (1512.04442): "the significance of the Re(C9) shift"
    asks for 3.4 standard deviations, not the shift the equation gives Re(C9)."""
    text = ("The minimum chisq corresponds to a value of Re(C9) shifted by Delta Re(C9) = -1.04 +- 0.25 from the SM "
            "central value of Re(C9) = 4.27. Using the difference in chisq between the SM point and this best-fit "
            "point, the significance of this shift corresponds to 3.4 standard deviations.")
    assert _ranked("What is the significance of the Re(C9) shift away from the SM?", text)[0] == "3.4 σ"


def test_a_value_keeps_its_minus_sign_and_a_range_s_dash_is_none():
    from mitra.answer.quantities import mentions
    written = [m.as_written for m in mentions("phis = −0.019 ± 0.173 rad, a shift of -2.3%, masses of 2 - 3 GeV, "
                                              "and mu = 1.19 +0.40 -0.39")]
    assert written == ["−0.019", "0.173", "−2.3%", "2 GeV", "3 GeV", "1.19", "0.40", "0.39"]


def test_a_number_the_question_states_is_not_its_answer():
    """"… in the 90% signal window": a 90 the passage states is the window, not the yield."""
    from mitra.answer.pairing import setting
    from mitra.answer.quantities import mentions
    asked = Asked.read("How many background events are expected in the 90% signal window?")
    found = {m.written: m for m in mentions("The yields B90 are counted in a window holding 90 of the signal events: "
                                            "128 774 background events are expected.")}
    assert setting(asked, found["90"]) == -1.0 and setting(asked, found["128 774 events"]) >= 0


def test_an_oscillation_frequency_is_no_lifetime():
    """"17.69 ± 0.08 ps⁻¹" is a frequency, and the unit after "(syst)" is its chain's."""
    from mitra.answer.figures import figures
    assert Asked.read("What value of the Bs0 oscillation frequency Delta ms does LHCb measure?").kind == "frequency"
    assert {(f.unit, f.kind) for f in figures("dms = 17.768 +- 0.023 (stat) +- 0.006 (syst) ps -1, and DGs = "
                                              "0.106 +- 0.011invps")} == {("ps-1", "frequency")}
    assert _ranked("What is the measured lifetime?", "The world average of dms is 17.69 +- 0.08 ps -1 and the "
                   "lifetime is 1.519 +- 0.007 ps.")[0] == "1.519 ps"


def test_a_question_put_to_several_analyses_keeps_its_title_words_as_the_quantity():
    """Locked, "the oscillation frequency" of "Measurement of the Bs oscillation frequency" says
    which analysis; across, the question names none and those words are what it asks."""
    title = "Precision measurement of the Bs oscillation frequency"
    question = "What value of the Bs0 oscillation frequency does LHCb measure?"
    assert "frequenc" not in Asked.read(question, title).quantity
    assert {"oscil", "frequenc"} <= Asked.read(question, title, title_names_analysis=False).quantity


def test_a_bracketed_number_with_its_own_unit_lends_it_to_none():
    """"a p-value of 0.0003 (3.6 standard deviations)": the p-value is no significance."""
    from mitra.answer.figures import figures
    assert [f.unit for f in figures("excluded at a p-value of 0.0003 (3.6 standard deviations).")] == ["", "σ"]
    assert [f.unit for f in figures("significances of 5.0 (5.8) standard deviations")] == ["σ", "σ"]
    assert _ranked("With what significance is the no-signal hypothesis excluded?",
                   "The no-signal hypothesis is excluded at a p-value of 0.0003 (3.6 standard deviations).")[0] == "3.6 σ"


def test_an_answer_that_is_the_question_again_gives_no_value_but_one_in_words_stands():
    from mitra.answer.values import gives_no_value
    charm = Asked.read("What values of the charm mixing parameters y' and x'2 are measured from the ratio of "
                       "D0 -> K+pi- to D0 -> K-pi+ decay rates?")
    assert gives_no_value(charm, "The charm mixing parameters y' and x'2 are measured from the ratio of D0 -> K+pi- "
                                 "to D0 -> K-pi+ decay rates [6].")
    assert not gives_no_value(charm, "They are measured to be y' = (5.28 +- 0.52) x 10-3 [6].")
    scale = Asked.read("What energy scale calibration is used?")
    assert not gives_no_value(scale, "The energy scale is calibrated with Z to ee events [2].")


@pytest.mark.parametrize("question", [
    "Which SM cross section is assumed for vector-boson fusion at 13 TeV?",
    "What decay time constant was measured for the scintillating fibres?",
    "What primary-vertex mis-association level is expected in Upgrade II?",
])
def test_which_and_levels_and_constants_ask_for_values(question):
    assert Asked.read(question).value


def test_a_qualifier_said_of_one_number_is_not_another_s():
    """"of which ±0.17 is statistical, with an observed significance of 4.3": the
    significance is not statistical."""
    from mitra.answer.quantities import mentions
    found = {m.written: m for m in mentions("The result is μ = 0.92 +0.26 −0.23, of which ±0.17 is statistical, with "
                                            "an observed (expected) significance of 4.3 (4.6) standard deviations.")}
    assert found["0.17"].qualifiers["uncertainty"] == {"statistical"}
    assert "uncertainty" not in found["4.3 σ"].qualifiers and found["4.3 σ"].qualifiers["measure"] == {"observed"}


def test_a_primed_symbol_s_script_is_no_value():
    """"x' 2=(3.9 +- 2.7) x 10-5" (LaTeX's x'^2 flattened): the 2 names x'², it is not a value."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("measured to be x' 2=(3.9 +- 2.7) x 10-5 and x'2 = 5.5")] == ["3.9", "2.7",
                                                                                                      "5.5"]


def test_chi_squared_flattened_by_a_text_layer_is_no_value():
    """ATLAS's four-lepton selection table: "Common vertex - χ 2 -requirement" ranked its 2
    first for the coupling modifier κF."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("Common vertex - χ 2 -requirement on the fit of the four lepton tracks")] == []
    assert [m.written for m in mentions("A global goodness-of-fit of χ 2 of 25.3 is obtained.")] == ["25.3"]


def test_a_neutral_state_s_superscript_is_no_value():
    """"ρ(770) 0" (LaTeX's ρ(770)^0 flattened): the demo model copied that 0 for the ρ–ω mixing
    parameter; "K*0" and "K*(892)0" the same. A value after the state stays one."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("the electromagnetic mixing of rho(770) 0 and omega(782) is fixed to "
                                        "delta = 0.00215 +- 0.00035 GeV .")] == ["0.00215 GeV", "0.00035 GeV"]
    assert [m.written for m in mentions("B0 -> K*0 e+e- and B0 -> K*(892)0 mu+ mu- decays")] == []
    assert [m.written for m in mentions("The fit fraction of rho(770) 0.22 is small.")] == ["0.22"]
    assert [m.written for m in mentions("The statistical uncertainty on 0 -> D*- pi+) pi-pi+) is 0.42.")] == ["0.42"]


def test_a_one_letter_symbol_s_index_is_no_value():
    """"Delta C NP 9 = -0.71" (LaTeX's ΔC₉^NP flattened): the demo model copied the 9, at 90 %,
    for the shift of C9; "C 4 F 10" is a gas. A value after a letter's index stays one."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("a shift of Delta C NP 9 = -0.71 +- 0.33 is observed from the SM "
                                        "prediction of C SM 9 = 4.27")] == ["−0.71", "0.33", "4.27"]
    assert [m.written for m in mentions("uses Aerogel and C 4 F 10 as radiators")] == []
    assert [m.written for m in mentions("Region A 1.5 GeV wide holds 12 events.")] == ["1.5 GeV", "12 events"]


def test_a_unit_s_power_flattened_onto_it_is_no_value():
    """"1.1 < qsq < 6.0 GeV 2 /c4 is 624 +- 30" (GeV²/c⁴ flattened): the demo model's value box
    bolded that 2 for the signal yield."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("The signal yield in the range 1.1 < qsq < 6.0 GeV 2 /c4 is 624 +- 30 .")] \
        == ["1.1 GeV", "6.0 GeV", "624", "30"]  # a range's lower end takes its upper end's unit
    assert [m.written for m in mentions("a mass of 5279.6 MeV/c 2, and 2 events at 13 TeV")] == \
        ["5279.6 MeV", "2 events", "13 TeV"]


def test_a_year_in_a_list_takes_no_unit():
    """The demo's "34.7 fb⁻¹ from 2022 and 27.2 fb⁻¹ from 2023" listed "2022 fb⁻¹" as a luminosity."""
    from mitra.answer.quantities import mentions
    found = mentions("a luminosity of 61.9 fb⁻¹, 34.7 fb⁻¹ from 2022 and 27.2 fb⁻¹ from 2023.")
    assert [(m.as_written, m.condition) for m in found] == [("61.9 fb⁻¹", False), ("34.7 fb⁻¹", False),
                                                            ("2022", True), ("27.2 fb⁻¹", False), ("2023", True)]


def test_a_bound_of_a_selection_is_not_the_value_asked():
    """ATLAS H→4ℓ (2004.03447): the signal region's "115 < m4ℓ < 130 GeV" is no signal
    strength; a question asking for a bound still gets one."""
    passages = [Hit(chunk=Chunk(id=f"p{n}", analysis_id="A", doc_id="D", version="1", position=n, section=["Results"],
                                text=text), scores={"hybrid": 1.0 / (n + 1)}) for n, text in enumerate([
        "The global signal strength is fitted to the four-lepton events with 115 < m4ℓ < 130 GeV.",
        "The four-lepton data are interpreted in terms of the global signal strength, yielding μ = 1.01 ± 0.11."])]
    assert candidates(Asked.read("What global signal strength does the four-lepton analysis find?"),
                      passages)[0].mention.written == "1.01"
    trigger = candidates(Asked.read("What transverse momentum must the triggered muons have?"), [Hit(chunk=Chunk(
        id="d", analysis_id="A", doc_id="D", version="1", position=0, section=["Data"],
        text="The data were collected with dimuon triggers requiring two muons with pT > 4 GeV."))])
    assert not trigger[0].signals["bound"]  # the demo's question asks for the bound
    window = candidates(Asked.read("Which four-lepton mass window is the signal region?"), passages)
    assert {c.mention.written for c in window} >= {"115 GeV", "130 GeV"} and not any(c.signals["bound"] for c in window)


def test_a_symbol_s_power_is_no_value_and_a_power_of_ten_alone_is_one():
    """"the q^2 region 0.98<q2<1.10" (LHCb 1512.04442): the 2 names q²; "10^5 events" is 10⁵."""
    from mitra.answer.quantities import mentions
    assert [m.written for m in mentions("excluding the q^2 region 0.98<q2<1.10 GeV, and q^{2} bins")] == \
        ["0.98 GeV", "1.10 GeV"]
    (power,) = mentions("about 10^5 events were kept")
    assert (power.value, power.power, power.written) == (1, 5, "10^5 events")


def test_upper_and_lower_name_a_limit_only_beside_one_and_barrel_and_endcap_tell_values_apart():
    """ATLAS photon calibration (2309.05471): "for photons with lower energy … 0.18% in the
    barrel and 0.08%–0.67% in the endcaps"; the question asks for the barrel's."""
    from mitra.answer.qualifiers import qualifiers_of
    assert "limit" not in qualifiers_of("photons with lower energy")
    assert qualifiers_of("the observed upper limit on μ")["limit"] == {"upper"}
    assert qualifiers_of("the lower end of the interval")["limit"] == {"lower"}
    text = ("For photons with lower energy the uncertainty increases significantly: for ET = 15 GeV, it amounts to "
            "0.08% in the endcaps and 0.18% in the barrel for unconverted photons.")
    assert _ranked("For unconverted photons of 15 GeV in the barrel, how large is the energy scale uncertainty?",
                   text)[0] == "0.18 %"


def test_a_tag_inside_its_chains_unit_span_is_still_its_own():
    """LHCb's "Delta ms = 17.63 +- 0.11 (stat) +- 0.04 (syst) ps -1": the unit after the tag is
    the chain's, and "(syst)" stays 0.04's (lost, the check let "the statistical uncertainty
    is 0.04" through: answer_numbers' swapped values flagged 94 %, 99 % with the tag)."""
    from mitra.answer.quantities import mentions
    found = {m.written: m.qualifiers.get("uncertainty") for m in
             mentions("Delta ms = 17.63 +- 0.11 (stat) +- 0.04 (syst) ps -1 as illustrated in figure .")}
    assert found == {"17.63 ps-1": {"central value"}, "0.11 ps-1": {"statistical"}, "0.04 ps-1": {"systematic"}}


def test_a_selections_bound_is_never_shown_first():
    """LHCb 1512.04442: for "How many … decays are found between 1.1 and 6.0 GeV² in q²?" the
    value box bolded 0.98 of "excluding the q^2 region 0.98<q2<1.10", before the demo model
    chose 624."""
    text = "Decays are removed by excluding the q^2 region 0.98<q2<1.10 GeV, which lies between 1.1 and 6.0 GeV."
    ranked = candidates(Asked.read("How many decays are found between 1.1 and 6.0 GeV² in q²?"), [Hit(chunk=Chunk(
        id="q", analysis_id="A", doc_id="D", version="1", position=0, section=["Signal yield"], text=text))])
    # each a q² bound in GeV, none a count of decays: none is shown first
    assert not ranked or (ranked[0].signals["bound"] and not confident(ranked[:1], 0.0))


def test_a_bare_number_or_the_questions_own_is_never_shown_first():
    """SmolLM2's value box bolded the "7" of "7+8 TeV" for CMS's combined ttH signal strength,
    and the "90" of "σ90" for the background in "the 90% signal window"."""
    bare = candidates(Asked.read("What combined signal strength does CMS measure?"), [Hit(chunk=Chunk(
        id="b", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
        text="Best fit values of the signal strength modifier μttH, for the five individual decay channels "
             "considered, the combined result for 7+8 TeV alone and for 13 TeV alone, and the overall combined "
             "result."))])
    assert "7" not in [c.mention.written for c in bare]  # "7+8 TeV": two energies, a setting
    bare = candidates(Asked.read("What combined signal strength does CMS measure?"), [Hit(chunk=Chunk(
        id="b", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
        text="Best fit values of the signal strength modifier μttH, for the 5 individual decay channels "
             "considered and the overall combined result."))])
    assert bare[0].mention.written == "5" and bare[0].signals["bare"] and not confident(bare, 0.0)
    own = candidates(Asked.read("How many background events are expected in the 90% signal window?"), [Hit(chunk=Chunk(
        id="o", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
        text="Table 1: The expected signal ( S90 ) and background ( B90 ) yields in a diphoton invariant mass "
             "window whose half-width σ 90 γγ is chosen as the narrowest interval containing 90% of signal "
             "events."))])
    assert own[0].mention.written == "90" and own[0].signals["setting"] < 0 and not confident(own, 0.0)


def test_the_title_fills_only_the_classes_the_question_leaves_open():
    """ATLAS's Higgs mass combination (2308.04775): its title names the γγ and 4ℓ channels, and
    "combining Run 1 and Run 2" asks for the combination, which names neither channel."""
    title = "Combined measurement of the Higgs boson mass from the H → γγ and H → ZZ∗ → 4ℓ decay channels"
    asked = Asked.read("What Higgs boson mass does ATLAS obtain combining Run 1 and Run 2?", title)
    assert asked.context["channel"] == {"combined"}
    assert Asked.read("What Higgs boson mass does ATLAS measure?", title).context["channel"] >= {"γγ", "ZZ"}
    combined = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                               text="Combining the Run 2 result with the mH measurements performed in Run 1 at 7 and "
                                    "8 TeV, the combined result is: mH = 125.11 ± 0.09 (stat.) ± 0.06 (syst.) = "
                                    "125.11 ± 0.11 GeV."), scores={"hybrid": 1.0})
    assert not candidates(asked, [combined])[0].signals["left out"]


def test_a_kind_the_question_names_for_a_number_it_states_is_not_the_kind_asked():
    """ATLAS's electron and photon calibration (2309.05471): "with a transverse energy around 1
    TeV" names the electrons' energy; the calibration uncertainty asked is 0.3 %."""
    assert Asked.read("What is the calibration uncertainty for electrons with a transverse energy around 1 TeV?"
                      ).kind == ""
    assert Asked.read("What upper limit on the cross section at 13 TeV is set?").kind == "cross section"
    assert Asked.read("How much 13 TeV data goes into the CMS ttH combination?").kind == "luminosity"
    # a resolution's symbol (CMS 1207.7235's "σeff") asks no significance; "how many σ" does
    assert Asked.read("What is the effective diphoton mass resolution σeff in the best 8 TeV BDT category?"
                      ).kind == "energy"
    assert Asked.read("How many σ does the excess reach?").kind == "significance"
    # a q² interval with its range's end glued by a dash: the ratio asked has no unit
    assert Asked.read("What value of R(K*0) is obtained in the low-q2 interval 0.1-1.1 GeV^2/c^4?").kind == ""


def test_the_end_of_an_interval_the_question_asks_for_leads():
    """CMS's off-shell width paper (2202.06923): "the upper end of the 95% CL interval" is 2.0 of
    "[0.0061, 2.0]"; the upper bound on the lifetime is 1.3 × 10⁻²¹ s of "7.7 × 10-23 < τH < 1.3 ×
    10-21 s"; a list ("5.0, 6.1 and 7.2 σ") is no interval."""
    text = ("The off-shell rate is constrained, relative to its standard model expectation, to the interval "
            "[0.0061, 2.0] at 95% confidence level.")
    assert _ranked("What is the upper end of the 95% CL interval on the off-shell Higgs rate relative to the SM?",
                   text)[0] == "2.0"
    assert _ranked("What is the lower end of the 95% CL interval on the off-shell Higgs rate?", text)[0] == "0.0061"
    from mitra.answer.pairing import interval_end
    from mitra.answer.quantities import mentions
    asked = Asked.read("What upper bound on the Higgs boson lifetime follows from the CMS width constraint?")
    lifetime = "This corresponds to 7.7 × 10-23 < τ H < 1.3 × 10-21 s in H boson lifetime."
    assert [interval_end(asked, m) for m in mentions(lifetime)] == [-1.0, 1.0]
    assert {interval_end(asked, m) for m in mentions("significances of 5.0, 6.1 and 7.2 σ")} == {0.0}


def test_a_value_need_not_restate_what_only_the_title_names():
    """ATLAS's H → bb observation (1808.08238): the dijet-mass cross-check states its 3.6 σ
    without naming H → bb, which the title names; the main result's 5.4 σ names it."""
    title = "Observation of H → bb decays and VH production with the ATLAS detector"
    main = Hit(chunk=Chunk(id="m", analysis_id="A", doc_id="D", version="1", position=0, section=["7 Results"],
                           text="If the VH production cross-sections are those predicted by the SM, the observed "
                                "significance for the H → bb decay is 5.4 standard deviations, to be compared with "
                                "an expectation of 5.5 standard deviations."), scores={"hybrid": 1.0})
    check = Hit(chunk=Chunk(id="d", analysis_id="A", doc_id="D", version="1", position=1,
                            section=["6 Statistical analysis", "6.2 Dijet-mass analysis"],
                            text="The observed excess has a significance of 3.6 standard deviations, compared to "
                                 "an expectation of 3.5 standard deviations."), scores={"hybrid": 0.5})
    asked = Asked.read("What significance does the dijet-mass cross-check analysis find?", title)
    assert candidates(asked, [main, check])[0].mention.value == Decimal("3.6")


def test_a_ratio_has_no_unit_and_a_data_sets_size_is_no_uncertainty():
    """CMS H→μμ (2009.04363): the branching fraction the SM predicts is 2.18 × 10⁻⁴, not the
    125 GeV of the same sentence. ATLAS (1207.7214): the luminosity uncertainty on the 8 TeV
    data is 3.6 %, not the 5.8 fb⁻¹ the data set holds."""
    text = ("The expected branching fraction for the decay of the Higgs boson with mass of 125 GeV to a pair of "
            "muons is B(H → μ+μ−) = 2.18 × 10-4 [22].")
    assert _ranked("What H→μμ branching fraction does the standard model predict?", text) == ["2.18"]
    text = ("The data correspond to integrated luminosities of approximately 4.8 fb-1 collected at √s = 7 TeV in "
            "2011 and 5.8 fb-1 at √s = 8 TeV in 2012. The uncertainty is ±3.6% for the 8 TeV data.")
    assert _ranked("How large is the luminosity uncertainty on the 8 TeV ATLAS data?", text) == ["3.6 %"]
    # a luminosity's own uncertainty in fb⁻¹ stays a candidate
    assert "0.8 fb-1" in _ranked("How precisely is the integrated luminosity known?",
                                 "The integrated luminosity is 36.1 ± 0.8 fb-1.")


def test_a_value_for_part_of_the_data_asked_counts_against_it():
    """ATLAS's Higgs mass (2308.04775): "when Run 1 and Run 2 are combined" asks 124.94 GeV, not
    the Run 2 measurement of 124.99 GeV that the passage states first."""
    text = ("The measured mass of the Higgs boson in the H → ZZ∗ → 4ℓ final state using the full Run 2 dataset is "
            "mH = 124.99 ± 0.18 (stat.) ± 0.04 (syst.) = 124.99 ± 0.19 GeV. The combined measurement of mH performed "
            "with Run 1 and Run 2 datasets in the H → ZZ∗ → 4ℓ channel is mH = 124.94 ± 0.17 (stat.) ± 0.03 (syst.) "
            "= 124.94 ± 0.18 GeV.")
    title = "Combined measurement of the Higgs boson mass from the H → γγ and H → ZZ∗ → 4ℓ decay channels"
    passage = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0, section=["Results"],
                              text=text))
    asked = Asked.read("What is the four-lepton Higgs mass when Run 1 and Run 2 are combined?", title)
    assert candidates(asked, [passage])[0].mention.value == Decimal("124.94")


def test_a_value_another_collaboration_states_is_not_the_one_asked():
    """ATLAS's Higgs mass paper quotes CMS's combination in its introduction: "What Higgs boson
    mass does ATLAS obtain combining Run 1 and Run 2?" ranked CMS's 125.38 GeV first."""
    passages = [PassageText(1, "The combination of the two CMS Run 2 measurements with their Run 1 results yielded "
                               "a mH value of 125.38 ± 0.14 GeV [15].", "Introduction"),
                PassageText(2, "Combining the Run 2 result with the mH measurements performed in Run 1 at 7 and 8 TeV, "
                               "the combined result is mH = 125.11 ± 0.11 GeV.", "Results")]
    title = "Combined measurement of the Higgs boson mass from the H → γγ and H → ZZ → 4ℓ decay channels with the ATLAS detector"
    ranked = candidates(Asked.read("What Higgs boson mass does ATLAS obtain combining Run 1 and Run 2?", title),
                        hits(passages))
    assert "125.38 GeV" not in [c.mention.written for c in ranked]
    assert ranked[0].mention.written == "125.11 GeV"
    # read in the other order, after a value bound to a qualifier the question names
    assert [c.mention.written for c in candidates(Asked.read("What Higgs boson mass does ATLAS obtain combining Run 1 "
                                                             "and Run 2?", title), hits(passages[::-1]))][0] == "125.11 GeV"
    both = [PassageText(1, "Both the ATLAS and CMS Collaborations reported a combined mass of 125.09 ± 0.24 GeV.")]
    assert "125.09 GeV" in [c.mention.written for c in candidates(Asked.read("What mass does ATLAS report?"), hits(both))]


def test_a_hat_between_a_symbol_and_its_subscript_still_names_the_symbol():
    """ATLAS's four-lepton paper as its PDF text layer reads: "κˆ F = 0.88 ± 0.16" is the κF the
    question names; the hat between them hid the equation, and a selection's χ2 ranked first."""
    passage = PassageText(1, "The best-fit value is κˆ V = 1.02 ± 0.06 and κˆ F = 0.88 ± 0.16, with the correlation "
                             "of −0.17.")
    asked = Asked.read("What value of the fermion coupling modifier κF does the four-lepton fit prefer?")
    ranked = candidates(asked, hits([passage]))
    assert ranked[0].mention.written == "0.88" and ranked[0].signals["equated"] == 1.0


def test_an_asymmetric_uncertainty_the_text_layer_glued_on_is_read():
    """ATLAS VH(bb) (1808.08238) as its PDF text layer reads: "1.16-0.25+0.27" (the subscript
    first) lost its −0.25 and left 1.16 no central value, so it ranked first for "the total
    systematic uncertainty on the signal strength"."""
    read = [(str(f.value), f.central, f.spread) for f in figures("VH, H → bb combination | 1.16-0.25+0.27 | 4.9")]
    assert read == [("1.16", True, False), ("0.25", False, True), ("0.27", False, True), ("4.9", False, False)]
    assert [(str(f.value), f.unit, f.spread) for f in figures("μ = 1.16+0.27-0.25.")] == [
        ("1.16", "", False), ("0.27", "", True), ("0.25", "", True)]
    assert [f.unit for f in figures("a width of 3.2-1.7+2.4 MeV")] == ["MeV"] * 3
    # no "+": a range, both its ends read (the glued end had been dropped), a name's digits not
    assert [(str(f.value), f.unit) for f in figures("in the range 0.5-1.0 GeV, SMP-24-002")] == [
        ("0.5", "GeV"), ("1", "GeV")]
    passage = PassageText(1, "VH, H → bb combination | 1.16-0.25+0.27 | 7.3 · 10-6 | 5.3 · 10-7 | 4.3 | 4.9")
    ranked = candidates(Asked.read("What is the uncertainty on the VH(bb) signal strength?"), hits([passage]))
    central = next(c for c in ranked if c.mention.written == "1.16")
    assert central.signals["spread"] == 1.0


def test_a_tie_goes_to_the_value_whose_sentence_names_what_the_question_does():
    """ATLAS's Higgs mass (2308.04775): the Run 2 and the Run 1 + Run 2 systematic uncertainties
    tie where each clause names only "syst." ("Combining the Run 2 result with … Run 1 …, the
    combined result is: … ± 0.06 (syst.)"); the sentence naming Run 1 as well breaks the tie."""
    passage = PassageText(1, "Using the Run 2 data at 13 TeV, the result is: mH = 125.10 ± 0.09 (stat.) ± 0.07 (syst.) "
                             "= 125.10 ± 0.11 GeV. Combining the Run 2 result with the Run 1 measurements at 7 and 8 "
                             "TeV, the result is: mH = 125.11 ± 0.09 (stat.) ± 0.06 (syst.) = 125.11 ± 0.11 GeV.")
    ranked = candidates(Asked.read("How large is the systematic uncertainty on the ATLAS Run 1 + Run 2 Higgs mass?"),
                        hits([passage]))
    assert [c.mention.written for c in ranked[:2]] == ["0.06 GeV", "0.07 GeV"]
    assert [c.signals["around"] for c in ranked[:2]] == [3, 2]


def test_a_tie_break_never_makes_the_first_value_clear():
    """ATLAS H → μμ (2007.07830): the "around" tie-break lifted the observed limit on μ (2.2) a
    tenth over ``value_margin`` for a question about the branching ratio, and the value box
    bolded it. The margin is read without it."""
    passage = PassageText(1, "Using the Run 2 data at 13 TeV, the result is: mH = 125.10 ± 0.09 (stat.) ± 0.07 (syst.) "
                             "= 125.10 ± 0.11 GeV. Combining the Run 2 result with the Run 1 measurements at 7 and 8 "
                             "TeV, the result is: mH = 125.11 ± 0.09 (stat.) ± 0.06 (syst.) = 125.11 ± 0.11 GeV.")
    ranked = candidates(Asked.read("How large is the systematic uncertainty on the ATLAS Run 1 + Run 2 Higgs mass?"),
                        hits([passage]))
    first, second = (replace(c, signals={**c.signals, "sentence": 1.0, "left out": 0.0}) for c in ranked[:2])
    assert (first.signals["around"], second.signals["around"]) == (3, 2)
    first.score, second.score = 3.0, 0.45  # a lead of 2.55, a tenth of it the tie-break's
    assert not confident([first, second], 2.5) and confident([first, second], 2.4)


def test_of_several_assignments_the_one_to_the_name_asked_ranks_first():
    """LHCb's B → hh CP analysis (2012.05319) assigns a detection asymmetry to each year in one
    sentence; the 2015 value ranked first for the 2016 data, its sentence read the same for both."""
    passage = PassageText(1, "The final-state detection asymmetry values for the 2015 and 2016 data samples are "
                             "A det kaon pion(2015) | = | (-0.96 +- 0.32)%, A det kaon pion(2016) | = | (-1.05 +- 0.13)%.")
    asked = Asked.read("What final-state K-pi+ detection asymmetry is determined for the 2016 data?")
    ranked = candidates(asked, hits([passage]))
    assert ranked[0].mention.value == Decimal("1.05") and ranked[0].signals["assigned"] == 1.0
    assert next(c for c in ranked if c.mention.value == Decimal("0.96")).signals["assigned"] == -1.0
    # a bracketed comma stops no name, and one assignment alone tells nothing apart
    spans = PassageText(1, "sigma prompt (1.5<y<4.0, pT < 14 GeV) | = 1625 mb, sigma prompt (-5.0<y<-2.5, pT < 14 GeV) "
                           "| = 1692 mb.")
    ranked = candidates(Asked.read("What prompt cross-section is measured for -5.0 < y < -2.5?"), hits([spans]))
    assert ranked[0].mention.written.startswith("1692")
    nested = PassageText(1, "The cross-sections are sigma(from b, (2<y<4.5, pT < 14)) = 276 mb and sigma(prompt, (2<y<4.5, "
                            "pT < 14)) = 1625 mb.")
    ranked = candidates(Asked.read("What prompt cross-section is measured?"), hits([nested]))
    assert ranked[0].mention.written.startswith("1625") and ranked[0].signals["assigned"] == 1.0
    alone = PassageText(1, "The asymmetry is A = (-0.96 +- 0.32)% in 2015.")
    assert candidates(Asked.read("What asymmetry is measured?"), hits([alone]))[0].signals["assigned"] == 0.0


def test_a_qualifier_the_title_names_too_does_not_count_for_a_value():
    """LHCb's Run 3 trigger comparison (2105.04031): every value of the analysis is Run 3's, so
    a sentence that says "Run 3" about another share of the events is not the efficiency asked."""
    title = "A comparison of CPU and GPU implementations for the LHCb Experiment Run 3 Trigger"
    rate = Hit(chunk=Chunk(id="r", analysis_id="A", doc_id="D", version="1", position=0, section=["1 Introduction"],
                           text="In Run 3, about 85% of the minimum bias events pass the reconstruction."),
               scores={"hybrid": 1.0})
    cut = Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=1, section=["4 Performance"],
                          text="The efficiency on minimum bias events is 0.931 ± 0.003."), scores={"hybrid": 0.5})
    asked = Asked.read("What efficiency on minimum-bias events is quoted in the LHCb Run 3 study?", title)
    assert candidates(asked, [rate, cut])[0].mention.value == Decimal("0.931")


def test_a_summing_up_or_a_combination_of_tracks_names_no_combined_channel():
    """"Overall, there are 566 095 events in the signal sample" (2409.03496): a summing up,
    not the combination of channels; "the overall signal strength" is one. Nor is "one φ
    candidate per combination" (1606.07898) a combination of channels."""
    assert not qualifiers("After requiring exactly one phi candidate per combination, what fraction remains?")
    assert not [q for q in qualifiers("Overall, there are 566 095 events in the signal sample.") if q[0] == "channel"]
    assert ("channel", "combined") in [q[:2] for q in qualifiers("The overall signal strength is 1.09.")]


def test_what_a_question_leaves_out_names_no_quantity():
    """LHCb's B → hh CP asymmetries (2012.05319): "(not including the PID asymmetry)" says which
    asymmetry is not asked; its words must not draw the PID asymmetry's sentence."""
    asked = Asked.read("What final-state detection asymmetry (not including the PID asymmetry) is determined for "
                       "the 2016 data?")
    assert "pid" not in asked.quantity and {"detect", "final"} <= asked.quantity
    text = ("The numerical results are: A PID(2015) = (-1.2 ± 0.7)%, A PID(2016) = (0.5 ± 0.3)%. The final-state "
            "detection asymmetry values for the 2015 and 2016 data samples are A det(2015) = (-0.96 ± 0.32)%, "
            "A det(2016) = (-1.05 ± 0.13)%.")
    assert "pid" in Asked.read("What final-state detection asymmetry including the PID asymmetry is found?").quantity
    assert candidates(asked, [Hit(chunk=Chunk(id="c", analysis_id="A", doc_id="D", version="1", position=0,
                                              section=["Results"], text=text))])[0].mention.sentence.startswith(
        "The final-state detection asymmetry")
