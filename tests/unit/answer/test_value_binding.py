"""Values bound to what their sentence states them for, as the frozen value questions' dev
half showed them misread (issue 46): pairs under "respectively", production modes, seconds
after a power of ten, a setting paired by a list, the word "total" alone."""

from __future__ import annotations

from mitra.answer.asked import Asked
from mitra.answer.figures import base_value, figures
from mitra.answer.quantities import mentions
from mitra.core.text import math_to_words
from mitra.answer.candidates import candidates, confident
from mitra.answer.claims import PassageText
from tests.unit.answer.test_values import _ranked, hits

# ATLAS VH(bb) (1808.08238), as its text layer reads
MODES = ("The WH and ZH production modes have observed (expected) significances of 2.5 (2.3) and 4.0 (3.5) "
         "standard deviations, respectively, with a linear correlation between the two signal strengths of −1%. "
         "For a Higgs boson mass of 125 GeV, the observed significance for VH production is 5.3 standard "
         "deviations, to be compared with an expectation of 4.8 standard deviations.")


def test_respectively_leaves_each_bracketed_pair_its_own_measure():
    """"observed (expected) … 2.5 (2.3) and 4.0 (3.5) …, respectively": the bracket pairs each
    number with its bracket, the list pairs WH and ZH; 4.0 had been read as expected."""
    read = {m.written: dict(m.qualifiers) for m in mentions(MODES.split(". For")[0])}
    assert read["4.0 σ"] == {"measure": {"observed"}, "category": {"ZH"}}
    assert read["3.5 σ"] == {"measure": {"expected"}, "category": {"ZH"}}
    assert read["2.3 σ"] == {"measure": {"expected"}, "category": {"WH"}}


def test_wh_and_zh_are_not_their_combination():
    assert _ranked("What observed significance does ATLAS reach for VH production?", MODES)[0] == "5.3 σ"
    assert _ranked("How significant is the ZH signal alone?", MODES)[0] == "4.0 σ"


def test_seconds_after_a_power_of_ten_are_a_time():
    """CMS's Higgs width (2202.06923): "τH = 1.6 × 10-22 s" is a lifetime; "B 0 s" is a meson."""
    [lifetime] = figures("its lifetime is still too short ( τ H = 1.6 × 10-22 s) to be measured")
    assert (lifetime.unit, lifetime.kind, lifetime.power) == ("s", "time", -22)
    assert base_value(lifetime.value, "s") == base_value(lifetime.value * 10 ** 12, "ps")
    assert figures("decays of B 0 s mesons") == []  # not a time, nor a value: a one-letter symbol's index


def test_a_setting_a_list_pairs_with_the_value_is_not_part_of_the_data():
    """CMS ttH (1804.02610): 19.7 fb-1 is the 8 TeV data's alone, though its clause names 7 TeV too."""
    text = ("The 7 and 8 TeV data, collected in 2011 and 2012, correspond to integrated luminosities of up to 5.1 "
            "and 19.7 fb-1 [34], respectively. The 13 TeV data correspond to 35.9 fb-1.")
    ranked = candidates(Asked.read("How large is the 8 TeV data set used in the CMS ttH combination?"), hits(
        [PassageText(1, text)]))
    assert ranked[0].mention.written == "19.7 fb-1"
    assert (ranked[0].signals["setting"], ranked[0].signals["part"]) == (1.0, 0.0)


def test_total_names_the_uncertainty_not_the_quantity_it_is_on():
    """LHCb's luminosity (1410.0149): "the total luminosity uncertainty" asks about the
    luminosity; the qualifier "total" had swallowed the word between it and "uncertainty"."""
    asked = Asked.read("What is the total luminosity uncertainty for the LHCb 2012 (8 TeV) data?")
    assert asked.qualifiers["uncertainty"] == {"total"} and "luminos" in asked.quantity


def test_a_dot_or_a_latex_times_multiplies_a_power_of_ten():
    """ATLAS VH(bb) (1808.08238) writes its p-values "7.3 · 10-6": one number, not 7.3 and 10⁻⁶."""
    assert [(str(f.value), f.power) for f in figures("| 7.3 · 10-6 | 5.3 · 10-7 | 4.3")] == [
        ("7.3", -6), ("5.3", -7), ("4.3", None)]
    assert [(str(f.value), f.power) for f in figures(r"p = 1.7 \cdot 10^{-9} or 1.7 \times 10^{-9}")] == [
        ("1.7", -9), ("1.7", -9)]


def test_a_power_after_a_bracket_multiplies_the_bracket():
    """ATLAS H → μμ (2007.07830): "(2.17 ± 0.04) × 10-4" is the SM branching ratio 2.17 × 10⁻⁴."""
    read = [(str(f.value), f.power, f.spread) for f in figures("is (2.17 ± 0.04) × 10-4 [11].")]
    assert read == [("2.17", -4, False), ("0.04", -4, True), ("11", None, False)]
    assert [f.power for f in figures("of (33.5 +- 3.1)% of")] == [None, None]


def test_maths_opened_after_a_decimal_point_is_one_number():
    """CMS H → μμ (2009.04363): "is 1.$19_{-0.39}^{+0.40}$ (stat)…" read "1. 19", a sentence
    ending at "1." and a value 19; it is 1.19 with its uncertainties."""
    assert math_to_words(r"is 1.$19_{-0.39}^{+0.40}$ (stat)$_{-0.14}^{+0.15}$ (syst).") == (
        "is 1.19-0.39+0.40 (stat) -0.14 +0.15 (syst).")
    assert math_to_words(r"in 2012. $3$ events") == "in 2012. 3 events"


def test_a_latex_unit_flattened_onto_an_uncertainty_leaves_it_an_uncertainty():
    """LHCb's luminosity (1410.0149): "sigma Track = 52.7 +- 1.2unit mb" (\\unit{mb})."""
    assert [(str(f.value), f.central, f.spread) for f in figures("sigma Track = 52.7 +- 1.2unit mb .")] == [
        ("52.7", True, False), ("1.2", False, True)]


def test_a_count_is_never_a_selection_bound():
    """LHCb's B0 → K*0μμ (1512.04442): "the yield over the q² ranges" names ranges, and asks a count."""
    text = ("The signal yield integrated over the q^2 ranges 0.1 < qsq < 8.0 GeV 2 /c4 and 15.0 < qsq < 19.0 "
            "GeV 2 /c4 is determined to be 2398 +- 57 .")
    assert _ranked("What is the total signal yield over the q² ranges of the analysis?", text)[0] == "2398"


# ATLAS's four-lepton paper (2004.03447), as its text layer reads
INCLUSIVE = ("Higgs boson, the inclusive H → Z Z∗ production cross-section for | yH | < 2.5 is measured to be: σ · B "
             "≡ σ · B (H → Z Z∗ ) = 1.34 ± 0.11(stat.) ± 0.04(exp.) ± 0.03(th.) pb = 1.34 ± 0.12 pb.")


def test_a_selection_bound_does_not_end_the_words_a_value_is_stated_for():
    """"the inclusive … cross-section for |yH| < 2.5 is measured to be: … 1.34": 2.5 bounds a
    selection, and the clause of 1.34 reaches back past it to "inclusive"."""
    first = next(m for m in mentions(INCLUSIVE) if m.written == "1.34 pb")
    assert first.qualifiers["category"] == {"inclusive"}


def test_exp_and_th_tags_name_experimental_and_theoretical_uncertainties():
    read = {m.written: dict(m.qualifiers) for m in mentions(INCLUSIVE)}
    assert read["0.11 pb"]["uncertainty"] == {"statistical"}
    assert read["0.04 pb"]["uncertainty"] == {"experimental"} and "measure" not in read["0.04 pb"]
    assert read["0.03 pb"]["uncertainty"] == {"theoretical"}


def test_lengths_angles_and_times_are_read_with_their_units():
    """LHCb's detector papers (1412.6352, 2305.10515, 1808.08865) as LaTeX flattens them:
    "52.6mum" (\\mum) and "0.35circ" (^\\circ) had read as names and dropped; "the hit
    resolution" asked for an energy and "a time resolution" ruled out "0.6ns"."""
    assert [(str(f.value), f.unit, f.kind) for f in figures("is 52.6mum for the TT, 0.35circ and 0.35 degrees")] == [
        ("52.6", "μm", "length"), ("0.35", "°", "angle"), ("0.35", "°", "angle")]
    assert Asked.read("What hit resolution does the TT detector have in 2011 data?").kind == "length"
    assert Asked.read("What time resolution did the PLUME modules show in the test beam?").kind == "time"
    assert Asked.read("What precision on the CKM angle γ is projected?").kind == "angle"
    text = "The average collected charge was 12 pC and a time resolution of 0.6ns was found."
    assert _ranked("What time resolution did the PLUME modules show in the DESY test beam?", text)[0] == "0.6 ns"


def test_the_muon_channel_is_the_dimuon_one():
    """ATLAS H → ℓℓγ (2103.10322): "the best-fit signal strength in the muon (electron) channel …
    is μ μμ = 1.9 ± 0.7": "the muon channel" had contradicted "μμ" and ruled 1.9 out."""
    text = ("The best-fit signal strength in the muon (electron) channel, obtained from a fit with two separate "
            "signal-strength parameters, is μ μμ = 1.9 ± 0.7 ( μ ee = 1.0 ± 0.7).")
    assert _ranked("What signal strength does the muon channel of H→ℓℓγ give on its own?", text)[0] == "1.9"


def test_a_qualifier_only_the_title_names_counts_against_a_value_and_does_not_rule_it_out():
    """ATLAS's diphoton mass (2308.07216): "the partial Run 2 dataset" measurement combined
    H → ZZ and H → γγ; the title's γγ fills the question's open channel, and had ruled it out."""
    text = ("Using H → Z Z∗ → 4ℓ and H → γγ decays selected in a partial Run 2 dataset (36 fb-1 of p p collisions "
            "recorded before 2017), the ATLAS Collaboration measured mH = 124.86 ± 0.27 GeV [10].")
    asked = Asked.read("What Higgs mass had ATLAS measured with the partial Run 2 data set of 36 fb−1?",
                       "Measurement of the Higgs boson mass with H → γγ decays in 140 fb−1 of √s = 13 TeV pp collisions")
    ranked = candidates(asked, hits([PassageText(1, text)]))
    assert ranked[0].mention.written == "124.86 GeV" and ranked[0].signals["title contradicted"] == 1.0


def test_a_value_stated_roughly_is_never_shown_first():
    """CMS's Higgs width (2202.06923): "within ∼90% of the 4ℓ-only best fit value" was shown
    first, bold, for the four-lepton channel's best-fit width."""
    text = ("The inclusion of the 2ℓ2ν data also allows the lower limits on the off-shell signal strength to reach "
            "within ∼65% of its best fit value, compared to the weaker constraints from 4ℓ data alone, which reach "
            "within ∼90% of the 4ℓ-only best fit value.")
    ranked = candidates(Asked.read("What best-fit value does the four-lepton off-shell channel alone give?"),
                        hits([PassageText(1, text)]))
    assert ranked and not confident(ranked[:1], 0.0)
    plain = candidates(Asked.read("What best-fit value does the four-lepton channel alone give?"),
                       hits([PassageText(1, "The four-lepton channel alone gives a best-fit value of 0.9.")]))
    assert confident(plain[:1], 0.0)


def test_uncertainties_a_value_takes_in_name_no_uncertainty():
    """"Taking into account the systematic uncertainties, the observed difference … is 2.99
    (3.25)": both were labelled "observed systematic"; a value "including the systematic
    uncertainty of 0.5%" still names one, and a question asking a significance "including
    statistical and systematic uncertainties" asks for no uncertainty."""
    read = {m.written: dict(m.qualifiers) for m in mentions(
        "Taking into account the systematic uncertainties, the observed (expected) difference is 2.99 (3.25) "
        "standard deviations.")}
    assert "uncertainty" not in read["2.99 σ"] and "uncertainty" not in read["3.25 σ"]
    kept = {m.written: dict(m.qualifiers) for m in mentions(
        "The total uncertainty is 1.2%, including the systematic uncertainty of 0.5%.")}
    assert "systematic" in kept["0.5 %"]["uncertainty"]
    asked = Asked.read("With what significance, including statistical and systematic uncertainties, is the excess seen?")
    assert not asked.spread and "uncertainty" not in asked.qualifiers
